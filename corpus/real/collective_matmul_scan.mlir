module @jit_body attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["x"=8]> {stablehlo.mesh = {axes = [{name = "x", size = 8 : i64}]}}
  func.func public @main(%arg0: tensor<32x16xf32>, %arg1: tensor<16x32xf32>) -> (tensor<32x32xf32> {jax.result_info = "result"}) {
    %0 = sdy.manual_computation(%arg0, %arg1) in_shardings=[<@mesh, [{"x"}, {}]>, <@mesh, [{}, {"x"}]>] out_shardings=[<@mesh, [{}, {"x"}]>] manual_axes={"x"} (%arg2: tensor<4x16xf32>, %arg3: tensor<16x4xf32>) {
      %c = stablehlo.constant dense<1> : tensor<ui32>
      %c_0 = stablehlo.constant dense<8> : tensor<ui32>
      %1 = stablehlo.partition_id : tensor<ui32>
      %2 = stablehlo.divide %1, %c : tensor<ui32>
      %3 = stablehlo.remainder %2, %c_0 : tensor<ui32>
      %4 = stablehlo.convert %3 : (tensor<ui32>) -> tensor<i32>
      %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %5 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<32x4xf32>
      %6 = stablehlo.iota dim = 0 : tensor<8xi32>
      %c_1 = stablehlo.constant dense<0> : tensor<i32>
      %7:6 = stablehlo.while(%iterArg = %6, %iterArg_2 = %4, %iterArg_3 = %arg3, %iterArg_4 = %c_1, %iterArg_5 = %arg2, %iterArg_6 = %5) : tensor<8xi32>, tensor<i32>, tensor<16x4xf32>, tensor<i32>, tensor<4x16xf32>, tensor<32x4xf32>
      cond {
        %c_7 = stablehlo.constant dense<8> : tensor<i32>
        %8 = stablehlo.compare LT, %iterArg_4, %c_7, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
        stablehlo.return %8 : tensor<i1>
      } do {
        %8 = func.call @dynamic_index_in_dim(%iterArg, %iterArg_4) : (tensor<8xi32>, tensor<i32>) -> tensor<i32>
        %9:2 = func.call @closed_call(%iterArg_2, %iterArg_3, %iterArg_5, %iterArg_6, %8) : (tensor<i32>, tensor<16x4xf32>, tensor<4x16xf32>, tensor<32x4xf32>, tensor<i32>) -> (tensor<4x16xf32>, tensor<32x4xf32>)
        %c_7 = stablehlo.constant dense<1> : tensor<i32>
        %10 = stablehlo.add %iterArg_4, %c_7 : tensor<i32>
        stablehlo.return %iterArg, %iterArg_2, %iterArg_3, %10, %9#0, %9#1 : tensor<8xi32>, tensor<i32>, tensor<16x4xf32>, tensor<i32>, tensor<4x16xf32>, tensor<32x4xf32>
      }
      sdy.return %7#5 : tensor<32x4xf32>
    } : (tensor<32x16xf32>, tensor<16x32xf32>) -> tensor<32x32xf32>
    return %0 : tensor<32x32xf32>
  }
  func.func private @dynamic_index_in_dim(%arg0: tensor<8xi32>, %arg1: tensor<i32>) -> tensor<i32> {
    %0 = stablehlo.dynamic_slice %arg0, %arg1, sizes = [1] : (tensor<8xi32>, tensor<i32>) -> tensor<1xi32>
    %1 = stablehlo.reshape %0 : (tensor<1xi32>) -> tensor<i32>
    return %1 : tensor<i32>
  }
  func.func private @closed_call(%arg0: tensor<i32>, %arg1: tensor<16x4xf32>, %arg2: tensor<4x16xf32>, %arg3: tensor<32x4xf32>, %arg4: tensor<i32>) -> (tensor<4x16xf32>, tensor<32x4xf32>) {
    %0 = stablehlo.subtract %arg0, %arg4 : tensor<i32>
    %c = stablehlo.constant dense<8> : tensor<i32>
    %1 = call @remainder(%0, %c) : (tensor<i32>, tensor<i32>) -> tensor<i32>
    %2 = stablehlo.dot_general %arg2, %arg1, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<4x16xf32>, tensor<16x4xf32>) -> tensor<4x4xf32>
    %c_0 = stablehlo.constant dense<4> : tensor<i32>
    %3 = stablehlo.multiply %1, %c_0 : tensor<i32>
    %c_1 = stablehlo.constant dense<0> : tensor<i32>
    %4 = stablehlo.compare LT, %3, %c_1, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %c_2 = stablehlo.constant dense<32> : tensor<i32>
    %5 = stablehlo.add %3, %c_2 : tensor<i32>
    %6 = stablehlo.select %4, %5, %3 : tensor<i1>, tensor<i32>
    %c_3 = stablehlo.constant dense<0> : tensor<i32>
    %7 = stablehlo.dynamic_update_slice %arg3, %2, %6, %c_3 : (tensor<32x4xf32>, tensor<4x4xf32>, tensor<i32>, tensor<i32>) -> tensor<32x4xf32>
    %8 = "stablehlo.collective_permute"(%arg2) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, source_target_pairs = dense<[[0, 1], [1, 2], [2, 3], [3, 4], [4, 5], [5, 6], [6, 7], [7, 0]]> : tensor<8x2xi64>}> : (tensor<4x16xf32>) -> tensor<4x16xf32>
    return %8, %7 : tensor<4x16xf32>, tensor<32x4xf32>
  }
  func.func private @remainder(%arg0: tensor<i32>, %arg1: tensor<i32>) -> tensor<i32> {
    %0 = stablehlo.convert %arg1 : tensor<i32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %1 = stablehlo.compare EQ, %0, %c, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %c_0 = stablehlo.constant dense<1> : tensor<i32>
    %2 = call @_where(%1, %c_0, %0) : (tensor<i1>, tensor<i32>, tensor<i32>) -> tensor<i32>
    %3 = stablehlo.remainder %arg0, %2 : tensor<i32>
    %c_1 = stablehlo.constant dense<0> : tensor<i32>
    %4 = stablehlo.compare NE, %3, %c_1, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %c_2 = stablehlo.constant dense<0> : tensor<i32>
    %5 = stablehlo.compare LT, %3, %c_2, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %c_3 = stablehlo.constant dense<0> : tensor<i32>
    %6 = stablehlo.compare LT, %2, %c_3, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %7 = stablehlo.compare NE, %5, %6, UNSIGNED : (tensor<i1>, tensor<i1>) -> tensor<i1>
    %8 = stablehlo.and %7, %4 : tensor<i1>
    %9 = stablehlo.add %3, %2 : tensor<i32>
    %10 = stablehlo.select %8, %9, %3 : tensor<i1>, tensor<i32>
    return %10 : tensor<i32>
  }
  func.func private @_where(%arg0: tensor<i1>, %arg1: tensor<i32>, %arg2: tensor<i32>) -> tensor<i32> {
    %0 = stablehlo.select %arg0, %arg1, %arg2 : tensor<i1>, tensor<i32>
    return %0 : tensor<i32>
  }
}
