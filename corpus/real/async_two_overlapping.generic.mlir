"builtin.module"() <{sym_name = "jit_body"}> ({
  "sdy.mesh"() <{mesh = #sdy.mesh<["x"=8]>, sym_name = "mesh"}> {stablehlo.mesh = {axes = [{name = "x", size = 8 : i64}]}} : () -> ()
  "func.func"() <{arg_attrs = [{}, {}], function_type = (tensor<32x8xf32>, tensor<32x8xf32>) -> (tensor<32x8xf32>, tensor<256x8xf32>), res_attrs = [{jax.result_info = "result[0]"}, {jax.result_info = "result[1]"}], sym_name = "main", sym_visibility = "public"}> ({
  ^bb0(%arg0: tensor<32x8xf32>, %arg1: tensor<32x8xf32>):
    %0:2 = "sdy.manual_computation"(%arg0, %arg1) <{in_shardings = #sdy.sharding_per_value<[<@mesh, [{"x"}, {}]>, <@mesh, [{"x"}, {}]>]>, manual_axes = #sdy<manual_axes{"x"}>, out_shardings = #sdy.sharding_per_value<[<@mesh, [{"x"}, {}]>, <@mesh, [{"x"}, {}]>]>}> ({
    ^bb0(%arg2: tensor<4x8xf32>, %arg3: tensor<4x8xf32>):
      %1 = "stablehlo.async_start"(%arg2) ({
      ^bb0(%arg5: tensor<4x8xf32>):
        %11 = "stablehlo.collective_permute"(%arg5) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, source_target_pairs = dense<[[0, 1], [1, 2], [2, 3], [3, 4], [4, 5], [5, 6], [6, 7], [7, 0]]> : tensor<8x2xi64>}> : (tensor<4x8xf32>) -> tensor<4x8xf32>
        "stablehlo.return"(%11) : (tensor<4x8xf32>) -> ()
      }) : (tensor<4x8xf32>) -> !stablehlo.future<tensor<4x8xf32>>
      %2 = "stablehlo.async_start"(%arg3) ({
      ^bb0(%arg4: tensor<4x8xf32>):
        %10 = "stablehlo.all_gather"(%arg4) <{all_gather_dim = 0 : i64, channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1, 2, 3, 4, 5, 6, 7]]> : tensor<1x8xi64>, use_global_device_ids}> : (tensor<4x8xf32>) -> tensor<32x8xf32>
        "stablehlo.return"(%10) : (tensor<32x8xf32>) -> ()
      }) : (tensor<4x8xf32>) -> !stablehlo.future<tensor<32x8xf32>>
      %3 = "stablehlo.sine"(%arg2) : (tensor<4x8xf32>) -> tensor<4x8xf32>
      %4 = "stablehlo.constant"() <{value = dense<3.000000e+00> : tensor<f32>}> : () -> tensor<f32>
      %5 = "stablehlo.broadcast_in_dim"(%4) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<4x8xf32>
      %6 = "stablehlo.multiply"(%3, %5) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
      %7 = "stablehlo.async_done"(%2) : (!stablehlo.future<tensor<32x8xf32>>) -> tensor<32x8xf32>
      %8 = "stablehlo.async_done"(%1) : (!stablehlo.future<tensor<4x8xf32>>) -> tensor<4x8xf32>
      %9 = "stablehlo.add"(%8, %6) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
      "sdy.return"(%9, %7) : (tensor<4x8xf32>, tensor<32x8xf32>) -> ()
    }) : (tensor<32x8xf32>, tensor<32x8xf32>) -> (tensor<32x8xf32>, tensor<256x8xf32>)
    "func.return"(%0#0, %0#1) : (tensor<32x8xf32>, tensor<256x8xf32>) -> ()
  }) : () -> ()
}) {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} : () -> ()
