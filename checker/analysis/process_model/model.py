"""The per-process event model of one trace under one matching semantics, and
its exact decision by propagation (see the package docstring)."""
from __future__ import annotations

import time
from collections import deque
from dataclasses import dataclass, field

from ..lazy_numpy import np  # imported on first use (lazy_numpy.py)

from ...ir.attributes import DenseElementsAttr, ReplicaGroupsAttr
from ...ir.core import Operation
from ..semantics import (CROSS_PARTITION, CROSS_REPLICA_AND_PARTITION, FLATTENED_IDS, Grid, channel_id, flag,
                         process_groups, replica_groups, source_target_pairs, strategy)
from ...ir import catalog
from ...ir.catalog import GROUP_KINDS
from ..tracer.structure import Structure, collective_kind, collective_op, op_label
from ..tracer.trace import Step, Trace
from ..tracer.tracer import TraceLimit

MATCHING = ("xla", "spec")
_TESSERA_STARTS = catalog.names(role=catalog.START, future="tessera")
"""Seed 003's collectives: their groups are written as flattened ids."""
"""How collective instances on different processes are matched:

* "spec": each op is its own collective; processes meet only at the same op.
* "xla": XLA's runtime meets collectives by kind, channel and process group:
  an all_reduce in each branch of a case, both on channel 1, meet and complete.
  Ops without a positive channel share one key per kind and group too (XLA's
  rendezvous op id is then the module's id, the same for every op of the
  module): two channel-less all_reduces over the same replicas meet wherever
  they are (docs/deadlock.md, "Measured against XLA:CPU").
"""


def xla_participants(grid: Grid, strat: str, group: list[tuple[int, int]]) -> tuple[int, ...]:
    """One process group as XLA's rendezvous key lists its devices (flattened ids,
    in order: XLA's GetParticipatingDevices). Only cross_replica_and_partition
    differs from the spec's order: XLA goes replica by replica (every partition of
    the first replica of the group, then the next), the spec partition by
    partition. Two ops meet on XLA only when these lists are equal: [[0, 1]] and
    [[1, 0]] do not (XLA:CPU aborts), a cross_replica_and_partition [[0]] and a
    flattened [[0, 1]] on 1x2 do (it completes)."""
    if strat == CROSS_REPLICA_AND_PARTITION:
        replicas = list(dict.fromkeys(r for r, _p in group))
        return tuple(r * grid.num_partitions + p for r in replicas for p in range(grid.num_partitions))
    return tuple(grid.flat(r, p) for r, p in group)


def xla_channel(channel: int | None) -> int | None:
    """The channel part of XLA's rendezvous key: the channel id when positive,
    else None for every op (a handle of 0 reads as no channel, and every
    channel-less collective of a module has the module's id)."""
    return channel if (channel or 0) > 0 else None

ISSUE_ORDER = """XLA's runtime issues every collective a process runs, synchronous or the
start of an async one, onto that process's communication stream in program
order (XLA:CPU turns async collectives into synchronous ones at the start's
place in the schedule; XLA:GPU enqueues the start on its collective stream,
where NCCL runs each communicator's collectives in issue order), and the k-th
collective a process issues meets the k-th of every other member: a start
waits for its peers where it is issued. docs/deadlock.md says where this was
read and what ran."""

# Event kinds (first field of an event tuple).
NOP, COLL, START, DONE, SEND, RECV, PERM, EXIT, UNRES = range(9)
_EVENT_NAMES = {NOP: "nop", COLL: "collective", START: "start", DONE: "done", SEND: "send", RECV: "recv",
                PERM: "permute", EXIT: "exit", UNRES: "unresolved"}


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
    """Talks to something outside this program (a host transfer, a channel declared
    in `external-channels`)."""
    problem: str | None = None
    """Why the model cannot use this op (a form it does not read)."""
    invalid: str | None = None
    """The op violates its own constraints (the constraint rules report it): the
    model does not guess what it would do."""


