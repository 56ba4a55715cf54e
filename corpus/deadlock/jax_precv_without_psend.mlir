// JAX export (corpus/deadlock/jax_exports.py): lowered for cuda (XLA:CPU has no send/recv): a precv on the chain i -> i+1 that no psend feeds; on a GPU each receiver waits forever.
module @jit_recv_only attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["x"=8]> {stablehlo.mesh = {axes = [{name = "x", size = 8 : i64}]}}
  func.func public @main(%arg0: tensor<32x8xf32>, %arg1: tensor<32x8xf32>) -> (tensor<32x8xf32> {jax.result_info = "result[0]"}, tensor<32x8xf32> {jax.result_info = "result[1]"}) {
    %0:2 = sdy.manual_computation(%arg0, %arg1) in_shardings=[<@mesh, [{"x"}, {}]>, <@mesh, [{"x"}, {}]>] out_shardings=[<@mesh, [{"x"}, {}]>, <@mesh, [{"x"}, {}]>] manual_axes={"x"} (%arg2: tensor<4x8xf32>, %arg3: tensor<4x8xf32>) {
      %1 = stablehlo.create_token : !stablehlo.token
      %2:2 = "stablehlo.recv"(%1) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, source_target_pairs = dense<[[0, 1], [1, 2], [2, 3], [3, 4], [4, 5], [5, 6], [6, 7]]> : tensor<7x2xi64>}> : (!stablehlo.token) -> (tensor<4x8xf32>, !stablehlo.token)
      %3 = stablehlo.add %arg2, %2#0 : tensor<4x8xf32>
      sdy.return %3, %arg3 : tensor<4x8xf32>, tensor<4x8xf32>
    } : (tensor<32x8xf32>, tensor<32x8xf32>) -> (tensor<32x8xf32>, tensor<32x8xf32>)
    return %0#0, %0#1 : tensor<32x8xf32>, tensor<32x8xf32>
  }
}
