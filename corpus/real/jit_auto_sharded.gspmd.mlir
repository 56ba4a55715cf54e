module @jit__lambda attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<64x16xf32>, %arg1: tensor<16x16xf32>) -> (tensor<16xf32> {jax.result_info = "result"}) {
    %0 = call @"<lambda>"(%arg0, %arg1) : (tensor<64x16xf32>, tensor<16x16xf32>) -> tensor<16xf32>
    return %0 : tensor<16xf32>
  }
  func.func private @"<lambda>"(%arg0: tensor<64x16xf32>, %arg1: tensor<16x16xf32>) -> tensor<16xf32> {
    %0 = stablehlo.custom_call @Sharding(%arg0) {backend_config = "", mhlo.sharding = "{devices=[8,1]<=[8]}"} : (tensor<64x16xf32>) -> tensor<64x16xf32>
    %1 = stablehlo.custom_call @Sharding(%arg1) {backend_config = "", mhlo.sharding = "{devices=[1,8]<=[8]}"} : (tensor<16x16xf32>) -> tensor<16x16xf32>
    %2 = stablehlo.dot_general %0, %1, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<64x16xf32>, tensor<16x16xf32>) -> tensor<64x16xf32>
    %3 = stablehlo.tanh %2 : tensor<64x16xf32>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %4 = stablehlo.reduce(%3 init: %cst) applies stablehlo.add across dimensions = [0] : (tensor<64x16xf32>, tensor<f32>) -> tensor<16xf32>
    return %4 : tensor<16xf32>
  }
}
