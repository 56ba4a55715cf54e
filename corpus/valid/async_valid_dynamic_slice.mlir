module @m attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  func.func @main(%x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<4xf32> {
    %i = stablehlo.constant dense<0> : tensor<i64>
    %f = "stablehlo.async_start"(%x, %i) ({
    ^bb0(%a: tensor<4xf32>, %j: tensor<i64>):
      %r = "stablehlo.dynamic_slice"(%a, %j) <{slice_sizes = array<i64: 2>}> : (tensor<4xf32>, tensor<i64>) -> tensor<2xf32>
      stablehlo.return %r : tensor<2xf32>
    }) : (tensor<4xf32>, tensor<i64>) -> !stablehlo.future<tensor<2xf32>>
    %d = "stablehlo.async_done"(%f) : (!stablehlo.future<tensor<2xf32>>) -> tensor<2xf32>
    %z = stablehlo.concatenate %d, %d, dim = 0 : (tensor<2xf32>, tensor<2xf32>) -> tensor<4xf32>
    return %z : tensor<4xf32>
  }
}
