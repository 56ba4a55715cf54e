"builtin.module"() <{sym_name = "jit_body"}> ({
  "sdy.mesh"() <{mesh = #sdy.mesh<["x"=8]>, sym_name = "mesh"}> {stablehlo.mesh = {axes = [{name = "x", size = 8 : i64}]}} : () -> ()
  "func.func"() <{arg_attrs = [{}], function_type = (tensor<32x4xf32>) -> tensor<32x4xf32>, res_attrs = [{jax.result_info = "result"}], sym_name = "main", sym_visibility = "public"}> ({
  ^bb0(%arg0: tensor<32x4xf32>):
    %0 = "sdy.manual_computation"(%arg0) <{in_shardings = #sdy.sharding_per_value<[<@mesh, [{"x"}, {}]>]>, manual_axes = #sdy<manual_axes{"x"}>, out_shardings = #sdy.sharding_per_value<[<@mesh, [{"x"}, {}]>]>}> ({
    ^bb0(%arg1: tensor<4x4xf32>):
      %1 = "stablehlo.constant"() <{value = dense<1> : tensor<ui32>}> : () -> tensor<ui32>
      %2 = "stablehlo.constant"() <{value = dense<8> : tensor<ui32>}> : () -> tensor<ui32>
      %3 = "stablehlo.partition_id"() : () -> tensor<ui32>
      %4 = "stablehlo.divide"(%3, %1) : (tensor<ui32>, tensor<ui32>) -> tensor<ui32>
      %5 = "stablehlo.remainder"(%4, %2) : (tensor<ui32>, tensor<ui32>) -> tensor<ui32>
      %6 = "stablehlo.convert"(%5) : (tensor<ui32>) -> tensor<i32>
      %7 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
      %8 = "stablehlo.compare"(%6, %7) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction EQ>}> : (tensor<i32>, tensor<i32>) -> tensor<i1>
      %9 = "stablehlo.convert"(%8) : (tensor<i1>) -> tensor<i32>
      %10 = "stablehlo.case"(%9) ({
        "stablehlo.return"(%arg1) : (tensor<4x4xf32>) -> ()
      }, {
        %11 = "stablehlo.all_reduce"(%arg1) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1, 2, 3, 4, 5, 6, 7]]> : tensor<1x8xi64>, use_global_device_ids}> ({
        ^bb0(%arg2: tensor<f32>, %arg3: tensor<f32>):
          %12 = "stablehlo.add"(%arg2, %arg3) : (tensor<f32>, tensor<f32>) -> tensor<f32>
          "stablehlo.return"(%12) : (tensor<f32>) -> ()
        }) : (tensor<4x4xf32>) -> tensor<4x4xf32>
        "stablehlo.return"(%11) : (tensor<4x4xf32>) -> ()
      }) : (tensor<i32>) -> tensor<4x4xf32>
      "sdy.return"(%10) : (tensor<4x4xf32>) -> ()
    }) : (tensor<32x4xf32>) -> tensor<32x4xf32>
    "func.return"(%0) : (tensor<32x4xf32>) -> ()
  }) : () -> ()
}) {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} : () -> ()
