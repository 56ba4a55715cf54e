// An empty replica_groups has no group of split_count members (all_to_all C8; the 1.20 verifier rejects it).
module @m attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 4 : i32} {
  func.func @main(%x: tensor<4x16xf32>) -> tensor<16x4xf32> {
    %0 = "stablehlo.all_to_all"(%x) {split_dimension = 1 : i64, concat_dimension = 0 : i64, split_count = 4 : i64, replica_groups = dense<0> : tensor<0x4xi64>} : (tensor<4x16xf32>) -> tensor<16x4xf32>
    return %0 : tensor<16x4xf32>
  }
}
