"""The Lark header parser on whole ops: generic and pretty forms, block labels,
syntax errors, and every op of the corpus (the regex fast path and the full
grammar must agree exactly). Types, attributes and locations: tests/test_parse.py.
"""
from __future__ import annotations


import pytest

from shlo_lint.checker.ir.attributes import (ArrayAttr, BoolAttr, DenseArrayAttr, DenseElementsAttr, DictAttr, EnumAttr,
                                             IntegerAttr, OpaqueAttr, StringAttr, SymbolRefAttr, TypeAttr, UnitAttr)
from shlo_lint.checker.ir.core import (Block, FileLineColLoc, FusedLoc, LocAlias, Module, NameLoc, Operation, Region,
                                       UnknownLoc)
from shlo_lint.checker.frontend.stablehlo.parse import SyntaxProblem, parse_type
from shlo_lint.checker.source.text import SourceFile, Span
from shlo_lint.checker.ir.types import FunctionType, FutureType, MemRefType, ScalarType, TensorType, TokenType


from parse_helpers import PARSER, F32, I32, I64, A, T, op_header, parse_ok, at, line_col


# =========================================================================== generic ops
def test_generic_form_everything():
    text = ('%r:2 = "d.op"(%a, %b#1) <{p = 1 : i32}> ({\n  "d.inner"() : () -> ()\n}, {\n}) '
            '{q = "x"} : (tensor<f32>, tensor<4xf32>) -> (tensor<f32>, tensor<4xf32>) loc("f.py":3:4)')
    h = parse_ok(text, '{\n  "d.inner"() : () -> ()\n}', "{\n}")
    assert h.name == "d.op" and h.generic
    assert at(text, h.name_span) == '"d.op"'
    assert [n for n, _ in h.operands] == ["%a", "%b#1"]
    assert at(text, h.operands[1][1]) == "%b#1"
    assert h.attributes == {"p": IntegerAttr(1, I32), "q": StringAttr("x")}
    assert h.properties == frozenset({"p"})
    assert h.operand_types == [TensorType((), F32), TensorType((4,), F32)]
    assert h.result_types == h.operand_types
    assert h.loc == FileLineColLoc("f.py", 3, 4)
    # spans after the collapsed regions are still absolute
    assert line_col(text, h.attributes["q"].span) == (4, 9) and at(text, h.attributes["q"].span) == "\"x\""


def test_generic_no_results_no_operands_single_result_and_successors():
    h = parse_ok('"stablehlo.create_token"() : () -> !stablehlo.token')
    assert h.operands == [] and h.operand_types == [] and h.result_types == [TokenType()]
    h = parse_ok('"func.return"(%1#0, %1#1) : (tensor<i32>, tensor<4xf32>) -> ()')
    assert h.result_types == [] and len(h.operand_types) == 2
    h = parse_ok('"cf.br"(%a)[^bb1] : (i32) -> ()')
    assert h.successors == ["^bb1"]
    h = parse_ok('"cf.cond_br"(%c, %a)[^bb1(%a : i32), ^bb2] : (i1, i32) -> ()')
    assert h.successors == ["^bb1", "^bb2"]


def test_seed_000_send_and_recv():
    send = ('%result = "stablehlo.send"(%operand, %token) {\n'
            '  source_target_pairs = dense<[[0, 1], [1, 2]]> : tensor<2x2xi64>,\n'
            '  channel_handle = #stablehlo.channel_handle<handle = 1, type = 2>,\n'
            '  is_host_transfer = true\n'
            '} : (tensor<2x2xi64>, !stablehlo.token) -> !stablehlo.token')
    h = parse_ok(send)
    pairs = h.attributes["source_target_pairs"]
    assert pairs.array.tolist() == [[0, 1], [1, 2]]
    assert at(send, pairs.span) == "dense<[[0, 1], [1, 2]]> : tensor<2x2xi64>"
    assert line_col(send, pairs.span) == (2, 25)
    assert h.attributes["channel_handle"].int_param("type") == 2
    assert h.attributes["is_host_transfer"] == BoolAttr(True)
    assert h.result_types == [TokenType()] and h.operand_types[1] == TokenType()
    recv = ('%results0, %results1 = "stablehlo.recv"(%token) {\n'
            '  source_target_pairs = dense<[[0, 1], [1, 2]]> : tensor<2x2xi64>,\n'
            '  channel_handle = #stablehlo.channel_handle<handle = 1, type = 3>,\n'
            '  is_host_transfer = false\n'
            '} : (!stablehlo.token) -> (tensor<2x2xi64>, !stablehlo.token)')
    h = parse_ok(recv)
    assert h.result_types == [TensorType((2, 2), I64), TokenType()]
    assert h.attributes["is_host_transfer"] == BoolAttr(False)


