// A no-break space (U+00A0) between operands, as pasted from a document or chat:
// MLIR stops with "unexpected character"; so must we. Non-ASCII text in
// comments (café) and string literals is fine.
func.func public @main(%arg0: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.add %arg0, %arg0 : tensor<4xf32> loc("café.py":3:7)
  return %0 : tensor<4xf32>
}
