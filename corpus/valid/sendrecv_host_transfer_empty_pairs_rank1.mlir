// Host transfers with source_target_pairs written as a 1-D empty constant
// (`dense<[]> : tensor<0xi64>`): empty pairs, which a host transfer ignores.
// The 1.20 verifier accepts it (it does not read send/recv pairs) and
// StableHLO's own VHLO tests write host transfers this way; only a [k, 2]
// shape with k > 0 means anything. (The same spelling on a device transfer is
// SHLO106/SHLO116: empty pairs, undefined behaviour.)
module @jit_f attributes {mhlo.num_partitions = 2 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<4xf32>) -> tensor<4xf32> {
    %0 = stablehlo.create_token : !stablehlo.token
    %1 = "stablehlo.send"(%arg0, %0) {source_target_pairs = dense<[]> : tensor<0xi64>, channel_handle = #stablehlo.channel_handle<handle = 5, type = 2>, is_host_transfer = true} : (tensor<4xf32>, !stablehlo.token) -> !stablehlo.token
    %2:2 = "stablehlo.recv"(%1) {source_target_pairs = dense<[]> : tensor<0xi64>, channel_handle = #stablehlo.channel_handle<handle = 6, type = 3>, is_host_transfer = true} : (!stablehlo.token) -> (tensor<4xf32>, !stablehlo.token)
    return %2#0 : tensor<4xf32>
  }
}
