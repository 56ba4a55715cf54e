// An all_reduce on channel 1 in each branch of a case on partition_id, their
// groups written two ways: flattened ids [[0, 1]] (use_global_device_ids) and
// cross_replica_and_partition [[0]] (replica 0 with every partition). Both are
// the device list [0, 1], and XLA's rendezvous key is (kind, channel, device
// list), so the ops meet and the program completes on XLA:CPU (differential
// seed 2 case 17). The model keyed a group partition by how it was written
// (strategy + literal) and reported a deadlock: a false error. Now SHLO502
// (matched only by XLA). Its sibling group_order_differs.mlir lists the same
// devices in another order: XLA's key differs, XLA:CPU aborts.
module @groups_written_differently attributes {mhlo.num_partitions = 2 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%x: tensor<8xf32>) -> tensor<8xf32> {
    %id = stablehlo.partition_id : tensor<ui32>
    %i = stablehlo.convert %id : (tensor<ui32>) -> tensor<i32>
    %r = "stablehlo.case"(%i) ({
      %v = "stablehlo.all_reduce"(%x) <{replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>, channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, use_global_device_ids}> ({
        ^bb0(%a: tensor<f32>, %b: tensor<f32>):
          %t = stablehlo.add %a, %b : tensor<f32>
          stablehlo.return %t : tensor<f32>
      }) : (tensor<8xf32>) -> tensor<8xf32>
      stablehlo.return %v : tensor<8xf32>
    }, {
      %y = stablehlo.multiply %x, %x : tensor<8xf32>
      %v = "stablehlo.all_reduce"(%y) <{replica_groups = dense<[[0]]> : tensor<1x1xi64>, channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>}> ({
        ^bb0(%a: tensor<f32>, %b: tensor<f32>):
          %t = stablehlo.add %a, %b : tensor<f32>
          stablehlo.return %t : tensor<f32>
      }) : (tensor<8xf32>) -> tensor<8xf32>
      stablehlo.return %v : tensor<8xf32>
    }) : (tensor<i32>) -> tensor<8xf32>
    return %r : tensor<8xf32>
  }
}
