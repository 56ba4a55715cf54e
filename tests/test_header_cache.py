"""The per-module header cache gives exactly what parsing each op afresh gives:
names, types, attributes, every (nested) span, locations."""
from __future__ import annotations

import re
from dataclasses import fields

import pytest

from shlo_lint.checker.frontend import read as frontend_read
from shlo_lint.checker.ir.attributes import Attribute
from shlo_lint.checker.frontend.stablehlo.parse import LarkParser
from shlo_lint.checker.frontend.stablehlo.scan import scan
from shlo_lint.checker.source.text import SourceFile

from conftest import CORPUS


def spans(value, acc):
    if isinstance(value, Attribute):
        for f in fields(value):
            v = getattr(value, f.name)
            if f.name == "span":
                acc.append(v)
            else:
                spans(v, acc)
    elif isinstance(value, (tuple, list)):
        for v in value:
            spans(v, acc)
    return acc


def snapshot(text: str, cache: bool, fast: bool = False):
    # fast=False: every header the cache misses goes through Lark, not the
    # regex fast path (checker/frontend/stablehlo/parse/fast.py).
    module = scan(SourceFile("t.mlir", text), LarkParser(cache=cache, fast=fast))
    out = []
    for op in module.walk():
        h = op.header
        labels = [b.arguments and [(a.name, a.type) for a in b.arguments]
                  for r in op.regions for b in r.blocks if b.label_span is not None]
        out.append((h.name, h.name_span, h.operands, h.operand_types, h.result_types, h.attributes,
                    h.properties, h.region_args, h.successors, h.loc, spans(list(h.attributes.values()), []),
                    labels))
    return out, module


@pytest.mark.parametrize("name", ["psum.mlir", "psum.debug.mlir", "tp_mlp_grad.mlir", "fori_pipeline.generic.mlir",
                                  "mesh2x4_psum_y_gather_x.gspmd.mlir", "async_two_overlapping.generic.mlir",
                                  "sendrecv_ring.generic.mlir"])
def test_cached_headers_equal_fresh_ones(name):
    text = (CORPUS / "real" / name).read_text()
    cached, module = snapshot(text, cache=True)
    fresh, _ = snapshot(text, cache=False)
    assert cached == fresh


def test_repeated_collectives_with_other_names_and_locs_hit_the_cache():
    line = ('    %{n} = "stablehlo.all_gather"(%{a}) <{{all_gather_dim = 0 : i64, channel_handle = '
            '#stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>, '
            'use_global_device_ids}}> : (tensor<2xf32>) -> tensor<4xf32> loc(#loc{l})\n')
    body = "".join(line.format(n=10 + i, a=20 + i, l=30 + i) for i in range(5))
    text = ("module attributes {mhlo.num_partitions = 2 : i32, mhlo.num_replicas = 1 : i32} {\n"
            f"  func.func @f(%arg0: tensor<2xf32>) -> tensor<2xf32> {{\n{body}    return %arg0 : tensor<2xf32>\n  }}\n}}\n")
    cached, module = snapshot(text, cache=True)
    fresh, _ = snapshot(text, cache=False)
    assert cached == fresh
    gathers = [op for op in module.walk() if op.name == "stablehlo.all_gather"]
    assert [op.header.operands[0][0] for op in gathers] == [f"%{20 + i}" for i in range(5)]
    assert [op.loc.name for op in gathers] == [f"#loc{30 + i}" for i in range(5)]
    assert len([k for k in module._header_cache if "all_gather" in str(k)]) == 1  # one Lark parse for all five
    # The default parser asks the cache before the fast path: one fast parse for all five.
    fast, module = snapshot(text, cache=True, fast=True)
    assert fast == fresh
    assert len([k for k in module._header_cache if "all_gather" in str(k)]) == 1


# --------------------------------------------------------------------------- no state across ops/files
_GATHER = ('  %{r} = "stablehlo.gather"(%arg0, %{i}) <{{dimension_numbers = #stablehlo.gather<offset_dims = [1], '
           'collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, indices_are_sorted = false, '
           'slice_sizes = array<i64: 1, 4>}}> : (tensor<8x4xf32>, tensor<{n}x1xi32>) -> tensor<{n}x4xf32>\n')


def _gathers(pattern) -> str:
    body = "".join(_GATHER.format(r=k, i=f"arg{1 if n == 2 else 2}", n=n) for k, n in enumerate(pattern))
    return ("func.func @main(%arg0: tensor<8x4xf32>, %arg1: tensor<2x1xi32>, %arg2: tensor<3x1xi32>) -> tensor<8x4xf32> {\n"
            f"{body}  return %arg0 : tensor<8x4xf32>\n}}\n")


