e {mhls6{
 hlo ({
      %r:2147483647 = "stablehlo.all_reduce"(%a, %b) f32>
    }2>) -  }
}