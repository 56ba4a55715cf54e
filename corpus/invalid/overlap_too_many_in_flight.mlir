// Seed 003's max_inflight: three all_reduces in flight where two are allowed.
func.func @step(%a: memref<1024xf32>, %b: memref<1024xf32>, %c: memref<1024xf32>) -> memref<1024xf32> {
  %fa = tessera.collective.all_reduce %a {op = "sum", max_inflight = 2}
  %fb = tessera.collective.all_reduce %b {op = "sum", max_inflight = 2}
  %fc = tessera.collective.all_reduce %c {op = "sum", max_inflight = 2}
  %va = tessera.await %fa
  %vb = tessera.await %fb
  %vc = tessera.await %fc
  return %vc : memref<1024xf32>
}
