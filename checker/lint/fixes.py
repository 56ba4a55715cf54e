"""Applying fixes to one file's text, and showing what changed.

Fixes are text edits on spans (never re-printed IR). One pass applies every
fix whose edits are disjoint from the fixes already taken, earliest in the file
first; a fix that overlaps is left for the next lint-and-fix round (the caller
loops until nothing applies). Identical fixes from two diagnostics are applied
once and both count as fixed.
"""
from __future__ import annotations

import difflib
import re

from ..source.diagnostics import Diagnostic, Edit, Fix


def _conflict(a: Edit, b: Edit) -> bool:
    """Two edits conflict when their order in the output would be ambiguous or
    their ranges overlap: same start (two inserts at one point, or an insert at a
    replacement's start), or the later one starting before the earlier one ends."""
    if a.span.start == b.span.start:
        return True
    first, second = (a, b) if a.span.start < b.span.start else (b, a)
    return second.span.start < first.span.end


def _valid(fix: Fix, length: int) -> bool:
    edits = sorted(fix.edits, key=lambda e: (e.span.start, e.span.end))
    if not edits:
        return False
    if any(e.span.start < 0 or e.span.end < e.span.start or e.span.end > length for e in edits):
        return False
    return not any(_conflict(x, y) for x, y in zip(edits, edits[1:]))


def applies(fix: Fix | None, *, unsafe: bool = False) -> bool:
    """Whether a fix may be applied at all: safe ones always, unsafe ones when
    asked, display-only ones never."""
    if fix is None:
        return False
    return fix.applicability == "safe" or (unsafe and fix.applicability == "unsafe")


def apply_fixes(text: str, diagnostics: list[Diagnostic], *, unsafe: bool = False
                ) -> tuple[str, list[Diagnostic]]:
    """Apply the fixes of `diagnostics` (all about this one text) that may be
    applied and do not overlap; return the new text and the diagnostics fixed,
    in file order."""
    candidates = [d for d in diagnostics if applies(d.fix, unsafe=unsafe) and _valid(d.fix, len(text))]
    candidates.sort(key=lambda d: min((e.span.start, e.span.end) for e in d.fix.edits))
    accepted: list[Edit] = []
    taken: set[frozenset] = set()
    applied: list[Diagnostic] = []
    for d in candidates:
        key = frozenset((e.span.start, e.span.end, e.text) for e in d.fix.edits)
        if key in taken:
            applied.append(d)
            continue
        if any(_conflict(e, a) for e in d.fix.edits for a in accepted):
            continue
        accepted.extend(d.fix.edits)
        taken.add(key)
        applied.append(d)
    out = []
    pos = 0
    for e in sorted(accepted, key=lambda e: (e.span.start, e.span.end)):
        out.append(text[pos:e.span.start])
        out.append(e.text)
        pos = e.span.end
    out.append(text[pos:])
    return "".join(out), applied


def _lines(text: str) -> list[str]:
    """Lines with their "\n" (only "\n" ends a line, unlike str.splitlines)."""
    return re.findall(r"[^\n]*\n|[^\n]+$", text)


def unified_diff(path: str, old: str, new: str, *, context: int = 3) -> str:
    """A unified diff of one file (`--- a/path`, `+++ b/path`), "" when unchanged;
    a last line without a newline is marked as diff and patch expect."""
    if old == new:
        return ""
    lines = difflib.unified_diff(_lines(old), _lines(new),
                                 fromfile=f"a/{path}", tofile=f"b/{path}", n=context)
    out = []
    for line in lines:
        if line.endswith("\n"):
            out.append(line)
        else:
            out.append(line + "\n\\ No newline at end of file\n")
    return "".join(out)
