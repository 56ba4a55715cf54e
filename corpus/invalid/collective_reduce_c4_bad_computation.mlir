module @m attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 4 : i32} {
  func.func @main(%x: tensor<4xi64>) -> tensor<4xi64> {
    %0 = "stablehlo.collective_reduce"(%x) ({
    ^bb0(%a: tensor<i64>, %b: tensor<i32>):
      %s = stablehlo.add %a, %a : tensor<i64>
      stablehlo.return %s : tensor<i64>
    }) {replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>, channel_handle = #stablehlo.channel_handle<handle = 0, type = 0>} : (tensor<4xi64>) -> tensor<4xi64>
    return %0 : tensor<4xi64>
  }
}
