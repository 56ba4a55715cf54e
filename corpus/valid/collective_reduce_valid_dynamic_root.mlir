// collective_reduce C3 (StableHLO 1.20): the root operand is tensor<[n]xi32>, one index per data operand.
module @m attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 4 : i32} {
  func.func @main(%x: tensor<4xf32>, %root: tensor<1xi32>) -> tensor<4xf32> {
    %0 = "stablehlo.collective_reduce"(%x, %root) ({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %s = stablehlo.add %a, %b : tensor<f32>
      stablehlo.return %s : tensor<f32>
    }) {has_dynamic_root, replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>} : (tensor<4xf32>, tensor<1xi32>) -> tensor<4xf32>
    return %0 : tensor<4xf32>
  }
}
