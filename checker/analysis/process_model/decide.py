"""Deciding a module: structure, then the class quotient in Z3, then exact
propagation; options and the deadline (see the package docstring)."""
from __future__ import annotations

import time
from typing import Any

from ...ir.core import Module, Operation
from ..semantics import Grid
from ..tracer.trace import Step, Trace
from ..tracer.structure import Structure, collective_kind, op_label, structure
from ..tracer.tracer import TraceLimit, trace
from .explain import counterexamples, process_list
from .meets import meetings
from .model import MATCHING, UNRES, Model, Facts, line_of
from .quotient import linear_classes
from .replicas import replica_copies
from .results import Verdict, XlaMatch
from .schedule import candidates, variant

DEFAULTS: dict[str, Any] = {
    "z3-timeout-ms": 5000,
    "deadlock-timeout-ms": 20000,
    "deadlock-matching": "xla",
    "deadlock-max-trips": 4096,
    "deadlock-max-steps": 200_000,
    "deadlock-max-events": 1_000_000,
    "deadlock-core-limit": 64,
    "external-channels": "",
    "max-processes": 1 << 20,
}
"""Options (`-O key=value`, `[tool.shlo-lint.options]`) and their defaults."""

def options_of(options: dict[str, Any] | None) -> dict[str, Any]:
    """DEFAULTS overridden by `options`; raises ValueError for a bad value."""
    out = dict(DEFAULTS)
    for k, v in (options or {}).items():
        if k in out:
            out[k] = v
    for k in ("z3-timeout-ms", "deadlock-timeout-ms", "deadlock-max-trips", "deadlock-max-steps",
              "deadlock-max-events", "deadlock-core-limit", "max-processes"):
        try:
            out[k] = int(out[k])
        except (TypeError, ValueError):
            raise ValueError(f"option {k} = {out[k]!r} is not an integer") from None
        if out[k] < 0:
            raise ValueError(f"option {k} = {out[k]} is negative")
    out["external-channels"] = external_channels(out["external-channels"])
    m = str(out["deadlock-matching"]).lower()
    if m not in MATCHING:
        raise ValueError(f"option deadlock-matching = {out['deadlock-matching']!r} is not one of "
                         f"{', '.join(MATCHING)}")
    out["deadlock-matching"] = m
    return out


def external_channels(value: Any) -> frozenset[int]:
    """The `external-channels` option: "1,3" (command line) or [1, 3] (config) or
    one integer; raises ValueError for anything that is not a channel id."""
    if value is None:
        return frozenset()
    if isinstance(value, (set, frozenset)):
        value = sorted(value)
    if isinstance(value, str):
        items: list[Any] = [t for t in value.replace(";", ",").replace(" ", ",").split(",") if t.strip()]
    elif isinstance(value, (list, tuple)):
        items = list(value)
    else:
        items = [value]
    out = set()
    for item in items:
        if isinstance(item, bool) or not isinstance(item, (int, str)):
            raise ValueError(f"option external-channels: {item!r} is not a channel id (an integer)")
        try:
            ch = int(item.strip()) if isinstance(item, str) else item
        except ValueError:
            raise ValueError(f"option external-channels: {item!r} is not a channel id (an integer)") from None
        if ch < 0:
            raise ValueError(f"option external-channels: {ch} is negative")
        out.add(ch)
    return frozenset(out)


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
    if grid.size > opts["max-processes"]:
        return Verdict("unknown", matching, "none",
                       f"the grid has {grid.size} processes, more than max-processes = {opts['max-processes']}",
                       skipped=True, stats=_stats(t0))
    facts = Facts(grid, struct, opts["external-channels"])
    try:
        tr = trace(module, grid, struct, max_trips=opts["deadlock-max-trips"],
                   max_steps=opts["deadlock-max-steps"], deadline=deadline, skip=facts.silent,
                   max_class_events=opts["deadlock-max-events"],
                   meet_key=facts.meet_key if matching == "xla" else None)
    except TraceLimit as e:
        return Verdict("unknown", matching, "none", str(e), stats=_stats(t0))
    except RecursionError:
        return Verdict("unknown", matching, "none", "the program nests deeper than the tracer follows",
                       stats=_stats(t0))
    except KeyError:
        return Verdict("unknown", matching, "none", "no entry function", stats=_stats(t0))
    return decide_trace(tr, facts, opts, t0=t0, deadline=deadline)


