module @m attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 3 : i32} {
  func.func @main(%operand: tensor<2x2xi64>) -> tensor<4x2xi64> {
    %future = "stablehlo.collective_permute_start"(%operand) {
      source_target_pairs = dense<[[0, 1], [1, 2]]> : tensor<2x2xi64>,
      channel_handle = #stablehlo.channel_handle<handle = 0, type = 0>
    } : (tensor<2x2xi64>) -> future<tensor<2x2xi64>>
    %result = "stablehlo.collective_permute_done"(%future) : (future<tensor<2x2xi64>>) -> tensor<4x2xi64>
    return %result : tensor<4x2xi64>
  }
}
