"""Findings on XLA's HLO text speak HLO: an op is named by the opcode its line shows
(`all-reduce`, `conditional`, `all-gather-start`), in the message, the notes, the
help, the per-process traces and the lanes picture, and SHLO190 names the HloModule
line's fields. The same programs in StableHLO keep StableHLO's names."""
from __future__ import annotations

import json
import re

import pytest

from shlo_lint import lint_text
from shlo_lint.checker.analysis.tracer.structure import op_label
from shlo_lint.checker.frontend.read import read_module
from shlo_lint.checker.source.text import SourceFile

from conftest import CORPUS, FIXTURES

HLO = CORPUS / "hlo"
STABLEHLO_SPELLINGS = re.compile(r"\b(all_reduce|all_gather|reduce_scatter|all_to_all|collective_permute|"
                                 r"collective_broadcast|async_start|async_done|optimization_barrier)|\bthe (case|if)\b")
"""StableHLO's names where HLO's differ (`while`, `send` are both's)."""


def _texts(diags, path) -> list[str]:
    """Everything a reader sees of the findings: each part, and the text and JSON reports."""
    from shlo_lint.checker.report import render

    out = []
    for d in diags:
        out += [d.message, d.help or ""] + [n.message for n in d.notes]
        out += [s.message for t in d.trace for s in t.steps]
    sources = {str(path): SourceFile(str(path), path.read_text())}
    return out + [render("text", diags, sources), render("json", diags, sources)]


def _ops_named(texts: list[str]) -> set[str]:
    return {m.group(0) for t in texts for m in STABLEHLO_SPELLINGS.finditer(t)}


@pytest.mark.parametrize("name", ["cond_axis_index_psum.buggy_deadlock.hlo",
                                  "schedule/crossed_independent_by_use_swapped.buggy_deadlock.hlo",
                                  "mesh_cond_ppermute.buggy_deadlock.hlo",
                                  "fori_trip_axis_index.buggy_deadlock.hlo",
                                  "schedule/jax_cond_async_starts_crossed.buggy_deadlock.hlo"])
def test_deadlock_findings_on_hlo_name_the_written_opcodes(name):
    path = HLO / name
    diags = lint_text(path.read_text(), str(path))
    assert diags
    texts = _texts(diags, path)
    assert _ops_named(texts) == set(), [t for t in texts if STABLEHLO_SPELLINGS.search(t)][:3]
    joined = "\n".join(texts)
    assert re.search(r"\b(all-reduce|all-gather|collective-permute|all-gather-start|all-reduce-start)\b", joined)


def test_a_branch_and_a_loop_are_named_as_the_text_writes_them():
    path = HLO / "schedule" / "crossed_independent_by_use_swapped.buggy_deadlock.hlo"
    (d,) = [d for d in lint_text(path.read_text(), str(path)) if d.code == "SHLO500"]
    notes = [n.message for n in d.notes]
    assert "blocked in branch 0 of the conditional at line 57" in notes
    assert "process (0, 0) issues this all-gather first, then the all-reduce at line 20" in notes
    # a scheduled module's order is XLA's, made: no note that its scheduler may still choose one
    assert not any("scheduler chooses their order" in n for n in notes)
    path = HLO / "fori_trip_axis_index.buggy_deadlock.hlo"
    texts = _texts(lint_text(path.read_text(), str(path)), path)
    assert any(" of the while at line " in t for t in texts), texts


def test_the_label_is_the_written_opcode_and_the_catalog_still_knows_the_kind():
    from shlo_lint.checker.ir import catalog

    path = FIXTURES / "hlo" / "gpu_async.hlo"
    module = read_module(SourceFile(str(path), path.read_text()))
    seen = {}
    for op in module.walk():
        ins = getattr(op, "instruction", None)
        if ins is not None and catalog.info(op.name).kind is not None:
            seen[op_label(op)] = catalog.base_kind(op.name)
    assert seen["all-reduce-start"] == seen["all-reduce-done"] == "all_reduce"
    assert seen["collective-permute-start"] == "collective_permute" and seen["all-gather-done"] == "all_gather"
    for op in module.walk():  # a function or a terminator has no instruction: its IR name
        if op.name == "func.func":
            assert op_label(op) == "func"
            break


def test_stablehlo_keeps_its_names():
    path = CORPUS / "real" / "cond_axis_index_psum.buggy_deadlock.mlir"
    (d,) = [d for d in lint_text(path.read_text(), str(path)) if d.code == "SHLO501"]
    assert "all_reduce" in d.message and any("of the case at line" in n.message for n in d.notes)


def test_the_unknown_grid_note_names_the_hlo_module_line():
    path = FIXTURES / "hlo" / "lowered.hlo"
    (d,) = [d for d in lint_text(path.read_text(), str(path)) if d.code == "SHLO190"]
    assert "the HloModule line has no num_partitions / replica_count" in d.message
    assert "mhlo." not in d.message and "compile().as_text()" in d.help
    mlir = lint_text("module {\n  func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {\n"
                     '    %0 = "stablehlo.collective_permute"(%x) {source_target_pairs = dense<[[0, 1]]> : '
                     "tensor<1x2xi64>, channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>} : "
                     "(tensor<4xf32>) -> tensor<4xf32>\n    return %0 : tensor<4xf32>\n  }\n}\n", "m.mlir")
    (d,) = [d for d in mlir if d.code == "SHLO190"]
    assert "no mhlo.num_partitions / mhlo.num_replicas" in d.message
