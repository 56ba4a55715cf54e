// collective_permute I1: a tensor or per-tensor quantized tensor; per-axis is rejected.
module @m attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 2 : i32} {
  func.func @main(%x: tensor<2x!quant.uniform<i8:f32:0, {0.5:3, 0.25:3}>>) -> tensor<2x!quant.uniform<i8:f32:0, {0.5:3, 0.25:3}>> {
    %0 = "stablehlo.collective_permute"(%x) {source_target_pairs = dense<[[0, 1], [1, 0]]> : tensor<2x2xi64>} : (tensor<2x!quant.uniform<i8:f32:0, {0.5:3, 0.25:3}>>) -> tensor<2x!quant.uniform<i8:f32:0, {0.5:3, 0.25:3}>>
    return %0 : tensor<2x!quant.uniform<i8:f32:0, {0.5:3, 0.25:3}>>
  }
}