def test_comments_inside_a_multi_line_op_are_skipped():
    h = parse_ok('%r = "stablehlo.send"(%a, %t) {\n  // the pairs\n'
                 '  source_target_pairs = dense<[[0, 1]]> : tensor<1x2xi64>\n'
                 '} : (tensor<f32>, !stablehlo.token) -> !stablehlo.token')
    assert h.attributes["source_target_pairs"].array.tolist() == [[0, 1]]


def test_properties_form_as_jax_prints_collectives():
    text = ('%1 = "stablehlo.all_reduce"(%arg1) <{channel_handle = #stablehlo.channel_handle<handle = 1, '
            'type = 1>, replica_groups = dense<[[0, 4], [1, 5]]> : tensor<2x2xi64>, use_global_device_ids}> ({\n'
            '^bb0(%arg2: tensor<f32>, %arg3: tensor<f32>):\n'
            '  %2 = stablehlo.add %arg2, %arg3 : tensor<f32>\n'
            '  stablehlo.return %2 : tensor<f32>\n'
            '}) : (tensor<4x4xf32>) -> tensor<4x4xf32> loc(#loc9)')
    region = text[text.index("({") + 1:text.index("})") + 1]
    h = parse_ok(text, region)
    assert h.properties == frozenset({"channel_handle", "replica_groups", "use_global_device_ids"})
    assert isinstance(h.attributes["use_global_device_ids"], UnitAttr)
    assert h.attributes["replica_groups"].type == TensorType((2, 2), I64)
    assert h.loc == LocAlias("#loc9")


def test_seed_002_async_start_with_as_arguments_and_a_bare_region():
    text = ('%future = "stablehlo.async_start"(\n'
            '    %init_i as %arg0: tensor<i64>,\n'
            '    %init_sum as %arg1: tensor<i64>)\n'
            '{\n'
            '    %new_sum = stablehlo.add %arg1, %arg0 : tensor<i64>\n'
            '    stablehlo.return %new_sum : tensor<i64>\n'
            '} : (tensor<i64>, tensor<i64>) -> async<tensor<i64>>')
    region = text[text.index("{"):text.rindex("}") + 1]
    h = parse_ok(text, region)
    assert [n for n, _ in h.operands] == ["%init_i", "%init_sum"]
    assert [(n, t) for n, t, _ in h.region_args[0]] == [("%arg0", TensorType((), I64)), ("%arg1", TensorType((), I64))]
    assert line_col(text, h.region_args[0][1][2]) == (3, 18) and at(text, h.region_args[0][1][2]) == "%arg1"
    assert h.result_types == [FutureType((TensorType((), I64),), "async")]
    done = parse_ok('%result = "stablehlo.async_done"(%future): async<tensor<i64>> -> tensor<i64>')
    assert done.operand_types == [FutureType((TensorType((), I64),), "async")]
    assert done.result_types == [TensorType((), I64)]


def test_seed_004_futures():
    text = ('%future = "stablehlo.collective_permute_start"(%operand) {\n'
            'source_target_pairs = dense<[[0, 1], [1, 2]]> : tensor<2x2xi64>,\n'
            'channel_handle = #stablehlo.channel_handle<handle = 0, type = 0>\n'
            '} : (tensor<2x2xi64>) -> future<tensor<2x2xi64>>')
    h = parse_ok(text)
    assert h.result_types == [FutureType((TensorType((2, 2), I64),))]
    h = parse_ok('"stablehlo.async_done"(%f1) : (!stablehlo.future<tensor<4x4xf32>>) -> (tensor<4x4xf32>)')
    assert h.operand_types == [FutureType((TensorType((4, 4), F32),))]
    region = '({\n%y = "stablehlo.all_gather"(%x) {all_gather_dim = 1 : i64} : (tensor<8x2xf32>) -> tensor<8x8xf32>\n})'
    text = f'"stablehlo.async_start"(%x) {region} : (tensor<8x2xf32>) -> !stablehlo.future<tensor<8x8xf32>>'
    h = parse_ok(text, region[1:-1])
    assert h.result_types == [FutureType((TensorType((8, 8), F32),))]


# =========================================================================== pretty ops
def test_elementwise_and_single_type_forms():
    text = "%0 = stablehlo.add %a, %b : tensor<4xf32>"
    h = parse_ok(text)
    assert (h.name, h.generic) == ("stablehlo.add", False)
    assert at(text, h.name_span) == "stablehlo.add"
    assert [n for n, _ in h.operands] == ["%a", "%b"]
    assert h.operand_types == [TensorType((4,), F32)] * 2 and h.result_types == [TensorType((4,), F32)]
    h = parse_ok("%1 = stablehlo.convert %x : (tensor<f32>) -> tensor<bf16>")
    assert h.operand_types == [TensorType((), F32)] and h.result_types == [TensorType((), ScalarType("bf16"))]
    h = parse_ok("%0 = stablehlo.convert %arg0 : tensor<i32>")
    assert h.operand_types == [TensorType((), I32)] and h.result_types == [TensorType((), I32)]


