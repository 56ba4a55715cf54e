"""Spans (file line:col) and Python locations (from loc() and #loc aliases) of ops in
real JAX exports."""
from __future__ import annotations

import re

import pytest

import shlo_lint

from conftest import CORPUS

GENERATE = (CORPUS / "generate.py").read_text().splitlines()


def load(name: str):
    text = (CORPUS / "real" / name).read_text()
    return shlo_lint.parse(text, name), text


def first(module, name):
    return next(op for op in module.walk() if op.name == name)


@pytest.mark.parametrize("name, op_name, call", [
    ("psum.debug.mlir", "stablehlo.all_reduce", "lax.psum("),
    ("ppermute_ring.debug.mlir", "stablehlo.collective_permute", "ppermute("),
    ("fori_pipeline.debug.mlir", "stablehlo.collective_permute", "ppermute("),
    ("cond_axis_index_psum.debug.buggy_deadlock.mlir", "stablehlo.all_reduce", "psum("),
    ("sendrecv_pair.debug.mlir", "stablehlo.send", "psend("),
    ("async_psum_overlap.debug.mlir", "stablehlo.async_start", "_start("),
])
def test_python_line_of_a_collective_comes_from_loc_aliases(name, op_name, call):
    module, text = load(name)
    op = first(module, op_name)
    frames = op.python_frames
    assert frames, f"{op_name} in {name} has no file location"
    frame = frames[0]
    assert frame.file == "corpus/generate.py"
    # the innermost frame is the line of generate.py that made the op
    assert call in GENERATE[frame.line - 1], (frame, GENERATE[frame.line - 1])
    assert 1 <= frame.col <= len(GENERATE[frame.line - 1])


def test_loc_alias_map_resolves_names_and_callsites():
    module, _ = load("psum.debug.mlir")
    aliases = module.loc_aliases
    assert "#loc" in list(aliases) or len(aliases) > 5
    from shlo_lint.checker.ir.core import FileLineColLoc, python_frames

    resolved = [python_frames(aliases[k], aliases) for k in aliases]
    assert any(f and isinstance(f[0], FileLineColLoc) for f in resolved)


def test_debug_and_plain_exports_have_the_same_ops():
    plain, _ = load("psum.mlir")
    debug, _ = load("psum.debug.mlir")
    assert [op.name for op in plain.walk()] == [op.name for op in debug.walk()]
    assert all(not op.python_frames for op in plain.walk())


@pytest.mark.parametrize("name", ["psum.mlir", "psum.generic.mlir", "ppermute_ring.mlir", "tp_mlp_grad.mlir"])
def test_op_spans_point_at_the_op_text(name):
    module, text = load(name)
    src = module.source
    for op in module.walk():
        if op is module.root and op.span == (0, len(text)):
            continue  # implicit module
        line, col = src.line_col(op.span.start)
        line_text = src.line_text(line)
        short = op.name.rsplit(".", 1)[-1]
        assert short in line_text or op.name in line_text, (op.name, line, line_text)
        ns = op.name_span
        assert text[ns.start:ns.end].strip('"') in (op.name, short, op.name.replace("func.", ""),
                                                     op.name.replace("builtin.", "")), (op.name, text[ns.start:ns.end])


def test_attribute_spans_in_a_real_export():
    module, text = load("ppermute_ring.mlir")
    op = first(module, "stablehlo.collective_permute")
    pairs = op.attr("source_target_pairs")
    assert text[pairs.span.start:pairs.span.end].startswith("dense<[[0, 1]")
    line, col = module.source.line_col(pairs.span.start)
    assert module.source.line_text(line)[col - 1:].startswith("dense<")
    ch = op.attr("channel_handle")
    assert ch.int_param("handle") == 1 and ch.int_param("type") == 1


def test_module_grid_attributes():
    module, _ = load("mesh2x4_psum_y_gather_x.mlir")
    assert (module.num_replicas, module.num_partitions) == (1, 8)
    generic, _ = load("psum.generic.mlir")
    assert (generic.num_replicas, generic.num_partitions) == (1, 8)


def test_value_types_and_def_use_across_regions():
    module, _ = load("fori_pipeline.mlir")
    (whl,) = [op for op in module.walk() if op.name == "stablehlo.while"]
    assert len(whl.results) == len(whl.result_types) >= 2
    body = whl.regions[1].blocks[0]
    args = body.arguments
    assert [str(a.type) for a in args] == [str(t) for t in whl.result_types]
    call = next(op for op in body.operations if op.name == "func.call")
    operands = call.operands
    assert operands and all(v is not None for v in operands)
    assert any(v.owner is body for v in operands)  # while-body block arguments resolve
    from shlo_lint.checker.analysis.semantics import reachable_funcs

    assert reachable_funcs(module, "main")[0] == "main" and len(reachable_funcs(module, "main")) >= 2


def test_line_col_read_forward_is_the_line_index_read():
    # `line_col` counts the newlines it passes while it is asked for ever later
    # offsets, and indexes the lines when it is asked for an earlier one: both
    # must name the same line and column, at line ends, blank lines and the end.
    from shlo_lint.checker.source.text import SourceFile

    text = "a\n\nbc\r\n  d\n\n\nlast line"
    indexed = SourceFile("t", text)
    indexed.line_starts  # noqa: B018 - the index, built first
    expected = [indexed.line_col(k) for k in range(-2, len(text) + 3)]
    forward = SourceFile("t", text)
    assert [forward.line_col(k) for k in range(-2, len(text) + 3)] == expected
    jumping = SourceFile("t", text)
    order = [9, 3, 14, 0, len(text), 5, 5, 12]
    assert [jumping.line_col(k) for k in order] == [indexed.line_col(k) for k in order]
