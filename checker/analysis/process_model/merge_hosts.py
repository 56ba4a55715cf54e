"""Every host's program: one decision over the signatures of the hosts of a
multi-controller job (issue 23; docs/hosts.md).

Each host traces and compiles its own program, and each of its devices runs
it. `decide(hosts)` takes one `HostProgram` per host (its signature.Signature,
which holds the devices it runs) and decides the merged system exactly as the
process model decides one program under XLA's matching:

1. hosts whose programs have the same normalized text run one program: when
   every host does, nothing can differ between them (the program's own
   problems are `shlo-lint check`'s);
2. otherwise the hosts are grouped by signature shape (everything but the
   devices): each shape's steps are made once and its classes hold the devices
   of every host with that shape, so a job of many alike hosts is decided on a
   few classes (the class quotient, quotient.py), and the per-device model
   (model.py) is built only when that cannot prove it;
3. the verdict of the order written: devices that wait forever (SHLO510), and
   collectives of different hosts' programs that meet (meets.meetings) but
   compute differently: another reduction, other sizes, another operand
   (SHLO511);
4. where the written order fails, the issue orders XLA's scheduler may choose
   for collectives that do not depend on each other, in one host's computation
   at a time (and in every computation alike to it, schedule.py's twins): when
   one of them agrees, the finding is SHLO512 (a warning: the compiled HLO of
   each host decides; scheduled HLO is never reordered);
5. hosts that differ only where no other host is involved get SHLO513 (info).

The findings are `HostFinding`s that name hosts and signature ops; the `hosts`
command (cli) and `shlo_lint.check_hosts` turn the same findings into
diagnostics, each with its own way to locate an op, so they cannot disagree.
What the runtimes do where hosts differ was measured in real jax.distributed
jobs (corpus/hosts/README.md); the words below cite those runs.
"""
from __future__ import annotations

import re
import time
from dataclasses import dataclass, field
from typing import Any

from ..lazy_numpy import np  # imported on first use (lazy_numpy.py)

from ..semantics import Grid
from ..tracer.trace import ProcessClass, Step, Trace
from ..tracer.tracer import TraceLimit
from .decide import options_of
from .meets import Computes, meetings
from .model import COLL, EXIT, PERM, RECV, SEND, START, UNRES, CommInfo, Facts, Model
from .quotient import linear_classes
from .schedule import Reorder, variant
from .signature import SigOp, Signature

CODES = {"deadlock": "SHLO510", "differ": "SHLO511", "schedule": "SHLO512", "local": "SHLO513",
         "not-checked": "SHLO514", "undecided": "SHLO515"}
"""The hosts rules (rules/hosts.py documents them)."""

MAX_VARIANTS = 16
"""Issue orders tried (one decision each)."""
WINDOW = 8
"""Earlier collectives of its computation each one is tried against."""
MAX_CROSSINGS = 4
"""SHLO511 findings per decision (one per pair of ops)."""
MAX_LANES = 8
LANE_WAITS = 256
"""Devices of a lane whose waits are listed (a lane of 16k devices: the first ones)."""

HANG = ("on XLA:CPU over gloo (measured; docs/hosts.md): the job never ends and nothing is "
        "printed; XLA:CPU's gloo collectives wait 30 minutes")
NEW_GROUP = ("on XLA:CPU over gloo (measured; docs/hosts.md): a collective over a group no earlier collective "
             "used fails after 30 s instead, when gloo sets up its communicator: \"Gloo context initialization "
             "failed: DEADLINE_EXCEEDED: GetKeyValue() timed out\"")
MIXTURE = ("on XLA:CPU over gloo (measured; docs/hosts.md): gloo's ring reduces each chunk of the buffer "
           "with one process's function, so every host ends with the same chunk-wise mixture ([sum, sum, max, max] "
           "for 4 elements on 2 hosts), which neither program asks for; the job completes")
ABORT = ("on XLA:CPU over gloo (measured; docs/hosts.md): the process that receives more bytes than it expects "
         "aborts (\"Received data size doesn't match expected size. Is there a distributed collective mismatch\"), "
         "and its peers fail or are terminated by the coordination service")
CROSSED = ("on XLA:CPU over gloo (measured; docs/hosts.md): the "
           "collectives exchange their data and the job completes: host 0's a = psum(x) received host 1's 3x "
           "(a = x0 + 3 x1), and the hosts' results disagree")
TYPES = ("on XLA:CPU over gloo (measured; docs/hosts.md): the job completes and every host holds the same "
         "chunk-wise mixture, each chunk reduced as one process's type (for 4 elements on 2 hosts: 0-1 summed as "
         "f32, 2-3 as int32), which neither program asks for")
UNPAIRED = ("on XLA:CPU over gloo (measured; docs/hosts.md): a device whose send or receive the partner's program "
            "does not pair with it waits forever, and the job never ends; devices whose pairs match complete")
