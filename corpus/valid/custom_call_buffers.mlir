// Buffer (memref) results: Pin, an aliased in-place update, Unpin (StableHLO 1.20 custom_call checks).
func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {
  %0 = "stablehlo.custom_call"(%x) {call_target_name = "Pin", api_version = 4 : i32} : (tensor<2xf32>) -> memref<2xf32>
  %1 = "stablehlo.custom_call"(%0) {call_target_name = "scale_in_place", api_version = 4 : i32, output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [], operand_index = 0, operand_tuple_indices = []>]} : (memref<2xf32>) -> memref<2xf32>
  %2 = "stablehlo.custom_call"(%1) {call_target_name = "Unpin", api_version = 4 : i32} : (memref<2xf32>) -> tensor<2xf32>
  %3 = "stablehlo.custom_call"() {call_target_name = "CreateBuffer", api_version = 4 : i32} : () -> memref<8xf32>
  return %2 : tensor<2xf32>
}
