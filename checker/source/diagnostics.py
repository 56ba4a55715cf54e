"""The diagnostic: what every rule, analysis and parse error produces, and all a
reporter reads. Frozen values; `note`/`with_fix`/... return copies."""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from enum import Enum

from .text import Span

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
    """A place in some file: the path plus a span of it (or a 1-based line:col where
    the file is not one we read, e.g. the Python line from a loc())."""

    path: str
    span: Span | None = None
    line: int | None = None
    column: int | None = None


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
