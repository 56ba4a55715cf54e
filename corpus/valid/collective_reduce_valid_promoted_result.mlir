// f32 operands reduced in f64 give f64 results (collective_reduce C3/C4 as the 1.20 verifier infers them).
module @m attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 2 : i32} {
  func.func @main(%x: tensor<4xf32>) -> tensor<4xf64> {
    %0 = "stablehlo.collective_reduce"(%x) ({
    ^bb0(%a: tensor<f64>, %b: tensor<f64>):
      %s = stablehlo.add %a, %b : tensor<f64>
      stablehlo.return %s : tensor<f64>
    }) {replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<4xf32>) -> tensor<4xf64>
    return %0 : tensor<4xf64>
  }
}
