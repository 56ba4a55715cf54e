// Every process receives from itself before it sends to itself (pairs [0, 0] and
// [1, 1]): each waits for an op that comes later in its own program.
module @m attributes {mhlo.num_partitions = 2 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%x: tensor<4xf32>) -> tensor<4xf32> {
    %t = stablehlo.create_token : !stablehlo.token
    %r:2 = "stablehlo.recv"(%t) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, source_target_pairs = dense<[[0, 0], [1, 1]]> : tensor<2x2xi64>}> : (!stablehlo.token) -> (tensor<4xf32>, !stablehlo.token)
    %s = "stablehlo.send"(%x, %r#1) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, source_target_pairs = dense<[[0, 0], [1, 1]]> : tensor<2x2xi64>}> : (tensor<4xf32>, !stablehlo.token) -> !stablehlo.token
    return %r#0 : tensor<4xf32>
  }
}
