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
from ..availability import jax_available, jax_missing
from ..interpreter import Blocked
from ..runtime import program_mode
from ..values import ExecutionError, Inputs, TOKEN
from .arrays import load_arrays, save_arrays


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


GPU_STUCK_FLAGS = ("--xla_gpu_executable_warn_stuck_timeout", "--xla_gpu_executable_terminate_timeout",
                   "--xla_gpu_first_collective_call_warn_stuck_timeout_seconds",
                   "--xla_gpu_first_collective_call_terminate_timeout_seconds")
"""XLA:GPU's rendezvous timeouts (warn, terminate; then the same for a program's first
collective call, whose defaults are longer). Their defaults (10 s / 30 s, 20 s / 40 s in
xla/debug_options_flags.cc) would make a hang wait out the watchdog, so a GPU run gets
the CPU run's timeouts. The first two flags are named without `_seconds` on the
command line, unlike their DebugOptions fields."""


def worker_env(platform: str, devices: int, stuck_warn_s, stuck_terminate_s) -> dict:
    """The environment of an XLA worker process (this engine's and each process of
    xla-distributed's): `devices` CPU devices on CPU, the collective watchdog's
    timeouts on CPU and GPU, the caller's XLA_FLAGS otherwise kept; our import path."""
    env = dict(os.environ)
    flags = [f for f in env.get("XLA_FLAGS", "").split() if not f.startswith((
        "--xla_force_host_platform_device_count", "--xla_cpu_collective_call", *GPU_STUCK_FLAGS))]
    if platform == "cpu":
        flags += [f"--xla_force_host_platform_device_count={devices}",
                  f"--xla_cpu_collective_call_warn_stuck_timeout_seconds={stuck_warn_s}",
                  f"--xla_cpu_collective_call_terminate_timeout_seconds={stuck_terminate_s}"]
        env["JAX_PLATFORMS"] = "cpu"
    else:
        warn, terminate = GPU_STUCK_FLAGS[0::2], GPU_STUCK_FLAGS[1::2]
        flags += [f"{f}={stuck_warn_s}" for f in warn] + [f"{f}={stuck_terminate_s}" for f in terminate]
        env.pop("JAX_PLATFORMS", None)
    env["XLA_FLAGS"] = " ".join(flags)
    env["TF_CPP_MIN_LOG_LEVEL"] = env.get("TF_CPP_MIN_LOG_LEVEL", "1")
    env["PYTHONPATH"] = os.pathsep.join([p for p in sys.path if p] + [env.get("PYTHONPATH", "")])
    return env


def preflight(module: Module, grid: Grid, device: str):
    """(the entry function's type, None), or (None, the XlaResult saying why
    nothing can run): no jax, an unknown grid, no readable entry. Shared by the
    xla engine and xla-distributed."""
    if not jax_available():
        return None, XlaResult("unsupported", {}, [], jax_missing("the XLA engine"), 0.0, device)
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
        write_program(tmp, arrays, module.source.text)
        platform = "cpu" if options.device == "cpu" else "gpu"
        spec = {"num_replicas": R, "num_partitions": P, "platform": platform, "mode": mode,
                "num_args": len(ftype.inputs), "markers": True}
        run = launch_worker(tmp, spec, options, t0)
        blocked, states, notes = progress_of(tmp, module, grid)
        return classify(run, tmp, spec, options, blocked, states, notes,
                        lambda path, n: outputs_of(path, n, grid, mode))


@dataclass
class WorkerRun:
    """What one worker subprocess left behind."""

    timed_out: bool
    log: str
    """stdout and stderr together."""
    result: dict | None
    """result.json, when the worker got as far as writing it."""
    returncode: int | None
    elapsed_s: float


