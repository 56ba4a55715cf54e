"""Can every process run to completion? (SPEC-NOTES §5)

The model, over the per-process traces of checker/spmd.py:

* a collective completes when every member of its process group has *reached*
  the same collective instance: the n-th occurrence of its matching key on each
  member (the key is the op itself under the spec's matching, or kind + channel +
  process groups under XLA's, see `MATCHING`);
* a recv at t from s completes once s has reached its n-th send s→t on that
  channel (the n-th send pairs with the n-th recv: JAX gives every op channel 1,
  so the channel alone is not a key); a send never blocks, but a process only
  finishes once each of its sends has been received (XLA's send-done);
* a collective_permute sends to its target without blocking and completes once
  its source has reached the same permute (a process that is no target waits
  for nobody); its send must be received like a send's;
* an async start never blocks; its done completes once every peer has reached
  the start;
* program order within a process.

As constraints: one integer time X(p, i) per event i of process p, X(p, i) >
X(p, i-1), and for every requirement "q has reached its event j",
X(p, i) > X(q, j-1); a requirement on an event q never executes is false. The
program runs to completion iff this difference system is satisfiable.

How it is decided, cheapest first:

1. `Structure.uniform` (no communication under control flow, no send/recv):
   deadlock-free by construction, nothing beyond op names is read.
2. The class quotient: processes with the same steps (checker/spmd.py) share
   one set of Z3 variables, whatever the grid size. The quotient maps every
   per-process constraint to a class-level one, so SAT proves the program
   deadlock-free for all processes with one small Z3 query.
3. Otherwise (UNSAT: the quotient merged processes a chain tells apart; or the
   Z3 time limit), the per-process system is decided exactly by propagation
   (a difference system whose edges all have weight 1 is satisfiable iff
   propagating "reached" to a fixpoint completes every process: linear time).
   The blocked processes it leaves form the counterexample; for a cycle of up
   to `core-limit` processes, Z3's unsat core over their waits gives the chain
   that closes the cycle.

`analyze(module, grid, options)` returns a `Verdict`; see docs/deadlock.md.
"""
from __future__ import annotations

import time
from collections import deque
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .attributes import DenseElementsAttr
from .ir import Module, Operation
from .semantics import (CROSS_PARTITION, CROSS_REPLICA, FLATTENED_IDS, Grid, channel_id, flag, process_groups,
                        replica_groups, source_target_pairs, strategy)
from .spmd import (GROUP_KINDS, TESSERA_STARTS, Step, Structure, Trace, TraceLimit, collective_kind, collective_op,
                   structure, trace)

MATCHING = ("xla", "spec")
"""How collective instances on different processes are matched:

* "spec": each op is its own collective; processes meet only at the same op.
* "xla": XLA's runtime meets collectives by kind, channel and process group
  (an op without a positive channel is still its own collective): an all_reduce
  in each branch of a case, both on channel 1, meet and complete.
"""

DEFAULTS: dict[str, Any] = {
    "z3-timeout-ms": 5000,
    "deadlock-timeout-ms": 20000,
    "deadlock-matching": "xla",
    "deadlock-max-trips": 4096,
    "deadlock-max-steps": 200_000,
    "deadlock-max-events": 4_000_000,
    "deadlock-core-limit": 64,
}
"""Options (`-O key=value`, `[tool.shlo-lint.options]`) and their defaults."""

# Event kinds (first field of an event tuple).
NOP, COLL, START, DONE, SEND, RECV, PERM, EXIT, UNRES = range(9)
_EVENT_NAMES = {NOP: "nop", COLL: "collective", START: "start", DONE: "done", SEND: "send", RECV: "recv",
                PERM: "permute", EXIT: "exit", UNRES: "unresolved"}


# =========================================================================== results
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


@dataclass(frozen=True)
class Peer:
    """A process a blocked one waits for that is not blocked itself."""

    process: tuple[int, int]
    state: str
    """"finished" or "unresolved"."""
    completed: tuple[Step, ...]
    completed_what: tuple[str, ...] = ()


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
    """For a missing peer: what the processes that never arrive did instead."""

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
    invalid_only: bool = False
    """Unknown only because ops violate their own constraints (reported by the
    constraint rules; the deadlock rules stay quiet)."""
    trace: Trace | None = None
    stats: dict[str, Any] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return self.status == "deadlock-free"


# =========================================================================== op facts
@dataclass
class CommInfo:
    """What the model needs of one communication op, per process (flattened ids)."""

    op: Operation
    kind: str
    channel: int | None
    grouped: bool = False
    groups: list[np.ndarray] = field(default_factory=list)
    group_of: np.ndarray | None = None
    partition_key: int = -1
    """Identifies the op's whole group partition (for XLA matching)."""
    target: np.ndarray | None = None
    source: np.ndarray | None = None
    external: bool = False
    """Talks to something outside this program (host transfer, a one-sided channel)."""
    problem: str | None = None
    """Why the model cannot use this op (a form it does not read)."""
    invalid: str | None = None
    """The op violates its own constraints (the constraint rules report it): the
    model does not guess what it would do."""


