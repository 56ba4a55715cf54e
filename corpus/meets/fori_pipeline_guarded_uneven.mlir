module @jit_f attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["x"=8]> {stablehlo.mesh = {axes = [{name = "x", size = 8 : i64}]}}
  func.func public @main(%arg0: tensor<8x4xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {}]>}) -> (tensor<8x8xf32> {jax.result_info = "result"}) {
    %0 = sdy.manual_computation(%arg0) in_shardings=[<@mesh, [{"x"}, {}]>] out_shardings=[<@mesh, [{"x"}, {}]>] manual_axes={"x"} (%arg1: tensor<1x4xf32>) {
      %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %1 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<1x8xf32>
      %2 = stablehlo.slice %arg1 [0:1, 0:1] : (tensor<1x4xf32>) -> tensor<1x1xf32>
      %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %3 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<1x1xf32>
      %4 = stablehlo.multiply %3, %2 : tensor<1x1xf32>
      %5 = stablehlo.broadcast_in_dim %4, dims = [0, 1] : (tensor<1x1xf32>) -> tensor<1x8xf32>
      %6 = stablehlo.add %1, %5 : tensor<1x8xf32>
      %c = stablehlo.constant dense<0> : tensor<i32>
      %c_1 = stablehlo.constant dense<0> : tensor<i32>
      %7:3 = stablehlo.while(%iterArg = %c_1, %iterArg_2 = %c, %iterArg_3 = %6) : tensor<i32>, tensor<i32>, tensor<1x8xf32>
      cond {
        %c_4 = stablehlo.constant dense<8> : tensor<i32>
        %8 = stablehlo.compare LT, %iterArg, %c_4, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
        stablehlo.return %8 : tensor<i1>
      } do {
        %8:2 = func.call @closed_call(%iterArg_2, %iterArg_3) : (tensor<i32>, tensor<1x8xf32>) -> (tensor<i32>, tensor<1x8xf32>)
        %c_4 = stablehlo.constant dense<1> : tensor<i32>
        %9 = stablehlo.add %iterArg, %c_4 : tensor<i32>
        stablehlo.return %9, %8#0, %8#1 : tensor<i32>, tensor<i32>, tensor<1x8xf32>
      }
      sdy.return %7#2 : tensor<1x8xf32>
    } : (tensor<8x4xf32>) -> tensor<8x8xf32>
    return %0 : tensor<8x8xf32>
  }
  func.func private @closed_call(%arg0: tensor<i32>, %arg1: tensor<1x8xf32>) -> (tensor<i32>, tensor<1x8xf32>) {
    %c = stablehlo.constant dense<1> : tensor<i32>
    %0 = stablehlo.add %arg0, %c : tensor<i32>
    %c_0 = stablehlo.constant dense<1> : tensor<ui32>
    %c_1 = stablehlo.constant dense<8> : tensor<ui32>
    %1 = stablehlo.partition_id : tensor<ui32>
    %2 = stablehlo.divide %1, %c_0 : tensor<ui32>
    %3 = stablehlo.remainder %2, %c_1 : tensor<ui32>
    %4 = stablehlo.convert %3 : (tensor<ui32>) -> tensor<i32>
    %cst = stablehlo.constant dense<1.000000e+03> : tensor<f32>
    %5 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<1x1xf32>
    %6 = stablehlo.convert %4 : (tensor<i32>) -> tensor<f32>
    %7 = stablehlo.broadcast_in_dim %6, dims = [] : (tensor<f32>) -> tensor<1x1xf32>
    %8 = stablehlo.multiply %5, %7 : tensor<1x1xf32>
    %9 = stablehlo.convert %arg0 : (tensor<i32>) -> tensor<f32>
    %10 = stablehlo.broadcast_in_dim %9, dims = [] : (tensor<f32>) -> tensor<1x1xf32>
    %11 = stablehlo.add %8, %10 : tensor<1x1xf32>
    %12 = stablehlo.convert %arg0 : tensor<i32>
    %13 = stablehlo.compare LE, %4, %12, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %c_2 = stablehlo.constant dense<3> : tensor<i32>
    %14 = stablehlo.add %4, %c_2 : tensor<i32>
    %15 = stablehlo.convert %arg0 : tensor<i32>
    %16 = stablehlo.compare LT, %15, %14, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %17 = stablehlo.and %13, %16 : tensor<i1>
    %18 = stablehlo.convert %17 : (tensor<i1>) -> tensor<i32>
    %19 = "stablehlo.case"(%18) ({
      %cst_6 = stablehlo.constant dense<-1.000000e+00> : tensor<f32>
      %25 = stablehlo.broadcast_in_dim %cst_6, dims = [] : (tensor<f32>) -> tensor<1x1xf32>
      stablehlo.return %25 : tensor<1x1xf32>
    }, {
      %25 = "stablehlo.collective_permute"(%11) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, source_target_pairs = dense<[[0, 1], [1, 2], [2, 3], [3, 4], [4, 5], [5, 6], [6, 7]]> : tensor<7x2xi64>}> : (tensor<1x1xf32>) -> tensor<1x1xf32>
      stablehlo.return %25 : tensor<1x1xf32>
    }) : (tensor<i32>) -> tensor<1x1xf32>
    %c_3 = stablehlo.constant dense<0> : tensor<i32>
    %20 = stablehlo.compare LT, %arg0, %c_3, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %21 = stablehlo.convert %arg0 : tensor<i32>
    %c_4 = stablehlo.constant dense<8> : tensor<i32>
    %22 = stablehlo.add %21, %c_4 : tensor<i32>
    %23 = stablehlo.select %20, %22, %arg0 : tensor<i1>, tensor<i32>
    %c_5 = stablehlo.constant dense<0> : tensor<i32>
    %24 = stablehlo.dynamic_update_slice %arg1, %19, %c_5, %23 : (tensor<1x8xf32>, tensor<1x1xf32>, tensor<i32>, tensor<i32>) -> tensor<1x8xf32>
    return %0, %24 : tensor<i32>, tensor<1x8xf32>
  }
}
