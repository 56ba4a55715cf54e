module @jit_body attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["x"=8]> {stablehlo.mesh = {axes = [{name = "x", size = 8 : i64}]}}
  func.func public @main(%arg0: tensor<64x8xf32>) -> (tensor<512x8xf32> {jax.result_info = "result[0]"}, tensor<8x8xf32> {jax.result_info = "result[1]"}, tensor<64x8xf32> {jax.result_info = "result[2]"}, tensor<64x8xf32> {jax.result_info = "result[3]"}, tensor<64x8xf32> {jax.result_info = "result[4]"}, tensor<64x8xf32> {jax.result_info = "result[5]"}) {
    %0:6 = sdy.manual_computation(%arg0) in_shardings=[<@mesh, [{"x"}, {}]>] out_shardings=[<@mesh, [{"x"}, {}]>, <@mesh, [{"x"}, {}]>, <@mesh, [{"x"}, {}]>, <@mesh, [{"x"}, {}]>, <@mesh, [{"x"}, {}]>, <@mesh, [{"x"}, {}]>] manual_axes={"x"} (%arg1: tensor<8x8xf32>) {
      %1 = "stablehlo.async_start"(%arg1) ({
      ^bb0(%arg2: tensor<8x8xf32>):
        %13 = "stablehlo.all_gather"(%arg2) <{all_gather_dim = 0 : i64, channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1, 2, 3, 4, 5, 6, 7]]> : tensor<1x8xi64>, use_global_device_ids}> : (tensor<8x8xf32>) -> tensor<64x8xf32>
        stablehlo.return %13 : tensor<64x8xf32>
      }) : (tensor<8x8xf32>) -> !stablehlo.future<tensor<64x8xf32>>
      %2 = "stablehlo.async_start"(%arg1) ({
      ^bb0(%arg2: tensor<8x8xf32>):
        %13 = "stablehlo.reduce_scatter"(%arg2) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1, 2, 3, 4, 5, 6, 7]]> : tensor<1x8xi64>, scatter_dimension = 0 : i64, use_global_device_ids}> ({
        ^bb0(%arg3: tensor<f32>, %arg4: tensor<f32>):
          %14 = stablehlo.add %arg3, %arg4 : tensor<f32>
          stablehlo.return %14 : tensor<f32>
        }) : (tensor<8x8xf32>) -> tensor<1x8xf32>
        stablehlo.return %13 : tensor<1x8xf32>
      }) : (tensor<8x8xf32>) -> !stablehlo.future<tensor<1x8xf32>>
      %3 = "stablehlo.async_start"(%arg1) ({
      ^bb0(%arg2: tensor<8x8xf32>):
        %13 = "stablehlo.all_to_all"(%arg2) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, concat_dimension = 0 : i64, replica_groups = dense<[[0, 1, 2, 3, 4, 5, 6, 7]]> : tensor<1x8xi64>, split_count = 8 : i64, split_dimension = 0 : i64}> : (tensor<8x8xf32>) -> tensor<8x8xf32>
        stablehlo.return %13 : tensor<8x8xf32>
      }) : (tensor<8x8xf32>) -> !stablehlo.future<tensor<8x8xf32>>
      %4 = "stablehlo.async_start"(%arg1) ({
      ^bb0(%arg2: tensor<8x8xf32>):
        %13 = "stablehlo.all_reduce"(%arg2) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1, 2, 3, 4, 5, 6, 7]]> : tensor<1x8xi64>, use_global_device_ids}> ({
        ^bb0(%arg3: tensor<f32>, %arg4: tensor<f32>):
          %14 = stablehlo.add %arg3, %arg4 : tensor<f32>
          stablehlo.return %14 : tensor<f32>
        }) : (tensor<8x8xf32>) -> tensor<8x8xf32>
        stablehlo.return %13 : tensor<8x8xf32>
      }) : (tensor<8x8xf32>) -> !stablehlo.future<tensor<8x8xf32>>
      %5 = "stablehlo.async_start"(%arg1) ({
      ^bb0(%arg2: tensor<8x8xf32>):
        %13 = "stablehlo.collective_permute"(%arg2) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, source_target_pairs = dense<[[0, 1], [1, 2], [2, 3], [3, 4], [4, 5], [5, 6], [6, 7], [7, 0]]> : tensor<8x2xi64>}> : (tensor<8x8xf32>) -> tensor<8x8xf32>
        stablehlo.return %13 : tensor<8x8xf32>
      }) : (tensor<8x8xf32>) -> !stablehlo.future<tensor<8x8xf32>>
      %6 = "stablehlo.async_start"(%arg1) ({
      ^bb0(%arg2: tensor<8x8xf32>):
        %13 = "stablehlo.collective_broadcast"(%arg2) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1, 2, 3, 4, 5, 6, 7]]> : tensor<1x8xi64>}> : (tensor<8x8xf32>) -> tensor<8x8xf32>
        stablehlo.return %13 : tensor<8x8xf32>
      }) : (tensor<8x8xf32>) -> !stablehlo.future<tensor<8x8xf32>>
      %7 = "stablehlo.async_done"(%1) : (!stablehlo.future<tensor<64x8xf32>>) -> tensor<64x8xf32>
      %8 = "stablehlo.async_done"(%2) : (!stablehlo.future<tensor<1x8xf32>>) -> tensor<1x8xf32>
      %9 = "stablehlo.async_done"(%3) : (!stablehlo.future<tensor<8x8xf32>>) -> tensor<8x8xf32>
      %10 = "stablehlo.async_done"(%4) : (!stablehlo.future<tensor<8x8xf32>>) -> tensor<8x8xf32>
      %11 = "stablehlo.async_done"(%5) : (!stablehlo.future<tensor<8x8xf32>>) -> tensor<8x8xf32>
      %12 = "stablehlo.async_done"(%6) : (!stablehlo.future<tensor<8x8xf32>>) -> tensor<8x8xf32>
      sdy.return %7, %8, %9, %10, %11, %12 : tensor<64x8xf32>, tensor<1x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>
    } : (tensor<64x8xf32>) -> (tensor<512x8xf32>, tensor<8x8xf32>, tensor<64x8xf32>, tensor<64x8xf32>, tensor<64x8xf32>, tensor<64x8xf32>)
    return %0#0, %0#1, %0#2, %0#3, %0#4, %0#5 : tensor<512x8xf32>, tensor<8x8xf32>, tensor<64x8xf32>, tensor<64x8xf32>, tensor<64x8xf32>, tensor<64x8xf32>
  }
}
