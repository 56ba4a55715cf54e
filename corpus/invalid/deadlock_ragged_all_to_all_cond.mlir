// A ragged_all_to_all (JAX lowers lax.ragged_all_to_all to this custom_call) that
// only partition 0 enters: its replica group is all four partitions, so
// partition 0 waits for three peers that never arrive.
module @jit_f attributes {mhlo.num_partitions = 4 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%x: tensor<8x4xf32>, %out: tensor<8x4xf32>, %off: tensor<4xi32>, %sz: tensor<4xi32>) -> tensor<8x4xf32> {
    %pid = stablehlo.partition_id : tensor<ui32>
    %zero = stablehlo.constant dense<0> : tensor<ui32>
    %first = stablehlo.compare EQ, %pid, %zero : (tensor<ui32>, tensor<ui32>) -> tensor<i1>
    %r = "stablehlo.if"(%first) ({
      %y = stablehlo.custom_call @ragged_all_to_all(%x, %out, %off, %sz, %off, %sz) {api_version = 4 : i32, backend_config = {channel_id = 1 : i64, replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>}} : (tensor<8x4xf32>, tensor<8x4xf32>, tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xi32>) -> tensor<8x4xf32>
      stablehlo.return %y : tensor<8x4xf32>
    }, {
      stablehlo.return %x : tensor<8x4xf32>
    }) : (tensor<i1>) -> tensor<8x4xf32>
    return %r : tensor<8x4xf32>
  }
}
