#loc1 = loc("x")
#loc7 = loc("shard_map")
#loc9 = loc("psum_invariant")
#loc15 = loc("shard_map:"(#loc7))
#loc17 = loc("psum_invariant:"(#loc9))
module @jit__lambda attributes {mhlo.num_partitions = 8
      : i32,
      mhlo.num_replicas = 1
      : i32} {
  sdy.mesh @mesh = <["x"=8]> {stablehlo.mesh = {axes = [{name = "x",
      size = 8
      : i64}]}} loc(#loc)
  func.func public @main(%arg0: tensor<16x4xf32> loc("x")) ->
      (tensor<2x4xf32> {jax.result_info = "result"}) {
    %0 = sdy.manual_computation(%arg0) in_shardings=[<@mesh,
      [{"x"},
      {}]>] out_shardings=[<@mesh,
      [{},
      {}]>] manual_axes={"x"} (%arg1: tensor<2x4xf32> loc("shard_map:"(#loc7))) {
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
      ^bb0(%arg2: tensor<f32> loc("psum_invariant:"(#loc9)),
      %arg3: tensor<f32> loc("psum_invariant:"(#loc9))):
        %2 = stablehlo.add %arg2,
      %arg3
      : tensor<f32> loc(#loc22)
        stablehlo.return %2
      : tensor<f32> loc(#loc19)
      })
      : (tensor<2x4xf32>) ->
      tensor<2x4xf32> loc(#loc19)
      sdy.return %1
      : tensor<2x4xf32> loc(#loc15)
    }
      : (tensor<16x4xf32>) ->
      tensor<2x4xf32> loc(#loc25)
    return %0
      : tensor<2x4xf32> loc(#loc26)
  } loc(#loc)
} loc(#loc)
#loc = loc(unknown)
#loc2 = loc("corpus/generate.py":374:11 to :25)
#loc3 = loc("corpus/generate.py":388:14 to :40)
#loc4 = loc("corpus/generate.py":429:27 to :59)
#loc5 = loc("corpus/generate.py":605:27 to :62)
#loc6 = loc("corpus/generate.py":613:13 to :19)
#loc8 = loc("corpus/generate.py":81:28 to :44)
#loc10 = loc("lower"(#loc2))
#loc11 = loc("render"(#loc3))
#loc12 = loc("generate_small"(#loc4))
#loc13 = loc("main"(#loc5))
#loc14 = loc("<module>"(#loc6))
#loc16 = loc("b_psum.<locals>.<lambda>"(#loc8))
#loc18 = loc(callsite(#loc13 at #loc14))
#loc19 = loc("psum_invariant"(#loc16))
#loc20 = loc(callsite(#loc16 at #loc16))
#loc21 = loc(callsite(#loc12 at #loc18))
#loc22 = loc("add"(#loc20))
#loc23 = loc(callsite(#loc11 at #loc21))
#loc24 = loc(callsite(#loc10 at #loc23))
#loc25 = loc("jit(<lambda>)/shard_map"(#loc24))
#loc26 = loc("jit(<lambda>)"(#loc24))
