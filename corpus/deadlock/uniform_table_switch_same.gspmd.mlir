module @jit_body attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<32xf32>) -> (tensor<32xf32> {jax.result_info = "result"}) {
    %c = stablehlo.constant dense<1> : tensor<8xi32>
    %0 = stablehlo.custom_call @Sharding(%c) {backend_config = "", mhlo.sharding = "{replicated}"} : (tensor<8xi32>) -> tensor<8xi32>
    %1 = stablehlo.custom_call @SPMDFullToShardShape(%0) {backend_config = "", mhlo.sharding = "{manual}"} : (tensor<8xi32>) -> tensor<8xi32>
    %2 = stablehlo.custom_call @Sharding(%arg0) {backend_config = "", mhlo.sharding = "{devices=[8]<=[8]}"} : (tensor<32xf32>) -> tensor<32xf32>
    %3 = stablehlo.custom_call @SPMDFullToShardShape(%2) {backend_config = "", mhlo.sharding = "{manual}"} : (tensor<32xf32>) -> tensor<4xf32>
    %4 = call @shmap_body(%1, %3) : (tensor<8xi32>, tensor<4xf32>) -> tensor<4xf32>
    %5 = stablehlo.custom_call @Sharding(%4) {backend_config = "", mhlo.sharding = "{manual}"} : (tensor<4xf32>) -> tensor<4xf32>
    %6 = stablehlo.custom_call @SPMDShardToFullShape(%5) {backend_config = "", mhlo.sharding = "{devices=[8]<=[8]}"} : (tensor<4xf32>) -> tensor<32xf32>
    return %6 : tensor<32xf32>
  }
  func.func private @shmap_body(%arg0: tensor<8xi32>, %arg1: tensor<4xf32>) -> (tensor<4xf32> {jax.result_info = "[('x',)]"}) {
    %c = stablehlo.constant dense<1> : tensor<ui32>
    %c_0 = stablehlo.constant dense<8> : tensor<ui32>
    %0 = stablehlo.partition_id : tensor<ui32>
    %1 = stablehlo.divide %0, %c : tensor<ui32>
    %2 = stablehlo.remainder %1, %c_0 : tensor<ui32>
    %3 = stablehlo.convert %2 : (tensor<ui32>) -> tensor<i32>
    %c_1 = stablehlo.constant dense<0> : tensor<i32>
    %4 = stablehlo.compare LT, %3, %c_1, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %c_2 = stablehlo.constant dense<8> : tensor<i32>
    %5 = stablehlo.add %3, %c_2 : tensor<i32>
    %6 = stablehlo.select %4, %5, %3 : tensor<i1>, tensor<i32>
    %7 = stablehlo.dynamic_slice %arg0, %6, sizes = [1] : (tensor<8xi32>, tensor<i32>) -> tensor<1xi32>
    %8 = stablehlo.reshape %7 : (tensor<1xi32>) -> tensor<i32>
    %c_3 = stablehlo.constant dense<0> : tensor<i32>
    %c_4 = stablehlo.constant dense<1> : tensor<i32>
    %9 = stablehlo.clamp %c_3, %8, %c_4 : tensor<i32>
    %10 = "stablehlo.case"(%9) ({
      %11 = "stablehlo.all_reduce"(%arg1) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1, 2, 3, 4, 5, 6, 7]]> : tensor<1x8xi64>, use_global_device_ids}> ({
      ^bb0(%arg2: tensor<f32>, %arg3: tensor<f32>):
        %12 = stablehlo.add %arg2, %arg3 : tensor<f32>
        stablehlo.return %12 : tensor<f32>
      }) : (tensor<4xf32>) -> tensor<4xf32>
      stablehlo.return %11 : tensor<4xf32>
    }, {
      %11 = "stablehlo.all_gather"(%arg1) <{all_gather_dim = 0 : i64, channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1, 2, 3, 4, 5, 6, 7]]> : tensor<1x8xi64>, use_global_device_ids}> : (tensor<4xf32>) -> tensor<32xf32>
      %12 = stablehlo.reshape %11 : (tensor<32xf32>) -> tensor<8x4xf32>
      %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %13 = stablehlo.reduce(%12 init: %cst) applies stablehlo.add across dimensions = [0] : (tensor<8x4xf32>, tensor<f32>) -> tensor<4xf32>
      stablehlo.return %13 : tensor<4xf32>
    }) : (tensor<i32>) -> tensor<4xf32>
    return %10 : tensor<4xf32>
  }
}
