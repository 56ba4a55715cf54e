// send and recv do take per-axis quantized tensors (send I1, recv results, StableHLO 1.20).
module @m attributes {mhlo.num_partitions = 2 : i32, mhlo.num_replicas = 1 : i32} {
  func.func @main(%x: tensor<2x!quant.uniform<i8:f32:0, {0.5:3, 0.25:3}>>) -> tensor<2x!quant.uniform<i8:f32:0, {0.5:3, 0.25:3}>> {
    %t = stablehlo.create_token : !stablehlo.token
    %s = "stablehlo.send"(%x, %t) {channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, source_target_pairs = dense<[[0, 1], [1, 0]]> : tensor<2x2xi64>} : (tensor<2x!quant.uniform<i8:f32:0, {0.5:3, 0.25:3}>>, !stablehlo.token) -> !stablehlo.token
    %r:2 = "stablehlo.recv"(%s) {channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, source_target_pairs = dense<[[0, 1], [1, 0]]> : tensor<2x2xi64>} : (!stablehlo.token) -> (tensor<2x!quant.uniform<i8:f32:0, {0.5:3, 0.25:3}>>, !stablehlo.token)
    return %r#0 : tensor<2x!quant.uniform<i8:f32:0, {0.5:3, 0.25:3}>>
  }
}
