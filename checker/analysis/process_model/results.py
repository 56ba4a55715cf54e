"""What the deadlock analysis returns: the verdict, each deadlock's blocked
processes and what they wait for (docs/deadlock.md, "API")."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ...ir.core import Operation
from ..tracer.trace import Step, Trace
from .lanes import Phrase

@dataclass(frozen=True)
class Wait:
    """One thing a blocked process waits for."""

    process: tuple[int, int]
    """The process it waits for."""
    state: str
    """"blocked" (that process is blocked too), "finished" (it ended without
    getting there), "never" (its trace has no matching op), "unresolved"."""
    at: Step | None
    """Where that process is blocked or stopped (None when it finished)."""
    need: Operation | None
    """The op it would have to reach (the matching send, the collective), when it has one."""
    text: str
    """In words: "process (0, 7) to send on channel 1 (it is blocked at recv, line 9)"."""


@dataclass(frozen=True)
class Blocked:
    """A process that can never continue."""

    process: tuple[int, int]
    step: Step | None
    """Where it is blocked (None: it reached the end, waiting for its sends to be received)."""
    op: Operation
    """The op it is blocked at (for a process stuck at its end: the send never received)."""
    what: str
    """"all_reduce", "recv from (0, 3) on channel 1", "end (its send is never received)"."""
    waits_for: tuple[Wait, ...]
    completed: tuple[Step, ...]
    """The communication steps it completed before, in order (the replayable prefix;
    steps that were no-ops for this process, e.g. a recv it is no target of, left out)."""
    completed_what: tuple[str, ...] = ()
    """For each completed step, what it did ("send to (0, 1) on channel 1")."""
    hint: tuple[Operation, str] | None = None
    """A near miss worth pointing at: the send on another channel, ..."""
    at_end: bool = False
    """True when the process reached the end of its program and waits there for
    a send of its (`op`) to be received (XLA's send-done)."""
    waits_more: int = 0
    """Processes it also waits for, left out of `waits_for` (a collective over a
    large group lists the first few members that never arrive)."""
    completed_phrases: tuple[Phrase, ...] = ()
    """`completed_what` with the processes it names kept apart (lanes.py words
    classes of processes from them)."""
    what_phrase: Phrase | None = None
    """`what`, likewise."""
    waits_phrase: Phrase | None = None
    """Everything it waits for, every process named (not cut like `waits_for`),
    grouped by what those processes do instead: "processes (0, 1)–(0, 3) to reach
    this collective; they finished without getting there"."""
    never_arrive: tuple[tuple[int, int], ...] = ()
    """Every process it waits for that never gets there (it finished, or its
    trace has no matching op)."""
    never_states: frozenset[str] = frozenset()
    """What those do instead: "finished", "never" (no matching op), or both."""
    lacks: str = ""
    """For a recv or a send that is never received: what its peer lacks, in
    words ("(0, 0) never sends to it on channel 1")."""


@dataclass(frozen=True)
class Peer:
    """A process a blocked one waits for that is not blocked itself."""

    process: tuple[int, int]
    state: str
    """"finished" or "unresolved"."""
    completed: tuple[Step, ...]
    completed_what: tuple[str, ...] = ()
    completed_phrases: tuple[Phrase, ...] = ()
    """`completed_what` with the processes it names kept apart."""


@dataclass
class Deadlock:
    """One group of processes that wait forever, with its counterexample."""

    kind: str
    """"cycle" (they wait for each other) or "missing-peer" (someone they wait for
    never arrives: it finished, or its trace has no matching op)."""
    blocked: list[Blocked]
    """Every process of the group, by flattened id."""
    chain: list[tuple[int, int]]
    """The waits that make it: for a cycle, p0 waits for p1 ... waits for p0; for a
    missing peer, the waiting process then the peer that never arrives."""
    core: list[str] = field(default_factory=list)
    """The unsat core (Z3's names for the waits that close the cycle), when extracted."""
    peers: list[Peer] = field(default_factory=list)
    """What the processes that never arrive did instead: every process a member
    waits for that is not blocked itself (it finished, or stopped being followed)."""
    orders: list[tuple[tuple[int, int], tuple[tuple[Step, str], ...]]] = field(default_factory=list)
    """When processes issue collectives in different orders: for one process of
    each order, the collectives it issues (completed, blocked, next), in order."""

    @property
    def processes(self) -> list[tuple[int, int]]:
        return [b.process for b in self.blocked]

    @property
    def ops(self) -> list[Operation]:
        """The distinct ops processes are blocked at, in program text order."""
        seen: dict[int, Operation] = {}
        for b in self.blocked:
            seen.setdefault(id(b.op), b.op)
        return sorted(seen.values(), key=lambda o: o.span.start)


@dataclass
class XlaMatch:
    """Collectives at different ops that meet only because XLA matches kind + channel."""

    kind: str
    channel: int | None
    ops: list[Operation]
    processes: dict[int, list[tuple[int, int]]]
    """id(op) → the processes that executed that op for the instance."""


@dataclass
class Verdict:
    status: str
    """"deadlock-free", "deadlock" or "unknown"."""
    matching: str
    """The matching semantics the status is for ("xla" or "spec")."""
    method: str = ""
    """How it was decided: "structure", "z3-classes", "propagation", "none"."""
    reason: str | None = None
    """Unknown: why; otherwise a short account of the proof."""
    deadlocks: list[Deadlock] = field(default_factory=list)
    xla_only: list[XlaMatch] = field(default_factory=list)
    """Under "xla": collectives that complete only because XLA matched different
    ops (a deadlock under the spec's matching)."""
    spec_deadlocks: list[Deadlock] = field(default_factory=list)
    """Under "xla" with xla_only: the deadlock the spec's matching finds."""
    unresolved: list[Step] = field(default_factory=list)
    skipped: bool = False
    """Unknown because the analysis was not run (a limit such as max-processes)."""
    invalid_only: bool = False
    """Unknown only because ops violate their own constraints (reported by the
    constraint rules; the deadlock rules stay quiet)."""
    trace: Trace | None = None
    stats: dict[str, Any] = field(default_factory=dict)
    schedule: Any = None
    """A schedule.Reorder when the deadlock needs an issue order XLA's scheduler
    may choose (not the order written); `trace` is then that order's trace."""
    completes_with: Any = None
    """A schedule.Reorder in which the program completes, when the deadlock is in
    the order written: XLA's scheduler may choose that order instead."""
    replicas: int = 1
    """More than 1: the grid is that many identical replicas that never talk to
    each other (replicas.py), decided on replica 0: the processes the deadlocks,
    peers and XLA matches name are replica 0's, and replica r has the same with
    (0, p) read as (r, p)."""
    meetings: list[Any] = field(default_factory=list)
    """Under "xla", deadlock-free: the executions that meet although they are
    different steps (meets.Meeting): other ops, or the same op at another
    iteration (SHLO506-508)."""

    @property
    def schedule_dependent(self) -> bool:
        """A deadlock in some issue orders XLA's scheduler may choose and not in
        others (SHLO505, a warning): which one XLA picks is its heuristics' call
        (docs/deadlock.md, "Measured against XLA:CPU")."""
        return self.status == "deadlock" and (self.schedule is not None or self.completes_with is not None)

    @property
    def ok(self) -> bool:
        return self.status == "deadlock-free"

