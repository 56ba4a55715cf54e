module @jit_body attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["x"=2, "y"=4]> {stablehlo.mesh = {axes = [{name = "x", size = 2 : i64}, {name = "y", size = 4 : i64}]}}
  func.func public @main(%arg0: tensor<8x4xf32>) -> (tensor<8x4xf32> {jax.result_info = "result"}) {
    %0 = sdy.manual_computation(%arg0) in_shardings=[<@mesh, [{"x", "y"}, {}]>] out_shardings=[<@mesh, [{"x", "y"}, {}]>] manual_axes={"x", "y"} (%arg1: tensor<1x4xf32>) {
      %1 = stablehlo.abs %arg1 : tensor<1x4xf32>
      %cst = stablehlo.constant dense<0xFF800000> : tensor<f32>
      %2 = stablehlo.reduce(%1 init: %cst) applies stablehlo.maximum across dimensions = [0, 1] : (tensor<1x4xf32>, tensor<f32>) -> tensor<f32>
      %3:2 = stablehlo.while(%iterArg = %arg1, %iterArg_0 = %2) : tensor<1x4xf32>, tensor<f32>
      cond {
        %4 = "stablehlo.all_reduce"(%iterArg_0) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1, 2, 3], [4, 5, 6, 7]]> : tensor<2x4xi64>, use_global_device_ids}> ({
        ^bb0(%arg2: tensor<f32>, %arg3: tensor<f32>):
          %6 = stablehlo.maximum %arg2, %arg3 : tensor<f32>
          stablehlo.return %6 : tensor<f32>
        }) : (tensor<f32>) -> tensor<f32>
        %cst_1 = stablehlo.constant dense<1.000000e-03> : tensor<f32>
        %5 = stablehlo.compare GT, %4, %cst_1, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
        stablehlo.return %5 : tensor<i1>
      } do {
        %4 = "stablehlo.all_reduce"(%iterArg) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1, 2, 3], [4, 5, 6, 7]]> : tensor<2x4xi64>, use_global_device_ids}> ({
        ^bb0(%arg2: tensor<f32>, %arg3: tensor<f32>):
          %9 = stablehlo.add %arg2, %arg3 : tensor<f32>
          stablehlo.return %9 : tensor<f32>
        }) : (tensor<1x4xf32>) -> tensor<1x4xf32>
        %cst_1 = stablehlo.constant dense<6.250000e-02> : tensor<f32>
        %5 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f32>) -> tensor<1x4xf32>
        %6 = stablehlo.multiply %4, %5 : tensor<1x4xf32>
        %7 = stablehlo.abs %6 : tensor<1x4xf32>
        %cst_2 = stablehlo.constant dense<0xFF800000> : tensor<f32>
        %8 = stablehlo.reduce(%7 init: %cst_2) applies stablehlo.maximum across dimensions = [0, 1] : (tensor<1x4xf32>, tensor<f32>) -> tensor<f32>
        stablehlo.return %6, %8 : tensor<1x4xf32>, tensor<f32>
      }
      sdy.return %3#0 : tensor<1x4xf32>
    } : (tensor<8x4xf32>) -> tensor<8x4xf32>
    return %0 : tensor<8x4xf32>
  }
}
