module @jit_body attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["x"=2, "y"=4]> {stablehlo.mesh = {axes = [{name = "x", size = 2 : i64}, {name = "y", size = 4 : i64}]}}
  func.func public @main(%arg0: tensor<8x16xf32>) -> (tensor<8x16xf32> {jax.result_info = "result"}) {
    %0 = call @body(%arg0) : (tensor<8x16xf32>) -> tensor<8x16xf32>
    return %0 : tensor<8x16xf32>
  }
  func.func private @body(%arg0: tensor<8x16xf32>) -> tensor<8x16xf32> {
    %0 = sdy.manual_computation(%arg0) in_shardings=[<@mesh, [{"x", ?}, {?}]>] out_shardings=[<@mesh, [{"x", ?}, {?}]>] manual_axes={"x"} (%arg1: tensor<4x16xf32>) {
      %1 = sdy.manual_computation() in_shardings=[] out_shardings=[<@mesh, []>] manual_axes={"y"} () {
        %c_0 = stablehlo.constant dense<4> : tensor<ui32>
        %c_1 = stablehlo.constant dense<2> : tensor<ui32>
        %7 = stablehlo.partition_id : tensor<ui32>
        %8 = stablehlo.divide %7, %c_0 : tensor<ui32>
        %9 = stablehlo.remainder %8, %c_1 : tensor<ui32>
        %10 = stablehlo.convert %9 : (tensor<ui32>) -> tensor<i32>
        sdy.return %10 : tensor<i32>
      } : () -> tensor<i32>
      %c = stablehlo.constant dense<0> : tensor<i32>
      %2 = stablehlo.compare EQ, %1, %c, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      %3 = stablehlo.convert %2 : (tensor<i1>) -> tensor<i32>
      %4 = sdy.sharding_constraint %3 <@mesh, []> : tensor<i32>
      %5 = "stablehlo.case"(%4) ({
        %cst = stablehlo.constant dense<2.000000e+00> : tensor<f32>
        %7 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<4x16xf32>
        %8 = sdy.sharding_constraint %7 <@mesh, [{?}, {?}]> : tensor<4x16xf32>
        %9 = stablehlo.multiply %arg1, %8 : tensor<4x16xf32>
        %10 = sdy.sharding_constraint %9 <@mesh, [{?}, {?}]> : tensor<4x16xf32>
        stablehlo.return %10 : tensor<4x16xf32>
      }, {
        %7 = "stablehlo.all_reduce"(%arg1) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 4], [1, 5], [2, 6], [3, 7]]> : tensor<4x2xi64>, use_global_device_ids}> ({
        ^bb0(%arg2: tensor<f32>, %arg3: tensor<f32>):
          %8 = stablehlo.add %arg2, %arg3 : tensor<f32>
          %9 = sdy.sharding_constraint %8 <@mesh, []> : tensor<f32>
          stablehlo.return %9 : tensor<f32>
        }) : (tensor<4x16xf32>) -> tensor<4x16xf32>
        stablehlo.return %7 : tensor<4x16xf32>
      }) : (tensor<i32>) -> tensor<4x16xf32>
      %6 = sdy.sharding_constraint %5 <@mesh, [{?}, {?}]> : tensor<4x16xf32>
      sdy.return %6 : tensor<4x16xf32>
    } : (tensor<8x16xf32>) -> tensor<8x16xf32>
    return %0 : tensor<8x16xf32>
  }
}
