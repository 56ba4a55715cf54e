// collective_broadcast C3 (StableHLO 1.20): without has_dynamic_root, at least one operand.
module @m attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 2 : i32} {
  func.func @main() {
    "stablehlo.collective_broadcast"() {replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : () -> ()
    return
  }
}
