// Seed 002's generic async<T>: the started computation is never awaited.
func.func @main(%init_i: tensor<i64>, %init_sum: tensor<i64>) -> tensor<i64> {
  %future = "stablehlo.async_start"(
      %init_i as %arg0: tensor<i64>,
      %init_sum as %arg1: tensor<i64>)
  {
      %new_sum = stablehlo.add %arg1, %arg0 : tensor<i64>
      stablehlo.return %new_sum : tensor<i64>
  } : (tensor<i64>, tensor<i64>) -> async<tensor<i64>>
  return %init_sum : tensor<i64>
}
