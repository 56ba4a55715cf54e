"""The distributed XLA engine (`shlo-lint run --engine xla-distributed [-n N]`):
the program runs as a real multi-process job, N OS processes that rendezvous
over TCP, which is what a multi-host job is.

Each process (dist_worker.py) calls `jax.distributed.initialize(
coordinator_address, num_processes=N, process_id=i)` (process 0 hosts the
coordination service), uses CPU collectives over gloo and
`--xla_force_host_platform_device_count=L` local devices (L = grid size / N),
and compiles the module for the global device assignment: grid process f runs
on global device f, held by OS process f // L.

The parent here picks a free port, starts the processes (each in its own
process group), and watches them:

* every process wrote its result → completed (outputs assembled from every
  process's shards), or unsupported / error;
* every process is running the program but no progress record has changed for
  `stuck_s` seconds and some have not returned → deadlock: the processes that did
  not return are blocked, each at the op its own devices' last progress record
  names (markers.py);
* a process died (XLA aborted an in-process rendezvous of its local devices) →
  aborted, with the blocked devices from the records;
* `timeout_s` passed → timeout.

Every process group is killed and reaped at the end, whatever happened.

Several hosts: the same worker runs on each host with the same coordinator
address (host 0's, reachable from the others) and its own process ids
(`--coordinator HOST:PORT --process-id I`); see docs/execution.md.
"""
from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass

import numpy as np

from ...ir.core import Module
from ...analysis.semantics import Grid
from ..runtime import fmt_pid, program_mode
from ..values import ExecutionError, Inputs, sharding_errors
from .arrays import load_arrays
from .local import XlaResult, worker_inputs, last_phase, log_tail, preflight, worker_env, write_program
from .markers import blocked_from_progress, comm_ops, read_progress


@dataclass
class DistOptions:
    num_processes: int | None = None
    """OS processes (-n); None: one per grid process up to 4, else the largest divisor <= 4."""
    device: str = "cpu"
    timeout_s: float = 120.0
    """The watchdog for the whole job (start, initialize, compile, run)."""
    stuck_s: float = 10.0
    """No progress for this long while every process runs the program: a hang."""
    stuck_warn_s: int = 2
    stuck_terminate_s: int = 10
    """XLA:CPU's rendezvous timeouts for the devices inside one process."""
    coordinator: str | None = None
    """host:port of process 0's coordination service; None: 127.0.0.1 and a free port."""
    process_ids: list[int] | None = None
    """The processes this machine runs (None: all of them, the single-host case)."""
    gpus_per_host: int | None = None
    """--device gpu: the GPUs of one host, shared by the processes started on it
    (process i takes GPUs (i*L) mod G .. +L); None: each process sees what jax
    gives it (one process per host, or CUDA_VISIBLE_DEVICES set per process)."""
    max_devices: int = 64
    """Gloo connects every pair of devices (each device is a rank): N devices open
    about N*N/2 TCP connections, so large grids are refused rather than left to
    exhaust file descriptors (the single-process --engine xla runs up to 2048)."""


def default_processes(n_devices: int) -> int:
    """One OS process per grid process for small grids; else the largest divisor <= 4
    (every process must hold the same number of devices)."""
    return max(d for d in range(1, min(4, n_devices) + 1) if n_devices % d == 0)


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def run_distributed(module: Module, grid: Grid, inputs: Inputs, options: DistOptions | None = None) -> XlaResult:
    options = options or DistOptions()
    device = f"xla-distributed:{options.device}"
    ftype, refused = preflight(module, grid, device)
    if refused is not None:
        return refused
    R, P = grid.num_replicas, grid.num_partitions
    N = R * P
    if N > options.max_devices:
        return XlaResult("unsupported", {}, [], f"the grid has {N} processes; the distributed engine runs at most "
                         f"{options.max_devices} devices (gloo opens a TCP connection per pair of devices); "
                         f"try --engine xla", 0.0, device)
    n = options.num_processes or default_processes(N)
    if n < 1 or N % n:
        return XlaResult("error", {}, [], f"-n {n}: the {N} devices of the grid do not split evenly into "
                                          f"{n} processes", 0.0, device)
    L = N // n
    ids = list(range(n)) if options.process_ids is None else list(options.process_ids)
    if any(not 0 <= i < n for i in ids):
        return XlaResult("error", {}, [], f"process ids must be in 0..{n - 1}", 0.0, device)
    mode = program_mode(module)
    platform = "cpu" if options.device == "cpu" else "gpu"
    t0 = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="shlo-lint-xladist-") as tmp:
        try:
            arrays = worker_inputs(inputs, list(ftype.inputs), grid, mode)
        except ExecutionError as e:
            return XlaResult("error", {}, [], e.message, 0.0, device)
        write_program(tmp, arrays, module.source.text)
        for attempt in range(2):
            coordinator = options.coordinator or f"127.0.0.1:{free_port()}"
            with open(os.path.join(tmp, "spec.json"), "w", encoding="utf-8") as f:
                json.dump({"num_replicas": R, "num_partitions": P, "platform": platform, "mode": mode,
                           "num_args": len(ftype.inputs), "coordinator": coordinator, "num_processes": n,
                           "local_devices": L, "timeout_s": options.timeout_s,
                           "init_timeout_s": max(10, int(options.timeout_s)),
                           "gpus_per_host": options.gpus_per_host or (N if platform == "gpu" and
                                                                       options.process_ids is None else None)}, f)
            procs = _start(tmp, ids, L, platform, options)
            try:
                ending = _watch(tmp, procs, options, t0)
            finally:
                for p in procs.values():
                    _kill(p)
            if attempt or options.coordinator or not _port_lost(tmp, ids):
                break
            for name in os.listdir(tmp):  # the free port was taken before process 0 bound it: once more
                if name.startswith(("result_", "log_", "progress_", "markers_", "outputs_")):
                    os.remove(os.path.join(tmp, name))
        elapsed = time.monotonic() - t0
        return _classify(tmp, module, grid, mode, ids, L, procs, ending, elapsed, coordinator, options)