NOT_MEASURED = "what the runtimes do then was not measured"
GPU = "on GPUs (NCCL): not run here (no GPU)"
SCHEDULE = ("on XLA:CPU over gloo (measured; docs/hosts.md): XLA put the collectives in the same order on both hosts "
            "wherever the hosts' outputs were laid out alike (the combiner follows the data flow, not the trace), "
            "and crossed them where not: silently for equal sizes, with an abort for different sizes. The compiled "
            "HLO of each host (`compiled.as_text()`) decides: give it to `shlo-lint hosts` or `check_hosts`")


class HostsInputError(ValueError):
    """The hosts cannot be put together (the `hosts` command exits 2 with it)."""


@dataclass
class HostProgram:
    """One host of the job: its name in messages and its program's signature."""

    name: str
    signature: Signature
    path: str | None = None
    """The file its program was read from (names its lines where an op has no
    Python line), None for a program that is no file."""


def _at(hosts: list[HostProgram], op: SigOp) -> str:
    """Where an op is, in words: its Python line, else the line of its host's file."""
    if op.python:
        return op.where()
    path = hosts[op.host].path if 0 <= op.host < len(hosts) else None
    return f"{path.rsplit('/', 1)[-1]}:{op.line}" if path else op.where()


@dataclass
class HostNote:
    host: int | None
    op: SigOp | None
    text: str


@dataclass
class Lane:
    """Devices of some hosts with the same story: what they completed, where they
    stopped (`op`, None when they finished), and what they wait for."""

    label: str
    hosts: list[int]
    devices: np.ndarray
    completed: list[tuple[int, SigOp, str]]
    """(host, op, where) of the last communication they completed."""
    op: SigOp | None
    host: int
    state: str
    """"blocked", "finished" or "unresolved"."""
    waits: str = ""
    where: str = ""


@dataclass
class HostFinding:
    code: str
    severity: str
    message: str
    host: int | None
    op: SigOp | None
    notes: list[HostNote] = field(default_factory=list)
    lanes: list[Lane] = field(default_factory=list)
    help: str = ""


@dataclass
class HostsVerdict:
    status: str
    """"same program", "agree" (programs differ, communication agrees), "differ"
    (a finding of SHLO510-512), "undecided"."""
    findings: list[HostFinding] = field(default_factory=list)
    stats: dict[str, Any] = field(default_factory=dict)


# --------------------------------------------------------------------------- facts
class SignatureFacts(Facts):
    """The process model's facts about signature ops (model.Facts reads them from
    IR ops; here they come with the op): device lists from the signatures'
    group tables, numbered alike across hosts (one partition key per list)."""

    def __init__(self, grid: Grid, groups_of: dict[int, list]):
        self.grid = grid
        self.n = grid.size
        self.cache: dict[int, CommInfo] = {}
        self.partitions: dict[tuple, int] = {}
        self.external: set[int] = set()
        self.external_channels: frozenset[int] = frozenset()
        self.groups_of = groups_of
        """id(op) → the group table of its signature."""

    def silent(self, op) -> bool:
        return False

    def _build(self, op: SigOp) -> CommInfo:
        info = CommInfo(op, op.kind, op.channel)  # type: ignore[arg-type]
        info.external = op.external
        if op.problem:
            info.problem = op.problem
            return info
        n = self.n
        if op.pairs is not None:
            target = np.full(n, -1, dtype=np.int64)
            source = np.full(n, -1, dtype=np.int64)
            for s, t in op.pairs:
                if 0 <= s < n and 0 <= t < n:
                    target[s], source[t] = t, s
            info.target, info.source = target, source
        if op.groups is not None:
            groups = self.groups_of[id(op)][op.groups]
            info.grouped = op.kind not in ("collective_permute", "send", "recv")
            group_of = np.full(n, -1, dtype=np.int64)
            arrays = []
            for gi, g in enumerate(groups):
                ids = np.array(sorted(g), dtype=np.int64)
                ids = ids[(ids >= 0) & (ids < n)]
                arrays.append(ids)
                group_of[ids] = gi
            info.groups, info.group_of = arrays, group_of
            info.partition_key = self.partitions.setdefault(tuple(groups), len(self.partitions))
        elif op.kind not in ("send", "recv", "collective_permute"):
            info.problem = f"the process groups of the {op.label} at {op.where()} are unknown"
        return info


# --------------------------------------------------------------------------- merging
@dataclass
class Merged:
    """The merged system: one trace over every device of the job."""

    trace: Trace
    facts: SignatureFacts
    host_of: np.ndarray
    """int[N]: which host runs each device."""
    program_of_op: dict[int, str]
    """id(SigOp) → its program digest (same digest: same program)."""
    host_of_op: dict[int, int]
    """id(SigOp) → the first host whose signature it comes from."""
    where: dict[int, str]
    """Step index → where it runs ("iteration 2 of the while at line 11")."""
    ops_by_place: dict[tuple[str, int], list[SigOp]]
    """(computation digest, position) → the ops there, every shape (twins)."""


