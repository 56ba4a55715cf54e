module @m attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 8 : i32} {
  func.func public @main(%x: tensor<8x4xf32>, %y: tensor<16xf32>) -> (tensor<1x4xf32>, tensor<2xf32>) {
    %a = "stablehlo.reduce_scatter"(%x) <{replica_groups = dense<[[0, 1, 2, 3, 4, 5, 6, 7]]> : tensor<1x8xi64>, scatter_dimension = 0 : i64}> ({
    ^bb0(%p: tensor<f32>, %q: tensor<f32>):
      %s = stablehlo.add %p, %q : tensor<f32>
      stablehlo.return %s : tensor<f32>
    }) : (tensor<8x4xf32>) -> tensor<1x4xf32>
    %b = "stablehlo.reduce_scatter"(%y) <{replica_groups = dense<[[0, 1, 2, 3, 4, 5, 6, 7]]> : tensor<1x8xi64>, scatter_dimension = 0 : i64}> ({
    ^bb0(%p: tensor<f32>, %q: tensor<f32>):
      %s = stablehlo.add %p, %q : tensor<f32>
      stablehlo.return %s : tensor<f32>
    }) : (tensor<16xf32>) -> tensor<2xf32>
    return %a, %b : tensor<1x4xf32>, tensor<2xf32>
  }
}
