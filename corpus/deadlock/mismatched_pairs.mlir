// The send goes one way round the ring (i -> i+1) and the recv expects the
// other (i+1 -> i): every recv waits for a send that does not exist, and no
// send is received.
module @mismatched attributes {mhlo.num_partitions = 4 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%x: tensor<4xf32>) -> tensor<4xf32> {
    %t = stablehlo.create_token : !stablehlo.token
    %s = "stablehlo.send"(%x, %t) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, source_target_pairs = dense<[[0, 1], [1, 2], [2, 3], [3, 0]]> : tensor<4x2xi64>}> : (tensor<4xf32>, !stablehlo.token) -> !stablehlo.token
    %r:2 = "stablehlo.recv"(%s) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, source_target_pairs = dense<[[1, 0], [2, 1], [3, 2], [0, 3]]> : tensor<4x2xi64>}> : (!stablehlo.token) -> (tensor<4xf32>, !stablehlo.token)
    return %r#0 : tensor<4xf32>
  }
}
