// A two-stage pipeline: activations go forward on channel 1, gradients come back
// on channel 2, but the backward recv was written with channel 1. Process 0's
// recv on channel 1 from process 1 has no send: process 1 sends on channel 2.
module @channels attributes {mhlo.num_partitions = 2 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%x: tensor<4xf32>) -> tensor<4xf32> {
    %t = stablehlo.create_token : !stablehlo.token
    %s = "stablehlo.send"(%x, %t) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, source_target_pairs = dense<[[0, 1]]> : tensor<1x2xi64>}> : (tensor<4xf32>, !stablehlo.token) -> !stablehlo.token
    %r:2 = "stablehlo.recv"(%s) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, source_target_pairs = dense<[[0, 1]]> : tensor<1x2xi64>}> : (!stablehlo.token) -> (tensor<4xf32>, !stablehlo.token)
    %g = stablehlo.multiply %r#0, %r#0 : tensor<4xf32>
    %b = "stablehlo.send"(%g, %r#1) <{channel_handle = #stablehlo.channel_handle<handle = 2, type = 1>, source_target_pairs = dense<[[1, 0]]> : tensor<1x2xi64>}> : (tensor<4xf32>, !stablehlo.token) -> !stablehlo.token
    %rb:2 = "stablehlo.recv"(%b) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, source_target_pairs = dense<[[1, 0]]> : tensor<1x2xi64>}> : (!stablehlo.token) -> (tensor<4xf32>, !stablehlo.token)
    %y = stablehlo.add %g, %rb#0 : tensor<4xf32>
    return %y : tensor<4xf32>
  }
}
