"""The XLA engine on XLA's HLO text: run the module on the grid its header names
(`replica_count` x `num_partitions` virtual CPU devices, or GPUs) in the same
watchdogged worker as StableHLO (worker.py, which compiles it with
hlo_compile.py), and report as local.py does: completed / aborted / unsupported /
timeout / error, with the blocked devices at their HLO instruction (name, line,
column and the while / conditional / call it runs in) from the progress markers,
and XLA:CPU's own abort lines mapped to the instructions they can mean.

Inputs: the entry's parameters, zeros / seeded random / an .npz as for
StableHLO. A scheduled module is per device: a parameter whose `sharding=` is
readable gets one global value (seeded as a global StableHLO argument) split as
the sharding says, so a replicated flag is the same on every device, as in the
jitted program; any other parameter gets its own value per device. An
unscheduled module takes global arrays, sharded by the executable's parameter
shardings. No jax in this process.
"""
from __future__ import annotations

import json
import os
import re
import tempfile
import time
from dataclasses import dataclass

import numpy as np

from ...analysis.semantics import Grid
from ...analysis.sharding import ShardingError, hlo_tiling
from ...ir.types import TensorType
from ..values import ExecutionError, Inputs, TOKEN
from .hlo_text import (Computation, HloTextError, Instr, Parameter, callers_of, check_long_form, element_type,
                       entry_parameters, instruction_index, read_header)
from .arrays import save_arrays
from .hlo_rewrite import host_callbacks
from .local import (CPU_DEVICES_PER_PROCESS, XlaOptions, XlaResult, classify, jax_available, launch_worker,
                    outputs_of)
from .markers import blocked_from_progress, read_progress


@dataclass
class HloRun:
    """An XLA run of HLO text, with what the report says about the program."""

    result: XlaResult
    grid: Grid | None
    mode: str
    """"per_device" (a scheduled module) or "global" (an unscheduled one); "?" when unread."""


def run_hlo(path: str, text: str, inputs: Inputs, options: XlaOptions | None = None,
            num_replicas: int | None = None, num_partitions: int | None = None) -> HloRun:
    """Run HLO text (the file at `path`, already read) on XLA. Never raises for bad
    text: an unreadable module is outcome "error" with path:line:col."""
    options = options or XlaOptions()
    t0 = time.monotonic()
    device = f"xla:{options.device}"

    def error(message: str, grid=None, mode="?") -> HloRun:
        return HloRun(XlaResult("error", {}, [], message, time.monotonic() - t0, device), grid, mode)

    try:
        header = read_header(text)
        comps = check_long_form(text)
        params = entry_parameters(comps)
    except HloTextError as e:
        return error(f"{path}:{e.line}:{e.column}: {e.message}")
    mode = "per_device" if header.is_scheduled else "global"
    R, P = header.replica_count, header.num_partitions
    if (num_replicas or R) != R or (num_partitions or P) != P:
        if header.is_scheduled:
            return error(f"the module is compiled (scheduled) for {R} replica(s) x {P} partition(s); "
                         f"--num-replicas / --num-partitions cannot change that", mode=mode)
        R, P = num_replicas or R, num_partitions or P
    grid = Grid(R, P, "module")
    if not jax_available():
        return HloRun(XlaResult("unsupported", {}, [], "the XLA engine needs jax: pip install 'shlo-lint[jax]'",
                                0.0, device), grid, mode)
    N = R * P
    if options.device == "cpu" and N > CPU_DEVICES_PER_PROCESS:
        return HloRun(XlaResult("unsupported", {}, [], f"the grid has {N} processes; XLA:CPU holds at most "
                                f"{CPU_DEVICES_PER_PROCESS} devices in one process", 0.0, device), grid, mode)
    notes: list[str] = callback_notes(text, comps)
    try:
        arrays = hlo_inputs(params, inputs, grid, mode, notes)
    except (ExecutionError, HloTextError) as e:
        where = f"{path}:{e.line}:{e.column}: " if isinstance(e, HloTextError) else ""
        return error(where + e.message, grid, mode)
    platform = "cpu" if options.device == "cpu" else "gpu"
    spec = {"format": "hlo", "num_replicas": R, "num_partitions": P, "platform": platform, "mode": mode,
            "num_args": len(params), "markers": True}
    with tempfile.TemporaryDirectory(prefix="shlo-lint-xla-hlo-") as tmp:
        save_arrays(os.path.join(tmp, "inputs.npz"), arrays)
        with open(os.path.join(tmp, "module.hlo"), "w", encoding="utf-8") as f:
            f.write(text)
        run = launch_worker(tmp, spec, options, t0)
        if run.result is not None and "line" in run.result:  # XLA's parser on the user's text
            run.result["message"] = f"{path}:{run.result['line']}:{run.result['column']}: {run.result['message']}"
        blocked, states, worker_notes = _progress(tmp, path, comps, grid)
        result = classify(run, tmp, spec, options, blocked, states, worker_notes + notes,
                          lambda npz, n: outputs_of(npz, n, grid, mode))
    if result.outcome in ("aborted", "timeout"):
        result.notes += abort_notes(run.log, comps)
    return HloRun(result, grid, mode)