class _Facts:
    def __init__(self, grid: Grid, struct: Structure):
        self.grid = grid
        self.n = grid.size
        self.cache: dict[int, CommInfo] = {}
        self.partitions: dict[tuple, int] = {}
        self.external = {id(op) for op in struct.external}

    def info(self, op: Operation) -> CommInfo:
        got = self.cache.get(id(op))
        if got is None:
            got = self.cache[id(op)] = self._build(op)
        return got

    def _build(self, op: Operation) -> CommInfo:
        inner = collective_op(op)
        kind = collective_kind(op)
        ch = channel_id(inner)
        info = CommInfo(op, kind, ch)
        if kind in ("send", "recv"):
            if flag(inner, "is_host_transfer"):
                info.external = True
                return info
            info.external = id(op) in self.external
            self._pairs(inner, info)
        elif kind == "collective_permute":
            self._pairs(inner, info)
        elif kind in GROUP_KINDS:
            info.grouped = True
            self._groups(op, inner, info)
        else:
            info.problem = f"{op.name} is not a communication op the model knows"
        return info

    def _pairs(self, op: Operation, info: CommInfo) -> None:
        pairs = source_target_pairs(op)
        where = f"{op.name.rsplit('.', 1)[-1]} at line {_line(op)}"
        if pairs is None:
            info.invalid = f"the source_target_pairs of the {where} are malformed"
            return
        R, P = self.grid.num_replicas, self.grid.num_partitions
        axis = P if strategy(op) == CROSS_PARTITION else R
        sources = [s for s, _t in pairs]
        targets = [t for _s, t in pairs]
        if not pairs and info.kind != "collective_permute":
            info.invalid = f"the {where} has no source_target_pairs"
        elif len(set(sources)) != len(sources) or len(set(targets)) != len(targets):
            info.invalid = f"the {where} repeats a source or a target"
        elif any(not (0 <= i < axis) for i in sources + targets):  # type: ignore[operator]
            info.invalid = f"the {where} names a process id outside the grid"
        if info.invalid:
            return
        target = np.full(self.n, -1, dtype=np.int64)
        source = np.full(self.n, -1, dtype=np.int64)
        if strategy(op) == CROSS_PARTITION:
            for s, t in pairs:
                if 0 <= s < P and 0 <= t < P:
                    for r in range(R):  # type: ignore[arg-type]
                        target[r * P + s] = r * P + t
                        source[r * P + t] = r * P + s
        else:
            for s, t in pairs:
                if 0 <= s < R and 0 <= t < R:
                    for p in range(P):  # type: ignore[arg-type]
                        target[s * P + p] = t * P + p
                        source[t * P + p] = s * P + p
        info.target, info.source = target, source

    def _groups(self, op: Operation, inner: Operation, info: CommInfo) -> None:
        grid = self.grid
        if op.name in TESSERA_STARTS:
            strat, rows, literal = FLATTENED_IDS, [], ""
        else:
            if flag(inner, "use_global_device_ids") and not ((info.channel or 0) > 0):
                info.invalid = (f"{inner.name} at line {_line(inner)} has use_global_device_ids without a "
                                f"positive channel_id: the spec defines no process groups")
                return
            strat = strategy(inner)
            attr = inner.attr("replica_groups")
            if attr is None:
                rows, literal = [], ""
            elif isinstance(attr, DenseElementsAttr):
                rows = replica_groups(inner)
                literal = attr.literal
                if rows is None:
                    info.problem = f"the replica_groups of {inner.name} at line {_line(inner)} could not be read"
                    return
            else:
                info.problem = (f"the replica_groups of {inner.name} at line {_line(inner)} are in a form the "
                                f"deadlock analysis does not read")
                return
        key = (strat, literal)
        axis = grid.axis_size(strat) or 0
        ids = [i for row in rows for i in row]
        if len(set(ids)) != len(ids) or any(not (0 <= i < axis) for i in ids) or (ids and len(ids) != axis):
            info.invalid = (f"the replica_groups of the {inner.name.rsplit('.', 1)[-1]} at line {_line(inner)} "
                            f"repeat, miss or exceed process ids")
            return
        groups = process_groups(grid, strat, rows)
        group_of = np.full(self.n, -1, dtype=np.int64)
        flat_groups = []
        for gi, g in enumerate(groups):
            ids = np.array(sorted({grid.flat(r, p) for r, p in g}), dtype=np.int64)
            flat_groups.append(ids)
            group_of[ids] = gi
        info.groups, info.group_of = flat_groups, group_of
        info.partition_key = self.partitions.setdefault(key, len(self.partitions))


def _line(op: Operation) -> int:
    return op.module.source.line_col(op.span.start)[0]


# =========================================================================== the model
class _Instance:
    """One collective (or async start) instance: its members and who has reached it."""

    __slots__ = ("members", "size", "pos", "arrived", "waiters", "ops", "info")

    def __init__(self, members: np.ndarray, info: CommInfo):
        self.members = members
        self.size = len(members)
        self.pos: dict[int, int] = {}
        self.arrived = 0
        self.waiters: list[int] = []
        self.ops: dict[int, Operation] = {}
        self.info = info


