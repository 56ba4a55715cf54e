module @m attributes {mhlo.num_partitions = 4 : i32, mhlo.num_replicas = 1 : i32} {
  func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
    %0 = "stablehlo.all_reduce"(%x) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0.0, 1.0, 2.0, 3.0]]> : tensor<1x4xf32>, use_global_device_ids}> ({
    ^bb0(%a0: tensor<f32>, %a1: tensor<f32>):
      %s = stablehlo.add %a0, %a1 : tensor<f32>
      stablehlo.return %s : tensor<f32>
    }) : (tensor<4xf32>) -> tensor<4xf32>
    return %0 : tensor<4xf32>
  }
}
