"""Human output, rustc/ruff style:

    prog.mlir:14:8: error[SHLO103] send: source 0 appears twice in source_target_pairs (send C2)
       |
    14 |   %t = "stablehlo.send"(%x, %tok) {...}
       |        ^^^^^^^^^^^^^^^^
       = note: prog.mlir:12:3: first used here
       = help: each process may send at most once per channel
       = fix: Remove pair 1 (unsafe)
       = trace: process (0, 3): blocked at prog.mlir:20:5 stablehlo.recv — waits for ...

Options: color (ANSI, off by default), show_source (default True),
statistics (a per-code count table instead of per-diagnostic output),
max_width (display cells of a source line before it is elided, default 160).
"""
from __future__ import annotations

import unicodedata
from collections import Counter

from ..source.diagnostics import Diagnostic, ProcessTrace
from ..source.processes import GRID_WORDS, names_a_process
from ..source.text import SourceFile
from .shared import (Position, RuleLookup, binary_notice, counts, plural, resolve, severity_of, sorted_diagnostics,
                     trace_label)

TAB = "    "
_SEV_COLOR = {"error": "31", "warning": "33", "info": "36"}


class _Paint:
    def __init__(self, enabled: bool):
        self.enabled = enabled

    def __call__(self, text: str, code: str) -> str:
        return f"\x1b[{code}m{text}\x1b[0m" if self.enabled and text else text

    def bold(self, text: str) -> str:
        return self(text, "1")

    def gutter(self, text: str) -> str:
        return self(text, "1;34")

    def sev(self, text: str, severity: str) -> str:
        return self(text, "1;" + _SEV_COLOR.get(severity, "0"))


def _cell(ch: str) -> tuple[str, int]:
    """How one character shows in a terminal: its text and its width in cells."""
    if ch == "\t":
        return TAB, len(TAB)
    if unicodedata.combining(ch) or unicodedata.category(ch) == "Cf":
        return ch, 0
    if ord(ch) < 0x20 or ord(ch) == 0x7F:
        return "\ufffd", 1
    if unicodedata.east_asian_width(ch) in ("W", "F"):
        return ch, 2
    return ch, 1


