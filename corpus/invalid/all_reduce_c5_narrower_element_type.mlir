module @m attributes {mhlo.num_partitions = 4 : i32, mhlo.num_replicas = 1 : i32} {
  func.func @main(%x: tensor<4xf32>) -> tensor<4xf16> {
    %0 = "stablehlo.all_reduce"(%x) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>, use_global_device_ids}> ({
    ^bb0(%a0: tensor<f16>, %a1: tensor<f16>):
      %s = stablehlo.add %a0, %a1 : tensor<f16>
      stablehlo.return %s : tensor<f16>
    }) : (tensor<4xf32>) -> tensor<4xf16>
    return %0 : tensor<4xf16>
  }
}