def test_constant_value_takes_the_result_type():
    text = "%cst = stablehlo.constant dense<1.000000e+00> : tensor<f32>"
    h = parse_ok(text)
    assert h.attributes["value"] == DenseElementsAttr("1.000000e+00", TensorType((), F32))
    assert at(text, h.attributes["value"].span) == "dense<1.000000e+00>"
    assert h.result_types == [TensorType((), F32)] and h.operands == []
    h = parse_ok("%c = stablehlo.constant dense<[[true, false]]> : tensor<1x2xi1>")
    assert h.attributes["value"].array.tolist() == [[True, False]]
    h = parse_ok("%q = stablehlo.constant() <{value = dense<1> : tensor<2xi8>}> : () -> tensor<2x!quant.uniform<i8:f32, 0.5>>")
    assert h.attributes["value"].type == TensorType((2,), ScalarType("i8")) and h.properties == frozenset({"value"})


def test_compare():
    text = "%1 = stablehlo.compare  LT, %a, %b,  SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>"
    h = parse_ok(text)
    assert h.attributes["comparison_direction"] == EnumAttr("stablehlo", "comparison_direction", "LT")
    assert h.attributes["compare_type"] == EnumAttr("stablehlo", "comparison_type", "SIGNED")
    assert at(text, h.attributes["compare_type"].span) == "SIGNED"
    assert [n for n, _ in h.operands] == ["%a", "%b"]
    h = parse_ok("%19 = stablehlo.compare EQ, %arg0, %arg0 : (tensor<2xi64>, tensor<2xi64>) -> tensor<2xi1>")
    assert "compare_type" not in h.attributes


def test_dot_general_and_dot():
    text = ("%3 = stablehlo.dot_general %a, %b, batching_dims = [0] x [0], contracting_dims = [2] x [1], "
            "precision = [DEFAULT, DEFAULT] : (tensor<1x4x4xf32>, tensor<1x4x4xf32>) -> tensor<1x4x4xf32>")
    h = parse_ok(text)
    dn = h.attributes["dot_dimension_numbers"]
    assert (dn.dialect, dn.name) == ("stablehlo", "dot")
    assert dn.get("lhs_batching_dimensions") == ArrayAttr((IntegerAttr(0),))
    assert dn.get("rhs_contracting_dimensions") == ArrayAttr((IntegerAttr(1),))
    assert at(text, dn.span) == "batching_dims = [0] x [0], contracting_dims = [2] x [1]"
    assert h.attributes["precision_config"] == ArrayAttr((EnumAttr("stablehlo", "precision", "DEFAULT"),) * 2)
    h = parse_ok("%0 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : "
                 "(tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>")
    # what the generic form prints for the same op (empty fields left out)
    assert h.attributes["dot_dimension_numbers"] == A(
        "#stablehlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]>")
    h = parse_ok("%d = stablehlo.dot %a, %b, precision = [HIGHEST, DEFAULT] : "
                 "(tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>")
    assert h.attributes["precision_config"].elements[0].value == "HIGHEST"


@pytest.mark.parametrize("text, name, value", [
    ("%2 = stablehlo.broadcast_in_dim %x, dims = [0, 1] : (tensor<2x3xf32>) -> tensor<2x3x4xf32>",
     "broadcast_dimensions", DenseArrayAttr("i64", (0, 1))),
    ("%2 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<4xf32>",
     "broadcast_dimensions", DenseArrayAttr("i64", ())),
    ("%17 = stablehlo.transpose %x, dims = [1, 0] : (tensor<4x2xf32>) -> tensor<2x4xf32>",
     "permutation", DenseArrayAttr("i64", (1, 0))),
    ("%16 = stablehlo.reverse %x, dims = [0] : tensor<2x2xi64>", "dimensions", DenseArrayAttr("i64", (0,))),
    ("%38 = stablehlo.iota dim = 0 : tensor<8xi32>", "iota_dimension", IntegerAttr(0, I64)),
    ("%33 = stablehlo.concatenate %a, %b, dim = 0 : (tensor<1xui32>, tensor<1xui32>) -> tensor<2xui32>",
     "dimension", IntegerAttr(0, I64)),
    ("%11 = stablehlo.dynamic_slice %x, %i, %j, sizes = [2, 4] : "
     "(tensor<4x4xf32>, tensor<i32>, tensor<i32>) -> tensor<2x4xf32>", "slice_sizes", DenseArrayAttr("i64", (2, 4))),
    ("%15 = stablehlo.pad %x, %c, low = [0, 1], high = [1, 0], interior = [0, 0] : "
     "(tensor<2x2xi64>, tensor<i64>) -> tensor<3x3xi64>", "edge_padding_high", DenseArrayAttr("i64", (1, 0))),
    ("%1 = stablehlo.fft %0, type = FFT, length = [4] : (tensor<4xcomplex<f32>>) -> tensor<4xcomplex<f32>>",
     "fft_type", EnumAttr("stablehlo", "fft_type", "FFT")),
    ("%o, %out = stablehlo.rng_bit_generator %s, algorithm = DEFAULT : "
     "(tensor<2xui64>) -> (tensor<2xui64>, tensor<2xui32>)", "rng_algorithm",
     EnumAttr("stablehlo", "rng_algorithm", "DEFAULT")),
    ("%44 = stablehlo.reduce_precision %x, format = e5m10 : tensor<4x4xf32>", "mantissa_bits", IntegerAttr(10, I32)),
    ("%25 = stablehlo.get_dimension_size %x, dim = 0 : (tensor<2x2xi64>) -> tensor<i32>", "dimension",
     IntegerAttr(0, I64)),
])
def test_keyword_attributes_land_under_their_real_names(text, name, value):
    h = parse_ok(text)
    assert h.attributes[name] == value
    assert h.attributes[name].span is not None


