module @jit_body attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<64x8xf32>) -> (tensor<512x8xf32> {jax.result_info = "result[0]"}, tensor<8x8xf32> {jax.result_info = "result[1]"}, tensor<64x8xf32> {jax.result_info = "result[2]"}, tensor<64x8xf32> {jax.result_info = "result[3]"}, tensor<64x8xf32> {jax.result_info = "result[4]"}, tensor<64x8xf32> {jax.result_info = "result[5]"}) {
    %0 = stablehlo.custom_call @Sharding(%arg0) {backend_config = "", mhlo.sharding = "{devices=[8,1]<=[8]}"} : (tensor<64x8xf32>) -> tensor<64x8xf32>
    %1 = stablehlo.custom_call @SPMDFullToShardShape(%0) {backend_config = "", mhlo.sharding = "{manual}"} : (tensor<64x8xf32>) -> tensor<8x8xf32>
    %2:6 = call @shmap_body(%1) : (tensor<8x8xf32>) -> (tensor<64x8xf32>, tensor<1x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>)
    %3 = stablehlo.custom_call @Sharding(%2#0) {backend_config = "", mhlo.sharding = "{manual}"} : (tensor<64x8xf32>) -> tensor<64x8xf32>
    %4 = stablehlo.custom_call @SPMDShardToFullShape(%3) {backend_config = "", mhlo.sharding = "{devices=[8,1]<=[8]}"} : (tensor<64x8xf32>) -> tensor<512x8xf32>
    %5 = stablehlo.custom_call @Sharding(%2#1) {backend_config = "", mhlo.sharding = "{manual}"} : (tensor<1x8xf32>) -> tensor<1x8xf32>
    %6 = stablehlo.custom_call @SPMDShardToFullShape(%5) {backend_config = "", mhlo.sharding = "{devices=[8,1]<=[8]}"} : (tensor<1x8xf32>) -> tensor<8x8xf32>
    %7 = stablehlo.custom_call @Sharding(%2#2) {backend_config = "", mhlo.sharding = "{manual}"} : (tensor<8x8xf32>) -> tensor<8x8xf32>
    %8 = stablehlo.custom_call @SPMDShardToFullShape(%7) {backend_config = "", mhlo.sharding = "{devices=[8,1]<=[8]}"} : (tensor<8x8xf32>) -> tensor<64x8xf32>
    %9 = stablehlo.custom_call @Sharding(%2#3) {backend_config = "", mhlo.sharding = "{manual}"} : (tensor<8x8xf32>) -> tensor<8x8xf32>
    %10 = stablehlo.custom_call @SPMDShardToFullShape(%9) {backend_config = "", mhlo.sharding = "{devices=[8,1]<=[8]}"} : (tensor<8x8xf32>) -> tensor<64x8xf32>
    %11 = stablehlo.custom_call @Sharding(%2#4) {backend_config = "", mhlo.sharding = "{manual}"} : (tensor<8x8xf32>) -> tensor<8x8xf32>
    %12 = stablehlo.custom_call @SPMDShardToFullShape(%11) {backend_config = "", mhlo.sharding = "{devices=[8,1]<=[8]}"} : (tensor<8x8xf32>) -> tensor<64x8xf32>
    %13 = stablehlo.custom_call @Sharding(%2#5) {backend_config = "", mhlo.sharding = "{manual}"} : (tensor<8x8xf32>) -> tensor<8x8xf32>
    %14 = stablehlo.custom_call @SPMDShardToFullShape(%13) {backend_config = "", mhlo.sharding = "{devices=[8,1]<=[8]}"} : (tensor<8x8xf32>) -> tensor<64x8xf32>
    return %4, %6, %8, %10, %12, %14 : tensor<512x8xf32>, tensor<8x8xf32>, tensor<64x8xf32>, tensor<64x8xf32>, tensor<64x8xf32>, tensor<64x8xf32>
  }
  func.func private @shmap_body(%arg0: tensor<8x8xf32>) -> (tensor<64x8xf32> {jax.result_info = "[('x',), None]"}, tensor<1x8xf32> {jax.result_info = "[('x',), None]"}, tensor<8x8xf32> {jax.result_info = "[('x',), None]"}, tensor<8x8xf32> {jax.result_info = "[('x',), None]"}, tensor<8x8xf32> {jax.result_info = "[('x',), None]"}, tensor<8x8xf32> {jax.result_info = "[('x',), None]"}) {
    %0 = "stablehlo.async_start"(%arg0) ({
    ^bb0(%arg1: tensor<8x8xf32>):
      %12 = "stablehlo.all_gather"(%arg1) <{all_gather_dim = 0 : i64, channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1, 2, 3, 4, 5, 6, 7]]> : tensor<1x8xi64>, use_global_device_ids}> : (tensor<8x8xf32>) -> tensor<64x8xf32>
      stablehlo.return %12 : tensor<64x8xf32>
    }) : (tensor<8x8xf32>) -> !stablehlo.future<tensor<64x8xf32>>
    %1 = "stablehlo.async_start"(%arg0) ({
    ^bb0(%arg1: tensor<8x8xf32>):
      %12 = "stablehlo.reduce_scatter"(%arg1) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1, 2, 3, 4, 5, 6, 7]]> : tensor<1x8xi64>, scatter_dimension = 0 : i64, use_global_device_ids}> ({
      ^bb0(%arg2: tensor<f32>, %arg3: tensor<f32>):
        %13 = stablehlo.add %arg2, %arg3 : tensor<f32>
        stablehlo.return %13 : tensor<f32>
      }) : (tensor<8x8xf32>) -> tensor<1x8xf32>
      stablehlo.return %12 : tensor<1x8xf32>
    }) : (tensor<8x8xf32>) -> !stablehlo.future<tensor<1x8xf32>>
    %2 = "stablehlo.async_start"(%arg0) ({
    ^bb0(%arg1: tensor<8x8xf32>):
      %12 = "stablehlo.all_to_all"(%arg1) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, concat_dimension = 0 : i64, replica_groups = dense<[[0, 1, 2, 3, 4, 5, 6, 7]]> : tensor<1x8xi64>, split_count = 8 : i64, split_dimension = 0 : i64}> : (tensor<8x8xf32>) -> tensor<8x8xf32>
      stablehlo.return %12 : tensor<8x8xf32>
    }) : (tensor<8x8xf32>) -> !stablehlo.future<tensor<8x8xf32>>
    %3 = "stablehlo.async_start"(%arg0) ({
    ^bb0(%arg1: tensor<8x8xf32>):
      %12 = "stablehlo.all_reduce"(%arg1) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1, 2, 3, 4, 5, 6, 7]]> : tensor<1x8xi64>, use_global_device_ids}> ({
      ^bb0(%arg2: tensor<f32>, %arg3: tensor<f32>):
        %13 = stablehlo.add %arg2, %arg3 : tensor<f32>
        stablehlo.return %13 : tensor<f32>
      }) : (tensor<8x8xf32>) -> tensor<8x8xf32>
      stablehlo.return %12 : tensor<8x8xf32>
    }) : (tensor<8x8xf32>) -> !stablehlo.future<tensor<8x8xf32>>
    %4 = "stablehlo.async_start"(%arg0) ({
    ^bb0(%arg1: tensor<8x8xf32>):
      %12 = "stablehlo.collective_permute"(%arg1) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, source_target_pairs = dense<[[0, 1], [1, 2], [2, 3], [3, 4], [4, 5], [5, 6], [6, 7], [7, 0]]> : tensor<8x2xi64>}> : (tensor<8x8xf32>) -> tensor<8x8xf32>
      stablehlo.return %12 : tensor<8x8xf32>
    }) : (tensor<8x8xf32>) -> !stablehlo.future<tensor<8x8xf32>>
    %5 = "stablehlo.async_start"(%arg0) ({
    ^bb0(%arg1: tensor<8x8xf32>):
      %12 = "stablehlo.collective_broadcast"(%arg1) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1, 2, 3, 4, 5, 6, 7]]> : tensor<1x8xi64>}> : (tensor<8x8xf32>) -> tensor<8x8xf32>
      stablehlo.return %12 : tensor<8x8xf32>
    }) : (tensor<8x8xf32>) -> !stablehlo.future<tensor<8x8xf32>>
    %6 = "stablehlo.async_done"(%0) : (!stablehlo.future<tensor<64x8xf32>>) -> tensor<64x8xf32>
    %7 = "stablehlo.async_done"(%1) : (!stablehlo.future<tensor<1x8xf32>>) -> tensor<1x8xf32>
    %8 = "stablehlo.async_done"(%2) : (!stablehlo.future<tensor<8x8xf32>>) -> tensor<8x8xf32>
    %9 = "stablehlo.async_done"(%3) : (!stablehlo.future<tensor<8x8xf32>>) -> tensor<8x8xf32>
    %10 = "stablehlo.async_done"(%4) : (!stablehlo.future<tensor<8x8xf32>>) -> tensor<8x8xf32>
    %11 = "stablehlo.async_done"(%5) : (!stablehlo.future<tensor<8x8xf32>>) -> tensor<8x8xf32>
    return %6, %7, %8, %9, %10, %11 : tensor<64x8xf32>, tensor<1x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>
  }
}
