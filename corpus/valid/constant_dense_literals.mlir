// Literals MLIR's parser accepts at the edges of their types (jaxlib 0.10):
// signless i8 takes -128..255, i1 takes -1/0/1 and true/false, hex is a bit
// pattern, a complex tensor with no elements takes any splat.
func.func public @main() -> tensor<i8> {
  %0 = stablehlo.constant dense<255> : tensor<i8>
  %1 = stablehlo.constant dense<-128> : tensor<i8>
  %2 = stablehlo.constant dense<[true, false, -1, 1]> : tensor<4xi1>
  %3 = stablehlo.constant dense<0x7F800000> : tensor<f32>
  %4 = stablehlo.constant dense<-0x1> : tensor<i32>
  %5 = stablehlo.constant dense<[(1.0, 2.0), (3.5, -0.0)]> : tensor<2xcomplex<f32>>
  %6 = stablehlo.constant dense<[]> : tensor<0xi32>
  %7 = stablehlo.constant dense<[[]]> : tensor<1x0xf32>
  %8 = stablehlo.constant dense<1.000000e+10> : tensor<2x2xf32>
  %9 = stablehlo.constant dense<65535> : tensor<ui16>
  %10 = stablehlo.constant dense<"0x0000803F"> : tensor<f32>
  %11 = stablehlo.constant dense<1.5> : tensor<0xcomplex<f32>>
  return %0 : tensor<i8>
}
