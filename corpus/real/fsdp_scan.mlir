module @jit_body attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["x"=8]> {stablehlo.mesh = {axes = [{name = "x", size = 8 : i64}]}}
  func.func public @main(%arg0: tensor<3x16x16xf32>, %arg1: tensor<4x16xf32>) -> (tensor<4x16xf32> {jax.result_info = "result"}) {
    %0 = sdy.manual_computation(%arg0, %arg1) in_shardings=[<@mesh, [{}, {"x"}, {}]>, <@mesh, [{}, {}]>] out_shardings=[<@mesh, [{}, {}]>] manual_axes={"x"} (%arg2: tensor<3x2x16xf32>, %arg3: tensor<4x16xf32>) {
      %c = stablehlo.constant dense<0> : tensor<i32>
      %1:3 = stablehlo.while(%iterArg = %arg2, %iterArg_0 = %c, %iterArg_1 = %arg3) : tensor<3x2x16xf32>, tensor<i32>, tensor<4x16xf32>
      cond {
        %c_2 = stablehlo.constant dense<3> : tensor<i32>
        %2 = stablehlo.compare LT, %iterArg_0, %c_2, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
        stablehlo.return %2 : tensor<i1>
      } do {
        %2 = func.call @dynamic_index_in_dim(%iterArg, %iterArg_0) : (tensor<3x2x16xf32>, tensor<i32>) -> tensor<2x16xf32>
        %3 = func.call @closed_call(%iterArg_1, %2) : (tensor<4x16xf32>, tensor<2x16xf32>) -> tensor<4x16xf32>
        %c_2 = stablehlo.constant dense<1> : tensor<i32>
        %4 = stablehlo.add %iterArg_0, %c_2 : tensor<i32>
        stablehlo.return %iterArg, %4, %3 : tensor<3x2x16xf32>, tensor<i32>, tensor<4x16xf32>
      }
      sdy.return %1#2 : tensor<4x16xf32>
    } : (tensor<3x16x16xf32>, tensor<4x16xf32>) -> tensor<4x16xf32>
    return %0 : tensor<4x16xf32>
  }
  func.func private @dynamic_index_in_dim(%arg0: tensor<3x2x16xf32>, %arg1: tensor<i32>) -> tensor<2x16xf32> {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %c_0 = stablehlo.constant dense<0> : tensor<i32>
    %0 = stablehlo.dynamic_slice %arg0, %arg1, %c, %c_0, sizes = [1, 2, 16] : (tensor<3x2x16xf32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<1x2x16xf32>
    %1 = stablehlo.reshape %0 : (tensor<1x2x16xf32>) -> tensor<2x16xf32>
    return %1 : tensor<2x16xf32>
  }
  func.func private @closed_call(%arg0: tensor<4x16xf32>, %arg1: tensor<2x16xf32>) -> tensor<4x16xf32> {
    %0 = "stablehlo.all_gather"(%arg1) <{all_gather_dim = 0 : i64, channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1, 2, 3, 4, 5, 6, 7]]> : tensor<1x8xi64>, use_global_device_ids}> : (tensor<2x16xf32>) -> tensor<16x16xf32>
    %1 = stablehlo.dot_general %arg0, %0, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<4x16xf32>, tensor<16x16xf32>) -> tensor<4x16xf32>
    %2 = stablehlo.tanh %1 : tensor<4x16xf32>
    return %2 : tensor<4x16xf32>
  }
}
