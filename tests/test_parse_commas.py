"""Commas in pretty forms and dense literals (checker/frontend/stablehlo/parse/commas.py): what MLIR's
parsers reject is a syntax error, what they accept is not. Every "rejects" case
below was checked with jaxlib's parser; test_agrees_with_jaxlib_on_mutations
checks the direction that matters most (no error where jaxlib parses) on
mutated JAX exports whenever jax is installed."""
from __future__ import annotations

import importlib.util
import random
import re

import pytest

from shlo_lint import Config, lint_text
from shlo_lint.checker.frontend.stablehlo.parse.commas import comma_problems

from conftest import CORPUS

PROLOGUE = ("func.func private @f(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32>\n"
            "func.func public @main(%arg0: tensor<4xf32>) -> tensor<4xf32> {\n"
            "  %1 = stablehlo.abs %arg0 : tensor<4xf32>\n")


OURS = ("unexpected ','", "expected ',' between", "dense<...>:")
"""How this check's messages start (the grammar's own errors say "expected one of")."""


def program(line: str) -> str:
    return PROLOGUE + f"  {line}\n  return %1 : tensor<4xf32>\n}}\n"


def syntax(line: str) -> list[tuple[int, str, str]]:
    """(line, the text the finding points at, message) of each syntax error."""
    text = program(line)
    return [(text.count("\n", 0, d.span.start) + 1, text[d.span.start:d.span.end], d.message)
            for d in lint_text(text, "t.mlir", Config()) if d.code == "SHLO001"]


REJECTED = [  # (op line, message fragment, the text the finding points at)
    ("%2 = stablehlo.add %1, , %1 : tensor<4xf32>", "between the two commas", ","),
    ("%2 = stablehlo.add %1,, %1 : tensor<4xf32>", "between the two commas", ","),
    ("%2 = stablehlo.add, %1, %1 : tensor<4xf32>", "right after the op name", ","),
    ("%2 = stablehlo.add %1 %1 : tensor<4xf32>", "expected ',' between %1 and %1", "%1"),
    ("%2 = stablehlo.add %1, %1, : tensor<4xf32>", "before ':'", ","),
    ("%2 = stablehlo.add %1, %1 : tensor<4xf32>,", "at the end of the op", ","),
    ("%2 = stablehlo.custom_call @foo(%1, , %1) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>",
     "between the two commas", ","),
    ("%2 = stablehlo.custom_call @foo(, %1) : (tensor<4xf32>) -> tensor<4xf32>", "right after '('", ","),
    ("%2 = stablehlo.custom_call @foo(%1,) : (tensor<4xf32>) -> tensor<4xf32>", "before ')'", ","),
    ("%2 = func.call @f(%1 %1) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>", "between %1 and %1", "%1"),
    ("%2 = stablehlo.add %1, %1 : (tensor<4xf32>, , tensor<4xf32>) -> tensor<4xf32>",
     "between the two commas", ","),
    ("%2 = stablehlo.compare EQ, %1, %1,, FLOAT : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>",
     "between the two commas", ","),
    ("%2 = stablehlo.add %1, %1 : (tensor<4xf32> tensor<4xf32>) -> tensor<4xf32>", "between two types", "tensor"),
    ("%2:2 = stablehlo.custom_call @foo(%1) : (tensor<4xf32>) -> (tensor<4xf32> !stablehlo.token)",
     "between two types", "!stablehlo.token"),
    ("%2 = stablehlo.constant dense<[1.0 2.0, 3.0, 4.0]> : tensor<4xf32>", "dense<...>: expected ','", "2"),
    ("%2 = stablehlo.constant dense<[1.0, , 3.0, 4.0]> : tensor<4xf32>", "got ','", ","),
    ("%2 = stablehlo.constant dense<[[1.0, 2.0] [3.0, 4.0]]> : tensor<2x2xf32>", "between elements", "["),
    ('%2 = "stablehlo.constant"() {value = dense<[1.0 2.0]> : tensor<2xf32>} : () -> tensor<2xf32>',
     "between elements", "2"),
    ('%2 = "stablehlo.collective_permute"(%1) <{channel_handle = #stablehlo.channel_handle<handle = 1 type = 1>, '
     'source_target_pairs = dense<[[0, 0]]> : tensor<1x2xi64>}> : (tensor<4xf32>) -> tensor<4xf32>',
     "between the attribute's parameters", "1"),
    ('%2 = "stablehlo.collective_permute"(%1) <{channel_handle = #stablehlo.channel_handle<handle = 1,, type = 1>, '
     'source_target_pairs = dense<[[0, 0]]> : tensor<1x2xi64>}> : (tensor<4xf32>) -> tensor<4xf32>',
     "in the attribute", ","),
]


@pytest.mark.parametrize("line,fragment,at", REJECTED)
def test_what_mlir_rejects_is_a_syntax_error(line, fragment, at):
    found = syntax(line)
    assert len(found) == 1, found
    ln, where, msg = found[0]
    assert ln == 4 and fragment in msg and where == at, found[0]