class Model:
    """Per-process events for one trace under one matching semantics, and their
    exact decision by propagation."""

    def __init__(self, tr: Trace, facts: _Facts, matching: str, *, max_events: int, deadline: float | None):
        self.trace = tr
        self.grid = tr.grid
        self.n = tr.grid.size
        self.matching = matching
        self.facts = facts
        self.deadline = deadline
        self.events: list[list[tuple]] = [[] for _ in range(self.n)]
        self.send_pos: list[dict] = [{} for _ in range(self.n)]
        self.recv_pos: list[dict] = [{} for _ in range(self.n)]
        self.perm_pos: list[dict] = [{} for _ in range(self.n)]
        self.instances: dict[tuple, _Instance] = {}
        self.truncated = np.zeros(self.n, dtype=bool)
        self._build(max_events)

    # -- events ---------------------------------------------------------------------
    def _key(self, info: CommInfo) -> tuple:
        if self.matching == "xla" and (info.channel or 0) > 0:
            return (info.kind, info.channel, info.partition_key)
        return ("op", id(info.op))

    def _build(self, max_events: int) -> None:
        tr, facts = self.trace, self.facts
        total = 0
        for cls in tr.classes:
            steps = [tr.steps[i] for i in cls.steps]
            infos = [facts.info(s.op) if s.role not in ("unresolved", "done") else None for s in steps]
            posmap = {s.index: k for k, s in enumerate(steps)}
            total += len(steps) * len(cls.processes)
            if total > max_events:
                raise TraceLimit(f"more than {max_events} events over all processes (deadlock-max-events)")
            for p in cls.processes.tolist():
                self._build_process(p, steps, infos, posmap)
            if self.deadline is not None and time.monotonic() > self.deadline:
                raise TraceLimit("the time limit (deadlock-timeout-ms) ran out while building the model")

    def _build_process(self, p: int, steps: list[Step], infos: list, posmap: dict[int, int]) -> None:
        ev: list[tuple] = self.events[p]
        counters: dict = {}
        sends: list[tuple] = []
        for pos, (step, info) in enumerate(zip(steps, infos)):
            role = step.role
            if role == "unresolved":
                ev.append((UNRES, step.index, step.reason, False))
                self.truncated[p] = True
                break
            if info is not None and (info.problem or info.invalid):
                ev.append((UNRES, step.index, info.invalid or info.problem, info.invalid is not None))
                self.truncated[p] = True
                break
            if role == "done":
                ids = step.future
                sid = int(ids[p]) if isinstance(ids, np.ndarray) else int(ids)
                spos = posmap.get(sid)
                if sid < 0:
                    ev.append((NOP, step.index))
                elif spos is None or spos >= pos:
                    ev.append((UNRES, step.index, "its future was started on another path", False))
                    self.truncated[p] = True
                    break
                else:
                    start = ev[spos]
                    ev.append((DONE, step.index, start) if start[0] in (START, PERM) else (NOP, step.index))
                continue
            if info.external:
                ev.append((NOP, step.index))
                continue
            if info.grouped:
                g = int(info.group_of[p])
                if g < 0:
                    ev.append((NOP, step.index))
                    continue
                key = self._key(info)
                n = counters[key] = counters.get(key, -1) + 1
                ikey = (key, g, n)
                inst = self.instances.get(ikey)
                if inst is None:
                    inst = self.instances[ikey] = _Instance(info.groups[g], info)
                inst.pos[p] = pos
                inst.ops.setdefault(id(step.op), step.op)
                ev.append((COLL if role == "collective" else START, step.index, inst))
                continue
            kind = info.kind
            if kind == "collective_permute":
                key = self._key(info)
                n = counters[key] = counters.get(key, -1) + 1
                self.perm_pos[p][(key, n)] = pos
                src, tgt = int(info.source[p]), int(info.target[p])
                if tgt >= 0:
                    sends.append((PERM, tgt, (key, n), pos))
                ev.append((PERM, step.index, key, n, src, role == "start"))
            elif kind == "send":
                tgt = int(info.target[p])
                if tgt < 0:
                    ev.append((NOP, step.index))
                    continue
                ck = ("s", tgt, info.channel)
                n = counters[ck] = counters.get(ck, -1) + 1
                self.send_pos[p][(tgt, info.channel, n)] = pos
                sends.append((SEND, tgt, (p, info.channel, n), pos))
                ev.append((SEND, step.index, tgt, info.channel, n))
            elif kind == "recv":
                src = int(info.source[p])
                if src < 0:
                    ev.append((NOP, step.index))
                    continue
                ck = ("r", src, info.channel)
                n = counters[ck] = counters.get(ck, -1) + 1
                self.recv_pos[p][(src, info.channel, n)] = pos
                ev.append((RECV, step.index, src, info.channel, n))
            else:  # pragma: no cover - _Facts marks these as problems
                ev.append((NOP, step.index))
        if not self.truncated[p]:
            ev.append((EXIT, -1, sends))

    # -- requirements -------------------------------------------------------------------
    def requirements(self, p: int, e: tuple) -> list[tuple[int, int | None]]:
        """What event `e` of process p needs: (q, j) = "q has reached its event j";
        (q, None) = q must reach an event it does not have."""
        t = e[0]
        if t == COLL:
            inst = e[2]
            return [(q, inst.pos.get(q)) for q in inst.members.tolist() if q != p]
        if t == DONE:
            start = e[2]
            if start[0] == START:
                inst = start[2]
                return [(q, inst.pos.get(q)) for q in inst.members.tolist() if q != p]
            return self._perm_req(start)
        if t == PERM and not e[5]:
            return self._perm_req(e)
        if t == RECV:
            _k, _i, s, ch, n = e
            return [(s, self.send_pos[s].get((p, ch, n)))]
        if t == EXIT:
            out = []
            for kind, tgt, key, _pos in e[2]:
                table = self.recv_pos[tgt] if kind == SEND else self.perm_pos[tgt]
                out.append((tgt, table.get(key)))
            return out
        return []

    def _perm_req(self, e: tuple) -> list[tuple[int, int | None]]:
        _k, _i, key, n, src, _start = e
        if src < 0:
            return []
        return [(src, self.perm_pos[src].get((key, n)))]

    # -- propagation ----------------------------------------------------------------------
    def propagate(self) -> list[int]:
        """Run every process as far as it can go; returns the final positions
        (len(events[p]) = finished). Monotone, so the result does not depend on the
        order processes are run in."""
        n = self.n
        events = self.events
        pos = [0] * n
        waiting_at: list[dict[int, list[int]]] = [{} for _ in range(n)]
        queue: deque[int] = deque(range(n))
        for p in range(n):
            self._arrive(p, 0, pos, waiting_at, queue)
        steps = 0
        while queue:
            p = queue.popleft()
            ev = events[p]
            while True:
                i = pos[p]
                if i >= len(ev):
                    break
                e = ev[i]
                wait = self._blocker(p, e, pos)
                if wait is None:
                    pos[p] = i + 1
                    self._arrive(p, i + 1, pos, waiting_at, queue)
                    steps += 1
                    if (steps & 8191) == 0 and self.deadline is not None and time.monotonic() > self.deadline:
                        raise TraceLimit("the time limit (deadlock-timeout-ms) ran out while deciding")
                    continue
                if wait is not False:
                    if isinstance(wait, _Instance):
                        wait.waiters.append(p)
                    else:
                        q, j = wait
                        waiting_at[q].setdefault(j, []).append(p)
                break
        return pos

    def _arrive(self, p: int, j: int, pos: list[int], waiting_at, queue) -> None:
        ev = self.events[p]
        if j < len(ev):
            e = ev[j]
            if e[0] == COLL or e[0] == START:
                inst = e[2]
                inst.arrived += 1
                if inst.arrived == inst.size and inst.waiters:
                    queue.extend(inst.waiters)
                    inst.waiters = []
        woken = waiting_at[p].pop(j, None)
        if woken:
            queue.extend(woken)

    def _blocker(self, p: int, e: tuple, pos: list[int]):
        """None: e can complete now; False: it never can (or is unresolved);
        an _Instance or (q, j) to wait on."""
        t = e[0]
        if t == NOP or t == SEND or t == START:
            return None
        if t == COLL:
            inst = e[2]
            return None if inst.arrived == inst.size else (inst if len(inst.pos) == inst.size else False)
        if t == DONE:
            start = e[2]
            if start[0] == START:
                inst = start[2]
                return None if inst.arrived == inst.size else (inst if len(inst.pos) == inst.size else False)
            return self._perm_blocker(start, pos)
        if t == PERM:
            return None if e[5] else self._perm_blocker(e, pos)
        if t == RECV:
            _k, _i, s, ch, n = e
            j = self.send_pos[s].get((p, ch, n))
            if j is None:
                return False
            return None if pos[s] >= j else (s, j)
        if t == EXIT:
            for kind, tgt, key, _pos in e[2]:
                table = self.recv_pos[tgt] if kind == SEND else self.perm_pos[tgt]
                j = table.get(key)
                if j is None:
                    return False
                if pos[tgt] < j:
                    return (tgt, j)
            return None
        return False  # UNRES

    def _perm_blocker(self, e: tuple, pos: list[int]):
        _k, _i, key, n, src, _start = e
        if src < 0:
            return None
        j = self.perm_pos[src].get((key, n))
        if j is None:
            return False
        return None if pos[src] >= j else (src, j)


