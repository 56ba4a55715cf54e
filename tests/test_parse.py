"""The Lark header parser (checker/frontend/stablehlo/parse/, grammar/stablehlo.lark): types,
attributes, locations and aliases. Ops (generic and pretty forms, block labels,
syntax errors, the corpus) are in tests/test_parse_ops.py; the helpers that build
one op the way the scanner would are in tests/parse_helpers.py.
"""
from __future__ import annotations

import math

import pytest

from shlo_lint.checker.ir.attributes import (ArrayAttr, BoolAttr, DenseArrayAttr, DenseElementsAttr, DenseResourceAttr,
                                             DialectAttr, DictAttr, EnumAttr, FloatAttr, IntegerAttr, OpaqueAttr,
                                             StringAttr, SymbolRefAttr, TypeAttr, UnitAttr)
from shlo_lint.checker.ir.core import (CallSiteLoc, FileLineColLoc, FusedLoc, LocAlias, Module, NameLoc, UnknownLoc,
                                       python_frames)
from shlo_lint.checker.frontend.stablehlo.parse import (SyntaxProblem, parse_alias_definition, parse_attribute,
                                                        parse_location, parse_type, parse_type_list)
from shlo_lint.checker.source.text import SourceFile, Span
from shlo_lint.checker.ir.types import (ComplexType, FunctionType, FutureType, MemRefType, OpaqueType, QuantizedType,
                                        ScalarType, ShardType, TensorType, TokenType, TupleType)


from parse_helpers import PARSER, F32, I32, I64, A, T, at


# =========================================================================== types
@pytest.mark.parametrize("text, shape, element", [
    ("tensor<4xf32>", (4,), F32),
    ("tensor<2x3x4xbf16>", (2, 3, 4), ScalarType("bf16")),
    ("tensor<f32>", (), F32),
    ("tensor<?x4xi32>", (None, 4), I32),
    ("tensor<0x8xi1>", (0, 8), ScalarType("i1")),
    ("tensor<*xf32>", None, F32),
    ("tensor<3xindex>", (3,), ScalarType("index")),
    ("tensor<2xcomplex<f64>>", (2,), ComplexType(ScalarType("f64"))),
])
def test_tensor_types(text, shape, element):
    t = T(text)
    assert t == TensorType(shape, element)
    assert str(t) == text


@pytest.mark.parametrize("name", [
    "i1", "i2", "i4", "i8", "i16", "i32", "i64", "si8", "si32", "si64", "ui4", "ui8", "ui16", "ui32", "ui64",
    "f16", "bf16", "f32", "f64", "tf32", "f8E4M3FN", "f8E5M2", "f8E4M3FNUZ", "f8E5M2FNUZ", "f8E4M3B11FNUZ",
    "f8E3M4", "f8E4M3", "f8E8M0FNU", "f6E2M3FN", "f6E3M2FN", "f4E2M1FN", "index",
])
def test_every_element_type(name):
    assert T(name) == ScalarType(name)
    assert T(f"tensor<2x{name}>") == TensorType((2,), ScalarType(name))


def test_element_type_bitwidths_come_through():
    assert T("tensor<8xf8E4M3FN>").num_bytes == 8
    assert T("tensor<4xi4>").element.bitwidth == 4


def test_tensor_with_encoding_is_parsed_through_the_grammar():
    t = T("tensor<?x2xi64, #stablehlo.bounds<2, ?>>")
    assert t.shape == (None, 2) and t.element == I64
    assert isinstance(t.encoding, DialectAttr) and t.encoding.name == "bounds"
    assert t.encoding.positional[0] == IntegerAttr(2)
    t2 = T('tensor<4xf32, #stablehlo.type_extensions<bounds = [?]>>')
    assert t2.encoding.get("bounds") is not None


def test_quantized_types():
    q = T("!quant.uniform<i8:f32, 0.1:-3>")
    assert q == QuantizedType("i8", "f32", "!quant.uniform<i8:f32, 0.1:-3>")
    assert q.bitwidth == 8
    per_axis = T("tensor<2x!quant.uniform<i8<-127:127>:f32:0, {0.1:-3, 0.2:4}>>")
    assert per_axis.shape == (2,)
    assert per_axis.element.storage == "i8<-127:127>" and per_axis.element.expressed == "f32"


