// Process 0 sends on channel 1, process 1 receives on channel 2: they never
// meet. Process 1 blocks at the recv, process 0 at its unreceived send.
module @channel_mismatch attributes {mhlo.num_partitions = 2 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%x: tensor<4xf32>) -> tensor<4xf32> {
    %t = stablehlo.after_all : !stablehlo.token
    %d = "stablehlo.send"(%x, %t) {source_target_pairs = dense<[[0, 1]]> : tensor<1x2xi64>, channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, is_host_transfer = false} : (tensor<4xf32>, !stablehlo.token) -> !stablehlo.token
    %r:2 = "stablehlo.recv"(%d) {source_target_pairs = dense<[[0, 1]]> : tensor<1x2xi64>, channel_handle = #stablehlo.channel_handle<handle = 2, type = 1>, is_host_transfer = false} : (!stablehlo.token) -> (tensor<4xf32>, !stablehlo.token)
    %y = stablehlo.add %x, %r#0 : tensor<4xf32>
    return %y : tensor<4xf32>
  }
}