# =========================================================================== Z3
def _key_of(info: CommInfo, matching: str) -> tuple:
    """The matching key of a collective or permute (see MATCHING)."""
    if matching == "xla" and (info.channel or 0) > 0:
        return (info.kind, info.channel, info.partition_key)
    return ("op", id(info.op))


def class_constraints(tr: Trace, facts: "_Facts", matching: str):
    """The model's constraints on the class quotient, computed per class step with
    numpy over the class's processes (no per-process event list is built).

    Returns (lengths, constraints): lengths[c] = events of class c (its steps and
    its end), constraints = {(c, i, c2, j)}: X(c, i) > X(c2, j). Returns a string
    (why) when some requirement can never hold, None when the quotient does not
    apply (unresolved steps, ops the model cannot use)."""
    n = tr.grid.size
    class_of = tr.class_of
    data = []
    channels: dict = {}
    for cls in tr.classes:
        steps = [tr.steps[k] for k in cls.steps]
        infos: list[CommInfo | None] = []
        for st in steps:
            if st.role == "unresolved":
                return None
            info = None if st.role == "done" else facts.info(st.op)
            if info is not None and (info.problem or info.invalid):
                return None
            if info is not None:
                channels.setdefault(info.channel, len(channels))
            infos.append(info)
        occ: dict[tuple, list[int]] = {}
        nth = []
        for i, info in enumerate(infos):
            if info is not None and (info.grouped or info.kind == "collective_permute"):
                lst = occ.setdefault(_key_of(info, matching), [])
                nth.append(len(lst))
                lst.append(i)
            else:
                nth.append(-1)
        data.append((cls.processes, steps, infos, {st.index: i for i, st in enumerate(steps)}, occ, nth))
    nch = max(1, len(channels))
    span = max(len(d[1]) for d in data) + 2 if data else 2
    cons: list[tuple] = []
    arrays: list[np.ndarray] = []

    def need(c: int, i: int, classes: np.ndarray, key: tuple, k: int) -> str | None:
        for c2 in np.unique(classes).tolist():
            lst = data[c2][4].get(key)
            if lst is None or len(lst) <= k:
                return "a peer never reaches the matching collective"
            j = lst[k]
            if j >= 1:
                cons.append((c, i, c2, j - 1))
        return None

    def ranked(entries: list[tuple[int, np.ndarray, np.ndarray]]):
        """(step, pair key per event, extra) → the occurrence rank of each pair key,
        in step order."""
        if not entries:
            return []
        allk = np.concatenate([k for _i, k, _x in entries])
        order = np.argsort(allk, kind="stable")
        srt = allk[order]
        new = np.r_[True, srt[1:] != srt[:-1]]
        starts = np.flatnonzero(new)
        grp = np.cumsum(new) - 1
        rank = np.empty_like(allk)
        rank[order] = np.arange(len(allk)) - starts[grp]
        out, at = [], 0
        for i, k, x in entries:
            out.append((i, k, x, rank[at:at + len(k)]))
            at += len(k)
        return out

    send_tab: list[tuple[np.ndarray, int, int]] = []  # (key*span+rank, class, position)
    recv_tab: list[tuple[np.ndarray, int, int]] = []
    send_q: list[tuple[int, np.ndarray]] = []          # (class, key*span+rank) looked up in recv_tab
    recv_q: list[tuple[int, int, np.ndarray]] = []     # (class, position, key*span+rank) in send_tab
    for c, (procs, steps, infos, posmap, occ, nth) in enumerate(data):
        end = len(steps)
        sends, recvs = [], []
        for i, (st, info) in enumerate(zip(steps, infos)):
            if st.role == "done":
                fut = st.future
                sids = np.unique(fut[procs]).tolist() if isinstance(fut, np.ndarray) else [int(fut)]
                for sid in sids:
                    if sid < 0:
                        continue
                    spos = posmap.get(sid)
                    if spos is None or spos >= i:
                        return None
                    sinfo = infos[spos]
                    who = procs[fut[procs] == sid] if isinstance(fut, np.ndarray) else procs
                    key = _key_of(sinfo, matching)  # type: ignore[arg-type]
                    if sinfo.grouped:  # type: ignore[union-attr]
                        members = np.isin(sinfo.group_of, np.unique(sinfo.group_of[who]))  # type: ignore[union-attr]
                        why = need(c, i, class_of[members], key, nth[spos])
                    else:
                        src = sinfo.source[who]  # type: ignore[union-attr]
                        why = need(c, i, class_of[src[src >= 0]], key, nth[spos])
                    if why:
                        return why
                continue
            if info is None or info.external:
                continue
            key = _key_of(info, matching) if nth[i] >= 0 else None
            if info.grouped:
                if st.role == "collective":
                    members = np.isin(info.group_of, np.unique(info.group_of[procs]))
                    why = need(c, i, class_of[members], key, nth[i])  # type: ignore[arg-type]
                    if why:
                        return why
            elif info.kind == "collective_permute":
                src = info.source[procs]
                if st.role != "start":
                    why = need(c, i, class_of[src[src >= 0]], key, nth[i])  # type: ignore[arg-type]
                    if why:
                        return why
                tgt = info.target[procs]
                why = need(c, end, class_of[tgt[tgt >= 0]], key, nth[i])  # type: ignore[arg-type]
                if why:
                    return why
            elif info.kind == "send":
                tgt = info.target[procs]
                ok = tgt >= 0
                chi = channels[info.channel]
                sends.append((i, (procs[ok] * n + tgt[ok]) * nch + chi, tgt[ok]))
            elif info.kind == "recv":
                src = info.source[procs]
                ok = src >= 0
                chi = channels[info.channel]
                recvs.append((i, (src[ok] * n + procs[ok]) * nch + chi, src[ok]))
        for i, k, _t, r in ranked(sends):
            send_tab.append((k * span + r, c, i))
            send_q.append((c, k * span + r))
        for i, k, _s, r in ranked(recvs):
            recv_tab.append((k * span + r, c, i))
            recv_q.append((c, i, k * span + r))

    def table(rows):
        if not rows:
            return np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0, np.int64)
        keys = np.concatenate([k for k, _c, _i in rows])
        cs = np.concatenate([np.full(len(k), c) for k, c, _i in rows])
        ps = np.concatenate([np.full(len(k), i) for k, _c, i in rows])
        order = np.argsort(keys, kind="stable")
        return keys[order], cs[order], ps[order]

    def lookup(tab, q: np.ndarray):
        keys, cs, ps = tab
        if len(q) == 0:
            return np.zeros(0, np.int64), np.zeros(0, np.int64), True
        at = np.searchsorted(keys, q)
        at_c = np.minimum(at, max(len(keys) - 1, 0))
        found = (at < len(keys)) & (keys[at_c] == q) if len(keys) else np.zeros(len(q), bool)
        return cs[at_c], ps[at_c], bool(found.all())

    stab, rtab = table(send_tab), table(recv_tab)
    for c, i, q in recv_q:  # each recv needs its send
        cs, ps, ok = lookup(stab, q)
        if not ok:
            return "a recv has no matching send"
        arrays.append(np.stack([np.full(len(q), c), np.full(len(q), i), cs, ps - 1], axis=1)[ps >= 1])
    for c, q in send_q:  # each process ends after its sends are received
        cs, ps, ok = lookup(rtab, q)
        if not ok:
            return "a send has no matching recv"
        end = len(data[c][1])
        arrays.append(np.stack([np.full(len(q), c), np.full(len(q), end), cs, ps - 1], axis=1)[ps >= 1])
    out = set(cons)
    if arrays:
        allc = np.unique(np.concatenate(arrays), axis=0) if any(len(a) for a in arrays) else []
        out.update(tuple(int(x) for x in row) for row in allc)
    lengths = {c: len(d[1]) + 1 for c, d in enumerate(data)}
    return lengths, out


