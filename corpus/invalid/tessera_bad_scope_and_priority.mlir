func.func @step(%dw: memref<1024xf32>) -> memref<1024xf32> {
  %f = tessera.collective.reduce_scatter %dw {scope = "cluster",
                                              priority = "bulk"}
  %dw_red = tessera.await %f
  return %dw_red : memref<1024xf32>
}
