module @jit_body attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @empty_mesh = <[]> {stablehlo.mesh = {axes = []}}
  sdy.mesh @mesh = <["x"=8]> {stablehlo.mesh = {axes = [{name = "x", size = 8 : i64}]}}
  func.func public @main(%arg0: tensor<i1> {sdy.sharding = #sdy.sharding<@empty_mesh, []>}, %arg1: tensor<32xf32>) -> (tensor<32xf32> {jax.result_info = "result"}) {
    %0 = sdy.manual_computation(%arg0, %arg1) in_shardings=[<@mesh, []>, <@mesh, [{"x"}]>] out_shardings=[<@mesh, [{"x"}]>] manual_axes={"x"} (%arg2: tensor<i1>, %arg3: tensor<4xf32>) {
      %1 = stablehlo.convert %arg2 : (tensor<i1>) -> tensor<i32>
      %2 = "stablehlo.case"(%1) ({
        %3 = "stablehlo.all_reduce"(%arg3) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1, 2, 3, 4, 5, 6, 7]]> : tensor<1x8xi64>, use_global_device_ids}> ({
        ^bb0(%arg4: tensor<f32>, %arg5: tensor<f32>):
          %6 = stablehlo.maximum %arg4, %arg5 : tensor<f32>
          stablehlo.return %6 : tensor<f32>
        }) : (tensor<4xf32>) -> tensor<4xf32>
        %cst = stablehlo.constant dense<2.000000e+00> : tensor<f32>
        %4 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<4xf32>
        %5 = stablehlo.multiply %3, %4 : tensor<4xf32>
        stablehlo.return %5 : tensor<4xf32>
      }, {
        %3 = "stablehlo.all_reduce"(%arg3) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1, 2, 3, 4, 5, 6, 7]]> : tensor<1x8xi64>, use_global_device_ids}> ({
        ^bb0(%arg4: tensor<f32>, %arg5: tensor<f32>):
          %4 = stablehlo.add %arg4, %arg5 : tensor<f32>
          stablehlo.return %4 : tensor<f32>
        }) : (tensor<4xf32>) -> tensor<4xf32>
        stablehlo.return %3 : tensor<4xf32>
      }) : (tensor<i32>) -> tensor<4xf32>
      sdy.return %2 : tensor<4xf32>
    } : (tensor<i1>, tensor<32xf32>) -> tensor<32xf32>
    return %0 : tensor<32xf32>
  }
}