def decide_trace(tr: Trace, facts: Facts, opts: dict[str, Any], *, t0: float, deadline: float) -> Verdict:
    """The verdict on per-process traces (`opts`: options_of's; `t0`, `deadline`:
    time.monotonic() values). It reads the traces' steps and the facts of the
    grid, not the module they came from: traces of several programs whose
    processes meet (one program per host) are decided the same way."""
    matching = opts["deadlock-matching"]
    try:
        verdict = _decide(tr, facts, matching, opts, deadline)
        # (The orders a scheduler may choose: none in a module whose text fixes them,
        # a scheduled HLO module: schedule.candidates.)
        if matching == "xla" and verdict.status == "deadlock":
            verdict.completes_with = _completing_order(tr, facts, opts, deadline)
        if matching == "xla" and verdict.status == "deadlock-free":
            chosen = _scheduler_choice(tr, facts, opts, deadline)
            if chosen is not None:
                chosen.stats.update(_stats(t0), classes=len(tr.classes), steps=len(tr.steps))
                return chosen
            verdict.meetings = meetings(tr, facts)
            spec = _decide(tr, facts, "spec", opts, deadline) if not tr.alternatives else None
            if spec is not None and spec.status == "deadlock":
                model = Model(tr, facts, "xla", max_events=opts["deadlock-max-events"], deadline=deadline,
                              processes=tr.grid.num_partitions if spec.replicas > 1 else None)
                verdict.xla_only = _xla_matches(model)
                verdict.spec_deadlocks = spec.deadlocks
                verdict.replicas = spec.replicas
    except TraceLimit as e:
        return Verdict("unknown", matching, "none", str(e), trace=tr, stats=_stats(t0))
    verdict.trace = tr
    verdict.stats.update(_stats(t0), classes=len(tr.classes), steps=len(tr.steps))
    return verdict


def _reorder_with(status: str, tr: Trace, facts: Facts, opts: dict, deadline: float) -> tuple | None:
    """The first issue order XLA's scheduler may choose (schedule.py) whose
    verdict has `status`: (that reorder, its trace, its verdict), or None."""
    for r in candidates(tr, facts):
        if time.monotonic() > deadline:
            raise TraceLimit("the time limit (deadlock-timeout-ms) ran out while trying issue orders")
        vt = variant(tr, r)
        v = _decide(vt, facts, "xla", opts, deadline)
        if v.status == status:
            return r, vt, v
    return None


def _scheduler_choice(tr: Trace, facts: Facts, opts: dict, deadline: float) -> Verdict | None:
    """A deadlock for an issue order XLA's scheduler may choose (schedule.py), or None."""
    found = _reorder_with("deadlock", tr, facts, opts, deadline)
    if found is None:
        return None
    r, vt, v = found
    v.schedule, v.trace = r, vt
    v.reason = (f"XLA's scheduler may issue the {_kind(r.second)} at line {line_of(r.second.op)} before the "
                f"{_kind(r.first)} at line {line_of(r.first.op)} (neither depends on the other)")
    return v


def _completing_order(tr: Trace, facts: Facts, opts: dict, deadline: float):
    """An issue order XLA's scheduler may choose (schedule.py) in which the
    program completes although the order written deadlocks, or None. XLA:CPU
    does not keep the order written: it issued the all_reduce first in both
    branches of a program written with them crossed, and completed."""
    found = _reorder_with("deadlock-free", tr, facts, opts, deadline)
    return found[0] if found is not None else None


def _kind(step: Step) -> str:
    kind = collective_kind(step.op)
    return f"{kind} start" if step.role == "start" else kind


def _stats(t0: float) -> dict[str, Any]:
    return {"seconds": round(time.monotonic() - t0, 4)}


