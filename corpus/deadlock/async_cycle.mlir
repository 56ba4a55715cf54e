// Two futures started and completed in crossed orders: even partitions start f
// (an all_reduce) and wait for it before starting g (an all_gather); odd
// partitions start g and wait for it before starting f. XLA issues starts in
// program order and the first collective each process issues must be the same:
// each start waits for a peer that issues the other one first (under the spec
// reading, -O deadlock-matching=spec, each done waits for a peer that starts
// only after its own done).
module @async_cycle attributes {mhlo.num_partitions = 2 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%x: tensor<4xf32>) -> tensor<4xf32> {
    %p = stablehlo.partition_id : tensor<ui32>
    %pi = stablehlo.convert %p : (tensor<ui32>) -> tensor<i32>
    %r = "stablehlo.case"(%pi) ({
      %f = "stablehlo.all_reduce_start"(%x) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>, use_global_device_ids}> ({
      ^bb0(%a: tensor<f32>, %b: tensor<f32>):
        %t = stablehlo.add %a, %b : tensor<f32>
        stablehlo.return %t : tensor<f32>
      }) : (tensor<4xf32>) -> !stablehlo.future<tensor<4xf32>>
      %fr = "stablehlo.all_reduce_done"(%f) : (!stablehlo.future<tensor<4xf32>>) -> tensor<4xf32>
      %g = "stablehlo.all_gather_start"(%fr) {all_gather_dim = 0 : i64, channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>, use_global_device_ids} : (tensor<4xf32>) -> !stablehlo.future<tensor<8xf32>>
      %gr = "stablehlo.all_gather_done"(%g) : (!stablehlo.future<tensor<8xf32>>) -> tensor<8xf32>
      %h = stablehlo.slice %gr [0:4] : (tensor<8xf32>) -> tensor<4xf32>
      stablehlo.return %h : tensor<4xf32>
    }, {
      %g = "stablehlo.all_gather_start"(%x) {all_gather_dim = 0 : i64, channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>, use_global_device_ids} : (tensor<4xf32>) -> !stablehlo.future<tensor<8xf32>>
      %gr = "stablehlo.all_gather_done"(%g) : (!stablehlo.future<tensor<8xf32>>) -> tensor<8xf32>
      %h = stablehlo.slice %gr [0:4] : (tensor<8xf32>) -> tensor<4xf32>
      %f = "stablehlo.all_reduce_start"(%h) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>, use_global_device_ids}> ({
      ^bb0(%a: tensor<f32>, %b: tensor<f32>):
        %t = stablehlo.add %a, %b : tensor<f32>
        stablehlo.return %t : tensor<f32>
      }) : (tensor<4xf32>) -> !stablehlo.future<tensor<4xf32>>
      %fr = "stablehlo.all_reduce_done"(%f) : (!stablehlo.future<tensor<4xf32>>) -> tensor<4xf32>
      stablehlo.return %fr : tensor<4xf32>
    }) : (tensor<i32>) -> tensor<4xf32>
    return %r : tensor<4xf32>
  }
}
