// Seed 000 (RFC: add source_target_pairs to send/recv), its recv example verbatim inside a function.
// type = 3 (HOST_TO_DEVICE) with is_host_transfer = false violates recv C5 under either reading
// (a device-to-device recv needs DEVICE_TO_DEVICE = 1); the grid is unknown, so C4's bound is skipped.
module {
  func.func @recv_example(%token: !stablehlo.token) -> (tensor<2x2xi64>, !stablehlo.token) {
    %results0, %results1 = "stablehlo.recv"(%token) {
      source_target_pairs = dense<[[0, 1], [1, 2]]> : tensor<2x2xi64>,
      channel_handle = #stablehlo.channel_handle<handle = 1, type = 3>,
      is_host_transfer = false
    } : (!stablehlo.token) -> (tensor<2x2xi64>, !stablehlo.token)
    func.return %results0, %results1 : tensor<2x2xi64>, !stablehlo.token
  }
}
