// Commas MLIR's parsers reject in custom (pretty) forms and dense literals, each
// checked with jaxlib's parser: an empty element, a comma before the
// signature's ':', two operands with no comma, a trailing comma in a call, and
// a dense literal with two elements side by side. One syntax error each.
func.func private @f(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32>
func.func public @main(%arg0: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.add %arg0, , %arg0 : tensor<4xf32>
  %1 = stablehlo.multiply %0, %0, : tensor<4xf32>
  %2 = stablehlo.subtract %1 %0 : tensor<4xf32>
  %3 = func.call @f(%2, %1,) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %4 = stablehlo.constant dense<[1.0 2.0, 3.0, 4.0]> : tensor<4xf32>
  %5 = stablehlo.add %3, %4 : tensor<4xf32>
  return %5 : tensor<4xf32>
}
