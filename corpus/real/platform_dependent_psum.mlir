module @jit_body attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["x"=8]> {stablehlo.mesh = {axes = [{name = "x", size = 8 : i64}]}}
  func.func public @main(%arg0: tensor<i32> {jax.global_constant = "_platform_index"}, %arg1: tensor<8x4xf32>) -> (tensor<8x4xf32> {jax.result_info = "result"}) {
    %0 = sdy.manual_computation(%arg0, %arg1) in_shardings=[<@mesh, []>, <@mesh, [{"x"}, {}]>] out_shardings=[<@mesh, [{"x"}, {}]>] manual_axes={"x"} (%arg2: tensor<i32>, %arg3: tensor<1x4xf32>) {
      %1 = "stablehlo.case"(%arg2) ({
        %c = stablehlo.constant dense<0> : tensor<i32>
        stablehlo.return %c : tensor<i32>
      }, {
        %c = stablehlo.constant dense<1> : tensor<i32>
        stablehlo.return %c : tensor<i32>
      }) : (tensor<i32>) -> tensor<i32>
      %2 = "stablehlo.case"(%1) ({
        %c = stablehlo.constant dense<0> : tensor<i32>
        stablehlo.return %c : tensor<i32>
      }, {
        %c = stablehlo.constant dense<1> : tensor<i32>
        stablehlo.return %c : tensor<i32>
      }) : (tensor<i32>) -> tensor<i32>
      %3 = "stablehlo.case"(%2) ({
        %c = stablehlo.constant dense<0> : tensor<i32>
        stablehlo.return %c : tensor<i32>
      }, {
        %c = stablehlo.constant dense<1> : tensor<i32>
        stablehlo.return %c : tensor<i32>
      }) : (tensor<i32>) -> tensor<i32>
      %4 = "stablehlo.case"(%3) ({
        %5 = "stablehlo.all_reduce"(%arg3) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1, 2, 3, 4, 5, 6, 7]]> : tensor<1x8xi64>, use_global_device_ids}> ({
        ^bb0(%arg4: tensor<f32>, %arg5: tensor<f32>):
          %6 = stablehlo.add %arg4, %arg5 : tensor<f32>
          stablehlo.return %6 : tensor<f32>
        }) : (tensor<1x4xf32>) -> tensor<1x4xf32>
        stablehlo.return %5 : tensor<1x4xf32>
      }, {
        %cst = stablehlo.constant dense<2.000000e+00> : tensor<f32>
        %5 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<1x4xf32>
        %6 = stablehlo.multiply %arg3, %5 : tensor<1x4xf32>
        %7 = "stablehlo.all_reduce"(%6) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1, 2, 3, 4, 5, 6, 7]]> : tensor<1x8xi64>, use_global_device_ids}> ({
        ^bb0(%arg4: tensor<f32>, %arg5: tensor<f32>):
          %8 = stablehlo.add %arg4, %arg5 : tensor<f32>
          stablehlo.return %8 : tensor<f32>
        }) : (tensor<1x4xf32>) -> tensor<1x4xf32>
        stablehlo.return %7 : tensor<1x4xf32>
      }) : (tensor<i32>) -> tensor<1x4xf32>
      sdy.return %4 : tensor<1x4xf32>
    } : (tensor<i32>, tensor<8x4xf32>) -> tensor<8x4xf32>
    return %0 : tensor<8x4xf32>
  }
}
