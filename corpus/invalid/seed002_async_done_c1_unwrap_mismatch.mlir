// Seed 002 (RFC, 2024): generic async_start / async_done with async<T>; the RFC's own example.
func.func @main(%init_i: tensor<i64>, %init_sum: tensor<i64>) -> tensor<i64> {
  // %init_i: 2
  // %init_sum: 3
  %future = "stablehlo.async_start"(
      %init_i as %arg0: tensor<i64>,
      %init_sum as %arg1: tensor<i64>)
  {
      %new_sum = stablehlo.add %arg1, %arg0 : tensor<i64>
      stablehlo.return %new_sum : tensor<i64>
  } : (tensor<i64>, tensor<i64>) -> async<tensor<i64>>

  %result = "stablehlo.async_done"(%future): async<tensor<i64>> -> tensor<f32>
  // %result: 5
  return %result : tensor<i64>
}