class Facts:
    def __init__(self, grid: Grid, struct: Structure, external_channels: frozenset[int] = frozenset()):
        self.grid = grid
        self.n = grid.size
        self.cache: dict[int, CommInfo] = {}
        self.partitions: dict[tuple, int] = {}
        self._compact: dict[tuple, tuple] = {}
        """(strategy, compact groups key) -> (groups, group_of, partition key) of valid groups."""
        self.external = {id(op) for op in struct.external}
        self.external_channels = external_channels
        """Channels declared (`external-channels`) to talk to another program: their
        sends and recvs are not matched here."""

    def silent(self, op: Operation) -> bool:
        """A collective whose every process group is the process alone: it waits
        for nobody and nobody waits for it (the tracer leaves it out)."""
        info = self.info(op)
        return (info.grouped and not info.problem and not info.invalid and info.group_of is not None
                and len(info.groups) == self.n)

    def meet_key(self, op: Operation) -> tuple | None:
        """How XLA's runtime matches `op` (key_of under "xla") where it is a
        rendezvous it can use, else None (the tracer's Tracer.meet_key)."""
        info = self.info(op)
        if info.problem or info.invalid or info.external or not rendezvous(info, "xla"):
            return None
        return key_of(info, "xla")

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
            info.external = id(op) in self.external or ch in self.external_channels
            if info.external:
                return info
            self._pairs(inner, info)
        elif kind == "collective_permute":
            self._pairs(inner, info)
            if not info.invalid:
                # Its process group too: XLA's runtime meets a permute as a
                # rendezvous of the whole group (see rendezvous()).
                self._groups(op, inner, info)
        elif kind in GROUP_KINDS:
            info.grouped = True
            self._groups(op, inner, info)
        else:
            info.problem = f"{op.name} is not a communication op the model knows"
        return info

    def _pairs(self, op: Operation, info: CommInfo) -> None:
        pairs = source_target_pairs(op)
        where = f"{op_label(op)} at line {line_of(op)}"
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
        # every pair in every replica (partition) at once: sources and targets are
        # distinct and inside the axis (checked above)
        s_ids = np.array(sources, dtype=np.int64)
        t_ids = np.array(targets, dtype=np.int64)
        if strategy(op) == CROSS_PARTITION:
            base = (np.arange(R, dtype=np.int64) * P)[:, None]  # type: ignore[operator]
            s_flat, t_flat = (base + s_ids).ravel(), (base + t_ids).ravel()
        else:
            base = np.arange(P, dtype=np.int64)[None, :]  # type: ignore[arg-type]
            s_flat, t_flat = (s_ids[:, None] * P + base).ravel(), (t_ids[:, None] * P + base).ravel()
        target[s_flat] = t_flat
        source[t_flat] = s_flat
        info.target, info.source = target, source

    def _groups(self, op: Operation, inner: Operation, info: CommInfo) -> None:
        grid = self.grid
        if op.name in _TESSERA_STARTS:
            strat, rows = FLATTENED_IDS, []
        else:
            if flag(inner, "use_global_device_ids") and not ((info.channel or 0) > 0):
                info.invalid = (f"{inner.name} at line {line_of(inner)} has use_global_device_ids without a "
                                f"positive channel_id: the spec defines no process groups")
                return
            strat = strategy(inner)
            attr = inner.attr("replica_groups")
            if isinstance(attr, ReplicaGroupsAttr):
                # A compact spelling (a 16,384-device module's thousand all-reduces
                # share a few): its groups are computed once per spelling and mode.
                key = (strat, attr.key)
                got = self._compact.get(key)
                if got is None:
                    self._group_arrays(inner, info, strat, [list(g) for g in attr.rows()])
                    if info.invalid is None:  # (an invalid one names its op: not shared)
                        self._compact[key] = (info.groups, info.group_of, info.partition_key)
                    return
                info.groups, info.group_of, info.partition_key = got
                return
            if attr is None:
                rows = []
            elif isinstance(attr, DenseElementsAttr):
                rows = replica_groups(inner)
                if rows is None:
                    info.problem = f"the replica_groups of {inner.name} at line {line_of(inner)} could not be read"
                    return
            else:
                info.problem = (f"the replica_groups of {inner.name} at line {line_of(inner)} are in a form the "
                                f"deadlock analysis does not read")
                return
        self._group_arrays(inner, info, strat, rows)

    def _group_arrays(self, inner: Operation, info: CommInfo, strat: str, rows: list[list[int]]) -> None:
        """info's groups, group_of and partition key from the groups as written (or `invalid`)."""
        grid = self.grid
        axis = grid.axis_size(strat) or 0
        ids = [i for row in rows for i in row]
        if len(set(ids)) != len(ids) or any(not (0 <= i < axis) for i in ids) or (ids and len(ids) != axis):
            info.invalid = (f"the replica_groups of the {op_label(inner)} at line {line_of(inner)} "
                            f"repeat, miss or exceed process ids")
            return
        # The groups in a canonical order (by their first member), so that two ops
        # with the same partition key (XLA's device lists, however the groups are
        # written: strategy, group order) number the same group alike.
        ordered = sorted((xla_participants(grid, strat, g) for g in process_groups(grid, strat, rows)), key=min)
        group_of = np.full(self.n, -1, dtype=np.int64)
        flat_groups = []
        for gi, g in enumerate(ordered):
            ids = np.array(sorted(g), dtype=np.int64)
            flat_groups.append(ids)
            group_of[ids] = gi
        info.groups, info.group_of = flat_groups, group_of
        info.partition_key = self.partitions.setdefault(tuple(ordered), len(self.partitions))


