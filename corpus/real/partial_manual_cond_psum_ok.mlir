module @jit_body attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["x"=2, "y"=4]> {stablehlo.mesh = {axes = [{name = "x", size = 2 : i64}, {name = "y", size = 4 : i64}]}}
  func.func public @main(%arg0: tensor<8x16xf32>) -> (tensor<8x16xf32> {jax.result_info = "result"}) {
    %0 = call @body(%arg0) : (tensor<8x16xf32>) -> tensor<8x16xf32>
    return %0 : tensor<8x16xf32>
  }
  func.func private @body(%arg0: tensor<8x16xf32>) -> tensor<8x16xf32> {
    %0 = sdy.manual_computation(%arg0) in_shardings=[<@mesh, [{"x", ?}, {?}]>] out_shardings=[<@mesh, [{"x", ?}, {?}]>] manual_axes={"x"} (%arg1: tensor<4x16xf32>) {
      %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %1 = stablehlo.reduce(%arg1 init: %cst) applies stablehlo.add across dimensions = [0, 1] : (tensor<4x16xf32>, tensor<f32>) -> tensor<f32>
      %2 = sdy.sharding_constraint %1 <@mesh, []> : tensor<f32>
      %3 = "stablehlo.all_reduce"(%2) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 4], [1, 5], [2, 6], [3, 7]]> : tensor<4x2xi64>, use_global_device_ids}> ({
      ^bb0(%arg2: tensor<f32>, %arg3: tensor<f32>):
        %9 = stablehlo.add %arg2, %arg3 : tensor<f32>
        %10 = sdy.sharding_constraint %9 <@mesh, []> : tensor<f32>
        stablehlo.return %10 : tensor<f32>
      }) : (tensor<f32>) -> tensor<f32>
      %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %4 = stablehlo.compare GT, %3, %cst_0, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %5 = stablehlo.convert %4 : (tensor<i1>) -> tensor<i32>
      %6 = sdy.sharding_constraint %5 <@mesh, []> : tensor<i32>
      %7 = "stablehlo.case"(%6) ({
        %cst_1 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
        %9 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f32>) -> tensor<4x16xf32>
        %10 = sdy.sharding_constraint %9 <@mesh, [{?}, {?}]> : tensor<4x16xf32>
        %11 = stablehlo.multiply %arg1, %10 : tensor<4x16xf32>
        %12 = sdy.sharding_constraint %11 <@mesh, [{?}, {?}]> : tensor<4x16xf32>
        stablehlo.return %12 : tensor<4x16xf32>
      }, {
        %9 = "stablehlo.all_reduce"(%arg1) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 4], [1, 5], [2, 6], [3, 7]]> : tensor<4x2xi64>, use_global_device_ids}> ({
        ^bb0(%arg2: tensor<f32>, %arg3: tensor<f32>):
          %10 = stablehlo.add %arg2, %arg3 : tensor<f32>
          %11 = sdy.sharding_constraint %10 <@mesh, []> : tensor<f32>
          stablehlo.return %11 : tensor<f32>
        }) : (tensor<4x16xf32>) -> tensor<4x16xf32>
        stablehlo.return %9 : tensor<4x16xf32>
      }) : (tensor<i32>) -> tensor<4x16xf32>
      %8 = sdy.sharding_constraint %7 <@mesh, [{?}, {?}]> : tensor<4x16xf32>
      sdy.return %8 : tensor<4x16xf32>
    } : (tensor<8x16xf32>) -> tensor<8x16xf32>
    return %0 : tensor<8x16xf32>
  }
}