ACCEPTED = [
    "%2 = stablehlo.add %1, %1 : tensor<4xf32>",
    '%2 = stablehlo.add %1, %1 : tensor<4xf32> loc("a, , b %1 %2")',
    '%2 = stablehlo.custom_call @foo(%1) {backend_config = "%a %b, ,", api_version = 2 : i32} : (tensor<4xf32>) -> tensor<4xf32>',
    "%2 = stablehlo.compare  EQ, %1, %1,  FLOAT : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>",
    "%2 = stablehlo.constant dense<[1.0, -2.0e+00, 0x7F800000, 4.5E-3]> : tensor<4xf32>",
    "%2 = stablehlo.constant dense<[[(1.0, -2.0), (0.0, 1.0)]]> : tensor<1x2xcomplex<f32>>",
    "%2 = stablehlo.constant dense<[]> : tensor<0xf32>",
    '%2 = stablehlo.constant dense<"0x0000803F0000803F0000803F0000803F"> : tensor<4xf32>',
    # jaxlib's reduce parser takes these commas (checked): not an error here either
    "%c = stablehlo.constant dense<0.0> : tensor<f32>\n"
    "  %2 = stablehlo.reduce,(%1 init: %c) applies stablehlo.add across dimensions = [0] : "
    "(tensor<4xf32>, tensor<f32>) -> tensor<f32>",
    "%2 = stablehlo.dot_general %1, %1, contracting_dims = [0] x [0] : (tensor<4xf32>, tensor<4xf32>) -> tensor<f32>",
    "%2 = stablehlo.transpose %1, dims = [0] : (tensor<4xf32>) -> tensor<4xf32>",
    # a trailing comma in #stablehlo.gather<...> parses (StableHLO's own tests have one);
    # parameters come in any order, as jaxlib reads them
    '%c = stablehlo.constant dense<[[0]]> : tensor<1x1xi32>\n'
    '  %2 = "stablehlo.gather"(%arg0, %c) {dimension_numbers = #stablehlo.gather<offset_dims = [0], '
    'start_index_map = [0], index_vector_dim = 1,>, slice_sizes = array<i64: 2>} : '
    '(tensor<4xf32>, tensor<1x1xi32>) -> tensor<2x1xf32>',
    '%2 = "stablehlo.collective_permute"(%1) <{channel_handle = #stablehlo.channel_handle<type = 1, handle = 1>, '
    'source_target_pairs = dense<[[0, 0]]> : tensor<1x2xi64>}> : (tensor<4xf32>) -> tensor<4xf32>',
    # an unknown dialect's custom form may be anything
    "%2 = mydialect.op %1 %1,, : tensor<4xf32>",
]


@pytest.mark.parametrize("line", ACCEPTED)
def test_what_mlir_accepts_is_not(line):
    assert syntax(line) == []


def test_only_known_dialects_and_the_prefilter():
    assert comma_problems("%0 = other.op %a %b", "other.op") == []
    assert comma_problems("%0 = stablehlo.add %a, %b : tensor<f32>", "stablehlo.add") == []
    (_msg, start, end), = comma_problems("%0 = stablehlo.add %a %b : tensor<f32>", "stablehlo.add")
    assert "%0 = stablehlo.add %a %b : tensor<f32>"[start:end] == "%b"


def test_the_corpus_and_every_form_jax_prints_have_none():
    for path in sorted(CORPUS.glob("*/*.mlir")):
        if path.parent.name == "invalid" and path.name == "syntax_pretty_commas.mlir":
            continue
        msgs = [d.message for d in lint_text(path.read_text(encoding="utf-8"), str(path), Config())
                if d.code == "SHLO001"]
        assert not [m for m in msgs if m.startswith(OURS)], (path, msgs)


@pytest.mark.skipif(importlib.util.find_spec("jax") is None, reason="compares with jaxlib's parser")
def test_agrees_with_jaxlib_on_mutations():
    """Commas added to or removed from JAX exports: every comma error reported here
    is a program jaxlib's parser rejects (no false error), and at least half
    of the programs jaxlib rejects get one."""
    from jax._src.interpreters import mlir
    from jax._src.lib.mlir import ir

    ctx = mlir.make_ir_context()

    def parses(text: str) -> bool:
        try:
            ir.Module.parse(text, context=ctx)
            return True
        except Exception:  # noqa: BLE001 - jaxlib's MLIRError and friends
            return False

    rng = random.Random(1124)
    texts = [p.read_text() for p in sorted((CORPUS / "real").glob("*.mlir"))[:40]]
    found = rejected = 0
    for _ in range(300):
        t = rng.choice(texts)
        commas = [m.start() for m in re.finditer(",", t)]
        i = rng.choice(commas)
        t2 = t[:i] + rng.choice([", ,", "", ",,"]) + t[i + 1:]
        ours = any(d.code == "SHLO001" and d.message.startswith(OURS) for d in lint_text(t2, "m.mlir", Config()))
        ok = parses(t2)
        assert not (ours and ok), t2.splitlines()[t2.count("\n", 0, i)]
        found += ours
        rejected += not ok
    assert found >= 0.5 * rejected, (found, rejected)  # (164 of 290 when written: the rest is in dicts, types, dialect attributes)
