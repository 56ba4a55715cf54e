module @jit_body attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["x"=8]> {stablehlo.mesh = {axes = [{name = "x", size = 8 : i64}]}}
  func.func public @main(%arg0: tensor<8xf32>) -> (tensor<8xf32> {jax.result_info = "result"}) {
    %0 = sdy.manual_computation(%arg0) in_shardings=[<@mesh, [{"x"}]>] out_shardings=[<@mesh, [{"x"}]>] manual_axes={"x"} (%arg1: tensor<1xf32>) {
      %c = stablehlo.constant dense<0> : tensor<i32>
      %1:2 = stablehlo.while(%iterArg = %arg1, %iterArg_0 = %c) : tensor<1xf32>, tensor<i32>
      cond {
        %2 = stablehlo.abs %iterArg : tensor<1xf32>
        %cst = stablehlo.constant dense<0xFF800000> : tensor<f32>
        %3 = stablehlo.reduce(%2 init: %cst) applies stablehlo.maximum across dimensions = [0] : (tensor<1xf32>, tensor<f32>) -> tensor<f32>
        %4 = "stablehlo.all_reduce"(%3) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1, 2, 3, 4, 5, 6, 7]]> : tensor<1x8xi64>, use_global_device_ids}> ({
        ^bb0(%arg2: tensor<f32>, %arg3: tensor<f32>):
          %6 = stablehlo.maximum %arg2, %arg3 : tensor<f32>
          stablehlo.return %6 : tensor<f32>
        }) : (tensor<f32>) -> tensor<f32>
        %cst_1 = stablehlo.constant dense<1.000000e-03> : tensor<f32>
        %5 = stablehlo.compare GT, %4, %cst_1, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
        stablehlo.return %5 : tensor<i1>
      } do {
        %2 = "stablehlo.all_reduce"(%iterArg) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1, 2, 3, 4, 5, 6, 7]]> : tensor<1x8xi64>, use_global_device_ids}> ({
        ^bb0(%arg2: tensor<f32>, %arg3: tensor<f32>):
          %6 = stablehlo.add %arg2, %arg3 : tensor<f32>
          stablehlo.return %6 : tensor<f32>
        }) : (tensor<1xf32>) -> tensor<1xf32>
        %cst = stablehlo.constant dense<1.000000e-01> : tensor<f32>
        %3 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<1xf32>
        %4 = stablehlo.multiply %2, %3 : tensor<1xf32>
        %c_1 = stablehlo.constant dense<1> : tensor<i32>
        %5 = stablehlo.add %iterArg_0, %c_1 : tensor<i32>
        stablehlo.return %4, %5 : tensor<1xf32>, tensor<i32>
      }
      sdy.return %1#0 : tensor<1xf32>
    } : (tensor<8xf32>) -> tensor<8xf32>
    return %0 : tensor<8xf32>
  }
}
