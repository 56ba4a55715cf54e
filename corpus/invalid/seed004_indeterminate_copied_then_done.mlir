// Seed 004's indeterminate tensor copied by an op before its done: the copy reads it
// (SHLO403); the done still takes what the copy returns (no knock-on "never completed").
module @m attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 3 : i32} {
  func.func @main(%operand: tensor<2x2xi64>) -> tensor<2x2xi64> {
    %indeterminate = "stablehlo.collective_permute_start"(%operand) {
      source_target_pairs = dense<[[0, 1], [1, 2]]> : tensor<2x2xi64>,
      channel_handle = #stablehlo.channel_handle<handle = 0, type = 0>
    } : (tensor<2x2xi64>) -> tensor<2x2xi64>
    %copy = stablehlo.optimization_barrier %indeterminate : tensor<2x2xi64>
    %result = "stablehlo.collective_permute_done"(%copy) : (tensor<2x2xi64>) -> tensor<2x2xi64>
    return %result : tensor<2x2xi64>
  }
}
