// Two payload tensors in one send, received as two results plus the token.
module @jit_f attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<4xf32>) -> tensor<4xf32> {
    %0 = stablehlo.create_token : !stablehlo.token
    %c = stablehlo.constant dense<[1, 2]> : tensor<2xi32>
    %1 = "stablehlo.send"(%arg0, %c, %0) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, source_target_pairs = dense<[[0, 1], [1, 2]]> : tensor<2x2xi64>}> : (tensor<4xf32>, tensor<2xi32>, !stablehlo.token) -> !stablehlo.token
    %2:3 = "stablehlo.recv"(%1) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, source_target_pairs = dense<[[0, 1], [1, 2]]> : tensor<2x2xi64>}> : (!stablehlo.token) -> (tensor<4xf32>, tensor<2xi32>, !stablehlo.token)
    return %2#0 : tensor<4xf32>
  }
}