def test_token_future_async_tuple_shard_types():
    assert T("!stablehlo.token") == TokenType()
    assert T("token") == TokenType()
    assert T("future<tensor<2x2xi64>>") == FutureType((TensorType((2, 2), I64),), "stablehlo")
    assert T("!stablehlo.future<tensor<4xf32>, tensor<f32>>") == FutureType(
        (TensorType((4,), F32), TensorType((), F32)), "stablehlo")
    assert T("async<tensor<i64>>") == FutureType((TensorType((), I64),), "async")
    assert T("!tessera.future<memref<4x8xbf16>>") == FutureType(
        (MemRefType((4, 8), ScalarType("bf16")),), "tessera")
    assert T("!tessera.shard<tensor<8xf32>>") == ShardType(TensorType((8,), F32))
    assert T("tuple<tensor<f32>, tuple<>, !stablehlo.token>") == TupleType(
        (TensorType((), F32), TupleType(()), TokenType()))


def test_function_memref_opaque_and_none_types():
    assert T("(tensor<f32>, i32) -> tensor<f32>") == FunctionType((TensorType((), F32), I32), (TensorType((), F32),))
    assert T("() -> ()") == FunctionType((), ())
    assert T("(i32) -> (i32, i64)") == FunctionType((I32,), (I32, I64))
    assert T("memref<4x8xf32>") == MemRefType((4, 8), F32)
    m = T("memref<?xf32, strided<[1], offset: ?>>")
    assert m.shape == (None,) and m.layout == "strided<[1], offset: ?>"
    assert T('!mydialect.thing<"x", 3>') == OpaqueType('!mydialect.thing<"x", 3>')
    assert T("!mydialect.plain") == OpaqueType("!mydialect.plain")
    assert T("none") == OpaqueType("none")
    assert T("vector<4xf32>") == OpaqueType("vector<4xf32>")


def test_type_list():
    assert parse_type_list("tensor<f32>, !stablehlo.token") == [TensorType((), F32), TokenType()]


@pytest.mark.parametrize("text, message, column", [
    ("tensor<4xf3q>", "expected one of: a dimension, a type, got 'f3q'", 10),
    ("tensor<4xf32", "expected one of: ',', '>', got end of input", 13),
    ("(i32) ->", "expected one of: '(', a type, got end of input", 9),
    ("tensor<4xf32> x", "expected end of input, got 'x'", 15),
])
def test_bad_types_raise_syntax_problems(text, message, column):
    with pytest.raises(SyntaxProblem) as e:
        parse_type(text, offset=100)
    assert e.value.message == message
    assert e.value.span.start == 100 + column - 1


# =========================================================================== attributes
def test_dense_elements_keep_their_literal_and_decode_lazily():
    text = "dense<[[0, 1], [1, 2]]> : tensor<2x2xi64>"
    a = A(text)
    assert a == DenseElementsAttr("[[0, 1], [1, 2]]", TensorType((2, 2), I64))
    assert a.span == Span(0, len(text))
    assert a.array.tolist() == [[0, 1], [1, 2]]
    assert A("dense<1.000000e+00> : tensor<f32>").is_splat
    assert A("dense<[true, false]> : tensor<2xi1>").array.tolist() == [True, False]
    assert A('dense<"0x0000803F"> : tensor<f32>').array.item() == 1.0
    assert A("dense<0xFF800000> : tensor<f32>").literal == "0xFF800000"
    assert A("dense<(1.0, 2.0)> : tensor<complex<f64>>").literal == "(1.0, 2.0)"
    assert A('dense<"a>b"> : tensor<!tf.string>').literal == '"a>b"'
    untyped = A("dense<[1, 2]>")
    assert untyped.type is None and untyped.literal == "[1, 2]"


def test_dense_resource():
    assert A("dense_resource<blob1> : tensor<4xf32>") == DenseResourceAttr("blob1", TensorType((4,), F32))


def test_channel_handle_params_carry_spans():
    text = "#stablehlo.channel_handle<handle = 1, type = 2>"
    a = A(text)
    assert (a.dialect, a.name) == ("stablehlo", "channel_handle")
    assert a.int_param("handle") == 1 and a.int_param("type") == 2
    assert at(text, a.get("type").span) == "2"
    assert a.text == text and a.span == Span(0, len(text))


def test_replica_group_mesh_axes():
    a = A('#stablehlo.replica_group_mesh_axes<mesh = @mesh, axes = [#stablehlo.axis_ref<name = "y">]>')
    assert a.name == "replica_group_mesh_axes"
    assert a.get("mesh") == SymbolRefAttr("mesh")
    (axis,) = a.get("axes").elements
    assert axis.name == "axis_ref" and axis.get("name") == StringAttr("y")
    nested = A('#stablehlo.replica_group_mesh_axes<mesh = #stablehlo.mesh<axes = [#stablehlo.mesh_axis<'
               'name = "x", size = 2>, #stablehlo.mesh_axis<name = "y", size = 4>]>, axes = ['
               '#stablehlo.axis_ref<name = "y", sub_axis_info = (1)2>]>')
    sizes = [m.int_param("size") for m in nested.get("mesh").get("axes").elements]
    assert sizes == [2, 4]
    assert nested.get("axes").elements[0].get("sub_axis_info") == OpaqueAttr("(1)2")


