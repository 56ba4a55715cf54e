// Seed 003: a blocking use of a future needs a tessera.await right there.
func.func @step(%dw: memref<1024xf32>, %lr: memref<1024xf32>) -> memref<1024xf32> {
  %f = tessera.collective.all_reduce %dw {op = "sum", chunk_bytes = 1048576, dtype = "bf16"}
  %g = arith.mulf %f, %lr : memref<1024xf32>
  return %g : memref<1024xf32>
}
