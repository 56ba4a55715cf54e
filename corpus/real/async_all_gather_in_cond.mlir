module @jit_body attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["x"=8]> {stablehlo.mesh = {axes = [{name = "x", size = 8 : i64}]}}
  func.func public @main(%arg0: tensor<8x4xf32>, %arg1: tensor<1xi32>) -> (tensor<8x4xf32> {jax.result_info = "result"}) {
    %0 = sdy.manual_computation(%arg0, %arg1) in_shardings=[<@mesh, [{"x"}, {}]>, <@mesh, [{}]>] out_shardings=[<@mesh, [{"x"}, {}]>] manual_axes={"x"} (%arg2: tensor<1x4xf32>, %arg3: tensor<1xi32>) {
      %1 = stablehlo.reshape %arg3 : (tensor<1xi32>) -> tensor<i32>
      %c = stablehlo.constant dense<0> : tensor<i32>
      %2 = stablehlo.compare GT, %1, %c, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      %3 = stablehlo.convert %2 : (tensor<i1>) -> tensor<i32>
      %4 = "stablehlo.case"(%3) ({
        stablehlo.return %arg2 : tensor<1x4xf32>
      }, {
        %5 = "stablehlo.async_start"(%arg2) ({
        ^bb0(%arg4: tensor<1x4xf32>):
          %10 = "stablehlo.all_gather"(%arg4) <{all_gather_dim = 0 : i64, channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1, 2, 3, 4, 5, 6, 7]]> : tensor<1x8xi64>, use_global_device_ids}> : (tensor<1x4xf32>) -> tensor<8x4xf32>
          stablehlo.return %10 : tensor<8x4xf32>
        }) : (tensor<1x4xf32>) -> !stablehlo.future<tensor<8x4xf32>>
        %6 = "stablehlo.async_done"(%5) : (!stablehlo.future<tensor<8x4xf32>>) -> tensor<8x4xf32>
        %7 = stablehlo.slice %6 [0:1, 0:4] : (tensor<8x4xf32>) -> tensor<1x4xf32>
        %cst = stablehlo.constant dense<1.000000e+00> : tensor<f32>
        %8 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<1x4xf32>
        %9 = stablehlo.add %7, %8 : tensor<1x4xf32>
        stablehlo.return %9 : tensor<1x4xf32>
      }) : (tensor<i32>) -> tensor<1x4xf32>
      sdy.return %4 : tensor<1x4xf32>
    } : (tensor<8x4xf32>, tensor<1xi32>) -> tensor<8x4xf32>
    return %0 : tensor<8x4xf32>
  }
}
