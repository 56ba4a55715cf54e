module @m attributes {mhlo.num_partitions = 4 : i32, mhlo.num_replicas = 2 : i32} {
  func.func @main(%x: tensor<1x8xf32>) -> tensor<8x8xf32> {
    %0 = "stablehlo.all_gather"(%x) <{all_gather_dim = 0 : i64, channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>}> : (tensor<1x8xf32>) -> tensor<8x8xf32>
    return %0 : tensor<8x8xf32>
  }
}
