// A 2^31-partition grid declared as i64 is fine, and checking it costs no more than a small one.
module @m attributes {mhlo.num_partitions = 2147483648 : i64, mhlo.num_replicas = 1 : i32} {
  func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
    %0 = "stablehlo.collective_permute"(%x) {source_target_pairs = dense<[[0, 2147483647], [2147483647, 0]]> : tensor<2x2xi64>, channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>} : (tensor<4xf32>) -> tensor<4xf32>
    return %0 : tensor<4xf32>
  }
}
