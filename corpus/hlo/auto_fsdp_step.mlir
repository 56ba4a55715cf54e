module @jit_step attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["x"=8]> {stablehlo.mesh = {axes = [{name = "x", size = 8 : i64}]}}
  func.func public @main(%arg0: tensor<16x32xf32>, %arg1: tensor<32x16xf32>, %arg2: tensor<16x16xf32>, %arg3: tensor<16x16xf32>) -> (tensor<f32> {jax.result_info = "result[0]"}, tensor<16x32xf32> {jax.result_info = "result[1][0]"}, tensor<32x16xf32> {jax.result_info = "result[1][1]"}) {
    %0:3 = call @step(%arg0, %arg1, %arg2, %arg3) : (tensor<16x32xf32>, tensor<32x16xf32>, tensor<16x16xf32>, tensor<16x16xf32>) -> (tensor<f32>, tensor<16x32xf32>, tensor<32x16xf32>)
    return %0#0, %0#1, %0#2 : tensor<f32>, tensor<16x32xf32>, tensor<32x16xf32>
  }
  func.func private @step(%arg0: tensor<16x32xf32>, %arg1: tensor<32x16xf32>, %arg2: tensor<16x16xf32>, %arg3: tensor<16x16xf32>) -> (tensor<f32>, tensor<16x32xf32>, tensor<32x16xf32>) {
    %0 = sdy.sharding_constraint %arg0 <@mesh, [{"x"}, {}]> : tensor<16x32xf32>
    %1 = sdy.sharding_constraint %arg1 <@mesh, [{"x"}, {}]> : tensor<32x16xf32>
    %2 = sdy.sharding_constraint %arg2 <@mesh, [{"x"}, {}]> : tensor<16x16xf32>
    %3 = sdy.sharding_constraint %arg3 <@mesh, [{"x"}, {}]> : tensor<16x16xf32>
    %4 = stablehlo.dot_general %2, %0, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<16x16xf32>, tensor<16x32xf32>) -> tensor<16x32xf32>
    %5 = stablehlo.tanh %4 : tensor<16x32xf32>
    %cst = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %6 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<16x32xf32>
    %7 = stablehlo.subtract %6, %5 : tensor<16x32xf32>
    %8 = stablehlo.dot_general %5, %1, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<16x32xf32>, tensor<32x16xf32>) -> tensor<16x16xf32>
    %9 = stablehlo.subtract %8, %3 : tensor<16x16xf32>
    %10 = stablehlo.multiply %9, %9 : tensor<16x16xf32>
    %cst_0 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %11 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<16x16xf32>
    %12 = stablehlo.multiply %11, %9 : tensor<16x16xf32>
    %cst_1 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %13 = stablehlo.reduce(%10 init: %cst_1) applies stablehlo.add across dimensions = [0, 1] : (tensor<16x16xf32>, tensor<f32>) -> tensor<f32>
    %cst_2 = stablehlo.constant dense<2.560000e+02> : tensor<f32>
    %14 = stablehlo.divide %13, %cst_2 : tensor<f32>
    %cst_3 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %cst_4 = stablehlo.constant dense<2.560000e+02> : tensor<f32>
    %15 = stablehlo.divide %cst_3, %cst_4 : tensor<f32>
    %16 = stablehlo.broadcast_in_dim %15, dims = [] : (tensor<f32>) -> tensor<16x16xf32>
    %17 = stablehlo.multiply %16, %12 : tensor<16x16xf32>
    %18 = stablehlo.dot_general %17, %5, contracting_dims = [0] x [0], precision = [DEFAULT, DEFAULT] : (tensor<16x16xf32>, tensor<16x32xf32>) -> tensor<16x32xf32>
    %19 = stablehlo.transpose %18, dims = [1, 0] : (tensor<16x32xf32>) -> tensor<32x16xf32>
    %20 = stablehlo.dot_general %17, %1, contracting_dims = [1] x [1], precision = [DEFAULT, DEFAULT] : (tensor<16x16xf32>, tensor<32x16xf32>) -> tensor<16x32xf32>
    %21 = stablehlo.multiply %20, %7 : tensor<16x32xf32>
    %22 = stablehlo.multiply %21, %5 : tensor<16x32xf32>
    %23 = stablehlo.add %21, %22 : tensor<16x32xf32>
    %24 = stablehlo.dot_general %23, %2, contracting_dims = [0] x [0], precision = [DEFAULT, DEFAULT] : (tensor<16x32xf32>, tensor<16x16xf32>) -> tensor<32x16xf32>
    %25 = stablehlo.transpose %24, dims = [1, 0] : (tensor<32x16xf32>) -> tensor<16x32xf32>
    %cst_5 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %26 = stablehlo.broadcast_in_dim %cst_5, dims = [] : (tensor<f32>) -> tensor<16x32xf32>
    %27 = stablehlo.multiply %26, %25 : tensor<16x32xf32>
    %28 = stablehlo.subtract %0, %27 : tensor<16x32xf32>
    %cst_6 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %29 = stablehlo.broadcast_in_dim %cst_6, dims = [] : (tensor<f32>) -> tensor<32x16xf32>
    %30 = stablehlo.multiply %29, %19 : tensor<32x16xf32>
    %31 = stablehlo.subtract %1, %30 : tensor<32x16xf32>
    %32 = sdy.sharding_constraint %14 <@mesh, []> : tensor<f32>
    %33 = sdy.sharding_constraint %28 <@mesh, [{"x"}, {}]> : tensor<16x32xf32>
    %34 = sdy.sharding_constraint %31 <@mesh, [{"x"}, {}]> : tensor<32x16xf32>
    return %32, %33, %34 : tensor<f32>, tensor<16x32xf32>, tensor<32x16xf32>
  }
}
