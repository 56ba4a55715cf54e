// Seed 003: two futures in flight, max_inflight = 2, each awaited at its true use.
func.func @step(%a: memref<1024xf32>, %b: memref<1024xf32>, %lr: memref<1024xf32>) -> memref<1024xf32> {
  %fa = tessera.collective.all_reduce %a {op = "sum", max_inflight = 2}
  %fb = tessera.collective.all_reduce %b {op = "sum", max_inflight = 2}
  %s = arith.mulf %lr, %lr : memref<1024xf32>
  %va = tessera.await %fa
  %x = arith.mulf %va, %s : memref<1024xf32>
  %vb = tessera.await %fb
  %y = arith.addf %x, %vb : memref<1024xf32>
  return %y : memref<1024xf32>
}