def _check_inputs(hosts: list[HostProgram], limit: int) -> tuple[Grid, np.ndarray] | list[HostFinding]:
    problems: list[HostFinding] = []
    grids = {tuple(h.signature.grid) for h in hosts if not h.signature.status or h.signature.grid != (0, 0)}
    if len(grids) > 1:
        parts = "; ".join(f"{h.name}: {h.signature.grid[0]} x {h.signature.grid[1]}" for h in hosts)
        problems.append(HostFinding(CODES["not-checked"], "error", f"the hosts' programs are compiled for different "
                                    f"device grids (replicas x partitions): {parts}", 0, None,
                                    help="every host must compile the same program for the same devices"))
        return problems
    r, p = next(iter(grids)) if grids else (0, 0)
    grid = Grid(r, p)
    n = r * p
    if n <= 0:
        return [HostFinding(CODES["not-checked"], "error", "the hosts' device grid is unknown (the programs state "
                            "no num_partitions / num_replicas)", 0, None)]
    if n > limit:  # (the decision keeps arrays over the grid's devices)
        return [HostFinding(CODES["undecided"], "info", f"the hosts decision is undecided: the grid has {n} devices, "
                            f"more than max-processes = {limit}", None, None,
                            help="raise the limit with -O max-processes=N")]
    host_of = np.full(n, -1, dtype=np.int64)
    for i, h in enumerate(hosts):
        d = h.signature.devices
        bad = d[(d < 0) | (d >= n)]
        if len(bad):
            problems.append(HostFinding(CODES["not-checked"], "error", f"{h.name} runs devices outside the grid of "
                                        f"{n}: {_ids(bad)}", i, None,
                                        help=f"devices are the program's device ids 0-{n - 1} (those of its "
                                             f"replica_groups), not jax.Device.id: on XLA:CPU, process p's devices "
                                             f"are p*2048+i there"))
            continue
        twice = d[host_of[d] >= 0]
        if len(twice):
            other = hosts[int(host_of[twice[0]])].name
            problems.append(HostFinding(CODES["not-checked"], "error", f"{h.name} and {other} both run device(s) "
                                        f"{_ids(twice)}", i, None, help="give each host its own devices"))
        host_of[d[host_of[d] < 0]] = i
    missing = np.flatnonzero(host_of < 0)
    if len(missing) and not problems:
        problems.append(HostFinding(CODES["not-checked"], "error", f"device(s) {_ids(missing)} of the grid of {n} "
                                    f"are run by no host given", None, None,
                                    help="name every host's program, with the devices it runs (FILE:DEVICES)"))
    return problems or (grid, host_of)


def _ids(ids) -> str:
    ids = sorted(int(i) for i in ids)
    runs: list[list[int]] = []
    for i in ids:
        if runs and runs[-1][1] == i - 1:
            runs[-1][1] = i
        else:
            runs.append([i, i])
    parts = [f"{a}-{b}" if b > a + 1 else (f"{a}, {b}" if b > a else f"{a}") for a, b in runs]
    return ", ".join(parts[:6]) + (f" and {len(parts) - 6} more runs" if len(parts) > 6 else "")


def merge(hosts: list[HostProgram], grid: Grid, host_of: np.ndarray) -> Merged:
    """The merged trace (see the module docstring, 2)."""
    n = grid.size
    shapes: dict[str, list[int]] = {}
    for i, h in enumerate(hosts):
        shapes.setdefault(h.signature.shape_digest(), []).append(i)
    steps: list[Step] = []
    classes: list[ProcessClass] = []
    groups_of: dict[int, list] = {}
    program_of_op: dict[int, str] = {}
    host_of_op: dict[int, int] = {}
    where: dict[int, str] = {}
    ops_by_place: dict[tuple[str, int], list[SigOp]] = {}
    empty = np.zeros(0, dtype=bool)
    run_base = 0
    for members in shapes.values():
        rep = hosts[members[0]].signature
        for op in rep.ops:
            op.host = members[0]
            groups_of[id(op)] = rep.groups
            program_of_op[id(op)] = rep.program
            host_of_op[id(op)] = members[0]
            if op.block:
                place = ops_by_place.setdefault((op.block, op.pos), [])
                if all(o is not op for o in place):  # (hosts of one program share its ops)
                    place.append(op)
        base = len(steps)
        for s in rep.steps:
            op = rep.ops[s.op]
            st = Step(len(steps), op, op.role, empty, (), block=run_base + s.run)  # type: ignore[arg-type]
            where[st.index] = s.where
            steps.append(st)
        run_base += max((s.run for s in rep.steps), default=0) + 1
        for ci, cls in enumerate(rep.classes):
            devs = np.concatenate([hosts[m].signature.classes[ci].devices for m in members])
            ids = [base + k for k in cls.steps]
            if cls.end:
                last = rep.ops[rep.steps[cls.steps[-1]].op] if cls.steps else (rep.ops[0] if rep.ops else None)
                st = Step(len(steps), last, "unresolved", empty, (), reason=cls.end)  # type: ignore[arg-type]
                steps.append(st)
                ids.append(st.index)
            classes.append(ProcessClass(np.sort(devs), ids))
        if rep.status:
            unres = Step(len(steps), None, "unresolved", empty, (), reason=rep.status)  # type: ignore[arg-type]
            steps.append(unres)
            devs = np.concatenate([hosts[m].signature.devices for m in members])
            classes.append(ProcessClass(np.sort(devs), [unres.index]))
    class_of = np.full(n, 0, dtype=np.int64)
    for ci, cls in enumerate(classes):
        class_of[cls.processes] = ci
    tr = Trace(grid, "", steps, class_of, classes)
    return Merged(tr, SignatureFacts(grid, groups_of), host_of, program_of_op, host_of_op, where, ops_by_place)


