// Passes SHLO508: the permute runs on every stage at every step, so every
// execution meets the same step's on the other stages.
module @meets_pipeline_every_step attributes {mhlo.num_partitions = 4 : i32, mhlo.num_replicas = 1 : i32} {
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
      %r = "stablehlo.collective_permute"(%v) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, source_target_pairs = dense<[[0, 1], [1, 2], [2, 3]]> : tensor<3x2xi64>}> : (tensor<f32>) -> tensor<f32>
      %t1 = stablehlo.add %t, %c1 : tensor<i32>
      stablehlo.return %t1, %r : tensor<i32>, tensor<f32>
    }
    return %w#1 : tensor<f32>
  }
}
