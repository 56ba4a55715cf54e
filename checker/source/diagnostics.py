"""The diagnostic: what every rule, analysis and parse error produces, and all a
reporter reads. Frozen values; `note`/`with_fix`/... return copies."""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from enum import Enum

from .text import SourceFile, Span

CATEGORIES = ("syntax", "constraint", "future", "deadlock", "performance", "tool")


class Severity(str, Enum):
    ERROR = "error"
    WARNING = "warning"
    INFO = "info"

    @property
    def rank(self) -> int:
        return {"error": 0, "warning": 1, "info": 2}[self.value]


@dataclass(frozen=True, slots=True)
class Location:
    """A place in some file: the path plus a span of it, and its 1-based line and
    column with an exclusive end, as JSON reports them (`positioned` computes them
    from the span; where the file is not one we read, e.g. the Python line from a
    loc(), they are all there is)."""

    path: str
    span: Span | None = None
    line: int | None = None
    column: int | None = None
    end_line: int | None = None
    end_column: int | None = None


def positioned(location: Location, source: SourceFile) -> Location:
    """The location with line, column, end_line and end_column computed from its span
    in `source` (1-based, end exclusive): the one place they are computed, for the
    library's Diagnostic and every report. A location without a span, or in another
    file, is returned as it is."""
    if location.span is None or location.path != source.path:
        return location
    line, column, end_line, end_column = source.range(location.span)
    if (line, column, end_line, end_column) == (location.line, location.column, location.end_line,
                                                location.end_column):
        return location
    return replace(location, line=line, column=column, end_line=end_line, end_column=end_column)


@dataclass(frozen=True, slots=True)
class Note:
    """A related location with its message ("matching recv is here")."""

    location: Location
    message: str


@dataclass(frozen=True, slots=True)
class Edit:
    """Replace the text of `span` in the diagnostic's file with `text`."""

    span: Span
    text: str

    @staticmethod
    def delete(span: Span) -> "Edit":
        return Edit(span, "")

    @staticmethod
    def insert(offset: int, text: str) -> "Edit":
        return Edit(Span(offset, offset), text)


@dataclass(frozen=True, slots=True)
class Fix:
    """A titled set of text edits. applicability: "safe" (meaning kept), "unsafe"
    (meaning may change; only applied with --unsafe-fixes), "display" (shown only)."""

    title: str
    edits: tuple[Edit, ...]
    applicability: str = "safe"

    @staticmethod
    def safe(title: str, edits: list[Edit]) -> "Fix":
        return Fix(title, tuple(edits), "safe")

    @staticmethod
    def unsafe(title: str, edits: list[Edit]) -> "Fix":
        return Fix(title, tuple(edits), "unsafe")


@dataclass(frozen=True, slots=True)
class TraceStep:
    """One step of a process's trace: an op it executed or is blocked at."""

    location: Location
    message: str
    blocked: bool = False


@dataclass(frozen=True, slots=True)
class ProcessTrace:
    """What one process did, for deadlock counterexamples (one SARIF threadFlow)."""

    process: tuple[int, int]
    """(replica_id, partition_id)."""
    steps: tuple[TraceStep, ...]
    waits_for: str = ""
    """What the process is blocked waiting for, in words."""
    others: tuple[tuple[int, int], ...] = ()
    """Further processes whose trace is this one's (the same ops completed, blocked at
    the same op), where a deadlock has too many processes to show one by one."""
    label: str = ""
    """Who the trace stands for when it is a class of processes: "1024 processes
    (0, p), p = 0–1023". Its steps and `waits_for` then hold for every member,
    with the member's ids put in ("recv from (0, p-1 mod 1024)")."""
    waits_on: tuple[int, ...] = ()
    """The traces (indices into the diagnostic's trace) holding processes this
    one's members wait for."""


@dataclass(frozen=True, slots=True)
class Diagnostic:
    code: str
    """Stable code, e.g. SHLO103."""
    name: str
    """Readable rule name naming the bad pattern, e.g. send-duplicate-source."""
    category: str
    """One of CATEGORIES."""
    severity: Severity
    message: str
    location: Location
    """Primary location (path + span)."""
    notes: tuple[Note, ...] = ()
    fix: Fix | None = None
    trace: tuple[ProcessTrace, ...] = ()
    help: str | None = None
    """A one-line suggestion ("help: ...")."""
    fingerprint: str | None = field(default=None, compare=False)
    """Stable identity across runs (SARIF partialFingerprints); set by the engine."""

    @property
    def path(self) -> str:
        return self.location.path

    @property
    def span(self) -> Span | None:
        return self.location.span

    # 1-based, end exclusive, as in JSON; set by the engine for the file it linted
    # (None for a whole-file problem, or a diagnostic made outside the engine).
    @property
    def line(self) -> int | None:
        return self.location.line

    @property
    def column(self) -> int | None:
        return self.location.column

    @property
    def end_line(self) -> int | None:
        return self.location.end_line

    @property
    def end_column(self) -> int | None:
        return self.location.end_column

    def note(self, location: Location, message: str) -> "Diagnostic":
        return replace(self, notes=self.notes + (Note(location, message),))

    def with_fix(self, fix: Fix) -> "Diagnostic":
        return replace(self, fix=fix)

    def with_help(self, text: str) -> "Diagnostic":
        return replace(self, help=text)

    def with_trace(self, trace: list[ProcessTrace] | tuple[ProcessTrace, ...]) -> "Diagnostic":
        return replace(self, trace=tuple(trace))

    def with_severity(self, severity: Severity) -> "Diagnostic":
        return replace(self, severity=severity)
