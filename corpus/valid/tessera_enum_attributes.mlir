func.func @step(%dw: memref<1024xf32>) -> memref<1024xf32> {
  %f = tessera.collective.all_reduce %dw {algo = #tessera.collective<Algo "ring">, path = #tessera.collective<Path "nvlink">, scope = "node", dtype = #tessera.collective<WireDType "bf16">, overlap = "compute", priority = "latency", chunk_bytes = 65536, max_inflight = 4, qos = 2} : (memref<1024xf32>) -> !tessera.future<memref<1024xf32>>
  %g = tessera.collective.reduce_scatter %dw {algo = "tree"} : (memref<1024xf32>) -> !tessera.future<memref<128xf32>>
  %v = tessera.await %f : (!tessera.future<memref<1024xf32>>) -> memref<1024xf32>
  %w = tessera.await %g : (!tessera.future<memref<128xf32>>) -> memref<128xf32>
  return %v : memref<1024xf32>
}