def test_slice_ranges():
    text = "%12 = stablehlo.slice %x [0:4, 1:3:1] : (tensor<4x4xf32>) -> tensor<4x2xf32>"
    h = parse_ok(text)
    assert h.attributes["start_indices"] == DenseArrayAttr("i64", (0, 1))
    assert h.attributes["limit_indices"] == DenseArrayAttr("i64", (4, 3))
    assert h.attributes["strides"] == DenseArrayAttr("i64", (1, 1))
    assert at(text, h.attributes["strides"].span) == "[0:4, 1:3:1]"
    assert [n for n, _ in h.operands] == ["%x"]


def test_reduce_applies_form():
    text = ("%4 = stablehlo.reduce(%x init: %c) applies stablehlo.add across dimensions = [1] : "
            "(tensor<4x4xf32>, tensor<f32>) -> tensor<4xf32>")
    h = parse_ok(text)
    assert [n for n, _ in h.operands] == ["%x", "%c"]
    assert h.attributes["dimensions"] == DenseArrayAttr("i64", (1,))
    assert h.attributes["applies"] == StringAttr("stablehlo.add")
    assert h.result_types == [TensorType((4,), F32)]


def test_reduce_reducer_form_region_arguments():
    region = "{\n  stablehlo.return %a1, %a2 : tensor<f32>, tensor<i32>\n}"
    text = ("%1:2 = stablehlo.reduce(%arg0 init: %cst), (%0 init: %c) across dimensions = [0] : "
            "(tensor<4x4xf32>, tensor<4x4xi32>, tensor<f32>, tensor<i32>) -> (tensor<4xf32>, tensor<4xi32>)\n"
            " reducer(%arg1: tensor<f32>, %arg3: tensor<f32>) (%arg2: tensor<i32>, %arg4: tensor<i32>)  " + region)
    h = parse_ok(text, region)
    assert [n for n, _ in h.operands] == ["%arg0", "%0", "%cst", "%c"]
    assert [(n, str(t)) for n, t, _ in h.region_args[0]] == [
        ("%arg1", "tensor<f32>"), ("%arg2", "tensor<i32>"), ("%arg3", "tensor<f32>"), ("%arg4", "tensor<i32>")]
    assert line_col(text, h.region_args[0][1][2]) == (2, 51) and at(text, h.region_args[0][1][2]) == "%arg2"
    assert len(h.result_types) == 2


def test_while_iter_args():
    cond = "{\n  stablehlo.return %p : tensor<i1>\n}"
    body = "{\n  stablehlo.return %iterArg, %iterArg_0 : tensor<i32>, tensor<f32>\n}"
    text = (f"%0:2 = stablehlo.while(%iterArg = %c, %iterArg_0 = %1) : tensor<i32>, tensor<f32>\n"
            f"cond {cond} do {body}")
    h = parse_ok(text, cond, body)
    assert [n for n, _ in h.operands] == ["%c", "%1"]
    assert [(n, t) for n, t, _ in h.region_args[0]] == [("%iterArg", TensorType((), I32)),
                                                         ("%iterArg_0", TensorType((), F32))]
    assert h.operand_types == h.result_types == [TensorType((), I32), TensorType((), F32)]


def test_custom_call_and_composite():
    text = ('%0 = stablehlo.custom_call @xla_ffi_python_cpu_callback(%arg0) {backend_config = "", '
            'mhlo.backend_config = {index = 0 : ui64}, operand_layouts = [dense<0> : tensor<1xindex>], '
            'sdy.sharding = #sdy.sharding_per_value<[<@maximal_mesh_0, []>]>} : (tensor<3xf32>) -> tensor<3xf32>')
    h = parse_ok(text)
    assert h.attributes["call_target_name"] == StringAttr("xla_ffi_python_cpu_callback")
    assert at(text, h.attributes["call_target_name"].span) == "@xla_ffi_python_cpu_callback"
    assert h.attributes["backend_config"] == StringAttr("")
    assert h.attributes["mhlo.backend_config"].get("index") == IntegerAttr(0, ScalarType("ui64"))
    assert h.attributes["sdy.sharding"].name == "sharding_per_value"
    assert [n for n, _ in h.operands] == ["%arg0"]
    h = parse_ok('%17 = stablehlo.composite "my.op" %arg0 {composite_attributes = {k = 1 : i32}, '
                 'decomposition = @main2, version = 1 : i32} : (tensor<2xi64>) -> tensor<2xi64>')
    assert h.attributes["name"] == StringAttr("my.op")
    assert h.attributes["decomposition"] == SymbolRefAttr("main2")


