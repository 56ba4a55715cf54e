module @jit_body attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["x"=8]> {stablehlo.mesh = {axes = [{name = "x", size = 8 : i64}]}}
  func.func public @main(%arg0: tensor<32xf32>) -> (tensor<32xf32> {jax.result_info = "result"}) {
    %c = stablehlo.constant dense<[0, 1, 0, 1, 0, 1, 0, 1]> : tensor<8xi32>
    %0 = sdy.manual_computation(%c, %arg0) in_shardings=[<@mesh, [{}]>, <@mesh, [{"x"}]>] out_shardings=[<@mesh, [{"x"}]>] manual_axes={"x"} (%arg1: tensor<8xi32>, %arg2: tensor<4xf32>) {
      %c_0 = stablehlo.constant dense<1> : tensor<ui32>
      %c_1 = stablehlo.constant dense<8> : tensor<ui32>
      %1 = stablehlo.partition_id : tensor<ui32>
      %2 = stablehlo.divide %1, %c_0 : tensor<ui32>
      %3 = stablehlo.remainder %2, %c_1 : tensor<ui32>
      %4 = stablehlo.convert %3 : (tensor<ui32>) -> tensor<i32>
      %c_2 = stablehlo.constant dense<0> : tensor<i32>
      %5 = stablehlo.compare LT, %4, %c_2, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      %c_3 = stablehlo.constant dense<8> : tensor<i32>
      %6 = stablehlo.add %4, %c_3 : tensor<i32>
      %7 = stablehlo.select %5, %6, %4 : tensor<i1>, tensor<i32>
      %8 = stablehlo.dynamic_slice %arg1, %7, sizes = [1] : (tensor<8xi32>, tensor<i32>) -> tensor<1xi32>
      %9 = stablehlo.reshape %8 : (tensor<1xi32>) -> tensor<i32>
      %c_4 = stablehlo.constant dense<0> : tensor<i32>
      %c_5 = stablehlo.constant dense<1> : tensor<i32>
      %10 = stablehlo.clamp %c_4, %9, %c_5 : tensor<i32>
      %11 = "stablehlo.case"(%10) ({
        %12 = "stablehlo.all_reduce"(%arg2) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1, 2, 3, 4, 5, 6, 7]]> : tensor<1x8xi64>, use_global_device_ids}> ({
        ^bb0(%arg3: tensor<f32>, %arg4: tensor<f32>):
          %13 = stablehlo.add %arg3, %arg4 : tensor<f32>
          stablehlo.return %13 : tensor<f32>
        }) : (tensor<4xf32>) -> tensor<4xf32>
        stablehlo.return %12 : tensor<4xf32>
      }, {
        %12 = "stablehlo.all_gather"(%arg2) <{all_gather_dim = 0 : i64, channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1, 2, 3, 4, 5, 6, 7]]> : tensor<1x8xi64>, use_global_device_ids}> : (tensor<4xf32>) -> tensor<32xf32>
        %13 = stablehlo.reshape %12 : (tensor<32xf32>) -> tensor<8x4xf32>
        %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
        %14 = stablehlo.reduce(%13 init: %cst) applies stablehlo.add across dimensions = [0] : (tensor<8x4xf32>, tensor<f32>) -> tensor<4xf32>
        stablehlo.return %14 : tensor<4xf32>
      }) : (tensor<i32>) -> tensor<4xf32>
      sdy.return %11 : tensor<4xf32>
    } : (tensor<8xi32>, tensor<32xf32>) -> tensor<32xf32>
    return %0 : tensor<32xf32>
  }
}
