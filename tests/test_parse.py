"""The Lark header parser (checker/parse/, grammar/stablehlo.lark).

Unit cases build a Module and one Operation by hand (`op_header`), the way the
scanner would: the op's span is the whole text and its regions' spans are found
in it, so these tests do not depend on scan.py. The corpus tests at the end run
the real scanner over every real JAX export and fixture and check that every op
parses, and that the regex fast path and the full grammar agree exactly.
"""
from __future__ import annotations

import math
import re
from pathlib import Path

import pytest

from shlo_lint.checker.attributes import (ArrayAttr, BoolAttr, DenseArrayAttr, DenseElementsAttr,
                                          DenseResourceAttr, DialectAttr, DictAttr, EnumAttr,
                                          FloatAttr, IntegerAttr, OpaqueAttr, StringAttr,
                                          SymbolRefAttr, TypeAttr, UnitAttr)
from shlo_lint.checker.ir import (Block, CallSiteLoc, FileLineColLoc, FusedLoc, LocAlias, Module,
                                  NameLoc, OpHeader, Operation, Region, UnknownLoc, python_frames)
from shlo_lint.checker.parse import (LarkParser, SyntaxProblem, parse_alias_definition,
                                     parse_attribute, parse_location, parse_type, parse_type_list)
from shlo_lint.checker.source import SourceFile, Span
from shlo_lint.checker.types import (ComplexType, FunctionType, FutureType, MemRefType, OpaqueType,
                                     QuantizedType, ScalarType, ShardType, TensorType, TokenType,
                                     TupleType)

from conftest import deep

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "tests" / "fixtures" / "parse"
PARSER = LarkParser()
SLOW = LarkParser(fast=False)

F32 = ScalarType("f32")
I32 = ScalarType("i32")
I64 = ScalarType("i64")


def T(text: str):
    return parse_type(text)


# --------------------------------------------------------------------------- helpers
_RESULTS = re.compile(r"\s*((?:%[\w$.\-]+(?::\d+)?\s*,?\s*)+)=")


def op_header(text: str, *regions: str, name: str | None = None, parser: LarkParser = PARSER,
              aliases: dict[str, str] | None = None):
    """Parse `text` as one op whose regions are the given substrings of it.

    Returns (header, module); `module.syntax_errors` has what the parse recorded."""
    source = SourceFile("t.mlir", text)
    module = Module(source, parser)
    for key, value in (aliases or {}).items():
        (module.type_aliases if key.startswith("!") else module.attr_aliases)[key] = value
    spans = []
    at = 0
    for r in regions:
        i = text.index(r, at)
        spans.append(Span(i, i + len(r)))
        at = i + len(r)
    results: tuple = ()
    m = _RESULTS.match(text)
    if m:
        groups = []
        for part in m.group(1).split(","):
            part = part.strip()
            if part:
                n, _, k = part.partition(":")
                groups.append((n, int(k) if k else 1))
        results = tuple(groups)
    if name is None:
        nm = re.search(r'"([\w.$\-]+)"|([A-Za-z_][\w.$]*)', text[m.end() if m else 0:])
        name = nm.group(1) or nm.group(2)
    op = Operation(name, Span(0, len(text)), results, module)
    op.region_spans = spans
    return parser.parse_header(module, op), module


def parse_ok(text: str, *regions: str, **kw) -> OpHeader:
    """Parse without syntax errors; the fast path and the full grammar must agree."""
    h, module = op_header(text, *regions, **kw)
    assert module.syntax_errors == [], module.syntax_errors
    slow, _ = op_header(text, *regions, parser=SLOW, **kw)
    assert deep(h) == deep(slow)
    return h


def at(text: str, span: Span) -> str:
    return text[span.start:span.end]


def line_col(text: str, span: Span) -> tuple[int, int]:
    return SourceFile("t", text).line_col(span.start)



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
def A(text: str):
    return parse_attribute(text)


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


# =========================================================================== corpus
def _mlir_files() -> list[Path]:
    files = sorted((ROOT / "corpus").glob("**/*.mlir"))
    files = [f for f in files if "big" not in f.parts]
    return files + sorted(FIXTURES.glob("*.mlir"))


def _scan(path: Path, parser: LarkParser):
    scan_mod = pytest.importorskip("shlo_lint.checker.scan")
    return scan_mod.scan(SourceFile(str(path), path.read_text(encoding="utf-8")), parser)


@pytest.mark.parametrize("path", _mlir_files(), ids=lambda p: str(p.relative_to(ROOT)))
def test_every_op_of_every_real_file_parses_and_fast_path_agrees(path):
    fast = _scan(path, PARSER)
    slow = _scan(path, SLOW)
    fast_ops = list(fast.walk())
    slow_ops = list(slow.walk())
    assert len(fast_ops) == len(slow_ops)
    for a, b in zip(fast_ops, slow_ops):
        ha, hb = a.header, b.header
        assert deep(ha) == deep(hb), (path, a.span, fast.source.snippet(a.span)[:300])
        for region in a.regions:
            for block in region.blocks:
                block.arguments  # noqa: B018
    for key in list(getattr(fast, "alias_texts", {})):
        if key.startswith("#loc"):
            assert fast.loc_aliases[key] is not None
    expected_bad = "invalid" in path.parts and "syntax" in path.name
    if not expected_bad:
        assert fast.syntax_errors == [], [(m, fast.source.line_col(s.start)) for m, s in fast.syntax_errors]
        assert slow.syntax_errors == []


def test_real_jax_lines_carry_what_rules_need():
    module = _scan(FIXTURES / "jax_ppermute.generic.mlir", PARSER)
    (cp,) = [op for op in module.walk() if op.name == "stablehlo.collective_permute"]
    pairs = cp.attr("source_target_pairs")
    assert pairs.array.shape == (8, 2)
    assert module.source.snippet(pairs.span).startswith("dense<[[0, 1]")
    assert cp.attr("channel_handle").int_param("handle") == 1
    assert cp.loc is not None
    frames = cp.python_frames
    assert frames and frames[0].file.endswith("gen.py")


# Attributes the generic form prints and the pretty form leaves out (MLIR defaults).
_DEFAULTED = {"arg_attrs", "res_attrs", "api_version", "called_computations", "has_side_effect"}


def _form_pairs() -> list[tuple[Path, Path]]:
    pairs = []
    for generic in sorted((ROOT / "corpus" / "real").glob("*.generic*.mlir")) + sorted(FIXTURES.glob("*.generic.mlir")):
        for pretty in (generic.with_name(generic.name.replace(".generic", "")),
                       generic.with_name(generic.name.replace(".generic", ".debug"))):
            if pretty.exists():
                pairs.append((pretty, generic))
                break
    return pairs


@pytest.mark.parametrize("pretty, generic", _form_pairs(), ids=lambda p: p.name)
def test_pretty_and_generic_forms_of_one_program_give_the_same_headers(pretty, generic):
    """Pretty-form attributes land under their real names with the generic form's values."""
    ops = [[op for op in _scan(path, PARSER).walk() if op.name != "builtin.module"] for path in (pretty, generic)]
    assert [op.name for op in ops[0]] == [op.name for op in ops[1]]
    for a, b in zip(*ops):
        ha, hb = a.header, b.header
        names = (set(ha.attributes) | set(hb.attributes)) - _DEFAULTED
        for name in names:
            assert ha.attributes.get(name) == hb.attributes.get(name), (a.name, name)
        assert ha.result_types == hb.result_types, a.name
        assert a.operand_types == b.operand_types, a.name
        assert len(ha.operands) == len(hb.operands), a.name