def test_tuple_family_and_token_ops():
    h = parse_ok("%2 = stablehlo.tuple %a, %b : tuple<tensor<2xi64>, tensor<f32>>")
    assert h.operand_types == [TensorType((2,), I64), TensorType((), F32)]
    h = parse_ok("%3 = stablehlo.get_tuple_element %2[1] : (tuple<tensor<2xi64>, tensor<f32>>) -> tensor<f32>")
    assert h.attributes["index"] == IntegerAttr(1, I32) and [n for n, _ in h.operands] == ["%2"]
    h = parse_ok("%4:2 = stablehlo.optimization_barrier %a, %b : tensor<2xi64>, tensor<f32>")
    assert h.operand_types == h.result_types == [TensorType((2,), I64), TensorType((), F32)]
    h = parse_ok("%5 = stablehlo.after_all %t1, %t2 : !stablehlo.token")
    assert h.operand_types == [TokenType(), TokenType()] and h.result_types == [TokenType()]
    h = parse_ok("%6 = stablehlo.create_token : !stablehlo.token")
    assert h.operands == [] and h.result_types == [TokenType()]
    h = parse_ok("%7 = stablehlo.partition_id : tensor<ui32>")
    assert h.result_types == [TensorType((), ScalarType("ui32"))]


def test_select_and_return():
    h = parse_ok("%10 = stablehlo.select %p, %a, %b : tensor<i1>, tensor<i32>")
    assert h.operand_types == [TensorType((), ScalarType("i1")), TensorType((), I32), TensorType((), I32)]
    assert h.result_types == [TensorType((), I32)]
    h = parse_ok("stablehlo.return %a, %b : tensor<f32>, tensor<i32>")
    assert h.operand_types == [TensorType((), F32), TensorType((), I32)] and h.result_types == []
    h = parse_ok("return %0 : tensor<8xf32>")
    assert h.name == "func.return" and [n for n, _ in h.operands] == ["%0"]
    h = parse_ok("func.return")
    assert h.operands == [] and h.operand_types is None
    h = parse_ok("stablehlo.return")
    assert h.operands == []


def test_func_func_public_signature_attributes_and_arguments():
    body = "{\n  return %arg0 : tensor<8xf32>\n}"
    text = ('func.func public @main(%arg0: tensor<8xf32> {mhlo.sharding = "{replicated}"} loc("x"), '
            '%arg1: tensor<i32>) -> (tensor<8xf32> {jax.result_info = "result"}) attributes {foo = 1 : i32} '
            + body + " loc(#loc)")
    h = parse_ok(text, body)
    assert h.name == "func.func"
    a = h.attributes
    assert a["sym_name"] == StringAttr("main") and at(text, a["sym_name"].span) == "@main"
    assert a["sym_visibility"] == StringAttr("public")
    assert a["function_type"] == TypeAttr(FunctionType((TensorType((8,), F32), TensorType((), I32)),
                                                       (TensorType((8,), F32),)))
    assert a["arg_attrs"] == ArrayAttr((DictAttr((("mhlo.sharding", StringAttr("{replicated}")),)), DictAttr(())))
    assert a["res_attrs"].elements[0].get("jax.result_info") == StringAttr("result")
    assert a["foo"] == IntegerAttr(1, I32)
    assert [(n, t) for n, t, _ in h.region_args[0]] == [("%arg0", TensorType((8,), F32)), ("%arg1", TensorType((), I32))]
    assert h.loc == LocAlias("#loc")


def test_func_func_private_declaration_and_bare_result():
    h = parse_ok("func.func private @f(tensor<f32>, i32) -> tensor<f32>")
    assert h.attributes["sym_visibility"] == StringAttr("private")
    assert h.attributes["function_type"].type == FunctionType((TensorType((), F32), I32), (TensorType((), F32),))
    assert h.region_args == []
    body = "{\n}"
    h = parse_ok("func.func @g() " + body, body)
    assert "sym_visibility" not in h.attributes
    assert h.attributes["function_type"].type == FunctionType((), ())
    assert h.region_args == [[]]


def test_func_call():
    text = "%3:2 = func.call @closed_call(%a, %2) : (tensor<f32>, tensor<f32>) -> (tensor<f32>, tensor<f32>)"
    h = parse_ok(text)
    assert h.attributes["callee"] == SymbolRefAttr("closed_call")
    assert [n for n, _ in h.operands] == ["%a", "%2"] and len(h.result_types) == 2
    h = parse_ok("%6 = call @argmax(%0) : (tensor<4x4xf32>) -> tensor<4xi32>")
    assert h.name == "func.call" and h.attributes["callee"].root == "argmax"


