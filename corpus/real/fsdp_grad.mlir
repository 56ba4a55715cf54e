module @jit_body attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["x"=8]> {stablehlo.mesh = {axes = [{name = "x", size = 8 : i64}]}}
  func.func public @main(%arg0: tensor<16x16xf32>, %arg1: tensor<4x16xf32>) -> (tensor<16x16xf32> {jax.result_info = "result"}) {
    %0 = sdy.manual_computation(%arg0, %arg1) in_shardings=[<@mesh, [{"x"}, {}]>, <@mesh, [{}, {}]>] out_shardings=[<@mesh, [{"x"}, {}]>] manual_axes={"x"} (%arg2: tensor<2x16xf32>, %arg3: tensor<4x16xf32>) {
      %1 = "stablehlo.all_gather"(%arg2) <{all_gather_dim = 0 : i64, channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1, 2, 3, 4, 5, 6, 7]]> : tensor<1x8xi64>, use_global_device_ids}> : (tensor<2x16xf32>) -> tensor<16x16xf32>
      %2 = stablehlo.dot_general %arg3, %1, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<4x16xf32>, tensor<16x16xf32>) -> tensor<4x16xf32>
      %3 = stablehlo.tanh %2 : tensor<4x16xf32>
      %cst = stablehlo.constant dense<1.000000e+00> : tensor<f32>
      %4 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<4x16xf32>
      %5 = stablehlo.subtract %4, %3 : tensor<4x16xf32>
      %cst_0 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
      %6 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<4x16xf32>
      %7 = stablehlo.multiply %6, %5 : tensor<4x16xf32>
      %8 = stablehlo.multiply %7, %3 : tensor<4x16xf32>
      %9 = stablehlo.add %7, %8 : tensor<4x16xf32>
      %10 = stablehlo.dot_general %9, %arg3, contracting_dims = [0] x [0], precision = [DEFAULT, DEFAULT] : (tensor<4x16xf32>, tensor<4x16xf32>) -> tensor<16x16xf32>
      %11 = stablehlo.transpose %10, dims = [1, 0] : (tensor<16x16xf32>) -> tensor<16x16xf32>
      %12 = "stablehlo.reduce_scatter"(%11) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1, 2, 3, 4, 5, 6, 7]]> : tensor<1x8xi64>, scatter_dimension = 0 : i64, use_global_device_ids}> ({
      ^bb0(%arg4: tensor<f32>, %arg5: tensor<f32>):
        %13 = stablehlo.add %arg4, %arg5 : tensor<f32>
        stablehlo.return %13 : tensor<f32>
      }) : (tensor<16x16xf32>) -> tensor<2x16xf32>
      sdy.return %12 : tensor<2x16xf32>
    } : (tensor<16x16xf32>, tensor<4x16xf32>) -> tensor<16x16xf32>
    return %0 : tensor<16x16xf32>
  }
}
