func.func @step(%dw: memref<1024xf32>) -> memref<1024xbf16> {
  %f = tessera.collective.all_reduce %dw {dtype = "bf16"} : (memref<1024xf32>) -> !tessera.future<memref<1024xf32>>
  %v = tessera.await %f : (!tessera.future<memref<1024xf32>>) -> memref<1024xbf16>
  return %v : memref<1024xbf16>
}