def test_module_op():
    body = "{\n  func.func @f() {\n    return\n  }\n}"
    text = "module @jit_f attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} " + body + " loc(#loc)"
    h = parse_ok(text, body)
    assert h.name == "builtin.module"
    assert h.attributes["sym_name"] == StringAttr("jit_f")
    assert h.attributes["mhlo.num_partitions"] == IntegerAttr(8, I32)
    assert h.loc == LocAlias("#loc")
    body = "{\n}"
    h = parse_ok("module " + body, body)
    assert h.name == "builtin.module" and h.attributes == {}


def test_sdy_mesh_and_manual_computation():
    text = ('sdy.mesh @mesh = <["x"=2, "y"=4]> {stablehlo.mesh = {axes = [{name = "x", size = 2 : i64}]}}')
    h = parse_ok(text)
    assert h.attributes["sym_name"] == StringAttr("mesh")
    mesh = h.attributes["mesh"]
    axes = mesh.positional[0].elements
    assert [(a.get("name").value, a.get("size").value) for a in axes] == [("x", 2), ("y", 4)]
    assert "stablehlo.mesh" in h.attributes
    h = parse_ok("sdy.mesh @maximal_mesh_0 = <[], device_ids=[0]>")
    assert h.attributes["mesh"].get("device_ids") == ArrayAttr((IntegerAttr(0),))
    body = "{\n  sdy.return %arg1 : tensor<2xf32>\n}"
    text = ('%0 = sdy.manual_computation(%arg0) in_shardings=[<@mesh, [{"x"}]>] out_shardings=[<@mesh, [{"x"}]>] '
            'manual_axes={"x", "y"} (%arg1: tensor<2xf32> loc("shard_map:"(#loc3))) ' + body +
            " : (tensor<8xf32>) -> tensor<8xf32> loc(#loc8)")
    h = parse_ok(text, body)
    assert [n for n, _ in h.operands] == ["%arg0"]
    assert [(n, t) for n, t, _ in h.region_args[0]] == [("%arg1", TensorType((2,), F32))]
    (ins,) = h.attributes["in_shardings"].positional
    assert ins.elements[0].name == "sharding" and ins.elements[0].positional[0] == SymbolRefAttr("mesh")
    assert h.attributes["manual_axes"] == ArrayAttr((StringAttr("x"), StringAttr("y")))
    assert at(text, h.attributes["manual_axes"].elements[1].span) == '"y"'
    # the generic form gives the same values
    generic = ('%0 = "sdy.manual_computation"(%arg0) <{in_shardings = #sdy.sharding_per_value<[<@mesh, '
               '[{"x"}]>]>, manual_axes = #sdy<manual_axes{"x", "y"}>, out_shardings = #sdy.sharding_per_value<'
               '[<@mesh, [{"x"}]>]>}> (' + body + ") : (tensor<8xf32>) -> tensor<8xf32>")
    g = parse_ok(generic, body)
    for key in ("in_shardings", "out_shardings", "manual_axes"):
        assert g.attributes[key] == h.attributes[key], key
    assert h.operand_types == [TensorType((8,), F32)] and h.loc == LocAlias("#loc8")
    h = parse_ok('%2 = sdy.sharding_constraint %1 <@mesh, [{"x"}, {}]> : tensor<8x8xf32>')
    assert h.attributes["sharding"].positional[0] == SymbolRefAttr("mesh")
    assert h.operand_types == [TensorType((8, 8), F32)]


def test_chlo_ops():
    h = parse_ok("%1 = chlo.erf_inv %0 : tensor<3xf32> -> tensor<3xf32>")
    assert h.operand_types == [TensorType((3,), F32)] and h.result_types == [TensorType((3,), F32)]
    h = parse_ok("%29 = chlo.broadcast_add %a, %b {broadcast_dimensions = array<i64: 0, 1>} : "
                 "(tensor<2x2xi64>, tensor<2x2xi64>) -> tensor<2x2xi64>")
    assert h.attributes["broadcast_dimensions"] == DenseArrayAttr("i64", (0, 1))
    h = parse_ok("%values, %indices = chlo.top_k(%x, k = 1) : tensor<2x2xf32> -> (tensor<2x1xf32>, tensor<2x1xi32>)")
    assert h.attributes["k"] == IntegerAttr(1) and [n for n, _ in h.operands] == ["%x"]
    assert len(h.result_types) == 2


