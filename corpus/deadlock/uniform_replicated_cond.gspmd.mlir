module @jit_body attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<i1> {mhlo.sharding = "{replicated}"}, %arg1: tensor<32xf32>) -> (tensor<32xf32> {jax.result_info = "result"}) {
    %0 = stablehlo.custom_call @Sharding(%arg0) {backend_config = "", mhlo.sharding = "{replicated}"} : (tensor<i1>) -> tensor<i1>
    %1 = stablehlo.custom_call @SPMDFullToShardShape(%0) {backend_config = "", mhlo.sharding = "{manual}"} : (tensor<i1>) -> tensor<i1>
    %2 = stablehlo.custom_call @Sharding(%arg1) {backend_config = "", mhlo.sharding = "{devices=[8]<=[8]}"} : (tensor<32xf32>) -> tensor<32xf32>
    %3 = stablehlo.custom_call @SPMDFullToShardShape(%2) {backend_config = "", mhlo.sharding = "{manual}"} : (tensor<32xf32>) -> tensor<4xf32>
    %4 = call @shmap_body(%1, %3) : (tensor<i1>, tensor<4xf32>) -> tensor<4xf32>
    %5 = stablehlo.custom_call @Sharding(%4) {backend_config = "", mhlo.sharding = "{manual}"} : (tensor<4xf32>) -> tensor<4xf32>
    %6 = stablehlo.custom_call @SPMDShardToFullShape(%5) {backend_config = "", mhlo.sharding = "{devices=[8]<=[8]}"} : (tensor<4xf32>) -> tensor<32xf32>
    return %6 : tensor<32xf32>
  }
  func.func private @shmap_body(%arg0: tensor<i1>, %arg1: tensor<4xf32>) -> (tensor<4xf32> {jax.result_info = "[('x',)]"}) {
    %0 = stablehlo.convert %arg0 : (tensor<i1>) -> tensor<i32>
    %1 = "stablehlo.case"(%0) ({
      %2 = "stablehlo.all_reduce"(%arg1) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1, 2, 3, 4, 5, 6, 7]]> : tensor<1x8xi64>, use_global_device_ids}> ({
      ^bb0(%arg2: tensor<f32>, %arg3: tensor<f32>):
        %5 = stablehlo.maximum %arg2, %arg3 : tensor<f32>
        stablehlo.return %5 : tensor<f32>
      }) : (tensor<4xf32>) -> tensor<4xf32>
      %cst = stablehlo.constant dense<2.000000e+00> : tensor<f32>
      %3 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<4xf32>
      %4 = stablehlo.multiply %2, %3 : tensor<4xf32>
      stablehlo.return %4 : tensor<4xf32>
    }, {
      %2 = "stablehlo.all_reduce"(%arg1) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1, 2, 3, 4, 5, 6, 7]]> : tensor<1x8xi64>, use_global_device_ids}> ({
      ^bb0(%arg2: tensor<f32>, %arg3: tensor<f32>):
        %3 = stablehlo.add %arg2, %arg3 : tensor<f32>
        stablehlo.return %3 : tensor<f32>
      }) : (tensor<4xf32>) -> tensor<4xf32>
      stablehlo.return %2 : tensor<4xf32>
    }) : (tensor<i32>) -> tensor<4xf32>
    return %1 : tensor<4xf32>
  }
}
