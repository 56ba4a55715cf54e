module @jit_body attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<8xf32>) -> (tensor<8xf32> {jax.result_info = "result"}) {
    %0 = stablehlo.custom_call @Sharding(%arg0) {backend_config = "", mhlo.sharding = "{devices=[8]<=[8]}"} : (tensor<8xf32>) -> tensor<8xf32>
    %1 = stablehlo.custom_call @SPMDFullToShardShape(%0) {backend_config = "", mhlo.sharding = "{manual}"} : (tensor<8xf32>) -> tensor<1xf32>
    %2 = call @shmap_body(%1) : (tensor<1xf32>) -> tensor<1xf32>
    %3 = stablehlo.custom_call @Sharding(%2) {backend_config = "", mhlo.sharding = "{manual}"} : (tensor<1xf32>) -> tensor<1xf32>
    %4 = stablehlo.custom_call @SPMDShardToFullShape(%3) {backend_config = "", mhlo.sharding = "{devices=[8]<=[8]}"} : (tensor<1xf32>) -> tensor<8xf32>
    return %4 : tensor<8xf32>
  }
  func.func private @shmap_body(%arg0: tensor<1xf32>) -> (tensor<1xf32> {jax.result_info = "[('x',)]"}) {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %0:2 = stablehlo.while(%iterArg = %arg0, %iterArg_0 = %c) : tensor<1xf32>, tensor<i32>
    cond {
      %1 = stablehlo.abs %iterArg : tensor<1xf32>
      %cst = stablehlo.constant dense<0xFF800000> : tensor<f32>
      %2 = stablehlo.reduce(%1 init: %cst) applies stablehlo.maximum across dimensions = [0] : (tensor<1xf32>, tensor<f32>) -> tensor<f32>
      %3 = "stablehlo.all_reduce"(%2) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1, 2, 3, 4, 5, 6, 7]]> : tensor<1x8xi64>, use_global_device_ids}> ({
      ^bb0(%arg1: tensor<f32>, %arg2: tensor<f32>):
        %5 = stablehlo.maximum %arg1, %arg2 : tensor<f32>
        stablehlo.return %5 : tensor<f32>
      }) : (tensor<f32>) -> tensor<f32>
      %cst_1 = stablehlo.constant dense<1.000000e-03> : tensor<f32>
      %4 = stablehlo.compare GT, %3, %cst_1, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      stablehlo.return %4 : tensor<i1>
    } do {
      %1 = "stablehlo.all_reduce"(%iterArg) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1, 2, 3, 4, 5, 6, 7]]> : tensor<1x8xi64>, use_global_device_ids}> ({
      ^bb0(%arg1: tensor<f32>, %arg2: tensor<f32>):
        %5 = stablehlo.add %arg1, %arg2 : tensor<f32>
        stablehlo.return %5 : tensor<f32>
      }) : (tensor<1xf32>) -> tensor<1xf32>
      %cst = stablehlo.constant dense<1.000000e-01> : tensor<f32>
      %2 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<1xf32>
      %3 = stablehlo.multiply %1, %2 : tensor<1xf32>
      %c_1 = stablehlo.constant dense<1> : tensor<i32>
      %4 = stablehlo.add %iterArg_0, %c_1 : tensor<i32>
      stablehlo.return %3, %4 : tensor<1xf32>, tensor<i32>
    }
    return %0#0 : tensor<1xf32>
  }
}
