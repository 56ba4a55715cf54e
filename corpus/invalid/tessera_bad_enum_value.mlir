func.func @step(%dw: memref<1024xf32>) -> memref<1024xf32> {
  %f = tessera.collective.all_reduce %dw
          {op="sum", chunk_bytes = 1048576, dtype="f32"}
  %dw_red = tessera.await %f
  return %dw_red : memref<1024xf32>
}
