// SHLO507: psum(x) in one branch, psum(2 x) in the other: one all-reduce over
// both operands (corpus/meets/cond_lt4_psum_2v measured it on XLA:CPU), and
// SHLO502 (it completes only because XLA meets the two ops).
module @meets_other_operand attributes {mhlo.num_partitions = 4 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%x: tensor<4xf32>) -> tensor<4xf32> {
    %c = stablehlo.constant dense<2> : tensor<ui32>
    %0 = stablehlo.partition_id : tensor<ui32>
    %1 = stablehlo.remainder %0, %c : tensor<ui32>
    %2 = stablehlo.convert %1 : (tensor<ui32>) -> tensor<i32>
    %3 = "stablehlo.case"(%2) ({
      %s = "stablehlo.all_reduce"(%x) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>, use_global_device_ids}> ({
      ^bb0(%a: tensor<f32>, %b: tensor<f32>):
        %t = stablehlo.add %a, %b : tensor<f32>
        stablehlo.return %t : tensor<f32>
      }) : (tensor<4xf32>) -> tensor<4xf32>
      stablehlo.return %s : tensor<4xf32>
    }, {
      %k = stablehlo.constant dense<2.0> : tensor<4xf32>
      %y = stablehlo.multiply %k, %x : tensor<4xf32>
      %s = "stablehlo.all_reduce"(%y) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>, use_global_device_ids}> ({
      ^bb0(%a: tensor<f32>, %b: tensor<f32>):
        %t = stablehlo.add %a, %b : tensor<f32>
        stablehlo.return %t : tensor<f32>
      }) : (tensor<4xf32>) -> tensor<4xf32>
      stablehlo.return %s : tensor<4xf32>
    }) : (tensor<i32>) -> tensor<4xf32>
    return %3 : tensor<4xf32>
  }
}
