// One stage of an MPMD pipeline: device d sends its output to device d of the
// next stage (another program) on channel 4. Declared external
// (`-O external-channels=4`, or `external-channels = [4]` in
// [tool.shlo-lint.options]) the send is delivered outside this run and the
// program completes; undeclared, the pairs name devices of this program, which
// never receive: each process stays blocked at its send (a deadlock).
module @mpmd_stage attributes {mhlo.num_partitions = 2 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%x: tensor<4xf32>) -> tensor<4xf32> {
    %t = stablehlo.after_all : !stablehlo.token
    %y = stablehlo.multiply %x, %x : tensor<4xf32>
    %d = "stablehlo.send"(%y, %t) {source_target_pairs = dense<[[0, 0], [1, 1]]> : tensor<2x2xi64>, channel_handle = #stablehlo.channel_handle<handle = 4, type = 1>, is_host_transfer = false} : (tensor<4xf32>, !stablehlo.token) -> !stablehlo.token
    return %y : tensor<4xf32>
  }
}