# --------------------------------------------------------------------------- deciding
@dataclass
class _Outcome:
    """One issue order's verdict: "free", "deadlock" or "unknown"; the per-device
    model when it was built; the crossings (pairs of different hosts' ops that
    meet and compute differently)."""

    status: str
    model: Model | None = None
    final: list[int] | None = None
    crossings: list[tuple[Any, Any, list[str]]] = field(default_factory=list)
    reason: str = ""
    method: str = "classes"
    """"classes" (the class quotient proved it) or "per-device" (the model was built)."""

    @property
    def ok(self) -> bool:
        return self.status == "free" and not self.crossings


def decide(hosts: list[HostProgram], options: dict[str, Any] | None = None) -> HostsVerdict:
    """The verdict over every host's program (see the module docstring)."""
    t0 = time.monotonic()
    opts = options_of(options)
    deadline = t0 + opts["deadlock-timeout-ms"] / 1000.0
    if not hosts:
        raise HostsInputError("no host given")
    if len({h.signature.program for h in hosts}) == 1 and not hosts[0].signature.status:
        checked = _check_inputs(hosts, opts["max-processes"])
        if isinstance(checked, list):
            return HostsVerdict("undecided", checked, _stats(t0))
        return HostsVerdict("same program", [], _stats(t0))
    checked = _check_inputs(hosts, opts["max-processes"])
    if isinstance(checked, list):
        return HostsVerdict("undecided", checked, _stats(t0))
    grid, host_of = checked
    m = merge(hosts, grid, host_of)
    try:
        written = _outcome(m, m.trace, opts, deadline)
        if written.ok:
            return HostsVerdict("agree", _local(hosts, m), {**_stats(t0), "method": written.method})
        if written.status == "unknown":
            return HostsVerdict("undecided", [_undecided(hosts, m, written)], _stats(t0))
        fix = _reconciling_order(m, written, opts, deadline)
    except TraceLimit as e:
        return HostsVerdict("undecided", [HostFinding(CODES["undecided"], "info", f"the hosts decision is undecided: "
                                                      f"{e}", None, None)], _stats(t0))
    if fix is not None:
        return HostsVerdict("differ", [_schedule_finding(hosts, m, written, fix)], _stats(t0))
    return HostsVerdict("differ", _errors(hosts, m, written), _stats(t0))


def _errors(hosts: list[HostProgram], m: Merged, out: "_Outcome") -> list[HostFinding]:
    findings = []
    if out.status == "deadlock":
        findings.append(_deadlock_finding(hosts, m, out))
    return findings + _crossing_findings(hosts, m, out)


def _stats(t0: float) -> dict[str, Any]:
    return {"seconds": round(time.monotonic() - t0, 4)}


def _outcome(m: Merged, tr: Trace, opts: dict, deadline: float) -> _Outcome:
    stats: dict[str, Any] = {}
    crossings = _crossings(m, tr)
    q = linear_classes(tr, m.facts, "xla", stats, deadline)
    if q == "sat":
        return _Outcome("free", crossings=crossings)
    return _per_device(m, tr, crossings, opts, deadline)


def _per_device(m: Merged, tr: Trace, crossings: list, opts: dict, deadline: float) -> _Outcome:
    model = Model(tr, m.facts, "xla", max_events=opts["deadlock-max-events"], deadline=deadline)
    final = model.propagate()
    lens = [len(e) for e in model.events]
    unres = [p for p in range(model.n) if final[p] < lens[p] and model.events[p][final[p]][0] == UNRES]
    blocked = [p for p in range(model.n) if final[p] < lens[p] and model.events[p][final[p]][0] != UNRES]
    if blocked:
        # what met before the hang: crossings both sides of which completed
        done = [{e[1] for e in model.events[p][:final[p]]} for p in range(model.n)]
        crossings = [(a, b, d) for a, b, d in crossings
                     if a.step.index in done[int(a.processes[0])] and b.step.index in done[int(b.processes[0])]]
        return _Outcome("deadlock", model, final, crossings, method="per-device")
    if unres:
        step = tr.steps[model.events[unres[0]][final[unres[0]]][1]]
        return _Outcome("unknown", model, final, crossings, step.reason or "", method="per-device")
    return _Outcome("free", model, final, crossings, method="per-device")


def _crossings(m: Merged, tr: Trace) -> list[tuple[Any, Any, list[str]]]:
    """Pairs of sides of different programs that meet and compute differently:
    (side a, side b, what differs: meets.Computes.differences, or "operand")."""
    out = []
    seen: set[tuple[int, int]] = set()
    for meeting in meetings(tr, m.facts):
        for i, j in meeting.groups_shared:
            a, b = meeting.sides[i], meeting.sides[j]
            if m.program_of_op[id(a.op)] == m.program_of_op[id(b.op)]:
                continue  # one program's own meetings are `check`'s (SHLO506-508)
            if (id(a.op), id(b.op)) in seen or (id(b.op), id(a.op)) in seen:
                continue
            seen.add((id(a.op), id(b.op)))
            diff = a.op.computes.differences(b.op.computes)
            if not diff and a.op.operand != b.op.operand:
                diff = ["operand"]
            if diff:
                if m.host_of[a.processes[0]] > m.host_of[b.processes[0]]:
                    a, b = b, a
                out.append((a, b, diff))
    return out


