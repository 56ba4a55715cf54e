"""Reuse of the combiner hints SHLO631-633 (rules/combine.py) across versions.

These per-op rules are not local: each reads its whole block (candidates' keys
and sizes, and def-use between the block's ops). On the bench's 10k-line file
their grouping costs ~20 ms per edit, for findings an edit elsewhere cannot
change. What they read:

* of every op of the block: its name, result names and the `%names` its text
  mentions (semantics.BlockFlow, from the text: comments in the op included),
  and of an op's regions the op names (`_reduction`);
* of a candidate (an all_reduce, all_gather or reduce_scatter): its header
  (types, operands, attributes) and its replica groups' text, its region, its
  line (messages name it) and the lines of the ops the fix moves or deletes;
* the grid (fix safety), the options, the `#loc` definitions (locations).

So their findings are reused, every span moved through the edit, when the edit
lies inside one leaf op (no regions) that is not a candidate nor inside one,
keeps that op's name, results and mentions, or only adds or removes blank space
between ops (an Enter: incremental_edit.blank_edit), adds or removes no line
when there is a finding (messages name lines; none: nothing to re-render), and the
ops, block labels and the memo's inputs (config, grid, aliases) are the
previous version's. A finding with a span touching the edit (a fix deleting the
edited op's line) cannot be moved: its op's rule runs again (the grouping is
then recomputed; exact, only slower). The previous run's findings are kept only
if every run of these rules was recorded, met no error and raised nothing.
"""
from __future__ import annotations

import logging
import re

from ...source.diagnostics import Diagnostic
from .edit import DIAG_SHAPE, TextEdit, Unmovable, blank_edit, move_diagnostic

log = logging.getLogger(__name__)

BLOCK_RULES = frozenset({"SHLO631", "SHLO632", "SHLO633"})
"""The rules reused as a block (rules/combine.py)."""
_CANDIDATES = frozenset({"stablehlo.all_reduce", "stablehlo.all_gather", "stablehlo.reduce_scatter"})
_SSA_NAME = re.compile(r"%[\w$.\-]+")


def block_rules_reusable(memo) -> bool:
    """May the previous version's SHLO631-633 findings be moved into this one?"""
    prev, edit = memo.prev, memo.edit
    if prev is None or edit is None or prev.block_results is None or prev.inputs != memo.inputs \
            or len(prev.ops) != len(memo.version.ops):
        return False
    old, new = prev.text, memo.source.text
    if prev.block_results and lines_moved(old, new, edit):
        return False  # line numbers after the edit (which messages name) moved: re-render
    leaves = [op for op in memo.touched if not op.regions]
    if not leaves and blank_edit(old, new, edit.start, edit.old_end, edit.new_end):
        pass  # blank space between ops (an Enter): no op's text, no `%name` changed
    elif len(leaves) != 1:
        return False  # an edit between ops (a comment may mention a %name) or across ops
    for op in memo.touched:
        start, end = op.span
        # A candidate's own edit is never reused (an edit in its region is also caught
        # when it is a group's member: its fix's edits cover its lines, Unmovable).
        if op.name in _CANDIDATES or not (start <= edit.start and edit.new_end <= end):
            return False
        if op.regions and not any(r.start < edit.start and edit.new_end < r.end for r in op.region_spans):
            return False  # the edit must be inside one of its regions, its header untouched
        key = (start, end - edit.delta)
        if prev.ops.get(key) != (op.name, op.result_names, len(op.regions)):
            return False
    for leaf in leaves:
        start, end = leaf.span
        if _SSA_NAME.findall(old, start, end - edit.delta) != _SSA_NAME.findall(new, start, end):
            return False  # def-use between the block's ops may have changed
    return memo.same_labels()


def lines_moved(old: str, new: str, edit: TextEdit) -> bool:
    """Does the edit add or remove a line (the lines after it move)?"""
    return old.count("\n", edit.start, edit.old_end) != new.count("\n", edit.start, edit.new_end)


def move_all(found: tuple[Diagnostic, ...], edit: TextEdit, move) -> tuple[Diagnostic, ...] | None:
    """The findings moved into the new text, or None when one touches the edit."""
    try:
        return tuple([move(d, edit) for d in found])
    except Unmovable:
        return None


def decide(memo) -> bool:
    """Whether the previous version's SHLO631-633 findings are reused (decided once)."""
    if memo.block_reuse is None:
        try:
            memo.block_reuse = DIAG_SHAPE and block_rules_reusable(memo)
        except Exception:  # noqa: BLE001 - a bug of ours in deciding: run the rules, as a full lint would
            log.exception("shlo-lint: deciding whether to reuse the combiner hints failed")
            memo.block_reuse = False
    return memo.block_reuse


def block_call(self, spec, ctx, op, seen_errors, call) -> tuple[Diagnostic, ...]:
    """SHLO631-633 on one op (for the Memo `self`): the previous version's findings
    moved, or a run (recorded for the next version)."""
    stored = self.version.block_results
    span = op.span
    if decide(self):
        prev, edit = self.prev, self.edit
        assert prev is not None and prev.block_results is not None and edit is not None
        old = self.old_span.get(op)
        if old is not None:
            found = prev.block_results.get((spec.code, old[0], old[1]), ())
            moved = move_all(found, edit, move_diagnostic) if found else ()
            if moved is not None:
                self.block_reused += 1
                if moved and stored is not None:
                    stored[(spec.code, span.start, span.end)] = moved
                return moved
    self.block_ran += 1
    module = op.module
    before = len(module.syntax_errors), len(module.internal_errors)
    out = tuple(call(spec, ctx, op, seen_errors))
    if stored is not None:
        if seen_errors or (len(module.syntax_errors), len(module.internal_errors)) != before \
                or any(d.code == "SHLO003" for d in out):
            self.version.block_results = None  # a reuse would not meet that error again
        elif out:
            stored[(spec.code, span.start, span.end)] = out
    return out
