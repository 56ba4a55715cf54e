"""The regex fast path (checker/frontend/stablehlo/parse/fast.py) on the forms JAX and
stablehlo-opt print most: each line below must be *taken* by the fast path
(not left to Lark) and must read exactly as the full grammar reads it —
header, attributes, every nested span, location. Lines the fast path must
leave to Lark are checked to be left, and to read the same either way."""
from __future__ import annotations


import pytest

from shlo_lint.checker.ir.core import Module, Operation
from shlo_lint.checker.frontend.stablehlo.parse import LarkParser
from shlo_lint.checker.frontend.stablehlo.parse.api import _compress
from shlo_lint.checker.frontend.stablehlo.parse.ctx import ParseCtx
from shlo_lint.checker.frontend.stablehlo.parse.fast import fast_parse
from shlo_lint.checker.source.text import SourceFile, Span

from conftest import deep

SLOW = LarkParser(fast=False, cache=False)
REGION = "{\n  ^bb0(%x: tensor<f32>, %y: tensor<f32>):\n    stablehlo.return %x : tensor<f32>\n  }"

TAKEN = [
    # generic collectives: properties with channel handles, replica groups, unit attributes
    '%0 = "stablehlo.all_reduce"(%c1) <{channel_handle = #stablehlo.channel_handle<handle = 5, type = 1>, '
    'replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>, use_global_device_ids}> ('
    + REGION + ') : (tensor<4xf32>) -> tensor<4xf32>',
    '%1 = "stablehlo.collective_permute"(%0) <{channel_handle = #stablehlo.channel_handle<handle = 7, type = 1>, '
    'source_target_pairs = dense<[[0, 1], [1, 2], [2, 3], [3, 0]]> : tensor<4x2xi64>}> '
    ': (tensor<8xf32>) -> tensor<8xf32> loc(#loc12)',
    '%2 = "stablehlo.all_gather"(%1) <{all_gather_dim = 0 : i64, replica_groups = dense<[[0, 1]]> : '
    'tensor<1x2xi64>}> : (tensor<2xf32>) -> tensor<4xf32>',
    # enums, dialect attributes with nested brackets, dense arrays, empty arrays
    '%3 = "stablehlo.compare"(%a, %b) <{compare_type = #stablehlo<comparison_type SIGNED>, '
    'comparison_direction = #stablehlo<comparison_direction EQ>}> : (tensor<i32>, tensor<i32>) -> tensor<i1>',
    '%4 = "stablehlo.gather"(%a, %i) <{dimension_numbers = #stablehlo.gather<offset_dims = [0, 1], '
    'collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, indices_are_sorted = false, '
    'slice_sizes = array<i64: 1, 2, 16>}> : (tensor<8x2x16xf32>, tensor<1xi32>) -> tensor<1x2x16xf32>',
    '%5 = "stablehlo.broadcast_in_dim"(%4) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<4x8xf32>',
    '%6 = "stablehlo.dot_general"(%a, %b) <{dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = '
    '[1], rhs_contracting_dimensions = [0]>, precision_config = [#stablehlo<precision DEFAULT>, '
    '#stablehlo<precision HIGHEST>]}> : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>',
    # strings, a symbol, typed floats / hex, a string key, a discardable dict after properties
    '"builtin.module"() <{sym_name = "jit_body"}> ({\n}) {mhlo.num_partitions = 8 : i32, '
    'mhlo.num_replicas = 1 : i32} : () -> ()',
    '%7:3 = "func.call"(%a, %b) <{callee = @closed_call}> : (tensor<i32>, tensor<f32>) '
    '-> (tensor<i32>, tensor<f32>, tensor<f32>)',
    '%8 = "stablehlo.constant"() <{value = dense<3.000000e+00> : tensor<f32>}> : () -> tensor<f32>',
    '%9 = "stablehlo.custom_call"(%a) <{call_target_name = "Sharding", has_side_effect = true, '
    'backend_config = "", api_version = 2 : i32}> {"string key" = 1.5 : f32, bits = 0x3F800000 : f32, '
    'idx = index, big = -12 : i64} : (tensor<4xf32>) -> tensor<4xf32>',
    # an empty dict, nested dicts and arrays of dicts
    '%10 = "stablehlo.custom_call"(%a) <{call_target_name = "x", result_layouts = [dense<0> : tensor<1xindex>], '
    'mhlo.frontend_attributes = {_xla_compute_type = "host", inner = {}}, arg_attrs = [{}, {a = 1 : i64}]}> '
    ': (tensor<4xf32>) -> tensor<4xf32>',
    # pretty forms with attribute dictionaries
    'stablehlo.custom_call @check.expect_close(%2, %1) {has_side_effect = true} : '
    '(tensor<20x20xbf16>, tensor<20x20xbf16>) -> ()',
    '%11 = stablehlo.custom_call @Sharding(%a) {backend_config = "", mhlo.sharding = "{devices=[8,1]<=[8]}"} '
    ': (tensor<16x4xf32>) -> tensor<16x4xf32>',
    'module @jit_main attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {\n}',
    'func.func public @main(%arg0: tensor<i64>, %arg1: tensor<?x1x6xf32> {mhlo.sharding = ""}) -> '
    '(tensor<20x20xbf16> {jax.result_info = "", mhlo.layout_mode = "default"}) {\n}',
    'func.func private @inputs() -> (tensor<20x20xbf16> {mhlo.layout_mode = "default"}) {\n}',
    '%12 = stablehlo.reduce_precision %a, format = e5m10 : tensor<4xf32>',
    # pretty properties, hex-blob dense constants, dialect (bang) types
    '%13 = stablehlo.constant dense<"0x030001FCFDFF04FE"> : tensor<2x2xi16>',
    '%14 = "stablehlo.async_done"(%0) : (!stablehlo.future<tensor<64x8xf32>>) -> tensor<64x8xf32>',
    '%15 = "stablehlo.async_start"(%a) (' + REGION + ') : (tensor<8x8xf32>) -> !stablehlo.future<tensor<64x8xf32>>',
    '%16 = "stablehlo.reduce_window"(%a, %b) <{padding = dense<[[7, 0], [0, 0]]> : tensor<2x2xi64>, '
    'window_dimensions = array<i64: 8, 1>}> (' + REGION + ') : (tensor<8x9xbf16>, tensor<bf16>) -> tensor<8x9xbf16>',
    '%17 = "sdy.manual_computation"(%arg0) <{in_shardings = #sdy.sharding_per_value<[<@mesh, [{"x"}, {}]>]>, '
    'manual_axes = #sdy<manual_axes{"x"}>, out_shardings = #sdy.sharding_per_value<[<@mesh, [{}, {}]>]>}> ('
    + REGION + ') : (tensor<16x4xf32>) -> tensor<8x4xf32>',
    '"sdy.mesh"() <{mesh = #sdy.mesh<["x"=8]>, sym_name = "mesh"}> {stablehlo.mesh = {axes = '
    '[{name = "x", size = 8 : i64}]}} : () -> ()',
    '%18 = stablehlo.foo %a <{k = 1 : i64}> {d = "v"} : tensor<4xf32>',
    # sdy's inline shardings and meshes (angle groups), function-type values, full locations
    '%19 = sdy.manual_computation(%arg0) in_shardings=[<@mesh, [{"x"}, {}]>] out_shardings=[<@mesh, [{}, {}]>] '
    'manual_axes={"x"} (%arg1: tensor<2x4xf32>) ' + REGION + ' : (tensor<16x4xf32>) -> tensor<8x4xf32>',
    'sdy.mesh @mesh = <["x"=2, "y"=4]> {stablehlo.mesh = {axes = [{name = "x", size = 2 : i64}]}}',
    '"func.func"() <{arg_attrs = [{}, {}], function_type = (tensor<32x8xf32>, tensor<32x8xf32>) -> '
    '(tensor<32x8xf32>, tensor<256x8xf32>), res_attrs = [{jax.result_info = "result[0]"}, {}], '
    'sym_name = "main"}> ({\n}) : () -> ()',
    '"func.func"() <{function_type = () -> tensor<f32>, sym_name = "g"}> ({\n}) : () -> ()',
    'func.func public @main(%arg0: tensor<32x16xf32> loc("x"), %arg1: tensor<16x16xf32> loc("w")) -> '
    '(tensor<32x16xf32> {jax.result_info = "result"}) {\n} loc(#loc)',
    '%20 = stablehlo.add %a, %b : tensor<f32> loc(callsite("f"("a.py":3:4 to :9) at fused["b.py":1:2 to 5:6, '
    'unknown, #loc7]))',
    '%21 = "stablehlo.abs"(%a) : (tensor<f32>) -> tensor<f32> loc("name")',
    # tensors of quantized / dialect elements, and with an encoding
    '%22 = stablehlo.uniform_quantize %a : (tensor<20x20xf32>) -> '
    'tensor<20x20x!quant.uniform<i8:f32, 0.0039215482917486456:-128>>',
    '%23 = "stablehlo.abs"(%a) : (tensor<?x4xf32, #stablehlo.bounds<8, ?>>) -> tensor<*x!quant.uniform<i8:f32, 0.5>>',
    '%24 = stablehlo.add %a, %b : tensor<f32, #enc>',
    '%25 = "stablehlo.custom_call"(%a) <{call_target_name = "x", operand_layouts = '
    '[tensor<2x!quant.uniform<i8:f32, 1.0>>]}> : (tensor<2xf32>) -> tensor<2xf32>',
]

