"""Suppression comments: `// shlo-lint: ignore[CODE, ...]` on a line or alone above it,
and `// shlo-lint: ignore-file[CODE, ...]` anywhere. Unused ones are reported."""
from __future__ import annotations

import re
from dataclasses import dataclass

from ..source.text import SourceFile, Span

_COMMENT = re.compile(r"//[ \t]*shlo-lint:[ \t]*(ignore-file|ignore)[ \t]*(?:\[([^\]\n]*)\])?")


@dataclass
class Suppression:
    span: Span
    """The comment's directive text."""
    codes: tuple[str, ...]
    """Codes or rule names; empty = every rule."""
    lines: range
    """1-based lines it covers (empty range for ignore-file)."""
    whole_file: bool = False
    used: set[str] | None = None

    def matches(self, code: str, name: str) -> str | None:
        if not self.codes:
            return "*"
        for c in self.codes:
            if c == code or c == name:
                return c
        return None


def find_suppressions(source: SourceFile, statement_lines=None) -> list[Suppression]:
    """Every directive in the file. `statement_lines(line)` maps the line a directive
    targets to the range of lines of the op starting there (multi-line ops)."""
    text = source.text
    if "shlo-lint:" not in text:
        return []
    out: list[Suppression] = []
    for m in _COMMENT.finditer(text):
        codes = tuple(c.strip() for c in (m.group(2) or "").split(",") if c.strip())
        span = Span(m.start(), m.end())
        if m.group(1) == "ignore-file":
            out.append(Suppression(span, codes, range(0), whole_file=True, used=set()))
            continue
        line, col = source.line_col(m.start())
        before = source.line_text(line)[: col - 1]
        target = line
        if not before.strip():  # a comment on its own line covers the next code line
            target = line + 1
            while target <= source.num_lines and (
                    not source.line_text(target).strip() or source.line_text(target).lstrip().startswith("//")):
                target += 1
        first, last = target, target
        if statement_lines is not None:
            first, last = statement_lines(target)
        lines = range(min(line, first), max(last, target) + 1)
        out.append(Suppression(span, codes, lines, used=set()))
    return out
