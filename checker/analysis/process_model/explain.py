"""Counterexamples: the blocked processes grouped into cycles and missing peers,
the chain of waits (closed with Z3's unsat core for small cycles), and the words
for each event and wait."""
from __future__ import annotations

import time
from typing import Any

from ...ir.core import Operation
from ..tracer.trace import Step
from ..tracer.structure import collective_kind, op_label
from .model import COLL, DONE, EXIT, NOP, PERM, RECV, SEND, START, UNRES, Model, line_of
from .results import Blocked, Deadlock, Peer, Wait

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


# =========================================================================== counterexamples
def counterexamples(model: Model, final: list[int], stuck: list[int], needs, opts,
                     deadline, together: list[list[int]] = ()) -> tuple[list[Deadlock], int]:
    """The deadlock groups explained (at most MAX_DEADLOCKS, and the first one
    whatever the time), and how many groups there are in all."""
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
    for group in together:  # blocked at one collective instance: one group
        inside = [p for p in group if p in stuck_set]
        for p, q in zip(inside, inside[1:]):
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
    listing = sorted(groups.items(), key=lambda kv: min(kv[1][0]))
    for (kind, _sig), comp_list in listing[:MAX_DEADLOCKS]:
        if out and time.monotonic() > deadline:
            break  # the verdict stands; explain only what the time allows
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
        orders = _issue_orders(model, final, members) if kind == "cycle" else []
        out.append(Deadlock(kind, blocked, [divmod(p, P) for p in chain], core, peers, orders))
    return out, len(listing)


_ISSUED = (COLL, START, PERM)


def _issue_orders(model: Model, final: list[int], members: list[int], shown: int = 6):
    """For one process per op the group is blocked at (two at most): the
    collectives it issues in order, when those orders differ (issue order)."""
    reps: dict[int, int] = {}
    for p in members:
        e = model.events[p][final[p]]
        if e[0] in _ISSUED:
            reps.setdefault(e[1], p)
    if len(reps) < 2:
        return []
    out = []
    tr = model.trace
    for p in list(reps.values())[:2]:
        issued = [(i, e) for i, e in enumerate(model.events[p]) if e[0] in _ISSUED]
        at = next((k for k, (i, _e) in enumerate(issued) if i >= final[p]), len(issued))
        lo = max(0, min(at - 2, len(issued) - shown))
        items = []
        for i, e in issued[lo:lo + shown]:
            step = tr.steps[e[1]]
            mark = " (blocked here)" if i == final[p] else ""
            items.append((step, f"{_event_kind(step)} at line {line_of(step.op)}{mark}"))
        out.append((divmod(p, model.grid.num_partitions), tuple(items)))
    return out


def _event_kind(step: Step) -> str:
    kind = collective_kind(step.op)
    return f"{kind} (started)" if step.role == "start" else kind


MAX_DEADLOCKS = 16
"""Deadlock groups explained in full (each is a diagnostic); the verdict counts the rest."""
PEER_STEPS = 8
"""Completed steps kept for a process that never arrives (the trace shows the last few)."""


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
    seen = {start}
    p = succ[start]
    while p != start:
        if p not in succ or p in seen or len(out) > len(succ):
            return None
        out.append(p)
        seen.add(p)
        p = succ[p]
    return out


def _pl(model: Model, p: int) -> str:
    r, q = divmod(p, model.grid.num_partitions)
    return f"({r}, {q})"


def process_list(procs: list[tuple[int, int]], limit: int = 4) -> str:
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
        sent = ev[spos]
        channel = f" on channel {sent[3]}" if sent[0] == SEND else ""
        what = (f"{send_step.op.name.rsplit('.', 1)[-1]} to {_pl(model, unmet[0][1]) if unmet else '?'}{channel}, "
                f"never received")
        step = send_step
    else:
        op = step.op  # type: ignore[union-attr]
        what = _event_text(model, p, e)
    return Blocked(divmod(p, P), step, op, what, tuple(waits), completed, completed_what,
                   _hint(model, p, e, need), at_end=e[0] == EXIT, waits_more=getattr(need, "more", 0))


def _hint(model: Model, p: int, e: tuple, need) -> tuple[Operation, str] | None:
    """A recv with no send: a send from the same source to p on another channel;
    a send never received: a recv at its target from p on another channel."""
    if e[0] == EXIT:
        for kind, tgt, key, _pos in e[2]:
            if kind != SEND or model.recv_pos[tgt].get(key) is not None:
                continue
            ch = key[1]
            for info in model.facts.cache.values():
                if info.kind == "recv" and info.source is not None and info.channel != ch \
                        and int(info.source[tgt]) == p:
                    return (info.op, f"process {_pl(model, tgt)} receives from {_pl(model, p)} here, on channel "
                                     f"{info.channel}: the channels differ")
        return None
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
    done_events = [x for x in ev[:final[q]] if x[0] not in (NOP, EXIT, UNRES)][-PEER_STEPS:]
    return Peer(divmod(q, model.grid.num_partitions), state,
                tuple(model.trace.steps[x[1]] for x in done_events),
                tuple(_event_text(model, q, x) for x in done_events))


def _event_text(model: Model, p: int, e: tuple) -> str:
    tr = model.trace
    step = tr.steps[e[1]]
    kind = op_label(step.op)
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
        return f"{kind} of the {start.op.name.rsplit('.', 1)[-1]} at line {line_of(start.op)}"
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
    elif t == START:
        goal = f"{who} to issue this collective"
    else:
        goal = f"{who} to reach this collective_permute"
    if state == "finished":
        return f"{goal}; it finished without getting there"
    if state == "never":
        return f"{goal}; it never executes a matching op"
    if state == "unresolved" and at is not None:
        return f"{goal}; it stopped being followed at line {line_of(at.op)}"
    if at is not None:
        return f"{goal}; it is blocked at {at.op.name.rsplit('.', 1)[-1]} (line {line_of(at.op)})"
    return goal
