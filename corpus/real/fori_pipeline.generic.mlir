"builtin.module"() <{sym_name = "jit_body"}> ({
  "sdy.mesh"() <{mesh = #sdy.mesh<["x"=8]>, sym_name = "mesh"}> {stablehlo.mesh = {axes = [{name = "x", size = 8 : i64}]}} : () -> ()
  "func.func"() <{arg_attrs = [{}, {}], function_type = (tensor<8x16x16xf32>, tensor<4x2x16xf32>) -> tensor<8x4x2x16xf32>, res_attrs = [{jax.result_info = "result"}], sym_name = "main", sym_visibility = "public"}> ({
  ^bb0(%arg15: tensor<8x16x16xf32>, %arg16: tensor<4x2x16xf32>):
    %53 = "sdy.manual_computation"(%arg15, %arg16) <{in_shardings = #sdy.sharding_per_value<[<@mesh, [{"x"}, {}, {}]>, <@mesh, [{}, {}, {}]>]>, manual_axes = #sdy<manual_axes{"x"}>, out_shardings = #sdy.sharding_per_value<[<@mesh, [{"x"}, {}, {}, {}]>]>}> ({
    ^bb0(%arg17: tensor<1x16x16xf32>, %arg18: tensor<4x2x16xf32>):
      %54 = "stablehlo.reshape"(%arg17) : (tensor<1x16x16xf32>) -> tensor<16x16xf32>
      %55 = "stablehlo.constant"() <{value = dense<1> : tensor<ui32>}> : () -> tensor<ui32>
      %56 = "stablehlo.constant"() <{value = dense<8> : tensor<ui32>}> : () -> tensor<ui32>
      %57 = "stablehlo.partition_id"() : () -> tensor<ui32>
      %58 = "stablehlo.divide"(%57, %55) : (tensor<ui32>, tensor<ui32>) -> tensor<ui32>
      %59 = "stablehlo.remainder"(%58, %56) : (tensor<ui32>, tensor<ui32>) -> tensor<ui32>
      %60 = "stablehlo.convert"(%59) : (tensor<ui32>) -> tensor<i32>
      %61 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
      %62 = "stablehlo.broadcast_in_dim"(%61) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<2x16xf32>
      %63 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
      %64 = "stablehlo.broadcast_in_dim"(%63) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<4x2x16xf32>
      %65 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
      %66 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
      %67:7 = "stablehlo.while"(%arg18, %60, %54, %66, %65, %62, %64) ({
      ^bb0(%arg26: tensor<4x2x16xf32>, %arg27: tensor<i32>, %arg28: tensor<16x16xf32>, %arg29: tensor<i32>, %arg30: tensor<i32>, %arg31: tensor<2x16xf32>, %arg32: tensor<4x2x16xf32>):
        %72 = "stablehlo.constant"() <{value = dense<11> : tensor<i32>}> : () -> tensor<i32>
        %73 = "stablehlo.compare"(%arg29, %72) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction LT>}> : (tensor<i32>, tensor<i32>) -> tensor<i1>
        "stablehlo.return"(%73) : (tensor<i1>) -> ()
      }, {
      ^bb0(%arg19: tensor<4x2x16xf32>, %arg20: tensor<i32>, %arg21: tensor<16x16xf32>, %arg22: tensor<i32>, %arg23: tensor<i32>, %arg24: tensor<2x16xf32>, %arg25: tensor<4x2x16xf32>):
        %69:3 = "func.call"(%arg19, %arg20, %arg21, %arg23, %arg24, %arg25) <{callee = @closed_call}> : (tensor<4x2x16xf32>, tensor<i32>, tensor<16x16xf32>, tensor<i32>, tensor<2x16xf32>, tensor<4x2x16xf32>) -> (tensor<i32>, tensor<2x16xf32>, tensor<4x2x16xf32>)
        %70 = "stablehlo.constant"() <{value = dense<1> : tensor<i32>}> : () -> tensor<i32>
        %71 = "stablehlo.add"(%arg22, %70) : (tensor<i32>, tensor<i32>) -> tensor<i32>
        "stablehlo.return"(%arg19, %arg20, %arg21, %71, %69#0, %69#1, %69#2) : (tensor<4x2x16xf32>, tensor<i32>, tensor<16x16xf32>, tensor<i32>, tensor<i32>, tensor<2x16xf32>, tensor<4x2x16xf32>) -> ()
      }) : (tensor<4x2x16xf32>, tensor<i32>, tensor<16x16xf32>, tensor<i32>, tensor<i32>, tensor<2x16xf32>, tensor<4x2x16xf32>) -> (tensor<4x2x16xf32>, tensor<i32>, tensor<16x16xf32>, tensor<i32>, tensor<i32>, tensor<2x16xf32>, tensor<4x2x16xf32>)
      %68 = "stablehlo.broadcast_in_dim"(%67#6) <{broadcast_dimensions = array<i64: 1, 2, 3>}> : (tensor<4x2x16xf32>) -> tensor<1x4x2x16xf32>
      "sdy.return"(%68) : (tensor<1x4x2x16xf32>) -> ()
    }) : (tensor<8x16x16xf32>, tensor<4x2x16xf32>) -> tensor<8x4x2x16xf32>
    "func.return"(%53) : (tensor<8x4x2x16xf32>) -> ()
  }) : () -> ()
  "func.func"() <{function_type = (tensor<4x2x16xf32>, tensor<i32>, tensor<16x16xf32>, tensor<i32>, tensor<2x16xf32>, tensor<4x2x16xf32>) -> (tensor<i32>, tensor<2x16xf32>, tensor<4x2x16xf32>), res_attrs = [{}, {}, {}], sym_name = "closed_call", sym_visibility = "private"}> ({
  ^bb0(%arg9: tensor<4x2x16xf32>, %arg10: tensor<i32>, %arg11: tensor<16x16xf32>, %arg12: tensor<i32>, %arg13: tensor<2x16xf32>, %arg14: tensor<4x2x16xf32>):
    %13 = "stablehlo.constant"() <{value = dense<1> : tensor<i32>}> : () -> tensor<i32>
    %14 = "stablehlo.add"(%arg12, %13) : (tensor<i32>, tensor<i32>) -> tensor<i32>
    %15 = "stablehlo.constant"() <{value = dense<3> : tensor<i32>}> : () -> tensor<i32>
    %16 = "stablehlo.minimum"(%arg12, %15) : (tensor<i32>, tensor<i32>) -> tensor<i32>
    %17 = "stablehlo.convert"(%16) : (tensor<i32>) -> tensor<i32>
    %18 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %19 = "stablehlo.compare"(%17, %18) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction LT>}> : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %20 = "stablehlo.constant"() <{value = dense<4> : tensor<i32>}> : () -> tensor<i32>
    %21 = "stablehlo.add"(%17, %20) : (tensor<i32>, tensor<i32>) -> tensor<i32>
    %22 = "stablehlo.select"(%19, %21, %17) : (tensor<i1>, tensor<i32>, tensor<i32>) -> tensor<i32>
    %23 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %24 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %25 = "stablehlo.compare"(%23, %24) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction LT>}> : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %26 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %27 = "stablehlo.constant"() <{value = dense<2> : tensor<i32>}> : () -> tensor<i32>
    %28 = "stablehlo.add"(%26, %27) : (tensor<i32>, tensor<i32>) -> tensor<i32>
    %29 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %30 = "stablehlo.select"(%25, %28, %29) : (tensor<i1>, tensor<i32>, tensor<i32>) -> tensor<i32>
    %31 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %32 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %33 = "stablehlo.compare"(%31, %32) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction LT>}> : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %34 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %35 = "stablehlo.constant"() <{value = dense<16> : tensor<i32>}> : () -> tensor<i32>
    %36 = "stablehlo.add"(%34, %35) : (tensor<i32>, tensor<i32>) -> tensor<i32>
    %37 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %38 = "stablehlo.select"(%33, %36, %37) : (tensor<i1>, tensor<i32>, tensor<i32>) -> tensor<i32>
    %39 = "stablehlo.dynamic_slice"(%arg9, %22, %30, %38) <{slice_sizes = array<i64: 1, 2, 16>}> : (tensor<4x2x16xf32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<1x2x16xf32>
    %40 = "stablehlo.reshape"(%39) : (tensor<1x2x16xf32>) -> tensor<2x16xf32>
    %41 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %42 = "stablehlo.compare"(%arg10, %41) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction EQ>}> : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %43 = "func.call"(%42, %40, %arg13) <{callee = @_where}> : (tensor<i1>, tensor<2x16xf32>, tensor<2x16xf32>) -> tensor<2x16xf32>
    %44 = "stablehlo.dot_general"(%43, %arg11) <{dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]>, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]}> : (tensor<2x16xf32>, tensor<16x16xf32>) -> tensor<2x16xf32>
    %45 = "stablehlo.tanh"(%44) : (tensor<2x16xf32>) -> tensor<2x16xf32>
    %46 = "stablehlo.constant"() <{value = dense<7> : tensor<i32>}> : () -> tensor<i32>
    %47 = "stablehlo.subtract"(%arg12, %46) : (tensor<i32>, tensor<i32>) -> tensor<i32>
    %48 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %49 = "stablehlo.constant"() <{value = dense<3> : tensor<i32>}> : () -> tensor<i32>
    %50 = "func.call"(%47, %48, %49) <{callee = @clip}> : (tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<i32>
    %51 = "func.call"(%arg14, %45, %50) <{callee = @dynamic_update_index_in_dim}> : (tensor<4x2x16xf32>, tensor<2x16xf32>, tensor<i32>) -> tensor<4x2x16xf32>
    %52 = "stablehlo.collective_permute"(%45) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, source_target_pairs = dense<[[0, 1], [1, 2], [2, 3], [3, 4], [4, 5], [5, 6], [6, 7], [7, 0]]> : tensor<8x2xi64>}> : (tensor<2x16xf32>) -> tensor<2x16xf32>
    "func.return"(%14, %52, %51) : (tensor<i32>, tensor<2x16xf32>, tensor<4x2x16xf32>) -> ()
  }) : () -> ()
  "func.func"() <{arg_attrs = [{}, {}, {}], function_type = (tensor<i1>, tensor<2x16xf32>, tensor<2x16xf32>) -> tensor<2x16xf32>, res_attrs = [{}], sym_name = "_where", sym_visibility = "private"}> ({
  ^bb0(%arg6: tensor<i1>, %arg7: tensor<2x16xf32>, %arg8: tensor<2x16xf32>):
    %12 = "stablehlo.select"(%arg6, %arg7, %arg8) : (tensor<i1>, tensor<2x16xf32>, tensor<2x16xf32>) -> tensor<2x16xf32>
    "func.return"(%12) : (tensor<2x16xf32>) -> ()
  }) : () -> ()
  "func.func"() <{arg_attrs = [{}, {}, {}], function_type = (tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<i32>, res_attrs = [{}], sym_name = "clip", sym_visibility = "private"}> ({
  ^bb0(%arg3: tensor<i32>, %arg4: tensor<i32>, %arg5: tensor<i32>):
    %10 = "stablehlo.maximum"(%arg4, %arg3) : (tensor<i32>, tensor<i32>) -> tensor<i32>
    %11 = "stablehlo.minimum"(%arg5, %10) : (tensor<i32>, tensor<i32>) -> tensor<i32>
    "func.return"(%11) : (tensor<i32>) -> ()
  }) : () -> ()
  "func.func"() <{arg_attrs = [{}, {}, {}], function_type = (tensor<4x2x16xf32>, tensor<2x16xf32>, tensor<i32>) -> tensor<4x2x16xf32>, res_attrs = [{}], sym_name = "dynamic_update_index_in_dim", sym_visibility = "private"}> ({
  ^bb0(%arg0: tensor<4x2x16xf32>, %arg1: tensor<2x16xf32>, %arg2: tensor<i32>):
    %0 = "stablehlo.broadcast_in_dim"(%arg1) <{broadcast_dimensions = array<i64: 1, 2>}> : (tensor<2x16xf32>) -> tensor<1x2x16xf32>
    %1 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %2 = "stablehlo.compare"(%arg2, %1) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction LT>}> : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %3 = "stablehlo.convert"(%arg2) : (tensor<i32>) -> tensor<i32>
    %4 = "stablehlo.constant"() <{value = dense<4> : tensor<i32>}> : () -> tensor<i32>
    %5 = "stablehlo.add"(%3, %4) : (tensor<i32>, tensor<i32>) -> tensor<i32>
    %6 = "stablehlo.select"(%2, %5, %arg2) : (tensor<i1>, tensor<i32>, tensor<i32>) -> tensor<i32>
    %7 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %8 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %9 = "stablehlo.dynamic_update_slice"(%arg0, %0, %6, %7, %8) : (tensor<4x2x16xf32>, tensor<1x2x16xf32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<4x2x16xf32>
    "func.return"(%9) : (tensor<4x2x16xf32>) -> ()
  }) : () -> ()
}) {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} : () -> ()
