// Buffer targets used wrongly (StableHLO 1.20 custom_call checks).
func.func @main(%x: tensor<2xf32>, %b: memref<2xf32>) -> tensor<2xf32> {
  %0 = "stablehlo.custom_call"(%x) {call_target_name = "CreateBuffer", api_version = 4 : i32} : (tensor<2xf32>) -> memref<2xf32>
  %1 = "stablehlo.custom_call"(%x) {call_target_name = "Pin", api_version = 4 : i32} : (tensor<2xf32>) -> tensor<2xf32>
  %2 = "stablehlo.custom_call"(%b) {call_target_name = "Unpin", api_version = 4 : i32} : (memref<2xf32>) -> tensor<2xi32>
  %3 = "stablehlo.custom_call"(%b) {call_target_name = "touch", api_version = 4 : i32} : (memref<2xf32>) -> memref<2xf32>
  return %x : tensor<2xf32>
}
