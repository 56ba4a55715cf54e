// Seed 001: three independent sum all_reduces with one key (the max and the dependent %r4 stay apart).
module @m attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 8 : i32} {
  func.func public @main(%x: tensor<4xf32>, %y: tensor<2x3xf32>, %z: tensor<4xf32>) -> (tensor<4xf32>, tensor<2x3xf32>, tensor<4xf32>) {
    %a = stablehlo.sine %x : tensor<4xf32>
    %r1 = "stablehlo.all_reduce"(%a) <{replica_groups = dense<[[0, 1, 2, 3, 4, 5, 6, 7]]> : tensor<1x8xi64>}> ({
    ^bb0(%p: tensor<f32>, %q: tensor<f32>):
      %s = stablehlo.add %p, %q : tensor<f32>
      stablehlo.return %s : tensor<f32>
    }) : (tensor<4xf32>) -> tensor<4xf32>
    %b = stablehlo.multiply %y, %y : tensor<2x3xf32>
    %r2 = "stablehlo.all_reduce"(%b) <{replica_groups = dense<[[0, 1, 2, 3, 4, 5, 6, 7]]> : tensor<1x8xi64>}> ({
    ^bb0(%p: tensor<f32>, %q: tensor<f32>):
      %s = stablehlo.add %p, %q : tensor<f32>
      stablehlo.return %s : tensor<f32>
    }) : (tensor<2x3xf32>) -> tensor<2x3xf32>
    %c = stablehlo.add %r1, %z : tensor<4xf32>
    %d = stablehlo.cosine %z : tensor<4xf32>
    %r3 = "stablehlo.all_reduce"(%d) <{replica_groups = dense<[[0, 1, 2, 3, 4, 5, 6, 7]]> : tensor<1x8xi64>}> ({
    ^bb0(%p: tensor<f32>, %q: tensor<f32>):
      %s = stablehlo.add %p, %q : tensor<f32>
      stablehlo.return %s : tensor<f32>
    }) : (tensor<4xf32>) -> tensor<4xf32>
    %e = stablehlo.add %c, %r3 : tensor<4xf32>
    %m = "stablehlo.all_reduce"(%x) <{replica_groups = dense<[[0, 1, 2, 3, 4, 5, 6, 7]]> : tensor<1x8xi64>}> ({
    ^bb0(%p: tensor<f32>, %q: tensor<f32>):
      %s = stablehlo.maximum %p, %q : tensor<f32>
      stablehlo.return %s : tensor<f32>
    }) : (tensor<4xf32>) -> tensor<4xf32>
    %r4 = "stablehlo.all_reduce"(%e) <{replica_groups = dense<[[0, 1, 2, 3, 4, 5, 6, 7]]> : tensor<1x8xi64>}> ({
    ^bb0(%p: tensor<f32>, %q: tensor<f32>):
      %s = stablehlo.add %p, %q : tensor<f32>
      stablehlo.return %s : tensor<f32>
    }) : (tensor<4xf32>) -> tensor<4xf32>
    %f = stablehlo.add %r4, %m : tensor<4xf32>
    return %f, %r2, %e : tensor<4xf32>, tensor<2x3xf32>, tensor<4xf32>
  }
}
