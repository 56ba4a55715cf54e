// The seed RFC's and the spec's own example: the body reads %x from outside, but async_start is IsolatedFromAbove (StableHLO 1.20).
module @m attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 8 : i32} {
  func.func @main(%x: tensor<8x2xf32>) -> tensor<8x8xf32> {
    %f = "stablehlo.async_start"(%x) ({
      %y = "stablehlo.all_gather"(%x) {
        all_gather_dim = 1 : i64,
        replica_groups = dense<[[0, 2, 4, 6], [1, 3, 5, 7]]> : tensor<2x4xi64>
      } : (tensor<8x2xf32>) -> tensor<8x8xf32>
      "stablehlo.return"(%y) : (tensor<8x8xf32>) -> ()
    }) : (tensor<8x2xf32>) -> !stablehlo.future<tensor<8x8xf32>>
    %r = "stablehlo.async_done"(%f) : (!stablehlo.future<tensor<8x8xf32>>) -> (tensor<8x8xf32>)
    return %r : tensor<8x8xf32>
  }
}