def line_of(op: Operation) -> int:
    return op.module.source.line_col(op.span.start)[0]


PERMUTE_RENDEZVOUS = """Under XLA's matching a collective_permute is a rendezvous of its whole
process group, like an all_reduce: XLA:CPU's collective thunk waits for every
device of the op's group (all partitions with a channel, all replicas
without), not only the pairs' ends, and aborts "expected 4 participants, 2
arrived" when a permute with pairs 0<->1 runs under `if partition_id < 2` on 4
partitions (corpus/deadlock/permute_branch_partial_group.mlir; docs/deadlock.md).
Under the spec's matching a permute waits only for its source."""


def rendezvous(info: CommInfo, matching: str) -> bool:
    """Whether the op is met as a rendezvous of its process group (PERMUTE_RENDEZVOUS)."""
    return info.grouped or (matching == "xla" and info.kind == "collective_permute"
                            and info.group_of is not None)


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

    def __init__(self, tr: Trace, facts: Facts, matching: str, *, max_events: int, deadline: float | None,
                 processes: int | None = None):
        self.trace = tr
        self.grid = tr.grid
        self.n = processes or tr.grid.size
        """The processes modelled: flattened ids 0..n-1, the whole grid unless
        `processes` says fewer (replicas.py: replica 0 of identical replicas,
        whose requirements never leave it)."""
        self.matching = matching
        self.issue_order = matching == "xla"
        """XLA's runtime (see ISSUE_ORDER): an async start is issued like a synchronous
        collective and waits there for its peers; its done waits for nothing more."""
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
        return key_of(info, self.matching)

    def _build(self, max_events: int) -> None:
        tr, facts = self.trace, self.facts
        total = 0
        for cls in tr.classes:
            procs = cls.processes if self.n == self.grid.size else cls.processes[cls.processes < self.n]
            if not len(procs):
                continue
            steps = [tr.steps[i] for i in cls.steps]
            infos = [facts.info(s.op) if s.role not in ("unresolved", "done") else None for s in steps]
            posmap = {s.index: k for k, s in enumerate(steps)}
            total += len(steps) * len(procs)
            if total > max_events:
                raise TraceLimit(f"more than {max_events} events over all processes (deadlock-max-events)")
            for k, p in enumerate(procs.tolist()):
                self._build_process(p, steps, infos, posmap)
                if (k & 15) == 15 and self.deadline is not None and time.monotonic() > self.deadline:
                    raise TraceLimit("the time limit (deadlock-timeout-ms) ran out while building the model")
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
                    waits = start[0] in (START, PERM) and not self.issue_order
                    ev.append((DONE, step.index, start) if waits else (NOP, step.index))
                continue
            if info.external:
                ev.append((NOP, step.index))
                continue
            if rendezvous(info, self.matching):
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
                ev.append((PERM, step.index, key, n, src, role == "start" and not self.issue_order))
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
        if t == COLL or (t == START and self.issue_order):
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
        if t == NOP or t == SEND or (t == START and not self.issue_order):
            return None
        if t == COLL or t == START:
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


def key_of(info: CommInfo, matching: str) -> tuple:
    """The matching key of a collective or permute (see MATCHING)."""
    if matching == "xla":
        return (info.kind, xla_channel(info.channel), info.partition_key)
    return ("op", id(info.op))

