module @jit_body attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<32xf32>) -> (tensor<32xf32> {jax.result_info = "result"}) {
    %0 = stablehlo.custom_call @Sharding(%arg0) {backend_config = "", mhlo.sharding = "{devices=[8]<=[8]}"} : (tensor<32xf32>) -> tensor<32xf32>
    %1 = stablehlo.custom_call @SPMDFullToShardShape(%0) {backend_config = "", mhlo.sharding = "{manual}"} : (tensor<32xf32>) -> tensor<4xf32>
    %2 = call @shmap_body(%1) : (tensor<4xf32>) -> tensor<4xf32>
    %3 = stablehlo.custom_call @Sharding(%2) {backend_config = "", mhlo.sharding = "{manual}"} : (tensor<4xf32>) -> tensor<4xf32>
    %4 = stablehlo.custom_call @SPMDShardToFullShape(%3) {backend_config = "", mhlo.sharding = "{devices=[8]<=[8]}"} : (tensor<4xf32>) -> tensor<32xf32>
    return %4 : tensor<32xf32>
  }
  func.func private @shmap_body(%arg0: tensor<4xf32>) -> (tensor<4xf32> {jax.result_info = "[('x',)]"}) {
    %0 = stablehlo.create_token : !stablehlo.token
    %1 = "stablehlo.send"(%arg0, %0) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, source_target_pairs = dense<[[0, 1], [1, 2], [2, 3], [3, 4], [4, 5], [5, 6], [6, 7]]> : tensor<7x2xi64>}> : (tensor<4xf32>, !stablehlo.token) -> !stablehlo.token
    %2:2 = "stablehlo.recv"(%1) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, source_target_pairs = dense<[[0, 1], [1, 2], [2, 3], [3, 4], [4, 5], [5, 6], [6, 7]]> : tensor<7x2xi64>}> : (!stablehlo.token) -> (tensor<4xf32>, !stablehlo.token)
    %3 = stablehlo.tanh %arg0 : tensor<4xf32>
    %4 = stablehlo.add %3, %2#0 : tensor<4xf32>
    return %4 : tensor<4xf32>
  }
}