def _z3_classes(tr: Trace, facts: "_Facts", matching: str, timeout_ms: int, stats: dict) -> str:
    """The class quotient in Z3: one variable per (class, event). Returns "sat"
    (deadlock-free for every process), "unsat" (inconclusive: decide per process),
    "unknown" (time limit) or "n/a" (the quotient does not apply)."""
    import z3

    got = class_constraints(tr, facts, matching)
    if got is None:
        return "n/a"
    if isinstance(got, str):
        stats["quotient"] = got
        return "unsat"
    lengths, cons = got
    s = z3.Solver()
    s.set("timeout", max(1, int(timeout_ms)))
    xs = {c: [z3.Int(f"x_{c}_{i}") for i in range(n)] for c, n in lengths.items()}
    for vs in xs.values():
        for a, b in zip(vs, vs[1:]):
            s.add(b > a)
    for c, i, c2, j in cons:
        s.add(xs[c][i] > xs[c2][j])
    r = s.check()
    stats["quotient"] = {"classes": len(xs), "variables": sum(lengths.values()), "constraints": len(cons)}
    return "sat" if r == z3.sat else "unsat" if r == z3.unsat else "unknown"


def _z3_core(model: Model, cycle: list[int], final: list[int], timeout_ms: int) -> list[tuple[int, int]] | None:
    """The waits that close a cycle, from Z3's unsat core over the cycle's processes:
    each must complete the event it is blocked at. Returns (p, q) edges or None."""
    import z3

    members = set(cycle)
    s = z3.Solver()
    s.set("timeout", max(1, int(timeout_ms)))
    s.set("core.minimize", True)
    xs: dict[tuple[int, int], Any] = {}

    def x(p: int, i: int):
        v = xs.get((p, i))
        if v is None:
            v = xs[(p, i)] = z3.Int(f"x_{p}_{i}")
        return v

    labels: dict[str, tuple[int, int]] = {}
    upto = {p: final[p] for p in members}
    for p in members:
        i = final[p]
        for q, j in model.requirements(p, model.events[p][i]):
            if q not in members or j is None or j < 1 or j - 1 < final[q]:
                continue  # satisfied, or outside the cycle
            name = f"w_{p}_{q}"
            if name in labels:
                continue
            labels[name] = (p, q)
            upto[q] = max(upto[q], j - 1)
            s.assert_and_track(x(p, i) > x(q, j - 1), z3.Bool(name))
    for p, last in upto.items():
        for i in range(1, last + 1):
            s.add(x(p, i) > x(p, i - 1))
    if s.check() != z3.unsat:
        return None
    return [labels[str(b)] for b in s.unsat_core() if str(b) in labels]


