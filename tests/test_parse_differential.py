"""Caches cannot change a result: every op of a large, varied generated corpus
(tests/genprog.py, plus the committed JAX exports) reads the same — header,
every nested span, location, block arguments — whether parsed with the caches
in any file order (sorted, reversed, shuffled, one parser for all files) or
afresh with no cache at all.

SHLO_DIFF_PROGRAMS=N sets how many generated programs (default 2000; a bigger
campaign: `SHLO_DIFF_PROGRAMS=20000 python -m pytest tests/test_parse_differential.py`).
"""
from __future__ import annotations

import os
import random

import pytest

from shlo_lint.checker.ir.core import LocAlias
from shlo_lint.checker.frontend.stablehlo.parse import LarkParser
from shlo_lint.checker.frontend.stablehlo.scan import scan
from shlo_lint.checker.source.text import SourceFile

import genprog
from conftest import CORPUS

pytestmark = pytest.mark.slow  # a large generated corpus parsed several ways (`-m "not slow"` skips it)

N = int(os.environ.get("SHLO_DIFF_PROGRAMS", "2000"))


def snapshot(name: str, text: str, parser) -> list:
    module = scan(SourceFile(name, text), parser)
    out = [("errors", list(module.syntax_errors), list(module.internal_errors))]
    for op in module.walk():
        h = op.header
        loc = h.loc
        resolved = module.loc_aliases.get(loc.name) if isinstance(loc, LocAlias) and loc.name in module.alias_texts else None
        labels = [(b.label, b.label_span, [(a.name, a.type) for a in b.arguments] if b.label_span is not None else None)
                  for r in op.regions for b in r.blocks]
        out.append((op.name, op.span, tuple(op.region_spans), op.result_names, h.name, h.name_span, h.generic,
                    h.operands, h.operand_types, h.result_types, h.attributes, h.properties, h.region_args,
                    h.successors, loc, resolved, labels))
    return out


def corpus() -> list[tuple[str, str]]:
    files = [(f"gen{i:05d}.mlir", genprog.program(i)) for i in range(N)]
    files += [(p.name, p.read_text()) for p in sorted((CORPUS / "real").glob("*.mlir"))]
    return files


@pytest.fixture(scope="module")
def programs():
    files = corpus()
    reference = {name: snapshot(name, text, LarkParser(cache=False)) for name, text in files}
    return files, reference


@pytest.mark.parametrize("order", ["sorted", "reversed", "shuffled"])
def test_cached_parse_equals_uncached_in_any_order(programs, order):
    files, reference = programs
    files = sorted(files)
    if order == "reversed":
        files.reverse()
    elif order == "shuffled":
        random.Random(20261124).shuffle(files)
    parser = LarkParser()  # one parser (and the process-wide caches) for the whole run
    for name, text in files:
        got = snapshot(name, text, parser)
        want = reference[name]
        assert got[0] == want[0], name
        assert len(got) == len(want), name
        for g, w in zip(got, want):
            assert g == w, (name, g[0])


def test_the_generated_corpus_parses_clean(programs):
    files, reference = programs
    assert len(files) >= N
    dirty = [name for name, snap in reference.items() if snap[0][1] or snap[0][2]]
    assert not dirty, dirty[:5]


def test_generated_corpus_covers_the_syntax_forms():
    text = "\n".join(genprog.program(i) for i in range(200))
    for needle in ('"stablehlo.gather"', '"stablehlo.scatter"', "tensor<?x", '"stablehlo.sort"', "stablehlo.while(",
                   '"stablehlo.while"', '"stablehlo.case"', '"stablehlo.all_reduce"', '"stablehlo.all_gather"',
                   '"stablehlo.all_to_all"', '"stablehlo.collective_permute"', '"stablehlo.reduce_scatter"',
                   '"stablehlo.collective_broadcast"', '"stablehlo.send"', '"stablehlo.recv"', "loc(#loc",
                   'loc("', "check.expect_eq", "dense<(1.0", 'dense<"0x', "stablehlo.dot_general %",
                   "applies stablehlo.add", "\n      : ("):
        assert needle in text, needle
