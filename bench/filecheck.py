"""A small FileCheck: the directives StableHLO's interpreter tests use, matched
the way LLVM's FileCheck matches them, so bench/interpret_conformance.py can
compare what a chunk prints with its CHECK lines.

    directives(text, prefixes, first_line, last_line) -> [Directive]
    check(directives, output) -> None | "why it fails"

Read in LLVM's FileCheck documentation (docs/CommandGuide/FileCheck.rst):

* a directive is `PREFIX:` (in order, anywhere after the previous match),
  `PREFIX-NEXT:` (on the line right after the previous match's), `PREFIX-SAME:`
  (on the same line), `PREFIX-EMPTY:` (the next line is empty), `PREFIX-NOT:`
  (does not occur between the matches around it) or `PREFIX-LABEL:` (as
  `PREFIX:` here; it only also splits the input for diagnostics), each with an
  optional `{LITERAL}` modifier;
* the pattern is the rest of the line, stripped; `{{regex}}` parts are
  regular expressions (unless `{LITERAL}`); a `[[VARIABLE]]` is refused (no
  test here uses one);
* runs of spaces and tabs count as one space, in the pattern and the output
  (FileCheck's default; no --strict-whitespace);
* a comment line `// CHECK-DENSE: ...` is not a directive of prefix CHECK
  (`-DENSE` is no directive suffix), only of CHECK-DENSE.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

KINDS = ("NEXT", "SAME", "EMPTY", "NOT", "LABEL", "DAG", "COUNT")


@dataclass
class Directive:
    prefix: str
    kind: str
    """"" (plain), "NEXT", "SAME", "EMPTY", "NOT" or "LABEL"."""
    pattern: str
    literal: bool
    line: int

    def __str__(self) -> str:
        kind = f"-{self.kind}" if self.kind else ""
        return f"line {self.line}: {self.prefix}{kind}{'{LITERAL}' if self.literal else ''}: {self.pattern}"


def directives(text: str, prefixes: tuple[str, ...], first_line: int = 1, last_line: int | None = None) -> list:
    """The directives of these prefixes on lines first_line..last_line (1-based)."""
    names = "|".join(sorted((re.escape(p) for p in prefixes), key=len, reverse=True))
    pattern = re.compile(rf"(?<![\w-])({names})(?:-([A-Z]+))?(\{{LITERAL\}})?:(.*)$")
    out = []
    for number, line in enumerate(text.splitlines(), 1):
        if number < first_line or (last_line is not None and number > last_line):
            continue
        m = pattern.search(line)
        if m is None:
            continue
        prefix, kind, literal, rest = m.group(1), m.group(2) or "", bool(m.group(3)), m.group(4)
        if kind and kind not in KINDS:
            continue  # `CHECK-DENSE:` seen with prefix CHECK: another prefix's directive
        if kind in ("DAG", "COUNT"):
            raise ValueError(f"line {number}: {prefix}-{kind} is not supported here")
        out.append(Directive(prefix, kind, rest.strip(), literal, number))
    return out


def _regex(d: Directive) -> re.Pattern:
    """The directive's pattern as a regex over whitespace-canonical text."""
    text = _canonical(d.pattern)
    if d.literal:
        return re.compile(re.escape(text))
    if "[[" in text:
        raise ValueError(f"{d}: FileCheck variables are not supported here")
    parts, at = [], 0
    for m in re.finditer(r"\{\{(.*?)\}\}", text):
        parts.append(re.escape(text[at:m.start()]))
        parts.append(f"(?:{m.group(1)})")
        at = m.end()
    parts.append(re.escape(text[at:]))
    return re.compile("".join(parts))


def _canonical(text: str) -> str:
    return re.sub(r"[ \t]+", " ", text)


def check(found: list[Directive], output: str) -> str | None:
    """None when `output` satisfies the directives in order, else why not."""
    lines = [_canonical(line) for line in output.split("\n")]
    line, col = 0, 0  # where the previous match ended
    matched_any = False
    pending_not: list[Directive] = []
    for d in found:
        if d.kind == "NOT":
            pending_not.append(d)
            continue
        if d.kind in ("NEXT", "SAME", "EMPTY") and not matched_any:
            return f"{d}: no earlier match to follow"
        start = (line, col)
        if d.kind == "EMPTY":
            if line + 1 >= len(lines) or lines[line + 1].strip():
                return f"{d}: the next line is not empty"
            line, col = line + 1, 0
        elif d.kind == "SAME":
            m = _regex(d).search(lines[line], col)
            if m is None:
                return f"{d}: not on the same line ({lines[line]!r})"
            col = m.end()
        elif d.kind == "NEXT":
            if line + 1 >= len(lines):
                return f"{d}: no next line"
            m = _regex(d).search(lines[line + 1])
            if m is None:
                return f"{d}: not on the next line ({lines[line + 1]!r})"
            line, col = line + 1, m.end()
        else:
            rx = _regex(d)
            for k in range(line, len(lines)):
                m = rx.search(lines[k], col if k == line else 0)
                if m is not None:
                    line, col = k, m.end()
                    break
            else:
                return f"{d}: not found after line {line + 1} of the output"
        why = _nots(pending_not, lines, start, (line, col))
        if why:
            return why
        pending_not = []
        matched_any = True
    return _nots(pending_not, lines, (line, col), (len(lines) - 1, len(lines[-1]) if lines else 0))


def _nots(nots: list[Directive], lines: list[str], start: tuple[int, int], end: tuple[int, int]) -> str | None:
    for d in nots:
        rx = _regex(d)
        for k in range(start[0], end[0] + 1):
            text = lines[k] if k < len(lines) else ""
            lo = start[1] if k == start[0] else 0
            hi = end[1] if k == end[0] else len(text)
            if rx.search(text[lo:hi]):
                return f"{d}: found on line {k + 1} of the output"
    return None
