module @jit__lambda attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["hosts"=2, "local"=4]> {stablehlo.mesh = {axes = [{name = "hosts", size = 2 : i64}, {name = "local", size = 4 : i64}]}}
  func.func public @main(%arg0: tensor<8x4xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"hosts", "local"}, {}]>}) -> (tensor<8x4xf32> {jax.result_info = "result"}) {
    %0 = sdy.manual_computation(%arg0) in_shardings=[<@mesh, [{"hosts", "local"}, {}]>] out_shardings=[<@mesh, [{"hosts", "local"}, {}]>] manual_axes={"hosts", "local"} (%arg1: tensor<1x4xf32>) {
      %c = stablehlo.constant dense<0> : tensor<i32>
      %1:2 = stablehlo.while(%iterArg = %c, %iterArg_0 = %arg1) : tensor<i32>, tensor<1x4xf32>
      cond {
        %c_1 = stablehlo.constant dense<3> : tensor<i32>
        %2 = stablehlo.compare LT, %iterArg, %c_1, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
        stablehlo.return %2 : tensor<i1>
      } do {
        %2 = func.call @closed_call(%iterArg_0) : (tensor<1x4xf32>) -> tensor<1x4xf32>
        %c_1 = stablehlo.constant dense<1> : tensor<i32>
        %3 = stablehlo.add %iterArg, %c_1 : tensor<i32>
        stablehlo.return %3, %2 : tensor<i32>, tensor<1x4xf32>
      }
      sdy.return %1#1 : tensor<1x4xf32>
    } : (tensor<8x4xf32>) -> tensor<8x4xf32>
    return %0 : tensor<8x4xf32>
  }
  func.func private @closed_call(%arg0: tensor<1x4xf32>) -> tensor<1x4xf32> {
    %0 = "stablehlo.all_reduce"(%arg0) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 4], [1, 5], [2, 6], [3, 7]]> : tensor<4x2xi64>, use_global_device_ids}> ({
    ^bb0(%arg1: tensor<f32>, %arg2: tensor<f32>):
      %3 = stablehlo.add %arg1, %arg2 : tensor<f32>
      stablehlo.return %3 : tensor<f32>
    }) : (tensor<1x4xf32>) -> tensor<1x4xf32>
    %cst = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %1 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<1x4xf32>
    %2 = stablehlo.divide %0, %1 : tensor<1x4xf32>
    return %2 : tensor<1x4xf32>
  }
}
