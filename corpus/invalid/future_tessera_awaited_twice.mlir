// Seed 003: one future, two awaits.
func.func @step(%dw: memref<1024xf32>) -> memref<1024xf32> {
  %f = tessera.collective.all_reduce %dw {op = "sum", chunk_bytes = 1048576, dtype = "bf16"}
  %a = tessera.await %f
  %b = tessera.await %f
  return %b : memref<1024xf32>
}
