"""The ~2/9/30 MB transformer training-step modules JAX exports (corpus/big/, generated,
git-ignored): they scan and lint cleanly, and the 2 MB one parses op by op."""
from __future__ import annotations

import pytest

import shlo_lint
from shlo_lint import Config, lint_text
from shlo_lint.checker.source.diagnostics import Severity

from conftest import BIG_NAMES as NAMES


@pytest.mark.parametrize("name", NAMES)
def test_big_module_lints_without_errors(big_dir, name):
    text = (big_dir / name).read_text()
    diags = lint_text(text, name, Config())
    assert not [d for d in diags if d.severity == Severity.ERROR], [d.message for d in diags][:5]
    module = shlo_lint.parse(text, name)
    assert not module.syntax_errors
    n_ops = sum(1 for _ in module.walk())
    assert n_ops > len(text) // 400  # roughly one op per 100-200 characters
    collectives = [op for op in module.walk() if op.name in ("stablehlo.all_gather", "stablehlo.reduce_scatter",
                                                                "stablehlo.all_reduce")]
    assert collectives
    last = collectives[-1]
    line, col = module.source.line_col(last.span.start)
    assert module.source.line_text(line)[col - 1:].lstrip('%0123456789:#_ =').startswith('"stablehlo.')
    assert last.attr("replica_groups") is not None


def test_every_op_header_of_the_2mb_module_parses(big_dir):
    text = (big_dir / "transformer_2mb.mlir").read_text()
    diags = lint_text(text, "t.mlir", Config(full_parse_limit=10**9))
    assert not [d for d in diags if d.category == "syntax"]