LOCATIONS = [
    'loc("a.py":1:2)', 'loc("a.py":1:2 to :7)', 'loc("a.py":1:2 to 3:4)', 'loc("jit(f)/add")',
    'loc("n"(#loc3))', 'loc(callsite(#loc1 at #loc2))', 'loc(fused[#loc1, "x", unknown])', 'loc(fused[])',
    'loc(unknown)', 'loc(#loc9)', 'loc("x"("y"("a.py":1:1)))',
]

LEFT_TO_LARK = [
    # a string with an escape, a `< {` with a space, a nested function type, a space in a shape
    '%0 = "stablehlo.custom_call"(%a) <{call_target_name = "a\\22b"}> : (tensor<4xf32>) -> tensor<4xf32>',
    '%0 = "stablehlo.custom_call"(%a) < {call_target_name = "x"}> : (tensor<4xf32>) -> tensor<4xf32>',
    '"func.func"() <{function_type = ((tensor<4xf32>) -> tensor<4xf32>) -> tensor<4xf32>}> ({\n}) : () -> ()',
    '%0 = stablehlo.uniform_quantize %a : (tensor<4xf32>) -> tensor<4x 4x!quant.uniform<i8:f32, 0.5:-128>>',
]



def _op(text: str, parser: LarkParser):
    """A Module and one Operation over `text`, its regions the `{...}` bodies
    at top level (as the scanner would cut them); `text` sits after a prefix so
    that spans are not relative to 0."""
    prefix = "// a line before\n"
    source = SourceFile("t.mlir", prefix + text)
    module = Module(source, parser)
    regions, depth, open_at, quote = [], 0, 0, False
    for i, c in enumerate(source.text):
        if c == '"':
            quote = not quote
        elif not quote and c == "{" and source.text[i - 1:i] in ("(", " ") and depth == 0 \
                and source.text[i + 1:i + 2] == "\n":
            depth, open_at = 1, i
        elif depth and c == "{":
            depth += 1
        elif depth and c == "}":
            depth -= 1
            if depth == 0:
                regions.append(Span(open_at, i + 1))
    op = Operation("x", Span(len(prefix), len(source.text)), (), module)
    op.region_spans = regions
    return module, op


