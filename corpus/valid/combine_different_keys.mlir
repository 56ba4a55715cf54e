// Independent, but every all_reduce has its own key (element type, reduction, replica groups).
module @m attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 8 : i32} {
  func.func public @main(%x: tensor<4xf32>, %y: tensor<4xbf16>, %z: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xbf16>, tensor<4xf32>, tensor<4xf32>) {
    %a = "stablehlo.all_reduce"(%x) <{replica_groups = dense<[[0, 1, 2, 3, 4, 5, 6, 7]]> : tensor<1x8xi64>}> ({
    ^bb0(%p: tensor<f32>, %q: tensor<f32>):
      %s = stablehlo.add %p, %q : tensor<f32>
      stablehlo.return %s : tensor<f32>
    }) : (tensor<4xf32>) -> tensor<4xf32>
    %b = "stablehlo.all_reduce"(%y) <{replica_groups = dense<[[0, 1, 2, 3, 4, 5, 6, 7]]> : tensor<1x8xi64>}> ({
    ^bb0(%p: tensor<bf16>, %q: tensor<bf16>):
      %s = stablehlo.add %p, %q : tensor<bf16>
      stablehlo.return %s : tensor<bf16>
    }) : (tensor<4xbf16>) -> tensor<4xbf16>
    %c = "stablehlo.all_reduce"(%z) <{replica_groups = dense<[[0, 1, 2, 3, 4, 5, 6, 7]]> : tensor<1x8xi64>}> ({
    ^bb0(%p: tensor<f32>, %q: tensor<f32>):
      %s = stablehlo.maximum %p, %q : tensor<f32>
      stablehlo.return %s : tensor<f32>
    }) : (tensor<4xf32>) -> tensor<4xf32>
    %d = "stablehlo.all_reduce"(%z) <{replica_groups = dense<[[0, 1, 2, 3], [4, 5, 6, 7]]> : tensor<2x4xi64>}> ({
    ^bb0(%p: tensor<f32>, %q: tensor<f32>):
      %s = stablehlo.add %p, %q : tensor<f32>
      stablehlo.return %s : tensor<f32>
    }) : (tensor<4xf32>) -> tensor<4xf32>
    return %a, %b, %c, %d : tensor<4xf32>, tensor<4xbf16>, tensor<4xf32>, tensor<4xf32>
  }
}
