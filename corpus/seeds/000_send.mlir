// Seed 000 (RFC: add source_target_pairs to send/recv), its send example verbatim inside a function.
// A host transfer (is_host_transfer = true, DEVICE_TO_HOST: C5 holds) that also gives pairs, which are
// ignored (warning); the example states no process grid, so C4's upper bound is skipped (note).
module {
  func.func @send_example(%operand: tensor<2x2xi64>, %token: !stablehlo.token) -> !stablehlo.token {
    %result = "stablehlo.send"(%operand, %token) {
      source_target_pairs = dense<[[0, 1], [1, 2]]> : tensor<2x2xi64>,
      channel_handle = #stablehlo.channel_handle<handle = 1, type = 2>,
      is_host_transfer = true
    } : (tensor<2x2xi64>, !stablehlo.token) -> !stablehlo.token
    func.return %result : !stablehlo.token
  }
}
