// Futures of ranked tensors, 0-d and several values included, in declarations.
module @m attributes {mhlo.num_partitions = 2 : i32, mhlo.num_replicas = 1 : i32} {
  func.func private @pending(%x: tensor<4xf32>) -> !stablehlo.future<tensor<i32>>
  func.func private @pair() -> !stablehlo.future<tensor<4xf32>, tensor<2x?xbf16>>
}
