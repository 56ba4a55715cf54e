// 2^31 does not fit the declared i32: XLA would read -2147483648 partitions.
module @m attributes {mhlo.num_partitions = 2147483648 : i32, mhlo.num_replicas = 1 : i32} {
  func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
    return %x : tensor<4xf32>
  }
}
