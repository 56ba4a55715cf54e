module @jit_body attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["x"=8]> {stablehlo.mesh = {axes = [{name = "x", size = 8 : i64}]}}
  func.func public @main(%arg0: tensor<8x16x16xf32>, %arg1: tensor<4x2x16xf32>) -> (tensor<8x4x2x16xf32> {jax.result_info = "result"}) {
    %0 = sdy.manual_computation(%arg0, %arg1) in_shardings=[<@mesh, [{"x"}, {}, {}]>, <@mesh, [{}, {}, {}]>] out_shardings=[<@mesh, [{"x"}, {}, {}, {}]>] manual_axes={"x"} (%arg2: tensor<1x16x16xf32>, %arg3: tensor<4x2x16xf32>) {
      %1 = stablehlo.reshape %arg2 : (tensor<1x16x16xf32>) -> tensor<16x16xf32>
      %c = stablehlo.constant dense<1> : tensor<ui32>
      %c_0 = stablehlo.constant dense<8> : tensor<ui32>
      %2 = stablehlo.partition_id : tensor<ui32>
      %3 = stablehlo.divide %2, %c : tensor<ui32>
      %4 = stablehlo.remainder %3, %c_0 : tensor<ui32>
      %5 = stablehlo.convert %4 : (tensor<ui32>) -> tensor<i32>
      %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %6 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<2x16xf32>
      %cst_1 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %7 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f32>) -> tensor<4x2x16xf32>
      %c_2 = stablehlo.constant dense<0> : tensor<i32>
      %c_3 = stablehlo.constant dense<0> : tensor<i32>
      %8:7 = stablehlo.while(%iterArg = %arg3, %iterArg_4 = %5, %iterArg_5 = %1, %iterArg_6 = %c_3, %iterArg_7 = %c_2, %iterArg_8 = %6, %iterArg_9 = %7) : tensor<4x2x16xf32>, tensor<i32>, tensor<16x16xf32>, tensor<i32>, tensor<i32>, tensor<2x16xf32>, tensor<4x2x16xf32>
      cond {
        %c_10 = stablehlo.constant dense<11> : tensor<i32>
        %10 = stablehlo.compare LT, %iterArg_6, %c_10, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
        stablehlo.return %10 : tensor<i1>
      } do {
        %10:3 = func.call @closed_call(%iterArg, %iterArg_4, %iterArg_5, %iterArg_7, %iterArg_8, %iterArg_9) : (tensor<4x2x16xf32>, tensor<i32>, tensor<16x16xf32>, tensor<i32>, tensor<2x16xf32>, tensor<4x2x16xf32>) -> (tensor<i32>, tensor<2x16xf32>, tensor<4x2x16xf32>)
        %c_10 = stablehlo.constant dense<1> : tensor<i32>
        %11 = stablehlo.add %iterArg_6, %c_10 : tensor<i32>
        stablehlo.return %iterArg, %iterArg_4, %iterArg_5, %11, %10#0, %10#1, %10#2 : tensor<4x2x16xf32>, tensor<i32>, tensor<16x16xf32>, tensor<i32>, tensor<i32>, tensor<2x16xf32>, tensor<4x2x16xf32>
      }
      %9 = stablehlo.broadcast_in_dim %8#6, dims = [1, 2, 3] : (tensor<4x2x16xf32>) -> tensor<1x4x2x16xf32>
      sdy.return %9 : tensor<1x4x2x16xf32>
    } : (tensor<8x16x16xf32>, tensor<4x2x16xf32>) -> tensor<8x4x2x16xf32>
    return %0 : tensor<8x4x2x16xf32>
  }
  func.func private @closed_call(%arg0: tensor<4x2x16xf32>, %arg1: tensor<i32>, %arg2: tensor<16x16xf32>, %arg3: tensor<i32>, %arg4: tensor<2x16xf32>, %arg5: tensor<4x2x16xf32>) -> (tensor<i32>, tensor<2x16xf32>, tensor<4x2x16xf32>) {
    %c = stablehlo.constant dense<1> : tensor<i32>
    %0 = stablehlo.add %arg3, %c : tensor<i32>
    %c_0 = stablehlo.constant dense<3> : tensor<i32>
    %1 = stablehlo.minimum %arg3, %c_0 : tensor<i32>
    %2 = stablehlo.convert %1 : tensor<i32>
    %c_1 = stablehlo.constant dense<0> : tensor<i32>
    %3 = stablehlo.compare LT, %2, %c_1, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %c_2 = stablehlo.constant dense<4> : tensor<i32>
    %4 = stablehlo.add %2, %c_2 : tensor<i32>
    %5 = stablehlo.select %3, %4, %2 : tensor<i1>, tensor<i32>
    %c_3 = stablehlo.constant dense<0> : tensor<i32>
    %c_4 = stablehlo.constant dense<0> : tensor<i32>
    %6 = stablehlo.compare LT, %c_3, %c_4, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %c_5 = stablehlo.constant dense<0> : tensor<i32>
    %c_6 = stablehlo.constant dense<2> : tensor<i32>
    %7 = stablehlo.add %c_5, %c_6 : tensor<i32>
    %c_7 = stablehlo.constant dense<0> : tensor<i32>
    %8 = stablehlo.select %6, %7, %c_7 : tensor<i1>, tensor<i32>
    %c_8 = stablehlo.constant dense<0> : tensor<i32>
    %c_9 = stablehlo.constant dense<0> : tensor<i32>
    %9 = stablehlo.compare LT, %c_8, %c_9, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %c_10 = stablehlo.constant dense<0> : tensor<i32>
    %c_11 = stablehlo.constant dense<16> : tensor<i32>
    %10 = stablehlo.add %c_10, %c_11 : tensor<i32>
    %c_12 = stablehlo.constant dense<0> : tensor<i32>
    %11 = stablehlo.select %9, %10, %c_12 : tensor<i1>, tensor<i32>
    %12 = stablehlo.dynamic_slice %arg0, %5, %8, %11, sizes = [1, 2, 16] : (tensor<4x2x16xf32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<1x2x16xf32>
    %13 = stablehlo.reshape %12 : (tensor<1x2x16xf32>) -> tensor<2x16xf32>
    %c_13 = stablehlo.constant dense<0> : tensor<i32>
    %14 = stablehlo.compare EQ, %arg1, %c_13, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %15 = call @_where(%14, %13, %arg4) : (tensor<i1>, tensor<2x16xf32>, tensor<2x16xf32>) -> tensor<2x16xf32>
    %16 = stablehlo.dot_general %15, %arg2, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<2x16xf32>, tensor<16x16xf32>) -> tensor<2x16xf32>
    %17 = stablehlo.tanh %16 : tensor<2x16xf32>
    %c_14 = stablehlo.constant dense<7> : tensor<i32>
    %18 = stablehlo.subtract %arg3, %c_14 : tensor<i32>
    %c_15 = stablehlo.constant dense<0> : tensor<i32>
    %c_16 = stablehlo.constant dense<3> : tensor<i32>
    %19 = call @clip(%18, %c_15, %c_16) : (tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<i32>
    %20 = call @dynamic_update_index_in_dim(%arg5, %17, %19) : (tensor<4x2x16xf32>, tensor<2x16xf32>, tensor<i32>) -> tensor<4x2x16xf32>
    %21 = "stablehlo.collective_permute"(%17) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, source_target_pairs = dense<[[0, 1], [1, 2], [2, 3], [3, 4], [4, 5], [5, 6], [6, 7], [7, 0]]> : tensor<8x2xi64>}> : (tensor<2x16xf32>) -> tensor<2x16xf32>
    return %0, %21, %20 : tensor<i32>, tensor<2x16xf32>, tensor<4x2x16xf32>
  }
  func.func private @_where(%arg0: tensor<i1>, %arg1: tensor<2x16xf32>, %arg2: tensor<2x16xf32>) -> tensor<2x16xf32> {
    %0 = stablehlo.select %arg0, %arg1, %arg2 : tensor<i1>, tensor<2x16xf32>
    return %0 : tensor<2x16xf32>
  }
  func.func private @clip(%arg0: tensor<i32>, %arg1: tensor<i32>, %arg2: tensor<i32>) -> tensor<i32> {
    %0 = stablehlo.maximum %arg1, %arg0 : tensor<i32>
    %1 = stablehlo.minimum %arg2, %0 : tensor<i32>
    return %1 : tensor<i32>
  }
  func.func private @dynamic_update_index_in_dim(%arg0: tensor<4x2x16xf32>, %arg1: tensor<2x16xf32>, %arg2: tensor<i32>) -> tensor<4x2x16xf32> {
    %0 = stablehlo.broadcast_in_dim %arg1, dims = [1, 2] : (tensor<2x16xf32>) -> tensor<1x2x16xf32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %1 = stablehlo.compare LT, %arg2, %c, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %2 = stablehlo.convert %arg2 : tensor<i32>
    %c_0 = stablehlo.constant dense<4> : tensor<i32>
    %3 = stablehlo.add %2, %c_0 : tensor<i32>
    %4 = stablehlo.select %1, %3, %arg2 : tensor<i1>, tensor<i32>
    %c_1 = stablehlo.constant dense<0> : tensor<i32>
    %c_2 = stablehlo.constant dense<0> : tensor<i32>
    %5 = stablehlo.dynamic_update_slice %arg0, %0, %4, %c_1, %c_2 : (tensor<4x2x16xf32>, tensor<1x2x16xf32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<4x2x16xf32>
    return %5 : tensor<4x2x16xf32>
  }
}
