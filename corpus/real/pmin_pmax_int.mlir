module @jit__lambda attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["x"=8]> {stablehlo.mesh = {axes = [{name = "x", size = 8 : i64}]}}
  func.func public @main(%arg0: tensor<8x4xi32>) -> (tensor<1x4xi32> {jax.result_info = "result[0]"}, tensor<1x4xui8> {jax.result_info = "result[1]"}) {
    %0:2 = sdy.manual_computation(%arg0) in_shardings=[<@mesh, [{"x"}, {}]>] out_shardings=[<@mesh, [{}, {}]>, <@mesh, [{}, {}]>] manual_axes={"x"} (%arg1: tensor<1x4xi32>) {
      %1 = "stablehlo.all_reduce"(%arg1) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1, 2, 3, 4, 5, 6, 7]]> : tensor<1x8xi64>, use_global_device_ids}> ({
      ^bb0(%arg2: tensor<i32>, %arg3: tensor<i32>):
        %4 = stablehlo.minimum %arg2, %arg3 : tensor<i32>
        stablehlo.return %4 : tensor<i32>
      }) : (tensor<1x4xi32>) -> tensor<1x4xi32>
      %2 = stablehlo.convert %arg1 : (tensor<1x4xi32>) -> tensor<1x4xui8>
      %3 = "stablehlo.all_reduce"(%2) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1, 2, 3, 4, 5, 6, 7]]> : tensor<1x8xi64>, use_global_device_ids}> ({
      ^bb0(%arg2: tensor<ui8>, %arg3: tensor<ui8>):
        %4 = stablehlo.maximum %arg2, %arg3 : tensor<ui8>
        stablehlo.return %4 : tensor<ui8>
      }) : (tensor<1x4xui8>) -> tensor<1x4xui8>
      sdy.return %1, %3 : tensor<1x4xi32>, tensor<1x4xui8>
    } : (tensor<8x4xi32>) -> (tensor<1x4xi32>, tensor<1x4xui8>)
    return %0#0, %0#1 : tensor<1x4xi32>, tensor<1x4xui8>
  }
}
