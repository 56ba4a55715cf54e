// StableHLO 1.20: a future holds one tensor (the seed RFC allowed future<A, B>).
module @m attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  func.func @main(%x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<4xf32> {
    %f = "stablehlo.async_start"(%x, %y) ({
    ^bb0(%a: tensor<4xf32>, %b: tensor<4xf32>):
      %r:2 = "stablehlo.all_reduce"(%a, %b) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1, 2, 3, 4, 5, 6, 7]]> : tensor<1x8xi64>, use_global_device_ids}> ({
      ^bb0(%p: tensor<f32>, %q: tensor<f32>):
        %s = stablehlo.add %p, %q : tensor<f32>
        stablehlo.return %s : tensor<f32>
      }) : (tensor<4xf32>, tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>)
      stablehlo.return %r#0, %r#1 : tensor<4xf32>, tensor<4xf32>
    }) : (tensor<4xf32>, tensor<4xf32>) -> !stablehlo.future<tensor<4xf32>, tensor<4xf32>>
    %d:2 = "stablehlo.async_done"(%f) : (!stablehlo.future<tensor<4xf32>, tensor<4xf32>>) -> (tensor<4xf32>, tensor<4xf32>)
    %s = stablehlo.add %d#0, %d#1 : tensor<4xf32>
    return %s : tensor<4xf32>
  }
}
