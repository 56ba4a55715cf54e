module @jit_body attributes {mhlo.num_partitions = 8
      : i32,
      mhlo.num_replicas = 1
      : i32} {
  sdy.mesh @mesh = <["x"=8]> {stablehlo.mesh = {axes = [{name = "x",
      size = 8
      : i64}]}}
  func.func public @main(%arg0: tensor<32xf32>) ->
      (tensor<32xf32> {jax.result_info = "result"}) {
    %0 = sdy.manual_computation(%arg0) in_shardings=[<@mesh,
      [{"x"}]>] out_shardings=[<@mesh,
      [{"x"}]>] manual_axes={"x"} (%arg1: tensor<4xf32>) {
      %1 = stablehlo.create_token
      : !stablehlo.token
      %2 = "stablehlo.send"(%arg1,
      %1) <{channel_handle = #stablehlo.channel_handle<handle = 1,
      type = 1>,
      source_target_pairs = dense<[[0,
      1],
      [1,
      2],
      [2,
      3],
      [3,
      4],
      [4,
      5],
      [5,
      6],
      [6,
      7]]>
      : tensor<7x2xi64>}>
      : (tensor<4xf32>,
      !stablehlo.token) ->
      !stablehlo.token
      %3:2 = "stablehlo.recv"(%2) <{channel_handle = #stablehlo.channel_handle<handle = 1,
      type = 1>,
      source_target_pairs = dense<[[0,
      1],
      [1,
      2],
      [2,
      3],
      [3,
      4],
      [4,
      5],
      [5,
      6],
      [6,
      7]]>
      : tensor<7x2xi64>}>
      : (!stablehlo.token) ->
      (tensor<8xf32>,
      !stablehlo.token)
      %4 = stablehlo.slice %3#0 [0:4]
      : (tensor<8xf32>) ->
      tensor<4xf32>
      %5 = stablehlo.tanh %arg1
      : tensor<4xf32>
      %6 = stablehlo.add %5,
      %4
      : tensor<4xf32>
      sdy.return %6
      : tensor<4xf32>
    }
      : (tensor<32xf32>) ->
      tensor<32xf32>
    return %0
      : tensor<32xf32>
  }
}