def _fast(text: str):
    module, op = _op(text, LarkParser())
    body, gap_pos, gap_delta = _compress(module.source.text, op.span.start, op.span.end, op.region_spans)
    return fast_parse(ParseCtx(body, op.span.start, module, gap_pos, gap_delta)), module


def lark_parser(text: str):
    module, op = _op(text, SLOW)
    return SLOW.parse_header(module, op), module


@pytest.mark.parametrize("text", TAKEN, ids=range(len(TAKEN)))
def test_the_fast_path_takes_the_form_and_reads_it_as_lark_does(text):
    fast, module = _fast(text)
    assert fast is not None, "left to Lark"
    slow, slow_module = lark_parser(text)
    assert slow_module.syntax_errors == [] and module.syntax_errors == []
    assert deep(fast) == deep(slow)


@pytest.mark.parametrize("text", LEFT_TO_LARK, ids=range(len(LEFT_TO_LARK)))
def test_unusual_forms_are_left_to_lark(text):
    fast, _module = _fast(text)
    assert fast is None
    parser = LarkParser()
    module, op = _op(text, parser)
    slow, _ = lark_parser(text)
    assert deep(parser.parse_header(module, op)) == deep(slow)


def test_property_spans_point_into_the_file():
    text = TAKEN[0]
    h, module = _fast(text)
    source = module.source.text
    handle = h.attributes["channel_handle"]
    assert source[handle.span.start:handle.span.end] == "#stablehlo.channel_handle<handle = 5, type = 1>"
    groups = h.attributes["replica_groups"]
    assert source[groups.span.start:groups.span.end] == "dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>"
    assert h.properties == frozenset({"channel_handle", "replica_groups", "use_global_device_ids"})
    unit = h.attributes["use_global_device_ids"]
    assert source[unit.span.start:unit.span.end] == "use_global_device_ids"


