module @jit_body attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<32x8xf32>, %arg1: tensor<32x8xf32>) -> (tensor<32x8xf32> {jax.result_info = "result[0]"}, tensor<256x8xf32> {jax.result_info = "result[1]"}) {
    %0 = stablehlo.custom_call @Sharding(%arg0) {backend_config = "", mhlo.sharding = "{devices=[8,1]<=[8]}"} : (tensor<32x8xf32>) -> tensor<32x8xf32>
    %1 = stablehlo.custom_call @SPMDFullToShardShape(%0) {backend_config = "", mhlo.sharding = "{manual}"} : (tensor<32x8xf32>) -> tensor<4x8xf32>
    %2 = stablehlo.custom_call @Sharding(%arg1) {backend_config = "", mhlo.sharding = "{devices=[8,1]<=[8]}"} : (tensor<32x8xf32>) -> tensor<32x8xf32>
    %3 = stablehlo.custom_call @SPMDFullToShardShape(%2) {backend_config = "", mhlo.sharding = "{manual}"} : (tensor<32x8xf32>) -> tensor<4x8xf32>
    %4:2 = call @shmap_body(%1, %3) : (tensor<4x8xf32>, tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<32x8xf32>)
    %5 = stablehlo.custom_call @Sharding(%4#0) {backend_config = "", mhlo.sharding = "{manual}"} : (tensor<4x8xf32>) -> tensor<4x8xf32>
    %6 = stablehlo.custom_call @SPMDShardToFullShape(%5) {backend_config = "", mhlo.sharding = "{devices=[8,1]<=[8]}"} : (tensor<4x8xf32>) -> tensor<32x8xf32>
    %7 = stablehlo.custom_call @Sharding(%4#1) {backend_config = "", mhlo.sharding = "{manual}"} : (tensor<32x8xf32>) -> tensor<32x8xf32>
    %8 = stablehlo.custom_call @SPMDShardToFullShape(%7) {backend_config = "", mhlo.sharding = "{devices=[8,1]<=[8]}"} : (tensor<32x8xf32>) -> tensor<256x8xf32>
    return %6, %8 : tensor<32x8xf32>, tensor<256x8xf32>
  }
  func.func private @shmap_body(%arg0: tensor<4x8xf32>, %arg1: tensor<4x8xf32>) -> (tensor<4x8xf32> {jax.result_info = "[('x',), None]"}, tensor<32x8xf32> {jax.result_info = "[('x',), None]"}) {
    %0 = "stablehlo.async_start"(%arg0) ({
    ^bb0(%arg2: tensor<4x8xf32>):
      %8 = "stablehlo.collective_permute"(%arg2) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, source_target_pairs = dense<[[0, 1], [1, 2], [2, 3], [3, 4], [4, 5], [5, 6], [6, 7], [7, 0]]> : tensor<8x2xi64>}> : (tensor<4x8xf32>) -> tensor<4x8xf32>
      stablehlo.return %8 : tensor<4x8xf32>
    }) : (tensor<4x8xf32>) -> !stablehlo.future<tensor<4x8xf32>>
    %1 = "stablehlo.async_start"(%arg1) ({
    ^bb0(%arg2: tensor<4x8xf32>):
      %8 = "stablehlo.all_gather"(%arg2) <{all_gather_dim = 0 : i64, channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1, 2, 3, 4, 5, 6, 7]]> : tensor<1x8xi64>, use_global_device_ids}> : (tensor<4x8xf32>) -> tensor<32x8xf32>
      stablehlo.return %8 : tensor<32x8xf32>
    }) : (tensor<4x8xf32>) -> !stablehlo.future<tensor<32x8xf32>>
    %2 = stablehlo.sine %arg0 : tensor<4x8xf32>
    %cst = stablehlo.constant dense<3.000000e+00> : tensor<f32>
    %3 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<4x8xf32>
    %4 = stablehlo.multiply %2, %3 : tensor<4x8xf32>
    %5 = "stablehlo.async_done"(%1) : (!stablehlo.future<tensor<32x8xf32>>) -> tensor<32x8xf32>
    %6 = "stablehlo.async_done"(%0) : (!stablehlo.future<tensor<4x8xf32>>) -> tensor<4x8xf32>
    %7 = stablehlo.add %6, %4 : tensor<4x8xf32>
    return %7, %5 : tensor<4x8xf32>, tensor<32x8xf32>
  }
}
