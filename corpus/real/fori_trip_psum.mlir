module @jit_body attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["x"=8]> {stablehlo.mesh = {axes = [{name = "x", size = 8 : i64}]}}
  func.func public @main(%arg0: tensor<8x4xf32>) -> (tensor<8x4xf32> {jax.result_info = "result"}) {
    %0 = sdy.manual_computation(%arg0) in_shardings=[<@mesh, [{"x"}, {}]>] out_shardings=[<@mesh, [{"x"}, {}]>] manual_axes={"x"} (%arg1: tensor<1x4xf32>) {
      %c = stablehlo.constant dense<1> : tensor<i32>
      %1 = "stablehlo.all_reduce"(%c) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1, 2, 3, 4, 5, 6, 7]]> : tensor<1x8xi64>, use_global_device_ids}> ({
      ^bb0(%arg2: tensor<i32>, %arg3: tensor<i32>):
        %4 = stablehlo.add %arg2, %arg3 : tensor<i32>
        stablehlo.return %4 : tensor<i32>
      }) : (tensor<i32>) -> tensor<i32>
      %c_0 = stablehlo.constant dense<4> : tensor<i32>
      %2 = func.call @floor_divide(%1, %c_0) : (tensor<i32>, tensor<i32>) -> tensor<i32>
      %c_1 = stablehlo.constant dense<0> : tensor<i32>
      %3:3 = stablehlo.while(%iterArg = %c_1, %iterArg_2 = %2, %iterArg_3 = %arg1) : tensor<i32>, tensor<i32>, tensor<1x4xf32>
      cond {
        %4 = stablehlo.compare LT, %iterArg, %iterArg_2, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
        stablehlo.return %4 : tensor<i1>
      } do {
        %c_4 = stablehlo.constant dense<1> : tensor<i32>
        %4 = stablehlo.add %iterArg, %c_4 : tensor<i32>
        %5 = "stablehlo.all_reduce"(%iterArg_3) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1, 2, 3, 4, 5, 6, 7]]> : tensor<1x8xi64>, use_global_device_ids}> ({
        ^bb0(%arg2: tensor<f32>, %arg3: tensor<f32>):
          %8 = stablehlo.add %arg2, %arg3 : tensor<f32>
          stablehlo.return %8 : tensor<f32>
        }) : (tensor<1x4xf32>) -> tensor<1x4xf32>
        %cst = stablehlo.constant dense<1.000000e-01> : tensor<f32>
        %6 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<1x4xf32>
        %7 = stablehlo.multiply %5, %6 : tensor<1x4xf32>
        stablehlo.return %4, %iterArg_2, %7 : tensor<i32>, tensor<i32>, tensor<1x4xf32>
      }
      sdy.return %3#2 : tensor<1x4xf32>
    } : (tensor<8x4xf32>) -> tensor<8x4xf32>
    return %0 : tensor<8x4xf32>
  }
  func.func private @floor_divide(%arg0: tensor<i32>, %arg1: tensor<i32>) -> tensor<i32> {
    %0 = stablehlo.convert %arg1 : tensor<i32>
    %1 = stablehlo.divide %arg0, %0 : tensor<i32>
    %2 = stablehlo.sign %arg0 : tensor<i32>
    %3 = stablehlo.sign %0 : tensor<i32>
    %4 = stablehlo.compare NE, %2, %3, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %5 = stablehlo.remainder %arg0, %0 : tensor<i32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %6 = stablehlo.compare NE, %5, %c, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %7 = stablehlo.and %4, %6 : tensor<i1>
    %c_0 = stablehlo.constant dense<1> : tensor<i32>
    %8 = stablehlo.subtract %1, %c_0 : tensor<i32>
    %9 = call @_where(%7, %8, %1) : (tensor<i1>, tensor<i32>, tensor<i32>) -> tensor<i32>
    return %9 : tensor<i32>
  }
  func.func private @_where(%arg0: tensor<i1>, %arg1: tensor<i32>, %arg2: tensor<i32>) -> tensor<i32> {
    %0 = stablehlo.select %arg0, %arg1, %arg2 : tensor<i1>, tensor<i32>
    return %0 : tensor<i32>
  }
}
