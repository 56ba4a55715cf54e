"""Moving the previous version's results into the new text (document.py).

An edit is one replaced range (`TextEdit`); a span outside it moves by the edit's
length change, a span touching it cannot be moved (`Unmovable`: whatever holds
it is recomputed). Headers, diagnostics and header fields are moved or compared
through it.
"""
from __future__ import annotations

import dataclasses
import re
from dataclasses import replace

from ...source.diagnostics import Diagnostic, Edit, Fix, Location, Note, ProcessTrace, TraceStep
from ...ir.core import OpHeader
from ...frontend.stablehlo.parse.cache import move_attr
from ...source.text import Span, line_state

HEADER_FIELDS = ("name", "name_span", "generic", "operands", "operand_types", "result_types", "attributes",
                 "properties", "region_args", "successors", "loc")
SHIFTABLE = tuple(f.name for f in dataclasses.fields(OpHeader)) == HEADER_FIELDS
"""The header's fields are the ones shift_header knows how to move (else: no header reuse)."""


# ----------------------------------------------------------------------------- the edit
class TextEdit:
    """Old text → new text as one replaced range: [start, old_end) became [start, new_end)."""

    __slots__ = ("start", "old_end", "new_end", "delta")

    def __init__(self, old: str, new: str):
        n = min(len(old), len(new))
        p = _common_prefix(old, new, n)
        q = _common_suffix(old, new, n - p)
        self.start = p
        self.old_end = len(old) - q
        self.new_end = len(new) - q
        self.delta = len(new) - len(old)

    def old_range(self, start: int, end: int) -> tuple[int, int] | None:
        """Where new-text range [start, end) was in the old text, if it lies outside the edit."""
        if end <= self.start:
            return start, end
        if start >= self.new_end:
            return start - self.delta, end - self.delta
        return None

    def move(self, span: Span) -> Span:
        """An old-text span in the new text; raises Unmovable when it touches the edit,
        ends where it starts or starts where it ends (what a span covers may grow or
        shrink there: an op typed at its end, a line joined to the one before)."""
        if span.end < self.start:
            return span
        if span.start > self.old_end:
            return Span(span.start + self.delta, span.end + self.delta)
        raise Unmovable


class Unmovable(Exception):
    """A span that touches the edited range: whatever holds it is recomputed."""


_BLANK = frozenset(" \t\r\n")


def blank_edit(old: str, new: str, start: int, old_end: int, new_end: int) -> bool:
    """Does the edit (old[start:old_end] replaced by new[start:new_end]) only add or
    remove blank space between lines (an Enter, a blank line deleted, indentation)?
    Both replaced texts are spaces, tabs, carriage returns (an Enter in a CRLF file)
    and newlines, the run of blank space around them holds a newline before and after
    (no two lines joined, no line split between tokens), and the edit does not
    start inside a comment or string of its line. The tokens then stay; only
    offsets after the edit, and line numbers, move."""
    if not _BLANK.issuperset(old[start:old_end]) or not _BLANK.issuperset(new[start:new_end]):
        return False
    for text, end in ((old, old_end), (new, new_end)):
        lo, hi = start, end
        while lo > 0 and text[lo - 1] in _BLANK:
            lo -= 1
        while hi < len(text) and text[hi] in _BLANK:
            hi += 1
        if "\n" not in text[lo:hi]:
            return False
    return line_state(old, start) == "code"


def _common_prefix(a: str, b: str, limit: int) -> int:
    """Length of the common prefix of a and b (at most limit), by C-speed slice compares."""
    lo, step = 0, 4096
    while lo + step <= limit and a[lo:lo + step] == b[lo:lo + step]:
        lo += step
    hi = min(lo + step, limit)
    while lo < hi:  # the first difference is in [lo, hi]
        mid = (lo + hi + 1) // 2
        if a[lo:mid] == b[lo:mid]:
            lo = mid
        else:
            hi = mid - 1
    return lo


def _common_suffix(a: str, b: str, limit: int) -> int:
    la, lb = len(a), len(b)
    lo, step = 0, 4096
    while lo + step <= limit and a[la - lo - step:la - lo] == b[lb - lo - step:lb - lo]:
        lo += step
    hi = min(lo + step, limit)
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if a[la - mid:la - lo] == b[lb - mid:lb - lo]:
            lo = mid
        else:
            hi = mid - 1
    return lo


# ----------------------------------------------------------------------------- moving results
def shift_header(h: OpHeader, delta: int) -> OpHeader:
    """A copy of a header with every span moved by delta (the header cache's way)."""
    if delta == 0:
        return h

    def move(span: Span) -> Span:
        return Span(span.start + delta, span.end + delta)

    return OpHeader(
        name=h.name, name_span=move(h.name_span), generic=h.generic,
        operands=[(n, move(s)) for n, s in h.operands],
        operand_types=None if h.operand_types is None else list(h.operand_types),
        result_types=list(h.result_types),
        attributes={k: move_attr(v, move) for k, v in h.attributes.items()},
        properties=h.properties,
        region_args=[[(n, t, move(s)) for n, t, s in args] for args in h.region_args],
        successors=list(h.successors), loc=h.loc)


