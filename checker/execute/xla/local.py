"""The XLA engine: compile the module with jaxlib for the process grid — N
virtual CPU devices (`--xla_force_host_platform_device_count=N`) or N GPUs —
run it in a subprocess (worker.py) under a watchdog, and classify:

* completed — with outputs (assembled global arrays, or per-device ones);
* aborted — XLA:CPU found a collective some participants never joined ("... may
  be stuck. Expected N threads to join the rendezvous") and terminated the
  process; the stuck-warning and termination timeouts are shortened so a hang
  costs seconds, not minutes. Which device is blocked at which op comes from the
  devices' own progress markers (markers.py), not from XLA's log, whose
  `[id=N]` is a rank inside one rendezvous, not a device;
* unsupported — XLA cannot run the program here ("UNIMPLEMENTED: HLO opcode
  send" on XLA:CPU, too few GPUs, no jax);
* timeout — the watchdog killed a run that neither finished nor aborted;
* error — compile or run errors (XLA's message is kept).

The worker gets a copy of the module; the user's file is never modified. The
subprocess inherits no network need: jax runs locally on CPU devices or local GPUs.
"""
from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field

import numpy as np

from ...ir.core import Module, func_type
from ...analysis.semantics import Grid
from ..interpreter import Blocked
from ..runtime import program_mode
from ..values import ExecutionError, Inputs, TOKEN


@dataclass
class XlaOptions:
    device: str = "cpu"
    """cpu (N virtual host devices) or gpu (needs at least N GPUs)."""
    timeout_s: float = 120.0
    """The watchdog: the whole subprocess (start, compile, run)."""
    stuck_warn_s: int = 2
    stuck_terminate_s: int = 10
    """XLA:CPU's collective rendezvous timeouts (its defaults are 20 s / 40 s)."""
    memory_bytes: int | None = None
    """Address-space limit for the subprocess (None: no limit; XLA reserves much more
    virtual memory than it uses, so keep this generous)."""


@dataclass
class XlaResult:
    outcome: str
    """completed | aborted | unsupported | timeout | error"""
    outputs: dict
    """None → assembled global outputs, or process → per-device outputs."""
    blocked: list[Blocked]
    message: str | None
    elapsed_s: float
    device: str
    log_tail: str = ""
    states: dict | None = None
    """process → "blocked" / "finished" when the run hung (from the progress markers)."""
    notes: list = field(default_factory=list)


_ARRIVED = re.compile(r"Expected (\d+) threads to join the rendezvous, but (?:only (\d+)|not all) of them")


CPU_DEVICES_PER_PROCESS = 2048
"""kMaxCpuDevicesPerProcess in XLA (xla/pjrt/plugin/xla_cpu/cpu_topology.h): CPU
device ids are packed as process_index * 2048 + local id, so a 4096-device grid in
one process fails ("Multiprocess computations aren't implemented on the CPU backend")."""


def worker_env(platform: str, devices: int, stuck_warn_s, stuck_terminate_s) -> dict:
    """The environment of an XLA worker process (this engine's and each process of
    xla-distributed's): `devices` CPU devices and the collective watchdog's
    timeouts on CPU, the caller's XLA_FLAGS otherwise kept; our import path."""
    env = dict(os.environ)
    flags = [f for f in env.get("XLA_FLAGS", "").split() if not f.startswith((
        "--xla_force_host_platform_device_count", "--xla_cpu_collective_call"))]
    if platform == "cpu":
        flags += [f"--xla_force_host_platform_device_count={devices}",
                  f"--xla_cpu_collective_call_warn_stuck_timeout_seconds={stuck_warn_s}",
                  f"--xla_cpu_collective_call_terminate_timeout_seconds={stuck_terminate_s}"]
        env["JAX_PLATFORMS"] = "cpu"
    else:
        env.pop("JAX_PLATFORMS", None)
    env["XLA_FLAGS"] = " ".join(flags)
    env["TF_CPP_MIN_LOG_LEVEL"] = env.get("TF_CPP_MIN_LOG_LEVEL", "1")
    env["PYTHONPATH"] = os.pathsep.join([p for p in sys.path if p] + [env.get("PYTHONPATH", "")])
    return env


