"""MLIR ignores line breaks: any layout of a program reads as the same ops, and
an unknown dialect's custom form is an opaque op (no diagnostic)."""
from __future__ import annotations

import dataclasses
import importlib.util
import re
from collections import Counter

import pytest

from shlo_lint import Config, lint_text
from shlo_lint.checker.ir.attributes import Attribute
from shlo_lint.checker.frontend.read import header_parser as parser
from shlo_lint.checker.ir.core import LocAlias
from shlo_lint.checker.frontend.stablehlo.scan import scan
from shlo_lint.checker.source.text import SourceFile
from shlo_lint.checker.ir.types import QuantizedType, TensorType

from conftest import CORPUS

_spec = importlib.util.spec_from_file_location("relayout", CORPUS / "relayout.py")
relayout = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(relayout)


def module_of(text: str):
    m = scan(SourceFile("t.mlir", text), parser())
    for op in m.walk():
        op.header  # noqa: B018
        for r in op.regions:
            for b in r.blocks:
                if b.label_span is not None:
                    b.arguments  # noqa: B018
    return m


def _norm(value):
    """A value with spans dropped and whitespace runs collapsed (layout-free)."""
    if isinstance(value, Attribute) and dataclasses.is_dataclass(value):
        return (type(value).__name__,) + tuple(_norm(getattr(value, f.name)) for f in dataclasses.fields(value)
                                               if f.name != "span")
    if isinstance(value, dict):
        return tuple(sorted((k, _norm(v)) for k, v in value.items()))
    if isinstance(value, (list, tuple)):
        return tuple(_norm(v) for v in value)
    if isinstance(value, str):
        return " ".join(value.split())
    return value


def ops_of(text: str):
    m = module_of(text)
    out = []
    for op in m.walk():
        h = op.header
        loc = h.loc
        if isinstance(loc, LocAlias):  # what the alias says, wherever it was defined
            loc = (loc.name, str(m.loc_aliases.get(loc.name)))
        out.append((op.name, op.result_names, [n for n, _ in h.operands], _norm(h.operand_types), loc,
                    _norm(h.result_types), _norm(h.attributes), len(op.regions),
                    [[(b.label, [(a.name, a.type) for a in b.arguments]) for b in r.blocks] for r in op.regions]))
    return out, m


def findings(text: str, name: str):
    """(code, message) of every finding; line numbers in messages are layout's."""
    return Counter((d.code, re.sub(r"\bline \d+(:\d+)?|:\d+:\d+", "line N", d.message))
                   for d in lint_text(text, name, Config()))


# ----------------------------------------------------------------------------- corpus/layout
def test_committed_reprints_are_what_relayout_prints():
    for name, text in relayout.outputs().items():
        assert (CORPUS / "layout" / name).read_text() == text, f"run python corpus/relayout.py ({name})"


@pytest.mark.parametrize("rel", relayout.SOURCES)
@pytest.mark.parametrize("form", ["oneline", "split"])
def test_reprints_read_and_lint_like_the_original(rel, form):
    original = (CORPUS / rel).read_text()
    base = rel.split("/")[-1][:-len(".mlir")]
    reprint = (CORPUS / "layout" / f"{base}.{form}.mlir").read_text()
    want, _ = ops_of(original)
    got, m = ops_of(reprint)
    assert not m.syntax_errors and not m.internal_errors
    assert got == want
    assert findings(reprint, f"{base}.{form}.mlir") == findings(original, rel)


# ----------------------------------------------------------------------------- layouts
BODY = ("func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {\n"
        "  %0 = stablehlo.add %a, %a : tensor<4xf32>\n"
        "  %1 = \"stablehlo.all_reduce\"(%0) <{replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>}> ({\n"
        "  ^bb0(%x: tensor<f32>, %y: tensor<f32>):\n"
        "    %s = stablehlo.add %x, %y : tensor<f32>\n"
        "    stablehlo.return %s : tensor<f32>\n"
        "  }) : (tensor<4xf32>) -> tensor<4xf32>\n"
        "  return %1 : tensor<4xf32>\n"
        "}\n")
CANON = "module {\n" + BODY + "}\n"


@pytest.mark.parametrize("text", [
    " ".join(CANON.split()),                                             # the module on one line
    "module {\n" + " ".join(BODY.split()) + "\n}\n",                     # a function on one line
    CANON.replace("  return %1 : tensor<4xf32>\n}\n}\n", "  return %1 : tensor<4xf32>\n} }\n"),   # `} }`
    CANON.replace("}) : (tensor<4xf32>) -> tensor<4xf32>", "})\n    : (tensor<4xf32>)\n    -> tensor<4xf32>"),
    CANON.replace("%0 = stablehlo.add %a, %a : tensor<4xf32>", "%0 = stablehlo.add %a, %a\n      : tensor<4xf32>"),
    CANON.replace("^bb0(%x: tensor<f32>, %y: tensor<f32>):", "^bb0(%x: tensor<f32>,\n       %y: tensor<f32>):"),
    CANON.replace("<{replica_groups", "<{\n    // a comment inside the dictionary\n    replica_groups"),
    CANON.replace("func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {", "func.func @f(%a: tensor<4xf32>\n) -> tensor<4xf32> {"),
    CANON.replace("  ^bb0(%x: tensor<f32>, %y: tensor<f32>):\n    %s", "  ^bb0(%x: tensor<f32>, %y: tensor<f32>): %s"),
], ids=["module-one-line", "func-one-line", "close-two", "sig-next-lines", "type-next-line", "label-two-lines",
        "comment-in-dict", "paren-next-line", "label-and-op"])
