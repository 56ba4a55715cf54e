"""The XLA engine on XLA's HLO text (the parent side; no jax): run the module on
the grid its header names (`replica_count` x `num_partitions` virtual CPU
devices, or GPUs) in the same watchdogged worker as StableHLO (worker.py, which
compiles it with hlo/compiler.py), and report as local.py does: completed /
aborted / unsupported / timeout / error, with the blocked devices at their HLO
instruction (blocked.py).

Inputs: the entry's parameters, as the interpreter gets them too
(execute/device_inputs.py): zeros / seeded random / an .npz as for StableHLO; a
scheduled module's devices get the shards of one global value where a
parameter's sharding says so; an unscheduled module takes global arrays, which
the worker shards by the executable's parameter shardings.
"""
from __future__ import annotations

import tempfile
import time
from dataclasses import dataclass

from ....analysis.semantics import Grid
from ....frontend.hlo import HloText
from ...device_inputs import device_inputs
from ...values import ExecutionError, Inputs
from ..local import (CPU_DEVICES_PER_PROCESS, XlaOptions, XlaResult, classify, jax_available, launch_worker, outputs_of,
                     write_program)
from .blocked import abort_notes, progress
from .reading import HloModuleError, position, read_module
from .rewrite import host_callbacks

__all__ = ["HloRun", "run_hlo", "callback_notes"]


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
        module = read_module(text, path)
    except HloModuleError as e:
        return error(f"{path}:{e.line}:{e.column}: {e.message}")
    mode = "per_device" if module.is_scheduled else "global"
    R, P = module.replica_count, module.num_partitions
    if (num_replicas or R) != R or (num_partitions or P) != P:
        if module.is_scheduled:
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
    notes: list[str] = callback_notes(module)
    try:
        arrays = worker_arrays(device_inputs(module, inputs, grid, notes), grid)
    except (ExecutionError, HloModuleError) as e:
        where = f"{path}:{e.line}:{e.column}: " if isinstance(e, HloModuleError) else ""
        return error(where + e.message, grid, mode)
    platform = "cpu" if options.device == "cpu" else "gpu"
    spec = {"format": "hlo", "num_replicas": R, "num_partitions": P, "platform": platform, "mode": mode,
            "num_args": len({k.split("_")[0] for k in arrays}), "markers": True}
    with tempfile.TemporaryDirectory(prefix="shlo-lint-xla-hlo-") as tmp:
        write_program(tmp, arrays, text, "module.hlo")
        run = launch_worker(tmp, spec, options, t0)
        if run.result is not None and "line" in run.result:  # XLA's parser on the user's text
            run.result["message"] = f"{path}:{run.result['line']}:{run.result['column']}: {run.result['message']}"
        blocked, states, worker_notes = progress(tmp, path, module, grid)
        result = classify(run, tmp, spec, options, blocked, states, worker_notes + notes,
                          lambda npz, n: outputs_of(npz, n, grid, mode))
    if result.outcome in ("aborted", "timeout"):
        result.notes += abort_notes(run.log, module)
    return HloRun(result, grid, mode)


def callback_notes(module: HloText) -> list[str]:
    """A note per host callback whose results the program uses (pure_callback,
    io_callback with results): its Python function is not in the text, so it
    returns zeros here (compiler.host_callables)."""
    notes = []
    for name, results in host_callbacks(module).values():
        ins = next((i for i in module.instructions() if i.name == name), None)
        if results and ins is not None:
            notes.append(f"host callback %{name} (line {position(ins)[0]}) returns values computed by a Python "
                         f"function that is not in the text: here it returns zeros")
    return notes


def worker_arrays(arrays: dict, grid: Grid) -> dict:
    """device_inputs' arrays under the worker's keys: `arg{i}` (global) or
    `arg{i}_{flat}` (one device, by its flattened id)."""
    out = {}
    for key, value in arrays.items():
        name, *device = key.split("_")
        out[f"{name}_{grid.flat(int(device[0]), int(device[1]))}" if device else name] = value
    return out
