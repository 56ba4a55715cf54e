// Without has_dynamic_root a collective_reduce needs a data operand (StableHLO 1.20 verifier).
module @m attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 2 : i32} {
  func.func @main() {
    "stablehlo.collective_reduce"() ({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %s = stablehlo.add %a, %b : tensor<f32>
      stablehlo.return %s : tensor<f32>
    }) {replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : () -> ()
    return
  }
}