def _port_lost(tmp: str, ids: list[int]) -> bool:
    """Process 0 could not start the coordination service (e.g. another program took
    the port between free_port() and process 0 binding it)."""
    return 0 in ids and _init_failed(tmp, 0)


def _init_failed(tmp: str, i: int) -> bool:
    return "jax.distributed.initialize failed" in _read(os.path.join(tmp, f"result_{i}.json"))


def _start(tmp: str, ids: list[int], L: int, platform: str, options: DistOptions) -> dict:
    env = worker_env(platform, L, options.stuck_warn_s, options.stuck_terminate_s)
    procs = {}
    for i in ids:
        log = open(os.path.join(tmp, f"log_{i}.txt"), "wb")
        try:
            procs[i] = subprocess.Popen([sys.executable, "-m", "shlo_lint.checker.execute.xla.dist_worker", tmp,
                                         str(i)], stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                        env=env, start_new_session=True)
        finally:
            log.close()
    return procs


def _read(path: str) -> str:
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return f.read()
    except OSError:
        return ""


def _watch(tmp: str, procs: dict, options: DistOptions, t0: float) -> str:
    """Poll until every process has a result or died ("done"), a hang ("stuck"), or
    the watchdog ("timeout")."""
    last_sig, last_change = None, time.monotonic()
    while True:
        time.sleep(0.1)
        now = time.monotonic()
        done = {i for i in procs if os.path.exists(os.path.join(tmp, f"result_{i}.json"))}
        dead = {i for i, p in procs.items() if p.poll() is not None}
        if done | dead >= set(procs) or (0 in done and _init_failed(tmp, 0)):
            return "done"  # (without process 0's coordinator the others wait for nothing)
        # a process that died (XLA aborted its local rendezvous, a crash) waits for nothing
        running = all(i in done or i in dead or "shlo-lint-xla: run" in _read(os.path.join(tmp, f"log_{i}.txt"))
                      for i in procs)
        sig = (tuple(_size(os.path.join(tmp, f"progress_{i}.txt")) for i in procs), len(done), running)
        if sig != last_sig:
            last_sig, last_change = sig, now
        if running and now - last_change >= options.stuck_s:
            return "stuck"
        if now - t0 >= options.timeout_s:
            return "timeout"


def _size(path: str) -> int:
    try:
        return os.path.getsize(path)
    except OSError:
        return -1


def _kill(proc: subprocess.Popen) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        proc.kill()
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:  # pragma: no cover - SIGKILL does not wait on anything
        pass


