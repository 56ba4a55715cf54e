module @jit_step attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["x"=8]> {stablehlo.mesh = {axes = [{name = "x", size = 8 : i64}]}}
  func.func public @main(%arg0: tensor<16x16xf32>, %arg1: tensor<16x16xf32>, %arg2: tensor<16x16xf32>, %arg3: tensor<32x16xf32>, %arg4: tensor<32x16xf32>) -> (tensor<16x16xf32> {jax.result_info = "result[0]"}, tensor<16x16xf32> {jax.result_info = "result[1]"}, tensor<16x16xf32> {jax.result_info = "result[2]"}) {
    %0:3 = call @step(%arg0, %arg1, %arg2, %arg3, %arg4) : (tensor<16x16xf32>, tensor<16x16xf32>, tensor<16x16xf32>, tensor<32x16xf32>, tensor<32x16xf32>) -> (tensor<16x16xf32>, tensor<16x16xf32>, tensor<16x16xf32>)
    return %0#0, %0#1, %0#2 : tensor<16x16xf32>, tensor<16x16xf32>, tensor<16x16xf32>
  }
  func.func private @step(%arg0: tensor<16x16xf32>, %arg1: tensor<16x16xf32>, %arg2: tensor<16x16xf32>, %arg3: tensor<32x16xf32>, %arg4: tensor<32x16xf32>) -> (tensor<16x16xf32>, tensor<16x16xf32>, tensor<16x16xf32>) {
    %0 = sdy.sharding_constraint %arg0 <@mesh, [{}, {}]> : tensor<16x16xf32>
    %1 = sdy.sharding_constraint %arg1 <@mesh, [{}, {}]> : tensor<16x16xf32>
    %2 = sdy.sharding_constraint %arg2 <@mesh, [{}, {}]> : tensor<16x16xf32>
    %3 = sdy.sharding_constraint %arg3 <@mesh, [{"x"}, {}]> : tensor<32x16xf32>
    %4 = sdy.sharding_constraint %arg4 <@mesh, [{"x"}, {}]> : tensor<32x16xf32>
    %5 = stablehlo.dot_general %3, %0, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<32x16xf32>, tensor<16x16xf32>) -> tensor<32x16xf32>
    %6 = stablehlo.tanh %5 : tensor<32x16xf32>
    %cst = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %7 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<32x16xf32>
    %8 = stablehlo.subtract %7, %6 : tensor<32x16xf32>
    %9 = stablehlo.subtract %6, %4 : tensor<32x16xf32>
    %cst_0 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %10 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<32x16xf32>
    %11 = stablehlo.multiply %10, %9 : tensor<32x16xf32>
    %cst_1 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %cst_2 = stablehlo.constant dense<5.120000e+02> : tensor<f32>
    %12 = stablehlo.divide %cst_1, %cst_2 : tensor<f32>
    %13 = stablehlo.broadcast_in_dim %12, dims = [] : (tensor<f32>) -> tensor<32x16xf32>
    %14 = stablehlo.multiply %13, %11 : tensor<32x16xf32>
    %15 = stablehlo.multiply %14, %8 : tensor<32x16xf32>
    %16 = stablehlo.multiply %15, %6 : tensor<32x16xf32>
    %17 = stablehlo.add %15, %16 : tensor<32x16xf32>
    %18 = stablehlo.dot_general %17, %3, contracting_dims = [0] x [0], precision = [DEFAULT, DEFAULT] : (tensor<32x16xf32>, tensor<32x16xf32>) -> tensor<16x16xf32>
    %19 = stablehlo.transpose %18, dims = [1, 0] : (tensor<16x16xf32>) -> tensor<16x16xf32>
    %cst_3 = stablehlo.constant dense<0.899999976> : tensor<f32>
    %20 = stablehlo.broadcast_in_dim %cst_3, dims = [] : (tensor<f32>) -> tensor<16x16xf32>
    %21 = stablehlo.multiply %20, %1 : tensor<16x16xf32>
    %cst_4 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %22 = stablehlo.broadcast_in_dim %cst_4, dims = [] : (tensor<f32>) -> tensor<16x16xf32>
    %23 = stablehlo.multiply %22, %19 : tensor<16x16xf32>
    %24 = stablehlo.add %21, %23 : tensor<16x16xf32>
    %cst_5 = stablehlo.constant dense<9.990000e-01> : tensor<f32>
    %25 = stablehlo.broadcast_in_dim %cst_5, dims = [] : (tensor<f32>) -> tensor<16x16xf32>
    %26 = stablehlo.multiply %25, %2 : tensor<16x16xf32>
    %cst_6 = stablehlo.constant dense<1.000000e-03> : tensor<f32>
    %27 = stablehlo.broadcast_in_dim %cst_6, dims = [] : (tensor<f32>) -> tensor<16x16xf32>
    %28 = stablehlo.multiply %27, %19 : tensor<16x16xf32>
    %29 = stablehlo.multiply %28, %19 : tensor<16x16xf32>
    %30 = stablehlo.add %26, %29 : tensor<16x16xf32>
    %cst_7 = stablehlo.constant dense<1.000000e-03> : tensor<f32>
    %31 = stablehlo.broadcast_in_dim %cst_7, dims = [] : (tensor<f32>) -> tensor<16x16xf32>
    %32 = stablehlo.multiply %31, %24 : tensor<16x16xf32>
    %33 = stablehlo.sqrt %30 : tensor<16x16xf32>
    %cst_8 = stablehlo.constant dense<9.99999993E-9> : tensor<f32>
    %34 = stablehlo.broadcast_in_dim %cst_8, dims = [] : (tensor<f32>) -> tensor<16x16xf32>
    %35 = stablehlo.add %33, %34 : tensor<16x16xf32>
    %36 = stablehlo.divide %32, %35 : tensor<16x16xf32>
    %37 = stablehlo.subtract %0, %36 : tensor<16x16xf32>
    %38 = sdy.sharding_constraint %37 <@mesh, [{}, {}]> : tensor<16x16xf32>
    %39 = sdy.sharding_constraint %24 <@mesh, [{}, {}]> : tensor<16x16xf32>
    %40 = sdy.sharding_constraint %30 <@mesh, [{}, {}]> : tensor<16x16xf32>
    return %38, %39, %40 : tensor<16x16xf32>, tensor<16x16xf32>, tensor<16x16xf32>
  }
}
