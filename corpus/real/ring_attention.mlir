module @jit_body attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["x"=8]> {stablehlo.mesh = {axes = [{name = "x", size = 8 : i64}]}}
  func.func public @main(%arg0: tensor<64x16xf32>, %arg1: tensor<64x16xf32>, %arg2: tensor<64x16xf32>) -> (tensor<64x16xf32> {jax.result_info = "result"}) {
    %0 = sdy.manual_computation(%arg0, %arg1, %arg2) in_shardings=[<@mesh, [{"x"}, {}]>, <@mesh, [{"x"}, {}]>, <@mesh, [{"x"}, {}]>] out_shardings=[<@mesh, [{"x"}, {}]>] manual_axes={"x"} (%arg3: tensor<8x16xf32>, %arg4: tensor<8x16xf32>, %arg5: tensor<8x16xf32>) {
      %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %1 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<8x16xf32>
      %cst_0 = stablehlo.constant dense<0xFF800000> : tensor<f32>
      %2 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<8xf32>
      %cst_1 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %3 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f32>) -> tensor<8xf32>
      %c = stablehlo.constant dense<0> : tensor<i32>
      %4:7 = stablehlo.while(%iterArg = %arg3, %iterArg_2 = %c, %iterArg_3 = %arg4, %iterArg_4 = %arg5, %iterArg_5 = %1, %iterArg_6 = %2, %iterArg_7 = %3) : tensor<8x16xf32>, tensor<i32>, tensor<8x16xf32>, tensor<8x16xf32>, tensor<8x16xf32>, tensor<8xf32>, tensor<8xf32>
      cond {
        %c_8 = stablehlo.constant dense<8> : tensor<i32>
        %8 = stablehlo.compare LT, %iterArg_2, %c_8, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
        stablehlo.return %8 : tensor<i1>
      } do {
        %8:5 = func.call @closed_call(%iterArg, %iterArg_3, %iterArg_4, %iterArg_5, %iterArg_6, %iterArg_7) : (tensor<8x16xf32>, tensor<8x16xf32>, tensor<8x16xf32>, tensor<8x16xf32>, tensor<8xf32>, tensor<8xf32>) -> (tensor<8x16xf32>, tensor<8x16xf32>, tensor<8x16xf32>, tensor<8xf32>, tensor<8xf32>)
        %c_8 = stablehlo.constant dense<1> : tensor<i32>
        %9 = stablehlo.add %iterArg_2, %c_8 : tensor<i32>
        stablehlo.return %iterArg, %9, %8#0, %8#1, %8#2, %8#3, %8#4 : tensor<8x16xf32>, tensor<i32>, tensor<8x16xf32>, tensor<8x16xf32>, tensor<8x16xf32>, tensor<8xf32>, tensor<8xf32>
      }
      %5 = stablehlo.broadcast_in_dim %4#6, dims = [0] : (tensor<8xf32>) -> tensor<8x1xf32>
      %6 = stablehlo.broadcast_in_dim %5, dims = [0, 1] : (tensor<8x1xf32>) -> tensor<8x16xf32>
      %7 = stablehlo.divide %4#4, %6 : tensor<8x16xf32>
      sdy.return %7 : tensor<8x16xf32>
    } : (tensor<64x16xf32>, tensor<64x16xf32>, tensor<64x16xf32>) -> tensor<64x16xf32>
    return %0 : tensor<64x16xf32>
  }
  func.func private @closed_call(%arg0: tensor<8x16xf32>, %arg1: tensor<8x16xf32>, %arg2: tensor<8x16xf32>, %arg3: tensor<8x16xf32>, %arg4: tensor<8xf32>, %arg5: tensor<8xf32>) -> (tensor<8x16xf32>, tensor<8x16xf32>, tensor<8x16xf32>, tensor<8xf32>, tensor<8xf32>) {
    %0 = stablehlo.transpose %arg1, dims = [1, 0] : (tensor<8x16xf32>) -> tensor<16x8xf32>
    %1 = stablehlo.dot_general %arg0, %0, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<8x16xf32>, tensor<16x8xf32>) -> tensor<8x8xf32>
    %cst = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %2 = stablehlo.reduce(%1 init: %cst) applies stablehlo.maximum across dimensions = [1] : (tensor<8x8xf32>, tensor<f32>) -> tensor<8xf32>
    %3 = stablehlo.convert %arg4 : tensor<8xf32>
    %4 = stablehlo.maximum %3, %2 : tensor<8xf32>
    %5 = stablehlo.broadcast_in_dim %4, dims = [0] : (tensor<8xf32>) -> tensor<8x1xf32>
    %6 = stablehlo.broadcast_in_dim %5, dims = [0, 1] : (tensor<8x1xf32>) -> tensor<8x8xf32>
    %7 = stablehlo.subtract %1, %6 : tensor<8x8xf32>
    %8 = stablehlo.exponential %7 : tensor<8x8xf32>
    %9 = stablehlo.convert %arg4 : tensor<8xf32>
    %10 = stablehlo.subtract %9, %4 : tensor<8xf32>
    %11 = stablehlo.exponential %10 : tensor<8xf32>
    %12 = stablehlo.broadcast_in_dim %11, dims = [0] : (tensor<8xf32>) -> tensor<8x1xf32>
    %13 = stablehlo.broadcast_in_dim %12, dims = [0, 1] : (tensor<8x1xf32>) -> tensor<8x16xf32>
    %14 = stablehlo.multiply %arg3, %13 : tensor<8x16xf32>
    %15 = stablehlo.dot_general %8, %arg2, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<8x8xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
    %16 = stablehlo.add %14, %15 : tensor<8x16xf32>
    %17 = stablehlo.multiply %arg5, %11 : tensor<8xf32>
    %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %18 = stablehlo.reduce(%8 init: %cst_0) applies stablehlo.add across dimensions = [1] : (tensor<8x8xf32>, tensor<f32>) -> tensor<8xf32>
    %19 = stablehlo.add %17, %18 : tensor<8xf32>
    %20 = "stablehlo.collective_permute"(%arg1) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, source_target_pairs = dense<[[0, 1], [1, 2], [2, 3], [3, 4], [4, 5], [5, 6], [6, 7], [7, 0]]> : tensor<8x2xi64>}> : (tensor<8x16xf32>) -> tensor<8x16xf32>
    %21 = "stablehlo.collective_permute"(%arg2) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, source_target_pairs = dense<[[0, 1], [1, 2], [2, 3], [3, 4], [4, 5], [5, 6], [6, 7], [7, 0]]> : tensor<8x2xi64>}> : (tensor<8x16xf32>) -> tensor<8x16xf32>
    return %20, %21, %16, %4, %19 : tensor<8x16xf32>, tensor<8x16xf32>, tensor<8x16xf32>, tensor<8xf32>, tensor<8xf32>
  }
}