@pytest.mark.parametrize("pattern", [(2, 2, 2, 2), (2, 3, 3, 2), (3, 2, 2, 3, 3, 2)])
def test_repeated_gathers_read_like_fresh_ones(pattern):
    # Same dimension numbers under other types: the dialect-body sub-parse is
    # reused, and a header built from it is then reused again (once crashed
    # with "'tuple' object has no attribute 'start'" on the third gather).
    text = _gathers(pattern)
    cached, module = snapshot(text, cache=True)
    fresh, _ = snapshot(text, cache=False)
    assert module.syntax_errors == []
    assert cached == fresh
    for op in module.walk():
        if op.name == "stablehlo.gather":
            for s in spans(list(op.header.attributes.values()), []):
                assert s is None or type(s).__name__ == "Span"


def test_a_file_reads_the_same_after_another_file():
    from shlo_lint.checker.lint import engine
    from shlo_lint.checker.lint.config import Config

    a = SourceFile("a.mlir", _gathers((3, 2, 2)))
    b = SourceFile("b.mlir", _gathers((2, 3, 3, 2)).replace("%arg0, %", "%arg0,  %"))

    def lint(src):
        r = engine.lint_source(src, Config())
        return [(d.code, d.message, d.span) for d in r.diagnostics]

    parse = LarkParser()
    alone = [op.header for op in scan(SourceFile("b.mlir", b.text), LarkParser()).walk()]
    scan_a = scan(a, parse)
    for op in scan_a.walk():
        op.header  # noqa: B018
    after = [op.header for op in scan(SourceFile("b.mlir", b.text), parse).walk()]
    assert after == alone
    first = lint(b)
    lint(a)
    assert lint(b) == first
    assert not [c for c, _m, _s in first if c in ("SHLO001", "SHLO003")]


def test_malformed_dialect_attribute_in_a_type_is_a_located_syntax_error():
    text = '%0 = "stablehlo.add"(%a) : (tensor<f32, #x<<1>>, f32) -> f32\n'
    module = scan(SourceFile("t.mlir", text), LarkParser())
    for op in module.walk():
        op.header  # noqa: B018
    assert module.syntax_errors
    for message, span in module.syntax_errors:
        assert "Error" not in message and "tuple" not in message
        assert 0 <= span.start <= len(text)


def test_names_a_hit_cannot_read_back_are_not_reused():
    # Same layout, other names, in places a hit would not re-read: an unknown
    # op's `key = %x`, a dialect attribute's body, a location's child alias.
    text = ("func.func @f(%a: tensor<f32>, %b: tensor<f32>) -> tensor<f32> {\n"
            "  %0 = foo.bar %a, key = %a : tensor<f32>\n"
            "  %1 = foo.bar %b, key = %b : tensor<f32>\n"
            '  %2 = "foo.baz"(%a) {k = #foo<%a>} : (tensor<f32>) -> tensor<f32>\n'
            '  %3 = "foo.baz"(%b) {k = #foo<%b>} : (tensor<f32>) -> tensor<f32>\n'
            '  %4 = stablehlo.abs %a : tensor<f32> loc("n"(#loc1))\n'
            '  %5 = stablehlo.abs %b : tensor<f32> loc("n"(#loc2))\n'
            "  return %0 : tensor<f32>\n}\n"
            '#loc1 = loc("a.py":1:1)\n#loc2 = loc("b.py":2:2)\n')
    for fast in (True, False):
        cached, module = snapshot(text, cache=True, fast=fast)
        fresh, _ = snapshot(text, cache=False, fast=fast)
        assert cached == fresh
        ops = {op.name + str(i): op for i, op in enumerate(module.walk())}
        texts = [op.attr("key").text for op in ops.values() if op.name == "foo.bar"]
        assert texts == ["%a", "%b"]
        bodies = [op.attr("k").text for op in ops.values() if op.name == "foo.baz"]
        assert bodies == ["#foo<%a>", "#foo<%b>"]
        children = [op.header.loc.child.name for op in ops.values() if op.name == "stablehlo.abs"]
        assert children == ["#loc1", "#loc2"]


@pytest.mark.parametrize("name", ["psum.mlir", "tp_mlp_grad.mlir", "fori_pipeline.generic.mlir",
                                  "sendrecv_ring.generic.mlir"])
