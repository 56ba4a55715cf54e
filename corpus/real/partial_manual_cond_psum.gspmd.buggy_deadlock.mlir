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
    %0 = call @shmap_body_0() : () -> tensor<i32>
    %1 = stablehlo.custom_call @Sharding(%0) {backend_config = "", mhlo.sharding = "{manual}"} : (tensor<i32>) -> tensor<i32>
    %2 = stablehlo.custom_call @SPMDShardToFullShape(%1) {backend_config = "", mhlo.sharding = "{devices=[2,4]<=[8] last_tile_dims={manual, replicated}}"} : (tensor<i32>) -> tensor<i32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %3 = stablehlo.compare EQ, %2, %c, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %4 = stablehlo.convert %3 : (tensor<i1>) -> tensor<i32>
    %5 = stablehlo.custom_call @Sharding(%4) {backend_config = "", mhlo.sharding = "{devices=[2,4]<=[8] last_tile_dims={manual, replicated}}"} : (tensor<i32>) -> tensor<i32>
    %6 = "stablehlo.case"(%5) ({
      %cst = stablehlo.constant dense<2.000000e+00> : tensor<f32>
      %8 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<4x16xf32>
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
  func.func private @shmap_body_0() -> (tensor<i32> {jax.result_info = "[]"}) {
    %c = stablehlo.constant dense<4> : tensor<ui32>
    %c_0 = stablehlo.constant dense<2> : tensor<ui32>
    %0 = stablehlo.partition_id : tensor<ui32>
    %1 = stablehlo.divide %0, %c : tensor<ui32>
    %2 = stablehlo.remainder %1, %c_0 : tensor<ui32>
    %3 = stablehlo.convert %2 : (tensor<ui32>) -> tensor<i32>
    return %3 : tensor<i32>
  }
}
