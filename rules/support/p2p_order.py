"""The order XLA:GPU runs the send and recv halves of one computation in, stream by
stream, and the transfers that wait for each other in it.

Semantics (what was read: docs/hlo.md, "Hazards"): each `send` / `recv` is one
NCCL send or receive on its P2P stream (rules/support/hlo_streams.py), enqueued
in the computation's schedule order; a stream runs its operations one after the
other, and an NCCL send or receive may not complete before its peer's matching
receive or send runs (NCCL matches a pair's k-th send on a communicator with the
peer's k-th receive on the same communicator; every stream kind has its own
communicator: backends/gpu/collectives/gpu_clique_key.h). XLA's own passes keep
this safe: the collective-permute decomposer does not turn a permute whose pairs
form a cycle into send/recv ("this leads to deadlocks in NCCL":
hlo/transforms/collectives/collective_permute_decomposer.cc ShouldDecompose),
and orders the chains it makes one after another.

A *transfer* is one (source, target) pair of a send matched with the recv of
the same channel that lists the pair (the k-th such send with the k-th such
recv). On a device, the transfers it takes part in run in stream order, so a
transfer waits for every earlier one of its two devices on that stream. The
transfers *wait in a cycle* when that relation has one: every device of the
cycle is stuck in an operation whose peer is stuck in another.

The process model (checker/analysis/process_model) reads the same ops with
other semantics: a send never blocks, a receive waits at its `recv-done`. A
cycle it also has (each device's `recv-done` comes before the send its peer
waits for) is its deadlock, reported there (SHLO500); `stream_cycles` returns
only the cycles the stream order adds, and says so with `model_has_it`.
"""
from __future__ import annotations

from dataclasses import dataclass

from shlo_lint.checker.analysis.semantics import channel_id, source_target_pairs
from shlo_lint.checker.ir import catalog
from shlo_lint.checker.ir.core import Block, Operation

from .hlo_streams import STARTS, Stream, flights, frontend_attributes, is_host_transfer, is_p2p_half, stream_of


@dataclass(frozen=True)
class Transfer:
    """One pair of one send matched with its recv."""

    send: Operation
    recv: Operation
    source: int
    target: int
    send_pos: int
    recv_pos: int


@dataclass(frozen=True)
class Mismatch:
    """A send and the recv that matches it by channel and pair, on different streams."""

    send: Operation
    recv: Operation
    pair: tuple[int, int]
    send_stream: Stream
    recv_stream: Stream


@dataclass(frozen=True)
class Step:
    """`device` runs `first` before `then` on the stream (an edge of a cycle)."""

    device: int
    first: Transfer
    then: Transfer


@dataclass(frozen=True)
class Cycle:
    stream: Stream
    steps: tuple[Step, ...]
    """One cycle through the transfers, in order (the last step leads back to the first)."""
    size: int
    """How many transfers wait for each other (the cycle's strongly connected part)."""


def _is_send(op: Operation) -> bool:
    return catalog.info(op.name).kind == "send"


def _never_runs(op: Operation) -> bool:
    fa = frontend_attributes(op)
    v = fa.send_recv_validation if fa is not None else None
    return v is not None and v.is_invalid


def p2p_halves(block: Block) -> list[tuple[int, Operation]]:
    """(position, op) of the block's send and recv halves that go through NCCL."""
    return [(i, op) for i, op in enumerate(block.operations)
            if op.name in STARTS and is_p2p_half(op) and not is_host_transfer(op)]


def transfers(block: Block) -> tuple[list[Transfer], list[Mismatch]]:
    """The block's transfers, and the sends matched with a recv on another stream."""
    sends: dict[tuple, list[tuple[int, Operation]]] = {}
    recvs: dict[tuple, list[tuple[int, Operation]]] = {}
    for i, op in p2p_halves(block):
        pairs = source_target_pairs(op)
        if not pairs:
            continue
        table = sends if _is_send(op) else recvs
        for s, t in pairs:
            table.setdefault((channel_id(op), s, t), []).append((i, op))
    out: list[Transfer] = []
    mismatches: dict[tuple[int, int], Mismatch] = {}
    for key, ss in sends.items():
        rs = recvs.get(key, [])
        for (i, x), (j, y) in zip(ss, rs):
            sx, sy = stream_of(x), stream_of(y)
            if sx.key != sy.key:
                mismatches.setdefault((id(x), id(y)), Mismatch(x, y, key[1:], sx, sy))
                continue
            if _never_runs(x) and _never_runs(y):
                continue
            out.append(Transfer(x, y, key[1], key[2], i, j))
    return out, list(mismatches.values())


def _done_positions(block: Block) -> dict[int, int]:
    """id(recv) → position of the recv-done that completes it in this block."""
    return {id(f.start): f.end for f in flights(block) if f.done is not None and f.begin >= 0}


