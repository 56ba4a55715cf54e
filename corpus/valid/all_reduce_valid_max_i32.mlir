module @m attributes {mhlo.num_partitions = 4 : i32, mhlo.num_replicas = 1 : i32} {
  func.func @main(%x: tensor<3x4xi32>) -> tensor<3x4xi32> {
    %0 = "stablehlo.all_reduce"(%x) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>, use_global_device_ids}> ({
    ^bb0(%a0: tensor<i32>, %a1: tensor<i32>):
      %s = stablehlo.maximum %a0, %a1 : tensor<i32>
      stablehlo.return %s : tensor<i32>
    }) : (tensor<3x4xi32>) -> tensor<3x4xi32>
    return %0 : tensor<3x4xi32>
  }
}