@pytest.mark.parametrize("text", LOCATIONS)
def test_location_definitions_read_as_lark_reads_them(text):
    from shlo_lint.checker.frontend.stablehlo.parse.fast import fast_loc
    from shlo_lint.checker.frontend.stablehlo.parse.runner import parse_rule

    fast = fast_loc(ParseCtx(text, 5))
    assert fast is not None
    assert fast == parse_rule("loc_only", ParseCtx(text, 5))


@pytest.mark.parametrize("text", ['loc(fused<"m">["a.py":1:1])', 'loc("a\\"b")', 'loc("a":1:2) x', 'loc(('])
def test_unusual_locations_are_left_to_lark(text):
    from shlo_lint.checker.frontend.stablehlo.parse.fast import fast_loc

    assert fast_loc(ParseCtx(text, 0)) is None


BLOCK_LABELS = [
    "^bb0:", "^bb0():", "^bb0(%x: tensor<f32>, %y: tensor<f32>):",
    '^bb1(%arg2: tensor<4x!quant.uniform<i8:f32, 0.5>> {a = 1 : i64} loc("x"), %arg3: !stablehlo.token loc(#loc3)):',
    "^while_body(%i: tensor<i32>, %acc: tensor<?x4xf32, #stablehlo.bounds<8, ?>>):",
]


@pytest.mark.parametrize("text", BLOCK_LABELS)
def test_block_labels_read_as_lark_reads_them(text):
    from shlo_lint.checker.frontend.stablehlo.parse.fast import fast_block_label
    from shlo_lint.checker.frontend.stablehlo.parse.runner import parse_rule

    module = Module(SourceFile("t.mlir", "// x\n" + text), SLOW)
    fast = fast_block_label(ParseCtx(text, 5, module))
    assert fast is not None
    assert deep(fast) == deep(parse_rule("block_label", ParseCtx(text, 5, module)))


def test_generated_programs_read_the_same_on_the_fast_path_as_in_lark():
    # tests/genprog.py's programs (every op kind, pretty and generic forms,
    # locations, regions): the default parser (cache, fast path) against Lark
    # alone, every header with its spans, block arguments, locations, errors.
    import genprog
    from shlo_lint.checker.frontend.stablehlo.scan import scan

    def value(v):
        return v.name, deep(v.type)

    def snapshot(module):
        return ([deep(op.header) for op in module.walk()],
                [[value(v) for v in b.arguments] for op in module.walk() for r in op.regions for b in r.blocks
                 if b.label_span is not None],
                {k: module.loc_aliases[k] for k in module.alias_texts if k.startswith("#loc")},
                list(module.syntax_errors))

    default = LarkParser()
    for i in range(200):
        text = genprog.program(i)
        fast = snapshot(scan(SourceFile(f"g{i}.mlir", text), default))
        assert fast == snapshot(scan(SourceFile(f"g{i}.mlir", text), SLOW)), i
