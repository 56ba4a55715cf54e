es {mhl : i32} {
  fu @main(%arg0: <32x4xf32> {ja= "result"}) {
    %0 = sdy.manual_computation(%arg0) in_shardings=[<@mesh, [{"x"}, {}]>] out_shardings=[<@mesh, [{"x"}, {}]>] manual_axes={"x"} (%arg1: tensor<4x4xf32>) {
      %1 =<4x4xf32>
    } : (tensor<32x4xf32>) -> tensor<32x4xf32>
    %0 = sdy.manual_computation(%arg0) in_shardings=[<@mesh, [{"x"}, {}]>] out_shardings=[<@mesh, [{"x"}, {}]>] manual_axes={"x"} (%arg1: tensor<4x4xf32>) {
    <4x4xf32>
    } : (tensor<32x4xf32>) -> tensor<32x4xf32>
  }
}