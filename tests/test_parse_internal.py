"""An exception inside the parser is shlo-lint's bug: SHLO003 naming the op and
the exception type with "please report", never SHLO001 carrying exception text."""
from __future__ import annotations

import re

import pytest

from shlo_lint.checker.lint import engine
from shlo_lint.checker.frontend.stablehlo import parse as parse_mod
from shlo_lint.checker.frontend.stablehlo.parse import cache
from shlo_lint.checker.lint.config import Config
from shlo_lint.checker.source.text import SourceFile

from conftest import CORPUS

TEXT = """func.func @main(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = "stablehlo.all_reduce"(%a) <{replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>}> ({
  ^bb0(%x: tensor<f32>, %y: tensor<f32>):
    %s = stablehlo.add %x, %y : tensor<f32>
    stablehlo.return %s : tensor<f32>
  }) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
"""

_EXCEPTION_NAME = re.compile(r"\b[A-Z]\w*(Error|Exception)\b|Traceback")


def lint(text: str, name: str = "t.mlir"):
    return engine.lint_source(SourceFile(name, text), Config())


@pytest.mark.parametrize("path", ["lark", "fast"])
def test_a_parser_exception_is_an_internal_error_not_a_syntax_error(monkeypatch, path):
    names = parse_mod.LarkParser.parse_header.__globals__
    real_run, real_fast = names["parse_rule"], names["fast_parse"]

    def broken_run(start, ctx):
        if start == "op" and "all_reduce" in ctx.text:
            raise KeyError("boom")
        return real_run(start, ctx)

    def broken_fast(ctx):
        if "all_reduce" in ctx.text:
            if path == "fast":
                raise KeyError("boom")
            return None  # (the fast path would take this op: leave it to Lark)
        return real_fast(ctx)

    monkeypatch.setitem(names, "parse_rule", broken_run)
    monkeypatch.setitem(names, "fast_parse", broken_fast)
    # Headers parsed by earlier tests in this process are shared across files
    # (checker/frontend/stablehlo/parse/cache.py): this op must really be parsed here.
    cache.clear_shared()
    result = lint(TEXT)
    codes = [d.code for d in result.diagnostics]
    assert "SHLO001" not in codes
    internal = [d for d in result.diagnostics if d.code == "SHLO003"]
    assert len(internal) == 1
    message = internal[0].message
    assert "stablehlo.all_reduce" in message and "KeyError" in message and "please report" in message
    assert "boom" not in message
    assert result.failed


def test_internal_text_error_is_still_a_syntax_problem_for_callers(monkeypatch):
    def broken(start, ctx):
        raise ZeroDivisionError

    monkeypatch.setitem(parse_mod.parse_type.__globals__, "parse_rule", broken)
    try:
        parse_mod.parse_type("tensor<4xf32>")
    except parse_mod.SyntaxProblem as problem:
        assert isinstance(problem, parse_mod.InternalParseError)
        assert "please report" in problem.message
    else:  # pragma: no cover
        raise AssertionError("expected a SyntaxProblem")


def test_no_syntax_error_message_names_a_python_exception():
    texts = [p.read_text() for p in sorted(CORPUS.rglob("*.mlir")) if "big" not in p.parts][:400]
    texts.append('%0 = "stablehlo.add"(%a) : (tensor<f32, #x<<1>>, f32) -> f32\n')
    for i, text in enumerate(texts):
        for d in lint(text, f"f{i}.mlir").diagnostics:
            if d.code == "SHLO001":
                assert not _EXCEPTION_NAME.search(d.message), d.message
