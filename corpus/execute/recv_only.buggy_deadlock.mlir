// Process 1 receives from process 0 on channel 2, but nothing in the program
// sends on it: process 1 blocks at the recv.
module @recv_only attributes {mhlo.num_partitions = 2 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%x: tensor<4xf32>) -> tensor<4xf32> {
    %t = stablehlo.after_all : !stablehlo.token
    %r:2 = "stablehlo.recv"(%t) {source_target_pairs = dense<[[0, 1]]> : tensor<1x2xi64>, channel_handle = #stablehlo.channel_handle<handle = 2, type = 1>, is_host_transfer = false} : (!stablehlo.token) -> (tensor<4xf32>, !stablehlo.token)
    %y = stablehlo.add %x, %r#0 : tensor<4xf32>
    return %y : tensor<4xf32>
  }
}
