// Valid: the same branch on the partition id as
// invalid/deadlock_ragged_all_to_all_cond.mlir, but each partition is its own
// replica group, so partition 0 exchanges with itself and nobody waits.
// The generic form (call_target_name) is read like the pretty one.
module @jit_f attributes {mhlo.num_partitions = 4 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%x: tensor<8x4xf32>, %out: tensor<8x4xf32>, %off: tensor<4xi32>, %sz: tensor<4xi32>) -> tensor<8x4xf32> {
    %pid = stablehlo.partition_id : tensor<ui32>
    %zero = stablehlo.constant dense<0> : tensor<ui32>
    %first = stablehlo.compare EQ, %pid, %zero : (tensor<ui32>, tensor<ui32>) -> tensor<i1>
    %r = "stablehlo.if"(%first) ({
      %y = "stablehlo.custom_call"(%x, %out, %off, %sz, %off, %sz) {api_version = 4 : i32, backend_config = {channel_id = 1 : i64, replica_groups = dense<[[0], [1], [2], [3]]> : tensor<4x1xi64>}, call_target_name = "ragged_all_to_all"} : (tensor<8x4xf32>, tensor<8x4xf32>, tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xi32>) -> tensor<8x4xf32>
      stablehlo.return %y : tensor<8x4xf32>
    }, {
      stablehlo.return %x : tensor<8x4xf32>
    }) : (tensor<i1>) -> tensor<8x4xf32>
    return %r : tensor<8x4xf32>
  }
}
