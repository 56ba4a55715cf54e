"""Per-device progress markers for the XLA engines: which device is blocked at
which collective, from the device itself rather than from XLA's log.

XLA:CPU's stuck-rendezvous log names participants by their *rank inside the
rendezvous* (`[id=N]`), not by device: for a cond whose branches run a psum and
an all_gather, both rendezvous log ids 0..3. So the worker instruments its
in-memory copy of the module: around every communicating op it inserts a host
callback (`stablehlo.custom_call @xla_ffi_python_cpu_callback`, the FFI target
jax lowers `io_callback` to; the Python callables are handed to
`compile_and_load(..., host_callbacks=[...])` and picked by the
`mhlo.backend_config = {index = K}` attribute). Each callback receives the
device's `replica_id` and `partition_id` and passes the collective's operands
(enter marker) or results (exit marker) through unchanged, so the data
dependence orders it before / after the collective on that device. The callback
appends one line `E|X <op index> <replica> <partition>` to a progress file with
a single O_APPEND write, which survives XLA aborting the process.

A device whose last record is `E k` was inside op k when the run stopped; one
whose last record is `X k` (or that has none) had no collective pending.

The op index k counts the communicating ops in textual (pre-order) order; the
parent computes the same list from the project's IR (`comm_ops`) and checks the
worker's op names against it before trusting the line numbers.

The parent side (comm_ops, read_progress) does not import jax.
"""
from __future__ import annotations

import os

from ...ir.catalog import KINDS

COMM_OPS = (*(f"stablehlo.{k.name}" for k in KINDS.values() if k.in_xla and not k.custom_call), "mhlo.all_to_all")
"""The StableHLO ops that XLA runs as a communication of their own (the op catalog's
kinds), and mhlo.all_to_all: XLA's HLO importer gives the tuple all-to-all of compiled
modules (one operand per peer, no split dimension) as MHLO, which has it."""
CALLBACK_TARGET = {"cpu": "xla_ffi_python_cpu_callback", "gpu": "xla_ffi_python_gpu_callback"}


# ----------------------------------------------------------------------------- parent side
def comm_ops(module) -> list[tuple[str, int, int, tuple | None]]:
    """(name, line, column, wait) of every communicating op of a project-IR module,
    in the order the worker numbers them. wait = (name, line, column) of the
    async_start a device waits at for a collective inside one, else None: XLA
    issues the collective where its start is scheduled (XLA:CPU runs it there as
    a synchronous collective) and the device waits there for its peers, where
    the interpreter and the static analysis put it too (issue_order.py)."""
    out = []
    for op in module.walk():
        if op.name in COMM_OPS:
            line, col = module.source.line_col(op.name_span.start)
            out.append((op.name, line, col, _async_start_of(module, op)))
    return out


def _async_start_of(module, op) -> tuple | None:
    start = op.parent_op
    if start is None or start.name != "stablehlo.async_start":
        return None
    line, col = module.source.line_col(start.name_span.start)
    return start.name, line, col


def read_progress(path: str) -> dict[tuple[int, int], tuple[str, int, int]]:
    """(replica, partition) → (last phase "E"/"X", op index, how many records)."""
    last: dict[tuple[int, int], tuple[str, int, int]] = {}
    try:
        with open(path, encoding="ascii", errors="replace") as f:
            lines = f.read().splitlines()
    except OSError:
        return last
    for ln in lines:
        parts = ln.split()
        if len(parts) != 4 or parts[0] not in ("E", "X"):
            continue  # a torn last line from a killed process
        try:
            k, r, p = int(parts[1]), int(parts[2]), int(parts[3])
        except ValueError:
            continue
        n = last.get((r, p), ("", 0, 0))[2]
        last[(r, p)] = (parts[0], k, n + 1)
    return last


def blocked_from_progress(progress: dict, ops: list[tuple[str, int, int]], worker_ops: list[str] | None,
                          processes: list[tuple[int, int]], path: str, engine: str = "XLA",
                          kinds: list[str] | None = None):
    """(blocked, states) of a run that did not complete, from the devices' own records.

    blocked: one Blocked per process whose last record is an enter marker, at that
    op (with its line when the worker's op list matches ours); states: "blocked",
    or "finished" for a process with no collective pending. An entry of `ops` may
    carry a fifth element, a label the report shows with the op (the HLO engine's
    instruction name). `kinds`: each op's kind as the catalog says it (default:
    the kind of the op names, which are IR names)."""
    from ...ir.catalog import base_kind
    from ..interpreter import Blocked
    from ..runtime import fmt_pid

    trusted = worker_ops is not None and [o[0] for o in ops] == list(worker_ops)
    at: dict[int, list] = {}
    for proc in processes:
        rec = progress.get(proc)
        if rec and rec[0] == "E":
            at.setdefault(rec[1], []).append(proc)
    blocked, states = [], {}
    for proc in processes:
        rec = progress.get(proc)
        if not rec or rec[0] != "E":
            states[proc] = "finished"
            continue
        k = rec[1]
        wait, label, kind_of = None, None, None
        if trusted and k < len(ops):
            name, line, col, wait = ops[k][:4]
            label = ops[k][4] if len(ops[k]) > 4 else None
            kind_of = kinds[k] if kinds is not None else base_kind(name)
        else:
            name, line, col = (worker_ops[k] if worker_ops and k < len(worker_ops) else "collective"), 0, 0
        kind = name.rsplit(".", 1)[-1]
        peers = [q for q in at[k] if q != proc]
        with_ = f"; {', '.join(fmt_pid(q) for q in peers[:6])}{' ...' if len(peers) > 6 else ''} wait there too" \
            if peers else ""
        what = f"this {kind}" if wait is None else f"the {kind} at line {line} (started asynchronously)"
        if label:
            what += f" ({label})"
        if wait is not None:  # reported at the async_start, as the interpreter reports it
            name, line, col = wait
            kind_of = base_kind(name)
        blocked.append(Blocked(proc, name, path, line, col,
                               f"the participants of {what} that never arrived ({engine}{with_})", [], kind_of))
        states[proc] = "blocked"
    return blocked, states


