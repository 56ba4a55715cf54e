"""Reusing the module op's rules (the deadlock analysis SHLO500-503 and the
uniformity check SHLO504, which share one analysis) across versions
(checker/incremental.py): where the previous run's findings are certainly what
running them again would give, and what that run read, moved into this version.
The conditions are listed in checker/incremental.py's docstring."""
from __future__ import annotations

import re

from ...source.diagnostics import Diagnostic
from .block_reuse import lines_moved
from .edit import DIAG_SHAPE, Unmovable, move_diagnostic, same_field, same_presence, shift_header
from ...ir.core import Operation

_SSA_NAME = re.compile(r"%[\w$.\-]+")
_CALL_OPS = frozenset({"func.call", "call", "func.call_indirect"})
"""Leaf ops whose text the analyses read directly (the callee: spmd_structure.call_target)."""
_WHOLE_TEXT_MARKERS = ("sdy.mesh", "@SPMDFullToShardShape")
"""What checker/uniform.partitioned looks for anywhere in the file's text."""


def moved_reads(memo) -> dict[tuple[int, int], frozenset[str]]:
    """The previous run's reads, keyed by this version's op spans: an op outside the
    edit moved through it (root_reusable found every op outside the edit matched:
    each op touched contains the edit) and, for the ops around the edit, as
    root_reusable matched them (an op that ended where the edit starts may have grown)."""
    prev, edit = memo.prev, memo.edit
    assert prev is not None and edit is not None
    start, old_end, delta = edit.start, edit.old_end, edit.delta
    out = {}
    for key, fields in prev.root_reads.items():
        if not fields:
            continue
        if key[1] <= start:
            out[key] = fields
        elif key[0] >= old_end:
            out[(key[0] + delta, key[1] + delta)] = fields
    reads = prev.root_reads
    for op in memo.touched:
        fields = reads.get((op.span.start, op.span.end - edit.delta))
        if fields:
            out[op.span] = fields
    return out


def root_reusable(memo, root: Operation) -> dict[str, list[Diagnostic]] | None:
    """The previous version's findings of the module op's rules, moved into this
    text, when they are certainly what running them again would give."""
    prev, edit, parser = memo.prev, memo.edit, memo._parser  # noqa: SLF001 - the memo's own parser
    if prev is None or edit is None or parser is None or prev.root_results is None \
            or prev.inputs != memo.inputs or len(prev.ops) != len(memo.version.ops) or not DIAG_SHAPE:
        return None
    old, new = prev.text, memo.source.text
    if any(prev.root_results.values()) and lines_moved(old, new, edit):
        return None  # line numbers after the edit (which messages name) moved: re-render
    if any(not same_presence(old, new, edit, m) for m in _WHOLE_TEXT_MARKERS):
        return None
    if not memo.same_labels():
        return None  # a block label edited, gone or new (block arguments are read)
    leaves = [op for op in memo.touched if not op.regions]
    if len(leaves) > 1:
        return None
    for op in memo.touched:
        start, end = op.span
        if not (start <= edit.start and edit.new_end <= end):
            return None  # the edit is not inside this op
        if op.regions:  # around the edit: it must be inside one region, the header untouched
            if not any(r.start < edit.start and edit.new_end < r.end for r in op.region_spans):
                return None

        elif op.name in _CALL_OPS:
            return None
        if op is root and root.parent is None and op.module.root is op and op not in parser.parsed:
            continue  # the implicit module op: no text of its own
        key = (start, end - edit.delta)
        if prev.ops.get(key) != (op.name, op.result_names, len(op.regions)):
            return None  # not the same op (or no op there before)
        fields = prev.root_reads.get(key)
        if not op.regions and _mentions(old, *key) != _mentions(new, start, end):
            return None
        if fields:
            entry = prev.headers.get(key)
            if entry is None:
                return None
            header, delta = entry[3], entry[4]
            op.header  # noqa: B018 - parsed now if it was not (a file past full_parse_limit)
            now = parser.clean.get(op)
            if now is None:
                return None
            before = shift_header(header, delta)
            if not all(same_field(f, before, now, edit) for f in fields):
                return None
    try:
        return {code: [move_diagnostic(d, edit) for d in found] for code, found in prev.root_results.items()}
    except Unmovable:
        return None


def _mentions(text: str, start: int, end: int) -> list[str]:
    """The `%names` an op's text mentions, in order (what semantics.BlockFlow reads of
    it: its mentions and, in order, its operands)."""
    return _SSA_NAME.findall(text, start, end)
