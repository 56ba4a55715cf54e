module @jit_body attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["x"=8]> {stablehlo.mesh = {axes = [{name = "x", size = 8 : i64}]}}
  func.func public @main(%arg0: tensor<64x4xf32>, %arg1: tensor<8x8xi32>, %arg2: tensor<8x8xi32>, %arg3: tensor<8x8xi32>, %arg4: tensor<8x8xi32>) -> (tensor<64x4xf32> {jax.result_info = "result"}) {
    %0 = sdy.manual_computation(%arg0, %arg1, %arg2, %arg3, %arg4) in_shardings=[<@mesh, [{"x"}, {}]>, <@mesh, [{"x"}, {}]>, <@mesh, [{"x"}, {}]>, <@mesh, [{"x"}, {}]>, <@mesh, [{"x"}, {}]>] out_shardings=[<@mesh, [{"x"}, {}]>] manual_axes={"x"} (%arg5: tensor<8x4xf32>, %arg6: tensor<1x8xi32>, %arg7: tensor<1x8xi32>, %arg8: tensor<1x8xi32>, %arg9: tensor<1x8xi32>) {
      %c = stablehlo.constant dense<1> : tensor<ui32>
      %c_0 = stablehlo.constant dense<8> : tensor<ui32>
      %1 = stablehlo.partition_id : tensor<ui32>
      %2 = stablehlo.divide %1, %c : tensor<ui32>
      %3 = stablehlo.remainder %2, %c_0 : tensor<ui32>
      %4 = stablehlo.convert %3 : (tensor<ui32>) -> tensor<i32>
      %c_1 = stablehlo.constant dense<0> : tensor<i32>
      %5 = stablehlo.compare EQ, %4, %c_1, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      %6 = stablehlo.convert %5 : (tensor<i1>) -> tensor<i32>
      %7 = "stablehlo.case"(%6) ({
        stablehlo.return %arg5 : tensor<8x4xf32>
      }, {
        %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
        %8 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<8x4xf32>
        %9 = stablehlo.reshape %arg6 : (tensor<1x8xi32>) -> tensor<8xi32>
        %10 = stablehlo.reshape %arg7 : (tensor<1x8xi32>) -> tensor<8xi32>
        %11 = stablehlo.reshape %arg8 : (tensor<1x8xi32>) -> tensor<8xi32>
        %12 = stablehlo.reshape %arg9 : (tensor<1x8xi32>) -> tensor<8xi32>
        %13 = stablehlo.custom_call @ragged_all_to_all(%arg5, %8, %9, %10, %11, %12) {api_version = 4 : i32, backend_config = {channel_id = 1 : i64, replica_groups = dense<[[0, 1, 2, 3, 4, 5, 6, 7]]> : tensor<1x8xi64>}} : (tensor<8x4xf32>, tensor<8x4xf32>, tensor<8xi32>, tensor<8xi32>, tensor<8xi32>, tensor<8xi32>) -> tensor<8x4xf32>
        stablehlo.return %13 : tensor<8x4xf32>
      }) : (tensor<i32>) -> tensor<8x4xf32>
      sdy.return %7 : tensor<8x4xf32>
    } : (tensor<64x4xf32>, tensor<8x8xi32>, tensor<8x8xi32>, tensor<8x8xi32>, tensor<8x8xi32>) -> tensor<64x4xf32>
    return %0 : tensor<64x4xf32>
  }
}
