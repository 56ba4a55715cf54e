"""The language server's re-scan (checker/editor/incremental/skeleton.py): copying the
previous version's skeleton through an edit gives exactly what a full scan of
the new text gives (ops, spans, results, regions, blocks, labels, aliases,
errors), after random edits inside one line and blank space added or removed;
and where it cannot be sure, it
declines (None) rather than guess."""
from __future__ import annotations

import random
import sys

import pytest

from shlo_lint.checker.editor.incremental import edit as incremental_edit, skeleton as incremental_scan
from shlo_lint.checker.frontend.read import header_parser as parser
from shlo_lint.checker.editor.incremental.edit import TextEdit
from shlo_lint.checker.frontend.stablehlo.scan import scan
from shlo_lint.checker.source.text import SourceFile

from conftest import CORPUS, ROOT

sys.path.insert(0, str(ROOT / "bench"))
import lsp_latency  # noqa: E402

PROGRAMS = ["real/sendrecv_pair.buggy_type_mismatch.mlir", "real/collective_matmul_scan.mlir",
            "real/fori_pipeline.generic.mlir", "invalid/combine_all_reduces.mlir", "real/psum.export.mlir",
            "deadlock/permute_both_branches.mlir", "real/cond_axis_index_psum.debug.buggy_deadlock.mlir"]
PIECES = ["x", "8", "4", "%", "%zz", " ", "\"", "{", "}", "(", ")", "<", ">", ",", "=", ":", "//", "^bb1:",
          "stablehlo.", "module", "builtin.module", "#a = 1", "loc(#loc3)", "\u00a0", "\x0b", ":99999999999"]


def shape(module) -> tuple:
    """Everything the scan builds, comparable."""
    ops = []
    for op in module.walk():
        blocks = [[(b.label, b.label_span, len(b.operations), b.parent is r) for b in r.blocks]
                  for r in op.regions]
        ops.append((op.name, op.span, op.result_names, op.header_end, list(op.region_spans),
                    [r.span for r in op.regions], blocks, op.parent is not None and op in op.parent.operations))
    root = module.root
    implicit = root is not None and root.header.name_span.end == 0
    return (ops, implicit, dict(module.alias_texts), dict(module.loc_alias_spans), list(module.syntax_errors),
            module.structurally_broken, list(module.loc_aliases))


def line_edit(rng: random.Random, text: str) -> str:
    """An edit inside one line (what the re-scan may take), or blank space added or
    removed anywhere (an Enter, a deleted blank line, indentation: the re-scan takes
    those between ops)."""
    at = rng.randrange(len(text) + 1)
    kind = rng.randrange(7)
    if kind == 4:
        return text[:at] + rng.choice(["\n", "\n    ", "  ", "\t", "\n\n", " \n", "\r\n", "\r\n    ", "\r"]) + text[at:]
    if kind == 5:  # a line start: indentation or a blank line
        at = text.rfind("\n", 0, at) + 1
        return text[:at] + rng.choice(["\n", "  ", "    \n"]) + text[at:]
    if kind == 6:  # blank space removed
        end = at
        while end < len(text) and text[end] in " \t\r\n" and end - at < rng.randint(1, 6):
            end += 1
        return text[:at] + text[end:]
    if kind == 0:
        return text[:at] + rng.choice(PIECES) + text[at:]
    if kind == 1:
        end = min(text.find("\n", at) if text.find("\n", at) >= 0 else len(text), at + rng.randint(1, 6))
        return text[:at] + text[end:]
    if kind == 2 and at < len(text) and text[at] != "\n":
        return text[:at] + rng.choice("x84%{}()<>\" ") + text[at + 1:]
    digits = [i for i, c in enumerate(text) if c.isdigit()]
    i = rng.choice(digits) if digits else at
    return text[:i] + rng.choice("0123456789") + text[i + 1:]


def check_sequence(text: str, seed: int, steps: int) -> int:
    rng = random.Random(seed)
    copied = 0
    for step in range(steps):
        new = line_edit(rng, text)
        if new == text:
            continue
        old_module = scan(SourceFile("p.mlir", text), parser())
        edit = TextEdit(text, new)
        got = incremental_scan.rescan(old_module, text, SourceFile("p.mlir", new), parser(), edit.start,
                                      edit.old_end, edit.new_end)
        want = scan(SourceFile("p.mlir", new), parser())
        if got is not None:
            copied += 1 + 1000 * incremental_edit.blank_edit(text, new, edit.start, edit.old_end, edit.new_end)
            assert shape(got) == shape(want), (
                f"seed {seed} step {step}: the re-scan differs from a full scan\n--- edit ---\n"
                f"{text[edit.start - 40:edit.old_end + 40]!r}\n->\n{new[edit.start - 40:edit.new_end + 40]!r}")
        text = new if rng.random() < 0.7 else text
    return copied


