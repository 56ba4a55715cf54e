module @jit_f attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["hosts"=2, "local"=4]> {stablehlo.mesh = {axes = [{name = "hosts", size = 2 : i64}, {name = "local", size = 4 : i64}]}}
  func.func public @main(%arg0: tensor<8x4xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"hosts", "local"}, {}]>}) -> (tensor<8x4xf32> {jax.result_info = "result"}) {
    %0 = sdy.manual_computation(%arg0) in_shardings=[<@mesh, [{"hosts", "local"}, {}]>] out_shardings=[<@mesh, [{"hosts", "local"}, {}]>] manual_axes={"hosts", "local"} (%arg1: tensor<1x4xf32>) {
      %1 = "stablehlo.all_reduce"(%arg1) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 4], [1, 5], [2, 6], [3, 7]]> : tensor<4x2xi64>, use_global_device_ids}> ({
      ^bb0(%arg2: tensor<f32>, %arg3: tensor<f32>):
        %5 = stablehlo.add %arg2, %arg3 : tensor<f32>
        stablehlo.return %5 : tensor<f32>
      }) : (tensor<1x4xf32>) -> tensor<1x4xf32>
      %c = stablehlo.constant dense<0> : tensor<i32>
      %c_0 = stablehlo.constant dense<0> : tensor<i32>
      %2 = stablehlo.compare EQ, %c, %c_0, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      %3 = stablehlo.convert %2 : (tensor<i1>) -> tensor<i32>
      %4 = "stablehlo.case"(%3) ({
        stablehlo.return %1 : tensor<1x4xf32>
      }, {
        %5 = stablehlo.multiply %arg1, %arg1 : tensor<1x4xf32>
        %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
        %6 = stablehlo.reduce(%5 init: %cst) applies stablehlo.add across dimensions = [0, 1] : (tensor<1x4xf32>, tensor<f32>) -> tensor<f32>
        %7 = "stablehlo.all_reduce"(%6) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 4], [1, 5], [2, 6], [3, 7]]> : tensor<4x2xi64>, use_global_device_ids}> ({
        ^bb0(%arg2: tensor<f32>, %arg3: tensor<f32>):
          %11 = stablehlo.add %arg2, %arg3 : tensor<f32>
          stablehlo.return %11 : tensor<f32>
        }) : (tensor<f32>) -> tensor<f32>
        %cst_1 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
        %8 = stablehlo.compare GE, %7, %cst_1, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
        %9 = stablehlo.negate %1 : tensor<1x4xf32>
        %10 = func.call @_where(%8, %1, %9) : (tensor<i1>, tensor<1x4xf32>, tensor<1x4xf32>) -> tensor<1x4xf32>
        stablehlo.return %10 : tensor<1x4xf32>
      }) : (tensor<i32>) -> tensor<1x4xf32>
      sdy.return %4 : tensor<1x4xf32>
    } : (tensor<8x4xf32>) -> tensor<8x4xf32>
    return %0 : tensor<8x4xf32>
  }
  func.func private @_where(%arg0: tensor<i1>, %arg1: tensor<1x4xf32>, %arg2: tensor<1x4xf32>) -> tensor<1x4xf32> {
    %0 = stablehlo.select %arg0, %arg1, %arg2 : tensor<i1>, tensor<1x4xf32>
    return %0 : tensor<1x4xf32>
  }
}
