"""The class quotient: the model's constraints over process classes (one time
per (class, event)), whose satisfiability proves every process runs to
completion, with one check whose size does not depend on the grid.

The constraints X(c, i) > X(c2, j) plus program order X(c, i) > X(c, i-1) form
a difference system whose edges all weigh 1: it is satisfiable iff its graph
has no cycle. `acyclic` decides that in time linear in the constraints (Kahn's
algorithm over the events that constraints name); `z3_classes` asks Z3 the
same question and is kept to cross-check the linear check in the tests.
"""
from __future__ import annotations

import time
from collections import deque

from ..lazy_numpy import np  # imported on first use (lazy_numpy.py)

from ..tracer.trace import Trace

from ..tracer.tracer import TraceLimit
from .model import CommInfo, Facts, key_of, rendezvous

def class_constraints(tr: Trace, facts: "Facts", matching: str, deadline: float | None = None):
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
    for ci, cls in enumerate(tr.classes):
        if (ci & 63) == 63:
            _check(deadline)
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
                lst = occ.setdefault(key_of(info, matching), [])
                nth.append(len(lst))
                lst.append(i)
            else:
                nth.append(-1)
        data.append((cls.processes, steps, infos, {st.index: i for i, st in enumerate(steps)}, occ, nth))
    nch = max(1, len(channels))
    span = max(len(d[1]) for d in data) + 2 if data else 2
    cons: list[tuple] = []
    arrays: list[np.ndarray] = []

    member_classes: dict[tuple, np.ndarray] = {}

    def group_classes(info: CommInfo, who: np.ndarray) -> np.ndarray:
        """The classes of every member of the groups of `who` (cached: many classes
        share a group, and np.isin over the grid per class step is quadratic)."""
        gs = np.unique(info.group_of[who])  # type: ignore[index]
        key = (id(info), gs.tobytes())
        got = member_classes.get(key)
        if got is None:
            members = np.isin(info.group_of, gs) if len(gs) > 1 else info.group_of == gs[0]
            got = member_classes[key] = np.unique(class_of[members])
        return got

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
        if (c & 63) == 63:
            _check(deadline)
        end = len(steps)
        sends, recvs = [], []
        for i, (st, info) in enumerate(zip(steps, infos)):
            if st.role == "done":
                if matching == "xla":
                    continue  # issue order: its start already waited for the peers
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
                    key = key_of(sinfo, matching)  # type: ignore[arg-type]
                    if rendezvous(sinfo, matching):  # type: ignore[arg-type]
                        why = need(c, i, group_classes(sinfo, who), key, nth[spos])  # type: ignore[arg-type]
                    else:
                        src = sinfo.source[who]  # type: ignore[union-attr]
                        why = need(c, i, class_of[src[src >= 0]], key, nth[spos])
                    if why:
                        return why
                continue
            if info is None or info.external:
                continue
            key = key_of(info, matching) if nth[i] >= 0 else None
            if rendezvous(info, matching):
                if st.role in ("collective", "permute") or matching == "xla":
                    why = need(c, i, group_classes(info, procs), key, nth[i])  # type: ignore[arg-type]
                    if why:
                        return why
            elif info.kind == "collective_permute":
                src = info.source[procs]
                if st.role != "start" or matching == "xla":
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
        if len(keys) == 0:  # nothing to match with (a send-only or recv-only channel)
            return np.zeros(len(q), np.int64), np.zeros(len(q), np.int64), False
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


def _check(deadline: float | None) -> None:
    if deadline is not None and time.monotonic() > deadline:
        raise TraceLimit("the time limit (deadlock-timeout-ms) ran out while building the class constraints")


def acyclic(cons, deadline: float | None = None) -> bool:
    """True when X(c, i) > X(c2, j) for every (c, i, c2, j) in `cons`, with program
    order inside each class, has a solution: no cycle through the events the
    constraints name (consecutive named events of one class are chained)."""
    preds: dict[tuple[int, int], list[tuple[int, int]]] = {}
    by_class: dict[int, set[int]] = {}
    for c, i, c2, j in cons:
        if c == c2 and j >= i:
            return False  # an event that must come after itself (or after a later one)
        preds.setdefault((c, i), []).append((c2, j))
        by_class.setdefault(c, set()).add(i)
        by_class.setdefault(c2, set()).add(j)
    succ: dict[tuple[int, int], list[tuple[int, int]]] = {}
    indeg: dict[tuple[int, int], int] = {}
    for c, idx in by_class.items():
        order = sorted(idx)
        for a, b in zip(order, order[1:]):
            succ.setdefault((c, a), []).append((c, b))
            indeg[(c, b)] = indeg.get((c, b), 0) + 1
        for i in order:
            indeg.setdefault((c, i), 0)
    for node, ps in preds.items():
        for p in ps:
            succ.setdefault(p, []).append(node)
            indeg[node] += 1
    queue = deque(node for node, d in indeg.items() if d == 0)
    seen = 0
    while queue:
        node = queue.popleft()
        seen += 1
        if (seen & 65535) == 0:
            _check(deadline)
        for nxt in succ.get(node, ()):
            indeg[nxt] -= 1
            if indeg[nxt] == 0:
                queue.append(nxt)
    return seen == len(indeg)


def linear_classes(tr: Trace, facts: "Facts", matching: str, stats: dict, deadline: float | None = None) -> str:
    """The class quotient decided by `acyclic`: "sat" (deadlock-free for every
    process), "unsat" (inconclusive: decide per process) or "n/a"."""
    got = class_constraints(tr, facts, matching, deadline)
    if got is None:
        return "n/a"
    if isinstance(got, str):
        stats["quotient"] = got
        return "unsat"
    lengths, cons = got
    stats["quotient"] = {"classes": len(lengths), "events": sum(lengths.values()), "constraints": len(cons)}
    return "sat" if acyclic(cons, deadline) else "unsat"


def z3_classes(tr: Trace, facts: "Facts", matching: str, timeout_ms: int, stats: dict) -> str:
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

