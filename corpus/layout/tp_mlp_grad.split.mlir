module @jit_f attributes {mhlo.num_partitions = 8
      : i32,
      mhlo.num_replicas = 1
      : i32} {
  sdy.mesh @mesh = <["x"=8]> {stablehlo.mesh = {axes = [{name = "x",
      size = 8
      : i64}]}}
  func.func public @main(%arg0: tensor<16x64xf32>,
      %arg1: tensor<64x16xf32>,
      %arg2: tensor<4x16xf32>,
      %arg3: tensor<4x16xf32>) ->
      (tensor<f32> {jax.result_info = "result[0]"},
      tensor<16x64xf32> {jax.result_info = "result[1]"},
      tensor<64x16xf32> {jax.result_info = "result[2]"},
      tensor<4x16xf32> {jax.result_info = "result[3]"}) {
    %0:11 = sdy.manual_computation(%arg2,
      %arg0,
      %arg1) in_shardings=[<@mesh,
      [{},
      {}]>,
      <@mesh,
      [{},
      {"x"}]>,
      <@mesh,
      [{"x"},
      {}]>] out_shardings=[<@mesh,
      [{"x"},
      {}]>,
      <@mesh,
      [{"x"},
      {}]>,
      <@mesh,
      [{"x"}]>,
      <@mesh,
      [{"x"}]>,
      <@mesh,
      [{"x"},
      {}]>,
      <@mesh,
      [{"x"},
      {}]>,
      <@mesh,
      [{"x"}]>,
      <@mesh,
      [{"x"},
      {}]>,
      <@mesh,
      [{"x"},
      {}]>,
      <@mesh,
      [{"x"},
      {}]>,
      <@mesh,
      [{},
      {}]>] manual_axes={"x"} (%arg4: tensor<4x16xf32>,
      %arg5: tensor<16x8xf32>,
      %arg6: tensor<8x16xf32>) {
      %17 = stablehlo.dot_general %arg4,
      %arg5,
      contracting_dims = [1] x [0],
      precision = [DEFAULT,
      DEFAULT]
      : (tensor<4x16xf32>,
      tensor<16x8xf32>) ->
      tensor<4x8xf32>
      %18 = stablehlo.multiply %17,
      %17
      : tensor<4x8xf32>
      %19 = stablehlo.multiply %18,
      %17
      : tensor<4x8xf32>
      %20 = stablehlo.multiply %17,
      %17
      : tensor<4x8xf32>
      %cst_6 = stablehlo.constant dense<3.000000e+00>
      : tensor<f32>
      %21 = stablehlo.broadcast_in_dim %cst_6,
      dims = []
      : (tensor<f32>) ->
      tensor<4x8xf32>
      %22 = stablehlo.multiply %21,
      %20
      : tensor<4x8xf32>
      %cst_7 = stablehlo.constant dense<4.471500e-02>
      : tensor<f32>
      %23 = stablehlo.broadcast_in_dim %cst_7,
      dims = []
      : (tensor<f32>) ->
      tensor<4x8xf32>
      %24 = stablehlo.multiply %23,
      %19
      : tensor<4x8xf32>
      %25 = stablehlo.add %17,
      %24
      : tensor<4x8xf32>
      %cst_8 = stablehlo.constant dense<0.797884583>
      : tensor<f32>
      %26 = stablehlo.broadcast_in_dim %cst_8,
      dims = []
      : (tensor<f32>) ->
      tensor<4x8xf32>
      %27 = stablehlo.multiply %26,
      %25
      : tensor<4x8xf32>
      %28 = stablehlo.tanh %27
      : tensor<4x8xf32>
      %cst_9 = stablehlo.constant dense<1.000000e+00>
      : tensor<f32>
      %29 = stablehlo.broadcast_in_dim %cst_9,
      dims = []
      : (tensor<f32>) ->
      tensor<4x8xf32>
      %30 = stablehlo.subtract %29,
      %28
      : tensor<4x8xf32>
      %cst_10 = stablehlo.constant dense<1.000000e+00>
      : tensor<f32>
      %31 = stablehlo.broadcast_in_dim %cst_10,
      dims = []
      : (tensor<f32>) ->
      tensor<4x8xf32>
      %32 = stablehlo.add %31,
      %28
      : tensor<4x8xf32>
      %cst_11 = stablehlo.constant dense<5.000000e-01>
      : tensor<f32>
      %33 = stablehlo.broadcast_in_dim %cst_11,
      dims = []
      : (tensor<f32>) ->
      tensor<4x8xf32>
      %34 = stablehlo.multiply %33,
      %32
      : tensor<4x8xf32>
      %35 = stablehlo.multiply %17,
      %34
      : tensor<4x8xf32>
      %36 = stablehlo.dot_general %35,
      %arg6,
      contracting_dims = [1] x [0],
      precision = [DEFAULT,
      DEFAULT]
      : (tensor<4x8xf32>,
      tensor<8x16xf32>) ->
      tensor<4x16xf32>
      %37 = "stablehlo.all_reduce"(%36) <{channel_handle = #stablehlo.channel_handle<handle = 1,
      type = 1>,
      replica_groups = dense<[[0,
      1,
      2,
      3,
      4,
      5,
      6,
      7]]>
      : tensor<1x8xi64>,
      use_global_device_ids}> ({
      ^bb0(%arg7: tensor<f32>,
      %arg8: tensor<f32>):
        %41 = stablehlo.add %arg7,
      %arg8
      : tensor<f32>
        stablehlo.return %41
      : tensor<f32>
      })
      : (tensor<4x16xf32>) ->
      tensor<4x16xf32>
      %38 = stablehlo.broadcast_in_dim %cst_7,
      dims = []
      : (tensor<f32>) ->
      tensor<1xf32>
      %39 = stablehlo.broadcast_in_dim %cst_8,
      dims = []
      : (tensor<f32>) ->
      tensor<1xf32>
      %40 = stablehlo.broadcast_in_dim %cst_11,
      dims = []
      : (tensor<f32>) ->
      tensor<1xf32>
      sdy.return %arg4,
      %22,
      %38,
      %39,
      %28,
      %30,
      %40,
      %34,
      %17,
      %35,
      %37
      : tensor<4x16xf32>,
      tensor<4x8xf32>,
      tensor<1xf32>,
      tensor<1xf32>,
      tensor<4x8xf32>,
      tensor<4x8xf32>,
      tensor<1xf32>,
      tensor<4x8xf32>,
      tensor<4x8xf32>,
      tensor<4x8xf32>,
      tensor<4x16xf32>
    }
      : (tensor<4x16xf32>,
      tensor<16x64xf32>,
      tensor<64x16xf32>) ->
      (tensor<32x16xf32>,
      tensor<32x8xf32>,
      tensor<8xf32>,
      tensor<8xf32>,
      tensor<32x8xf32>,
      tensor<32x8xf32>,
      tensor<8xf32>,
      tensor<32x8xf32>,
      tensor<32x8xf32>,
      tensor<32x8xf32>,
      tensor<4x16xf32>)
    %1 = stablehlo.subtract %0#10,
      %arg3
      : tensor<4x16xf32>
    %2 = stablehlo.multiply %1,
      %1
      : tensor<4x16xf32>
    %cst = stablehlo.constant dense<2.000000e+00>
      : tensor<f32>
    %3 = stablehlo.broadcast_in_dim %cst,
      dims = []
      : (tensor<f32>) ->
      tensor<4x16xf32>
    %4 = stablehlo.multiply %3,
      %1
      : tensor<4x16xf32>
    %cst_0 = stablehlo.constant dense<0.000000e+00>
      : tensor<f32>
    %5 = stablehlo.reduce(%2 init: %cst_0) applies stablehlo.add across dimensions = [0,
      1]
      : (tensor<4x16xf32>,
      tensor<f32>) ->
      tensor<f32>
    %cst_1 = stablehlo.constant dense<6.400000e+01>
      : tensor<f32>
    %6 = stablehlo.divide %5,
      %cst_1
      : tensor<f32>
    %cst_2 = stablehlo.constant dense<1.000000e+00>
      : tensor<f32>
    %cst_3 = stablehlo.constant dense<6.400000e+01>
      : tensor<f32>
    %7 = stablehlo.divide %cst_2,
      %cst_3
      : tensor<f32>
    %8 = stablehlo.broadcast_in_dim %7,
      dims = []
      : (tensor<f32>) ->
      tensor<4x16xf32>
    %9 = stablehlo.multiply %8,
      %4
      : tensor<4x16xf32>
    %10:3 = sdy.manual_computation(%9,
      %arg0,
      %0#0,
      %0#1,
      %0#2,
      %0#3,
      %0#4,
      %0#5,
      %0#6,
      %0#7,
      %0#8,
      %arg1,
      %0#9) in_shardings=[<@mesh,
      [{},
      {}]>,
      <@mesh,
      [{},
      {"x"}]>,
      <@mesh,
      [{"x"},
      {}]>,
      <@mesh,
      [{"x"},
      {}]>,
      <@mesh,
      [{"x"}]>,
      <@mesh,
      [{"x"}]>,
      <@mesh,
      [{"x"},
      {}]>,
      <@mesh,
      [{"x"},
      {}]>,
      <@mesh,
      [{"x"}]>,
      <@mesh,
      [{"x"},
      {}]>,
      <@mesh,
      [{"x"},
      {}]>,
      <@mesh,
      [{"x"},
      {}]>,
      <@mesh,
      [{"x"},
      {}]>] out_shardings=[<@mesh,
      [{},
      {}]>,
      <@mesh,
      [{},
      {"x"}]>,
      <@mesh,
      [{"x"},
      {}]>] manual_axes={"x"} (%arg4: tensor<4x16xf32>,
      %arg5: tensor<16x8xf32>,
      %arg6: tensor<4x16xf32>,
      %arg7: tensor<4x8xf32>,
      %arg8: tensor<1xf32>,
      %arg9: tensor<1xf32>,
      %arg10: tensor<4x8xf32>,
      %arg11: tensor<4x8xf32>,
      %arg12: tensor<1xf32>,
      %arg13: tensor<4x8xf32>,
      %arg14: tensor<4x8xf32>,
      %arg15: tensor<8x16xf32>,
      %arg16: tensor<4x8xf32>) {
      %17 = stablehlo.reshape %arg8
      : (tensor<1xf32>) ->
      tensor<f32>
      %18 = stablehlo.reshape %arg9
      : (tensor<1xf32>) ->
      tensor<f32>
      %19 = stablehlo.reshape %arg12
      : (tensor<1xf32>) ->
      tensor<f32>
      %20 = stablehlo.dot_general %arg4,
      %arg16,
      contracting_dims = [0] x [0],
      precision = [DEFAULT,
      DEFAULT]
      : (tensor<4x16xf32>,
      tensor<4x8xf32>) ->
      tensor<16x8xf32>
      %21 = stablehlo.transpose %20,
      dims = [1,
      0]
      : (tensor<16x8xf32>) ->
      tensor<8x16xf32>
      %22 = stablehlo.dot_general %arg4,
      %arg15,
      contracting_dims = [1] x [1],
      precision = [DEFAULT,
      DEFAULT]
      : (tensor<4x16xf32>,
      tensor<8x16xf32>) ->
      tensor<4x8xf32>
      %23 = stablehlo.multiply %arg14,
      %22
      : tensor<4x8xf32>
      %24 = stablehlo.multiply %22,
      %arg13
      : tensor<4x8xf32>
      %25 = stablehlo.broadcast_in_dim %19,
      dims = []
      : (tensor<f32>) ->
      tensor<4x8xf32>
      %26 = stablehlo.multiply %25,
      %23
      : tensor<4x8xf32>
      %27 = stablehlo.multiply %26,
      %arg11
      : tensor<4x8xf32>
      %28 = stablehlo.multiply %27,
      %arg10
      : tensor<4x8xf32>
      %29 = stablehlo.add %27,
      %28
      : tensor<4x8xf32>
      %30 = stablehlo.broadcast_in_dim %18,
      dims = []
      : (tensor<f32>) ->
      tensor<4x8xf32>
      %31 = stablehlo.multiply %30,
      %29
      : tensor<4x8xf32>
      %32 = stablehlo.add %24,
      %31
      : tensor<4x8xf32>
      %33 = stablehlo.broadcast_in_dim %17,
      dims = []
      : (tensor<f32>) ->
      tensor<4x8xf32>
      %34 = stablehlo.multiply %33,
      %31
      : tensor<4x8xf32>
      %35 = stablehlo.multiply %34,
      %arg7
      : tensor<4x8xf32>
      %36 = stablehlo.add %32,
      %35
      : tensor<4x8xf32>
      %37 = stablehlo.dot_general %36,
      %arg6,
      contracting_dims = [0] x [0],
      precision = [DEFAULT,
      DEFAULT]
      : (tensor<4x8xf32>,
      tensor<4x16xf32>) ->
      tensor<8x16xf32>
      %38 = stablehlo.transpose %37,
      dims = [1,
      0]
      : (tensor<8x16xf32>) ->
      tensor<16x8xf32>
      %39 = stablehlo.dot_general %36,
      %arg5,
      contracting_dims = [1] x [1],
      precision = [DEFAULT,
      DEFAULT]
      : (tensor<4x8xf32>,
      tensor<16x8xf32>) ->
      tensor<4x16xf32>
      %40 = "stablehlo.all_reduce"(%39) <{channel_handle = #stablehlo.channel_handle<handle = 1,
      type = 1>,
      replica_groups = dense<[[0,
      1,
      2,
      3,
      4,
      5,
      6,
      7]]>
      : tensor<1x8xi64>,
      use_global_device_ids}> ({
      ^bb0(%arg17: tensor<f32>,
      %arg18: tensor<f32>):
        %41 = stablehlo.add %arg17,
      %arg18
      : tensor<f32>
        stablehlo.return %41
      : tensor<f32>
      })
      : (tensor<4x16xf32>) ->
      tensor<4x16xf32>
      sdy.return %40,
      %38,
      %21
      : tensor<4x16xf32>,
      tensor<16x8xf32>,
      tensor<8x16xf32>
    }
      : (tensor<4x16xf32>,
      tensor<16x64xf32>,
      tensor<32x16xf32>,
      tensor<32x8xf32>,
      tensor<8xf32>,
      tensor<8xf32>,
      tensor<32x8xf32>,
      tensor<32x8xf32>,
      tensor<8xf32>,
      tensor<32x8xf32>,
      tensor<32x8xf32>,
      tensor<64x16xf32>,
      tensor<32x8xf32>) ->
      (tensor<4x16xf32>,
      tensor<16x64xf32>,
      tensor<64x16xf32>)
    %cst_4 = stablehlo.constant dense<1.000000e-01>
      : tensor<f32>
    %11 = stablehlo.broadcast_in_dim %cst_4,
      dims = []
      : (tensor<f32>) ->
      tensor<16x64xf32>
    %12 = stablehlo.multiply %11,
      %10#1
      : tensor<16x64xf32>
    %13 = stablehlo.subtract %arg0,
      %12
      : tensor<16x64xf32>
    %cst_5 = stablehlo.constant dense<1.000000e-01>
      : tensor<f32>
    %14 = stablehlo.broadcast_in_dim %cst_5,
      dims = []
      : (tensor<f32>) ->
      tensor<64x16xf32>
    %15 = stablehlo.multiply %14,
      %10#2
      : tensor<64x16xf32>
    %16 = stablehlo.subtract %arg1,
      %15
      : tensor<64x16xf32>
    return %6,
      %13,
      %16,
      %10#0
      : tensor<f32>,
      tensor<16x64xf32>,
      tensor<64x16xf32>,
      tensor<4x16xf32>
  }
}
