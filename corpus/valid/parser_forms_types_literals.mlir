#CSR = #sparse_tensor.encoding<{
  map = (d0, d1) -> (d0 : dense, d1 : compressed)
}>
!qt = !quant.uniform<i8:f32, 0.5:3>
// Types and literal forms the parser must read (hand-written for shlo-lint):
// quantized per-tensor / per-axis in signatures, memref, complex, index, a sparse
// encoding alias written over lines, dynamic dims, dense (nested, splat, hex,
// complex, bool, strings), dense_resource, array<>, #stablehlo attributes, and
// a function written on one line.
module attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 2 : i32} {
  func.func @one(%a: tensor<f32>) -> tensor<f32> { %0 = stablehlo.add %a, %a : tensor<f32> return %0 : tensor<f32> }
  func.func @q(%a: tensor<2x!quant.uniform<i8:f32, 2.0:15>>, %b: tensor<2x2x!quant.uniform<i8:f32:1, {0.1:-30, 0.5:-20}>>,
               %m: memref<4x?xf32>, %c: tensor<2xcomplex<f32>>, %i: index, %s: tensor<8x8xf32, #CSR>, %d: tensor<?x?xf32>) -> tensor<2x!qt> {
    %0 = stablehlo.uniform_quantize %a : (tensor<2x!quant.uniform<i8:f32, 2.0:15>>) -> tensor<2x!qt>
    %c1 = stablehlo.constant dense<[[1, 2], [3, 4]]> : tensor<2x2xi32>
    %c2 = stablehlo.constant dense<1.5> : tensor<4xf32>
    %c3 = stablehlo.constant dense<"0x0000803F00000040"> : tensor<2xf32>
    %c4 = stablehlo.constant dense<[(1.0, 2.0), (3.0, -4.0)]> : tensor<2xcomplex<f32>>
    %c5 = stablehlo.constant dense<[true, false]> : tensor<2xi1>
    %c6 = stablehlo.custom_call @host_note(%c2) {mhlo.notes = dense<["ab", "c\22"]> : tensor<2x!tf_type.string>} : (tensor<4xf32>) -> tensor<4xf32>
    %c7 = stablehlo.constant dense_resource<blob1> : tensor<2xf32>
    %x = stablehlo.map %c2, %c2 (%e0: tensor<f32>, %e1: tensor<f32>) {
      %s0 = stablehlo.add %e0, %e1 : tensor<f32>
      stablehlo.return %s0 : tensor<f32>
    } : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %y = "stablehlo.map"(%c2, %c2) <{dimensions = array<i64: 0>}> ({
    ^bb0(%e0: tensor<f32>, %e1: tensor<f32>):
      %s0 = stablehlo.add %e0, %e1 : tensor<f32>
      stablehlo.return %s0 : tensor<f32>
    }) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %t:2 = stablehlo.sort %c2, %c2, dimension = 0 : (tensor<4xf32>, tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) loc("x.py":1:2)
    %r = "stablehlo.all_reduce"(%c2) <{replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>, channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>}> ({
    ^bb0(%p: tensor<f32>, %q: tensor<f32>):
      %s = stablehlo.add %p, %q : tensor<f32>
      stablehlo.return %s : tensor<f32>
    }) : (tensor<4xf32>) -> tensor<4xf32>
    %g = "stablehlo.gather"(%d, %c1) <{dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, slice_sizes = array<i64: 1, 4>}> : (tensor<?x?xf32>, tensor<2x2xi32>) -> tensor<2x4xf32>
    %cmp = stablehlo.compare  LT, %c2, %c2,  FLOAT : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
    %cv = stablehlo.convolution(%c2, %c2) dim_numbers = [b, 0, f]x[0, i, o]->[b, 0, f], window = {stride = [1], pad = [[0, 0]], lhs_dilate = [1], rhs_dilate = [1]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %dg = stablehlo.dot_general %c2, %c2, contracting_dims = [0] x [0], precision = [DEFAULT, DEFAULT] : (tensor<4xf32>, tensor<4xf32>) -> tensor<f32>
    %pr = "stablehlo.custom_call"(%c2) {call_target_name = "foo", output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [], operand_index = 0, operand_tuple_indices = []>]} : (tensor<4xf32>) -> tensor<4xf32>
    %ty = "stablehlo.rng_bit_generator"(%c2) <{rng_algorithm = #stablehlo<rng_algorithm THREE_FRY>}> : (tensor<4xf32>) -> tensor<4xf32>
    return %0 : tensor<2x!qt>
  } }
{-#
  dialect_resources: {
    builtin: {
      blob1: "0x040000000000803F00000040"
    }
  }
#-}
