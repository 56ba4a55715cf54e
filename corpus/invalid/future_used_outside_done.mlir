// Seed 004's "tensors instead of futures": the indeterminate tensor may only go to the done.
module @m attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 3 : i32} {
  func.func @main(%operand: tensor<2x2xi64>) -> tensor<2x2xi64> {
    %indeterminate = "stablehlo.collective_permute_start"(%operand) {
      source_target_pairs = dense<[[0, 1], [1, 2]]> : tensor<2x2xi64>,
      channel_handle = #stablehlo.channel_handle<handle = 0, type = 0>
    } : (tensor<2x2xi64>) -> tensor<2x2xi64>
    %early = stablehlo.add %indeterminate, %operand : tensor<2x2xi64>
    %result = "stablehlo.collective_permute_done"(%indeterminate) : (tensor<2x2xi64>) -> tensor<2x2xi64>
    %sum = stablehlo.add %result, %early : tensor<2x2xi64>
    return %sum : tensor<2x2xi64>
  }
}
