// Seed 003: await at the true use site. The multiply and exponential could run before the done.
module @m attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  func.func @main(%x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<4xf32> {
    %f = "stablehlo.async_start"(%x) ({
    ^bb0(%a: tensor<4xf32>):
      %p = "stablehlo.collective_permute"(%a) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, source_target_pairs = dense<[[0, 1], [1, 2], [2, 3], [3, 4], [4, 5], [5, 6], [6, 7], [7, 0]]> : tensor<8x2xi64>}> : (tensor<4xf32>) -> tensor<4xf32>
      stablehlo.return %p : tensor<4xf32>
    }) : (tensor<4xf32>) -> !stablehlo.future<tensor<4xf32>>
    %t = stablehlo.tanh %y : tensor<4xf32>
    %d = "stablehlo.async_done"(%f) : (!stablehlo.future<tensor<4xf32>>) -> tensor<4xf32>
    %m = stablehlo.multiply %t, %y : tensor<4xf32>
    %e = stablehlo.exponential %m : tensor<4xf32>
    %s = stablehlo.add %d, %e : tensor<4xf32>
    return %s : tensor<4xf32>
  }
}
