// A test driver in the style of StableHLO's interpreter tests: @main runs as one
// process and starts a 2x2 grid (replicas x partitions) with
// interpreter.run_parallel; each process runs @step on its own operand.
module @pipeline_step {
  func.func @step(%x: tensor<2xi64>) -> (tensor<2xi64>, tensor<2xi64>) {
    %sum = "stablehlo.all_reduce"(%x) ({
    ^bb0(%a: tensor<i64>, %b: tensor<i64>):
      %t = stablehlo.add %a, %b : tensor<i64>
      stablehlo.return %t : tensor<i64>
    }) {replica_groups = dense<[[0, 1], [2, 3]]> : tensor<2x2xi64>, channel_handle = #stablehlo.channel_handle<handle = 1, type = 0>, use_global_device_ids} : (tensor<2xi64>) -> tensor<2xi64>
    %next = "stablehlo.collective_permute"(%x) {source_target_pairs = dense<[[0, 1], [1, 0]]> : tensor<2x2xi64>, channel_handle = #stablehlo.channel_handle<handle = 2, type = 0>} : (tensor<2xi64>) -> tensor<2xi64>
    func.return %sum, %next : tensor<2xi64>, tensor<2xi64>
  }
  func.func @main() {
    %a = stablehlo.constant dense<[1, 2]> : tensor<2xi64>
    %b = stablehlo.constant dense<[10, 20]> : tensor<2xi64>
    %c = stablehlo.constant dense<[100, 200]> : tensor<2xi64>
    %d = stablehlo.constant dense<[1000, 2000]> : tensor<2xi64>
    %r:8 = "interpreter.run_parallel"(%a, %b, %c, %d) {programs = [[@step, @step], [@step, @step]]} : (tensor<2xi64>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>) -> (tensor<2xi64>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>)
    // process (0,0): sum over processes 0 and 1; permuted from partition 1 of replica 0
    check.expect_eq_const %r#0, dense<[11, 22]> : tensor<2xi64>
    check.expect_eq_const %r#1, dense<[10, 20]> : tensor<2xi64>
    // process (1,1): sum over processes 2 and 3; permuted from partition 0 of replica 1
    check.expect_eq_const %r#6, dense<[1100, 2200]> : tensor<2xi64>
    check.expect_eq_const %r#7, dense<[100, 200]> : tensor<2xi64>
    func.return
  }
}
