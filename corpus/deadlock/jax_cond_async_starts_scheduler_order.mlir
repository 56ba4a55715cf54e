// JAX export (corpus/deadlock/jax_exports.py): aborted on XLA:CPU (expected 8 participants, 4 arrived): both branches start the psum first, but XLA's scheduler issues the all_gather first in the branch whose psum operand needs more work.
module @jit_same_order attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["x"=8]> {stablehlo.mesh = {axes = [{name = "x", size = 8 : i64}]}}
  func.func public @main(%arg0: tensor<32x8xf32>, %arg1: tensor<32x8xf32>) -> (tensor<32x8xf32> {jax.result_info = "result[0]"}, tensor<256x8xf32> {jax.result_info = "result[1]"}) {
    %0:2 = sdy.manual_computation(%arg0, %arg1) in_shardings=[<@mesh, [{"x"}, {}]>, <@mesh, [{"x"}, {}]>] out_shardings=[<@mesh, [{"x"}, {}]>, <@mesh, [{"x"}, {}]>] manual_axes={"x"} (%arg2: tensor<4x8xf32>, %arg3: tensor<4x8xf32>) {
      %c = stablehlo.constant dense<1> : tensor<ui32>
      %c_0 = stablehlo.constant dense<8> : tensor<ui32>
      %1 = stablehlo.partition_id : tensor<ui32>
      %2 = stablehlo.divide %1, %c : tensor<ui32>
      %3 = stablehlo.remainder %2, %c_0 : tensor<ui32>
      %4 = stablehlo.convert %3 : (tensor<ui32>) -> tensor<i32>
      %c_1 = stablehlo.constant dense<4> : tensor<i32>
      %5 = stablehlo.compare LT, %4, %c_1, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      %6 = stablehlo.convert %5 : (tensor<i1>) -> tensor<i32>
      %7:2 = "stablehlo.case"(%6) ({
        %8 = stablehlo.transpose %arg2, dims = [1, 0] : (tensor<4x8xf32>) -> tensor<8x4xf32>
        %9 = stablehlo.dot_general %arg2, %8, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<4x8xf32>, tensor<8x4xf32>) -> tensor<4x4xf32>
        %10 = stablehlo.dot_general %9, %arg2, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<4x4xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
        %11 = stablehlo.tanh %10 : tensor<4x8xf32>
        %12 = "stablehlo.async_start"(%11) ({
        ^bb0(%arg4: tensor<4x8xf32>):
          %16 = "stablehlo.all_reduce"(%arg4) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1, 2, 3, 4, 5, 6, 7]]> : tensor<1x8xi64>, use_global_device_ids}> ({
          ^bb0(%arg5: tensor<f32>, %arg6: tensor<f32>):
            %17 = stablehlo.add %arg5, %arg6 : tensor<f32>
            stablehlo.return %17 : tensor<f32>
          }) : (tensor<4x8xf32>) -> tensor<4x8xf32>
          stablehlo.return %16 : tensor<4x8xf32>
        }) : (tensor<4x8xf32>) -> !stablehlo.future<tensor<4x8xf32>>
        %13 = "stablehlo.async_start"(%arg3) ({
        ^bb0(%arg4: tensor<4x8xf32>):
          %16 = "stablehlo.all_gather"(%arg4) <{all_gather_dim = 0 : i64, channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1, 2, 3, 4, 5, 6, 7]]> : tensor<1x8xi64>, use_global_device_ids}> : (tensor<4x8xf32>) -> tensor<32x8xf32>
          stablehlo.return %16 : tensor<32x8xf32>
        }) : (tensor<4x8xf32>) -> !stablehlo.future<tensor<32x8xf32>>
        %14 = "stablehlo.async_done"(%12) : (!stablehlo.future<tensor<4x8xf32>>) -> tensor<4x8xf32>
        %15 = "stablehlo.async_done"(%13) : (!stablehlo.future<tensor<32x8xf32>>) -> tensor<32x8xf32>
        stablehlo.return %14, %15 : tensor<4x8xf32>, tensor<32x8xf32>
      }, {
        %8 = "stablehlo.async_start"(%arg2) ({
        ^bb0(%arg4: tensor<4x8xf32>):
          %16 = "stablehlo.all_reduce"(%arg4) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1, 2, 3, 4, 5, 6, 7]]> : tensor<1x8xi64>, use_global_device_ids}> ({
          ^bb0(%arg5: tensor<f32>, %arg6: tensor<f32>):
            %17 = stablehlo.add %arg5, %arg6 : tensor<f32>
            stablehlo.return %17 : tensor<f32>
          }) : (tensor<4x8xf32>) -> tensor<4x8xf32>
          stablehlo.return %16 : tensor<4x8xf32>
        }) : (tensor<4x8xf32>) -> !stablehlo.future<tensor<4x8xf32>>
        %9 = stablehlo.transpose %arg3, dims = [1, 0] : (tensor<4x8xf32>) -> tensor<8x4xf32>
        %10 = stablehlo.dot_general %arg3, %9, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<4x8xf32>, tensor<8x4xf32>) -> tensor<4x4xf32>
        %11 = stablehlo.dot_general %10, %arg3, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<4x4xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
        %12 = stablehlo.tanh %11 : tensor<4x8xf32>
        %13 = "stablehlo.async_start"(%12) ({
        ^bb0(%arg4: tensor<4x8xf32>):
          %16 = "stablehlo.all_gather"(%arg4) <{all_gather_dim = 0 : i64, channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1, 2, 3, 4, 5, 6, 7]]> : tensor<1x8xi64>, use_global_device_ids}> : (tensor<4x8xf32>) -> tensor<32x8xf32>
          stablehlo.return %16 : tensor<32x8xf32>
        }) : (tensor<4x8xf32>) -> !stablehlo.future<tensor<32x8xf32>>
        %14 = "stablehlo.async_done"(%8) : (!stablehlo.future<tensor<4x8xf32>>) -> tensor<4x8xf32>
        %15 = "stablehlo.async_done"(%13) : (!stablehlo.future<tensor<32x8xf32>>) -> tensor<32x8xf32>
        stablehlo.return %14, %15 : tensor<4x8xf32>, tensor<32x8xf32>
      }) : (tensor<i32>) -> (tensor<4x8xf32>, tensor<32x8xf32>)
      sdy.return %7#0, %7#1 : tensor<4x8xf32>, tensor<32x8xf32>
    } : (tensor<32x8xf32>, tensor<32x8xf32>) -> (tensor<32x8xf32>, tensor<256x8xf32>)
    return %0#0, %0#1 : tensor<32x8xf32>, tensor<256x8xf32>
  }
}