def jax_available() -> bool:
    try:
        import importlib.util

        return importlib.util.find_spec("jax") is not None and importlib.util.find_spec("jaxlib") is not None
    except (ImportError, ValueError):  # pragma: no cover
        return False


def preflight(module: Module, grid: Grid, device: str):
    """(the entry function's type, None), or (None, the XlaResult saying why
    nothing can run): no jax, an unknown grid, no readable entry. Shared by the
    xla engine and xla-distributed."""
    if not jax_available():
        return None, XlaResult("unsupported", {}, [], "the XLA engine needs jax: pip install 'shlo-lint[jax]'",
                               0.0, device)
    if not grid.known:
        return None, XlaResult("error", {}, [], "the process grid is unknown (pass --num-partitions / "
                                                "--num-replicas)", 0.0, device)
    entry = module.entry_function()
    ftype = func_type(entry) if entry is not None else None
    if ftype is None:
        return None, XlaResult("error", {}, [], "no entry function with a readable signature", 0.0, device)
    return ftype, None


def run_xla(module: Module, grid: Grid, inputs: Inputs, options: XlaOptions | None = None) -> XlaResult:
    options = options or XlaOptions()
    t0 = time.monotonic()
    device = f"xla:{options.device}"
    ftype, refused = preflight(module, grid, device)
    if refused is not None:
        return refused
    mode = program_mode(module)
    R, P = grid.num_replicas, grid.num_partitions
    N = R * P
    if options.device == "cpu" and N > CPU_DEVICES_PER_PROCESS:
        return XlaResult("unsupported", {}, [], f"the grid has {N} processes; XLA:CPU holds at most "
                         f"{CPU_DEVICES_PER_PROCESS} devices in one process (global device id = process * "
                         f"{CPU_DEVICES_PER_PROCESS} + local id); try --engine xla-distributed", 0.0, device)
    with tempfile.TemporaryDirectory(prefix="shlo-lint-xla-") as tmp:
        try:
            arrays = worker_inputs(inputs, list(ftype.inputs), grid, mode)
        except ExecutionError as e:
            return XlaResult("error", {}, [], e.message, 0.0, device)
        np.savez(os.path.join(tmp, "inputs.npz"), **arrays)
        with open(os.path.join(tmp, "module.mlir"), "w", encoding="utf-8") as f:
            f.write(module.source.text)
        platform = "cpu" if options.device == "cpu" else "gpu"
        with open(os.path.join(tmp, "spec.json"), "w", encoding="utf-8") as f:
            json.dump({"num_replicas": R, "num_partitions": P, "platform": platform, "mode": mode,
                       "num_args": len(ftype.inputs), "markers": True}, f)
        env = worker_env(platform, N, options.stuck_warn_s, options.stuck_terminate_s)
        cmd = [sys.executable, "-m", "shlo_lint.checker.execute.xla.worker", tmp]
        if options.memory_bytes:
            env["SHLO_LINT_XLA_MEMORY_BYTES"] = str(int(options.memory_bytes))  # the worker limits itself
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL,
                                env=env, start_new_session=True)
        try:
            out, err = proc.communicate(timeout=options.timeout_s)
            timed_out = False
        except subprocess.TimeoutExpired:
            _kill(proc)
            out, err = proc.communicate()
            timed_out = True
        log = (out or b"").decode("utf-8", "replace") + (err or b"").decode("utf-8", "replace")
        elapsed = time.monotonic() - t0
        result_path = os.path.join(tmp, "result.json")
        result = None
        if os.path.exists(result_path):
            with open(result_path, encoding="utf-8") as f:
                result = json.load(f)
        tail = log_tail(log)
        blocked, states, notes = progress_of(tmp, module, grid)
        if timed_out:
            phase = last_phase(log)
            return XlaResult("timeout", {}, blocked,
                             f"watchdog: no result after {options.timeout_s:g} s (last phase: {phase})",
                             elapsed, device, tail, states, notes=notes)
        if result is None:
            if "may be stuck" in log or "Termination timeout" in log:
                found = _ARRIVED.findall(log)
                m = next((x for x in found if x[1]), found[0] if found else None)
                detail = ""
                if m:
                    detail = f" (expected {m[0]} participants" + (f", {m[1]} arrived)" if m[1] else ")")
                return XlaResult("aborted", {}, blocked,
                                 f"XLA:{platform.upper()} aborted a collective rendezvous that not every "
                                 f"participant joined{detail}", elapsed, device, tail, states, notes=notes)
            code = proc.returncode
            how = f"signal {signal.Signals(-code).name}" if code and code < 0 and -code in signal.valid_signals() \
                else f"exit status {code}"
            return XlaResult("error", {}, [], f"the XLA subprocess died ({how}) while in phase {last_phase(log)}",
                             elapsed, device, tail, notes=notes)
        status = result["status"]
        if status == "completed":
            outs = _outputs(os.path.join(tmp, "outputs.npz"), result["num_outputs"], grid, mode)
            device = f"xla:{platform} ({result.get('device_kind', platform)} x{N})"
            return XlaResult("completed", outs, [], None, elapsed, device, tail, notes=notes)
        if status == "unsupported":
            return XlaResult("unsupported", {}, [], result["message"], elapsed, device, tail, notes=notes)
        return XlaResult("error", {}, [], result.get("message"), elapsed, device, result.get("detail", tail),
                         notes=notes)


