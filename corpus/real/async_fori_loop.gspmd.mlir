module @jit_body attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<32x8xf32>) -> (tensor<32x8xf32> {jax.result_info = "result"}) {
    %0 = stablehlo.custom_call @Sharding(%arg0) {backend_config = "", mhlo.sharding = "{devices=[8,1]<=[8]}"} : (tensor<32x8xf32>) -> tensor<32x8xf32>
    %1 = stablehlo.custom_call @SPMDFullToShardShape(%0) {backend_config = "", mhlo.sharding = "{manual}"} : (tensor<32x8xf32>) -> tensor<4x8xf32>
    %2 = call @shmap_body(%1) : (tensor<4x8xf32>) -> tensor<4x8xf32>
    %3 = stablehlo.custom_call @Sharding(%2) {backend_config = "", mhlo.sharding = "{manual}"} : (tensor<4x8xf32>) -> tensor<4x8xf32>
    %4 = stablehlo.custom_call @SPMDShardToFullShape(%3) {backend_config = "", mhlo.sharding = "{devices=[8,1]<=[8]}"} : (tensor<4x8xf32>) -> tensor<32x8xf32>
    return %4 : tensor<32x8xf32>
  }
  func.func private @shmap_body(%arg0: tensor<4x8xf32>) -> (tensor<4x8xf32> {jax.result_info = "[('x',), None]"}) {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %0:2 = stablehlo.while(%iterArg = %c, %iterArg_0 = %arg0) : tensor<i32>, tensor<4x8xf32>
    cond {
      %c_1 = stablehlo.constant dense<4> : tensor<i32>
      %1 = stablehlo.compare LT, %iterArg, %c_1, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %1 : tensor<i1>
    } do {
      %1 = func.call @closed_call(%iterArg_0) : (tensor<4x8xf32>) -> tensor<4x8xf32>
      %c_1 = stablehlo.constant dense<1> : tensor<i32>
      %2 = stablehlo.add %iterArg, %c_1 : tensor<i32>
      stablehlo.return %2, %1 : tensor<i32>, tensor<4x8xf32>
    }
    return %0#1 : tensor<4x8xf32>
  }
  func.func private @closed_call(%arg0: tensor<4x8xf32>) -> tensor<4x8xf32> {
    %0 = "stablehlo.async_start"(%arg0) ({
    ^bb0(%arg1: tensor<4x8xf32>):
      %4 = "stablehlo.collective_permute"(%arg1) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, source_target_pairs = dense<[[0, 1], [1, 2], [2, 3], [3, 4], [4, 5], [5, 6], [6, 7], [7, 0]]> : tensor<8x2xi64>}> : (tensor<4x8xf32>) -> tensor<4x8xf32>
      stablehlo.return %4 : tensor<4x8xf32>
    }) : (tensor<4x8xf32>) -> !stablehlo.future<tensor<4x8xf32>>
    %1 = stablehlo.tanh %arg0 : tensor<4x8xf32>
    %2 = "stablehlo.async_done"(%0) : (!stablehlo.future<tensor<4x8xf32>>) -> tensor<4x8xf32>
    %3 = stablehlo.add %2, %1 : tensor<4x8xf32>
    return %3 : tensor<4x8xf32>
  }
}
