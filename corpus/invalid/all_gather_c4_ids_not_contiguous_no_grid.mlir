module @m {
  func.func @main(%x: tensor<2x4xf32>) -> tensor<4x4xf32> {
    %0 = "stablehlo.all_gather"(%x) <{all_gather_dim = 0 : i64, channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 2]]> : tensor<1x2xi64>, use_global_device_ids}> : (tensor<2x4xf32>) -> tensor<4x4xf32>
    return %0 : tensor<4x4xf32>
  }
}