def _kill(proc: subprocess.Popen) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        proc.kill()


def log_tail(log: str, n: int = 4000) -> str:
    lines = [ln for ln in log.splitlines() if not ln.lstrip().startswith("@ ")]
    return "\n".join(lines)[-n:]


def last_phase(log: str) -> str:
    phases = re.findall(r"shlo-lint-xla: (\w+)", log)
    return phases[-1] if phases else "start"


def worker_inputs(inputs: Inputs, types, grid: Grid, mode: str) -> dict:
    """The same values the interpreter binds (same seeds), keyed for the worker."""
    out = {}
    if mode == "global":
        for i, a in enumerate(inputs.make(types, None)):
            if a is TOKEN:
                raise ExecutionError("token arguments to the entry are not run by the XLA engine")
            out[f"arg{i}"] = np.asarray(a)
        return out
    for r, p in grid.processes():
        flat = grid.flat(r, p)
        for i, a in enumerate(inputs.make(types, (r, p), flat)):
            if a is TOKEN:
                raise ExecutionError("token arguments to the entry are not run by the XLA engine")
            out[f"arg{i}_{flat}"] = np.asarray(a)
    return out


def _outputs(path: str, n: int, grid: Grid, mode: str) -> dict:
    with np.load(path, allow_pickle=False) as data:
        files = set(data.files)
        if mode == "global" and all(f"out{i}" in files for i in range(n)):
            return {None: [np.array(data[f"out{i}"]) for i in range(n)]}
        out: dict = {}
        for r, p in grid.processes():
            flat = grid.flat(r, p)
            vals = []
            for i in range(n):
                key = f"out{i}_{flat}" if f"out{i}_{flat}" in files else f"out{i}"
                vals.append(np.array(data[key]) if key in files else None)
            out[(r, p)] = vals
        return out


def progress_of(tmp: str, module: Module, grid: Grid) -> tuple[list[Blocked], dict, list[str]]:
    """Blocked processes and states from the worker's progress markers (+ notes)."""
    from .markers import blocked_from_progress, comm_ops, read_progress

    worker_ops, notes = None, []
    try:
        with open(os.path.join(tmp, "markers.json"), encoding="utf-8") as f:
            data = json.load(f)
        worker_ops = data["ops"]
        if data.get("note"):
            notes.append(data["note"])
    except (OSError, ValueError, KeyError):
        pass
    progress = read_progress(os.path.join(tmp, "progress.txt"))
    if not progress:
        return [], {}, notes
    blocked, states = blocked_from_progress(progress, comm_ops(module), worker_ops, grid.processes(),
                                            module.source.path, "XLA rendezvous")
    return blocked, states, notes
