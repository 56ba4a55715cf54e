// An op that defines a result with nothing after its name, as a half-finished
// edit leaves it: MLIR's parser stops ("expected SSA operand"); every StableHLO
// op's custom form with results writes operands or attributes and a `: type`.
// Ops without results (a bare `stablehlo.return`) and other dialects' ops are
// not held to this: their forms may be empty.
func.func public @main(%arg0: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.add
  %1 = stablehlo.add %arg0, %arg0 : tensor<4xf32>
  return %1 : tensor<4xf32>
}