def test_any_line_layout_reads_the_same_ops(text):
    want, _ = ops_of(CANON)
    got, m = ops_of(text)
    assert not m.syntax_errors and not m.internal_errors, m.syntax_errors
    assert got == want
    assert findings(text, "t.mlir") == findings(CANON, "t.mlir")


def test_op_end_and_next_op_on_one_line():
    text = CANON.replace("}) : (tensor<4xf32>) -> tensor<4xf32>\n  return", "}) : (tensor<4xf32>) -> tensor<4xf32>  return")
    got, m = ops_of(text)
    assert not m.syntax_errors
    assert got == ops_of(CANON)[0]


def test_multi_line_alias_definition():
    text = ("#CSR = #sparse_tensor.encoding<{\n  map = (d0, d1) -> (d0 : dense, d1 : compressed)\n}>\n"
            "func.func @f(%a: tensor<8x8xf32, #CSR>) -> tensor<8x8xf32, #CSR> {\n  return %a : tensor<8x8xf32, #CSR>\n}\n")
    got, m = ops_of(text)
    assert not m.syntax_errors
    fn = got[1]
    assert fn[0] == "func.func"
    t = module_of(text).root.regions[0].blocks[0].operations[0].header.attributes["function_type"].type.inputs[0]
    assert t.encoding is not None and "compressed" in t.encoding.text


# ----------------------------------------------------------------------------- opaque ops
OPAQUE = """func.func @main() {
  %r = stablehlo.constant dense<[1, 2]> : tensor<2xi64>
  %e = stablehlo.constant dense<[1, 2]> : tensor<2xi64>
  check.expect_eq %r, %e : tensor<2xi64>
  check.expect_eq_const %r, dense<[1, 2]> : tensor<2xi64>
  %results:2 = "interpreter.run_parallel"() {programs = [[@a], [@b]]} : () -> (tensor<2xi64>, tensor<2xi64>)
  interpreter.run_parallel @f %r, %e {programs = [[@a], [@b]]} : (tensor<2xi64>, tensor<2xi64>) -> ()
  func.return
}
"""


def test_unknown_dialect_custom_forms_are_opaque_ops():
    assert lint_text(OPAQUE, "t.mlir", Config()) == []
    m = module_of(OPAQUE)
    ops = {(op.name, op.span.start): op for op in m.walk()}
    byname = {}
    for (name, _), op in sorted(ops.items(), key=lambda kv: kv[0][1]):
        byname.setdefault(name, []).append(op)
    eq = byname["check.expect_eq"][0]
    assert [n for n, _ in eq.header.operands] == ["%r", "%e"]
    const = byname["check.expect_eq_const"][0]
    h = const.header
    assert [n for n, _ in h.operands] == ["%r"]
    literal = h.attributes["_positional"].elements[0]
    assert literal.literal == "[1, 2]"
    assert str(h.operand_types[0]) == "tensor<2xi64>"
    assert m.source.text[const.span.start:const.span.end] == "check.expect_eq_const %r, dense<[1, 2]> : tensor<2xi64>"
    par = byname["interpreter.run_parallel"]
    assert par[0].result_names == (("%results", 2),) and len(par[0].header.result_types) == 2
    assert [n for n, _ in par[1].header.operands] == ["%r", "%e"]
    assert "programs" in par[1].header.attributes


# ----------------------------------------------------------------------------- types and literals
def test_builtin_types_and_literal_forms_parse():
    text = (CORPUS / "valid" / "parser_forms_types_literals.mlir").read_text()
    m = module_of(text)
    assert not m.syntax_errors and not m.internal_errors
    fns = [op for op in m.walk() if op.name == "func.func"]
    sig = fns[1].header.attributes["function_type"].type
    a, b = sig.inputs[0], sig.inputs[1]
    assert isinstance(a, TensorType) and isinstance(a.element, QuantizedType)
    assert isinstance(b.element, QuantizedType) and "{0.1:-30, 0.5:-20}" in b.element.text
    assert sig.inputs[6].shape == (None, None)
    assert lint_text(text, "forms.mlir", Config()) == []


# ----------------------------------------------------------------------------- never a hang
@pytest.mark.parametrize("junk", ["#x = ", "!stablehlo.token=", "#loc1 = loc(unknown) ", "} }", "a.b ", "%a = "])
def test_statement_starts_in_odd_places_end_with_a_diagnostic(junk):
    # `#x = ...` inside a region once made the walk take the previous op up again
    # and stop at once, forever.
    import signal

    def timeout(*_a):
        raise TimeoutError("the scan did not finish")

    old = signal.signal(signal.SIGALRM, timeout)
    signal.alarm(10)
    try:
        for where in ("  return %1", "  %1 = \"stablehlo", "    %s = stablehlo.add", "}) : (tensor<4xf32>)"):
            i = CANON.index(where)
            text = CANON[:i] + junk + CANON[i:]
            lint_text(text, "t.mlir", Config())
            module_of(text)
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)
