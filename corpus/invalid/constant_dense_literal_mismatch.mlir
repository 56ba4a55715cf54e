// Constants whose dense<...> literal MLIR's parser rejects for the type
// (each message checked against jaxlib 0.10's ir.Module.parse).
func.func public @main() -> tensor<2xi32> {
  %0 = stablehlo.constant dense<[1, 2, 3]> : tensor<2xi32>
  %1 = stablehlo.constant dense<1.5> : tensor<i32>
  %2 = stablehlo.constant dense<300> : tensor<i8>
  %3 = stablehlo.constant dense<-1> : tensor<ui8>
  %4 = stablehlo.constant dense<1> : tensor<f32>
  %5 = stablehlo.constant dense<true> : tensor<i32>
  %6 = "stablehlo.constant"() <{value = dense<[[1, 2]]> : tensor<2xi64>}> : () -> tensor<2xi64>
  %7 = stablehlo.constant dense<[[1], 2]> : tensor<2x1xi32>
  return %0 : tensor<2xi32>
}