def callback_notes(text: str, comps: dict[str, Computation]) -> list[str]:
    """A note per host callback whose results the program uses (pure_callback,
    io_callback with results): its Python function is not in the text, so it
    returns zeros here (hlo_compile.host_callables)."""
    index = instruction_index(comps)
    notes = []
    for name, results in host_callbacks(text).values():
        if results and name in index:
            ins = index[name][1]
            notes.append(f"host callback %{name} (line {ins.line + 1}) returns values computed by a Python "
                         f"function that is not in the text: here it returns zeros")
    return notes


# ----------------------------------------------------------------------------- inputs
def hlo_inputs(params: list[Parameter], inputs: Inputs, grid: Grid, mode: str, notes: list) -> dict:
    """Worker inputs: `arg{i}` (global) or `arg{i}_{flat}` (per device)."""
    local = [_tensor(p) for p in params]
    if mode == "global":
        return {f"arg{i}": np.asarray(a) for i, a in enumerate(_no_tokens(inputs.make(local, None)))}
    P = grid.num_partitions
    tilings: dict[int, object] = {}
    for i, p in enumerate(params):
        if p.sharding is None or P == 1:
            continue
        try:
            tiling = hlo_tiling(p.sharding, len(p.dims), P)
        except ShardingError as e:
            notes.append(f"parameter {p.number} (%{p.instr.name}): {e}; every device gets its own values")
            continue
        if tiling != "manual":
            tilings[i] = tiling
    global_types = [TensorType(tuple(tilings[i].global_shape(p.dims)), t.element) if i in tilings else t
                    for i, (p, t) in enumerate(zip(params, local))]
    shared = _no_tokens(inputs.make(global_types, None)) if tilings else []
    out = {}
    for replica, partition in grid.processes():
        flat = grid.flat(replica, partition)
        own = _no_tokens(inputs.make(local, (replica, partition), flat)) if len(tilings) < len(params) else []
        for i in range(len(params)):
            # a sharding's device ids are partition ids: every replica holds the same shards
            value = tilings[i].shard(shared[i], partition) if i in tilings else own[i]
            out[f"arg{i}_{flat}"] = np.ascontiguousarray(value)
    return out


def _tensor(p: Parameter) -> TensorType:
    element = element_type(p.element)
    if element is None:
        raise HloTextError(f"entry parameter %{p.instr.name} has element type {p.element}, which is not run",
                           p.instr.line + 1, p.instr.column)
    return TensorType(p.dims, element)


def _no_tokens(values: list) -> list:
    if any(v is TOKEN for v in values):
        raise ExecutionError("token arguments to the entry are not run by the XLA engine")
    return values


# ----------------------------------------------------------------------------- where devices are blocked
def _progress(tmp: str, path: str, comps: dict[str, Computation], grid: Grid):
    """(blocked, states, notes) from the devices' progress markers; each marked op
    is the HLO instruction the worker read from its label."""
    labels, notes = None, []
    try:
        with open(os.path.join(tmp, "markers.json"), encoding="utf-8") as f:
            data = json.load(f)
        labels = data["ops"]
        notes += [n for n in (data.get("note"), data.get("order")) if n]
    except (OSError, ValueError, KeyError):
        pass
    progress = read_progress(os.path.join(tmp, "progress.txt"))
    if not progress or labels is None:
        return [], {}, notes
    index = instruction_index(comps)
    ops = []
    for label in labels:
        if label in index:
            ins = index[label][1]
            ops.append((ins.opcode, ins.line + 1, ins.column, None, f"%{ins.name}"))
        else:
            ops.append((label, 0, 0, None))
    blocked, states = blocked_from_progress(progress, ops, [o[0] for o in ops], grid.processes(), path,
                                            "XLA rendezvous")
    callers = callers_of(comps)
    by_line = {ins.line + 1: (comp, ins) for comp, ins in index.values()}
    for b in blocked:
        if b.line in by_line:
            b.stack = call_stack(by_line[b.line][0], callers, path)
    return blocked, states, notes


