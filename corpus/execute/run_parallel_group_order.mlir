// Process groups follow the spec's order. cross_replica_and_partition takes each
// replica group across every partition, partition-major: replica_groups [[0, 1]]
// on a 2x2 grid is (0,0), (1,0), (0,1), (1,1), and all_gather concatenates in
// that order. collective_broadcast with has_dynamic_root takes one root per data
// operand.
module @group_order {
  func.func @gather(%x: tensor<1xi64>) -> tensor<4xi64> {
    %r = "stablehlo.all_gather"(%x) {
      all_gather_dim = 0 : i64,
      replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>,
      channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>
    } : (tensor<1xi64>) -> tensor<4xi64>
    return %r : tensor<4xi64>
  }
  func.func @bcast(%a: tensor<2xi64>, %b: tensor<2xi64>, %root: tensor<2xi32>) -> (tensor<2xi64>, tensor<2xi64>) {
    %r:2 = "stablehlo.collective_broadcast"(%a, %b, %root) {
      replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>,
      has_dynamic_root
    } : (tensor<2xi64>, tensor<2xi64>, tensor<2xi32>) -> (tensor<2xi64>, tensor<2xi64>)
    return %r#0, %r#1 : tensor<2xi64>, tensor<2xi64>
  }
  func.func @main() {
    %a = stablehlo.constant dense<[10]> : tensor<1xi64>
    %b = stablehlo.constant dense<[20]> : tensor<1xi64>
    %c = stablehlo.constant dense<[30]> : tensor<1xi64>
    %d = stablehlo.constant dense<[40]> : tensor<1xi64>
    %g:4 = "interpreter.run_parallel"(%a, %b, %c, %d) {
      programs = [[@gather, @gather], [@gather, @gather]]
    } : (tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) ->
        (tensor<4xi64>, tensor<4xi64>, tensor<4xi64>, tensor<4xi64>)
    check.expect_eq_const %g#0, dense<[10, 30, 20, 40]> : tensor<4xi64>
    check.expect_eq_const %g#3, dense<[10, 30, 20, 40]> : tensor<4xi64>
    %x0 = stablehlo.constant dense<[1, 1]> : tensor<2xi64>
    %y0 = stablehlo.constant dense<[2, 2]> : tensor<2xi64>
    %x1 = stablehlo.constant dense<[3, 3]> : tensor<2xi64>
    %y1 = stablehlo.constant dense<[4, 4]> : tensor<2xi64>
    %roots = stablehlo.constant dense<[1, 0]> : tensor<2xi32>
    %o:4 = "interpreter.run_parallel"(%x0, %y0, %roots, %x1, %y1, %roots) {
      programs = [[@bcast], [@bcast]]
    } : (tensor<2xi64>, tensor<2xi64>, tensor<2xi32>, tensor<2xi64>, tensor<2xi64>, tensor<2xi32>) ->
        (tensor<2xi64>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>)
    check.expect_eq_const %o#0, dense<[3, 3]> : tensor<2xi64>
    check.expect_eq_const %o#1, dense<[2, 2]> : tensor<2xi64>
    check.expect_eq_const %o#2, dense<[3, 3]> : tensor<2xi64>
    check.expect_eq_const %o#3, dense<[2, 2]> : tensor<2xi64>
    func.return
  }
}
