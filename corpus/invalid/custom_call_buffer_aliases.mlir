// output_operand_aliases over buffers (StableHLO 1.20 custom_call checks).
func.func @main(%x: tensor<2xf32>, %a: memref<2xf32>, %b: memref<2xf32>) -> tensor<2xf32> {
  %0 = "stablehlo.custom_call"(%x) {call_target_name = "Pin", api_version = 4 : i32, output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [], operand_index = 0, operand_tuple_indices = []>]} : (tensor<2xf32>) -> memref<2xf32>
  %1:2 = "stablehlo.custom_call"(%x, %a) {call_target_name = "twice", api_version = 4 : i32, output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [0], operand_index = 1, operand_tuple_indices = []>, #stablehlo.output_operand_alias<output_tuple_indices = [1], operand_index = 1, operand_tuple_indices = []>]} : (tensor<2xf32>, memref<2xf32>) -> (memref<2xf32>, memref<2xf32>)
  %2:2 = "stablehlo.custom_call"(%a, %b) {call_target_name = "swap", api_version = 4 : i32, output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [0], operand_index = 1, operand_tuple_indices = []>, #stablehlo.output_operand_alias<output_tuple_indices = [1], operand_index = 0, operand_tuple_indices = []>]} : (memref<2xf32>, memref<2xf32>) -> (memref<2xf32>, memref<2xf32>)
  return %x : tensor<2xf32>
}