def stream_cycles(block: Block) -> list[Cycle]:
    """The cycles of transfers that wait for each other in stream order (see the module
    docstring), but those the process model has too."""
    found, _mismatches = transfers(block)
    by_stream: dict[str, list[Transfer]] = {}
    streams: dict[str, Stream] = {}
    for t in found:
        s = stream_of(t.send)
        by_stream.setdefault(s.key, []).append(t)
        streams[s.key] = s
    out: list[Cycle] = []
    done_at: dict[int, int] | None = None
    for key, ts in by_stream.items():
        succ = _stream_edges(ts)
        for comp in _sccs(len(ts), succ):
            if len(comp) < 2:
                continue
            if done_at is None:
                done_at = _done_positions(block)
            if _model_cycle(ts, comp, done_at):
                continue  # the process model's deadlock (SHLO500): reported there
            out.append(Cycle(streams[key], _one_cycle(ts, comp, succ), len(comp)))
    return out


def _stream_edges(ts: list[Transfer]) -> dict[int, dict[int, int]]:
    """Transfer → {next transfer: device}: consecutive transfers of one device on the stream."""
    per_device: dict[int, list[tuple[int, int]]] = {}
    for k, t in enumerate(ts):
        per_device.setdefault(t.source, []).append((t.send_pos, k))
        per_device.setdefault(t.target, []).append((t.recv_pos, k))
    succ: dict[int, dict[int, int]] = {}
    for d, lst in per_device.items():
        lst.sort()
        for (_p, a), (_q, b) in zip(lst, lst[1:]):
            if a != b:
                succ.setdefault(a, {}).setdefault(b, d)
    return succ


def _model_cycle(ts: list[Transfer], comp: list[int], done_at: dict[int, int]) -> bool:
    """Whether the process model's waits (a device's recv-done before its send) close a
    cycle among the transfers `comp`."""
    members = set(comp)
    succ: dict[int, set[int]] = {}
    recv_by_device: dict[int, list[tuple[int, int]]] = {}
    for k in comp:
        t = ts[k]
        d = done_at.get(id(t.recv))
        if d is not None:
            recv_by_device.setdefault(t.target, []).append((d, k))
    for k in comp:
        t = ts[k]
        for d, y in recv_by_device.get(t.source, ()):
            if d < t.send_pos and y in members and y != k:
                succ.setdefault(y, set()).add(k)
    index = {k: n for n, k in enumerate(comp)}
    local = {index[a]: {index[b]: 0 for b in bs} for a, bs in succ.items()}
    return any(len(c) > 1 for c in _sccs(len(comp), local, nodes=range(len(comp))))


def _sccs(n: int, succ: dict[int, dict[int, int]], nodes=None) -> list[list[int]]:
    """Tarjan's strongly connected components (iterative)."""
    index: dict[int, int] = {}
    low: dict[int, int] = {}
    on: set[int] = set()
    stack: list[int] = []
    out: list[list[int]] = []
    counter = 0
    for root in (nodes if nodes is not None else range(n)):
        if root in index:
            continue
        work = [(root, iter(succ.get(root, {})))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on.add(root)
        while work:
            v, it = work[-1]
            nxt = next(it, None)
            if nxt is not None:
                if nxt not in index:
                    index[nxt] = low[nxt] = counter
                    counter += 1
                    stack.append(nxt)
                    on.add(nxt)
                    work.append((nxt, iter(succ.get(nxt, {}))))
                elif nxt in on:
                    low[v] = min(low[v], index[nxt])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                out.append(comp)
    return out


def _one_cycle(ts: list[Transfer], comp: list[int], succ: dict[int, dict[int, int]]) -> tuple[Step, ...]:
    """A cycle through the component, from its transfer issued first (breadth-first back to it)."""
    members = set(comp)
    start = min(comp, key=lambda k: (min(ts[k].send_pos, ts[k].recv_pos), k))
    parent: dict[int, int] = {}
    frontier = [start]
    seen = {start}
    end = None
    while frontier and end is None:
        nxt = []
        for a in frontier:
            for b in succ.get(a, {}):
                if b not in members:
                    continue
                if b == start:
                    end = a
                    break
                if b not in seen:
                    seen.add(b)
                    parent[b] = a
                    nxt.append(b)
            if end is not None:
                break
        frontier = nxt
    path = [end] if end is not None else [start]
    while path[-1] != start:
        path.append(parent[path[-1]])
    path.reverse()
    steps = []
    for a, b in zip(path, path[1:] + path[:1]):
        steps.append(Step(succ[a][b], ts[a], ts[b]))
    return tuple(steps)


__all__ = ["Cycle", "Mismatch", "Step", "Transfer", "p2p_halves", "stream_cycles", "transfers"]
