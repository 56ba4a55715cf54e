"""XLA's communication in a scheduled HLO module as XLA:GPU runs it: the stream each
op is issued on, and when an async op is in flight.

What was read, in openxla/xla (docs/hlo.md, "Hazards", has the paths and what
each says):

* streams. The runtime gives every kind of collective its own stream and NCCL
  communicator (xla/backends/gpu/collectives/gpu_clique_key.h, AsyncStreamKind:
  one stream for async collectives, two for point-to-point). `send` / `recv` run
  on P2P stream 1 when `_xla_send_recv_pipeline="1"` and on P2P stream 0
  otherwise, and `_xla_gpu_collective_stream="p2p"` puts an op on the P2P stream
  (backends/gpu/runtime/p2p_thunk_common.cc GetStreamIdOverride; the scheduler's
  resources, service/gpu/gpu_latency_hiding_scheduler.cc, say the same). The
  other async collectives share one collective stream
  (service/gpu/execution_stream_assignment: `number_of_collective_execution_streams`
  is 1 by default) unless `_xla_stream_annotation="N"` names stream N. A
  synchronous collective (no start/done, or an async pair whose backend config
  says `"is_sync":true`: transforms/collectives/collective_ops_utils.cc
  IsGPUSyncCollective) runs on the compute stream with the synchronous
  communicator. Host transfers are no NCCL operation.
* in flight. An async op is in flight from its start to its done in the schedule
  (a scheduled module's order within each computation). XLA's pipelined
  send/recv (service/p2p_schedule_preparation.h) starts the next iteration's
  transfer at the end of a while body and completes it at the start of the next
  iteration (and after the loop): its future is carried through the loop's
  tuple. So in a body a done whose start is not there is in flight from the
  body's entry, a start whose done is not there until the body's end, and in the
  caller a transfer handed into a while is in flight up to the while (the body's
  own intervals say the rest) and one coming out of it from the while on.

Everything is read from the IR ops and, behind them, the HLO instructions
(`op.instruction`); the devices an op communicates among are device_sets.py's.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterator

from shlo_lint.checker.analysis.semantics import flag
from shlo_lint.checker.analysis.tracer.structure import collective_op, comm_role
from shlo_lint.checker.frontend.hlo import BackendConfig, FrontendAttributes
from shlo_lint.checker.ir import catalog
from shlo_lint.checker.ir.core import Block, Operation, Value, callee

PIPELINE_ATTR = "_xla_send_recv_pipeline"
COLLECTIVE_STREAM_ATTR = "_xla_gpu_collective_stream"
STREAM_ANNOTATION_ATTR = "_xla_stream_annotation"

STARTS = catalog.future_ends(catalog.START, "hlo")
DONES = catalog.future_ends(catalog.DONE, "hlo")
FORWARDING = catalog.FORWARDING
LOOPS = catalog.names(regions=catalog.LOOP)
BRANCHES = catalog.names(regions=catalog.BRANCHES)
CALLS = catalog.names(regions=catalog.CALL)
P2P = frozenset({catalog.SEND, catalog.RECV})


# --------------------------------------------------------------------------- streams
@dataclass(frozen=True)
class Stream:
    """The stream an op is issued on: `key` compares, `words` says it (and why)."""

    key: str
    words: str


COMPUTE = Stream("compute", "the compute stream (a synchronous collective)")


def frontend_attributes(op: Operation) -> FrontendAttributes | None:
    ins = getattr(op, "instruction", None)
    fa = ins.attr("frontend_attributes") if ins is not None else None
    return fa if isinstance(fa, FrontendAttributes) else None


def is_host_transfer(op: Operation) -> bool:
    return flag(collective_op(op), "is_host_transfer")


def is_sync(op: Operation) -> bool:
    """An async pair XLA runs synchronously (`collective_backend_config.is_sync`)."""
    ins = getattr(op, "instruction", None)
    config = ins.attr("backend_config") if ins is not None else None
    if not isinstance(config, BackendConfig) or "is_sync" not in config.text:
        return False
    data = config.data()
    inner = data.get("collective_backend_config") if isinstance(data, dict) else None
    return isinstance(inner, dict) and inner.get("is_sync") is True


def is_p2p_half(op: Operation) -> bool:
    """A send or recv half (or its done): point-to-point by the catalog, itself or its pair."""
    facts = catalog.info(op.name)
    return any(catalog.info(n).kind in ("send", "recv") for n in (op.name, *facts.pair))


def stream_of(op: Operation) -> Stream:
    """The stream XLA:GPU issues `op` (a start, or a synchronous collective) on."""
    if op.name not in STARTS or is_sync(op):
        return COMPUTE
    fa = frontend_attributes(op)
    get = fa.get if fa is not None else (lambda _k, _d=None: None)
    annotated = get(STREAM_ANNOTATION_ATTR)
    if annotated is not None and annotated.strip().isdigit():
        return Stream(f"annotated {int(annotated)}", f'stream {int(annotated)} ({STREAM_ANNOTATION_ATTR}="{annotated}")')
    pipeline = get(PIPELINE_ATTR)
    p2p_attr = get(COLLECTIVE_STREAM_ATTR) == "p2p"
    if is_p2p_half(op):
        if p2p_attr:
            return Stream("p2p0", f'P2P stream 0 ({COLLECTIVE_STREAM_ATTR}="p2p")')
        if pipeline == "1":
            return Stream("p2p1", f'P2P stream 1 ({PIPELINE_ATTR}="1")')
        why = f'{PIPELINE_ATTR}="{pipeline}"' if pipeline is not None else f"no {PIPELINE_ATTR}"
        return Stream("p2p0", f"P2P stream 0 ({why})")
    if p2p_attr:
        return Stream("p2p0", f'P2P stream 0 ({COLLECTIVE_STREAM_ATTR}="p2p")')
    if pipeline in ("0", "1") and catalog.base_kind(op.name) == "collective_permute":
        # XLA versions that run a collective-permute-start on the P2P stream its
        # pipeline names (ir_emitter_unnested.cc: GetStreamKindForP2P)
        return Stream(f"p2p{pipeline}", f'P2P stream {pipeline} ({PIPELINE_ATTR}="{pipeline}")')
    thread = _async_thread(op)
    return Stream("collective", "the collective stream" + (f' (async thread "{thread}")' if thread else ""))


def _async_thread(op: Operation) -> str | None:
    """An async-start's execution thread, where the text names one other than main."""
    ins = getattr(op, "instruction", None)
    if ins is None or ins.opcode != "async-start":
        return None
    named = ins.attr("async_execution_thread")
    if isinstance(named, str) and named != "main":
        return named
    for region in op.regions:
        comp = getattr(region.blocks[0].operations[-1], "computation", None) if region.blocks else None
        if comp is not None and comp.execution_thread != "main":
            return comp.execution_thread
    return None


