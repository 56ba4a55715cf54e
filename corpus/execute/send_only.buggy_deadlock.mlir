// Process 0 sends to process 1 on channel 1 (a device-to-device transfer of
// this program), but no recv takes it: process 0 stays blocked at the send
// (its send-done never completes, as on a GPU).
module @send_only attributes {mhlo.num_partitions = 2 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%x: tensor<4xf32>) -> tensor<4xf32> {
    %t = stablehlo.after_all : !stablehlo.token
    %d = "stablehlo.send"(%x, %t) {source_target_pairs = dense<[[0, 1]]> : tensor<1x2xi64>, channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, is_host_transfer = false} : (tensor<4xf32>, !stablehlo.token) -> !stablehlo.token
    return %x : tensor<4xf32>
  }
}