def _reconciling_order(m: Merged, written: _Outcome, opts: dict, deadline: float) -> Reorder | None:
    """An issue order XLA's scheduler may choose in which every host agrees, or None."""
    involved: set[int] = set()
    for a, b, _d in written.crossings:
        involved.update((id(a.op), id(b.op)))
    if written.model is not None and written.final is not None:
        for p in range(written.model.n):
            ev = written.model.events[p]
            if written.final[p] < len(ev) and ev[written.final[p]][1] >= 0:
                involved.add(id(m.trace.steps[ev[written.final[p]][1]].op))
    tried = 0
    for r in sorted(_candidates(m), key=lambda r: not ({id(r.first.op), id(r.second.op)} & involved)):
        if tried >= MAX_VARIANTS:
            break
        tried += 1
        if time.monotonic() > deadline:
            raise TraceLimit("the time limit (deadlock-timeout-ms) ran out while trying issue orders")
        if _outcome(m, variant(m.trace, r), opts, deadline).ok:
            return r
    return None


def _candidates(m: Merged) -> list[Reorder]:
    """Pairs of collectives of one run of one computation whose later one depends
    on nothing from the earlier one on (SigOp.dep), with their twins."""
    by_run: dict[int, list[Step]] = {}
    for st in m.trace.steps:
        op = st.op
        if st.role in ("collective", "start", "permute") and op is not None and op.block:
            by_run.setdefault(st.block, []).append(st)
    out: list[Reorder] = []
    seen: set[tuple[int, int]] = set()
    for steps in by_run.values():
        for j in range(1, len(steps)):
            b = steps[j]
            for i in range(max(0, j - WINDOW), j):
                a = steps[i]
                if a.op is b.op or a.op.block != b.op.block or not (b.op.dep < a.op.pos < b.op.pos):
                    continue
                if (id(a.op), id(b.op)) in seen:
                    continue
                seen.add((id(a.op), id(b.op)))
                twins = tuple((x, y) for x in m.ops_by_place.get((a.op.block, a.op.pos), ())
                              for y in m.ops_by_place.get((b.op.block, b.op.pos), ())
                              if x is not a.op and m.host_of_op[id(x)] == m.host_of_op[id(y)])
                out.append(Reorder(a, b, twins))
    return out


# --------------------------------------------------------------------------- words
def _host_label(hosts: list[HostProgram], members: list[int], m: Merged, devices: np.ndarray) -> str:
    names = [hosts[h].name for h in members]
    who = names[0] if len(names) == 1 else ", ".join(names[:3]) + (f" and {len(names) - 3} more" if len(names) > 3
                                                                   else "")
    return f"{who} (devices {_ids(devices)})"


def _side_hosts(m: Merged, side) -> list[int]:
    return sorted(set(m.host_of[side.processes].tolist()))


def _named(hosts: list[HostProgram], hs: list[int]) -> str:
    names = [hosts[h].name for h in hs]
    if len(names) == 1:
        return names[0]
    return ", ".join(names[:3]) + (f" and {len(names) - 3} more hosts" if len(names) > 3 else "")