# --------------------------------------------------------------------------- what is communicated
def communicates(op: Operation) -> bool:
    """An op that issues communication XLA:GPU runs through NCCL: a collective, a permute,
    a send or recv half, the start of an async collective (not its done, not a host
    transfer, not an async-start that wraps no collective)."""
    role = comm_role(op)
    if op.name in STARTS:
        if op.name == "hlo.recv":
            return not is_host_transfer(op)
        return role is not None and not is_host_transfer(op)
    if role in (catalog.COLLECTIVE, catalog.PERMUTE):
        return True
    return False


def label(op: Operation) -> str:
    """`all-gather-start %ags` (the opcode and the instruction as written)."""
    ins = getattr(op, "instruction", None)
    if ins is not None:
        return f"{ins.opcode} %{ins.name}"
    return op.name.rsplit(".", 1)[-1]


# --------------------------------------------------------------------------- start <-> done
def start_of(done: Operation) -> Operation | None:
    """The start a done completes, followed back through the forwarding ops and, for
    XLA's pipelined loops, through a while body's parameter to the body's ROOT (the
    previous iteration's start) or through a while's result to its body's ROOT."""
    v = done.operands[0] if done.operands else None
    return _back(v, 0)


def _back(v: Value | None, depth: int) -> Operation | None:
    while v is not None and depth < 64:
        depth += 1
        d = v.defining_op
        if d is None:  # a block argument: of a while body (the carried tuple's leaf v.index)?
            owner = v.owner.parent.parent if isinstance(v.owner, Block) and v.owner.parent is not None else None
            if owner is None or owner.name not in LOOPS or len(owner.regions) != 2 \
                    or v.owner.parent is not owner.regions[1]:
                return None
            return _from_body_root(owner, v.index, depth)
        if d.name in STARTS:
            return d
        if d.name in FORWARDING:
            ops = d.operands
            v = ops[v.index] if v.index < len(ops) else None
            continue
        if d.name in LOOPS:
            return _from_body_root(d, v.index, depth)
        return None
    return None


def _from_body_root(loop: Operation, index: int, depth: int) -> Operation | None:
    body = loop.regions[1] if len(loop.regions) == 2 else None
    if body is None or not body.blocks or not body.blocks[0].operations:
        return None
    ret = body.blocks[0].operations[-1]
    ops = ret.operands
    return _back(ops[index] if index < len(ops) else None, depth + 1)


@dataclass
class Flight:
    """One async op in flight within one block: positions [begin, end] of the block's ops
    (begin: its start, or -1 when it comes in flight from before the block; end: its
    done, or the op its future leaves by, or len(ops) when it is in flight past the
    block's end)."""

    start: Operation
    """The start whose attributes (groups, pairs, stream) describe it."""
    begin: int
    end: int
    done: Operation | None = None
    """Its done in this block, when it has one here."""
    ends_how: str = "done"
    """"done"; "loop" (handed into a while at `end`: the body completes it); "leaves" (past
    the block's end: a later iteration, after the loop, or a caller completes it);
    "used" (read at `end` by an op that is no done). (A start nothing reads is no flight:
    it is never completed, SHLO401.)"""
    stream: Stream = field(default=COMPUTE)


