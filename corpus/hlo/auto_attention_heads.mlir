module @jit_attn attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["x"=2, "y"=4]> {stablehlo.mesh = {axes = [{name = "x", size = 2 : i64}, {name = "y", size = 4 : i64}]}}
  func.func public @main(%arg0: tensor<4x8x16xf32>, %arg1: tensor<16x4x4xf32>, %arg2: tensor<16x4x4xf32>, %arg3: tensor<16x4x4xf32>, %arg4: tensor<4x4x16xf32>) -> (tensor<4x8x16xf32> {jax.result_info = "result"}) {
    %0 = call @attn(%arg0, %arg1, %arg2, %arg3, %arg4) : (tensor<4x8x16xf32>, tensor<16x4x4xf32>, tensor<16x4x4xf32>, tensor<16x4x4xf32>, tensor<4x4x16xf32>) -> tensor<4x8x16xf32>
    return %0 : tensor<4x8x16xf32>
  }
  func.func private @attn(%arg0: tensor<4x8x16xf32>, %arg1: tensor<16x4x4xf32>, %arg2: tensor<16x4x4xf32>, %arg3: tensor<16x4x4xf32>, %arg4: tensor<4x4x16xf32>) -> tensor<4x8x16xf32> {
    %0 = sdy.sharding_constraint %arg0 <@mesh, [{"x"}, {}, {}]> : tensor<4x8x16xf32>
    %1 = sdy.sharding_constraint %arg1 <@mesh, [{}, {"y"}, {}]> : tensor<16x4x4xf32>
    %2 = sdy.sharding_constraint %arg2 <@mesh, [{}, {"y"}, {}]> : tensor<16x4x4xf32>
    %3 = sdy.sharding_constraint %arg3 <@mesh, [{}, {"y"}, {}]> : tensor<16x4x4xf32>
    %4 = sdy.sharding_constraint %arg4 <@mesh, [{"y"}, {}, {}]> : tensor<4x4x16xf32>
    %5 = stablehlo.dot_general %0, %1, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<4x8x16xf32>, tensor<16x4x4xf32>) -> tensor<4x8x4x4xf32>
    %6 = stablehlo.dot_general %0, %2, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<4x8x16xf32>, tensor<16x4x4xf32>) -> tensor<4x8x4x4xf32>
    %7 = stablehlo.dot_general %0, %3, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<4x8x16xf32>, tensor<16x4x4xf32>) -> tensor<4x8x4x4xf32>
    %8 = sdy.sharding_constraint %5 <@mesh, [{"x"}, {}, {"y"}, {}]> : tensor<4x8x4x4xf32>
    %9 = stablehlo.dot_general %8, %6, batching_dims = [0, 2] x [0, 2], contracting_dims = [3] x [3], precision = [DEFAULT, DEFAULT] : (tensor<4x8x4x4xf32>, tensor<4x8x4x4xf32>) -> tensor<4x4x8x8xf32>
    %cst = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %10 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<4x4x8x8xf32>
    %11 = stablehlo.divide %9, %10 : tensor<4x4x8x8xf32>
    %cst_0 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %12 = stablehlo.reduce(%11 init: %cst_0) applies stablehlo.maximum across dimensions = [3] : (tensor<4x4x8x8xf32>, tensor<f32>) -> tensor<4x4x8xf32>
    %cst_1 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %13 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f32>) -> tensor<4x4x8xf32>
    %14 = stablehlo.maximum %13, %12 : tensor<4x4x8xf32>
    %15 = stablehlo.broadcast_in_dim %14, dims = [0, 1, 2] : (tensor<4x4x8xf32>) -> tensor<4x4x8x1xf32>
    %16 = stablehlo.broadcast_in_dim %15, dims = [0, 1, 2, 3] : (tensor<4x4x8x1xf32>) -> tensor<4x4x8x8xf32>
    %17 = stablehlo.subtract %11, %16 : tensor<4x4x8x8xf32>
    %18 = stablehlo.exponential %17 : tensor<4x4x8x8xf32>
    %cst_2 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %19 = stablehlo.reduce(%18 init: %cst_2) applies stablehlo.add across dimensions = [3] : (tensor<4x4x8x8xf32>, tensor<f32>) -> tensor<4x4x8xf32>
    %20 = stablehlo.broadcast_in_dim %19, dims = [0, 1, 2] : (tensor<4x4x8xf32>) -> tensor<4x4x8x1xf32>
    %21 = stablehlo.broadcast_in_dim %20, dims = [0, 1, 2, 3] : (tensor<4x4x8x1xf32>) -> tensor<4x4x8x8xf32>
    %22 = stablehlo.divide %18, %21 : tensor<4x4x8x8xf32>
    %23 = stablehlo.dot_general %7, %22, batching_dims = [0, 2] x [0, 1], contracting_dims = [1] x [3], precision = [DEFAULT, DEFAULT] : (tensor<4x8x4x4xf32>, tensor<4x4x8x8xf32>) -> tensor<4x4x4x8xf32>
    %24 = stablehlo.transpose %23, dims = [0, 3, 1, 2] : (tensor<4x4x4x8xf32>) -> tensor<4x8x4x4xf32>
    %25 = stablehlo.dot_general %24, %4, contracting_dims = [3, 2] x [1, 0], precision = [DEFAULT, DEFAULT] : (tensor<4x8x4x4xf32>, tensor<4x4x16xf32>) -> tensor<4x8x16xf32>
    %26 = sdy.sharding_constraint %25 <@mesh, [{"x"}, {}, {}]> : tensor<4x8x16xf32>
    return %26 : tensor<4x8x16xf32>
  }
}
