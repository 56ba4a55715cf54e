// interpreter.run_parallel starts two processes (two replicas); only replica 0 takes the
// branch with the all_reduce, so it waits for replica 1 forever.
// `shlo-lint run` reports the deadlock (exit 1) with process (0,0) blocked at line 13.
module @branch_deadlock {
  func.func @worker(%x: tensor<2xf32>) -> tensor<2xf32> {
    %pid = stablehlo.replica_id : tensor<ui32>
    %zero = stablehlo.constant dense<0> : tensor<ui32>
    %first = stablehlo.compare EQ, %pid, %zero : (tensor<ui32>, tensor<ui32>) -> tensor<i1>
    %idx = stablehlo.convert %first : (tensor<i1>) -> tensor<i32>
    %r = "stablehlo.case"(%idx) ({
      stablehlo.return %x : tensor<2xf32>
    }, {
      %s = "stablehlo.all_reduce"(%x) ({
      ^bb0(%a: tensor<f32>, %b: tensor<f32>):
        %t = stablehlo.add %a, %b : tensor<f32>
        stablehlo.return %t : tensor<f32>
      }) {replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<2xf32>) -> tensor<2xf32>
      stablehlo.return %s : tensor<2xf32>
    }) : (tensor<i32>) -> tensor<2xf32>
    func.return %r : tensor<2xf32>
  }
  func.func @main() {
    %x = stablehlo.constant dense<[1.0, 2.0]> : tensor<2xf32>
    %r:2 = "interpreter.run_parallel"(%x, %x) {programs = [[@worker], [@worker]]} : (tensor<2xf32>, tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>)
    check.expect_almost_eq %r#0, %r#1 : tensor<2xf32>
    func.return
  }
}
