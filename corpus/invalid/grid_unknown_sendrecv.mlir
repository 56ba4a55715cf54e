// No mhlo.num_partitions / num_replicas: C4's upper bound is skipped, one note says so.
module @jit_f {
  func.func public @main(%arg0: tensor<4xf32>) -> tensor<4xf32> {
    %0 = stablehlo.create_token : !stablehlo.token
    %1 = "stablehlo.send"(%arg0, %0) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, source_target_pairs = dense<[[0, 1], [1, 99]]> : tensor<2x2xi64>}> : (tensor<4xf32>, !stablehlo.token) -> !stablehlo.token
    %2:2 = "stablehlo.recv"(%1) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, source_target_pairs = dense<[[0, 1]]> : tensor<1x2xi64>}> : (!stablehlo.token) -> (tensor<4xf32>, !stablehlo.token)
    return %2#0 : tensor<4xf32>
  }
}
