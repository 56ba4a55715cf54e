// A future passed through an optimization_barrier before its done: the barrier reads the
// future (SHLO403), and the done still completes it (no knock-on "never completed").
module @m attributes {mhlo.num_partitions = 2 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%x: tensor<4xf32>) -> tensor<4xf32> {
    %f = "stablehlo.async_start"(%x) ({
    ^bb0(%a: tensor<4xf32>):
      %s = "stablehlo.collective_permute"(%a) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, source_target_pairs = dense<[[0, 1], [1, 0]]> : tensor<2x2xi64>}> : (tensor<4xf32>) -> tensor<4xf32>
      stablehlo.return %s : tensor<4xf32>
    }) : (tensor<4xf32>) -> !stablehlo.future<tensor<4xf32>>
    %b = stablehlo.optimization_barrier %f : !stablehlo.future<tensor<4xf32>>
    %d = "stablehlo.async_done"(%b) : (!stablehlo.future<tensor<4xf32>>) -> tensor<4xf32>
    return %d : tensor<4xf32>
  }
}
