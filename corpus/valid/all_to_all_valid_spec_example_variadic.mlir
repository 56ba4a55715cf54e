module @m attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 2 : i32} {
  func.func @main(%operand1: tensor<2x4xi64>, %operand2: tensor<2x4xi64>) -> (tensor<4x2xi64>, tensor<4x2xi64>) {
    %result:2 = "stablehlo.all_to_all"(%operand1, %operand2) {
      split_dimension = 1 : i64,
      concat_dimension = 0 : i64,
      split_count = 2 : i64,
      replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>
    } : (tensor<2x4xi64>, tensor<2x4xi64>) -> (tensor<4x2xi64>, tensor<4x2xi64>)
    func.return %result#0, %result#1 : tensor<4x2xi64>, tensor<4x2xi64>
  }
}