def _decide(tr: Trace, facts: Facts, matching: str, opts: dict, deadline: float) -> Verdict:
    stats: dict[str, Any] = {}
    q = linear_classes(tr, facts, matching, stats, deadline)
    stats["classes_check"] = q
    if q == "sat":
        return Verdict("deadlock-free", matching, "classes",
                       f"the {len(tr.classes)} process class(es) have a schedule (linear check on the class "
                       f"quotient)", stats=stats)
    if time.monotonic() > deadline:
        raise TraceLimit("the time limit (deadlock-timeout-ms) ran out while deciding")
    copies = replica_copies(tr, facts)
    model = Model(tr, facts, matching, max_events=opts["deadlock-max-events"], deadline=deadline,
                  processes=tr.grid.num_partitions if copies > 1 else None)
    stats["events"] = sum(len(e) for e in model.events)
    final = model.propagate()
    verdict = _verdict_from(model, final, matching, opts, deadline, stats)
    verdict.replicas = copies
    return verdict


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
    by_index: dict[int, Any] = {}
    for p in unres:
        step = tr.steps[model.events[p][final[p]][1]]
        by_index.setdefault(step.index, step)
    unresolved_steps = list(by_index.values())
    invalid_only = bool(unres) and all(model.events[p][final[p]][3] for p in unres)
    if not blocked:
        if unres:
            reason = _unres_reason(model, unres)
            return Verdict("unknown", matching, "propagation", reason, unresolved=unresolved_steps,
                           invalid_only=invalid_only, stats=stats)
        return Verdict("deadlock-free", matching, "propagation",
                       "every process runs to completion (exact per-process propagation)", stats=stats)
    needs, waiting_at = _needs(model, final, blocked, deadline)
    # Which blocked processes could still be freed by what unresolved processes do?
    # A worklist over "q became possible → recheck who needs q" (linear).
    possible = set(unres)
    needed_by: dict[int, list[int]] = {}
    for p in blocked:
        for q, _j in needs[p]:
            needed_by.setdefault(q, []).append(p)

    def freeable(p: int) -> bool:
        return bool(needs[p]) and all(q in possible or (j is None and model.truncated[q]) for q, j in needs[p])

    todo = [p for p in blocked if freeable(p)]
    while todo:
        p = todo.pop()
        if p in possible:
            continue
        possible.add(p)
        for r in needed_by.get(p, ()):
            if r not in possible and freeable(r):
                todo.append(r)
    stuck = [p for p in blocked if p not in possible]
    if not stuck:
        return Verdict("unknown", matching, "propagation", _unres_reason(model, unres),
                       unresolved=unresolved_steps, invalid_only=invalid_only, stats=stats)
    # processes blocked at one collective instance belong to one group (their
    # needs are cut at NEEDS_SHOWN, so they may not name each other)
    deadlocks, groups = counterexamples(model, final, stuck, needs, opts, deadline, list(waiting_at.values()))
    stats["deadlock_groups"] = groups
    return Verdict("deadlock", matching, "propagation", None, deadlocks, unresolved=unresolved_steps, stats=stats)


class Needs(list):
    """A cut list of waits; `more` counts the ones left out."""

    more = 0


NEEDS_SHOWN = 32
"""Peers kept per process blocked at a collective (a group can be the whole grid:
listing every missing member for every waiting member is quadratic)."""


def _needs(model: Model, final: list[int], blocked: list[int], deadline: float):
    """What each blocked process still waits for: (q, j) = q must reach its event
    j (None: it has no such event). For a collective, the members that have not
    reached it, computed once per instance and cut at NEEDS_SHOWN (the verdict's
    `stats["waits_cut"]` counts the cuts). Returns (needs, instance → its blocked
    processes)."""
    from .model import COLL, DONE, START

    needs: dict[int, list[tuple[int, int | None]]] = {}
    per_instance: dict[int, list[tuple[int, int | None]]] = {}
    waiting_at: dict[int, list[int]] = {}
    for k, p in enumerate(blocked):
        if (k & 1023) == 1023 and time.monotonic() > deadline + 0.5:
            raise TraceLimit("the time limit (deadlock-timeout-ms) ran out while collecting the waits")
        e = model.events[p][final[p]]
        inst = None
        if e[0] == COLL or (e[0] == START and model.issue_order):
            inst = e[2]
        elif e[0] == DONE and e[2][0] == START:
            inst = e[2][2]
        if inst is None:
            needs[p] = [(q, j) for q, j in model.requirements(p, e) if j is None or final[q] < j]
            continue
        got = per_instance.get(id(inst))
        if got is None:
            got, count = [], 0
            for q in inst.members.tolist():
                j = inst.pos.get(q)
                if j is None or final[q] < j:
                    count += 1
                    if len(got) <= NEEDS_SHOWN:
                        got.append((q, j))
            got = per_instance[id(inst)] = (got, count)
        shown = Needs((q, j) for q, j in got[0] if q != p)
        del shown[NEEDS_SHOWN:]
        shown.more = max(0, got[1] - len(shown) - (1 if any(q == p for q, _j in got[0]) else 0))
        needs[p] = shown
        waiting_at.setdefault(id(inst), []).append(p)
    return needs, waiting_at


def _unres_reason(model: Model, unres: list[int]) -> str:
    tr = model.trace
    reasons: dict[str, list[int]] = {}
    for p in unres:
        e = model.events[p][[k for k, ev in enumerate(model.events[p]) if ev[0] == UNRES][0]]
        step = tr.steps[e[1]]
        where = f"{op_label(step.op)} at line {line_of(step.op)}"
        reasons.setdefault(f"{where}: {e[2]}", []).append(p)
    parts = [f"{text} ({process_list([divmod(p, model.grid.num_partitions) for p in ps])})"
             for text, ps in reasons.items()]
    copies = "" if model.n == model.grid.size else f" (the same in each of the {model.grid.num_replicas:,} replicas)"
    return "; ".join(parts[:3]) + (f"; and {len(parts) - 3} more" if len(parts) > 3 else "") + copies

