// stablehlo.if: the true branch completes the future, the false branch forgets it.
module @m attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
    %f = "stablehlo.async_start"(%x) ({
    ^bb0(%a: tensor<4xf32>):
      %p = "stablehlo.collective_permute"(%a) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, source_target_pairs = dense<[[0, 1], [1, 2], [2, 3], [3, 4], [4, 5], [5, 6], [6, 7], [7, 0]]> : tensor<8x2xi64>}> : (tensor<4xf32>) -> tensor<4xf32>
      stablehlo.return %p : tensor<4xf32>
    }) : (tensor<4xf32>) -> !stablehlo.future<tensor<4xf32>>
    %t = stablehlo.tanh %x : tensor<4xf32>
    %b = stablehlo.constant dense<false> : tensor<i1>
    %r = "stablehlo.if"(%b) ({
      %d = "stablehlo.async_done"(%f) : (!stablehlo.future<tensor<4xf32>>) -> tensor<4xf32>
      %s = stablehlo.add %d, %t : tensor<4xf32>
      stablehlo.return %s : tensor<4xf32>
    }, {
      stablehlo.return %t : tensor<4xf32>
    }) : (tensor<i1>) -> tensor<4xf32>
    return %r : tensor<4xf32>
  }
}
