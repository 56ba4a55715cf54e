module @jit_body attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["x"=8]> {stablehlo.mesh = {axes = [{name = "x", size = 8 : i64}]}}
  sdy.mesh @empty_mesh = <[]> {stablehlo.mesh = {axes = []}}
  func.func public @main(%arg0: tensor<8x4xf32>) -> (tensor<1x4xf32> {jax.result_info = "result"}) {
    %0 = sdy.manual_computation(%arg0) in_shardings=[<@mesh, [{"x"}, {}]>] out_shardings=[<@mesh, [{}, {}]>] manual_axes={"x"} (%arg1: tensor<1x4xf32>) {
      %1 = stablehlo.slice %arg1 [0:1, 0:1] : (tensor<1x4xf32>) -> tensor<1x1xf32>
      %2 = stablehlo.reshape %1 : (tensor<1x1xf32>) -> tensor<f32>
      stablehlo.custom_call @xla_ffi_python_cpu_callback(%2) {backend_config = "", has_side_effect = true, mhlo.backend_config = {index = 0 : ui64}, operand_layouts = [dense<> : tensor<0xindex>], result_layouts = [], sdy.sharding = #sdy.sharding_per_value<[<@empty_mesh, []>]>} : (tensor<f32>) -> ()
      %3 = "stablehlo.all_reduce"(%arg1) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1, 2, 3, 4, 5, 6, 7]]> : tensor<1x8xi64>, use_global_device_ids}> ({
      ^bb0(%arg2: tensor<f32>, %arg3: tensor<f32>):
        %4 = stablehlo.add %arg2, %arg3 : tensor<f32>
        stablehlo.return %4 : tensor<f32>
      }) : (tensor<1x4xf32>) -> tensor<1x4xf32>
      sdy.return %3 : tensor<1x4xf32>
    } : (tensor<8x4xf32>) -> tensor<1x4xf32>
    return %0 : tensor<1x4xf32>
  }
}
