// Per-tensor quantized tensors are valid operands of all_gather and all_to_all (I1, StableHLO 1.20).
module @m attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 2 : i32} {
  func.func @main(%x: tensor<2x4x!quant.uniform<i8:f32, 0.5:3>>) -> (tensor<2x8x!quant.uniform<i8:f32, 0.5:3>>, tensor<2x4x!quant.uniform<i8:f32, 0.5:3>>) {
    %0 = "stablehlo.all_gather"(%x) {all_gather_dim = 1 : i64, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<2x4x!quant.uniform<i8:f32, 0.5:3>>) -> tensor<2x8x!quant.uniform<i8:f32, 0.5:3>>
    %1 = "stablehlo.all_to_all"(%x) {split_dimension = 1 : i64, concat_dimension = 1 : i64, split_count = 2 : i64, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<2x4x!quant.uniform<i8:f32, 0.5:3>>) -> tensor<2x4x!quant.uniform<i8:f32, 0.5:3>>
    return %0, %1 : tensor<2x8x!quant.uniform<i8:f32, 0.5:3>>, tensor<2x4x!quant.uniform<i8:f32, 0.5:3>>
  }
}
