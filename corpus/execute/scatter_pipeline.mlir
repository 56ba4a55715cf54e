module @jit_stage attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["x"=8]> {stablehlo.mesh = {axes = [{name = "x", size = 8 : i64}]}}
  func.func public @main(%arg0: tensor<16x4xf32>, %arg1: tensor<4x4xf32>, %arg2: tensor<48x2x4xf32>) -> (tensor<16x4xf32> {jax.result_info = "result[0]"}, tensor<48x2x4xf32> {jax.result_info = "result[1]"}) {
    %0:2 = sdy.manual_computation(%arg0, %arg1, %arg2) in_shardings=[<@mesh, [{"x"}, {}]>, <@mesh, [{}, {}]>, <@mesh, [{"x"}, {}, {}]>] out_shardings=[<@mesh, [{"x"}, {}]>, <@mesh, [{"x"}, {}, {}]>] manual_axes={"x"} (%arg3: tensor<2x4xf32>, %arg4: tensor<4x4xf32>, %arg5: tensor<6x2x4xf32>) {
      %c = stablehlo.constant dense<0> : tensor<i32>
      %c_0 = stablehlo.constant dense<0> : tensor<i32>
      %1:5 = stablehlo.while(%iterArg = %arg4, %iterArg_1 = %c_0, %iterArg_2 = %c, %iterArg_3 = %arg3, %iterArg_4 = %arg5) : tensor<4x4xf32>, tensor<i32>, tensor<i32>, tensor<2x4xf32>, tensor<6x2x4xf32>
      cond {
        %c_5 = stablehlo.constant dense<6> : tensor<i32>
        %2 = stablehlo.compare LT, %iterArg_1, %c_5, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
        stablehlo.return %2 : tensor<i1>
      } do {
        %2:3 = func.call @closed_call(%iterArg, %iterArg_2, %iterArg_3, %iterArg_4) : (tensor<4x4xf32>, tensor<i32>, tensor<2x4xf32>, tensor<6x2x4xf32>) -> (tensor<i32>, tensor<2x4xf32>, tensor<6x2x4xf32>)
        %c_5 = stablehlo.constant dense<1> : tensor<i32>
        %3 = stablehlo.add %iterArg_1, %c_5 : tensor<i32>
        stablehlo.return %iterArg, %3, %2#0, %2#1, %2#2 : tensor<4x4xf32>, tensor<i32>, tensor<i32>, tensor<2x4xf32>, tensor<6x2x4xf32>
      }
      sdy.return %1#3, %1#4 : tensor<2x4xf32>, tensor<6x2x4xf32>
    } : (tensor<16x4xf32>, tensor<4x4xf32>, tensor<48x2x4xf32>) -> (tensor<16x4xf32>, tensor<48x2x4xf32>)
    return %0#0, %0#1 : tensor<16x4xf32>, tensor<48x2x4xf32>
  }
  func.func private @closed_call(%arg0: tensor<4x4xf32>, %arg1: tensor<i32>, %arg2: tensor<2x4xf32>, %arg3: tensor<6x2x4xf32>) -> (tensor<i32>, tensor<2x4xf32>, tensor<6x2x4xf32>) {
    %c = stablehlo.constant dense<1> : tensor<i32>
    %0 = stablehlo.add %arg1, %c : tensor<i32>
    %1 = stablehlo.dot_general %arg2, %arg0, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
    %2 = stablehlo.tanh %1 : tensor<2x4xf32>
    %c_0 = stablehlo.constant dense<0> : tensor<i32>
    %3 = stablehlo.compare LT, %arg1, %c_0, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %c_1 = stablehlo.constant dense<6> : tensor<i32>
    %4 = stablehlo.add %arg1, %c_1 : tensor<i32>
    %5 = stablehlo.select %3, %4, %arg1 : tensor<i1>, tensor<i32>
    %6 = stablehlo.convert %5 : tensor<i32>
    %7 = stablehlo.broadcast_in_dim %6, dims = [] : (tensor<i32>) -> tensor<1xi32>
    %8 = "stablehlo.scatter"(%arg3, %7, %2) <{indices_are_sorted = true, scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [0, 1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0]>, unique_indices = true}> ({
    ^bb0(%arg4: tensor<f32>, %arg5: tensor<f32>):
      stablehlo.return %arg5 : tensor<f32>
    }) : (tensor<6x2x4xf32>, tensor<1xi32>, tensor<2x4xf32>) -> tensor<6x2x4xf32>
    %c_2 = stablehlo.constant dense<0> : tensor<i32>
    %9 = stablehlo.compare LT, %arg1, %c_2, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %c_3 = stablehlo.constant dense<6> : tensor<i32>
    %10 = stablehlo.add %arg1, %c_3 : tensor<i32>
    %11 = stablehlo.select %9, %10, %arg1 : tensor<i1>, tensor<i32>
    %12 = stablehlo.convert %11 : tensor<i32>
    %13 = stablehlo.broadcast_in_dim %12, dims = [] : (tensor<i32>) -> tensor<1xi32>
    %c_4 = stablehlo.constant dense<0> : tensor<i32>
    %14 = stablehlo.broadcast_in_dim %c_4, dims = [] : (tensor<i32>) -> tensor<1xi32>
    %15 = stablehlo.concatenate %13, %14, dim = 0 : (tensor<1xi32>, tensor<1xi32>) -> tensor<2xi32>
    %cst = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %16 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %17 = "stablehlo.scatter"(%8, %15, %16) <{indices_are_sorted = true, scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [0], inserted_window_dims = [0, 1], scatter_dims_to_operand_dims = [0, 1]>, unique_indices = true}> ({
    ^bb0(%arg4: tensor<f32>, %arg5: tensor<f32>):
      %19 = stablehlo.add %arg4, %arg5 : tensor<f32>
      stablehlo.return %19 : tensor<f32>
    }) : (tensor<6x2x4xf32>, tensor<2xi32>, tensor<4xf32>) -> tensor<6x2x4xf32>
    %18 = "stablehlo.collective_permute"(%2) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, source_target_pairs = dense<[[0, 1], [1, 2], [2, 3], [3, 4], [4, 5], [5, 6], [6, 7], [7, 0]]> : tensor<8x2xi64>}> : (tensor<2x4xf32>) -> tensor<2x4xf32>
    return %0, %18, %17 : tensor<i32>, tensor<2x4xf32>, tensor<6x2x4xf32>
  }
}
