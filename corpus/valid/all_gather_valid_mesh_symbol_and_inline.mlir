// The current spelling `mesh = @m` (a defined symbol) and an inlined #stablehlo.mesh.
module @m attributes {mhlo.num_partitions = 4 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @grid = <["x"=2, "y"=2]>
  func.func @main(%x: tensor<2x4xf32>) -> (tensor<4x4xf32>, tensor<4x4xf32>) {
    %0 = "stablehlo.all_gather"(%x) {all_gather_dim = 0 : i64, replica_groups = #stablehlo.replica_group_mesh_axes<mesh = @grid, axes = [#stablehlo.axis_ref<name = "x">]>, channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>} : (tensor<2x4xf32>) -> tensor<4x4xf32>
    %1 = "stablehlo.all_gather"(%x) {all_gather_dim = 0 : i64, replica_groups = #stablehlo.replica_group_mesh_axes<mesh = #stablehlo.mesh<axes = [#stablehlo.mesh_axis<name = "x", size = 2>, #stablehlo.mesh_axis<name = "y", size = 2>]>, axes = [#stablehlo.axis_ref<name = "y">]>, channel_handle = #stablehlo.channel_handle<handle = 2, type = 1>} : (tensor<2x4xf32>) -> tensor<4x4xf32>
    return %0, %1 : tensor<4x4xf32>, tensor<4x4xf32>
  }
}
