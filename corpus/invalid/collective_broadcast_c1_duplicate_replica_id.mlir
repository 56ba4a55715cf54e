module @m attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 4 : i32} {
  func.func @main(%x: tensor<1x2xi64>) -> tensor<1x2xi64> {
    %0 = "stablehlo.collective_broadcast"(%x) {replica_groups = dense<[[2, 2]]> : tensor<1x2xi64>, channel_handle = #stablehlo.channel_handle<handle = 0, type = 0>} : (tensor<1x2xi64>) -> tensor<1x2xi64>
    return %0 : tensor<1x2xi64>
  }
}
