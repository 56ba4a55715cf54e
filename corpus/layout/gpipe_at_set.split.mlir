module @jit_body attributes {mhlo.num_partitions = 8
      : i32,
      mhlo.num_replicas = 1
      : i32} {
  sdy.mesh @mesh = <["x"=8]> {stablehlo.mesh = {axes = [{name = "x",
      size = 8
      : i64}]}}
  func.func public @main(%arg0: tensor<8x2x16x16xf32>,
      %arg1: tensor<4x2x16xf32>) ->
      (tensor<8x4x2x16xf32> {jax.result_info = "result"}) {
    %0 = sdy.manual_computation(%arg0,
      %arg1) in_shardings=[<@mesh,
      [{"x"},
      {},
      {},
      {}]>,
      <@mesh,
      [{},
      {},
      {}]>] out_shardings=[<@mesh,
      [{"x"},
      {},
      {},
      {}]>] manual_axes={"x"} (%arg2: tensor<1x2x16x16xf32>,
      %arg3: tensor<4x2x16xf32>) {
      %1 = stablehlo.reshape %arg2
      : (tensor<1x2x16x16xf32>) ->
      tensor<2x16x16xf32>
      %c = stablehlo.constant dense<1>
      : tensor<ui32>
      %c_0 = stablehlo.constant dense<8>
      : tensor<ui32>
      %2 = stablehlo.partition_id
      : tensor<ui32>
      %3 = stablehlo.divide %2,
      %c
      : tensor<ui32>
      %4 = stablehlo.remainder %3,
      %c_0
      : tensor<ui32>
      %5 = stablehlo.convert %4
      : (tensor<ui32>) ->
      tensor<i32>
      %cst = stablehlo.constant dense<0.000000e+00>
      : tensor<f32>
      %6 = stablehlo.broadcast_in_dim %cst,
      dims = []
      : (tensor<f32>) ->
      tensor<2x2x16xf32>
      %cst_1 = stablehlo.constant dense<0.000000e+00>
      : tensor<f32>
      %7 = stablehlo.broadcast_in_dim %cst_1,
      dims = []
      : (tensor<f32>) ->
      tensor<4x2x16xf32>
      %c_2 = stablehlo.constant dense<0>
      : tensor<i32>
      %c_3 = stablehlo.constant dense<0>
      : tensor<i32>
      %8:7 = stablehlo.while(%iterArg = %arg3,
      %iterArg_4 = %5,
      %iterArg_5 = %1,
      %iterArg_6 = %c_3,
      %iterArg_7 = %c_2,
      %iterArg_8 = %6,
      %iterArg_9 = %7)
      : tensor<4x2x16xf32>,
      tensor<i32>,
      tensor<2x16x16xf32>,
      tensor<i32>,
      tensor<i32>,
      tensor<2x2x16xf32>,
      tensor<4x2x16xf32>
      cond {
        %c_10 = stablehlo.constant dense<11>
      : tensor<i32>
        %10 = stablehlo.compare LT,
      %iterArg_6,
      %c_10,
      SIGNED
      : (tensor<i32>,
      tensor<i32>) ->
      tensor<i1>
        stablehlo.return %10
      : tensor<i1>
      } do {
        %10:3 = func.call @closed_call(%iterArg,
      %iterArg_4,
      %iterArg_5,
      %iterArg_7,
      %iterArg_8,
      %iterArg_9)
      : (tensor<4x2x16xf32>,
      tensor<i32>,
      tensor<2x16x16xf32>,
      tensor<i32>,
      tensor<2x2x16xf32>,
      tensor<4x2x16xf32>) ->
      (tensor<i32>,
      tensor<2x2x16xf32>,
      tensor<4x2x16xf32>)
        %c_10 = stablehlo.constant dense<1>
      : tensor<i32>
        %11 = stablehlo.add %iterArg_6,
      %c_10
      : tensor<i32>
        stablehlo.return %iterArg,
      %iterArg_4,
      %iterArg_5,
      %11,
      %10#0,
      %10#1,
      %10#2
      : tensor<4x2x16xf32>,
      tensor<i32>,
      tensor<2x16x16xf32>,
      tensor<i32>,
      tensor<i32>,
      tensor<2x2x16xf32>,
      tensor<4x2x16xf32>
      }
      %9 = stablehlo.broadcast_in_dim %8#6,
      dims = [1,
      2,
      3]
      : (tensor<4x2x16xf32>) ->
      tensor<1x4x2x16xf32>
      sdy.return %9
      : tensor<1x4x2x16xf32>
    }
      : (tensor<8x2x16x16xf32>,
      tensor<4x2x16xf32>) ->
      tensor<8x4x2x16xf32>
    return %0
      : tensor<8x4x2x16xf32>
  }
  func.func private @closed_call(%arg0: tensor<4x2x16xf32>,
      %arg1: tensor<i32>,
      %arg2: tensor<2x16x16xf32>,
      %arg3: tensor<i32>,
      %arg4: tensor<2x2x16xf32>,
      %arg5: tensor<4x2x16xf32>) ->
      (tensor<i32>,
      tensor<2x2x16xf32>,
      tensor<4x2x16xf32>) {
    %c = stablehlo.constant dense<1>
      : tensor<i32>
    %0 = stablehlo.add %arg3,
      %c
      : tensor<i32>
    %c_0 = stablehlo.constant dense<4>
      : tensor<i32>
    %1 = call @remainder(%arg3,
      %c_0)
      : (tensor<i32>,
      tensor<i32>) ->
      tensor<i32>
    %2 = call @_take(%arg0,
      %1)
      : (tensor<4x2x16xf32>,
      tensor<i32>) ->
      tensor<2x16xf32>
    %c_1 = stablehlo.constant dense<0>
      : tensor<i32>
    %3 = stablehlo.compare EQ,
      %arg1,
      %c_1,
      SIGNED
      : (tensor<i32>,
      tensor<i32>) ->
      tensor<i1>
    %4 = stablehlo.slice %arg4 [0:1,
      0:2,
      0:16]
      : (tensor<2x2x16xf32>) ->
      tensor<1x2x16xf32>
    %5 = stablehlo.reshape %4
      : (tensor<1x2x16xf32>) ->
      tensor<2x16xf32>
    %6 = call @_where_1(%3,
      %2,
      %5)
      : (tensor<i1>,
      tensor<2x16xf32>,
      tensor<2x16xf32>) ->
      tensor<2x16xf32>
    %c_2 = stablehlo.constant dense<0>
      : tensor<i32>
    %7 = stablehlo.broadcast_in_dim %c_2,
      dims = []
      : (tensor<i32>) ->
      tensor<1xi32>
    %8 = "stablehlo.scatter"(%arg4,
      %7,
      %6) <{indices_are_sorted = true,
      scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [0,
      1],
      inserted_window_dims = [0],
      scatter_dims_to_operand_dims = [0]>,
      unique_indices = true}> ({
    ^bb0(%arg6: tensor<f32>,
      %arg7: tensor<f32>):
      stablehlo.return %arg7
      : tensor<f32>
    })
      : (tensor<2x2x16xf32>,
      tensor<1xi32>,
      tensor<2x16xf32>) ->
      tensor<2x2x16xf32>
    %9 = stablehlo.slice %8 [0:1,
      0:2,
      0:16]
      : (tensor<2x2x16xf32>) ->
      tensor<1x2x16xf32>
    %10 = stablehlo.reshape %9
      : (tensor<1x2x16xf32>) ->
      tensor<2x16xf32>
    %11 = stablehlo.slice %arg2 [0:1,
      0:16,
      0:16]
      : (tensor<2x16x16xf32>) ->
      tensor<1x16x16xf32>
    %12 = stablehlo.reshape %11
      : (tensor<1x16x16xf32>) ->
      tensor<16x16xf32>
    %13 = stablehlo.dot_general %10,
      %12,
      contracting_dims = [1] x [0],
      precision = [DEFAULT,
      DEFAULT]
      : (tensor<2x16xf32>,
      tensor<16x16xf32>) ->
      tensor<2x16xf32>
    %14 = stablehlo.tanh %13
      : tensor<2x16xf32>
    %c_3 = stablehlo.constant dense<0>
      : tensor<i32>
    %15 = stablehlo.broadcast_in_dim %c_3,
      dims = []
      : (tensor<i32>) ->
      tensor<1xi32>
    %16 = "stablehlo.scatter"(%8,
      %15,
      %14) <{indices_are_sorted = true,
      scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [0,
      1],
      inserted_window_dims = [0],
      scatter_dims_to_operand_dims = [0]>,
      unique_indices = true}> ({
    ^bb0(%arg6: tensor<f32>,
      %arg7: tensor<f32>):
      stablehlo.return %arg7
      : tensor<f32>
    })
      : (tensor<2x2x16xf32>,
      tensor<1xi32>,
      tensor<2x16xf32>) ->
      tensor<2x2x16xf32>
    %17 = stablehlo.slice %16 [1:2,
      0:2,
      0:16]
      : (tensor<2x2x16xf32>) ->
      tensor<1x2x16xf32>
    %18 = stablehlo.reshape %17
      : (tensor<1x2x16xf32>) ->
      tensor<2x16xf32>
    %19 = stablehlo.slice %arg2 [1:2,
      0:16,
      0:16]
      : (tensor<2x16x16xf32>) ->
      tensor<1x16x16xf32>
    %20 = stablehlo.reshape %19
      : (tensor<1x16x16xf32>) ->
      tensor<16x16xf32>
    %21 = stablehlo.dot_general %18,
      %20,
      contracting_dims = [1] x [0],
      precision = [DEFAULT,
      DEFAULT]
      : (tensor<2x16xf32>,
      tensor<16x16xf32>) ->
      tensor<2x16xf32>
    %22 = stablehlo.tanh %21
      : tensor<2x16xf32>
    %c_4 = stablehlo.constant dense<1>
      : tensor<i32>
    %23 = stablehlo.broadcast_in_dim %c_4,
      dims = []
      : (tensor<i32>) ->
      tensor<1xi32>
    %24 = "stablehlo.scatter"(%16,
      %23,
      %22) <{indices_are_sorted = true,
      scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [0,
      1],
      inserted_window_dims = [0],
      scatter_dims_to_operand_dims = [0]>,
      unique_indices = true}> ({
    ^bb0(%arg6: tensor<f32>,
      %arg7: tensor<f32>):
      stablehlo.return %arg7
      : tensor<f32>
    })
      : (tensor<2x2x16xf32>,
      tensor<1xi32>,
      tensor<2x16xf32>) ->
      tensor<2x2x16xf32>
    %c_5 = stablehlo.constant dense<8>
      : tensor<i32>
    %25 = stablehlo.subtract %arg3,
      %c_5
      : tensor<i32>
    %c_6 = stablehlo.constant dense<1>
      : tensor<i32>
    %26 = stablehlo.add %25,
      %c_6
      : tensor<i32>
    %c_7 = stablehlo.constant dense<4>
      : tensor<i32>
    %27 = call @remainder_2(%26,
      %c_7)
      : (tensor<i32>,
      tensor<i32>) ->
      tensor<i32>
    %c_8 = stablehlo.constant dense<7>
      : tensor<i32>
    %28 = stablehlo.compare EQ,
      %arg1,
      %c_8,
      SIGNED
      : (tensor<i32>,
      tensor<i32>) ->
      tensor<i1>
    %29 = stablehlo.slice %24 [1:2,
      0:2,
      0:16]
      : (tensor<2x2x16xf32>) ->
      tensor<1x2x16xf32>
    %30 = stablehlo.reshape %29
      : (tensor<1x2x16xf32>) ->
      tensor<2x16xf32>
    %31 = call @_take_3(%arg5,
      %27)
      : (tensor<4x2x16xf32>,
      tensor<i32>) ->
      tensor<2x16xf32>
    %32 = call @_where_4(%28,
      %30,
      %31)
      : (tensor<i1>,
      tensor<2x16xf32>,
      tensor<2x16xf32>) ->
      tensor<2x16xf32>
    %c_9 = stablehlo.constant dense<0>
      : tensor<i32>
    %33 = stablehlo.compare LT,
      %27,
      %c_9,
      SIGNED
      : (tensor<i32>,
      tensor<i32>) ->
      tensor<i1>
    %c_10 = stablehlo.constant dense<4>
      : tensor<i32>
    %34 = stablehlo.add %27,
      %c_10
      : tensor<i32>
    %35 = stablehlo.select %33,
      %34,
      %27
      : tensor<i1>,
      tensor<i32>
    %36 = stablehlo.convert %35
      : tensor<i32>
    %37 = stablehlo.broadcast_in_dim %36,
      dims = []
      : (tensor<i32>) ->
      tensor<1xi32>
    %38 = "stablehlo.scatter"(%arg5,
      %37,
      %32) <{indices_are_sorted = true,
      scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [0,
      1],
      inserted_window_dims = [0],
      scatter_dims_to_operand_dims = [0]>,
      unique_indices = true}> ({
    ^bb0(%arg6: tensor<f32>,
      %arg7: tensor<f32>):
      stablehlo.return %arg7
      : tensor<f32>
    })
      : (tensor<4x2x16xf32>,
      tensor<1xi32>,
      tensor<2x16xf32>) ->
      tensor<4x2x16xf32>
    %39 = stablehlo.slice %24 [1:2,
      0:2,
      0:16]
      : (tensor<2x2x16xf32>) ->
      tensor<1x2x16xf32>
    %40 = stablehlo.reshape %39
      : (tensor<1x2x16xf32>) ->
      tensor<2x16xf32>
    %41 = "stablehlo.collective_permute"(%40) <{channel_handle = #stablehlo.channel_handle<handle = 1,
      type = 1>,
      source_target_pairs = dense<[[0,
      1],
      [1,
      2],
      [2,
      3],
      [3,
      4],
      [4,
      5],
      [5,
      6],
      [6,
      7],
      [7,
      0]]>
      : tensor<8x2xi64>}>
      : (tensor<2x16xf32>) ->
      tensor<2x16xf32>
    %42 = call @_roll_static(%24)
      : (tensor<2x2x16xf32>) ->
      tensor<2x2x16xf32>
    %c_11 = stablehlo.constant dense<0>
      : tensor<i32>
    %43 = stablehlo.broadcast_in_dim %c_11,
      dims = []
      : (tensor<i32>) ->
      tensor<1xi32>
    %44 = "stablehlo.scatter"(%42,
      %43,
      %41) <{indices_are_sorted = true,
      scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [0,
      1],
      inserted_window_dims = [0],
      scatter_dims_to_operand_dims = [0]>,
      unique_indices = true}> ({
    ^bb0(%arg6: tensor<f32>,
      %arg7: tensor<f32>):
      stablehlo.return %arg7
      : tensor<f32>
    })
      : (tensor<2x2x16xf32>,
      tensor<1xi32>,
      tensor<2x16xf32>) ->
      tensor<2x2x16xf32>
    return %0,
      %44,
      %38
      : tensor<i32>,
      tensor<2x2x16xf32>,
      tensor<4x2x16xf32>
  }
  func.func private @remainder(%arg0: tensor<i32>,
      %arg1: tensor<i32>) ->
      tensor<i32> {
    %c = stablehlo.constant dense<0>
      : tensor<i32>
    %0 = stablehlo.compare EQ,
      %arg1,
      %c,
      SIGNED
      : (tensor<i32>,
      tensor<i32>) ->
      tensor<i1>
    %c_0 = stablehlo.constant dense<1>
      : tensor<i32>
    %1 = call @_where(%0,
      %c_0,
      %arg1)
      : (tensor<i1>,
      tensor<i32>,
      tensor<i32>) ->
      tensor<i32>
    %2 = stablehlo.remainder %arg0,
      %1
      : tensor<i32>
    %c_1 = stablehlo.constant dense<0>
      : tensor<i32>
    %3 = stablehlo.compare NE,
      %2,
      %c_1,
      SIGNED
      : (tensor<i32>,
      tensor<i32>) ->
      tensor<i1>
    %c_2 = stablehlo.constant dense<0>
      : tensor<i32>
    %4 = stablehlo.compare LT,
      %2,
      %c_2,
      SIGNED
      : (tensor<i32>,
      tensor<i32>) ->
      tensor<i1>
    %c_3 = stablehlo.constant dense<0>
      : tensor<i32>
    %5 = stablehlo.compare LT,
      %1,
      %c_3,
      SIGNED
      : (tensor<i32>,
      tensor<i32>) ->
      tensor<i1>
    %6 = stablehlo.compare NE,
      %4,
      %5,
      UNSIGNED
      : (tensor<i1>,
      tensor<i1>) ->
      tensor<i1>
    %7 = stablehlo.and %6,
      %3
      : tensor<i1>
    %8 = stablehlo.add %2,
      %1
      : tensor<i32>
    %9 = stablehlo.select %7,
      %8,
      %2
      : tensor<i1>,
      tensor<i32>
    return %9
      : tensor<i32>
  }
  func.func private @_where(%arg0: tensor<i1>,
      %arg1: tensor<i32>,
      %arg2: tensor<i32>) ->
      tensor<i32> {
    %0 = stablehlo.select %arg0,
      %arg1,
      %arg2
      : tensor<i1>,
      tensor<i32>
    return %0
      : tensor<i32>
  }
  func.func private @_take(%arg0: tensor<4x2x16xf32>,
      %arg1: tensor<i32>) ->
      tensor<2x16xf32> {
    %c = stablehlo.constant dense<0>
      : tensor<i32>
    %0 = stablehlo.compare LT,
      %arg1,
      %c,
      SIGNED
      : (tensor<i32>,
      tensor<i32>) ->
      tensor<i1>
    %c_0 = stablehlo.constant dense<4>
      : tensor<i32>
    %1 = stablehlo.add %arg1,
      %c_0
      : tensor<i32>
    %2 = call @_where_0(%0,
      %1,
      %arg1)
      : (tensor<i1>,
      tensor<i32>,
      tensor<i32>) ->
      tensor<i32>
    %3 = stablehlo.broadcast_in_dim %2,
      dims = []
      : (tensor<i32>) ->
      tensor<1xi32>
    %c_1 = stablehlo.constant dense<3>
      : tensor<1xi32>
    %4 = stablehlo.convert %3
      : tensor<1xi32>
    %c_2 = stablehlo.constant dense<0>
      : tensor<i32>
    %5 = stablehlo.broadcast_in_dim %c_2,
      dims = []
      : (tensor<i32>) ->
      tensor<1xi32>
    %6 = stablehlo.compare GE,
      %4,
      %5,
      SIGNED
      : (tensor<1xi32>,
      tensor<1xi32>) ->
      tensor<1xi1>
    %7 = stablehlo.compare LE,
      %4,
      %c_1,
      SIGNED
      : (tensor<1xi32>,
      tensor<1xi32>) ->
      tensor<1xi1>
    %8 = stablehlo.and %6,
      %7
      : tensor<1xi1>
    %c_3 = stablehlo.constant dense<true>
      : tensor<i1>
    %9 = stablehlo.reduce(%8 init: %c_3) applies stablehlo.and across dimensions = [0]
      : (tensor<1xi1>,
      tensor<i1>) ->
      tensor<i1>
    %10 = "stablehlo.gather"(%arg0,
      %4) <{dimension_numbers = #stablehlo.gather<offset_dims = [0,
      1],
      collapsed_slice_dims = [0],
      start_index_map = [0]>,
      indices_are_sorted = false,
      slice_sizes = array<i64: 1,
      2,
      16>}>
      : (tensor<4x2x16xf32>,
      tensor<1xi32>) ->
      tensor<2x16xf32>
    %11 = stablehlo.broadcast_in_dim %9,
      dims = []
      : (tensor<i1>) ->
      tensor<2x16xi1>
    %cst = stablehlo.constant dense<0x7FC00000>
      : tensor<f32>
    %12 = stablehlo.broadcast_in_dim %cst,
      dims = []
      : (tensor<f32>) ->
      tensor<2x16xf32>
    %13 = stablehlo.select %11,
      %10,
      %12
      : tensor<2x16xi1>,
      tensor<2x16xf32>
    return %13
      : tensor<2x16xf32>
  }
  func.func private @_where_0(%arg0: tensor<i1>,
      %arg1: tensor<i32>,
      %arg2: tensor<i32>) ->
      tensor<i32> {
    %0 = stablehlo.select %arg0,
      %arg1,
      %arg2
      : tensor<i1>,
      tensor<i32>
    return %0
      : tensor<i32>
  }
  func.func private @_where_1(%arg0: tensor<i1>,
      %arg1: tensor<2x16xf32>,
      %arg2: tensor<2x16xf32>) ->
      tensor<2x16xf32> {
    %0 = stablehlo.select %arg0,
      %arg1,
      %arg2
      : tensor<i1>,
      tensor<2x16xf32>
    return %0
      : tensor<2x16xf32>
  }
  func.func private @remainder_2(%arg0: tensor<i32>,
      %arg1: tensor<i32>) ->
      tensor<i32> {
    %c = stablehlo.constant dense<0>
      : tensor<i32>
    %0 = stablehlo.compare EQ,
      %arg1,
      %c,
      SIGNED
      : (tensor<i32>,
      tensor<i32>) ->
      tensor<i1>
    %c_0 = stablehlo.constant dense<1>
      : tensor<i32>
    %1 = call @_where(%0,
      %c_0,
      %arg1)
      : (tensor<i1>,
      tensor<i32>,
      tensor<i32>) ->
      tensor<i32>
    %2 = stablehlo.remainder %arg0,
      %1
      : tensor<i32>
    %c_1 = stablehlo.constant dense<0>
      : tensor<i32>
    %3 = stablehlo.compare NE,
      %2,
      %c_1,
      SIGNED
      : (tensor<i32>,
      tensor<i32>) ->
      tensor<i1>
    %c_2 = stablehlo.constant dense<0>
      : tensor<i32>
    %4 = stablehlo.compare LT,
      %2,
      %c_2,
      SIGNED
      : (tensor<i32>,
      tensor<i32>) ->
      tensor<i1>
    %c_3 = stablehlo.constant dense<0>
      : tensor<i32>
    %5 = stablehlo.compare LT,
      %1,
      %c_3,
      SIGNED
      : (tensor<i32>,
      tensor<i32>) ->
      tensor<i1>
    %6 = stablehlo.compare NE,
      %4,
      %5,
      UNSIGNED
      : (tensor<i1>,
      tensor<i1>) ->
      tensor<i1>
    %7 = stablehlo.and %6,
      %3
      : tensor<i1>
    %8 = stablehlo.add %2,
      %1
      : tensor<i32>
    %9 = stablehlo.select %7,
      %8,
      %2
      : tensor<i1>,
      tensor<i32>
    return %9
      : tensor<i32>
  }
  func.func private @_take_3(%arg0: tensor<4x2x16xf32>,
      %arg1: tensor<i32>) ->
      tensor<2x16xf32> {
    %c = stablehlo.constant dense<0>
      : tensor<i32>
    %0 = stablehlo.compare LT,
      %arg1,
      %c,
      SIGNED
      : (tensor<i32>,
      tensor<i32>) ->
      tensor<i1>
    %c_0 = stablehlo.constant dense<4>
      : tensor<i32>
    %1 = stablehlo.add %arg1,
      %c_0
      : tensor<i32>
    %2 = call @_where_0(%0,
      %1,
      %arg1)
      : (tensor<i1>,
      tensor<i32>,
      tensor<i32>) ->
      tensor<i32>
    %3 = stablehlo.broadcast_in_dim %2,
      dims = []
      : (tensor<i32>) ->
      tensor<1xi32>
    %c_1 = stablehlo.constant dense<3>
      : tensor<1xi32>
    %4 = stablehlo.convert %3
      : tensor<1xi32>
    %c_2 = stablehlo.constant dense<0>
      : tensor<i32>
    %5 = stablehlo.broadcast_in_dim %c_2,
      dims = []
      : (tensor<i32>) ->
      tensor<1xi32>
    %6 = stablehlo.compare GE,
      %4,
      %5,
      SIGNED
      : (tensor<1xi32>,
      tensor<1xi32>) ->
      tensor<1xi1>
    %7 = stablehlo.compare LE,
      %4,
      %c_1,
      SIGNED
      : (tensor<1xi32>,
      tensor<1xi32>) ->
      tensor<1xi1>
    %8 = stablehlo.and %6,
      %7
      : tensor<1xi1>
    %c_3 = stablehlo.constant dense<true>
      : tensor<i1>
    %9 = stablehlo.reduce(%8 init: %c_3) applies stablehlo.and across dimensions = [0]
      : (tensor<1xi1>,
      tensor<i1>) ->
      tensor<i1>
    %10 = "stablehlo.gather"(%arg0,
      %4) <{dimension_numbers = #stablehlo.gather<offset_dims = [0,
      1],
      collapsed_slice_dims = [0],
      start_index_map = [0]>,
      indices_are_sorted = false,
      slice_sizes = array<i64: 1,
      2,
      16>}>
      : (tensor<4x2x16xf32>,
      tensor<1xi32>) ->
      tensor<2x16xf32>
    %11 = stablehlo.broadcast_in_dim %9,
      dims = []
      : (tensor<i1>) ->
      tensor<2x16xi1>
    %cst = stablehlo.constant dense<0x7FC00000>
      : tensor<f32>
    %12 = stablehlo.broadcast_in_dim %cst,
      dims = []
      : (tensor<f32>) ->
      tensor<2x16xf32>
    %13 = stablehlo.select %11,
      %10,
      %12
      : tensor<2x16xi1>,
      tensor<2x16xf32>
    return %13
      : tensor<2x16xf32>
  }
  func.func private @_where_4(%arg0: tensor<i1>,
      %arg1: tensor<2x16xf32>,
      %arg2: tensor<2x16xf32>) ->
      tensor<2x16xf32> {
    %0 = stablehlo.select %arg0,
      %arg1,
      %arg2
      : tensor<i1>,
      tensor<2x16xf32>
    return %0
      : tensor<2x16xf32>
  }
  func.func private @_roll_static(%arg0: tensor<2x2x16xf32>) ->
      tensor<2x2x16xf32> {
    %0 = stablehlo.slice %arg0 [1:2,
      0:2,
      0:16]
      : (tensor<2x2x16xf32>) ->
      tensor<1x2x16xf32>
    %1 = stablehlo.slice %arg0 [0:1,
      0:2,
      0:16]
      : (tensor<2x2x16xf32>) ->
      tensor<1x2x16xf32>
    %2 = stablehlo.concatenate %0,
      %1,
      dim = 0
      : (tensor<1x2x16xf32>,
      tensor<1x2x16xf32>) ->
      tensor<2x2x16xf32>
    return %2
      : tensor<2x2x16xf32>
  }
}
