module @jit_f attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["x"=8]> {stablehlo.mesh = {axes = [{name = "x", size = 8 : i64}]}}
  func.func public @main(%arg0: tensor<16x16xf32>) -> (tensor<16x16xf32> {jax.result_info = "result"}) {
    %0 = call @f(%arg0) : (tensor<16x16xf32>) -> tensor<16x16xf32>
    return %0 : tensor<16x16xf32>
  }
  func.func private @f(%arg0: tensor<16x16xf32>) -> tensor<16x16xf32> {
    %0 = sdy.sharding_constraint %arg0 <@mesh, [{"x"}, {}]> : tensor<16x16xf32>
    %cst = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %1 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<16x16xf32>
    %2 = stablehlo.multiply %0, %1 : tensor<16x16xf32>
    %3 = sdy.sharding_constraint %2 <@mesh, [{}, {"x"}]> : tensor<16x16xf32>
    %4 = stablehlo.tanh %3 : tensor<16x16xf32>
    %5 = sdy.sharding_constraint %4 <@mesh, [{}, {"x"}]> : tensor<16x16xf32>
    return %5 : tensor<16x16xf32>
  }
}
