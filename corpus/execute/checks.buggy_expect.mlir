// Assertions of the `check` dialect, as StableHLO's interpreter tests write them.
// No grid attributes and no communication: `shlo-lint run` runs it as one process
// and exits 0 when every check holds. BUG: one expected value is wrong (11 instead of 10):
// `run` exits 1 naming the check at line 15.
func.func @main() {
  %x = stablehlo.constant dense<[[1, 2, 3], [4, 5, 6]]> : tensor<2x3xi64>
  %i = stablehlo.constant dense<[[1, 2], [0, 2]]> : tensor<2x2xi64>
  %v = stablehlo.constant dense<[10, 20]> : tensor<2xi64>
  // x.at[i[:, 0], i[:, 1]].set(v)
  %s = "stablehlo.scatter"(%x, %i, %v) ({
  ^bb0(%old: tensor<i64>, %new: tensor<i64>):
    stablehlo.return %new : tensor<i64>
  }) {scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [0, 1], scatter_dims_to_operand_dims = [0, 1], index_vector_dim = 1>, indices_are_sorted = false, unique_indices = false} : (tensor<2x3xi64>, tensor<2x2xi64>, tensor<2xi64>) -> tensor<2x3xi64>
  %e = stablehlo.constant dense<[[1, 2, 20], [4, 5, 11]]> : tensor<2x3xi64>
  "check.expect_eq"(%s, %e) : (tensor<2x3xi64>, tensor<2x3xi64>) -> ()
  check.expect_eq_const %x, dense<[[1, 2, 3], [4, 5, 6]]> : tensor<2x3xi64>
  %f = stablehlo.convert %s : (tensor<2x3xi64>) -> tensor<2x3xf32>
  %r = stablehlo.sqrt %f : tensor<2x3xf32>
  "check.expect_almost_eq_const"(%r) {value = dense<[[1.0, 1.41421, 4.47214], [2.0, 2.23607, 3.16228]]> : tensor<2x3xf32>, tolerance = 1.0e-3 : f64} : (tensor<2x3xf32>) -> ()
  func.return
}
