// A ring of 4 partitions where every process receives from its left neighbour
// before it sends to its right one: each recv waits for a send that comes after
// the recv it is blocked behind. Deadlock (a cycle of 4).
module @ring attributes {mhlo.num_partitions = 4 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%x: tensor<4xf32>) -> tensor<4xf32> {
    %t = stablehlo.create_token : !stablehlo.token
    %r:2 = "stablehlo.recv"(%t) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, source_target_pairs = dense<[[0, 1], [1, 2], [2, 3], [3, 0]]> : tensor<4x2xi64>}> : (!stablehlo.token) -> (tensor<4xf32>, !stablehlo.token)
    %s = "stablehlo.send"(%x, %r#1) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, source_target_pairs = dense<[[0, 1], [1, 2], [2, 3], [3, 0]]> : tensor<4x2xi64>}> : (tensor<4xf32>, !stablehlo.token) -> !stablehlo.token
    %y = stablehlo.add %x, %r#0 : tensor<4xf32>
    return %y : tensor<4xf32>
  }
}
