// One future per iteration, started and completed in the loop body (the fori_loop pattern).
module @m attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
    %c0 = stablehlo.constant dense<0> : tensor<i32>
    %w:2 = stablehlo.while(%i = %c0, %acc = %x) : tensor<i32>, tensor<4xf32>
    cond {
      %lim = stablehlo.constant dense<4> : tensor<i32>
      %p = stablehlo.compare LT, %i, %lim : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %p : tensor<i1>
    } do {
      %f = "stablehlo.async_start"(%acc) ({
      ^bb0(%a: tensor<4xf32>):
        %p = "stablehlo.collective_permute"(%a) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, source_target_pairs = dense<[[0, 1], [1, 2], [2, 3], [3, 4], [4, 5], [5, 6], [6, 7], [7, 0]]> : tensor<8x2xi64>}> : (tensor<4xf32>) -> tensor<4xf32>
        stablehlo.return %p : tensor<4xf32>
      }) : (tensor<4xf32>) -> !stablehlo.future<tensor<4xf32>>
      %one = stablehlo.constant dense<1> : tensor<i32>
      %n = stablehlo.add %i, %one : tensor<i32>
      %t = stablehlo.tanh %acc : tensor<4xf32>
      %d = "stablehlo.async_done"(%f) : (!stablehlo.future<tensor<4xf32>>) -> tensor<4xf32>
      %s = stablehlo.add %t, %d : tensor<4xf32>
      stablehlo.return %n, %s : tensor<i32>, tensor<4xf32>
    }
    return %w#1 : tensor<4xf32>
  }
}