# ----------------------------------------------------------------------------- worker side
class Recorder:
    """The host callbacks: one per (op, phase), writing to one progress file."""

    def __init__(self, path: str):
        self.fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
        self.callbacks: list = []

    def add(self, phase: str, k: int) -> int:
        fd = self.fd

        def callback(replica, partition, *values):
            os.write(fd, f"{phase} {k} {int(replica)} {int(partition)}\n".encode("ascii"))
            return values

        self.callbacks.append(callback)
        return len(self.callbacks) - 1


def instrument(module, recorder: Recorder, platform: str = "cpu", label=None) -> list[str]:
    """Insert enter/exit markers around every communicating op of an MLIR module
    (jax's bindings; call inside its context). Returns, for each marked op in
    order, its name, or `label(op)` when given (the HLO engine's: the HLO
    instruction the op was imported from)."""
    from jax._src.lib.mlir import ir

    target = CALLBACK_TARGET["gpu" if platform != "cpu" else "cpu"]
    ops = []

    def collect(op) -> None:
        for region in op.regions:
            for block in region.blocks:
                for child in block.operations:
                    o = child.operation
                    if o.name in COMM_OPS:
                        ops.append(o)
                    collect(o)

    collect(module.operation)
    import numpy as np

    u32 = ir.RankedTensorType.get([], ir.IntegerType.get_unsigned(32))

    def layout(t):
        # row-major, as the Python side reads the buffers; without it XLA may give the
        # marker the collective's layout (an all_gather along dim 1 gets {0,1}) and the
        # pass-through would transpose the data. Tokens and scalars: no dims.
        try:
            rank = ir.RankedTensorType(t).rank
        except ValueError:  # a token
            rank = 0
        return ir.DenseIntElementsAttr.get(np.arange(rank - 1, -1, -1, dtype=np.int64),
                                           type=ir.RankedTensorType.get([rank], ir.IndexType.get()))

    def marker(k: int, phase: str, values, sharding):
        ids = [ir.Operation.create(name, results=[u32]) for name in ("stablehlo.replica_id",
                                                                     "stablehlo.partition_id")]
        attrs = {"call_target_name": ir.StringAttr.get(target),
                 "has_side_effect": ir.BoolAttr.get(True),
                 "backend_config": ir.StringAttr.get(""),
                 "api_version": ir.IntegerAttr.get(ir.IntegerType.get_signless(32), 1),
                 "operand_layouts": ir.ArrayAttr.get([layout(u32), layout(u32)] + [layout(v.type) for v in values]),
                 "result_layouts": ir.ArrayAttr.get([layout(v.type) for v in values]),
                 "mhlo.backend_config": ir.DictAttr.get(
                     {"index": ir.IntegerAttr.get(ir.IntegerType.get_unsigned(64), recorder.add(phase, k))})}
        call = ir.Operation.create("stablehlo.custom_call", results=[v.type for v in values],
                                   operands=[ids[0].result, ids[1].result, *values], attributes=attrs)
        if sharding is not None:  # a GSPMD program's manual region: the markers are manual too
            n = len(values)
            for o in ids:
                o.attributes["mhlo.sharding"] = ir.StringAttr.get("{manual}")
            call.attributes["mhlo.sharding"] = ir.StringAttr.get(
                "{manual}" if n == 1 else "{" + ", ".join(["{manual}"] * n) + "}")
        return ids, call

    for k, op in enumerate(ops):
        sharding = op.attributes["mhlo.sharding"] if "mhlo.sharding" in op.attributes else None
        start, ends = _span(op)
        operands = list(start.operands)
        if operands:
            with ir.InsertionPoint(start):
                _, call = marker(k, "E", operands, sharding)
            for i, v in enumerate(call.results):
                start.operands[i] = v
        for end in ends:
            results = list(end.results)
            if results:
                with ir.InsertionPoint.after(end):
                    _, call = marker(k, "X", results, sharding)
                for old, new in zip(results, call.results):
                    old.replace_all_uses_except(new, call)
    return [o.name if label is None else label(o) for o in ops]


def _span(op):
    """Where a collective starts and ends on a device: the op itself, or, inside a
    stablehlo.async_start region (which must hold exactly that one op), the
    async_start and the async_done(s) of its future. A future that leaves its
    block (returned, passed to a call) cannot be followed: the caller compiles
    without markers and says so."""
    parent = op.parent
    if parent is None or parent.name != "stablehlo.async_start":
        return op, [op]
    parent = parent.operation
    ends = []
    for use in parent.results[0].uses:
        user = use.owner
        user = getattr(user, "operation", user)
        if user.name != "stablehlo.async_done":
            raise ValueError(f"the future of the async {op.name} is used by {user.name}; markers cannot follow it")
        ends.append(user)
    return parent, ends
