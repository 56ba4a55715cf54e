func.func @main(%a: tensor<f32>) -> tensor<f32> {
  %0 = "stablehlo.add"(%a) : (tensor<f32, #x<<1>>, f32) -> f32
  return %0 : tensor<f32>
}
