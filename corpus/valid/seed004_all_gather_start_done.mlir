module @m attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 8 : i32} {
  func.func @main(%x: tensor<2x4xf32>) -> tensor<16x4xf32> {
    %f = "stablehlo.all_gather_start"(%x) <{all_gather_dim = 0 : i64, replica_groups = dense<[[0, 1, 2, 3, 4, 5, 6, 7]]> : tensor<1x8xi64>}> : (tensor<2x4xf32>) -> future<tensor<16x4xf32>>
    %r = "stablehlo.all_gather_done"(%f) : (future<tensor<16x4xf32>>) -> tensor<16x4xf32>
    return %r : tensor<16x4xf32>
  }
}