def test_lint_is_the_same_when_cache_hits_stand_for_parsed_headers(name, monkeypatch):
    # The engine checks a header whose layout already parsed without building it
    # (LarkParser.header_checked); every diagnostic must be what parsing every
    # header afresh gives. A broken repeat of a cached line still reports.
    from shlo_lint.checker.lint import engine
    from shlo_lint.checker.lint.config import Config

    text = (CORPUS / "real" / name).read_text()
    lines = text.splitlines(keepends=True)
    at = next(i for i, line in enumerate(lines) if re.match(r'\s*%\S+ = "?stablehlo\.', line))
    broken = "".join(lines[:at + 1] + [lines[at].replace(" = ", " = = ", 1)] + lines[at + 1:])

    def lint(src: str, parser):
        monkeypatch.setattr(frontend_read, "_parser", parser)
        result = engine.lint_source(SourceFile("t.mlir", src), Config())
        return [(d.code, d.message, d.span) for d in result.diagnostics]

    for src in (text, broken):
        assert lint(src, LarkParser()) == lint(src, LarkParser(cache=False))
    assert any(code == "SHLO001" for code, _m, _s in lint(broken, LarkParser()))


def test_a_malformed_name_of_the_same_length_is_not_a_hit():
    from shlo_lint.checker.lint.engine import lint_text

    text = ("func.func @f(%a: tensor<f32>) -> tensor<f32> {\n"
            '  %0:2 = "stablehlo.foo"(%a) : (tensor<f32>) -> (tensor<f32>, tensor<f32>)\n'
            '  %1 = "stablehlo.abs"(%0#1) : (tensor<f32>) -> tensor<f32>\n'
            '  %2 = "stablehlo.abs"(%0#x) : (tensor<f32>) -> tensor<f32>\n'
            "  return %1 : tensor<f32>\n}\n")
    errors = [d for d in lint_text(text, "t.mlir") if d.code == "SHLO001"]
    assert len(errors) == 1 and "'#x'" in errors[0].message


def test_a_parse_that_records_an_error_is_not_reused():
    # `[0:2] x [0]` is no list of dimension numbers: the dot_general handler records
    # a syntax error while still returning a header; a cache hit would not.
    from shlo_lint.checker.lint.engine import lint_text

    line = ("  %{n} = stablehlo.dot_general %a, %a, contracting_dims = [0:2] x [0] : "
            "(tensor<4xf32>, tensor<4xf32>) -> tensor<f32>\n")
    text = ("func.func @f(%a: tensor<4xf32>) -> tensor<f32> {\n" + line.format(n=0) + line.format(n=1)
            + "  return %0 : tensor<f32>\n}\n")
    errors = [d for d in lint_text(text, "t.mlir") if d.code == "SHLO001"]
    assert len(errors) == 2 and all("contracting_dims" in d.message for d in errors)


def test_headers_shared_across_files_never_carry_a_module_alias():
    # Lines no module context can shape are kept process-wide; one naming an
    # alias (#a here, defined differently in each file) is not.
    body = ('func.func @f(%a: tensor<f32>) -> tensor<f32> {{\n'
            '  %0 = "stablehlo.abs"(%a) {{k = #a}} : (tensor<f32>) -> tensor<f32>\n'
            '  %1 = "stablehlo.abs"(%0) : (tensor<f32>) -> tensor<f32>\n'
            '  return %1 : tensor<f32>\n}}\n#a = {v} : i64\n')
    parser = LarkParser()
    seen = []
    for v in (1, 2):
        text = body.format(v=v)
        module = scan(SourceFile(f"f{v}.mlir", text), parser)
        ops = [op for op in module.walk() if op.name == "stablehlo.abs"]
        seen.append(ops[0].attr("k").value)
        fresh = scan(SourceFile(f"f{v}.mlir", text), LarkParser(cache=False))
        assert [op.header for op in module.walk()] == [op.header for op in fresh.walk()]
        assert [op.header.name_span for op in module.walk()] == [op.header.name_span for op in fresh.walk()]
    assert seen == [1, 2]


