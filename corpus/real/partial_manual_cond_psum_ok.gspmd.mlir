module @jit_body attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<8x16xf32>) -> (tensor<8x16xf32> {jax.result_info = "result"}) {
    %0 = call @body(%arg0) : (tensor<8x16xf32>) -> tensor<8x16xf32>
    return %0 : tensor<8x16xf32>
  }
  func.func private @body(%arg0: tensor<8x16xf32>) -> tensor<8x16xf32> {
    %0 = stablehlo.custom_call @Sharding(%arg0) {backend_config = "unspecified_dims=[0,1]", mhlo.sharding = "{devices=[2,1,4]<=[8] last_tile_dim_replicate}"} : (tensor<8x16xf32>) -> tensor<8x16xf32>
    %1 = stablehlo.custom_call @SPMDFullToShardShape(%0) {backend_config = "unspecified_dims=[0,1]", mhlo.sharding = "{devices=[1,1,2,4]<=[8] last_tile_dims={manual, replicated}}"} : (tensor<8x16xf32>) -> tensor<4x16xf32>
    %2 = call @shmap_body(%1) : (tensor<4x16xf32>) -> tensor<4x16xf32>
    %3 = stablehlo.custom_call @Sharding(%2) {backend_config = "unspecified_dims=[0,1]", mhlo.sharding = "{devices=[1,1,2,4]<=[8] last_tile_dims={manual, replicated}}"} : (tensor<4x16xf32>) -> tensor<4x16xf32>
    %4 = stablehlo.custom_call @SPMDShardToFullShape(%3) {backend_config = "unspecified_dims=[0,1]", mhlo.sharding = "{devices=[2,1,4]<=[8] last_tile_dim_replicate}"} : (tensor<4x16xf32>) -> tensor<8x16xf32>
    return %4 : tensor<8x16xf32>
  }
  func.func private @shmap_body(%arg0: tensor<4x16xf32>) -> (tensor<4x16xf32> {jax.result_info = "[('x',), None]"}) {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.reduce(%arg0 init: %cst) applies stablehlo.add across dimensions = [0, 1] : (tensor<4x16xf32>, tensor<f32>) -> tensor<f32>
    %1 = stablehlo.custom_call @Sharding(%0) {backend_config = "", mhlo.sharding = "{devices=[2,4]<=[8] last_tile_dims={manual, replicated}}"} : (tensor<f32>) -> tensor<f32>
    %2 = "stablehlo.all_reduce"(%1) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 4], [1, 5], [2, 6], [3, 7]]> : tensor<4x2xi64>, use_global_device_ids}> ({
    ^bb0(%arg1: tensor<f32>, %arg2: tensor<f32>):
      %8 = stablehlo.add %arg1, %arg2 : tensor<f32>
      %9 = stablehlo.custom_call @Sharding(%8) {backend_config = "", mhlo.sharding = "{devices=[2,4]<=[8] last_tile_dims={manual, replicated}}"} : (tensor<f32>) -> tensor<f32>
      stablehlo.return %9 : tensor<f32>
    }) : (tensor<f32>) -> tensor<f32>
    %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %3 = stablehlo.compare GT, %2, %cst_0, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
    %4 = stablehlo.convert %3 : (tensor<i1>) -> tensor<i32>
    %5 = stablehlo.custom_call @Sharding(%4) {backend_config = "", mhlo.sharding = "{devices=[2,4]<=[8] last_tile_dims={manual, replicated}}"} : (tensor<i32>) -> tensor<i32>
    %6 = "stablehlo.case"(%5) ({
      %cst_1 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
      %8 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f32>) -> tensor<4x16xf32>
      %9 = stablehlo.custom_call @Sharding(%8) {backend_config = "unspecified_dims=[0,1]", mhlo.sharding = "{devices=[1,1,2,4]<=[8] last_tile_dims={manual, replicated}}"} : (tensor<4x16xf32>) -> tensor<4x16xf32>
      %10 = stablehlo.multiply %arg0, %9 : tensor<4x16xf32>
      %11 = stablehlo.custom_call @Sharding(%10) {backend_config = "unspecified_dims=[0,1]", mhlo.sharding = "{devices=[1,1,2,4]<=[8] last_tile_dims={manual, replicated}}"} : (tensor<4x16xf32>) -> tensor<4x16xf32>
      stablehlo.return %11 : tensor<4x16xf32>
    }, {
      %8 = "stablehlo.all_reduce"(%arg0) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 4], [1, 5], [2, 6], [3, 7]]> : tensor<4x2xi64>, use_global_device_ids}> ({
      ^bb0(%arg1: tensor<f32>, %arg2: tensor<f32>):
        %9 = stablehlo.add %arg1, %arg2 : tensor<f32>
        %10 = stablehlo.custom_call @Sharding(%9) {backend_config = "", mhlo.sharding = "{devices=[2,4]<=[8] last_tile_dims={manual, replicated}}"} : (tensor<f32>) -> tensor<f32>
        stablehlo.return %10 : tensor<f32>
      }) : (tensor<4x16xf32>) -> tensor<4x16xf32>
      stablehlo.return %8 : tensor<4x16xf32>
    }) : (tensor<i32>) -> tensor<4x16xf32>
    %7 = stablehlo.custom_call @Sharding(%6) {backend_config = "unspecified_dims=[0,1]", mhlo.sharding = "{devices=[1,1,2,4]<=[8] last_tile_dims={manual, replicated}}"} : (tensor<4x16xf32>) -> tensor<4x16xf32>
    return %7 : tensor<4x16xf32>
  }
}
