module @jit_body attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["x"=8]> {stablehlo.mesh = {axes = [{name = "x", size = 8 : i64}]}}
  func.func public @main(%arg0: tensor<32x8xf32>, %arg1: tensor<32x8xf32>) -> (tensor<32x8xf32> {jax.result_info = "result[0]"}, tensor<256x8xf32> {jax.result_info = "result[1]"}) {
    %0:2 = sdy.manual_computation(%arg0, %arg1) in_shardings=[<@mesh, [{"x"}, {}]>, <@mesh, [{"x"}, {}]>] out_shardings=[<@mesh, [{"x"}, {}]>, <@mesh, [{"x"}, {}]>] manual_axes={"x"} (%arg2: tensor<4x8xf32>, %arg3: tensor<4x8xf32>) {
      %1 = "stablehlo.async_start"(%arg2) ({
      ^bb0(%arg4: tensor<4x8xf32>):
        %9 = "stablehlo.collective_permute"(%arg4) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, source_target_pairs = dense<[[0, 1], [1, 2], [2, 3], [3, 4], [4, 5], [5, 6], [6, 7], [7, 0]]> : tensor<8x2xi64>}> : (tensor<4x8xf32>) -> tensor<4x8xf32>
        stablehlo.return %9 : tensor<4x8xf32>
      }) : (tensor<4x8xf32>) -> !stablehlo.future<tensor<4x8xf32>>
      %2 = "stablehlo.async_start"(%arg3) ({
      ^bb0(%arg4: tensor<4x8xf32>):
        %9 = "stablehlo.all_gather"(%arg4) <{all_gather_dim = 0 : i64, channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1, 2, 3, 4, 5, 6, 7]]> : tensor<1x8xi64>, use_global_device_ids}> : (tensor<4x8xf32>) -> tensor<32x8xf32>
        stablehlo.return %9 : tensor<32x8xf32>
      }) : (tensor<4x8xf32>) -> !stablehlo.future<tensor<32x8xf32>>
      %3 = stablehlo.sine %arg2 : tensor<4x8xf32>
      %cst = stablehlo.constant dense<3.000000e+00> : tensor<f32>
      %4 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<4x8xf32>
      %5 = stablehlo.multiply %3, %4 : tensor<4x8xf32>
      %6 = "stablehlo.async_done"(%2) : (!stablehlo.future<tensor<32x8xf32>>) -> tensor<32x8xf32>
      %7 = "stablehlo.async_done"(%1) : (!stablehlo.future<tensor<4x8xf32>>) -> tensor<4x8xf32>
      %8 = stablehlo.add %7, %5 : tensor<4x8xf32>
      sdy.return %8, %6 : tensor<4x8xf32>, tensor<32x8xf32>
    } : (tensor<32x8xf32>, tensor<32x8xf32>) -> (tensor<32x8xf32>, tensor<256x8xf32>)
    return %0#0, %0#1 : tensor<32x8xf32>, tensor<256x8xf32>
  }
}
