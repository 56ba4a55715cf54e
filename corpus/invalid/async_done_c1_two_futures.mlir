// One async_done per future (StableHLO 1.20; the seed RFC let one done complete several).
module @m attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  func.func @main(%x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<4xf32> {
    %f1 = "stablehlo.async_start"(%x) ({
    ^bb0(%a: tensor<4xf32>):
      %r = "stablehlo.collective_permute"(%a) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, source_target_pairs = dense<[[0, 1], [1, 2], [2, 3], [3, 4], [4, 5], [5, 6], [6, 7], [7, 0]]> : tensor<8x2xi64>}> : (tensor<4xf32>) -> tensor<4xf32>
      stablehlo.return %r : tensor<4xf32>
    }) : (tensor<4xf32>) -> !stablehlo.future<tensor<4xf32>>
    %f2 = "stablehlo.async_start"(%y) ({
    ^bb0(%b: tensor<4xf32>):
      %r = "stablehlo.all_gather"(%b) <{all_gather_dim = 0 : i64, channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1, 2, 3, 4, 5, 6, 7]]> : tensor<1x8xi64>, use_global_device_ids}> : (tensor<4xf32>) -> tensor<32xf32>
      stablehlo.return %r : tensor<32xf32>
    }) : (tensor<4xf32>) -> !stablehlo.future<tensor<32xf32>>
    %d:2 = "stablehlo.async_done"(%f1, %f2) : (!stablehlo.future<tensor<4xf32>>, !stablehlo.future<tensor<32xf32>>) -> (tensor<4xf32>, tensor<32xf32>)
    return %d#0 : tensor<4xf32>
  }
}
