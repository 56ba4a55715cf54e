module @jit_f attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<16x64xf32>, %arg1: tensor<64x16xf32>, %arg2: tensor<4x16xf32>, %arg3: tensor<4x16xf32>) -> (tensor<f32> {jax.result_info = "result[0]"}, tensor<16x64xf32> {jax.result_info = "result[1]"}, tensor<64x16xf32> {jax.result_info = "result[2]"}, tensor<4x16xf32> {jax.result_info = "result[3]"}) {
    %0 = stablehlo.custom_call @Sharding(%arg2) {backend_config = "", mhlo.sharding = "{replicated}"} : (tensor<4x16xf32>) -> tensor<4x16xf32>
    %1 = stablehlo.custom_call @SPMDFullToShardShape(%0) {backend_config = "", mhlo.sharding = "{manual}"} : (tensor<4x16xf32>) -> tensor<4x16xf32>
    %2 = stablehlo.custom_call @Sharding(%arg0) {backend_config = "", mhlo.sharding = "{devices=[1,8]<=[8]}"} : (tensor<16x64xf32>) -> tensor<16x64xf32>
    %3 = stablehlo.custom_call @SPMDFullToShardShape(%2) {backend_config = "", mhlo.sharding = "{manual}"} : (tensor<16x64xf32>) -> tensor<16x8xf32>
    %4 = stablehlo.custom_call @Sharding(%arg1) {backend_config = "", mhlo.sharding = "{devices=[8,1]<=[8]}"} : (tensor<64x16xf32>) -> tensor<64x16xf32>
    %5 = stablehlo.custom_call @SPMDFullToShardShape(%4) {backend_config = "", mhlo.sharding = "{manual}"} : (tensor<64x16xf32>) -> tensor<8x16xf32>
    %6:11 = call @shmap_body(%1, %3, %5) : (tensor<4x16xf32>, tensor<16x8xf32>, tensor<8x16xf32>) -> (tensor<4x16xf32>, tensor<4x8xf32>, tensor<1xf32>, tensor<1xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<1xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x16xf32>)
    %7 = stablehlo.custom_call @Sharding(%6#0) {backend_config = "", mhlo.sharding = "{manual}"} : (tensor<4x16xf32>) -> tensor<4x16xf32>
    %8 = stablehlo.custom_call @SPMDShardToFullShape(%7) {backend_config = "", mhlo.sharding = "{devices=[8,1]<=[8]}"} : (tensor<4x16xf32>) -> tensor<32x16xf32>
    %9 = stablehlo.custom_call @Sharding(%6#1) {backend_config = "", mhlo.sharding = "{manual}"} : (tensor<4x8xf32>) -> tensor<4x8xf32>
    %10 = stablehlo.custom_call @SPMDShardToFullShape(%9) {backend_config = "", mhlo.sharding = "{devices=[8,1]<=[8]}"} : (tensor<4x8xf32>) -> tensor<32x8xf32>
    %11 = stablehlo.custom_call @Sharding(%6#2) {backend_config = "", mhlo.sharding = "{manual}"} : (tensor<1xf32>) -> tensor<1xf32>
    %12 = stablehlo.custom_call @SPMDShardToFullShape(%11) {backend_config = "", mhlo.sharding = "{devices=[8]<=[8]}"} : (tensor<1xf32>) -> tensor<8xf32>
    %13 = stablehlo.custom_call @Sharding(%6#3) {backend_config = "", mhlo.sharding = "{manual}"} : (tensor<1xf32>) -> tensor<1xf32>
    %14 = stablehlo.custom_call @SPMDShardToFullShape(%13) {backend_config = "", mhlo.sharding = "{devices=[8]<=[8]}"} : (tensor<1xf32>) -> tensor<8xf32>
    %15 = stablehlo.custom_call @Sharding(%6#4) {backend_config = "", mhlo.sharding = "{manual}"} : (tensor<4x8xf32>) -> tensor<4x8xf32>
    %16 = stablehlo.custom_call @SPMDShardToFullShape(%15) {backend_config = "", mhlo.sharding = "{devices=[8,1]<=[8]}"} : (tensor<4x8xf32>) -> tensor<32x8xf32>
    %17 = stablehlo.custom_call @Sharding(%6#5) {backend_config = "", mhlo.sharding = "{manual}"} : (tensor<4x8xf32>) -> tensor<4x8xf32>
    %18 = stablehlo.custom_call @SPMDShardToFullShape(%17) {backend_config = "", mhlo.sharding = "{devices=[8,1]<=[8]}"} : (tensor<4x8xf32>) -> tensor<32x8xf32>
    %19 = stablehlo.custom_call @Sharding(%6#6) {backend_config = "", mhlo.sharding = "{manual}"} : (tensor<1xf32>) -> tensor<1xf32>
    %20 = stablehlo.custom_call @SPMDShardToFullShape(%19) {backend_config = "", mhlo.sharding = "{devices=[8]<=[8]}"} : (tensor<1xf32>) -> tensor<8xf32>
    %21 = stablehlo.custom_call @Sharding(%6#7) {backend_config = "", mhlo.sharding = "{manual}"} : (tensor<4x8xf32>) -> tensor<4x8xf32>
    %22 = stablehlo.custom_call @SPMDShardToFullShape(%21) {backend_config = "", mhlo.sharding = "{devices=[8,1]<=[8]}"} : (tensor<4x8xf32>) -> tensor<32x8xf32>
    %23 = stablehlo.custom_call @Sharding(%6#8) {backend_config = "", mhlo.sharding = "{manual}"} : (tensor<4x8xf32>) -> tensor<4x8xf32>
    %24 = stablehlo.custom_call @SPMDShardToFullShape(%23) {backend_config = "", mhlo.sharding = "{devices=[8,1]<=[8]}"} : (tensor<4x8xf32>) -> tensor<32x8xf32>
    %25 = stablehlo.custom_call @Sharding(%6#9) {backend_config = "", mhlo.sharding = "{manual}"} : (tensor<4x8xf32>) -> tensor<4x8xf32>
    %26 = stablehlo.custom_call @SPMDShardToFullShape(%25) {backend_config = "", mhlo.sharding = "{devices=[8,1]<=[8]}"} : (tensor<4x8xf32>) -> tensor<32x8xf32>
    %27 = stablehlo.custom_call @Sharding(%6#10) {backend_config = "", mhlo.sharding = "{manual}"} : (tensor<4x16xf32>) -> tensor<4x16xf32>
    %28 = stablehlo.custom_call @SPMDShardToFullShape(%27) {backend_config = "", mhlo.sharding = "{replicated}"} : (tensor<4x16xf32>) -> tensor<4x16xf32>
    %29 = stablehlo.subtract %28, %arg3 : tensor<4x16xf32>
    %30 = stablehlo.multiply %29, %29 : tensor<4x16xf32>
    %cst = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %31 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<4x16xf32>
    %32 = stablehlo.multiply %31, %29 : tensor<4x16xf32>
    %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %33 = stablehlo.reduce(%30 init: %cst_0) applies stablehlo.add across dimensions = [0, 1] : (tensor<4x16xf32>, tensor<f32>) -> tensor<f32>
    %cst_1 = stablehlo.constant dense<6.400000e+01> : tensor<f32>
    %34 = stablehlo.divide %33, %cst_1 : tensor<f32>
    %cst_2 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %cst_3 = stablehlo.constant dense<6.400000e+01> : tensor<f32>
    %35 = stablehlo.divide %cst_2, %cst_3 : tensor<f32>
    %36 = stablehlo.broadcast_in_dim %35, dims = [] : (tensor<f32>) -> tensor<4x16xf32>
    %37 = stablehlo.multiply %36, %32 : tensor<4x16xf32>
    %38 = stablehlo.custom_call @Sharding(%37) {backend_config = "", mhlo.sharding = "{replicated}"} : (tensor<4x16xf32>) -> tensor<4x16xf32>
    %39 = stablehlo.custom_call @SPMDFullToShardShape(%38) {backend_config = "", mhlo.sharding = "{manual}"} : (tensor<4x16xf32>) -> tensor<4x16xf32>
    %40 = stablehlo.custom_call @Sharding(%arg0) {backend_config = "", mhlo.sharding = "{devices=[1,8]<=[8]}"} : (tensor<16x64xf32>) -> tensor<16x64xf32>
    %41 = stablehlo.custom_call @SPMDFullToShardShape(%40) {backend_config = "", mhlo.sharding = "{manual}"} : (tensor<16x64xf32>) -> tensor<16x8xf32>
    %42 = stablehlo.custom_call @Sharding(%8) {backend_config = "", mhlo.sharding = "{devices=[8,1]<=[8]}"} : (tensor<32x16xf32>) -> tensor<32x16xf32>
    %43 = stablehlo.custom_call @SPMDFullToShardShape(%42) {backend_config = "", mhlo.sharding = "{manual}"} : (tensor<32x16xf32>) -> tensor<4x16xf32>
    %44 = stablehlo.custom_call @Sharding(%10) {backend_config = "", mhlo.sharding = "{devices=[8,1]<=[8]}"} : (tensor<32x8xf32>) -> tensor<32x8xf32>
    %45 = stablehlo.custom_call @SPMDFullToShardShape(%44) {backend_config = "", mhlo.sharding = "{manual}"} : (tensor<32x8xf32>) -> tensor<4x8xf32>
    %46 = stablehlo.custom_call @Sharding(%12) {backend_config = "", mhlo.sharding = "{devices=[8]<=[8]}"} : (tensor<8xf32>) -> tensor<8xf32>
    %47 = stablehlo.custom_call @SPMDFullToShardShape(%46) {backend_config = "", mhlo.sharding = "{manual}"} : (tensor<8xf32>) -> tensor<1xf32>
    %48 = stablehlo.custom_call @Sharding(%14) {backend_config = "", mhlo.sharding = "{devices=[8]<=[8]}"} : (tensor<8xf32>) -> tensor<8xf32>
    %49 = stablehlo.custom_call @SPMDFullToShardShape(%48) {backend_config = "", mhlo.sharding = "{manual}"} : (tensor<8xf32>) -> tensor<1xf32>
    %50 = stablehlo.custom_call @Sharding(%16) {backend_config = "", mhlo.sharding = "{devices=[8,1]<=[8]}"} : (tensor<32x8xf32>) -> tensor<32x8xf32>
    %51 = stablehlo.custom_call @SPMDFullToShardShape(%50) {backend_config = "", mhlo.sharding = "{manual}"} : (tensor<32x8xf32>) -> tensor<4x8xf32>
    %52 = stablehlo.custom_call @Sharding(%18) {backend_config = "", mhlo.sharding = "{devices=[8,1]<=[8]}"} : (tensor<32x8xf32>) -> tensor<32x8xf32>
    %53 = stablehlo.custom_call @SPMDFullToShardShape(%52) {backend_config = "", mhlo.sharding = "{manual}"} : (tensor<32x8xf32>) -> tensor<4x8xf32>
    %54 = stablehlo.custom_call @Sharding(%20) {backend_config = "", mhlo.sharding = "{devices=[8]<=[8]}"} : (tensor<8xf32>) -> tensor<8xf32>
    %55 = stablehlo.custom_call @SPMDFullToShardShape(%54) {backend_config = "", mhlo.sharding = "{manual}"} : (tensor<8xf32>) -> tensor<1xf32>
    %56 = stablehlo.custom_call @Sharding(%22) {backend_config = "", mhlo.sharding = "{devices=[8,1]<=[8]}"} : (tensor<32x8xf32>) -> tensor<32x8xf32>
    %57 = stablehlo.custom_call @SPMDFullToShardShape(%56) {backend_config = "", mhlo.sharding = "{manual}"} : (tensor<32x8xf32>) -> tensor<4x8xf32>
    %58 = stablehlo.custom_call @Sharding(%24) {backend_config = "", mhlo.sharding = "{devices=[8,1]<=[8]}"} : (tensor<32x8xf32>) -> tensor<32x8xf32>
    %59 = stablehlo.custom_call @SPMDFullToShardShape(%58) {backend_config = "", mhlo.sharding = "{manual}"} : (tensor<32x8xf32>) -> tensor<4x8xf32>
    %60 = stablehlo.custom_call @Sharding(%arg1) {backend_config = "", mhlo.sharding = "{devices=[8,1]<=[8]}"} : (tensor<64x16xf32>) -> tensor<64x16xf32>
    %61 = stablehlo.custom_call @SPMDFullToShardShape(%60) {backend_config = "", mhlo.sharding = "{manual}"} : (tensor<64x16xf32>) -> tensor<8x16xf32>
    %62 = stablehlo.custom_call @Sharding(%26) {backend_config = "", mhlo.sharding = "{devices=[8,1]<=[8]}"} : (tensor<32x8xf32>) -> tensor<32x8xf32>
    %63 = stablehlo.custom_call @SPMDFullToShardShape(%62) {backend_config = "", mhlo.sharding = "{manual}"} : (tensor<32x8xf32>) -> tensor<4x8xf32>
    %64:3 = call @shmap_body_0(%39, %41, %43, %45, %47, %49, %51, %53, %55, %57, %59, %61, %63) : (tensor<4x16xf32>, tensor<16x8xf32>, tensor<4x16xf32>, tensor<4x8xf32>, tensor<1xf32>, tensor<1xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<1xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<8x16xf32>, tensor<4x8xf32>) -> (tensor<4x16xf32>, tensor<16x8xf32>, tensor<8x16xf32>)
    %65 = stablehlo.custom_call @Sharding(%64#0) {backend_config = "", mhlo.sharding = "{manual}"} : (tensor<4x16xf32>) -> tensor<4x16xf32>
    %66 = stablehlo.custom_call @SPMDShardToFullShape(%65) {backend_config = "", mhlo.sharding = "{replicated}"} : (tensor<4x16xf32>) -> tensor<4x16xf32>
    %67 = stablehlo.custom_call @Sharding(%64#1) {backend_config = "", mhlo.sharding = "{manual}"} : (tensor<16x8xf32>) -> tensor<16x8xf32>
    %68 = stablehlo.custom_call @SPMDShardToFullShape(%67) {backend_config = "", mhlo.sharding = "{devices=[1,8]<=[8]}"} : (tensor<16x8xf32>) -> tensor<16x64xf32>
    %69 = stablehlo.custom_call @Sharding(%64#2) {backend_config = "", mhlo.sharding = "{manual}"} : (tensor<8x16xf32>) -> tensor<8x16xf32>
    %70 = stablehlo.custom_call @SPMDShardToFullShape(%69) {backend_config = "", mhlo.sharding = "{devices=[8,1]<=[8]}"} : (tensor<8x16xf32>) -> tensor<64x16xf32>
    %cst_4 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %71 = stablehlo.broadcast_in_dim %cst_4, dims = [] : (tensor<f32>) -> tensor<16x64xf32>
    %72 = stablehlo.multiply %71, %68 : tensor<16x64xf32>
    %73 = stablehlo.subtract %arg0, %72 : tensor<16x64xf32>
    %cst_5 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %74 = stablehlo.broadcast_in_dim %cst_5, dims = [] : (tensor<f32>) -> tensor<64x16xf32>
    %75 = stablehlo.multiply %74, %70 : tensor<64x16xf32>
    %76 = stablehlo.subtract %arg1, %75 : tensor<64x16xf32>
    return %34, %73, %76, %66 : tensor<f32>, tensor<16x64xf32>, tensor<64x16xf32>, tensor<4x16xf32>
  }
  func.func private @shmap_body(%arg0: tensor<4x16xf32>, %arg1: tensor<16x8xf32>, %arg2: tensor<8x16xf32>) -> (tensor<4x16xf32> {jax.result_info = "[('x',), None]"}, tensor<4x8xf32> {jax.result_info = "[('x',), None]"}, tensor<1xf32> {jax.result_info = "[('x',)]"}, tensor<1xf32> {jax.result_info = "[('x',)]"}, tensor<4x8xf32> {jax.result_info = "[('x',), None]"}, tensor<4x8xf32> {jax.result_info = "[('x',), None]"}, tensor<1xf32> {jax.result_info = "[('x',)]"}, tensor<4x8xf32> {jax.result_info = "[('x',), None]"}, tensor<4x8xf32> {jax.result_info = "[('x',), None]"}, tensor<4x8xf32> {jax.result_info = "[('x',), None]"}, tensor<4x16xf32> {jax.result_info = "[None, None]"}) {
    %0 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<4x16xf32>, tensor<16x8xf32>) -> tensor<4x8xf32>
    %1 = stablehlo.multiply %0, %0 : tensor<4x8xf32>
    %2 = stablehlo.multiply %1, %0 : tensor<4x8xf32>
    %3 = stablehlo.multiply %0, %0 : tensor<4x8xf32>
    %cst = stablehlo.constant dense<3.000000e+00> : tensor<f32>
    %4 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<4x8xf32>
    %5 = stablehlo.multiply %4, %3 : tensor<4x8xf32>
    %cst_0 = stablehlo.constant dense<4.471500e-02> : tensor<f32>
    %6 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<4x8xf32>
    %7 = stablehlo.multiply %6, %2 : tensor<4x8xf32>
    %8 = stablehlo.add %0, %7 : tensor<4x8xf32>
    %cst_1 = stablehlo.constant dense<0.797884583> : tensor<f32>
    %9 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f32>) -> tensor<4x8xf32>
    %10 = stablehlo.multiply %9, %8 : tensor<4x8xf32>
    %11 = stablehlo.tanh %10 : tensor<4x8xf32>
    %cst_2 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %12 = stablehlo.broadcast_in_dim %cst_2, dims = [] : (tensor<f32>) -> tensor<4x8xf32>
    %13 = stablehlo.subtract %12, %11 : tensor<4x8xf32>
    %cst_3 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %14 = stablehlo.broadcast_in_dim %cst_3, dims = [] : (tensor<f32>) -> tensor<4x8xf32>
    %15 = stablehlo.add %14, %11 : tensor<4x8xf32>
    %cst_4 = stablehlo.constant dense<5.000000e-01> : tensor<f32>
    %16 = stablehlo.broadcast_in_dim %cst_4, dims = [] : (tensor<f32>) -> tensor<4x8xf32>
    %17 = stablehlo.multiply %16, %15 : tensor<4x8xf32>
    %18 = stablehlo.multiply %0, %17 : tensor<4x8xf32>
    %19 = stablehlo.dot_general %18, %arg2, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
    %20 = "stablehlo.all_reduce"(%19) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1, 2, 3, 4, 5, 6, 7]]> : tensor<1x8xi64>, use_global_device_ids}> ({
    ^bb0(%arg3: tensor<f32>, %arg4: tensor<f32>):
      %24 = stablehlo.add %arg3, %arg4 : tensor<f32>
      stablehlo.return %24 : tensor<f32>
    }) : (tensor<4x16xf32>) -> tensor<4x16xf32>
    %21 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<1xf32>
    %22 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f32>) -> tensor<1xf32>
    %23 = stablehlo.broadcast_in_dim %cst_4, dims = [] : (tensor<f32>) -> tensor<1xf32>
    return %arg0, %5, %21, %22, %11, %13, %23, %17, %0, %18, %20 : tensor<4x16xf32>, tensor<4x8xf32>, tensor<1xf32>, tensor<1xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<1xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x16xf32>
  }
  func.func private @shmap_body_0(%arg0: tensor<4x16xf32>, %arg1: tensor<16x8xf32>, %arg2: tensor<4x16xf32>, %arg3: tensor<4x8xf32>, %arg4: tensor<1xf32>, %arg5: tensor<1xf32>, %arg6: tensor<4x8xf32>, %arg7: tensor<4x8xf32>, %arg8: tensor<1xf32>, %arg9: tensor<4x8xf32>, %arg10: tensor<4x8xf32>, %arg11: tensor<8x16xf32>, %arg12: tensor<4x8xf32>) -> (tensor<4x16xf32> {jax.result_info = "[None, None]"}, tensor<16x8xf32> {jax.result_info = "[None, ('x',)]"}, tensor<8x16xf32> {jax.result_info = "[('x',), None]"}) {
    %0 = stablehlo.reshape %arg4 : (tensor<1xf32>) -> tensor<f32>
    %1 = stablehlo.reshape %arg5 : (tensor<1xf32>) -> tensor<f32>
    %2 = stablehlo.reshape %arg8 : (tensor<1xf32>) -> tensor<f32>
    %3 = stablehlo.dot_general %arg0, %arg12, contracting_dims = [0] x [0], precision = [DEFAULT, DEFAULT] : (tensor<4x16xf32>, tensor<4x8xf32>) -> tensor<16x8xf32>
    %4 = stablehlo.transpose %3, dims = [1, 0] : (tensor<16x8xf32>) -> tensor<8x16xf32>
    %5 = stablehlo.dot_general %arg0, %arg11, contracting_dims = [1] x [1], precision = [DEFAULT, DEFAULT] : (tensor<4x16xf32>, tensor<8x16xf32>) -> tensor<4x8xf32>
    %6 = stablehlo.multiply %arg10, %5 : tensor<4x8xf32>
    %7 = stablehlo.multiply %5, %arg9 : tensor<4x8xf32>
    %8 = stablehlo.broadcast_in_dim %2, dims = [] : (tensor<f32>) -> tensor<4x8xf32>
    %9 = stablehlo.multiply %8, %6 : tensor<4x8xf32>
    %10 = stablehlo.multiply %9, %arg7 : tensor<4x8xf32>
    %11 = stablehlo.multiply %10, %arg6 : tensor<4x8xf32>
    %12 = stablehlo.add %10, %11 : tensor<4x8xf32>
    %13 = stablehlo.broadcast_in_dim %1, dims = [] : (tensor<f32>) -> tensor<4x8xf32>
    %14 = stablehlo.multiply %13, %12 : tensor<4x8xf32>
    %15 = stablehlo.add %7, %14 : tensor<4x8xf32>
    %16 = stablehlo.broadcast_in_dim %0, dims = [] : (tensor<f32>) -> tensor<4x8xf32>
    %17 = stablehlo.multiply %16, %14 : tensor<4x8xf32>
    %18 = stablehlo.multiply %17, %arg3 : tensor<4x8xf32>
    %19 = stablehlo.add %15, %18 : tensor<4x8xf32>
    %20 = stablehlo.dot_general %19, %arg2, contracting_dims = [0] x [0], precision = [DEFAULT, DEFAULT] : (tensor<4x8xf32>, tensor<4x16xf32>) -> tensor<8x16xf32>
    %21 = stablehlo.transpose %20, dims = [1, 0] : (tensor<8x16xf32>) -> tensor<16x8xf32>
    %22 = stablehlo.dot_general %19, %arg1, contracting_dims = [1] x [1], precision = [DEFAULT, DEFAULT] : (tensor<4x8xf32>, tensor<16x8xf32>) -> tensor<4x16xf32>
    %23 = "stablehlo.all_reduce"(%22) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1, 2, 3, 4, 5, 6, 7]]> : tensor<1x8xi64>, use_global_device_ids}> ({
    ^bb0(%arg13: tensor<f32>, %arg14: tensor<f32>):
      %24 = stablehlo.add %arg13, %arg14 : tensor<f32>
      stablehlo.return %24 : tensor<f32>
    }) : (tensor<4x16xf32>) -> tensor<4x16xf32>
    return %23, %21, %4 : tensor<4x16xf32>, tensor<16x8xf32>, tensor<8x16xf32>
  }
}
