module @jit_body attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 0x7fffffff : i32} {
  func.func public @main(%arg0: tensor<32x16xf32>, %arg1: tensor<16x16xf32>) -> (tensor<32x16xf32> {jax.result_info = "result"}) {
    %0 = stablehlo.custom_call @Sharding(%arg0) {backend_config = "", mhlo.sharding = "{devices=[8,1]<=[8]}"} : (tensor<32x16xf32>) -> tensor<32x16xf32>
    %0 = "stablehlo.async_start"(%arg0) ({
    ^bb0(%arg2: tensor<4x16xf32>):
      %5 = "stablehlo.all_reduce"(%arg2) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1, 2, 3, 4, 5, 6, 7]]> : tensor<1x8xi64>, use_global_device_ids}> ({
      }) : (tensor<4x16xf32>) -> tensor<4x16xf32>
      stablehlo.return %5 : tensor<4x16xf32>
    }) : (tensor<4x16xf32>) -> !stablehlo.future<tensor<4x16xf32>>
    %1 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<4x16xf32>, tensor<16x16xf32>) -> tensor<4x16xf32>
  }
}