def test_a_parser_without_the_fast_path_never_reads_shared_headers(monkeypatch):
    # LarkParser(fast=False) is the tests' reference for the fast path: a header
    # the default parser shared process-wide must not stand in for its Lark parse.
    text = ("func.func @f(%a: tensor<f32>) -> tensor<f32> {\n"
            "  %0 = stablehlo.abs %a : tensor<f32>\n  %1 = stablehlo.negate %0 : tensor<f32>\n"
            "  return %1 : tensor<f32>\n}\n")
    first = scan(SourceFile("a.mlir", text), LarkParser())
    ops = [op for op in first.walk() if op.name != "builtin.module"]
    for op in ops:
        op.header  # noqa: B018 - shared now
    names = LarkParser.parse_header.__globals__
    real = names["parse_rule"]
    calls = []

    def counting(start, ctx):
        calls.append(start)
        return real(start, ctx)

    monkeypatch.setitem(names, "parse_rule", counting)
    second = scan(SourceFile("b.mlir", text), LarkParser(fast=False))
    for op in second.walk():
        op.header  # noqa: B018
    assert calls.count("op") == len(ops)


def test_checking_every_header_parses_each_layout_once(monkeypatch):
    # 200 adds of one layout: the engine's whole-module check parses the first
    # and counts the others as checked (a cache hit, or the same skeleton:
    # LarkParser.unchecked) without building them.
    body = "".join(f"  %{100 + i} = stablehlo.add %{99 + i}, %{99 + i} : tensor<4xf32>\n" for i in range(1, 201))
    text = ("func.func @main(%arg0: tensor<4xf32>) -> tensor<4xf32> {\n"
            "  %100 = stablehlo.add %arg0, %arg0 : tensor<4xf32>\n" + body + "  return %300 : tensor<4xf32>\n}\n")
    adds, diags = _parsed_adds(monkeypatch, text)
    assert not [d for d in diags if d.code in ("SHLO001", "SHLO003")]
    # (the first add, on %arg0, has names of other lengths: the same skeleton)
    assert len(adds) == 1, len(adds)


def _parsed_adds(monkeypatch, text: str) -> tuple[list[str], list]:
    """The add headers the engine's whole-module check parses, and the diagnostics."""
    from shlo_lint.checker.lint import engine
    from shlo_lint.checker.lint.config import Config
    from shlo_lint.checker.frontend.stablehlo.parse.cache import clear_shared

    clear_shared()  # (an earlier test may have shared this very layout)
    names = LarkParser.parse_header.__globals__
    real = names["fast_parse"]
    parsed = []

    def counting(ctx):
        parsed.append(ctx.text)
        return real(ctx)

    monkeypatch.setitem(names, "fast_parse", counting)
    monkeypatch.setattr(frontend_read, "_parser", LarkParser())
    result = engine.lint_source(SourceFile("t.mlir", text), Config())
    return [t for t in parsed if "stablehlo.add" in t], result.diagnostics


def test_names_of_other_lengths_are_checked_without_a_parse(monkeypatch):
    # %1 .. %1000: four layout keys (names of 1 to 4 digits), one skeleton: the
    # first add parses and the others are checked by it.
    body = "".join(f"  %{i} = stablehlo.add %{i - 1}, %{i - 1} : tensor<4xf32>\n" for i in range(1, 1001))
    text = ("func.func @main(%0: tensor<4xf32>) -> tensor<4xf32> {\n" + body
            + "  return %1000 : tensor<4xf32>\n}\n")
    adds, diags = _parsed_adds(monkeypatch, text)
    assert not [d for d in diags if d.code in ("SHLO001", "SHLO003")]
    assert len(adds) == 1, adds[:3]


@pytest.mark.parametrize("bad", ["%2 = stablehlo.add %, %1 : tensor<4xf32>",
                                 "%2 = stablehlo.add %1, %1 : tensor<4xf32> loc(%1)"])
def test_a_broken_line_is_no_other_length_of_a_clean_one(monkeypatch, bad):
    # Only names change length in a skeleton: a stray `%` or a name where a
    # location goes is a syntax error still.
    text = ("func.func @main(%0: tensor<4xf32>) -> tensor<4xf32> {\n"
            "  %1 = stablehlo.add %0, %0 : tensor<4xf32>\n"
            "  %10 = stablehlo.add %1, %1 : tensor<4xf32>\n"
            f"  {bad}\n"
            "  return %1 : tensor<4xf32>\n}\n")
    _adds, diags = _parsed_adds(monkeypatch, text)
    fresh = scan(SourceFile("t.mlir", text), LarkParser(cache=False))
    for op in fresh.walk():
        op.header  # noqa: B018
    assert fresh.syntax_errors  # the reference sees the error ...
    assert [d.span for d in diags if d.code == "SHLO001"] == [s for _m, s in fresh.syntax_errors]  # ... and so does the check
