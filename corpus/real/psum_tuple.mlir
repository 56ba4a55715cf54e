module @jit__lambda attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["x"=8]> {stablehlo.mesh = {axes = [{name = "x", size = 8 : i64}]}}
  func.func public @main(%arg0: tensor<8x4xf32>, %arg1: tensor<8xi32>, %arg2: tensor<16x2xbf16>) -> (tensor<1x4xf32> {jax.result_info = "result[0]"}, tensor<1xi32> {jax.result_info = "result[1]"}, tensor<2x2xbf16> {jax.result_info = "result[2]"}) {
    %0:3 = sdy.manual_computation(%arg0, %arg1, %arg2) in_shardings=[<@mesh, [{"x"}, {}]>, <@mesh, [{"x"}]>, <@mesh, [{"x"}, {}]>] out_shardings=[<@mesh, [{}, {}]>, <@mesh, [{}]>, <@mesh, [{}, {}]>] manual_axes={"x"} (%arg3: tensor<1x4xf32>, %arg4: tensor<1xi32>, %arg5: tensor<2x2xbf16>) {
      %1 = "stablehlo.all_reduce"(%arg3) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1, 2, 3, 4, 5, 6, 7]]> : tensor<1x8xi64>, use_global_device_ids}> ({
      ^bb0(%arg6: tensor<f32>, %arg7: tensor<f32>):
        %4 = stablehlo.add %arg6, %arg7 : tensor<f32>
        stablehlo.return %4 : tensor<f32>
      }) : (tensor<1x4xf32>) -> tensor<1x4xf32>
      %2 = "stablehlo.all_reduce"(%arg4) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1, 2, 3, 4, 5, 6, 7]]> : tensor<1x8xi64>, use_global_device_ids}> ({
      ^bb0(%arg6: tensor<i32>, %arg7: tensor<i32>):
        %4 = stablehlo.add %arg6, %arg7 : tensor<i32>
        stablehlo.return %4 : tensor<i32>
      }) : (tensor<1xi32>) -> tensor<1xi32>
      %3 = "stablehlo.all_reduce"(%arg5) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1, 2, 3, 4, 5, 6, 7]]> : tensor<1x8xi64>, use_global_device_ids}> ({
      ^bb0(%arg6: tensor<bf16>, %arg7: tensor<bf16>):
        %4 = stablehlo.add %arg6, %arg7 : tensor<bf16>
        stablehlo.return %4 : tensor<bf16>
      }) : (tensor<2x2xbf16>) -> tensor<2x2xbf16>
      sdy.return %1, %2, %3 : tensor<1x4xf32>, tensor<1xi32>, tensor<2x2xbf16>
    } : (tensor<8x4xf32>, tensor<8xi32>, tensor<16x2xbf16>) -> (tensor<1x4xf32>, tensor<1xi32>, tensor<2x2xbf16>)
    return %0#0, %0#1, %0#2 : tensor<1x4xf32>, tensor<1xi32>, tensor<2x2xbf16>
  }
}
