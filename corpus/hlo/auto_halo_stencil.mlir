module @jit__lambda attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["x"=8]> {stablehlo.mesh = {axes = [{name = "x", size = 8 : i64}]}}
  func.func public @main(%arg0: tensor<64x4xf32>) -> (tensor<64x4xf32> {jax.result_info = "result"}) {
    %0 = call @"<lambda>"(%arg0) : (tensor<64x4xf32>) -> tensor<64x4xf32>
    return %0 : tensor<64x4xf32>
  }
  func.func private @"<lambda>"(%arg0: tensor<64x4xf32>) -> tensor<64x4xf32> {
    %0 = sdy.sharding_constraint %arg0 <@mesh, [{"x"}, {}]> : tensor<64x4xf32>
    %1 = call @_roll_static(%0) : (tensor<64x4xf32>) -> tensor<64x4xf32>
    %2 = call @_roll_static_0(%0) : (tensor<64x4xf32>) -> tensor<64x4xf32>
    %3 = stablehlo.subtract %1, %2 : tensor<64x4xf32>
    %4 = sdy.sharding_constraint %3 <@mesh, [{"x"}, {}]> : tensor<64x4xf32>
    return %4 : tensor<64x4xf32>
  }
  func.func private @_roll_static(%arg0: tensor<64x4xf32>) -> tensor<64x4xf32> {
    %0 = stablehlo.slice %arg0 [63:64, 0:4] : (tensor<64x4xf32>) -> tensor<1x4xf32>
    %1 = stablehlo.slice %arg0 [0:63, 0:4] : (tensor<64x4xf32>) -> tensor<63x4xf32>
    %2 = stablehlo.concatenate %0, %1, dim = 0 : (tensor<1x4xf32>, tensor<63x4xf32>) -> tensor<64x4xf32>
    return %2 : tensor<64x4xf32>
  }
  func.func private @_roll_static_0(%arg0: tensor<64x4xf32>) -> tensor<64x4xf32> {
    %0 = stablehlo.slice %arg0 [1:64, 0:4] : (tensor<64x4xf32>) -> tensor<63x4xf32>
    %1 = stablehlo.slice %arg0 [0:1, 0:4] : (tensor<64x4xf32>) -> tensor<1x4xf32>
    %2 = stablehlo.concatenate %0, %1, dim = 0 : (tensor<63x4xf32>, tensor<1x4xf32>) -> tensor<64x4xf32>
    return %2 : tensor<64x4xf32>
  }
}