def launch_worker(tmp: str, spec: dict, options: XlaOptions, t0: float) -> WorkerRun:
    """Write spec.json into tmp (which holds the module and inputs.npz), run the
    worker on it under the watchdog, and collect what it left."""
    with open(os.path.join(tmp, "spec.json"), "w", encoding="utf-8") as f:
        json.dump(spec, f)
    N = spec["num_replicas"] * spec["num_partitions"]
    env = worker_env(spec["platform"], N, options.stuck_warn_s, options.stuck_terminate_s)
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
    result = None
    result_path = os.path.join(tmp, "result.json")
    if os.path.exists(result_path):
        with open(result_path, encoding="utf-8") as f:
            result = json.load(f)
    return WorkerRun(timed_out, log, result, proc.returncode, time.monotonic() - t0)


def classify(run: WorkerRun, tmp: str, spec: dict, options: XlaOptions, blocked: list, states: dict,
             notes: list, outputs) -> XlaResult:
    """The outcome of a worker run: timeout, aborted (XLA:CPU's rendezvous
    watchdog), error (the process died otherwise, or XLA refused the program),
    unsupported, or completed with `outputs(outputs.npz path, number of outputs)`."""
    platform = spec["platform"]
    N = spec["num_replicas"] * spec["num_partitions"]
    device = f"xla:{options.device}"
    tail = log_tail(run.log)
    if run.timed_out:
        return XlaResult("timeout", {}, blocked,
                         f"watchdog: no result after {options.timeout_s:g} s (last phase: {last_phase(run.log)})",
                         run.elapsed_s, device, tail, states, notes=notes)
    result = run.result
    if result is None:
        if "may be stuck" in run.log or "Termination timeout" in run.log:
            found = _ARRIVED.findall(run.log)
            m = next((x for x in found if x[1]), found[0] if found else None)
            detail = ""
            if m:
                detail = f" (expected {m[0]} participants" + (f", {m[1]} arrived)" if m[1] else ")")
            return XlaResult("aborted", {}, blocked,
                             f"XLA:{platform.upper()} aborted a collective rendezvous that not every "
                             f"participant joined{detail}", run.elapsed_s, device, tail, states, notes=notes)
        code = run.returncode
        how = f"signal {signal.Signals(-code).name}" if code and code < 0 and -code in signal.valid_signals() \
            else f"exit status {code}"
        return XlaResult("error", {}, [], f"the XLA subprocess died ({how}) while in phase {last_phase(run.log)}",
                         run.elapsed_s, device, tail, notes=notes)
    status = result["status"]
    if status == "completed":
        outs = outputs(os.path.join(tmp, "outputs.npz"), result["num_outputs"])
        device = f"xla:{platform} ({result.get('device_kind', platform)} x{N})"
        return XlaResult("completed", outs, [], None, run.elapsed_s, device, tail, notes=notes)
    if status == "unsupported":
        return XlaResult("unsupported", {}, [], result["message"], run.elapsed_s, device, tail, notes=notes)
    return XlaResult("error", {}, [], result.get("message"), run.elapsed_s, device, result.get("detail", tail),
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


def write_program(tmp: str, arrays: dict, text: str, name: str = "module.mlir") -> None:
    """What a worker reads from its folder: its inputs (inputs.npz) and the program's text."""
    save_arrays(os.path.join(tmp, "inputs.npz"), arrays)
    with open(os.path.join(tmp, name), "w", encoding="utf-8") as f:
        f.write(text)


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


def outputs_of(path: str, n: int, grid: Grid, mode: str) -> dict:
    """The worker's outputs.npz: {None: global arrays} when every output was
    assembled, else process -> its arrays (None where one is missing)."""
    data = load_arrays(path)
    if mode == "global" and all(f"out{i}" in data for i in range(n)):
        return {None: [data[f"out{i}"] for i in range(n)]}
    out: dict = {}
    for r, p in grid.processes():
        flat = grid.flat(r, p)
        keys = [f"out{i}_{flat}" if f"out{i}_{flat}" in data else f"out{i}" for i in range(n)]
        out[(r, p)] = [data.get(k) for k in keys]
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