def snippet_lines(line_text: str, start: int, end: int | None, max_width: int = 160) -> tuple[str, str]:
    """(shown line, caret line) for 0-based character columns [start, end) of one
    line; end None means "to the end of the line". Tabs become four spaces, wide
    characters take two cells, at least one caret is drawn, and a line wider than
    max_width is elided around the caret with "..."."""
    line_text = line_text.rstrip("\r")
    cells = [_cell(ch) for ch in line_text]
    start = max(0, min(start, len(cells)))
    stop = len(cells) if end is None else max(start, min(end, len(cells)))
    lo, hi = 0, len(cells)
    left = right = ""
    if sum(w for _, w in cells) > max_width:
        margin = max(8, max_width // 4)
        width = 0
        lo = start
        while lo > 0 and width + cells[lo - 1][1] <= margin:
            lo -= 1
            width += cells[lo][1]
        if lo > 0:
            left = "..."
        room = max_width - len(left) - 3
        width, hi = 0, lo
        while hi < len(cells) and width + cells[hi][1] <= room:
            width += cells[hi][1]
            hi += 1
        if hi < len(cells):
            right = "..."
    shown = left + "".join(t for t, _ in cells[lo:hi]) + right
    pad = len(left) + sum(w for _, w in cells[lo:start])
    carets = sum(w for _, w in cells[start:min(stop, hi)])
    return shown, " " * pad + "^" * max(1, carets)


def _gutter_width(pos: Position) -> int:
    return len(str(pos.line)) if pos.line is not None else 1


def _source_block(diag: Diagnostic, pos: Position, source: SourceFile | None, paint: _Paint,
                  max_width: int) -> list[str]:
    if source is None or pos.line is None or pos.column is None or not 1 <= pos.line <= source.num_lines:
        return []
    end = pos.end_column - 1 if pos.end_line == pos.line and pos.end_column is not None else None
    if pos.end_line is None:  # a line:col without a span: point at one character
        end = pos.column
    w = _gutter_width(pos)
    bar = paint.gutter(" " * (w + 1) + "|")
    notice = binary_notice(source.line_text(pos.line))
    if notice is not None:  # a binary file: no line of replacement characters
        return [bar, paint.gutter(f"{pos.line:>{w}} |") + " " + notice]
    shown, carets = snippet_lines(source.line_text(pos.line), pos.column - 1, end, max_width)
    sev = severity_of(diag).value
    return [
        bar,
        paint.gutter(f"{pos.line:>{w}} |") + (" " + shown if shown else ""),
        bar + " " + paint.sev(carets, sev),
    ]


def _trace_lines(trace: ProcessTrace, sources: dict[str, SourceFile], pad: str, paint: _Paint) -> list[str]:
    steps = [(resolve(s.location, sources).label(), s) for s in trace.steps]
    blocked = [(label, s) for label, s in steps if s.blocked]
    head = trace_label(trace)
    if blocked:
        label, step = blocked[-1]
        head += f": blocked at {label} {step.message}"
        if trace.waits_for:
            head += f" \u2014 {trace.waits_for}"
    elif trace.waits_for:
        head += f": {trace.waits_for}"
    lines = [f"{pad}= {paint.bold('trace')}: {head}"]
    if len(steps) == 1 and steps[0][1].blocked:
        return lines
    indent = pad + " " * len("= trace: ")
    for label, step in steps:
        marker = paint.bold("> ") if step.blocked else "  "
        lines.append(f"{indent[:-2]}{marker}{label} {step.message}")
    return lines


def render_one(diag: Diagnostic, sources: dict[str, SourceFile], *, color: bool = False,
               show_source: bool = True, max_width: int = 160) -> list[str]:
    """The lines of one diagnostic (no trailing blank line)."""
    paint = _Paint(color)
    pos = resolve(diag.location, sources)
    sev = severity_of(diag).value
    head = f"{paint.bold(pos.label() + ':')} {paint.sev(f'{sev}[{diag.code}]', sev)} {paint.bold(diag.message)}"
    lines = [head]
    if show_source:
        lines += _source_block(diag, pos, sources.get(diag.path), paint, max_width)
    pad = " " * (_gutter_width(pos) + 1)
    for note in diag.notes:
        where = resolve(note.location, sources).label()
        lines.append(f"{pad}= {paint.bold('note')}: {where}: {note.message}")
    if diag.help:
        lines.append(f"{pad}= {paint.bold('help')}: {diag.help}")
    if diag.fix is not None:
        kind = {"safe": "", "unsafe": " (unsafe)", "display": " (display only)"}.get(
            diag.fix.applicability, f" ({diag.fix.applicability})")
        lines.append(f"{pad}= {paint.bold('fix')}: {diag.fix.title}{kind}")
    for trace in diag.trace:
        lines += _trace_lines(trace, sources, pad, paint)
    return lines


def summary_lines(diagnostics: list[Diagnostic], summary: dict) -> list[str]:
    """`Found 3 diagnostics (2 errors, 1 warning) in 2 of 5 files checked.` or `All checks
    passed.`, preceded by `Fixed N diagnostics, M remaining.` after --fix, followed by fix hints."""
    c = counts(diagnostics, summary)
    lines = []
    if c.get("fixed") is not None and "fixed" in summary:
        lines.append(f"Fixed {plural(c['fixed'], 'diagnostic')}, {len(diagnostics)} remaining.")
    if not diagnostics:
        lines.append("All checks passed.")
        return lines
    parts = [plural(c["errors"], "error"), plural(c["warnings"], "warning"), plural(c["infos"], "info", "infos")]
    parts = [p for p in parts if not p.startswith("0 ")]
    with_diags = c["files_with_diagnostics"]
    files = c.get("files")
    where = (f"in {with_diags} of {plural(files, 'file')} checked" if isinstance(files, int) and files >= with_diags
             else f"in {plural(with_diags, 'file')}")
    lines.append(f"Found {plural(len(diagnostics), 'diagnostic')} ({', '.join(parts)}) {where}.")
    if c["fixable"]:
        lines.append(f"[*] {c['fixable']} fixable with the `--fix` option.")
    if c["unsafe_fixable"]:
        lines.append(f"({plural(c['unsafe_fixable'], 'hidden fix', 'hidden fixes')} "
                     "can be enabled with the `--unsafe-fixes` option.)")
    return lines


def statistics_lines(diagnostics: list[Diagnostic]) -> list[str]:
    """ruff --statistics: count, code, [*] when one has a safe fix, name; most frequent first."""
    by_code = Counter(d.code for d in diagnostics)
    names = {d.code: d.name for d in diagnostics}
    fixable = {d.code for d in diagnostics if d.fix is not None and d.fix.applicability == "safe"}
    rows = sorted(by_code.items(), key=lambda kv: (-kv[1], kv[0]))
    if not rows:
        return []
    cw = max(len(str(n)) for _, n in rows)
    kw = max(len(code) for code, _ in rows)
    mark = bool(fixable)
    out = []
    for code, n in rows:
        flag = ("[*] " if code in fixable else "    ") if mark else ""
        out.append(f"{n:>{cw}}  {code:<{kw}}  {flag}{names[code]}")
    return out


def _names_processes(d: Diagnostic) -> bool:
    texts = [d.message, *(n.message for n in d.notes)]
    texts += [t.waits_for for t in d.trace] + [s.message for t in d.trace for s in t.steps]
    # a trace whose lanes are labelled by what they stand for ("host 1 (devices
    # 4-7)") names no process unless its words do
    lanes = any(not t.label or t.label.split(" ", 2)[1:2] == ["processes"] for t in d.trace)
    return lanes or any(names_a_process(t) for t in texts)


def render(diagnostics: list[Diagnostic], sources: dict[str, SourceFile],
           rules: RuleLookup | None = None, *, summary: dict | None = None,
           color: bool = False, show_source: bool = True, statistics: bool = False,
           max_width: int = 160, **_opts) -> str:
    diags = sorted_diagnostics(diagnostics, sources)
    lines: list[str] = []
    if statistics:
        lines += statistics_lines(diags)
    else:
        for d in diags:
            lines += render_one(d, sources, color=color, show_source=show_source, max_width=max_width)
            if show_source:
                lines.append("")
        if any(_names_processes(d) for d in diags):  # once per report, not per finding
            lines.append(f"{_Paint(color).bold('note')}: {GRID_WORDS}")
    if summary is not None:
        if statistics and lines:
            lines.append("")
        lines += summary_lines(diags, summary)
    while lines and lines[-1] == "":
        lines.pop()
    return "\n".join(lines) + "\n" if lines else ""
