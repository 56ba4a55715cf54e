// A future holds ranked tensors only (the future type's own check, StableHLO 1.20).
module @m attributes {mhlo.num_partitions = 2 : i32, mhlo.num_replicas = 1 : i32} {
  func.func private @pending(%x: tensor<4xf32>) -> !stablehlo.future<i32>
  func.func private @pair() -> !stablehlo.future<tensor<4xf32>, f32>
}
