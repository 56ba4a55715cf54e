#loc1 = loc("x")
#loc7 = loc("shard_map")
#loc17 = loc("shard_map:"(#loc7))
module @jit_body attributes {mhlo.num_partitions = 8
      : i32,
      mhlo.num_replicas = 1
      : i32} {
  sdy.mesh @mesh = <["x"=8]> {stablehlo.mesh = {axes = [{name = "x",
      size = 8
      : i64}]}} loc(#loc)
  func.func public @main(%arg0: tensor<32xf32> loc("x")) ->
      (tensor<32xf32> {jax.result_info = "result"}) {
    %0 = sdy.manual_computation(%arg0) in_shardings=[<@mesh,
      [{"x"}]>] out_shardings=[<@mesh,
      [{"x"}]>] manual_axes={"x"} (%arg1: tensor<4xf32> loc("shard_map:"(#loc7))) {
      %1 = stablehlo.create_token
      : !stablehlo.token loc(#loc23)
      %2 = "stablehlo.send"(%arg1,
      %1) <{channel_handle = #stablehlo.channel_handle<handle = 1,
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
      7]]>
      : tensor<7x2xi64>}>
      : (tensor<4xf32>,
      !stablehlo.token) ->
      !stablehlo.token loc(#loc23)
      %3:2 = "stablehlo.recv"(%2) <{channel_handle = #stablehlo.channel_handle<handle = 1,
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
      7]]>
      : tensor<7x2xi64>}>
      : (!stablehlo.token) ->
      (tensor<4xf32>,
      !stablehlo.token) loc(#loc24)
      %4 = stablehlo.tanh %arg1
      : tensor<4xf32> loc(#loc25)
      %5 = stablehlo.add %4,
      %3#0
      : tensor<4xf32> loc(#loc26)
      sdy.return %5
      : tensor<4xf32> loc(#loc17)
    }
      : (tensor<32xf32>) ->
      tensor<32xf32> loc(#loc30)
    return %0
      : tensor<32xf32> loc(#loc31)
  } loc(#loc)
} loc(#loc)
#loc = loc(unknown)
#loc2 = loc("corpus/generate.py":373:15 to :64)
#loc3 = loc("corpus/generate.py":388:14 to :40)
#loc4 = loc("corpus/generate.py":429:27 to :59)
#loc5 = loc("corpus/generate.py":605:27 to :62)
#loc6 = loc("corpus/generate.py":613:13 to :19)
#loc8 = loc("corpus/generate.py":219:14 to :37)
#loc9 = loc("corpus/generate.py":222:12 to :73)
#loc10 = loc("corpus/generate.py":225:15 to :26)
#loc11 = loc("corpus/generate.py":225:15 to :46)
#loc12 = loc("lower"(#loc2))
#loc13 = loc("render"(#loc3))
#loc14 = loc("generate_small"(#loc4))
#loc15 = loc("main"(#loc5))
#loc16 = loc("<module>"(#loc6))
#loc18 = loc("_sendrecv.<locals>.body"(#loc8))
#loc19 = loc("_sendrecv.<locals>.body"(#loc9))
#loc20 = loc("_sendrecv.<locals>.body"(#loc10))
#loc21 = loc("_sendrecv.<locals>.body"(#loc11))
#loc22 = loc(callsite(#loc15 at #loc16))
#loc23 = loc("psend"(#loc18))
#loc24 = loc("precv"(#loc19))
#loc25 = loc("tanh"(#loc20))
#loc26 = loc("add"(#loc21))
#loc27 = loc(callsite(#loc14 at #loc22))
#loc28 = loc(callsite(#loc13 at #loc27))
#loc29 = loc(callsite(#loc12 at #loc28))
#loc30 = loc("jit(body)/shard_map"(#loc29))
#loc31 = loc("jit(body)"(#loc29))
