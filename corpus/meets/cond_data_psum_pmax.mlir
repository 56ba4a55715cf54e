module @jit__lambda attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["x"=8]> {stablehlo.mesh = {axes = [{name = "x", size = 8 : i64}]}}
  func.func public @main(%arg0: tensor<8x4xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {}]>}) -> (tensor<8x4xf32> {jax.result_info = "result"}) {
    %0 = sdy.manual_computation(%arg0) in_shardings=[<@mesh, [{"x"}, {}]>] out_shardings=[<@mesh, [{"x"}, {}]>] manual_axes={"x"} (%arg1: tensor<1x4xf32>) {
      %1 = stablehlo.slice %arg1 [0:1, 0:1] : (tensor<1x4xf32>) -> tensor<1x1xf32>
      %2 = stablehlo.reshape %1 : (tensor<1x1xf32>) -> tensor<f32>
      %c = stablehlo.constant dense<20> : tensor<i32>
      %3 = func.call @remainder(%2, %c) : (tensor<f32>, tensor<i32>) -> tensor<f32>
      %cst = stablehlo.constant dense<1.000000e+01> : tensor<f32>
      %4 = stablehlo.compare LT, %3, %cst, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %5 = stablehlo.convert %4 : (tensor<i1>) -> tensor<i32>
      %6 = "stablehlo.case"(%5) ({
        %7 = "stablehlo.all_reduce"(%arg1) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1, 2, 3, 4, 5, 6, 7]]> : tensor<1x8xi64>, use_global_device_ids}> ({
        ^bb0(%arg2: tensor<f32>, %arg3: tensor<f32>):
          %8 = stablehlo.maximum %arg2, %arg3 : tensor<f32>
          stablehlo.return %8 : tensor<f32>
        }) : (tensor<1x4xf32>) -> tensor<1x4xf32>
        stablehlo.return %7 : tensor<1x4xf32>
      }, {
        %7 = "stablehlo.all_reduce"(%arg1) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1, 2, 3, 4, 5, 6, 7]]> : tensor<1x8xi64>, use_global_device_ids}> ({
        ^bb0(%arg2: tensor<f32>, %arg3: tensor<f32>):
          %8 = stablehlo.add %arg2, %arg3 : tensor<f32>
          stablehlo.return %8 : tensor<f32>
        }) : (tensor<1x4xf32>) -> tensor<1x4xf32>
        stablehlo.return %7 : tensor<1x4xf32>
      }) : (tensor<i32>) -> tensor<1x4xf32>
      sdy.return %6 : tensor<1x4xf32>
    } : (tensor<8x4xf32>) -> tensor<8x4xf32>
    return %0 : tensor<8x4xf32>
  }
  func.func private @remainder(%arg0: tensor<f32>, %arg1: tensor<i32>) -> tensor<f32> {
    %0 = stablehlo.convert %arg1 : (tensor<i32>) -> tensor<f32>
    %1 = stablehlo.remainder %arg0, %0 : tensor<f32>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %2 = stablehlo.compare NE, %1, %cst, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
    %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %3 = stablehlo.compare LT, %1, %cst_0, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
    %cst_1 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %4 = stablehlo.compare LT, %0, %cst_1, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
    %5 = stablehlo.compare NE, %3, %4, UNSIGNED : (tensor<i1>, tensor<i1>) -> tensor<i1>
    %6 = stablehlo.and %5, %2 : tensor<i1>
    %7 = stablehlo.add %1, %0 : tensor<f32>
    %8 = stablehlo.select %6, %7, %1 : tensor<i1>, tensor<f32>
    return %8 : tensor<f32>
  }
}
