module @jit_f attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["x"=8]> {stablehlo.mesh = {axes = [{name = "x", size = 8 : i64}]}}
  func.func public @main(%arg0: tensor<3x16x16xf32>, %arg1: tensor<4x16xf32>) -> (tensor<4x16xf32> {jax.result_info = "result"}) {
    %0 = call @f(%arg0, %arg1) : (tensor<3x16x16xf32>, tensor<4x16xf32>) -> tensor<4x16xf32>
    return %0 : tensor<4x16xf32>
  }
  func.func private @f(%arg0: tensor<3x16x16xf32>, %arg1: tensor<4x16xf32>) -> tensor<4x16xf32> {
    %0 = sdy.sharding_constraint %arg0 <@mesh, [{}, {}, {"x"}]> : tensor<3x16x16xf32>
    %1 = sdy.sharding_constraint %arg1 <@mesh, [{}, {}]> : tensor<4x16xf32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %2:3 = stablehlo.while(%iterArg = %0, %iterArg_0 = %c, %iterArg_1 = %1) : tensor<3x16x16xf32>, tensor<i32>, tensor<4x16xf32>
    cond {
      %c_2 = stablehlo.constant dense<3> : tensor<i32>
      %4 = stablehlo.compare LT, %iterArg_0, %c_2, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %4 : tensor<i1>
    } do {
      %4 = func.call @dynamic_index_in_dim(%iterArg, %iterArg_0) : (tensor<3x16x16xf32>, tensor<i32>) -> tensor<16x16xf32>
      %5 = func.call @closed_call(%iterArg_1, %4) : (tensor<4x16xf32>, tensor<16x16xf32>) -> tensor<4x16xf32>
      %c_2 = stablehlo.constant dense<1> : tensor<i32>
      %6 = stablehlo.add %iterArg_0, %c_2 : tensor<i32>
      stablehlo.return %iterArg, %6, %5 : tensor<3x16x16xf32>, tensor<i32>, tensor<4x16xf32>
    }
    %3 = sdy.sharding_constraint %2#2 <@mesh, [{}, {}]> : tensor<4x16xf32>
    return %3 : tensor<4x16xf32>
  }
  func.func private @dynamic_index_in_dim(%arg0: tensor<3x16x16xf32>, %arg1: tensor<i32>) -> tensor<16x16xf32> {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %c_0 = stablehlo.constant dense<0> : tensor<i32>
    %0 = stablehlo.dynamic_slice %arg0, %arg1, %c, %c_0, sizes = [1, 16, 16] : (tensor<3x16x16xf32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<1x16x16xf32>
    %1 = stablehlo.reshape %0 : (tensor<1x16x16xf32>) -> tensor<16x16xf32>
    return %1 : tensor<16x16xf32>
  }
  func.func private @closed_call(%arg0: tensor<4x16xf32>, %arg1: tensor<16x16xf32>) -> tensor<4x16xf32> {
    %0 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<4x16xf32>, tensor<16x16xf32>) -> tensor<4x16xf32>
    %1 = stablehlo.tanh %0 : tensor<4x16xf32>
    %2 = sdy.sharding_constraint %1 <@mesh, [{}, {}]> : tensor<4x16xf32>
    return %2 : tensor<4x16xf32>
  }
}