def test_seed_003_tessera_ops_without_types():
    text = '%f = tessera.collective.all_reduce %dw\n        {op="sum", chunk_bytes = 1048576, dtype="bf16"}'
    h = parse_ok(text)
    assert h.name == "tessera.collective.all_reduce"
    assert [n for n, _ in h.operands] == ["%dw"]
    assert h.attributes == {"op": StringAttr("sum"), "chunk_bytes": IntegerAttr(1048576), "dtype": StringAttr("bf16")}
    assert line_col(text, h.attributes["dtype"].span) == (2, 49) and at(text, h.attributes["dtype"].span) == '"bf16"'
    assert h.result_types == [] and h.operand_types is None
    h = parse_ok("%dw_red = tessera.await %f")
    assert [n for n, _ in h.operands] == ["%f"]
    h = parse_ok('%f = tessera.collective.all_gather %x {algo = #tessera.collective<Algo "ring">} : '
                 "(memref<4xf32>) -> !tessera.future<memref<16xf32>>")
    assert h.attributes["algo"] == EnumAttr("tessera.collective", "Algo", "ring")
    assert h.result_types == [FutureType((MemRefType((16,), F32),), "tessera")]


def test_unknown_pretty_op_is_read_permissively():
    text = ('%r = mydialect.frob %a, %b, mode = FAST, flags = [1, 2], pair = [0] x [1] fused '
            '{x = 1 : i32} : tensor<f32> loc("m.py":1:2)')
    h = parse_ok(text)
    assert [n for n, _ in h.operands] == ["%a", "%b"]
    assert h.attributes["mode"] == OpaqueAttr("FAST")
    assert h.attributes["flags"] == ArrayAttr((IntegerAttr(1), IntegerAttr(2)))
    assert h.attributes["pair"] == OpaqueAttr("[0] x [1]")
    assert isinstance(h.attributes["fused"], UnitAttr)
    assert h.attributes["x"] == IntegerAttr(1, I32)
    assert h.result_types == [TensorType((), F32)] and h.loc == FileLineColLoc("m.py", 1, 2)
    h = parse_ok("scf.for %i = %lb to %ub step %c1 {\n}", "{\n}")
    assert [n for n, _ in h.operands] == ["%lb", "%ub", "%c1"]
    h = parse_ok("%v = memref.load %m[%i, %j] : memref<4x4xf32>")
    assert [n for n, _ in h.operands] == ["%m", "%i", "%j"]


def test_an_unknown_form_the_grammar_cannot_read_falls_back_quietly():
    text = "%sub = memref.subview %dw [..., %i*sz] : memref<?xf32> -> memref<?xf32>"
    h, module = op_header(text)
    assert module.syntax_errors == []
    assert h.name == "memref.subview" and at(text, h.name_span) == "memref.subview"
    assert [n for n, _ in h.operands] == ["%dw", "%i"]


def test_type_and_attribute_aliases_resolve_through_the_module():
    h = parse_ok("%0 = stablehlo.add %a, %b : !t", aliases={"!t": "tensor<4xf32>"})
    assert h.result_types == [TensorType((4,), F32)]
    text = '%1 = "stablehlo.send"(%a) {channel_handle = #ch} : (tensor<f32>) -> !stablehlo.token'
    h = parse_ok(text, aliases={"#ch": "#stablehlo.channel_handle<handle = 5, type = 1>"})
    ch = h.attributes["channel_handle"]
    assert ch.int_param("handle") == 5 and at(text, ch.span) == "#ch"


def test_locations_on_pretty_ops():
    h = parse_ok('%0 = stablehlo.add %a, %b : tensor<f32> loc(fused["a", "b"])')
    assert h.loc == FusedLoc((NameLoc("a"), NameLoc("b")))
    h = parse_ok('%0 = stablehlo.add %a, %b : tensor<f32> loc(unknown)')
    assert h.loc == UnknownLoc()


# =========================================================================== block labels
def test_block_label_arguments():
    text = '^bb0(%arg2: tensor<f32>, %arg3: tensor<f32> loc("x.py":1:2)):'
    module = Module(SourceFile("t.mlir", "  " + text), PARSER)
    region = Region(None, Span(0, 0), module)
    block = Block(region, "^bb0", Span(2, 2 + len(text)))
    args = PARSER.parse_block_label(module, block)
    assert [(n, t) for n, t, _ in args] == [("%arg2", TensorType((), F32)), ("%arg3", TensorType((), F32))]
    assert args[1][2] == Span(27, 32)
    block = Block(region, "^bb1", Span(0, 6))
    module.source = SourceFile("t.mlir", "^bb1:\n")
    assert PARSER.parse_block_label(module, block) == []


def test_bad_block_label_is_recorded_and_keeps_the_names():
    text = "^bb0(%a: tensor<f32>, %b: tensr<f32>):"
    module = Module(SourceFile("t.mlir", text), PARSER)
    block = Block(Region(None, Span(0, 0), module), "^bb0", Span(0, len(text)))
    args = PARSER.parse_block_label(module, block)
    assert [n for n, _t, _s in args] == ["%a", "%b"]
    (message, span), = module.syntax_errors
    assert message.startswith("expected") and at(text, span) == "tensr"


