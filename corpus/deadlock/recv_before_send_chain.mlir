// Receive-then-send along a chain 0 -> 1 -> 2 -> 3 (no pair closes the ring):
// process 0 is no target, so its recv waits for nobody and it sends; each next
// stage then gets its data. Deadlock-free (the class quotient cannot prove it;
// the per-process propagation does).
module @chain attributes {mhlo.num_partitions = 4 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%x: tensor<4xf32>) -> tensor<4xf32> {
    %t = stablehlo.create_token : !stablehlo.token
    %r:2 = "stablehlo.recv"(%t) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, source_target_pairs = dense<[[0, 1], [1, 2], [2, 3]]> : tensor<3x2xi64>}> : (!stablehlo.token) -> (tensor<4xf32>, !stablehlo.token)
    %y = stablehlo.add %x, %r#0 : tensor<4xf32>
    %s = "stablehlo.send"(%y, %r#1) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, source_target_pairs = dense<[[0, 1], [1, 2], [2, 3]]> : tensor<3x2xi64>}> : (tensor<4xf32>, !stablehlo.token) -> !stablehlo.token
    return %y : tensor<4xf32>
  }
}
