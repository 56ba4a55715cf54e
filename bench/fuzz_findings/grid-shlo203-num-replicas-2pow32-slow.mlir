module @m attributes {mhlo.num_partitions = 4 : i32, mhlo.num_replicas = 4294967296 : i32} {
  func.func @main(%x: tensor<0x4xf32>) -> tensor<0x4xf32> {
    %0 = "stablehlo.all_gather"(%x) <{all_gather_dim = 0 : i64, channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>, use_global_device_ids}> : (tensor<0x4xf32>) -> tensor<0x4xf32>
    return %0 : tensor<0x4xf32>
  }
}
