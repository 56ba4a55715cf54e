module @jit_body attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<16x16xf32>, %arg1: tensor<4x16xf32>) -> (tensor<16x16xf32> {jax.result_info = "result"}) {
    %0 = stablehlo.custom_call @Sharding(%arg0) {backend_config = "", mhlo.sharding = "{devices=[8,1]<=[8]}"} : (tensor<16x16xf32>) -> tensor<16x16xf32>
    %1 = stablehlo.custom_call @SPMDFullToShardShape(%0) {backend_config = "", mhlo.sharding = "{manual}"} : (tensor<16x16xf32>) -> tensor<2x16xf32>
    %2 = stablehlo.custom_call @Sharding(%arg1) {backend_config = "", mhlo.sharding = "{replicated}"} : (tensor<4x16xf32>) -> tensor<4x16xf32>
    %3 = stablehlo.custom_call @SPMDFullToShardShape(%2) {backend_config = "", mhlo.sharding = "{manual}"} : (tensor<4x16xf32>) -> tensor<4x16xf32>
    %4 = call @shmap_body(%1, %3) : (tensor<2x16xf32>, tensor<4x16xf32>) -> tensor<2x16xf32>
    %5 = stablehlo.custom_call @Sharding(%4) {backend_config = "", mhlo.sharding = "{manual}"} : (tensor<2x16xf32>) -> tensor<2x16xf32>
    %6 = stablehlo.custom_call @SPMDShardToFullShape(%5) {backend_config = "", mhlo.sharding = "{devices=[8,1]<=[8]}"} : (tensor<2x16xf32>) -> tensor<16x16xf32>
    return %6 : tensor<16x16xf32>
  }
  func.func private @shmap_body(%arg0: tensor<2x16xf32>, %arg1: tensor<4x16xf32>) -> (tensor<2x16xf32> {jax.result_info = "[('x',), None]"}) {
    %0 = "stablehlo.all_gather"(%arg0) <{all_gather_dim = 0 : i64, channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1, 2, 3, 4, 5, 6, 7]]> : tensor<1x8xi64>, use_global_device_ids}> : (tensor<2x16xf32>) -> tensor<16x16xf32>
    %1 = stablehlo.dot_general %arg1, %0, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<4x16xf32>, tensor<16x16xf32>) -> tensor<4x16xf32>
    %2 = stablehlo.tanh %1 : tensor<4x16xf32>
    %cst = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %3 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<4x16xf32>
    %4 = stablehlo.subtract %3, %2 : tensor<4x16xf32>
    %cst_0 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %5 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<4x16xf32>
    %6 = stablehlo.multiply %5, %4 : tensor<4x16xf32>
    %7 = stablehlo.multiply %6, %2 : tensor<4x16xf32>
    %8 = stablehlo.add %6, %7 : tensor<4x16xf32>
    %9 = stablehlo.dot_general %8, %arg1, contracting_dims = [0] x [0], precision = [DEFAULT, DEFAULT] : (tensor<4x16xf32>, tensor<4x16xf32>) -> tensor<16x16xf32>
    %10 = stablehlo.transpose %9, dims = [1, 0] : (tensor<16x16xf32>) -> tensor<16x16xf32>
    %11 = "stablehlo.reduce_scatter"(%10) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1, 2, 3, 4, 5, 6, 7]]> : tensor<1x8xi64>, scatter_dimension = 0 : i64, use_global_device_ids}> ({
    ^bb0(%arg2: tensor<f32>, %arg3: tensor<f32>):
      %12 = stablehlo.add %arg2, %arg3 : tensor<f32>
      stablehlo.return %12 : tensor<f32>
    }) : (tensor<16x16xf32>) -> tensor<2x16xf32>
    return %11 : tensor<2x16xf32>
  }
}