# =========================================================================== analysis
def options_of(options: dict[str, Any] | None) -> dict[str, Any]:
    """DEFAULTS overridden by `options`; raises ValueError for a bad value."""
    out = dict(DEFAULTS)
    for k, v in (options or {}).items():
        if k in out:
            out[k] = v
    for k in ("z3-timeout-ms", "deadlock-timeout-ms", "deadlock-max-trips", "deadlock-max-steps",
              "deadlock-max-events", "deadlock-core-limit"):
        try:
            out[k] = int(out[k])
        except (TypeError, ValueError):
            raise ValueError(f"option {k} = {out[k]!r} is not an integer") from None
        if out[k] < 0:
            raise ValueError(f"option {k} = {out[k]} is negative")
    m = str(out["deadlock-matching"]).lower()
    if m not in MATCHING:
        raise ValueError(f"option deadlock-matching = {out['deadlock-matching']!r} is not one of "
                         f"{', '.join(MATCHING)}")
    out["deadlock-matching"] = m
    return out


def analyze(module: Module, grid: Grid, options: dict[str, Any] | None = None, *,
            struct: Structure | None = None) -> Verdict:
    """Decide whether the module's entry function runs to completion on every
    process of `grid` (see the module docstring). Never raises for a program;
    ValueError for a bad option."""
    opts = options_of(options)
    matching = opts["deadlock-matching"]
    t0 = time.monotonic()
    deadline = t0 + opts["deadlock-timeout-ms"] / 1000.0
    struct = struct or structure(module)
    if not struct.communicates:
        return Verdict("deadlock-free", matching, "structure", "no communication", stats=_stats(t0))
    if struct.uniform:
        return Verdict("deadlock-free", matching, "structure",
                       "every process runs the same collectives in the same order (none under control flow, "
                       "no send/recv)", stats=_stats(t0))
    if not grid.known:
        return Verdict("unknown", matching, "none", "the process grid is unknown", stats=_stats(t0))
    try:
        tr = trace(module, grid, struct, max_trips=opts["deadlock-max-trips"],
                   max_steps=opts["deadlock-max-steps"], deadline=deadline)
    except TraceLimit as e:
        return Verdict("unknown", matching, "none", str(e), stats=_stats(t0))
    except RecursionError:
        return Verdict("unknown", matching, "none", "the program nests deeper than the tracer follows",
                       stats=_stats(t0))
    except KeyError:
        return Verdict("unknown", matching, "none", "no entry function", stats=_stats(t0))
    facts = _Facts(grid, struct)
    try:
        verdict = _decide(tr, facts, matching, opts, deadline)
        if matching == "xla" and verdict.status == "deadlock-free":
            spec = _decide(tr, facts, "spec", opts, deadline)
            if spec.status == "deadlock":
                model = Model(tr, facts, "xla", max_events=opts["deadlock-max-events"], deadline=deadline)
                verdict.xla_only = _xla_matches(model)
                verdict.spec_deadlocks = spec.deadlocks
    except TraceLimit as e:
        return Verdict("unknown", matching, "none", str(e), trace=tr, stats=_stats(t0))
    verdict.trace = tr
    verdict.stats.update(_stats(t0), classes=len(tr.classes), steps=len(tr.steps))
    return verdict


def _stats(t0: float) -> dict[str, Any]:
    return {"seconds": round(time.monotonic() - t0, 4)}


def _decide(tr: Trace, facts: _Facts, matching: str, opts: dict, deadline: float) -> Verdict:
    stats: dict[str, Any] = {}
    remaining = max(1, int((deadline - time.monotonic()) * 1000))
    q = _z3_classes(tr, facts, matching, min(opts["z3-timeout-ms"], remaining), stats)
    stats["z3_classes"] = q
    if q == "sat":
        return Verdict("deadlock-free", matching, "z3-classes",
                       f"Z3 found a schedule for the {len(tr.classes)} process class(es)", stats=stats)
    if time.monotonic() > deadline:
        raise TraceLimit("the time limit (deadlock-timeout-ms) ran out while deciding")
    model = Model(tr, facts, matching, max_events=opts["deadlock-max-events"], deadline=deadline)
    stats["events"] = sum(len(e) for e in model.events)
    final = model.propagate()
    return _verdict_from(model, final, matching, opts, deadline, stats)


def _xla_matches(model: Model) -> list[XlaMatch]:
    out = []
    P = model.grid.num_partitions
    for inst in model.instances.values():
        if len(inst.ops) > 1:
            by_op: dict[int, list[tuple[int, int]]] = {}
            for q, j in inst.pos.items():
                step = model.trace.steps[model.events[q][j][1]]
                by_op.setdefault(id(step.op), []).append(divmod(q, P))
            ops = sorted(inst.ops.values(), key=lambda o: o.span.start)
            out.append(XlaMatch(inst.info.kind, inst.info.channel, ops, by_op))
    # collective_permutes: the n-th of a key on each process
    perms: dict[tuple, dict[int, tuple[Operation, list[tuple[int, int]]]]] = {}
    for q in range(model.n):
        for kn, j in model.perm_pos[q].items():
            op = model.trace.steps[model.events[q][j][1]].op
            perms.setdefault(kn, {}).setdefault(id(op), (op, []))[1].append(divmod(q, P))
    for (key, _n), seen in perms.items():
        if len(seen) > 1 and key[0] != "op":
            ops = sorted((op for op, _ps in seen.values()), key=lambda o: o.span.start)
            out.append(XlaMatch("collective_permute", key[1], ops, {k: ps for k, (_op, ps) in seen.items()}))
    return out