def test_enum_attributes():
    assert A("#stablehlo<comparison_direction LT>") == EnumAttr("stablehlo", "comparison_direction", "LT")
    assert A("#stablehlo<precision DEFAULT>") == EnumAttr("stablehlo", "precision", "DEFAULT")
    assert A('#tessera.collective<Algo "auto">') == EnumAttr("tessera.collective", "Algo", "auto")


def test_structured_dialect_attributes():
    g = A("#stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], "
          "index_vector_dim = 1>")
    assert g.get("offset_dims") == ArrayAttr((IntegerAttr(1),))
    assert g.int_param("index_vector_dim") == 1
    d = A("#stablehlo.dot<lhs_batching_dimensions = [0], rhs_batching_dimensions = [0], "
          "lhs_contracting_dimensions = [2], rhs_contracting_dimensions = [1]>")
    assert [k for k, _ in d.params] == ["lhs_batching_dimensions", "rhs_batching_dimensions",
                                        "lhs_contracting_dimensions", "rhs_contracting_dimensions"]
    c = A("#stablehlo.conv<[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]>")
    assert c.text == "#stablehlo.conv<[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]>"
    assert c.positional[1] == OpaqueAttr("x") and c.positional[3] == OpaqueAttr("->")
    acc = A("#stablehlo.result_accuracy<atol = 0.000000e+00, rtol = 0.000000e+00, ulps = 0, "
            "mode = #stablehlo.result_accuracy_mode<DEFAULT>>")
    assert acc.get("mode").positional == (OpaqueAttr("DEFAULT"),)


def test_sdy_sharding_attributes():
    s = A('#sdy.sharding<@mesh, [{"x"}, {}]>')
    assert (s.dialect, s.name) == ("sdy", "sharding")
    mesh, dims = s.positional
    assert mesh == SymbolRefAttr("mesh")
    assert dims.elements == (DictAttr((("x", UnitAttr()),)), DictAttr(()))
    # Forms the body grammar does not know stay DialectAttrs with their text.
    odd = A('#sdy.sharding<@mesh, [{"x", ?}p0, {}]>')
    assert odd.params == () and odd.text == '#sdy.sharding<@mesh, [{"x", ?}p0, {}]>'


def test_arrays_and_dense_arrays():
    assert A("[1, 2, 3]") == ArrayAttr((IntegerAttr(1), IntegerAttr(2), IntegerAttr(3)))
    assert A("[[1], []]") == ArrayAttr((ArrayAttr((IntegerAttr(1),)), ArrayAttr(())))
    assert A("[]") == ArrayAttr(())
    assert A("array<i64: 1, 2>") == DenseArrayAttr("i64", (1, 2))
    assert A("array<i64>") == DenseArrayAttr("i64", ())
    assert A("array<i1: true, false>") == DenseArrayAttr("i1", (True, False))
    assert A("array<f32: 1.5, -2.0>") == DenseArrayAttr("f32", (1.5, -2.0))


def test_dictionaries_units_and_string_keys():
    text = '{a = 1 : i32, b, "c d" = "x", nested = {k = [1]}}'
    d = A(text)
    assert d.get("a") == IntegerAttr(1, I32)
    assert isinstance(d.get("b"), UnitAttr) and at(text, d.get("b").span) == "b"
    assert d.get("c d") == StringAttr("x")
    assert d.get("nested").get("k") == ArrayAttr((IntegerAttr(1),))
    assert d.span == Span(0, len(text))
    assert A("{}") == DictAttr(())


def test_symbols_strings_numbers_and_booleans():
    assert A("@main") == SymbolRefAttr("main")
    assert A("@a::@b::@c") == SymbolRefAttr("a", ("b", "c"))
    assert A('@"quoted name"') == SymbolRefAttr("quoted name")
    assert A(r'"a\"b\\c\n\22"') == StringAttr('a"b\\c\n"')
    assert A('"x" : i32') == StringAttr("x", I32)
    assert A("42 : i64") == IntegerAttr(42, I64)
    assert A("-3") == IntegerAttr(-3)
    assert A("1.5 : f32") == FloatAttr(1.5, F32)
    assert A("-2.5e-3 : f64") == FloatAttr(-2.5e-3, ScalarType("f64"))
    assert A("0x10 : i32") == IntegerAttr(16, I32)
    assert A("0x3F800000 : f32") == FloatAttr(1.0, F32)
    assert math.isnan(A("0x7FC00000 : f32").value)
    assert A("true") == BoolAttr(True) and A("false") == BoolAttr(False)
    assert isinstance(A("unit"), UnitAttr)


