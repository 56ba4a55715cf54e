// A GPipe-style loop over 6 microbatches on 4 stages: each iteration every
// stage sends its activation to the next stage (i -> i+1) and receives the
// previous stage's. Sends never block and the n-th send pairs with the n-th
// recv, so every iteration completes. Deadlock-free.
module @pipeline attributes {mhlo.num_partitions = 4 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%x: tensor<4xf32>) -> tensor<4xf32> {
    %zero = stablehlo.constant dense<0> : tensor<i32>
    %r:2 = stablehlo.while(%i = %zero, %h = %x) : tensor<i32>, tensor<4xf32>
    cond {
      %n = stablehlo.constant dense<6> : tensor<i32>
      %lt = stablehlo.compare LT, %i, %n, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %lt : tensor<i1>
    } do {
      %y = func.call @stage(%h) : (tensor<4xf32>) -> tensor<4xf32>
      %one = stablehlo.constant dense<1> : tensor<i32>
      %i1 = stablehlo.add %i, %one : tensor<i32>
      stablehlo.return %i1, %y : tensor<i32>, tensor<4xf32>
    }
    return %r#1 : tensor<4xf32>
  }
  func.func private @stage(%h: tensor<4xf32>) -> tensor<4xf32> {
    %a = stablehlo.tanh %h : tensor<4xf32>
    %t = stablehlo.create_token : !stablehlo.token
    %s = "stablehlo.send"(%a, %t) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, source_target_pairs = dense<[[0, 1], [1, 2], [2, 3]]> : tensor<3x2xi64>}> : (tensor<4xf32>, !stablehlo.token) -> !stablehlo.token
    %r:2 = "stablehlo.recv"(%s) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, source_target_pairs = dense<[[0, 1], [1, 2], [2, 3]]> : tensor<3x2xi64>}> : (!stablehlo.token) -> (tensor<4xf32>, !stablehlo.token)
    return %r#0 : tensor<4xf32>
  }
}
