"builtin.module"() <{sym_name = "jit__lambda"}> ({
  "sdy.mesh"() <{mesh = #sdy.mesh<["x"=8]>,
      sym_name = "mesh"}> {stablehlo.mesh = {axes = [{name = "x",
      size = 8
      : i64}]}}
      : () ->
      ()
  "func.func"() <{arg_attrs = [{}],
      function_type = (tensor<16x4xf32>) ->
      tensor<2x4xf32>,
      res_attrs = [{jax.result_info = "result"}],
      sym_name = "main",
      sym_visibility = "public"}> ({
  ^bb0(%arg0: tensor<16x4xf32>):
    %0 = "sdy.manual_computation"(%arg0) <{in_shardings = #sdy.sharding_per_value<[<@mesh,
      [{"x"},
      {}]>]>,
      manual_axes = #sdy<manual_axes{"x"}>,
      out_shardings = #sdy.sharding_per_value<[<@mesh,
      [{},
      {}]>]>}> ({
    ^bb0(%arg1: tensor<2x4xf32>):
      %1 = "stablehlo.all_reduce"(%arg1) <{channel_handle = #stablehlo.channel_handle<handle = 1,
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
      ^bb0(%arg2: tensor<f32>,
      %arg3: tensor<f32>):
        %2 = "stablehlo.add"(%arg2,
      %arg3)
      : (tensor<f32>,
      tensor<f32>) ->
      tensor<f32>
        "stablehlo.return"(%2)
      : (tensor<f32>) ->
      ()
      })
      : (tensor<2x4xf32>) ->
      tensor<2x4xf32>
      "sdy.return"(%1)
      : (tensor<2x4xf32>) ->
      ()
    })
      : (tensor<16x4xf32>) ->
      tensor<2x4xf32>
    "func.return"(%0)
      : (tensor<2x4xf32>) ->
      ()
  })
      : () ->
      ()
}) {mhlo.num_partitions = 8
      : i32,
      mhlo.num_replicas = 1
      : i32}
      : () ->
      ()
