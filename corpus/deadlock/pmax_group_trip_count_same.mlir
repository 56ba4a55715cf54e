// The same loop, its trip count the pmax over the pairs [[0, 1], [2, 3]] of
// partition_id % 2 + 1: 2 in both pairs, so every partition runs the body's
// all_reduce twice and the program completes on XLA:CPU. Folded per group it is
// proven deadlock-free; before, SHLO504 warned "may deadlock" (differential
// seed 2 case 31).
module @pmax_group_trip_count_same attributes {mhlo.num_partitions = 4 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%x: tensor<4xf32>) -> tensor<4xf32> {
    %pid = stablehlo.partition_id : tensor<ui32>
    %p = stablehlo.convert %pid : (tensor<ui32>) -> tensor<i32>
    %two = stablehlo.constant dense<2> : tensor<i32>
    %one = stablehlo.constant dense<1> : tensor<i32>
    %k = stablehlo.remainder %p, %two : tensor<i32>
    %k1 = stablehlo.add %k, %one : tensor<i32>
    %n = "stablehlo.all_reduce"(%k1) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1], [2, 3]]> : tensor<2x2xi64>, use_global_device_ids}> ({
    ^bb0(%a: tensor<i32>, %b: tensor<i32>):
      %m = stablehlo.maximum %a, %b : tensor<i32>
      stablehlo.return %m : tensor<i32>
    }) : (tensor<i32>) -> tensor<i32>
    %zero = stablehlo.constant dense<0> : tensor<i32>
    %r:2 = stablehlo.while(%i = %zero, %acc = %x) : tensor<i32>, tensor<4xf32>
    cond {
      %lt = stablehlo.compare LT, %i, %n, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %lt : tensor<i1>
    } do {
      %s = "stablehlo.all_reduce"(%acc) <{channel_handle = #stablehlo.channel_handle<handle = 2, type = 1>, replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>, use_global_device_ids}> ({
      ^bb0(%a: tensor<f32>, %b: tensor<f32>):
        %t = stablehlo.add %a, %b : tensor<f32>
        stablehlo.return %t : tensor<f32>
      }) : (tensor<4xf32>) -> tensor<4xf32>
      %i1 = stablehlo.add %i, %one : tensor<i32>
      stablehlo.return %i1, %s : tensor<i32>, tensor<4xf32>
    }
    return %r#1 : tensor<4xf32>
  }
}
