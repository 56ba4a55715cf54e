// replica_group_mesh_axes must name a mesh the module defines (StableHLO 1.20 symbol check).
module @m attributes {mhlo.num_partitions = 4 : i32, mhlo.num_replicas = 1 : i32} {
  func.func @main(%x: tensor<2x4xf32>) -> tensor<4x4xf32> {
    %0 = "stablehlo.all_gather"(%x) {all_gather_dim = 0 : i64, replica_groups = #stablehlo.replica_group_mesh_axes<mesh = @grid, axes = [#stablehlo.axis_ref<name = "x">]>, channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>} : (tensor<2x4xf32>) -> tensor<4x4xf32>
    return %0 : tensor<4x4xf32>
  }
}
