"""What every reporter shares: resolving a Location to 1-based positions, the sort
order, counts for the summary, and the tool's version. Reads only Diagnostic
values and SourceFile text; never the IR."""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Callable, Iterable, Protocol

from ..source.diagnostics import Diagnostic, Location, Severity, positioned
from ..source.processes import process_name, process_set
from ..source.text import SourceFile, Span

class RuleDoc(Protocol):
    """What a reporter reads of a rule: its documentation, for SARIF's rule
    descriptors and the links of JSON and HTML (the lint registry's RuleSpec is one)."""

    code: str
    name: str
    category: str
    severity: Severity

    @property
    def summary(self) -> str: ...

    @property
    def doc(self) -> str: ...

    @property
    def help_uri(self) -> str: ...


RuleLookup = Callable[[str], "RuleDoc | None"]
"""A code -> its rule's documentation (None for a code no rule has)."""

TOOL_NAME = "shlo-lint"
INFORMATION_URI = "https://github.com/shlo-lint/shlo-lint"


def tool_version() -> str:
    """The installed distribution's version, or "0+unknown" when running from a
    tree that was never installed."""
    try:
        from importlib.metadata import PackageNotFoundError, version
    except ImportError:  # pragma: no cover - Python < 3.8
        return "0+unknown"
    try:
        return version("shlo-lint")
    except PackageNotFoundError:
        return "0+unknown"


@dataclass(frozen=True, slots=True)
class Position:
    """A location resolved against the sources: 1-based, end exclusive; any part
    may be None (a whole-file problem has no line; a loc() line has no end)."""

    path: str
    line: int | None = None
    column: int | None = None
    end_line: int | None = None
    end_column: int | None = None

    def label(self) -> str:
        """`path:line:col`, `path:line` or `path`, as far as it is known."""
        if self.line is None:
            return self.path
        if self.column is None:
            return f"{self.path}:{self.line}"
        return f"{self.path}:{self.line}:{self.column}"


def resolve(location: Location, sources: dict[str, SourceFile]) -> Position:
    """Map a Location to line/column. A span in a known source wins (computed by
    source.diagnostics.positioned, as the library's Diagnostic.line is); otherwise
    the Location's own line/column (a Python file named by loc()); otherwise nothing."""
    source = sources.get(location.path)
    if location.span is not None and source is not None:
        at = positioned(location, source)
        return Position(location.path, at.line, at.column, at.end_line, at.end_column)
    line = location.line if location.line is not None and location.line >= 1 else None
    col = location.column if line is not None and location.column is not None and location.column >= 1 else None
    end_line = location.end_line if col is not None and location.end_line is not None else None
    end_col = location.end_column if end_line is not None else None
    return Position(location.path, line, col, end_line, end_col)


def resolve_span(path: str, span: Span, sources: dict[str, SourceFile]) -> Position:
    """Resolve an edit's span in `path` (the diagnostic's file)."""
    return resolve(Location(path, span), sources)


def binary_notice(line: str) -> str | None:
    """What to show instead of a source line that is not text — bytes that did not
    decode (U+FFFD) or control characters making up a quarter of it, as when a binary
    file is linted — else None (show the line). One bad byte in a text line is shown:
    the caret points at it."""
    bad = sum(1 for ch in line if ch == "\ufffd" or (ord(ch) < 0x20 and ch not in "\t\r") or ord(ch) == 0x7F)
    if bad < 4 or bad * 4 < len(line):
        return None
    return f"(not shown: {bad} of {len(line)} characters of this line are undecodable bytes or control characters)"


def sort_key(diag: Diagnostic, sources: dict[str, SourceFile]) -> tuple:
    """Path, line, column, code; a position-less diagnostic leads its file."""
    pos = resolve(diag.location, sources)
    return (diag.path, pos.line or 0, pos.column or 0, diag.code, diag.message)


def sorted_diagnostics(diagnostics: Iterable[Diagnostic], sources: dict[str, SourceFile]) -> list[Diagnostic]:
    return sorted(diagnostics, key=lambda d: sort_key(d, sources))


def severity_of(diag: Diagnostic) -> Severity:
    return Severity(diag.severity)


def counts(diagnostics: list[Diagnostic], summary: dict | None = None) -> dict:
    """The summary every format reports: totals by severity, files with findings,
    fixable counts, then whatever the caller passed (its keys win)."""
    by_sev = Counter(severity_of(d).value for d in diagnostics)
    out = {
        "diagnostics": len(diagnostics),
        "errors": by_sev.get("error", 0),
        "warnings": by_sev.get("warning", 0),
        "infos": by_sev.get("info", 0),
        "files_with_diagnostics": len({d.path for d in diagnostics}),
        "fixable": sum(1 for d in diagnostics if d.fix is not None and d.fix.applicability == "safe"),
        "unsafe_fixable": sum(1 for d in diagnostics if d.fix is not None and d.fix.applicability == "unsafe"),
    }
    if summary:
        out.update(summary)
    return out


def plural(n: int, word: str, many: str | None = None) -> str:
    return f"{n} {word if n == 1 else (many or word + 's')}"


def process_label(process: tuple[int, int] | list[int]) -> str:
    return f"process {process_name(process)}"


def process_ranges(processes, limit: int = 6) -> str:
    """`(0, 0)–(0, 511), (1, 0)` for a set of processes (source/processes.py)."""
    return process_set(processes, limit)


def trace_label(trace) -> str:
    """`process (0, 3)`, or for a class of processes the trace's own label
    (`1024 processes (0, p), p = 0–1023`: its steps speak of the member (0, p))."""
    if getattr(trace, "label", ""):
        return trace.label
    if not getattr(trace, "others", ()):
        return process_label(trace.process)
    members = [tuple(trace.process), *map(tuple, trace.others)]
    return f"{len(members)} processes {process_ranges(members)}"