def flights(block: Block) -> list[Flight]:
    """Every async communication in flight in `block`, in order of its beginning."""
    ops = block.operations
    if not any(o.name in STARTS or o.name in DONES for o in ops):
        return []
    pos = {id(o): i for i, o in enumerate(ops)}
    users = _users(block)
    out: list[Flight] = []
    covered: set[int] = set()
    for i, op in enumerate(ops):
        if op.name in STARTS and communicates(op):
            end, how, done = _forward(op, i, ops, users)
            if how == "leak":
                continue  # never completed: SHLO401's finding, not an op in flight
            f = Flight(op, i, end, done, how, stream_of(op))
            out.append(f)
            if done is not None:
                covered.add(id(done))
        elif op.name in DONES and id(op) not in covered:  # (dones come after their starts' flights)
            start = start_of(op)
            if start is None or not communicates(start):
                continue
            # completed here, started elsewhere: before this iteration (a body's
            # parameter) or inside the loop just run (a while's result)
            begin = -1
            src = op.operands[0] if op.operands else None
            loop = _loop_result(src)
            if loop is not None and id(loop) in pos:
                begin = pos[id(loop)]
            out.append(Flight(start, begin, i, op, "done", stream_of(start)))
    out.sort(key=lambda f: (f.begin, f.end))
    return out


def _loop_result(v: Value | None) -> Operation | None:
    """The while whose result `v` is read from (through forwarding ops), if any."""
    for _ in range(64):
        if v is None:
            return None
        d = v.defining_op
        if d is None:
            return None
        if d.name in LOOPS:
            return d
        if d.name not in FORWARDING:
            return None
        ops = d.operands
        v = ops[v.index] if v.index < len(ops) else None
    return None


def _users(block: Block) -> dict[str, list[int]]:
    """Instruction name → positions of the block's ops that read it (terminators read the
    ROOT), from the instructions' operand names (no header is built)."""
    out: dict[str, list[int]] = {}
    for k, op in enumerate(block.operations):
        ins = getattr(op, "instruction", None)
        if ins is not None:
            names = [n for n in ins.operand_names if n is not None]
        elif op.name in catalog.TERMINATORS:
            names = [n.split("#", 1)[0].lstrip("%") for n, _s in op.header.operands]
        else:
            continue
        for n in dict.fromkeys(names):
            out.setdefault(n, []).append(k)
    return out


def _forward(start: Operation, i: int, ops: list[Operation], users: dict[str, list[int]]
             ) -> tuple[int, str, Operation | None]:
    """Where the future `start` opens at position i goes in its block: (position, how, done)."""
    live: dict[str, Value] = {v.name: v for v in start.results}
    names = {_instruction_name(start)}
    seen: set[int] = set()
    used = False
    while True:
        cands = sorted({k for n in names for k in users.get(n, ()) if k > i and k not in seen})
        if not cands:
            return len(ops), ("leaves" if used else "leak"), None
        k = cands[0]
        seen.add(k)
        op = ops[k]
        read = [p for p, v in enumerate(op.operands) if v is not None and live.get(v.name) is v]
        if not read:
            continue
        used = True
        if op.name in DONES:
            return k, "done", op
        if op.name in catalog.TERMINATORS:
            return len(ops), "leaves", None
        if op.name in FORWARDING:
            for p in read:
                if p < op.num_results:
                    r = op.results[p]
                    live[r.name] = r
            names.add(_instruction_name(op))
            continue
        if op.name in LOOPS:
            return k, "loop", None
        return k, "used", None


def _instruction_name(op: Operation) -> str:
    ins = getattr(op, "instruction", None)
    return ins.name if ins is not None else ""


# --------------------------------------------------------------------------- nested communication
def nested_communication(op: Operation, _depth: int = 0) -> Iterator[Operation]:
    """The communicating ops `op` runs in its regions or its callee (a while's body, a
    conditional's branches, a call), recursively: they run while `op` does."""
    if _depth > 32:
        return
    inner: list[Block] = []
    if op.name in LOOPS or op.name in BRANCHES:
        inner = [b for r in op.regions for b in r.blocks]
    elif op.name in CALLS:
        name = callee(op)
        func = op.module.funcs.get(name) if name is not None else None
        if func is not None:
            inner = [b for r in func.regions for b in r.blocks]
    for b in inner:
        for o in b.operations:
            if communicates(o):
                yield o
            if o.regions or o.name in CALLS:
                yield from nested_communication(o, _depth + 1)


__all__ = ["COMPUTE", "Flight", "PIPELINE_ATTR", "Stream", "communicates", "flights", "frontend_attributes",
           "is_host_transfer", "is_p2p_half", "is_sync", "label", "nested_communication", "start_of", "stream_of"]
