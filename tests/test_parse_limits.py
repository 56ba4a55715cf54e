"""No recursion limit is reachable from input, and dense constants cost about
their own bytes: nesting 100,000 deep is read (or refused with a located
finding), never a RecursionError or SHLO003; a hex constant decodes into one
buffer."""
from __future__ import annotations

import re
import tracemalloc

import pytest

from shlo_lint import Config, lint_text
from shlo_lint.checker.ir.attributes import DenseDecodeError, DenseElementsAttr
from shlo_lint.checker.frontend.stablehlo.parse import parse_type

DEEP = 100_000
_EXCEPTION_NAME = re.compile(r"\b[A-Z]\w*(Error|Exception)\b")
HEAD = ('module attributes {mhlo.num_partitions = 2 : i32, mhlo.num_replicas = 1 : i32} {\n'
        'func.func @f(%a: tensor<2xf32>) -> tensor<2xf32> {\n')
TAIL = "  return %a : tensor<2xf32>\n}\n}\n"


def nested(depth: int, inner: str = "0, 1") -> str:
    return "[" * depth + inner + "]" * depth


def lint(text: str):
    diags = lint_text(text, "deep.mlir", Config())
    for d in diags:
        assert d.code != "SHLO003", d.message
        assert not _EXCEPTION_NAME.search(d.message), d.message
    return diags


def test_replica_groups_nested_100000_deep():
    op = (f'  %0 = "stablehlo.all_reduce"(%a) <{{replica_groups = dense<{nested(DEEP)}> : tensor<1x2xi64>}}> ({{\n'
          "  ^bb0(%x: tensor<f32>, %y: tensor<f32>):\n    %s = stablehlo.add %x, %y : tensor<f32>\n"
          "    stablehlo.return %s : tensor<f32>\n  }) : (tensor<2xf32>) -> tensor<2xf32>\n")
    codes = {d.code for d in lint(HEAD + op + TAIL)}
    assert "SHLO200" in codes  # the groups cannot be read as integers: said so, located


def test_source_target_pairs_nested_100000_deep():
    op = (f'  %0 = "stablehlo.collective_permute"(%a) <{{channel_handle = #stablehlo.channel_handle<handle = 1, '
          f'type = 1>, source_target_pairs = dense<{nested(DEEP)}> : tensor<1x2xi64>}}> : (tensor<2xf32>) -> tensor<2xf32>\n')
    assert lint(HEAD + op + TAIL)


@pytest.mark.slow  # tens of seconds on a loaded 2-core machine
def test_repeated_deep_attributes_through_the_caches():
    op = ('  %{r} = "stablehlo.all_gather"(%a) <{{all_gather_dim = 0 : i64, replica_groups = {g}, '
          'note = #foo.bar<{g}>}}> : (tensor<2xf32>) -> tensor<2xf32>\n')
    body = "".join(op.format(r=i, g=nested(DEEP)) for i in range(3))
    assert lint(HEAD + body + TAIL)


def test_parentheses_100000_deep_in_a_function_type():
    fn = "(" * DEEP + "tensor<f32>" + ")" * DEEP
    text = f'func.func @f(%a: tensor<f32>) -> tensor<f32> {{\n  %0 = "stablehlo.add"(%a, %a) : ({fn}, tensor<f32>) -> tensor<f32>\n  return %0 : tensor<f32>\n}}\n'
    diags = lint(text)
    assert [d.code for d in diags] == ["SHLO001"]
    assert diags[0].span is not None and diags[0].span.start > 0


def test_pretty_groups_and_tuple_types_100000_deep():
    tup = "tuple<" * DEEP + "tensor<f32>" + ">" * DEEP
    lint(f"func.func @f(%a: {tup}) {{\n  return\n}}\n")
    grp = "(" * DEEP + "%a" + ")" * DEEP
    lint(f"func.func @f(%a: tensor<f32>) {{\n  mydialect.thing {grp} : tensor<f32>\n  return\n}}\n")


@pytest.mark.parametrize("literal, type_, expected", [
    ("[[1, 2], [3, 4]]", "tensor<2x2xi64>", [[1, 2], [3, 4]]),
    ("[true, false]", "tensor<2xi1>", [True, False]),
    ("[(1.0, 2.0), (3.0, -4.0)]", "tensor<2xcomplex<f32>>", [1 + 2j, 3 - 4j]),
    ("[0xFF, -0x1]", "tensor<2xi32>", [255, -1]),
    ("[]", "tensor<0xf32>", []),
    ("[[]]", "tensor<1x0xf32>", [[]]),
    ('"0x0000803F00000040"', "tensor<2xf32>", [1.0, 2.0]),
    ("2", "tensor<2xi32>", [2, 2]),
])
def test_dense_literal_forms(literal, type_, expected):
    assert DenseElementsAttr(literal, parse_type(type_)).array.tolist() == expected


@pytest.mark.parametrize("literal", ["[[1], [2, 3]]", "[1, [2]]", "[[1, 2]", "[1, 2]]", nested(DEEP, "0")])
def test_malformed_or_too_deep_dense_literals_are_decode_errors(literal):
    with pytest.raises(DenseDecodeError):
        DenseElementsAttr(literal, parse_type("tensor<2xi64>")).array  # noqa: B018


def test_hex_constant_decodes_into_one_buffer():
    n = 1_000_000
    literal = '"0x' + "0000803F" * n + '"'  # 8 MB of text, 4 MB of data
    attr = DenseElementsAttr(literal, parse_type(f"tensor<{n}xf32>"))
    tracemalloc.start()
    try:
        arr = attr.array
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert arr.shape == (n,) and float(arr[0]) == 1.0 and float(arr[-1]) == 1.0
    assert peak <= 1.0 * len(literal), peak  # the data (1/2 of the text) plus one chunk


def test_a_big_hex_constant_lints():
    n = 2_000_000  # 16 MB of text
    text = (f'func.func @main() -> tensor<{n}xf32> {{\n  %0 = stablehlo.constant dense<"0x{"0000803F" * n}"> : '
            f'tensor<{n}xf32>\n  return %0 : tensor<{n}xf32>\n}}\n')
    assert lint(text) == []
