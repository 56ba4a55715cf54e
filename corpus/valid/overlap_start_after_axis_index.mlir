// An axis_index (partition_id, convert) computed before a start that does not need it:
// hoisting the start above two scalar ops changes nothing it could overlap (no SHLO603).
module @m attributes {mhlo.num_partitions = 2 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%x: tensor<4xf32>) -> tensor<4xf32> {
    %p = stablehlo.partition_id : tensor<ui32>
    %pi = stablehlo.convert %p : (tensor<ui32>) -> tensor<i32>
    %f = "stablehlo.async_start"(%x) ({
    ^bb0(%a: tensor<4xf32>):
      %s = "stablehlo.collective_permute"(%a) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, source_target_pairs = dense<[[0, 1], [1, 0]]> : tensor<2x2xi64>}> : (tensor<4xf32>) -> tensor<4xf32>
      stablehlo.return %s : tensor<4xf32>
    }) : (tensor<4xf32>) -> !stablehlo.future<tensor<4xf32>>
    %y = stablehlo.tanh %x : tensor<4xf32>
    %d = "stablehlo.async_done"(%f) : (!stablehlo.future<tensor<4xf32>>) -> tensor<4xf32>
    %z = stablehlo.add %d, %y : tensor<4xf32>
    return %z : tensor<4xf32>
  }
}
