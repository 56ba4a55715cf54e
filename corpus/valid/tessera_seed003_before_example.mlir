// Seed 003's "Before" example (its `;` comments written as `//`, `use %dw_red` as a return).
func.func @step(%dw: memref<1024xf32>) -> memref<1024xf32> {
  %f = tessera.collective.all_reduce %dw
          {op="sum", chunk_bytes = 1048576, dtype="bf16"}
  // ... unrelated compute ...
  %dw_red = tessera.await %f
  return %dw_red : memref<1024xf32>
}
