"""The data a per-process communication trace is made of (tracer.py builds it):
`Step` (one communication event and the processes that execute it),
`ProcessClass` (processes with the same steps) and `Trace` (every process's
communication for one entry function); the process model and the execution
checker read them.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from ...ir.core import Operation
from ..lazy_numpy import np  # imported on first use (lazy_numpy.py)
from ..semantics import Grid
from ..uniform import Divergence, UniformDecision
from .structure import op_label


# --------------------------------------------------------------------------- steps
@dataclass(slots=True, eq=False)
class Step:
    """One communication event, executed by the processes of `mask`."""

    index: int
    """Position in Trace.steps."""
    op: Operation
    role: str
    """One of ROLES, or "unresolved" (the processes stop being followed here)."""
    mask: np.ndarray
    """bool[N]: which processes (by flattened id) execute it."""
    context: tuple[tuple[Operation, str], ...] = ()
    """Enclosing control flow, outermost first: (while op, "iteration 3"), (case op, "branch 1")."""
    future: object = None
    """For a done: the index of the start Step per process (int, or int[N]); -1 for none."""
    reason: str | None = None
    """For an unresolved step: why."""
    block: int = -1
    """Which execution of a block the op ran in directly (one id per region run:
    a branch taken, a loop iteration, a call): steps with the same block share one
    XLA schedule, steps in different ones are ordered by different schedules."""

    def where(self) -> str:
        """"iteration 3 of the while at line 12, branch 1 of the case at line 20"."""
        parts = []
        if not self.context:
            return ""
        src = self.op.module.source
        for op, label in reversed(self.context):
            line = src.line_col(op.span.start)[0]
            parts.append(f"{label} of the {op_label(op)} at line {line}")
        return ", ".join(parts)


@dataclass
class LoopSummary:
    """A while whose last iterations repeated exactly: the trace holds the steps of
    the iterations followed; the others were counted (tracer._summarised_trips)."""

    op: Operation
    followed: int
    """Iterations whose steps are in the trace."""
    trips: int
    """Iterations in all (the same for every process of `processes`)."""
    processes: np.ndarray
    """bool[N]: the processes that ran them."""


@dataclass
class Alternative:
    """A collective in branch 0 of a `case` on per-device data whose every branch
    issues the same collectives under XLA's matching (kind, channel, device
    list, in the same order): the tracer follows branch 0 for every process,
    and `others` are the ops the other branches run in its place, which meet
    it where processes take different branches (process_model/meets.py)."""

    case: Operation
    step: Step
    """Branch 0's step."""
    others: tuple[tuple[int, Operation], ...]
    """(branch, the op at the same position of that branch)."""


@dataclass
class ProcessClass:
    """Processes that execute exactly the same steps."""

    processes: np.ndarray
    """Flattened ids, ascending."""
    steps: list[int]
    """Indices into Trace.steps, in program order."""


@dataclass
class Trace:
    """Every process's communication, for one entry function."""

    grid: Grid
    entry: str
    steps: list[Step]
    class_of: np.ndarray
    """int[N]: the class of each flattened process id."""
    classes: list[ProcessClass]
    unresolved: list[Step] = field(default_factory=list)
    branches: dict[int, tuple[Operation, object, np.ndarray]] = field(default_factory=dict)
    """id(case/if op) → (op, branch index per process (int or int[N]), mask of the
    processes that ran it), from the first time it ran."""

    loops: dict[int, tuple[Operation, np.ndarray]] = field(default_factory=dict)
    """id(while op) → (op, iterations per process), summed over its executions."""
    uniform: list[UniformDecision] = field(default_factory=list)
    """Branches and loops decided by a value uniform over every communicator they
    guard: each branch (a representative trip count) was followed for all."""
    divergent: list[Divergence] = field(default_factory=list)
    """Branches and loops whose index / predicate is per-device data that can split
    a communicator they guard (SHLO504)."""
    summaries: list[LoopSummary] = field(default_factory=list)
    """Loops whose identical iterations were counted, not followed."""
    alternatives: list[Alternative] = field(default_factory=list)
    """Collectives of branches on per-device data that XLA's matching meets
    whichever branch each process takes (see Alternative)."""

    def branch_of(self, op: Operation) -> dict[int, list[int]] | None:
        """Branch → the flattened ids that took it (first execution of `op`)."""
        got = self.branches.get(id(op))
        if got is None:
            return None
        _op, idx, mask = got
        out: dict[int, list[int]] = {}
        for p in np.flatnonzero(mask).tolist():
            b = int(idx[p]) if isinstance(idx, np.ndarray) else int(idx)
            out.setdefault(b, []).append(p)
        return out

    def steps_of(self, process: int | tuple[int, int]) -> list[Step]:
        """The steps one process executes, in order (flattened id or (replica, partition))."""
        flat = self.grid.flat(*process) if isinstance(process, tuple) else process
        return [self.steps[i] for i in self.classes[int(self.class_of[flat])].steps]
