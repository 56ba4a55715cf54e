// A collective_permute between partitions 0 and 1 only, under a branch that
// only partitions 0 and 1 take. Every pair's ends reach it, but XLA meets a
// permute as a rendezvous of its whole process group (all 4 partitions, as the
// channel makes it cross-partition): XLA:CPU aborts "expected 4 participants,
// 2 arrived" (XLA:GPU's default clique spans the group too; not run here).
// Under the spec's matching (a permute waits for its source only) it completes.
module @permute_branch attributes {mhlo.num_partitions = 4 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%x: tensor<4xf32>) -> tensor<4xf32> {
    %pid = stablehlo.partition_id : tensor<ui32>
    %two = stablehlo.constant dense<2> : tensor<ui32>
    %low = stablehlo.compare LT, %pid, %two : (tensor<ui32>, tensor<ui32>) -> tensor<i1>
    %r = "stablehlo.if"(%low) ({
      %y = "stablehlo.collective_permute"(%x) {source_target_pairs = dense<[[0, 1], [1, 0]]> : tensor<2x2xi64>, channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>} : (tensor<4xf32>) -> tensor<4xf32>
      stablehlo.return %y : tensor<4xf32>
    }, {
      stablehlo.return %x : tensor<4xf32>
    }) : (tensor<i1>) -> tensor<4xf32>
    return %r : tensor<4xf32>
  }
}
