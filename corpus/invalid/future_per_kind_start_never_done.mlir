// Seed 004's per-collective form: an all_gather_start without its all_gather_done.
module @m attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 8 : i32} {
  func.func @main(%x: tensor<2x4xf32>) -> tensor<2x4xf32> {
    %f = "stablehlo.all_gather_start"(%x) <{all_gather_dim = 0 : i64, replica_groups = dense<[[0, 1, 2, 3, 4, 5, 6, 7]]> : tensor<1x8xi64>}> : (tensor<2x4xf32>) -> future<tensor<16x4xf32>>
    %y = stablehlo.tanh %x : tensor<2x4xf32>
    return %y : tensor<2x4xf32>
  }
}
