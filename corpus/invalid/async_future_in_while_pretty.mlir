module @m attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  func.func @main(%f0: !stablehlo.future<tensor<4xf32>>) -> tensor<4xf32> {
    %c0 = stablehlo.constant dense<0> : tensor<i32>
    %r:2 = stablehlo.while(%i = %c0, %f = %f0) : tensor<i32>, !stablehlo.future<tensor<4xf32>>
    cond {
      %lim = stablehlo.constant dense<4> : tensor<i32>
      %p = stablehlo.compare LT, %i, %lim : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %p : tensor<i1>
    } do {
      stablehlo.return %i, %f : tensor<i32>, !stablehlo.future<tensor<4xf32>>
    }
    %d = "stablehlo.async_done"(%r#1) : (!stablehlo.future<tensor<4xf32>>) -> tensor<4xf32>
    return %d : tensor<4xf32>
  }
}
