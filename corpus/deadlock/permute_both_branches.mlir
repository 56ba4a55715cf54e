// A collective_permute around the ring in each branch of a case on
// axis_index % 2, both on channel 1: XLA pairs the n-th permute on a channel
// with its source's n-th, so the two ops exchange and complete; under the
// spec's matching they are different ops and every process waits. A warning
// under the default deadlock-matching = xla.
module @permute_branches attributes {mhlo.num_partitions = 4 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%x: tensor<4xf32>) -> tensor<4xf32> {
    %c = stablehlo.constant dense<2> : tensor<ui32>
    %0 = stablehlo.partition_id : tensor<ui32>
    %1 = stablehlo.remainder %0, %c : tensor<ui32>
    %2 = stablehlo.convert %1 : (tensor<ui32>) -> tensor<i32>
    %3 = "stablehlo.case"(%2) ({
      %s = "stablehlo.collective_permute"(%x) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, source_target_pairs = dense<[[0, 1], [1, 2], [2, 3], [3, 0]]> : tensor<4x2xi64>}> : (tensor<4xf32>) -> tensor<4xf32>
      stablehlo.return %s : tensor<4xf32>
    }, {
      %s = "stablehlo.collective_permute"(%x) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, source_target_pairs = dense<[[0, 1], [1, 2], [2, 3], [3, 0]]> : tensor<4x2xi64>}> : (tensor<4xf32>) -> tensor<4xf32>
      stablehlo.return %s : tensor<4xf32>
    }) : (tensor<i32>) -> tensor<4xf32>
    return %3 : tensor<4xf32>
  }
}
