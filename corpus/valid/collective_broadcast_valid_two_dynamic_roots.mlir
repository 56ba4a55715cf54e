// has_dynamic_root with two data operands: one i32 root index each (collective_broadcast C4-C6).
module @m attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 4 : i32} {
  func.func @main(%x: tensor<4xf32>, %y: tensor<2x2xi32>) -> (tensor<4xf32>, tensor<2x2xi32>) {
    %r = stablehlo.constant dense<[1, 0]> : tensor<2xi32>
    %0:2 = "stablehlo.collective_broadcast"(%x, %y, %r) {has_dynamic_root, replica_groups = dense<[[0, 1], [2, 3]]> : tensor<2x2xi64>} : (tensor<4xf32>, tensor<2x2xi32>, tensor<2xi32>) -> (tensor<4xf32>, tensor<2x2xi32>)
    return %0#0, %0#1 : tensor<4xf32>, tensor<2x2xi32>
  }
}