def _classify(tmp: str, module: Module, grid: Grid, mode: str, ids: list[int], L: int, procs: dict,
              ending: str, elapsed: float, coordinator: str, options: DistOptions) -> XlaResult:
    results = {}
    for i in ids:
        text = _read(os.path.join(tmp, f"result_{i}.json"))
        results[i] = json.loads(text) if text else None
    logs = {i: _read(os.path.join(tmp, f"log_{i}.txt")) for i in ids}
    n = _job_size(L, grid)
    here = f"{len(procs)} processes" if len(procs) == n else f"{len(procs)} of {n} processes here"
    device = f"xla-distributed:{options.device} ({here} x {L} device{'s' if L > 1 else ''}, " \
             f"coordinator {coordinator})"
    tail = "\n".join(f"--- process {i}\n{log_tail(logs[i], 1500)}" for i in ids)
    marker_notes = []
    worker_ops = None
    for i in ids:
        try:
            data = json.loads(_read(os.path.join(tmp, f"markers_{i}.json")))
        except ValueError:
            continue
        if worker_ops is None:
            worker_ops = data.get("ops")
        if data.get("note") and data["note"] not in marker_notes:
            marker_notes.append(data["note"])
    statuses = [r["status"] if r else None for r in results.values()]
    first = next((r for r in results.values() if r and r["status"] != "completed"), None)
    if all(s == "completed" for s in statuses):
        outs = _outputs(tmp, results, grid, mode, ids, L)
        kind = results[ids[0]].get("device_kind", options.device)
        device = f"xla-distributed:{options.device} ({kind}; {here} x {L}, coordinator {coordinator})"
        return XlaResult("completed", outs, [], None, elapsed, device, tail,
                         notes=marker_notes + ([f"process {i} of {n}: completed" for i in ids]
                                               if len(procs) < n else []))
    if first is not None and first["status"] == "unsupported":
        return XlaResult("unsupported", {}, [], first["message"], elapsed, device, tail)
    if first is not None and first["status"] in ("compile_error", "error") and ending == "done":
        return XlaResult("error", {}, [], first["message"], elapsed, device, first.get("detail", tail))

    # a hang, an abort or a crash: who is blocked where, from the records
    progress: dict = {}
    for i in ids:
        progress.update(read_progress(os.path.join(tmp, f"progress_{i}.txt")))
    finished = {q for i in ids if results[i] and results[i]["status"] == "completed"
                for q in _devices(grid, i, L)}
    for q in finished:  # a process that returned is not blocked, whatever its last record
        progress.pop(q, None)
    mine = [q for i in ids for q in _devices(grid, i, L)]
    blocked, states = blocked_from_progress(progress, comm_ops(module), worker_ops, mine, module.source.path,
                                            "gloo / XLA rendezvous")
    notes = list(marker_notes)
    for i in ids:
        devs = _devices(grid, i, L)
        r = results[i]
        who = f"process {i} of {n} (device{'s' if L > 1 else ''} " \
              f"{', '.join(fmt_pid(q) for q in devs[:4])}{' ...' if L > 4 else ''})"
        mine_b = [b for b in blocked if b.process in devs]
        if r and r["status"] == "completed":
            notes.append(f"{who}: completed")
        elif mine_b:
            b = mine_b[0]
            notes.append(f"{who}: did not return; blocked at {b.op}" + (f" (line {b.line})" if b.line else ""))
        elif r:
            notes.append(f"{who}: {r['status']}: {r.get('message')}")
        else:
            code = procs[i].returncode
            phase = last_phase(logs[i])
            notes.append(f"{who}: " + (f"did not return (last phase: {phase})" if ending != "done"
                                       else f"died in phase {phase} (exit status {code})"))
    aborted = any(("may be stuck" in log or "Termination timeout" in log) for log in logs.values())
    n_out = sum(1 for i in ids if not (results[i] and results[i]["status"] == "completed"))
    if ending == "stuck" and blocked:
        return XlaResult("deadlock", {}, blocked,
                         f"{n_out} of {len(ids)} processes did not return: no progress for {options.stuck_s:g} s "
                         f"while they wait in collectives", elapsed, device, tail, states, notes)
    if aborted or (ending == "done" and blocked):
        return XlaResult("aborted", {}, blocked, "a process stopped at a collective rendezvous that not every "
                                                 "participant joined", elapsed, device, tail, states, notes)
    if ending in ("timeout", "stuck"):
        return XlaResult("timeout", {}, blocked, f"watchdog: no result after {elapsed:.0f} s", elapsed, device,
                         tail, states, notes)
    msg = first["message"] if first else "a process died without a result"
    return XlaResult("error", {}, [], msg, elapsed, device, tail, notes=notes)


def _job_size(L: int, grid: Grid) -> int:
    """How many processes the whole job has (L devices each)."""
    return grid.num_replicas * grid.num_partitions // L


def _devices(grid: Grid, i: int, L: int) -> list[tuple[int, int]]:
    return [grid.unflat(f) for f in range(i * L, (i + 1) * L)]


def _outputs(tmp: str, results: dict, grid: Grid, mode: str, ids: list[int], L: int) -> dict:
    from ...analysis.sharding import hlo_tiling

    shards: dict[str, dict[int, np.ndarray]] = {}
    for i in ids:
        for key, a in load_arrays(os.path.join(tmp, f"outputs_{i}.npz")).items():
            name, flat = key.rsplit("_", 1)
            shards.setdefault(name, {})[int(flat)] = a
    texts = results[ids[0]]["shardings"]
    n = len(texts)
    N = grid.num_replicas * grid.num_partitions
    complete = len(ids) * L == N
    tilings = []
    for k in range(n):
        host = shards.get(f"out{k}", {})
        first = next(iter(host.values()), None)
        with sharding_errors():
            t = "manual" if mode == "per_device" or first is None or not complete else \
                hlo_tiling(texts[k], first.ndim, N)
        tilings.append(t)
    if all(t != "manual" for t in tilings):
        with sharding_errors():
            return {None: [tilings[k].assemble(shards[f"out{k}"]) for k in range(n)]}
    out: dict = {}
    for i in ids:
        for f in range(i * L, (i + 1) * L):
            out[grid.unflat(f)] = [shards.get(f"out{k}", {}).get(f) for k in range(n)]
    return out
