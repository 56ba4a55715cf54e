"""Counterexamples: the blocked processes grouped into cycles and missing peers,
the chain of waits (closed with Z3's unsat core for small cycles), and the words
for each event and wait."""
from __future__ import annotations

import time
from typing import Any

from ...ir.core import Operation
from ...source.processes import process_set
from ..tracer.trace import Step
from ..tracer.structure import collective_kind, op_label
from .lanes import Phrase
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
        waits = _Waits(model, final, lens, stuck_set)
        blocked = [_blocked(model, p, final, lens, needs[p], stuck_set, waits) for p in members]
        P = model.grid.num_partitions
        peers = [_peer(model, q, final) for q in sorted(waits.peers)]
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
    """process_name of a flattened id (written out: it runs once per wait of every blocked process)."""
    r, q = divmod(p, model.grid.num_partitions)
    return f"({r}, {q})"


def process_list(procs: list[tuple[int, int]], limit: int = 4) -> str:
    """"(0, 1)–(0, 3), (0, 5) and 4 more"."""
    return process_set(procs, limit)


def _lit(text: str) -> str:
    """Text put into a Phrase template as it is."""
    return text.replace("{", "{{").replace("}", "}}")


def _times(n: int) -> str:
    return "once" if n == 1 else "twice" if n == 2 else f"{n} times"


class _Waits:
    """What blocked processes wait for, every process named, grouped by what those
    processes do instead. A collective's missing members are found once per
    instance (every member blocked at it waits for the same ones)."""

    def __init__(self, model: Model, final: list[int], lens: list[int], stuck_set: set[int]):
        self.model, self.final, self.lens, self.stuck_set = model, final, lens, stuck_set
        self.cache: dict[tuple, tuple[Phrase, tuple[tuple[int, int], ...], frozenset[str]]] = {}
        self.peers: set[int] = set()
        """Processes waited for that are not blocked themselves (Deadlock.peers)."""
        self.where: dict[int, tuple[str, int]] = {}
        """id(op) → (its short name, its line): asked once per op, not once per process."""

    def of(self, p: int, e: tuple, need) -> tuple[Phrase, tuple[tuple[int, int], ...], frozenset[str]]:
        """(the waits phrase of process p at event e, the processes that never
        arrive, what those do instead: "finished" and/or "never")."""
        inst = _instance_of(self.model, e)
        if inst is None:
            return self._phrase(e, [(q, j) for q, j in need])
        key = (id(inst), e[0])
        got = self.cache.get(key)
        if got is None:
            final = self.final
            missing = []
            for q in inst.members.tolist():
                j = inst.pos.get(q)
                if q != p and (j is None or final[q] < j):
                    missing.append((q, j))
            got = self.cache[key] = self._phrase(e, missing)
        return got

    def _phrase(self, e: tuple, waits: list[tuple[int, int | None]]):
        model = self.model
        P = model.grid.num_partitions
        goal = _lit(_goal(e))
        groups: dict[tuple, list[tuple[int, int]]] = {}
        never: list[tuple[int, int]] = []
        how: set[str] = set()
        for q, j in waits:
            state, at = _state(model, q, j, self.final, self.lens, self.stuck_set)
            where = None
            if at is not None:
                where = self.where.get(id(at.op))
                if where is None:
                    where = self.where[id(at.op)] = (op_label(at.op), line_of(at.op))
            groups.setdefault((state, where), []).append(divmod(q, P))
            if state in ("finished", "never"):
                never.append(divmod(q, P))
                how.add(state)
            if q not in self.stuck_set:
                self.peers.add(q)
        parts = []
        for k, (state, where) in enumerate(groups):
            parts.append(f"{{{k}}} {goal}{_suffix(k, state, where)}")
        return Phrase("; ".join(parts), tuple(tuple(ps) for ps in groups.values())), tuple(never), frozenset(how)


def _instance_of(model: Model, e: tuple):
    """The collective instance event e waits at (None: it waits for single peers)."""
    if e[0] == COLL or (e[0] == START and model.issue_order):
        return e[2]
    if e[0] == DONE and e[2][0] == START:
        return e[2][2]
    return None


def _goal(e: tuple) -> str:
    t = e[0]
    if t == RECV:
        return f"to send on channel {e[3]}"
    if t == EXIT:
        return "to receive this send"
    if t == COLL:
        return "to reach this collective"
    if t == DONE:
        return "to start the collective"
    if t == START:
        return "to issue this collective"
    return "to reach this collective_permute"


def _suffix(k: int, state: str, where: tuple[str, int] | None) -> str:
    if state == "finished":
        return f"; {{{k}:it|they}} finished without getting there"
    if state == "never":
        return f"; {{{k}:it never executes|they never execute}} a matching op"
    if state == "unresolved":
        return f"; {{{k}:it|they}} stopped being followed" + (f" at line {where[1]}" if where else "")
    if where is not None:
        return f"; {{{k}:it is|they are}} blocked at {_lit(where[0])} (line {where[1]})"
    return ""


def _state(model: Model, q: int, j: int | None, final: list[int], lens: list[int],
           stuck_set: set[int]) -> tuple[str, Step | None]:
    """What process q, waited for at its event j, does instead: (state, where it stopped)."""
    qe = model.events[q]
    cur = qe[final[q]] if final[q] < lens[q] else None
    at = model.trace.steps[cur[1]] if cur is not None and cur[0] != EXIT else None
    if j is None:
        state = "unresolved" if model.truncated[q] else "never" if final[q] < lens[q] else "finished"
    elif q in stuck_set:
        state = "blocked"
    elif cur is not None and cur[0] == UNRES:
        state = "unresolved"
    else:
        state = "blocked"
    return state, at


