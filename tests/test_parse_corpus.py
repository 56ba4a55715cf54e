"""Every op of every real JAX export and parse fixture, through the real scanner:
each parses, the regex fast path and the full grammar agree exactly, and the
pretty and generic forms of one program give the same headers."""
from __future__ import annotations

from pathlib import Path

import pytest

from shlo_lint.checker.frontend.stablehlo.parse import LarkParser
from shlo_lint.checker.frontend.stablehlo.scan import scan
from shlo_lint.checker.source.text import SourceFile

from conftest import deep

from parse_helpers import ROOT, FIXTURES, PARSER, SLOW


# =========================================================================== corpus
def _mlir_files() -> list[Path]:
    files = sorted((ROOT / "corpus").glob("**/*.mlir"))
    files = [f for f in files if "big" not in f.parts]
    return files + sorted(FIXTURES.glob("*.mlir"))


def _scan(path: Path, parser: LarkParser):
    return scan(SourceFile(str(path), path.read_text(encoding="utf-8")), parser)


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
