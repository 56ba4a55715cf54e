"builtin.module"() <{sym_name = "jit_body"}> ({
  "sdy.mesh"() <{mesh = #sdy.mesh<["x"=8]>, sym_name = "mesh"}> {stablehlo.mesh = {axes = [{name = "x", size = 8 : i64}]}} : () -> ()
  "func.func"() <{arg_attrs = [{}], function_type = (tensor<32xf32>) -> tensor<32xf32>, res_attrs = [{jax.result_info = "result"}], sym_name = "main", sym_visibility = "public"}> ({
  ^bb0(%arg0: tensor<32xf32>):
    %0 = "sdy.manual_computation"(%arg0) <{in_shardings = #sdy.sharding_per_value<[<@mesh, [{"x"}]>]>, manual_axes = #sdy<manual_axes{"x"}>, out_shardings = #sdy.sharding_per_value<[<@mesh, [{"x"}]>]>}> ({
    ^bb0(%arg1: tensor<4xf32>):
      %1 = "stablehlo.create_token"() : () -> !stablehlo.token
      %2 = "stablehlo.send"(%arg1, %1) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, source_target_pairs = dense<[[0, 1], [1, 2], [2, 3], [3, 4], [4, 5], [5, 6], [6, 7], [7, 0]]> : tensor<8x2xi64>}> : (tensor<4xf32>, !stablehlo.token) -> !stablehlo.token
      %3:2 = "stablehlo.recv"(%2) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, source_target_pairs = dense<[[0, 1], [1, 2], [2, 3], [3, 4], [4, 5], [5, 6], [6, 7], [7, 0]]> : tensor<8x2xi64>}> : (!stablehlo.token) -> (tensor<4xf32>, !stablehlo.token)
      %4 = "stablehlo.tanh"(%arg1) : (tensor<4xf32>) -> tensor<4xf32>
      %5 = "stablehlo.add"(%4, %3#0) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
      "sdy.return"(%5) : (tensor<4xf32>) -> ()
    }) : (tensor<32xf32>) -> tensor<32xf32>
    "func.return"(%0) : (tensor<32xf32>) -> ()
  }) : () -> ()
}) {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} : () -> ()
