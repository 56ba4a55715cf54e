module @jit_body attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<8x4xf32>) -> (tensor<8x4xf32> {jax.result_info = "result"}) {
    %0 = stablehlo.custom_call @Sharding(%arg0) {backend_config = "", mhlo.sharding = "{devices=[8,1]<=[8]}"} : (tensor<8x4xf32>) -> tensor<8x4xf32>
    %1 = stablehlo.custom_call @SPMDFullToShardShape(%0) {backend_config = "", mhlo.sharding = "{manual}"} : (tensor<8x4xf32>) -> tensor<1x4xf32>
    %2 = call @shmap_body(%1) : (tensor<1x4xf32>) -> tensor<1x4xf32>
    %3 = stablehlo.custom_call @Sharding(%2) {backend_config = "", mhlo.sharding = "{manual}"} : (tensor<1x4xf32>) -> tensor<1x4xf32>
    %4 = stablehlo.custom_call @SPMDShardToFullShape(%3) {backend_config = "", mhlo.sharding = "{devices=[8,1]<=[8]}"} : (tensor<1x4xf32>) -> tensor<8x4xf32>
    return %4 : tensor<8x4xf32>
  }
  func.func private @shmap_body(%arg0: tensor<1x4xf32>) -> (tensor<1x4xf32> {jax.result_info = "[('x', 'y'), None]"}) {
    %0 = stablehlo.abs %arg0 : tensor<1x4xf32>
    %cst = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %1 = stablehlo.reduce(%0 init: %cst) applies stablehlo.maximum across dimensions = [0, 1] : (tensor<1x4xf32>, tensor<f32>) -> tensor<f32>
    %2:2 = stablehlo.while(%iterArg = %arg0, %iterArg_0 = %1) : tensor<1x4xf32>, tensor<f32>
    cond {
      %3 = "stablehlo.all_reduce"(%iterArg_0) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1, 2, 3], [4, 5, 6, 7]]> : tensor<2x4xi64>, use_global_device_ids}> ({
      ^bb0(%arg1: tensor<f32>, %arg2: tensor<f32>):
        %5 = stablehlo.maximum %arg1, %arg2 : tensor<f32>
        stablehlo.return %5 : tensor<f32>
      }) : (tensor<f32>) -> tensor<f32>
      %cst_1 = stablehlo.constant dense<1.000000e-03> : tensor<f32>
      %4 = stablehlo.compare GT, %3, %cst_1, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      stablehlo.return %4 : tensor<i1>
    } do {
      %3 = "stablehlo.all_reduce"(%iterArg) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1, 2, 3], [4, 5, 6, 7]]> : tensor<2x4xi64>, use_global_device_ids}> ({
      ^bb0(%arg1: tensor<f32>, %arg2: tensor<f32>):
        %8 = stablehlo.add %arg1, %arg2 : tensor<f32>
        stablehlo.return %8 : tensor<f32>
      }) : (tensor<1x4xf32>) -> tensor<1x4xf32>
      %cst_1 = stablehlo.constant dense<6.250000e-02> : tensor<f32>
      %4 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f32>) -> tensor<1x4xf32>
      %5 = stablehlo.multiply %3, %4 : tensor<1x4xf32>
      %6 = stablehlo.abs %5 : tensor<1x4xf32>
      %cst_2 = stablehlo.constant dense<0xFF800000> : tensor<f32>
      %7 = stablehlo.reduce(%6 init: %cst_2) applies stablehlo.maximum across dimensions = [0, 1] : (tensor<1x4xf32>, tensor<f32>) -> tensor<f32>
      stablehlo.return %5, %7 : tensor<1x4xf32>, tensor<f32>
    }
    return %2#0 : tensor<1x4xf32>
  }
}
