// has_dynamic_root: the last operand holds one i32 root index per data operand (collective_broadcast C4, StableHLO 1.20).
module @m attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 4 : i32} {
  func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
    %r = stablehlo.constant dense<[1]> : tensor<1xi32>
    %0 = "stablehlo.collective_broadcast"(%x, %r) {has_dynamic_root, replica_groups = dense<[[0, 1], [2, 3]]> : tensor<2x2xi64>, channel_handle = #stablehlo.channel_handle<handle = 0, type = 0>} : (tensor<4xf32>, tensor<1xi32>) -> tensor<4xf32>
    return %0 : tensor<4xf32>
  }
}
