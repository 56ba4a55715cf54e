module @m attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 2 : i32} {
  func.func @main(%operand0: tensor<2x2xi64>, %operand1: tensor<2x2xi64>) -> (tensor<2x4xi64>, tensor<2x4xi64>) {
    %result:2 = "stablehlo.all_gather"(%operand0, %operand1) {
      all_gather_dim = 1 : i64,
      replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>,
      channel_handle = #stablehlo.channel_handle<handle = 0, type = 0>
    } : (tensor<2x2xi64>, tensor<2x2xi64>) -> (tensor<2x4xi64>, tensor<2x4xi64>)
    func.return %result#0, %result#1 : tensor<2x4xi64>, tensor<2x4xi64>
  }
}
