// An all_reduce on channel 1 in each branch of a case on partition_id, over
// the groups [[0, 1]] and [[1, 0]]: the same devices, listed in another order.
// XLA's rendezvous key holds the ordered device list, so the two ops never meet:
// XLA:CPU aborts ("expected 2 participants"), a deadlock (SHLO501). Compare
// groups_written_differently.mlir, whose device lists are equal.
module @group_order_differs attributes {mhlo.num_partitions = 2 : i32, mhlo.num_replicas = 1 : i32} {
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
      %v = "stablehlo.all_reduce"(%y) <{replica_groups = dense<[[1, 0]]> : tensor<1x2xi64>, channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, use_global_device_ids}> ({
        ^bb0(%a: tensor<f32>, %b: tensor<f32>):
          %t = stablehlo.add %a, %b : tensor<f32>
          stablehlo.return %t : tensor<f32>
      }) : (tensor<8xf32>) -> tensor<8xf32>
      stablehlo.return %v : tensor<8xf32>
    }) : (tensor<i32>) -> tensor<8xf32>
    return %r : tensor<8xf32>
  }
}