def _deadlock_finding(hosts: list[HostProgram], m: Merged, out: _Outcome) -> HostFinding:
    model, final = out.model, out.final
    assert model is not None and final is not None
    tr = m.trace
    lens = [len(e) for e in model.events]
    stories: dict[tuple, list[int]] = {}
    issued = (COLL, START, PERM, SEND, RECV)
    for p in range(model.n):
        ev = model.events[p]
        done = tuple(e[1] for e in ev[:final[p]] if e[0] in issued)
        if final[p] >= lens[p]:
            key = ("finished", done)
        elif ev[final[p]][0] == UNRES:
            key = ("unresolved", done)
        elif ev[final[p]][0] == EXIT:
            key = ("end", done)
        else:
            key = ("blocked", done, ev[final[p]][1])
        stories.setdefault((int(m.host_of[p]),) + key, []).append(p)
    # lanes: hosts with the same story (and program shape) together
    merged_keys: dict[tuple, list[tuple[int, list[int]]]] = {}
    for (h, *key), devs in stories.items():
        merged_keys.setdefault(tuple(key), []).append((h, devs))
    blocked_lanes, other_lanes = [], []
    for key, items in merged_keys.items():
        hs = [h for h, _d in items]
        devs = np.array(sorted(p for _h, d in items for p in d), dtype=np.int64)
        state = key[0]
        completed = [(int(m.host_of[devs[0]]), tr.steps[k].op, m.where.get(k, "")) for k in key[1]]
        op = tr.steps[key[2]].op if state == "blocked" else None
        lane = Lane(_host_label(hosts, hs, m, devs), hs, devs, completed, op, hs[0], state,
                    where=m.where.get(key[2], "") if state == "blocked" else "")
        (blocked_lanes if state == "blocked" else other_lanes).append(lane)
    blocked_lanes.sort(key=lambda ln: (len(ln.completed), ln.hosts[0]))
    other_lanes.sort(key=lambda ln: ln.hosts[0])
    first = blocked_lanes[0] if blocked_lanes else other_lanes[0]
    p0 = int(first.devices[0])
    e = model.events[p0][final[p0]]
    waits_for = sorted({q for q, j in model.requirements(p0, e) if j is None or final[q] < j})
    peer_hosts = sorted({int(m.host_of[q]) for q in waits_for} - set(first.hosts)) or \
        sorted({int(m.host_of[q]) for q in waits_for})
    for lane in blocked_lanes:
        ws_set: set[int] = set()
        for q in lane.devices[:LANE_WAITS].tolist():
            ev = model.events[q][final[q]]
            ws_set.update(x for x, j in model.requirements(q, ev) if j is None or final[x] < j)
        ws = sorted(ws_set)
        lane.waits = "waits for " + _named(hosts, sorted({int(m.host_of[x]) for x in ws})) + \
            f" (devices {_ids(ws)})" if ws else ""
    op = first.op
    who = _named(hosts, first.hosts)
    by_state: dict[str, list[int]] = {}
    for h in peer_hosts:
        lane = next((ln for ln in other_lanes + blocked_lanes if h in ln.hosts and ln is not first), None)
        if lane is None:
            continue
        if lane.state == "finished":
            state = "finished"
        elif lane.state == "blocked" and lane.op is not None:
            state = f"{'waits' if len(lane.hosts) == 1 else 'wait'} in {lane.op.label} at {_at(hosts, lane.op)}"
        else:
            state = "stopped being followed"
        by_state.setdefault(state, []).append(h)
    peers_state = [f"{_named(hosts, hs)} {s}" for s, hs in by_state.items()]
    if op is not None:
        msg = f"{who} {'waits' if len(first.hosts) == 1 else 'wait'} in {op.label} at {_at(hosts, op)}" + \
            (f"; {'; '.join(peers_state[:3])}" if peers_state else "")
    else:
        msg = f"{who} cannot finish: {'its' if len(first.hosts) == 1 else 'their'} sends are never received" + \
            (f"; {'; '.join(peers_state[:3])}" if peers_state else "")
    f = HostFinding(CODES["deadlock"], "error", f"hosts deadlock: {msg}", first.hosts[0], op,
                    help="every host must run the same collectives in the same order: run the collective on every "
                         "host (compute it everywhere, use it on some), or keep per-host work out of the program")
    if op is not None:
        new = _new_group(m, model, final, p0)
        f.notes.append(HostNote(first.hosts[0], op, NEW_GROUP if new else HANG))
        f.notes.append(HostNote(None, None, GPU))
    for lane in (blocked_lanes + other_lanes)[:MAX_LANES]:
        if lane.state == "finished":
            lane.waits = "finished"
        elif lane.state == "unresolved":
            lane.waits = "stopped being followed (unresolved)"
        elif lane.state == "end":
            lane.waits = "cannot finish: a send of its is never received"
        f.lanes.append(lane)
    return f


def _new_group(m: Merged, model: Model, final: list[int], p: int) -> bool:
    """Whether the collective p is blocked at uses a device list no collective it
    completed used (gloo then sets up a new communicator, with a 30 s deadline)."""
    tr = m.trace
    ev = model.events[p]
    op = tr.steps[ev[final[p]][1]].op
    info = m.facts.info(op)
    if info.group_of is None:
        return False
    mine = info.groups[int(info.group_of[p])].tobytes()
    for e in ev[:final[p]]:
        if e[0] in (COLL, START, PERM):
            other = m.facts.info(tr.steps[e[1]].op)
            if other.group_of is not None and other.group_of[p] >= 0 and \
                    other.groups[int(other.group_of[p])].tobytes() == mine:
                return False
    return True


def _detail(c: Computes) -> str:
    if c.kind == "all_reduce" and c.reduce:
        return c.reduce if not c.reduce.startswith("region:") else "a reduction of several ops"
    return ", ".join(c.operands) or c.kind


def _bytes(c: Computes) -> int | None:
    total = 0
    for t in c.operands:
        b = _type_bytes(t)
        if b is None:
            return None
        total += b
    return total