def _verdict_from(model: Model, final: list[int], matching: str, opts: dict, deadline: float,
                  stats: dict) -> Verdict:
    tr = model.trace
    n = model.n
    lens = [len(e) for e in model.events]
    unres = [p for p in range(n) if final[p] < lens[p] and model.events[p][final[p]][0] == UNRES]
    blocked = [p for p in range(n) if final[p] < lens[p] and model.events[p][final[p]][0] != UNRES]
    unresolved_steps = []
    for p in unres:
        step = tr.steps[model.events[p][final[p]][1]]
        if step not in unresolved_steps:
            unresolved_steps.append(step)
    invalid_only = bool(unres) and all(model.events[p][final[p]][3] for p in unres)
    if not blocked:
        if unres:
            reason = _unres_reason(model, unres)
            return Verdict("unknown", matching, "propagation", reason, unresolved=unresolved_steps,
                           invalid_only=invalid_only, stats=stats)
        return Verdict("deadlock-free", matching, "propagation",
                       "every process runs to completion (exact per-process propagation)", stats=stats)
    # Which blocked processes could still be freed by what unresolved processes do?
    needs: dict[int, list[tuple[int, int | None]]] = {}
    for p in blocked:
        e = model.events[p][final[p]]
        needs[p] = [(q, j) for q, j in model.requirements(p, e) if j is None or final[q] < j]
    possible = set(unres)
    changed = True
    while changed:
        changed = False
        for p in blocked:
            if p in possible:
                continue
            if needs[p] and all(q in possible or (j is None and model.truncated[q]) for q, j in needs[p]):
                possible.add(p)
                changed = True
    stuck = [p for p in blocked if p not in possible]
    if not stuck:
        return Verdict("unknown", matching, "propagation", _unres_reason(model, unres),
                       unresolved=unresolved_steps, invalid_only=invalid_only, stats=stats)
    deadlocks = _counterexamples(model, final, stuck, needs, opts, deadline)
    return Verdict("deadlock", matching, "propagation", None, deadlocks, unresolved=unresolved_steps, stats=stats)


def _unres_reason(model: Model, unres: list[int]) -> str:
    tr = model.trace
    reasons: dict[str, list[int]] = {}
    for p in unres:
        e = model.events[p][[k for k, ev in enumerate(model.events[p]) if ev[0] == UNRES][0]]
        step = tr.steps[e[1]]
        where = f"{step.op.name.rsplit('.', 1)[-1]} at line {_line(step.op)}"
        reasons.setdefault(f"{where}: {e[2]}", []).append(p)
    parts = [f"{text} ({_plist([divmod(p, model.grid.num_partitions) for p in ps])})"
             for text, ps in reasons.items()]
    return "; ".join(parts[:3]) + (f"; and {len(parts) - 3} more" if len(parts) > 3 else "")


# =========================================================================== counterexamples
def _counterexamples(model: Model, final: list[int], stuck: list[int], needs, opts, deadline) -> list[Deadlock]:
    stuck_set = set(stuck)
    lens = [len(e) for e in model.events]
    parent = {p: p for p in stuck}

    def find(a: int) -> int:
        while parent[a] != a:
            parent[a] = parent[parent[a]]
            a = parent[a]
        return a

    for p in stuck:
        for q, _j in needs[p]:
            if q in stuck_set:
                ra, rb = find(p), find(q)
                if ra != rb:
                    parent[max(ra, rb)] = min(ra, rb)
    comps: dict[int, list[int]] = {}
    for p in stuck:
        comps.setdefault(find(p), []).append(p)

    def missing(p: int) -> list[int]:
        """Peers that never reach what p waits for (they finished, or have no such op)."""
        return [q for q, j in needs[p] if j is None and not model.truncated[q]]

    groups: dict[tuple, list[list[int]]] = {}
    for members in comps.values():
        members.sort()
        kind = "missing-peer" if any(missing(p) for p in members) else "cycle"
        sig = (kind, frozenset(model.events[p][final[p]][1] for p in members))
        groups.setdefault(sig, []).append(members)
    out = []
    for (kind, _sig), comp_list in sorted(groups.items(), key=lambda kv: min(kv[1][0])):
        first = comp_list[0]
        members = sorted(p for c in comp_list for p in c)
        core: list[str] = []
        if kind == "cycle":
            chain = _cycle(first, needs, stuck_set)
            if len(chain) <= opts["deadlock-core-limit"] and time.monotonic() < deadline:
                remaining = max(1, int((deadline - time.monotonic()) * 1000))
                edges = _z3_core(model, chain, final, min(opts["z3-timeout-ms"], remaining))
                if edges:
                    ordered = _order_cycle(edges)
                    if ordered:
                        chain = ordered
                    core = [f"process {_pl(model, p)} waits for {_pl(model, q)}" for p, q in edges]
        else:
            root = next(p for p in first if missing(p))
            chain = [root] + missing(root)[:1]
        blocked = [_blocked(model, p, final, lens, needs[p], stuck_set) for p in members]
        P = model.grid.num_partitions
        peers = [_peer(model, q, final) for q in chain if q not in stuck_set]
        out.append(Deadlock(kind, blocked, [divmod(p, P) for p in chain], core, peers))
    return out


def _cycle(members: list[int], needs, stuck_set: set[int]) -> list[int]:
    """Follow each process's first stuck peer from the lowest id until a process repeats."""
    p = members[0]
    seen: dict[int, int] = {}
    order: list[int] = []
    while p not in seen:
        seen[p] = len(order)
        order.append(p)
        nxt = [q for q, j in needs[p] if q in stuck_set and j is not None]
        if not nxt:
            return order
        p = min(nxt, key=lambda q: (q in seen, q))
    return order[seen[p]:]