def test_type_and_opaque_attributes():
    text = "(i32) -> tensor<f32>"
    a = A(text)
    assert a == TypeAttr(FunctionType((I32,), (TensorType((), F32),)))
    assert a.span == Span(0, len(text))
    assert A("tensor<4xf32>") == TypeAttr(TensorType((4,), F32))
    assert A("affine_map<(d0) -> (d0)>") == OpaqueAttr("affine_map<(d0) -> (d0)>")
    assert A("#unresolved_alias") == OpaqueAttr("#unresolved_alias")


def test_attribute_spans_are_absolute_with_an_offset():
    a = parse_attribute("dense<[[0, 1]]> : tensor<1x2xi64>", offset=50)
    assert a.span == Span(50, 50 + len("dense<[[0, 1]]> : tensor<1x2xi64>"))


def test_bad_attribute():
    with pytest.raises(SyntaxProblem) as e:
        parse_attribute("[1, 2")
    assert e.value.message == "expected one of: ',', ']', got end of input"
    with pytest.raises(SyntaxProblem) as e:
        parse_attribute("{a = }")
    assert "got '}'" in e.value.message and e.value.span == Span(5, 6)


# =========================================================================== locations
def test_locations():
    assert parse_location('loc("f.py":42:7)') == FileLineColLoc("f.py", 42, 7)
    assert parse_location('loc("f.py":42:7 to 43:2)') == FileLineColLoc("f.py", 42, 7, 43, 2)
    assert parse_location('loc("f.py":42:7 to :9)') == FileLineColLoc("f.py", 42, 7, 42, 9)
    assert parse_location('loc("name"("f.py":1:2))') == NameLoc("name", FileLineColLoc("f.py", 1, 2))
    assert parse_location('loc("jit(f)/psum")') == NameLoc("jit(f)/psum")
    assert parse_location('loc(callsite("a"("f.py":1:2) at "b"("g.py":3:4)))') == CallSiteLoc(
        NameLoc("a", FileLineColLoc("f.py", 1, 2)), NameLoc("b", FileLineColLoc("g.py", 3, 4)))
    assert parse_location('loc(callsite(#loc11 at #loc10))') == CallSiteLoc(LocAlias("#loc11"), LocAlias("#loc10"))
    assert parse_location('loc(fused["a", "b"])') == FusedLoc((NameLoc("a"), NameLoc("b")))
    assert parse_location('loc(fused<"x">["a", unknown])') == FusedLoc((NameLoc("a"), UnknownLoc()), "x")
    assert parse_location("loc(unknown)") == UnknownLoc()
    assert parse_location("loc(#loc12)") == LocAlias("#loc12")


def test_location_frames_resolve_through_aliases():
    loc = parse_location('loc(callsite("f"(#loc3) at "g"("g.py":3:4)))')
    frames = python_frames(loc, {"#loc3": parse_location('loc("f.py":42:7 to :9)')})
    assert [(f.file, f.line) for f in frames] == [("f.py", 42), ("g.py", 3)]


def test_bad_location():
    with pytest.raises(SyntaxProblem) as e:
        parse_location('loc("f.py":)')
    assert e.value.message == "expected an integer, got ')'"
    assert e.value.span == Span(11, 12)


def test_alias_definitions():
    assert parse_alias_definition('#loc12 = loc("x.py":1:2)') == ("#loc12", FileLineColLoc("x.py", 1, 2))
    name, attr = parse_alias_definition("#map = affine_map<(d0) -> (d0)>")
    assert name == "#map" and isinstance(attr, OpaqueAttr)
    assert parse_alias_definition("#ch = #stablehlo.channel_handle<handle = 3, type = 1>")[1].int_param("handle") == 3
    assert parse_alias_definition("!tok = !stablehlo.token") == ("!tok", TokenType())


def test_parse_location_alias_records_errors_on_the_module():
    text = '#loc3 = loc("x.py":1:)\n'
    module = Module(SourceFile("t.mlir", text), PARSER)
    assert PARSER.parse_location_alias(module, 'loc("x.py":1:2)', 8) == FileLineColLoc("x.py", 1, 2)
    assert PARSER.parse_location_alias(module, 'loc("x.py":1:)', 8) is None
    (message, span), = module.syntax_errors
    assert message == "expected an integer, got ')'" and span == Span(21, 22)
