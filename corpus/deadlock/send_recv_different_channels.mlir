// A send/recv pair written with different channels: process 0 sends to process 1
// on channel 1, process 1 receives from process 0 on channel 2. Both name devices
// of this program (device-to-device, not host transfers), so they are matched
// here: the recv has no send on its channel and the send is never received. On a
// GPU both wait forever. If channel 2 really talks to another program (an MPMD
// pipeline stage), declare it: -O external-channels=2.
module @two_channels attributes {mhlo.num_partitions = 2 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%x: tensor<4xf32>) -> tensor<4xf32> {
    %t = stablehlo.create_token : !stablehlo.token
    %s = "stablehlo.send"(%x, %t) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, source_target_pairs = dense<[[0, 1]]> : tensor<1x2xi64>}> : (tensor<4xf32>, !stablehlo.token) -> !stablehlo.token
    %r:2 = "stablehlo.recv"(%s) <{channel_handle = #stablehlo.channel_handle<handle = 2, type = 1>, source_target_pairs = dense<[[0, 1]]> : tensor<1x2xi64>}> : (!stablehlo.token) -> (tensor<4xf32>, !stablehlo.token)
    %y = stablehlo.add %x, %r#0 : tensor<4xf32>
    return %y : tensor<4xf32>
  }
}
