"""Source text, spans, and the offset → line:column map every report uses."""
from __future__ import annotations

import bisect
import re
from typing import NamedTuple

_NEWLINE = re.compile("\n")


class Span(NamedTuple):
    """A half-open range of character offsets [start, end) into one SourceFile.
    (A tuple: the scanner makes one per op, and tuples are the cheapest object.)"""

    start: int
    end: int

    def shift(self, delta: int) -> "Span":
        return Span(self.start + delta, self.end + delta)

    def cover(self, other: "Span | None") -> "Span":
        if other is None:
            return self
        return Span(min(self.start, other.start), max(self.end, other.end))


class SourceFile:
    """One input text with its display path.

    Lines and columns are 1-based; columns count characters (not bytes).
    The line index is built on first use, so a file nobody reports on pays nothing;
    until then `line_col` asked for ever later offsets counts the newlines it passes
    (a reader going forward through a 30 MB file, as the hosts signature does, never
    indexes its 300k lines).
    """

    __slots__ = ("path", "text", "_starts", "_cursor")

    def __init__(self, path: str, text: str):
        self.path = path
        self.text = text
        self._starts: list[int] | None = None
        self._cursor = (0, 1, 0)
        """(offset, its line, that line's start) the forward reader has reached."""

    @property
    def line_starts(self) -> list[int]:
        if self._starts is None:
            self._starts = [0] + [m.end() for m in _NEWLINE.finditer(self.text)]
        return self._starts

    @property
    def num_lines(self) -> int:
        return len(self.line_starts)

    def line_col(self, offset: int) -> tuple[int, int]:
        """1-based (line, column) of a character offset."""
        offset = max(0, min(offset, len(self.text)))
        starts = self._starts
        if starts is None:
            at, line, start = self._cursor
            if offset >= at:
                passed = self.text.count("\n", at, offset)
                if passed:
                    line += passed
                    start = self.text.rfind("\n", at, offset) + 1
                self._cursor = (offset, line, start)
                return line, offset - start + 1
            starts = self.line_starts
        i = bisect.bisect_right(starts, offset) - 1
        return i + 1, offset - starts[i] + 1

    def offset(self, line: int, col: int) -> int:
        """Character offset of a 1-based (line, column)."""
        starts = self.line_starts
        line = max(1, min(line, len(starts)))
        return min(starts[line - 1] + col - 1, len(self.text))

    def line_text(self, line: int) -> str:
        """The text of a 1-based line, without its newline."""
        starts = self.line_starts
        if not 1 <= line <= len(starts):
            return ""
        end = starts[line] - 1 if line < len(starts) else len(self.text)
        return self.text[starts[line - 1]:end]

    def range(self, span: Span) -> tuple[int, int, int, int]:
        """(line, col, end_line, end_col) of a span; end is exclusive."""
        line, col = self.line_col(span.start)
        end_line, end_col = self.line_col(max(span.start, span.end))
        return line, col, end_line, end_col

    def snippet(self, span: Span) -> str:
        return self.text[span.start:span.end]


def in_line_comment(text: str, pos: int) -> bool:
    """Is text[pos] inside a `//` comment (one that starts earlier on its line, outside
    a string)? For the few checks that search the raw text: a comment mentioning a
    mesh or a symbol must not count as one."""
    start = text.rfind("\n", 0, pos) + 1
    if text.find("//", start, pos) < 0:
        return False
    return line_state(text, pos) == "comment"


def line_state(text: str, pos: int) -> str:
    """Where text[pos] is on its line: "code", "string" (inside a "..." literal)
    or "comment" (after a `//` outside a string)."""
    quoted = False
    k = text.rfind("\n", 0, pos) + 1
    while k < pos:
        c = text[k]
        if quoted:
            if c == "\\":
                k += 1
            elif c == '"':
                quoted = False
        elif c == '"':
            quoted = True
        elif c == "/" and text.startswith("//", k):
            return "comment"
        k += 1
    return "string" if quoted else "code"
