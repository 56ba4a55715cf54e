"""Front ends: source text into the IR. One reader per input language (stablehlo/, the MLIR
text JAX lowers to); each builds the same `ir.core.Module`."""
