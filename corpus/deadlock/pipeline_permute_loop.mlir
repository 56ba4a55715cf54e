// The same pipeline as lax.fori_loop + ppermute: a collective_permute around
// the ring in each of 8 iterations, inside a func.call like JAX's @closed_call,
// with the stage index from axis_index. Deadlock-free.
module @permute_pipeline attributes {mhlo.num_partitions = 4 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%x: tensor<4xf32>) -> tensor<4xf32> {
    %c = stablehlo.constant dense<1> : tensor<ui32>
    %c_0 = stablehlo.constant dense<4> : tensor<ui32>
    %0 = stablehlo.partition_id : tensor<ui32>
    %1 = stablehlo.divide %0, %c : tensor<ui32>
    %2 = stablehlo.remainder %1, %c_0 : tensor<ui32>
    %3 = stablehlo.convert %2 : (tensor<ui32>) -> tensor<i32>
    %zero = stablehlo.constant dense<0> : tensor<i32>
    %r:3 = stablehlo.while(%i = %zero, %stage = %3, %h = %x) : tensor<i32>, tensor<i32>, tensor<4xf32>
    cond {
      %n = stablehlo.constant dense<8> : tensor<i32>
      %lt = stablehlo.compare LT, %i, %n, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %lt : tensor<i1>
    } do {
      %y = func.call @closed_call(%stage, %h) : (tensor<i32>, tensor<4xf32>) -> tensor<4xf32>
      %one = stablehlo.constant dense<1> : tensor<i32>
      %i1 = stablehlo.add %i, %one : tensor<i32>
      stablehlo.return %i1, %stage, %y : tensor<i32>, tensor<i32>, tensor<4xf32>
    }
    return %r#2 : tensor<4xf32>
  }
  func.func private @closed_call(%stage: tensor<i32>, %h: tensor<4xf32>) -> tensor<4xf32> {
    %a = stablehlo.tanh %h : tensor<4xf32>
    %p = "stablehlo.collective_permute"(%a) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, source_target_pairs = dense<[[0, 1], [1, 2], [2, 3], [3, 0]]> : tensor<4x2xi64>}> : (tensor<4xf32>) -> tensor<4xf32>
    return %p : tensor<4xf32>
  }
}
