module @jit_body attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["x"=8]> {stablehlo.mesh = {axes = [{name = "x", size = 8 : i64}]}}
  func.func public @main(%arg0: tensor<32x16xf32>, %arg1: tensor<16x16xf32>) -> (tensor<32x16xf32> {jax.result_info = "result"}) {
    %0 = sdy.manual_computation(%arg0, %arg1) in_shardings=[<@mesh, [{"x"}, {}]>, <@mesh, [{}, {}]>] out_shardings=[<@mesh, [{"x"}, {}]>] manual_axes={"x"} (%arg2: tensor<4x16xf32>, %arg3: tensor<16x16xf32>) {
      %1 = "stablehlo.async_start"(%arg2) ({
      ^bb0(%arg4: tensor<4x16xf32>):
        %6 = "stablehlo.all_reduce"(%arg4) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1, 2, 3, 4, 5, 6, 7]]> : tensor<1x8xi64>, use_global_device_ids}> ({
        ^bb0(%arg5: tensor<f32>, %arg6: tensor<f32>):
          %7 = stablehlo.add %arg5, %arg6 : tensor<f32>
          stablehlo.return %7 : tensor<f32>
        }) : (tensor<4x16xf32>) -> tensor<4x16xf32>
        stablehlo.return %6 : tensor<4x16xf32>
      }) : (tensor<4x16xf32>) -> !stablehlo.future<tensor<4x16xf32>>
      %2 = stablehlo.dot_general %arg2, %arg3, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<4x16xf32>, tensor<16x16xf32>) -> tensor<4x16xf32>
      %3 = stablehlo.tanh %2 : tensor<4x16xf32>
      %4 = "stablehlo.async_done"(%1) : (!stablehlo.future<tensor<4x16xf32>>) -> tensor<4x16xf32>
      %5 = stablehlo.add %4, %3 : tensor<4x16xf32>
      sdy.return %5 : tensor<4x16xf32>
    } : (tensor<32x16xf32>, tensor<16x16xf32>) -> tensor<32x16xf32>
    return %0 : tensor<32x16xf32>
  }
}
