// Two all_gathers along dimension 0 combine; the one along dimension 1 has another key.
module @m attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 8 : i32} {
  func.func public @main(%x: tensor<2x4xf32>, %y: tensor<3x4xf32>) -> (tensor<16x4xf32>, tensor<24x4xf32>, tensor<2x32xf32>) {
    %a = "stablehlo.all_gather"(%x) <{all_gather_dim = 0 : i64, replica_groups = dense<[[0, 1, 2, 3, 4, 5, 6, 7]]> : tensor<1x8xi64>}> : (tensor<2x4xf32>) -> tensor<16x4xf32>
    %t = stablehlo.tanh %y : tensor<3x4xf32>
    %b = "stablehlo.all_gather"(%t) <{all_gather_dim = 0 : i64, replica_groups = dense<[[0, 1, 2, 3, 4, 5, 6, 7]]> : tensor<1x8xi64>}> : (tensor<3x4xf32>) -> tensor<24x4xf32>
    %c = "stablehlo.all_gather"(%x) <{all_gather_dim = 1 : i64, replica_groups = dense<[[0, 1, 2, 3, 4, 5, 6, 7]]> : tensor<1x8xi64>}> : (tensor<2x4xf32>) -> tensor<2x32xf32>
    return %a, %b, %c : tensor<16x4xf32>, tensor<24x4xf32>, tensor<2x32xf32>
  }
}