def call_stack(comp: Computation, callers: dict, path: str) -> list[str]:
    """"while %w at path:line:col" for each instruction that runs `comp`, outermost
    first, as far as the chain is unique (a computation called from two places
    stops it: which one ran is not known)."""
    out: list[str] = []
    seen = set()
    while not comp.entry and comp.name not in seen:
        seen.add(comp.name)
        sites = callers.get(comp.name, [])
        if len(sites) != 1:
            break
        comp, ins = sites[0]
        out.append(f"{ins.opcode} %{ins.name} at {path}:{ins.line + 1}:{ins.column}")
    return out[::-1]


# ----------------------------------------------------------------------------- XLA's abort lines
_RENDEZVOUS = re.compile(r"(Termination timeout for|has been waiting for) `([\w ]+?) RendezvousKey\{([^}]*)\}`"
                         r".*?Expected (\d+) threads to join the rendezvous, but (?:only (\d+)|not all) of them")


def abort_notes(log: str, comps: dict[str, Computation]) -> list[str]:
    """One note per collective XLA:CPU gave up on (its termination lines; the
    stuck warnings when it was killed before): the collective kind, the device
    groups whose rendezvous failed, how many arrived, and the instructions it
    can be. Its `op_id` is the collective's channel_id (XLA:CPU's rendezvous
    key), so the candidates are the instructions of that kind with that channel."""
    found = _RENDEZVOUS.findall(log)
    final = [f for f in found if f[0].startswith("Termination")] or found
    groups: dict[tuple, list[tuple]] = {}
    for _, kind, key, expected, arrived in final:
        devices = re.search(r"global_devices=\[([\d, ]*)\]", key)
        op_id = re.search(r"op_id=(-?\d+)", key)
        ids = tuple(int(d) for d in devices.group(1).split(",") if d.strip()) if devices else ()
        what = (kind.replace(" ", "-"), op_id.group(1) if op_id else None, expected, arrived)
        if ids not in groups.setdefault(what, []):
            groups[what].append(ids)
    notes = []
    for (opcode, op_id, expected, arrived), device_groups in groups.items():
        candidates = _candidates(comps, opcode, op_id)
        text = (f"XLA:CPU gave up on the {opcode}{f' with op_id {op_id}' if op_id is not None else ''} of devices "
                f"{'; '.join(_ranges(g) for g in sorted(device_groups))}: expected {expected} participants, "
                f"{f'only {arrived}' if arrived else 'not all'} arrived")
        if candidates:
            text += "; " + ("the instruction" if len(candidates) == 1 else "one of the instructions") + \
                    f" of that kind{' with channel_id=' + op_id if op_id not in (None, '0') else ''}: " + \
                    ", ".join(f"%{i.name} (line {i.line + 1})" for i in candidates[:6]) + \
                    (" ..." if len(candidates) > 6 else "")
        notes.append(text)
    return notes


def _candidates(comps: dict[str, Computation], opcode: str, op_id: str | None) -> list[Instr]:
    kinds = (opcode, f"{opcode}-start")
    same_kind = [i for c in comps.values() for i in c.instrs if i.opcode in kinds]
    if op_id is None:
        return same_kind
    with_channel = [i for i in same_kind if (i.attr("channel_id") or "").strip() == op_id]
    return with_channel or [i for i in same_kind if i.attr("channel_id") is None]


def _ranges(ids: tuple[int, ...]) -> str:
    """0..7 for a run of consecutive devices, else the list."""
    if not ids:
        return "?"
    if len(ids) > 2 and list(ids) == list(range(ids[0], ids[0] + len(ids))):
        return f"{ids[0]}..{ids[-1]}"
    return ", ".join(map(str, ids))