def _move_location(loc: Location, edit: TextEdit) -> Location:
    return loc if loc.span is None else replace(loc, span=edit.move(loc.span))


def move_diagnostic(d: Diagnostic, edit: TextEdit) -> Diagnostic:
    """The diagnostic with every span (location, notes, fix edits, trace steps) moved
    into the new text; raises Unmovable when one touches the edit."""
    fix = d.fix
    if fix is not None:
        fix = Fix(fix.title, tuple(Edit(edit.move(e.span), e.text) for e in fix.edits), fix.applicability)
    trace = tuple(replace(t, steps=tuple(TraceStep(_move_location(s.location, edit), s.message, s.blocked)
                                         for s in t.steps)) for t in d.trace)
    return replace(d, location=_move_location(d.location, edit),
                   notes=tuple(Note(_move_location(n.location, edit), n.message) for n in d.notes),
                   fix=fix, trace=trace, fingerprint=None)


DIAG_SHAPE = (
    tuple(f.name for f in dataclasses.fields(Diagnostic)) ==
    ("code", "name", "category", "severity", "message", "location", "notes", "fix", "trace", "help", "fingerprint")
    and tuple(f.name for f in dataclasses.fields(Note)) == ("location", "message")
    and tuple(f.name for f in dataclasses.fields(Fix)) == ("title", "edits", "applicability")
    and tuple(f.name for f in dataclasses.fields(Edit)) == ("span", "text")
    and tuple(f.name for f in dataclasses.fields(TraceStep)) == ("location", "message", "blocked")
    and "steps" in {f.name for f in dataclasses.fields(ProcessTrace)})
"""The diagnostic's parts are the ones move_diagnostic moves (else: no result reuse)."""


def same_labels(old: list[Span], new: list[Span], edit: TextEdit) -> bool:
    """Are the block labels the previous version's, moved, none touching the edit?
    (A label can disappear through an edit before it on its line.)"""
    if len(old) != len(new):
        return False
    try:
        return all(edit.move(o) == n for o, n in zip(sorted(old), sorted(new)))
    except Unmovable:
        return False


def same_presence(old: str, new: str, edit: TextEdit, marker: str) -> bool:
    """Is `marker` in `new` exactly when it is in `old`? Looked for only around the
    edit (the rest of the texts is the same) unless it is there (two full searches
    of a big text per marker otherwise)."""
    reach = len(marker) - 1
    lo = max(0, edit.start - reach)
    if marker not in old[lo:edit.old_end + reach] and marker not in new[lo:edit.new_end + reach]:
        return True  # every occurrence lies in the unchanged text before or after the edit
    return (marker in old) == (marker in new)


def same_field(field: str, old: OpHeader, new: OpHeader, edit: TextEdit) -> bool:
    """Is header field `field` (or "attr:NAME") of the previous version's op, moved
    through the edit, equal to the new one's? Anything that cannot be compared: no."""
    try:
        if field.startswith("attr:"):
            a, b = old.attributes.get(field[5:]), new.attributes.get(field[5:])
            return (a is None and b is None) or (a is not None and b is not None and move_attr(a, edit.move) == b)
        if field == "attributes":
            return old.attributes.keys() == new.attributes.keys() and all(
                move_attr(v, edit.move) == new.attributes[k] for k, v in old.attributes.items())
        if field == "name_span":
            return edit.move(old.name_span) == new.name_span
        if field == "operands":
            return [(n, edit.move(sp)) for n, sp in old.operands] == new.operands
        if field == "region_args":
            return [[(n, t, edit.move(sp)) for n, t, sp in args] for args in old.region_args] == new.region_args
        if field in HEADER_FIELDS:
            return bool(getattr(old, field) == getattr(new, field))
    except Exception:  # noqa: BLE001 - Unmovable, or values that do not compare (arrays)
        return False
    return False


def lines_moved(old: str, new: str, edit: TextEdit) -> bool:
    """Does the edit add or remove a line (the lines after it move)?"""
    return old.count("\n", edit.start, edit.old_end) != new.count("\n", edit.start, edit.new_end)


def move_all(found: tuple[Diagnostic, ...], edit: TextEdit, move) -> tuple[Diagnostic, ...] | None:
    """The findings moved into the new text, or None when one touches the edit."""
    try:
        return tuple([move(d, edit) for d in found])
    except Unmovable:
        return None


_SSA_NAME = re.compile(r"%[\w$.\-]+")


def ssa_mentions(text: str, start: int, end: int) -> list[str]:
    """The `%names` an op's text mentions, in order (what analysis.semantics.BlockFlow
    reads of it: its mentions and, in order, its operands)."""
    return _SSA_NAME.findall(text, start, end)