def _order_cycle(edges: list[tuple[int, int]]) -> list[int] | None:
    succ: dict[int, int] = {}
    for p, q in edges:
        succ.setdefault(p, q)
    if not succ:
        return None
    start = min(succ)
    out = [start]
    p = succ[start]
    while p != start:
        if p not in succ or p in out or len(out) > len(succ):
            return None
        out.append(p)
        p = succ[p]
    return out


def _pl(model: Model, p: int) -> str:
    r, q = divmod(p, model.grid.num_partitions)
    return f"({r}, {q})"


def _plist(procs: list[tuple[int, int]], limit: int = 4) -> str:
    """"(0, 1), (0, 2), (0, 3) and 4 more"."""
    names = [f"({r}, {p})" for r, p in procs]
    if len(names) <= limit:
        return ", ".join(names)
    return ", ".join(names[:limit - 1]) + f" and {len(names) - limit + 1} more"


def _blocked(model: Model, p: int, final: list[int], lens: list[int], need, stuck_set: set[int]) -> Blocked:
    tr = model.trace
    P = model.grid.num_partitions
    ev = model.events[p]
    i = final[p]
    e = ev[i]
    done_events = [x for x in ev[:i] if x[0] not in (NOP, EXIT, UNRES)]
    completed = tuple(tr.steps[x[1]] for x in done_events)
    completed_what = tuple(_event_text(model, p, x) for x in done_events)
    step = tr.steps[e[1]] if e[0] != EXIT else None
    waits = []
    for q, j in need:
        qe = model.events[q]
        cur = qe[final[q]] if final[q] < lens[q] else None
        at = tr.steps[cur[1]] if cur is not None and cur[0] != EXIT else None
        if j is None:
            state = "unresolved" if model.truncated[q] else "never" if final[q] < lens[q] else "finished"
        elif q in stuck_set:
            state = "blocked"
        elif cur is not None and cur[0] == UNRES:
            state = "unresolved"
        else:
            state = "blocked"
        if cur is None:
            at = None
        need_op = tr.steps[qe[j][1]].op if j is not None and j < len(qe) and qe[j][0] != EXIT else None
        waits.append(Wait(divmod(q, P), state, at, need_op, _wait_text(model, p, e, q, j, state, at)))
    if e[0] == EXIT:
        unmet = [(k, tgt, key, spos) for k, tgt, key, spos in e[2]
                 if (model.recv_pos[tgt] if k == SEND else model.perm_pos[tgt]).get(key) is None
                 or final[tgt] < (model.recv_pos[tgt] if k == SEND else model.perm_pos[tgt])[key]]
        spos = unmet[0][3] if unmet else (len(ev) - 2)
        send_step = tr.steps[ev[spos][1]]
        op = send_step.op
        what = (f"{send_step.op.name.rsplit('.', 1)[-1]} to {_pl(model, unmet[0][1]) if unmet else '?'}, "
                f"never received")
        step = send_step
    else:
        op = step.op  # type: ignore[union-attr]
        what = _event_text(model, p, e)
    return Blocked(divmod(p, P), step, op, what, tuple(waits), completed, completed_what,
                   _hint(model, p, e, need), at_end=e[0] == EXIT)


def _hint(model: Model, p: int, e: tuple, need) -> tuple[Operation, str] | None:
    """A recv with no send: a send from the same source to p on another channel."""
    if e[0] != RECV or not any(j is None for _q, j in need):
        return None
    _k, _i, s, ch, _n = e
    for info in model.facts.cache.values():
        if info.kind == "send" and info.target is not None and info.channel != ch and int(info.target[s]) == p:
            return (info.op, f"process {_pl(model, s)} sends to {_pl(model, p)} here, on channel {info.channel}: "
                             f"the channels differ")
    return None


def _peer(model: Model, q: int, final: list[int]) -> Peer:
    ev = model.events[q]
    state = "finished" if final[q] >= len(ev) else "unresolved"
    done_events = [x for x in ev[:final[q]] if x[0] not in (NOP, EXIT, UNRES)]
    return Peer(divmod(q, model.grid.num_partitions), state,
                tuple(model.trace.steps[x[1]] for x in done_events),
                tuple(_event_text(model, q, x) for x in done_events))


def _event_text(model: Model, p: int, e: tuple) -> str:
    tr = model.trace
    step = tr.steps[e[1]]
    kind = step.op.name.rsplit(".", 1)[-1]
    t = e[0]
    if t == RECV:
        return f"{kind} from {_pl(model, e[2])} on channel {e[3]}"
    if t == SEND:
        return f"{kind} to {_pl(model, e[2])} on channel {e[3]}"
    if t == PERM:
        src = f"from {_pl(model, e[4])}" if e[4] >= 0 else "receives nothing"
        return f"{kind} ({src})"
    if t == START:
        inst = e[2]
        return f"{kind} (channel {inst.info.channel}, group of {inst.size})"
    if t == DONE:
        start = tr.steps[e[2][1]]
        return f"{kind} of the {start.op.name.rsplit('.', 1)[-1]} at line {_line(start.op)}"
    if t == COLL:
        inst = e[2]
        return f"{kind} (channel {inst.info.channel}, group of {inst.size})"
    return kind


def _wait_text(model: Model, p: int, e: tuple, q: int, j: int | None, state: str, at: Step | None) -> str:
    who = f"process {_pl(model, q)}"
    t = e[0]
    if t == RECV:
        goal = f"{who} to send on channel {e[3]}"
    elif t == EXIT:
        goal = f"{who} to receive what it sent"
    elif t == COLL:
        goal = f"{who} to reach this collective"
    elif t == DONE:
        goal = f"{who} to start the collective"
    else:
        goal = f"{who} to reach this collective_permute"
    if state == "finished":
        return f"{goal}; it finished without getting there"
    if state == "never":
        return f"{goal}; it never executes a matching op"
    if state == "unresolved" and at is not None:
        return f"{goal}; it stopped being followed at line {_line(at.op)}"
    if at is not None:
        return f"{goal}; it is blocked at {at.op.name.rsplit('.', 1)[-1]} (line {_line(at.op)})"
    return goal