# =========================================================================== syntax errors
def test_malformed_generic_op_records_a_located_error_and_falls_back():
    text = ('%0 = "stablehlo.add"(%a, %b : (tensor<f32>, tensor<f32>) -> tensor<f32>')
    h, module = op_header(text)
    (message, span), = module.syntax_errors
    assert message == "expected one of: ')', ',', 'as', got ':'"
    assert at(text, span) == ":" and line_col(text, span) == (1, 29)
    assert h.name == "stablehlo.add" and at(text, h.name_span) == '"stablehlo.add"'
    assert [n for n, _ in h.operands] == ["%a", "%b"]


def test_malformed_pretty_op_of_a_known_dialect_is_an_error():
    text = "%0 = stablehlo.add %a, %b : tensor<4xf32"
    h, module = op_header(text)
    (message, span), = module.syntax_errors
    assert message == "expected one of: ',', '>', got end of input"
    assert span.start == len(text)
    assert h.name == "stablehlo.add" and [n for n, _ in h.operands] == ["%a", "%b"]


@pytest.mark.parametrize("junk", ['"all_gather"(#loc7)', "junk", "[unknown]"])
def test_junk_after_a_generic_signature_keeps_the_signature_types(junk):
    # MLIR's pretty_debug_info printing writes locations bare (`-> T "name"(#loc7)`),
    # which no parser reads back: one SHLO001, and the fallback header still has
    # the signature's types (it had none, so all_gather's "1 operand(s) but 0
    # result(s)" piled a false SHLO206 on the syntax error).
    text = ('%2 = "stablehlo.all_gather"(%1) <{all_gather_dim = 1 : i64}> : (tensor<1x4xf32>) '
            f"-> tensor<8x4xf32> {junk}")
    h, module = op_header(text)
    (message, span), = module.syntax_errors
    assert message.startswith("expected") and text[span.start:].startswith(junk[:1])
    assert ("pretty_debug_info" in message) == junk.startswith('"')
    assert h.operand_types == [T("tensor<1x4xf32>")] and h.result_types == [T("tensor<8x4xf32>")]


def test_junk_after_a_whole_generic_op_keeps_its_attributes():
    # The same printing after a send: the rules must still see its channel_handle and
    # pairs (the fallback header had none: a false SHLO105/SHLO106 under the SHLO001).
    text = ('%2 = "stablehlo.send"(%a, %t) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, '
            "source_target_pairs = dense<[[0, 1]]> : tensor<1x2xi64>}> : (tensor<4xf32>, !stablehlo.token) "
            '-> !stablehlo.token "psend"(#loc9)')
    h, module = op_header(text)
    (message, span), = module.syntax_errors
    assert text[span.start:].startswith('"psend"')
    assert set(h.attributes) == {"channel_handle", "source_target_pairs"}
    assert [n for n, _ in h.operands] == ["%a", "%t"] and h.result_types == [TokenType()]


def test_a_bare_location_after_a_pretty_op_is_a_syntax_error():
    # `get_asm(pretty_debug_info=True)` after a pretty op: jaxlib rejects it, and the
    # custom form (read as a bag of items) used to take the string silently.
    text = '%1 = stablehlo.broadcast_in_dim %0, dims = [0] : (tensor<4xf32>) -> tensor<2x4xf32> "bcast"(#loc7)'
    h, module = op_header(text)
    (message, span), = module.syntax_errors
    assert at(text, span) == '"bcast"' and "loc(...)" in message and "pretty_debug_info" in message
    assert h.result_types == [T("tensor<2x4xf32>")]
    # The same string before the signature is part of the op (custom_call, composite).
    h, module = op_header('%1 = stablehlo.composite "my.op" %0 {decomposition = @f} : (tensor<4xf32>) -> tensor<4xf32>')
    assert module.syntax_errors == []


def test_error_after_a_region_is_located_in_the_original_text():
    region = "{\n  stablehlo.return %a : tensor<f32>\n}"
    text = f'%0 = "stablehlo.case"(%i) ({region}) : (tensor<i32>) -> tensor<f32> loc(#loc1 junk)'
    h, module = op_header(text, region)
    (message, span), = module.syntax_errors
    assert message == "expected ')', got 'junk'"
    assert line_col(text, span) == (3, 45) and at(text, span) == "junk"


def test_missing_type_signature_in_generic_form():
    h, module = op_header('"stablehlo.add"(%a, %b)')
    (message, _span), = module.syntax_errors
    assert message.startswith("expected") and "':'" in message


def test_unclosed_region_is_left_to_the_scanner():
    text = "module @m {\n  func.func @f() {\n"
    source = SourceFile("t.mlir", text)
    module = Module(source, PARSER)
    op = Operation("builtin.module", Span(0, len(text)), (), module)
    op.region_spans = [Span(10, 11)]  # what the scanner leaves for a region never closed
    h = PARSER.parse_header(module, op)
    assert module.syntax_errors == [] and h.attributes["sym_name"] == StringAttr("m")


def test_syntax_problem_fields():
    with pytest.raises(SyntaxProblem) as e:
        parse_type("tensor<>")
    assert isinstance(e.value, Exception)
    assert e.value.message.startswith("expected") and "Token" not in e.value.message
    assert e.value.span == Span(7, 8)
