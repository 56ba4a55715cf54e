// A start op has its collective's constraints (checked on the future's payload).
module @m attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 8 : i32} {
  func.func @main(%x: tensor<4xf32>) -> tensor<8xf32> {
    %f = "stablehlo.all_reduce_start"(%x) ({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %s = stablehlo.add %a, %b : tensor<f32>
      stablehlo.return %s : tensor<f32>
    }) {replica_groups = dense<[[0, 1, 2, 3], [4, 5, 6, 6]]> : tensor<2x4xi64>} : (tensor<4xf32>) -> future<tensor<8xf32>>
    %r = "stablehlo.all_reduce_done"(%f) : (future<tensor<8xf32>>) -> tensor<8xf32>
    return %r : tensor<8xf32>
  }
}
