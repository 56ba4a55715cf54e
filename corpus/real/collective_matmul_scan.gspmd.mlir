module @jit_body attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<32x16xf32>, %arg1: tensor<16x32xf32>) -> (tensor<32x32xf32> {jax.result_info = "result"}) {
    %0 = stablehlo.custom_call @Sharding(%arg0) {backend_config = "", mhlo.sharding = "{devices=[8,1]<=[8]}"} : (tensor<32x16xf32>) -> tensor<32x16xf32>
    %1 = stablehlo.custom_call @SPMDFullToShardShape(%0) {backend_config = "", mhlo.sharding = "{manual}"} : (tensor<32x16xf32>) -> tensor<4x16xf32>
    %2 = stablehlo.custom_call @Sharding(%arg1) {backend_config = "", mhlo.sharding = "{devices=[1,8]<=[8]}"} : (tensor<16x32xf32>) -> tensor<16x32xf32>
    %3 = stablehlo.custom_call @SPMDFullToShardShape(%2) {backend_config = "", mhlo.sharding = "{manual}"} : (tensor<16x32xf32>) -> tensor<16x4xf32>
    %4 = call @shmap_body(%1, %3) : (tensor<4x16xf32>, tensor<16x4xf32>) -> tensor<32x4xf32>
    %5 = stablehlo.custom_call @Sharding(%4) {backend_config = "", mhlo.sharding = "{manual}"} : (tensor<32x4xf32>) -> tensor<32x4xf32>
    %6 = stablehlo.custom_call @SPMDShardToFullShape(%5) {backend_config = "", mhlo.sharding = "{devices=[1,8]<=[8]}"} : (tensor<32x4xf32>) -> tensor<32x32xf32>
    return %6 : tensor<32x32xf32>
  }
  func.func private @shmap_body(%arg0: tensor<4x16xf32>, %arg1: tensor<16x4xf32>) -> (tensor<32x4xf32> {jax.result_info = "[None, ('x',)]"}) {
    %c = stablehlo.constant dense<1> : tensor<ui32>
    %c_0 = stablehlo.constant dense<8> : tensor<ui32>
    %0 = stablehlo.partition_id : tensor<ui32>
    %1 = stablehlo.divide %0, %c : tensor<ui32>
    %2 = stablehlo.remainder %1, %c_0 : tensor<ui32>
    %3 = stablehlo.convert %2 : (tensor<ui32>) -> tensor<i32>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %4 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<32x4xf32>
    %5 = stablehlo.iota dim = 0 : tensor<8xi32>
    %c_1 = stablehlo.constant dense<0> : tensor<i32>
    %6:6 = stablehlo.while(%iterArg = %5, %iterArg_2 = %3, %iterArg_3 = %arg1, %iterArg_4 = %c_1, %iterArg_5 = %arg0, %iterArg_6 = %4) : tensor<8xi32>, tensor<i32>, tensor<16x4xf32>, tensor<i32>, tensor<4x16xf32>, tensor<32x4xf32>
    cond {
      %c_7 = stablehlo.constant dense<8> : tensor<i32>
      %7 = stablehlo.compare LT, %iterArg_4, %c_7, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %7 : tensor<i1>
    } do {
      %7 = func.call @dynamic_index_in_dim(%iterArg, %iterArg_4) : (tensor<8xi32>, tensor<i32>) -> tensor<i32>
      %8:2 = func.call @closed_call(%iterArg_2, %iterArg_3, %iterArg_5, %iterArg_6, %7) : (tensor<i32>, tensor<16x4xf32>, tensor<4x16xf32>, tensor<32x4xf32>, tensor<i32>) -> (tensor<4x16xf32>, tensor<32x4xf32>)
      %c_7 = stablehlo.constant dense<1> : tensor<i32>
      %9 = stablehlo.add %iterArg_4, %c_7 : tensor<i32>
      stablehlo.return %iterArg, %iterArg_2, %iterArg_3, %9, %8#0, %8#1 : tensor<8xi32>, tensor<i32>, tensor<16x4xf32>, tensor<i32>, tensor<4x16xf32>, tensor<32x4xf32>
    }
    return %6#5 : tensor<32x4xf32>
  }
  func.func private @dynamic_index_in_dim(%arg0: tensor<8xi32>, %arg1: tensor<i32>) -> tensor<i32> {
    %0 = stablehlo.dynamic_slice %arg0, %arg1, sizes = [1] : (tensor<8xi32>, tensor<i32>) -> tensor<1xi32>
    %1 = stablehlo.reshape %0 : (tensor<1xi32>) -> tensor<i32>
    return %1 : tensor<i32>
  }
  func.func private @closed_call(%arg0: tensor<i32>, %arg1: tensor<16x4xf32>, %arg2: tensor<4x16xf32>, %arg3: tensor<32x4xf32>, %arg4: tensor<i32>) -> (tensor<4x16xf32>, tensor<32x4xf32>) {
    %0 = stablehlo.subtract %arg0, %arg4 : tensor<i32>
    %c = stablehlo.constant dense<8> : tensor<i32>
    %1 = call @remainder(%0, %c) : (tensor<i32>, tensor<i32>) -> tensor<i32>
    %2 = stablehlo.dot_general %arg2, %arg1, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<4x16xf32>, tensor<16x4xf32>) -> tensor<4x4xf32>
    %c_0 = stablehlo.constant dense<4> : tensor<i32>
    %3 = stablehlo.multiply %1, %c_0 : tensor<i32>
    %c_1 = stablehlo.constant dense<0> : tensor<i32>
    %4 = stablehlo.compare LT, %3, %c_1, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %c_2 = stablehlo.constant dense<32> : tensor<i32>
    %5 = stablehlo.add %3, %c_2 : tensor<i32>
    %6 = stablehlo.select %4, %5, %3 : tensor<i1>, tensor<i32>
    %c_3 = stablehlo.constant dense<0> : tensor<i32>
    %7 = stablehlo.dynamic_update_slice %arg3, %2, %6, %c_3 : (tensor<32x4xf32>, tensor<4x4xf32>, tensor<i32>, tensor<i32>) -> tensor<32x4xf32>
    %8 = "stablehlo.collective_permute"(%arg2) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, source_target_pairs = dense<[[0, 1], [1, 2], [2, 3], [3, 4], [4, 5], [5, 6], [6, 7], [7, 0]]> : tensor<8x2xi64>}> : (tensor<4x16xf32>) -> tensor<4x16xf32>
    return %8, %7 : tensor<4x16xf32>, tensor<32x4xf32>
  }
  func.func private @remainder(%arg0: tensor<i32>, %arg1: tensor<i32>) -> tensor<i32> {
    %0 = stablehlo.convert %arg1 : tensor<i32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %1 = stablehlo.compare EQ, %0, %c, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %c_0 = stablehlo.constant dense<1> : tensor<i32>
    %2 = call @_where(%1, %c_0, %0) : (tensor<i1>, tensor<i32>, tensor<i32>) -> tensor<i32>
    %3 = stablehlo.remainder %arg0, %2 : tensor<i32>
    %c_1 = stablehlo.constant dense<0> : tensor<i32>
    %4 = stablehlo.compare NE, %3, %c_1, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %c_2 = stablehlo.constant dense<0> : tensor<i32>
    %5 = stablehlo.compare LT, %3, %c_2, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %c_3 = stablehlo.constant dense<0> : tensor<i32>
    %6 = stablehlo.compare LT, %2, %c_3, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %7 = stablehlo.compare NE, %5, %6, UNSIGNED : (tensor<i1>, tensor<i1>) -> tensor<i1>
    %8 = stablehlo.and %7, %4 : tensor<i1>
    %9 = stablehlo.add %3, %2 : tensor<i32>
    %10 = stablehlo.select %8, %9, %3 : tensor<i1>, tensor<i32>
    return %10 : tensor<i32>
  }
  func.func private @_where(%arg0: tensor<i1>, %arg1: tensor<i32>, %arg2: tensor<i32>) -> tensor<i32> {
    %0 = stablehlo.select %arg0, %arg1, %arg2 : tensor<i1>, tensor<i32>
    return %0 : tensor<i32>
  }
}
