module @m attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  func.func @main(%x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<4xf32> {
    %f = "stablehlo.async_start"(%x) ({
    ^bb0(%a: tensor<4xf32>):
      %r = "stablehlo.all_gather"(%a) <{all_gather_dim = 0 : i64, channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1, 2, 3, 4, 5, 6, 7]]> : tensor<1x8xi64>, use_global_device_ids}> : (tensor<4xf32>) -> tensor<32xf32>
      stablehlo.return %r : tensor<32xf32>
    }) : (tensor<4xf32>) -> !stablehlo.future<tensor<4xf32>>
    %d = "stablehlo.async_done"(%f) : (!stablehlo.future<tensor<4xf32>>) -> tensor<4xf32>
    return %d : tensor<4xf32>
  }
}
