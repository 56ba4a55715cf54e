"""What a rule gets besides the op: where to point, how to say it, the grid."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..source.diagnostics import Diagnostic, Location, Note, Severity
from ..ir.core import Module, Operation, user_column
from .registry import RuleSpec
from ..analysis.semantics import Grid
from ..source.text import SourceFile, Span


PER_OP = "op"
ANALYSIS = "analysis"


@dataclass(frozen=True)
class CacheKey:
    """A `Context.cache` key that says what its entry is, for the editor's re-lint as
    you type (editor/incremental): a rule that reads a plain (string) key has read
    module-wide state, so its findings on an op depend on more than the op."""

    name: str
    scope: str
    """`PER_OP`: a memo of one op's own attributes (keyed by the op), so reading it
    reads nothing but that op. `ANALYSIS`: the memo of a whole-program analysis,
    which whoever reads it computes again when it is missing (the module op's rules
    may write it and still be carried over)."""


STRUCTURE_KEY = CacheKey("tracer.structure", ANALYSIS)
"""The module's tracer Structure (analysis/tracer/structure.py `structure_of`): the
deadlock verdict and the communication table share one."""


class Context:
    """Shared by every rule run on one module; `spec` is the rule being run."""

    def __init__(self, module: Module, grid: Grid, options: dict[str, Any] | None = None):
        self.module = module
        self.source: SourceFile = module.source
        self.grid = grid
        self.options = options or {}
        self.spec = None
        self.cache: dict[Any, Any] = {}
        """Per-module memo for whole-program analyses shared by several rules, keyed
        by a name (module-wide state) or a CacheKey that says more."""

    # -- the rule running, and whether it read the grid --------------------------------
    @property
    def spec(self) -> RuleSpec | None:
        return self._spec

    @spec.setter
    def spec(self, value: RuleSpec | None) -> None:
        self._spec = value
        self._grid_read = False

    @property
    def grid(self) -> Grid:
        """The process grid; reading it marks the running rule's findings as depending on it."""
        self._grid_read = True
        return self._grid

    @grid.setter
    def grid(self, value: Grid) -> None:
        self._grid = value
        self._grid_note: Note | None | bool = False  # not computed yet

    def grid_note(self) -> Note | None:
        """Where the grid was set from the command line or the configuration and the
        module declares another one: a note saying so, at the module's attribute
        (findings that follow from the grid otherwise read as the module's own errors)."""
        if self._grid_note is False:
            self._grid_note = None
            g, root = self._grid, self.module.root
            declared = [(f"mhlo.{name}", n) for name, n, used in (
                ("num_replicas", self.module.num_replicas, g.num_replicas),
                ("num_partitions", self.module.num_partitions, g.num_partitions))
                if g.source == "config" and n is not None and n != used]
            if declared and root is not None:
                used = f"{g.num_replicas} replica{'s' if g.num_replicas != 1 else ''} x {g.num_partitions} " \
                       f"partition{'s' if g.num_partitions != 1 else ''}"
                says = " and ".join(f"{attr} = {n}" for attr, n in declared)
                self._grid_note = Note(
                    Location(self.source.path, self.attr_span(root, declared[0][0])),
                    f"the grid, {used}, comes from --num-partitions / --num-replicas or the configuration; "
                    f"the module declares {says}")
        return self._grid_note

    # -- locations ---------------------------------------------------------------
    def span(self, where: Any) -> Span:
        if isinstance(where, Span):
            return where
        if isinstance(where, Operation):
            return where.name_span
        span = getattr(where, "span", None)
        if isinstance(span, Span):
            return span
        return Span(0, 0)

    def loc(self, where: Any) -> Location:
        return Location(self.source.path, self.span(where))

    def attr_span(self, op: Operation, name: str) -> Span:
        """Where attribute `name`'s value is written, else the op's name."""
        a = op.attr(name)
        span = getattr(a, "span", None)
        return span if isinstance(span, Span) else op.name_span

    def python_note(self, op: Operation) -> Note | None:
        """The user's source line this op came from (its loc), as a note."""
        frames = op.python_frames
        if not frames:
            return None
        f = frames[0]
        return Note(Location(f.file, None, f.line, user_column(f)), "this op was written here")

    # -- diagnostics ---------------------------------------------------------------
    def diag(self, where: Any, message: str, *, op: Operation | None = None,
             severity: Severity | str | None = None, help: str | None = None) -> Diagnostic:
        spec = self.spec
        assert spec is not None, "Context.diag called outside a rule"
        if spec.spec and f"({spec.spec})" not in message:
            message = f"{message} ({spec.spec})"
        op = op if op is not None else (where if isinstance(where, Operation) else None)
        notes: tuple[Note, ...] = ()
        if op is not None and (note := self.python_note(op)) is not None:
            notes = (note,)
        if (self._grid_read or spec.category == "deadlock") and (note := self.grid_note()) is not None:
            notes += (note,)
        sev = Severity(severity) if severity is not None else spec.severity
        return Diagnostic(spec.code, spec.name, spec.category, sev, message, self.loc(where), notes, help=help)

    def error(self, where: Any, message: str, **kw) -> Diagnostic:
        return self.diag(where, message, severity=Severity.ERROR, **kw)

    def warning(self, where: Any, message: str, **kw) -> Diagnostic:
        return self.diag(where, message, severity=Severity.WARNING, **kw)

    def info(self, where: Any, message: str, **kw) -> Diagnostic:
        return self.diag(where, message, severity=Severity.INFO, **kw)

    def option(self, name: str, default: Any) -> Any:
        return self.options.get(name, default)