def _lacks(model: Model, p: int, e: tuple, unmet: list) -> str:
    """What the peer of a recv with no send, or of a send never received, lacks."""
    me = "it"
    if e[0] == RECV:
        _k, _i, s, ch, n = e
        if model.send_pos[s].get((p, ch, n)) is not None:
            return ""
        sent = sum(1 for t, c, _m in model.send_pos[s] if t == p and c == ch)
        return (f"{_pl(model, s)} never sends to {me} on channel {ch}" if not sent else
                f"{_pl(model, s)} sends to {me} on channel {ch} only {_times(sent)}")
    if e[0] == EXIT and unmet:
        kind, tgt, key, _pos = unmet[0]
        if kind != SEND:
            return f"{_pl(model, tgt)} never reaches the matching collective_permute"
        ch = key[1]
        got = sum(1 for s, c, _m in model.recv_pos[tgt] if s == p and c == ch)
        return (f"{_pl(model, tgt)} never receives from {me} on channel {ch}" if not got else
                f"{_pl(model, tgt)} receives from {me} on channel {ch} only {_times(got)}")
    return ""


def _blocked(model: Model, p: int, final: list[int], lens: list[int], need, stuck_set: set[int],
             waits_of: _Waits) -> Blocked:
    tr = model.trace
    P = model.grid.num_partitions
    ev = model.events[p]
    i = final[p]
    e = ev[i]
    done_events = [x for x in ev[:i] if x[0] not in (NOP, EXIT, UNRES)]
    completed = tuple(tr.steps[x[1]] for x in done_events)
    completed_phrases = tuple(_event_phrase(model, p, x) for x in done_events)
    completed_what = tuple(ph.text() for ph in completed_phrases)
    step = tr.steps[e[1]] if e[0] != EXIT else None
    waits = []
    for q, j in need:
        qe = model.events[q]
        state, at = _state(model, q, j, final, lens, stuck_set)
        need_op = tr.steps[qe[j][1]].op if j is not None and j < len(qe) and qe[j][0] != EXIT else None
        waits.append(Wait(divmod(q, P), state, at, need_op, _wait_text(model, p, e, q, j, state, at)))
    unmet: list = []
    if e[0] == EXIT:
        unmet = [(k, tgt, key, spos) for k, tgt, key, spos in e[2]
                 if (model.recv_pos[tgt] if k == SEND else model.perm_pos[tgt]).get(key) is None
                 or final[tgt] < (model.recv_pos[tgt] if k == SEND else model.perm_pos[tgt])[key]]
        spos = unmet[0][3] if unmet else (len(ev) - 2)
        send_step = tr.steps[ev[spos][1]]
        op = send_step.op
        sent = ev[spos]
        channel = f" on channel {sent[3]}" if sent[0] == SEND else ""
        name = _lit(op_label(send_step.op))
        what_phrase = (Phrase(f"{name} to {{0:bare}}{channel}, never received", ((divmod(unmet[0][1], P),),))
                       if unmet else Phrase(f"{name}{channel}, never received"))
        step = send_step
    else:
        op = step.op  # type: ignore[union-attr]
        what_phrase = _event_phrase(model, p, e)
    waits_phrase, never, never_states = waits_of.of(p, e, need)
    return Blocked(divmod(p, P), step, op, what_phrase.text(), tuple(waits), completed, completed_what,
                   _hint(model, p, e, need), at_end=e[0] == EXIT, waits_more=getattr(need, "more", 0),
                   completed_phrases=completed_phrases, what_phrase=what_phrase, waits_phrase=waits_phrase,
                   never_arrive=never, never_states=never_states, lacks=_lacks(model, p, e, unmet))


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
    phrases = tuple(_event_phrase(model, q, x) for x in done_events)
    return Peer(divmod(q, model.grid.num_partitions), state,
                tuple(model.trace.steps[x[1]] for x in done_events),
                tuple(ph.text() for ph in phrases), phrases)


def _event_phrase(model: Model, p: int, e: tuple) -> Phrase:
    """What process p does at event e, the processes it names kept apart."""
    tr = model.trace
    P = model.grid.num_partitions
    step = tr.steps[e[1]]
    kind = _lit(op_label(step.op))
    t = e[0]
    if t == RECV:
        return Phrase(f"{kind} from {{0:bare}} on channel {e[3]}", ((divmod(e[2], P),),))
    if t == SEND:
        return Phrase(f"{kind} to {{0:bare}} on channel {e[3]}", ((divmod(e[2], P),),))
    if t == PERM:
        if e[4] >= 0:
            return Phrase(f"{kind} (from {{0:bare}})", ((divmod(e[4], P),),))
        return Phrase(f"{kind} (receives nothing)")
    if t in (START, COLL):
        inst = e[2]
        return Phrase(f"{kind} (channel {inst.info.channel}, group of {inst.size})")
    if t == DONE:
        start = tr.steps[e[2][1]]
        return Phrase(f"{kind} of the {_lit(op_label(start.op))} at line {line_of(start.op)}")
    return Phrase(kind)


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
        return f"{goal}; it is blocked at {op_label(at.op)} (line {line_of(at.op)})"
    return goal
