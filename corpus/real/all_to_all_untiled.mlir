module @jit__lambda attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["x"=8]> {stablehlo.mesh = {axes = [{name = "x", size = 8 : i64}]}}
  func.func public @main(%arg0: tensor<64x4xf32>) -> (tensor<32x8xf32> {jax.result_info = "result"}) {
    %0 = sdy.manual_computation(%arg0) in_shardings=[<@mesh, [{"x"}, {}]>] out_shardings=[<@mesh, [{"x"}, {}]>] manual_axes={"x"} (%arg1: tensor<8x4xf32>) {
      %1 = stablehlo.broadcast_in_dim %arg1, dims = [0, 1] : (tensor<8x4xf32>) -> tensor<8x4x1xf32>
      %2 = "stablehlo.all_to_all"(%1) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, concat_dimension = 2 : i64, replica_groups = dense<[[0, 1, 2, 3, 4, 5, 6, 7]]> : tensor<1x8xi64>, split_count = 8 : i64, split_dimension = 0 : i64}> : (tensor<8x4x1xf32>) -> tensor<1x4x8xf32>
      %3 = stablehlo.reshape %2 : (tensor<1x4x8xf32>) -> tensor<4x8xf32>
      sdy.return %3 : tensor<4x8xf32>
    } : (tensor<64x4xf32>) -> tensor<32x8xf32>
    return %0 : tensor<32x8xf32>
  }
}
