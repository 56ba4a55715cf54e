// corpus/deadlock/crossed_independent_by_use.mlir with the operands of branch 0's final
// add swapped (corpus/hlo_generate.py): XLA:CPU's scheduler then issues that branch's
// all_gather first, while branch 1 must issue its all_reduce first.
module @crossed_independent attributes {mhlo.num_partitions = 4 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%x: tensor<4xf32>) -> tensor<4xf32> {
    %p = stablehlo.partition_id : tensor<ui32>
    %i = stablehlo.convert %p : (tensor<ui32>) -> tensor<i32>
    %c2 = stablehlo.constant dense<2> : tensor<i32>
    %lt = stablehlo.compare LT, %i, %c2, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %r = "stablehlo.if"(%lt) ({
      %b = "stablehlo.all_gather"(%x) <{all_gather_dim = 0 : i64, channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>, use_global_device_ids}> : (tensor<4xf32>) -> tensor<16xf32>
      %a = "stablehlo.all_reduce"(%x) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>, use_global_device_ids}> ({
      ^bb0(%u: tensor<f32>, %v: tensor<f32>):
        %t = stablehlo.add %u, %v : tensor<f32>
        stablehlo.return %t : tensor<f32>
      }) : (tensor<4xf32>) -> tensor<4xf32>
      %s = stablehlo.slice %b [0:4] : (tensor<16xf32>) -> tensor<4xf32>
      %y = stablehlo.add %s, %a : tensor<4xf32>
      stablehlo.return %y : tensor<4xf32>
    }, {
      %a = "stablehlo.all_reduce"(%x) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>, use_global_device_ids}> ({
      ^bb0(%u: tensor<f32>, %v: tensor<f32>):
        %t = stablehlo.add %u, %v : tensor<f32>
        stablehlo.return %t : tensor<f32>
      }) : (tensor<4xf32>) -> tensor<4xf32>
      %b = "stablehlo.all_gather"(%a) <{all_gather_dim = 0 : i64, channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>, use_global_device_ids}> : (tensor<4xf32>) -> tensor<16xf32>
      %s = stablehlo.slice %b [0:4] : (tensor<16xf32>) -> tensor<4xf32>
      stablehlo.return %s : tensor<4xf32>
    }) : (tensor<i1>) -> tensor<4xf32>
    return %r : tensor<4xf32>
  }
}