def _type_bytes(text: str) -> int | None:
    mt = re.fullmatch(r"tensor<((?:\d+x)*)([a-z]+)(\d+)>", text.strip())
    if mt is None:
        return None
    dims = [int(d) for d in mt.group(1).split("x") if d]
    n = 1
    for d in dims:
        n *= d
    return n * max(1, int(mt.group(3)) // 8)


def _crossing_findings(hosts: list[HostProgram], m: Merged, out: _Outcome) -> list[HostFinding]:
    found = []
    for a, b, diff in out.crossings[:MAX_CROSSINGS]:
        ha, hb = _side_hosts(m, a), _side_hosts(m, b)
        A, B = a.op, b.op
        code, headline, lanes, who_waits = "differ", "hosts compute differently: ", [], None
        if "reduction" in diff:
            what = (f"{A.label} ({_detail(A.computes)}) at {_at(hosts, A)} meets {_named(hosts, hb)}'s {B.label} "
                    f"({_detail(B.computes)}) at {_at(hosts, B)}: every host gets one mixture of both")
            runtime = MIXTURE
        elif "operand types" in diff or "result types" in diff:
            ba, bb = _bytes(A.computes), _bytes(B.computes)
            sizes = f" ({ba} vs {bb} bytes)" if ba is not None and bb is not None else ""
            if ba is not None and bb is not None and ba == bb:
                what = (f"{A.label} of {', '.join(A.computes.operands)} at {_at(hosts, A)} meets {_named(hosts, hb)}'s "
                        f"{B.label} of {', '.join(B.computes.operands)} at {_at(hosts, B)}: the same bytes, read as "
                        f"other types")
                runtime = TYPES if A.kind == B.kind == "all_reduce" else NOT_MEASURED
            else:
                what = (f"{A.label} at {_at(hosts, A)} meets {_named(hosts, hb)}'s {B.label} at {_at(hosts, B)}, of another "
                        f"size{sizes}: gloo aborts")
                runtime = ABORT
        elif diff == ["operand"]:
            what = (f"{A.label} at {_at(hosts, A)} meets {_named(hosts, hb)}'s {B.label} at {_at(hosts, B)}, which reduces "
                    f"another operand: their data is exchanged" if A.kind == "all_reduce" else
                    f"{A.label} at {_at(hosts, A)} meets {_named(hosts, hb)}'s {B.label} at {_at(hosts, B)}, on another "
                    f"operand: their data is exchanged")
            runtime = CROSSED
        else:
            what = f"{A.label} at {_at(hosts, A)} meets {_named(hosts, hb)}'s {B.label} at {_at(hosts, B)}, whose " + \
                " and ".join(diff) + " differ"
            runtime = NOT_MEASURED
            unpaired = _unpaired(a, b) if diff == ["pairs"] else None
            if unpaired:
                # a hang, not a difference in what is computed: SHLO510, with who waits
                lanes = _unpaired_lanes(hosts, m, a, b, unpaired)
                stuck = np.asarray(sorted(unpaired), dtype=np.int64)
                waiting = sorted(set(m.host_of[stuck].tolist()))
                code, headline = "deadlock", (f"hosts deadlock: {_named(hosts, waiting)} "
                                              f"{'waits' if len(waiting) == 1 else 'wait'} forever: ")
                what = f"{A.label} at {_at(hosts, A)} and {_named(hosts, hb)}'s at {_at(hosts, B)} pair other devices"
                done = sorted({ln.host for ln in lanes if ln.state == "finished"} - set(waiting))
                who_waits = (f"devices {_ids(stuck)} wait: each sends to or receives from a device whose program "
                             f"does not pair with it" + (f"; {_named(hosts, done)} "
                                                         f"{'completes' if len(done) == 1 else 'complete'}"
                                                         if done else ""))
                runtime = UNPAIRED
        f = HostFinding(CODES[code], "error", f"{headline}{_named(hosts, ha)}'s {what}",
                        ha[0], A, help="every host must run the same collective at the same point: the same "
                                       "reduction, shapes and operands, in the same order")
        f.notes.append(HostNote(hb[0], B, f"{_named(hosts, hb)} (devices {_ids(b.processes)}) "
                                          f"{'runs' if len(hb) == 1 else 'run'} this {B.label} "
                                          f"where {_named(hosts, ha)} (devices {_ids(a.processes)}) "
                                          f"{'runs' if len(ha) == 1 else 'run'} the "
                                          f"{A.label} at {_at(hosts, A)}; they meet (XLA matches kind, channel and "
                                          f"device group)"))
        if who_waits is not None:
            f.notes.append(HostNote(None, None, who_waits))
        f.notes.append(HostNote(None, None, runtime))
        f.notes.append(HostNote(None, None, GPU))
        f.lanes.extend(lanes)
        found.append(f)
    return found


def _unpaired(a, b) -> dict[int, int] | None:
    """Where two sides' permutes meet with other pairs: each device that waits
    forever → the device it waits for, each running its own program's pairs (a
    send whose target does not receive from it, or a receive whose source does
    not send to it); None when a device pairs with one outside both sides (its
    program is not here)."""
    own: dict[int, tuple[dict[int, int], dict[int, int]]] = {}
    for side in (a, b):
        pairs = side.op.pairs
        if pairs is None:
            return None
        maps = ({s: t for s, t in pairs}, {t: s for s, t in pairs})
        for d in side.processes.tolist():
            own[d] = maps
    stuck: dict[int, int] = {}
    for d, (send, recv) in own.items():
        t, r = send.get(d), recv.get(d)
        if (t is not None and t not in own) or (r is not None and r not in own):
            return None
        if r is not None and own[r][0].get(r) != d:
            stuck[d] = r
        elif t is not None and own[t][1].get(t) != d:
            stuck[d] = t
    return stuck


def _unpaired_lanes(hosts: list[HostProgram], m: Merged, a, b, stuck: dict[int, int]) -> list[Lane]:
    """SHLO510's lanes for permutes that pair other devices: per side and host, the
    devices that wait (and for whom), then those that complete."""
    lanes, done = [], []
    for side in (a, b):
        for h in sorted(set(m.host_of[side.processes].tolist())):
            devs = side.processes[m.host_of[side.processes] == h]
            waiting = np.array([d for d in devs.tolist() if d in stuck], dtype=np.int64)
            if len(waiting):
                peers = sorted({stuck[d] for d in waiting.tolist()})
                peer_hosts = sorted({int(m.host_of[q]) for q in peers})
                lanes.append(Lane(_host_label(hosts, [h], m, waiting), [h], waiting, [], side.op, h, "blocked",
                                  f"waits for {_named(hosts, peer_hosts)} (devices {_ids(peers)})"))
            rest = np.setdiff1d(devs, waiting)
            if len(rest):
                done.append(Lane(_host_label(hosts, [h], m, rest), [h], rest, [(h, side.op, "")], None, h,
                                 "finished", "finished"))
    return lanes + done


def _schedule_finding(hosts: list[HostProgram], m: Merged, out: _Outcome, fix: Reorder) -> HostFinding:
    a, b = fix.first.op, fix.second.op
    h = m.host_of_op[id(b)]
    if out.crossings:
        x, y, _d = out.crossings[0]
        why = (f"{_named(hosts, _side_hosts(m, x))}'s {x.op.label} at {_at(hosts, x.op)} meets "
               f"{_named(hosts, _side_hosts(m, y))}'s at {_at(hosts, y.op)} as written")
    elif out.model is not None and out.final is not None:
        waits = []
        for p in range(out.model.n):
            ev = out.model.events[p]
            if out.final[p] < len(ev) and ev[out.final[p]][1] >= 0 and ev[out.final[p]][0] != UNRES:
                h = int(m.host_of[p])
                if h not in {x for x, _o in waits}:
                    waits.append((h, m.trace.steps[ev[out.final[p]][1]].op))
        why = "; ".join(f"{hosts[h].name} waits in {o.label} at {_at(hosts, o)}" for h, o in waits[:2]) + \
            " as written"
    else:
        why = "as written they wait for each other"
    msg = f"hosts issue collectives in different orders: {why}; XLA's scheduler may reconcile them"
    f = HostFinding(CODES["schedule"], "warning", msg, h, b,
                    help="check each host's compiled HLO (compiled.as_text()), which fixes the order; or make the "
                         "order a data dependence, or trace the collectives in one order on every host")
    f.notes.append(HostNote(h, b, f"XLA's scheduler may issue this {b.label} before {hosts[h].name}'s {a.label} at "
                                  f"{_at(hosts, a)} (it does not depend on it), and then every host agrees"))
    f.notes.append(HostNote(None, None, SCHEDULE))
    return f


def _local(hosts: list[HostProgram], m: Merged) -> list[HostFinding]:
    """SHLO513 where the programs differ: the first op one program has that the
    others do not (by what it computes and where its operand comes from), with
    the hosts it stays within."""
    progs: dict[str, list[int]] = {}
    for i, h in enumerate(hosts):
        progs.setdefault(h.signature.program, []).append(i)
    if len(progs) < 2:
        return []
    reps = {d: hosts[hs[0]].signature for d, hs in progs.items()}
    def ident(sig: Signature, o: SigOp) -> tuple:
        return o.computes, o.operand, sig.groups[o.groups] if o.groups is not None else None, o.pairs

    seen_by: dict[str, set[tuple]] = {d: {ident(s, o) for o in s.ops} for d, s in reps.items()}
    for d, sig in reps.items():
        others = set().union(*(v for k, v in seen_by.items() if k != d))
        for op in sig.ops:
            if ident(sig, op) not in others:
                hs = progs[d]
                devs = np.concatenate([hosts[x].signature.devices for x in hs])
                msg = (f"the hosts' programs differ, but not in what they communicate with each other: "
                       f"{_named(hosts, hs)} also runs {op.label} at {_at(hosts, op)}, among its own devices "
                       f"({_ids(devs)})")
                f = HostFinding(CODES["local"], "info", msg, hs[0], op)
                f.notes.append(HostNote(None, None, "on XLA:CPU over gloo (measured; docs/hosts.md): a collective whose "
                                                    "groups stay inside one host completes, and every host's "
                                                    "results are its own program's"))
                return [f]
    first = progs[next(iter(progs))]
    names = _named(hosts, [hs[0] for hs in progs.values()])
    return [HostFinding(CODES["local"], "info", f"the hosts' programs differ ({names}), but not in what they "
                        f"communicate: their collectives meet alike", first[0], None)]


def _undecided(hosts: list[HostProgram], m: Merged, out: _Outcome) -> HostFinding:
    return HostFinding(CODES["undecided"], "info", f"the hosts decision is undecided: {out.reason}", None, None)

