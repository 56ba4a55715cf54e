module @jit_body attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<64x4xf32>, %arg1: tensor<8x8xi32>, %arg2: tensor<8x8xi32>, %arg3: tensor<8x8xi32>, %arg4: tensor<8x8xi32>) -> (tensor<64x4xf32> {jax.result_info = "result"}) {
    %0 = stablehlo.custom_call @Sharding(%arg0) {backend_config = "", mhlo.sharding = "{devices=[8,1]<=[8]}"} : (tensor<64x4xf32>) -> tensor<64x4xf32>
    %1 = stablehlo.custom_call @SPMDFullToShardShape(%0) {backend_config = "", mhlo.sharding = "{manual}"} : (tensor<64x4xf32>) -> tensor<8x4xf32>
    %2 = stablehlo.custom_call @Sharding(%arg1) {backend_config = "", mhlo.sharding = "{devices=[8,1]<=[8]}"} : (tensor<8x8xi32>) -> tensor<8x8xi32>
    %3 = stablehlo.custom_call @SPMDFullToShardShape(%2) {backend_config = "", mhlo.sharding = "{manual}"} : (tensor<8x8xi32>) -> tensor<1x8xi32>
    %4 = stablehlo.custom_call @Sharding(%arg2) {backend_config = "", mhlo.sharding = "{devices=[8,1]<=[8]}"} : (tensor<8x8xi32>) -> tensor<8x8xi32>
    %5 = stablehlo.custom_call @SPMDFullToShardShape(%4) {backend_config = "", mhlo.sharding = "{manual}"} : (tensor<8x8xi32>) -> tensor<1x8xi32>
    %6 = stablehlo.custom_call @Sharding(%arg3) {backend_config = "", mhlo.sharding = "{devices=[8,1]<=[8]}"} : (tensor<8x8xi32>) -> tensor<8x8xi32>
    %7 = stablehlo.custom_call @SPMDFullToShardShape(%6) {backend_config = "", mhlo.sharding = "{manual}"} : (tensor<8x8xi32>) -> tensor<1x8xi32>
    %8 = stablehlo.custom_call @Sharding(%arg4) {backend_config = "", mhlo.sharding = "{devices=[8,1]<=[8]}"} : (tensor<8x8xi32>) -> tensor<8x8xi32>
    %9 = stablehlo.custom_call @SPMDFullToShardShape(%8) {backend_config = "", mhlo.sharding = "{manual}"} : (tensor<8x8xi32>) -> tensor<1x8xi32>
    %10 = call @shmap_body(%1, %3, %5, %7, %9) : (tensor<8x4xf32>, tensor<1x8xi32>, tensor<1x8xi32>, tensor<1x8xi32>, tensor<1x8xi32>) -> tensor<8x4xf32>
    %11 = stablehlo.custom_call @Sharding(%10) {backend_config = "", mhlo.sharding = "{manual}"} : (tensor<8x4xf32>) -> tensor<8x4xf32>
    %12 = stablehlo.custom_call @SPMDShardToFullShape(%11) {backend_config = "", mhlo.sharding = "{devices=[8,1]<=[8]}"} : (tensor<8x4xf32>) -> tensor<64x4xf32>
    return %12 : tensor<64x4xf32>
  }
  func.func private @shmap_body(%arg0: tensor<8x4xf32>, %arg1: tensor<1x8xi32>, %arg2: tensor<1x8xi32>, %arg3: tensor<1x8xi32>, %arg4: tensor<1x8xi32>) -> (tensor<8x4xf32> {jax.result_info = "[('x',), None]"}) {
    %c = stablehlo.constant dense<1> : tensor<ui32>
    %c_0 = stablehlo.constant dense<8> : tensor<ui32>
    %0 = stablehlo.partition_id : tensor<ui32>
    %1 = stablehlo.divide %0, %c : tensor<ui32>
    %2 = stablehlo.remainder %1, %c_0 : tensor<ui32>
    %3 = stablehlo.convert %2 : (tensor<ui32>) -> tensor<i32>
    %c_1 = stablehlo.constant dense<0> : tensor<i32>
    %4 = stablehlo.compare EQ, %3, %c_1, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %5 = stablehlo.convert %4 : (tensor<i1>) -> tensor<i32>
    %6 = "stablehlo.case"(%5) ({
      stablehlo.return %arg0 : tensor<8x4xf32>
    }, {
      %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %7 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<8x4xf32>
      %8 = stablehlo.reshape %arg1 : (tensor<1x8xi32>) -> tensor<8xi32>
      %9 = stablehlo.reshape %arg2 : (tensor<1x8xi32>) -> tensor<8xi32>
      %10 = stablehlo.reshape %arg3 : (tensor<1x8xi32>) -> tensor<8xi32>
      %11 = stablehlo.reshape %arg4 : (tensor<1x8xi32>) -> tensor<8xi32>
      %12 = stablehlo.custom_call @ragged_all_to_all(%arg0, %7, %8, %9, %10, %11) {api_version = 4 : i32, backend_config = {channel_id = 1 : i64, replica_groups = dense<[[0, 1, 2, 3, 4, 5, 6, 7]]> : tensor<1x8xi64>}} : (tensor<8x4xf32>, tensor<8x4xf32>, tensor<8xi32>, tensor<8xi32>, tensor<8xi32>, tensor<8xi32>) -> tensor<8x4xf32>
      stablehlo.return %12 : tensor<8x4xf32>
    }) : (tensor<i32>) -> tensor<8x4xf32>
    return %6 : tensor<8x4xf32>
  }
}
