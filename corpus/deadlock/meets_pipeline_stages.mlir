// SHLO508: a pipeline over 5 steps where stage p (the partition id) permutes to
// stage p+1 only at steps p and p+1 (a case on the loop counter and the
// partition id): every stage runs the permute twice, at different steps, and the
// k-th execution of each meets the k-th of the others (XLA matches kind, channel
// and group, not the iteration). Decided exactly: it completes. The JAX program
// of corpus/meets/fori_pipeline_guarded ran so on XLA:CPU.
module @meets_pipeline_stages attributes {mhlo.num_partitions = 4 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%x: tensor<f32>) -> tensor<f32> {
    %c0 = stablehlo.constant dense<0> : tensor<i32>
    %c1 = stablehlo.constant dense<1> : tensor<i32>
    %c2 = stablehlo.constant dense<2> : tensor<i32>
    %c5 = stablehlo.constant dense<5> : tensor<i32>
    %pid = stablehlo.partition_id : tensor<ui32>
    %p = stablehlo.convert %pid : (tensor<ui32>) -> tensor<i32>
    %w:2 = stablehlo.while(%t = %c0, %v = %x) : tensor<i32>, tensor<f32>
    cond {
      %more = stablehlo.compare LT, %t, %c5, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %more : tensor<i1>
    } do {
      %lo = stablehlo.compare LE, %p, %t, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      %hi0 = stablehlo.add %p, %c2 : tensor<i32>
      %hi = stablehlo.compare LT, %t, %hi0, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      %go = stablehlo.and %lo, %hi : tensor<i1>
      %gi = stablehlo.convert %go : (tensor<i1>) -> tensor<i32>
      %r = "stablehlo.case"(%gi) ({
        stablehlo.return %v : tensor<f32>
      }, {
        %q = "stablehlo.collective_permute"(%v) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, source_target_pairs = dense<[[0, 1], [1, 2], [2, 3]]> : tensor<3x2xi64>}> : (tensor<f32>) -> tensor<f32>
        stablehlo.return %q : tensor<f32>
      }) : (tensor<i32>) -> tensor<f32>
      %t1 = stablehlo.add %t, %c1 : tensor<i32>
      stablehlo.return %t1, %r : tensor<i32>, tensor<f32>
    }
    return %w#1 : tensor<f32>
  }
}