@pytest.mark.parametrize("name", PROGRAMS + ["bench", "bench-crlf"])
def test_rescan_equals_a_full_scan(name):
    text = lsp_latency.program(200) if name.startswith("bench") else (CORPUS / name).read_text(encoding="utf-8")
    if name.endswith("crlf"):
        text = text.replace("\n", "\r\n")  # (an Enter there is "\r\n")
    copied = sum(check_sequence(text, seed, 60) for seed in range(3))
    assert copied % 1000 > 0, "the re-scan never applied to a line edit: the test would not see a wrong one"
    assert copied // 1000 > 0, "the re-scan never applied to blank space: the test would not see a wrong one"


def test_a_wrong_rescan_is_caught(monkeypatch):
    """The check can fail: not moving offsets after the edit is seen."""
    monkeypatch.setattr(incremental_scan.Clone, "span", lambda self, s: s)
    with pytest.raises(AssertionError, match="differs from a full scan"):
        test_rescan_equals_a_full_scan("bench")


def test_a_wrong_blank_space_copy_is_caught(monkeypatch):
    """...and so is not moving the end of the ops around blank space typed (an Enter)."""
    real = incremental_scan.Clone.span

    def wrong(self, s):
        moved = real(self, s)
        return s if self.blank and moved.start == s.start else moved

    monkeypatch.setattr(incremental_scan.Clone, "span", wrong)
    with pytest.raises(AssertionError, match="differs from a full scan"):
        test_rescan_equals_a_full_scan("bench")


CONTINUED = """func.func @main(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.add %a, %b
      : tensor<4xf32>
  %1 = stablehlo.multiply %0, %b : tensor<4xf32>
  return %1 : tensor<4xf32>
}
"""


@pytest.mark.parametrize("old, new", [
    ("%0 = stablehlo.add %a, %b\n", "%0 = stablehlo.add %a, %a\n"),   # its op goes on on the next line
    ("%1 = stablehlo.multiply", "%1 = \"stablehlo.multiply\"{"),        # a region brace now
    ("%1 = stablehlo.multiply", "%1 = builtin.module"),               # decides the file's root
    ("%1 = stablehlo.multiply %0, %b : tensor<4xf32>", "%1 = stablehlo.multiply %0, %b : tensor<4xf32>,"),
])
def test_the_rescan_declines(old, new):
    """Edits after which a line's op is not the scan's whole-line op (continued by
    the next line, opening a region, ending inside brackets) or that may change
    the file's root: a full scan."""
    text = CONTINUED
    changed = text.replace(old, new, 1)
    edit = TextEdit(text, changed)
    got = incremental_scan.rescan(scan(SourceFile("p.mlir", text), parser()), text, SourceFile("p.mlir", changed),
                                  parser(), edit.start, edit.old_end, edit.new_end)
    assert got is None


def test_the_rescan_applies_to_a_type_edit():
    text = CONTINUED
    changed = text.replace("%0, %b : tensor<4xf32>", "%0, %b : tensor<8xf32>", 1)
    edit = TextEdit(text, changed)
    got = incremental_scan.rescan(scan(SourceFile("p.mlir", text), parser()), text, SourceFile("p.mlir", changed),
                                  parser(), edit.start, edit.old_end, edit.new_end)
    assert got is not None and shape(got) == shape(scan(SourceFile("p.mlir", changed), parser()))


def test_an_edit_of_the_first_line():
    """The file's first line (offset 0: the implicit module op starts there too)."""
    text = "%x = stablehlo.constant dense<1> : tensor<i32>\n%y = stablehlo.add %x, %x : tensor<i32>\n"
    changed = text.replace("dense<1>", "dense<12>")
    edit = TextEdit(text, changed)
    got = incremental_scan.rescan(scan(SourceFile("p.mlir", text), parser()), text, SourceFile("p.mlir", changed),
                                  parser(), edit.start, edit.old_end, edit.new_end)
    assert got is not None and shape(got) == shape(scan(SourceFile("p.mlir", changed), parser()))
