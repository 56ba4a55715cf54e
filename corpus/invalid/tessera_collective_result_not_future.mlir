func.func @step(%dw: memref<1024xf32>) -> memref<1024xf32> {
  %f = tessera.collective.all_reduce %dw {dtype = "bf16"} : (memref<1024xf32>) -> memref<1024xf32>
  return %f : memref<1024xf32>
}
