"""Real multi-process `jax.distributed` jobs for `shlo_lint.check_hosts` (tests/test_check_hosts.py).

`run_job(case, processes=2)` starts the processes of one job on this machine
(gloo CPU collectives, 2 devices each, the coordination service on process 0 at
a free port), each in its own process group, each lowering its own variant of a
shard_map step and calling `check_hosts` on it (or not: `absent` leaves process
1 out); every process writes what check_hosts returned and how long it took,
then waits to be killed (a process that exits early would take the coordination
service with it: corpus/hosts/README.md). The parent kills every group when
all results are in, or at `limit_s`, whatever happened.

    python tests/hosts_job.py CASE            # prints the results as JSON
"""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
LOCAL = 2
"""Devices per process."""

CASES = {
    # case: (what process 0 runs, what process 1 runs, check_hosts timeout on each, lowered or compiled)
    "identical": ("psum", "psum", 20.0, "lowered"),
    "extra_collective": ("psum", "psum_twice", 20.0, "lowered"),
    "different_reduction": ("psum", "pmax", 20.0, "lowered"),
    "different_reduction_compiled": ("psum", "pmax", 20.0, "compiled"),
    "absent": ("psum", None, 4.0, "lowered"),
}


def _step(variant: str):
    from jax import lax

    if variant == "psum":
        return lambda x: lax.psum(x, "hosts")
    if variant == "pmax":
        return lambda x: lax.pmax(x, "hosts")
    if variant == "psum_twice":
        return lambda x: lax.psum(lax.psum(x, "hosts"), "hosts")
    raise ValueError(variant)


def worker(case: str, pid: int, processes: int, port: int, out: str) -> None:
    os.environ["XLA_FLAGS"] = f"--xla_force_host_platform_device_count={LOCAL}"
    os.environ["JAX_PLATFORMS"] = "cpu"
    import jax
    import numpy as np
    from jax.sharding import Mesh, PartitionSpec as P

    jax.config.update("jax_cpu_collectives_implementation", "gloo")
    jax.distributed.initialize(f"127.0.0.1:{port}", num_processes=processes, process_id=pid,
                               initialization_timeout=30)
    variants = CASES[case]
    variant = variants[pid] if pid < 2 else variants[0]
    record = {"pid": pid, "variant": variant}
    path = Path(out) / f"result_{pid}.json"
    if variant is None:  # this process never calls check_hosts (it makes its devices, as every process
        jax.devices()      # of a job must before any can: the CPU client's set-up waits for all of them)
        record["called"] = False
        path.write_text(json.dumps(record))
        time.sleep(3600)
    mesh = Mesh(np.array(jax.devices()).reshape(processes, LOCAL), ("hosts", "local"))
    f = jax.jit(jax.shard_map(_step(variant), mesh=mesh, in_specs=P(("hosts", "local")),
                              out_specs=P(("hosts", "local")), check_vma=False))
    x = jax.ShapeDtypeStruct((processes * LOCAL, 4), np.float32)
    obj = f.lower(x)
    if variants[3] == "compiled":
        obj = obj.compile()
    import shlo_lint
    from shlo_lint.hosts_api import my_devices, program_text

    record["devices"] = my_devices(obj, program_text(obj))
    t = time.monotonic()
    try:
        found = shlo_lint.check_hosts(obj, timeout=variants[2])
        record["codes"] = [d.code for d in found]
        record["messages"] = [d.message for d in found]
        record["report"] = found.report()
        record["check_seconds"] = round(time.monotonic() - t, 2)
        t2 = time.monotonic()
        try:
            shlo_lint.assert_same_on_hosts(obj, timeout=variants[2])
            record["assert"] = "passed"
        except AssertionError as e:
            record["assert"] = "raised: " + str(e).splitlines()[0]
        record["assert_seconds"] = round(time.monotonic() - t2, 2)
    except Exception as e:  # noqa: BLE001 - what it raised is the result
        record["raised"] = f"{type(e).__name__}: {e}"
    record["called"] = True
    path.write_text(json.dumps(record))
    time.sleep(3600)  # killed by the parent (process 0 hosts the coordination service)


def run_job(case: str, processes: int = 2, limit_s: float = 120.0) -> dict[int, dict]:
    """Run one job; {pid: its record} for the processes that wrote one."""
    from shlo_lint.checker.execute.xla.distributed import free_port

    port = free_port()
    procs: list[subprocess.Popen] = []
    with tempfile.TemporaryDirectory(prefix="shlo-lint-hosts-job-") as tmp:
        env = {**os.environ, "PYTHONPATH": str(ROOT.parent) + os.pathsep + os.environ.get("PYTHONPATH", "")}
        for pid in range(processes):
            log = open(Path(tmp) / f"log_{pid}.txt", "w")
            procs.append(subprocess.Popen([sys.executable, __file__, "--worker", case, str(pid), str(processes),
                                           str(port), tmp], stdout=log, stderr=subprocess.STDOUT, env=env,
                                          start_new_session=True, cwd=str(ROOT)))
        deadline = time.monotonic() + limit_s
        results: dict[int, dict] = {}
        try:
            while time.monotonic() < deadline:
                for pid in range(processes):
                    p = Path(tmp) / f"result_{pid}.json"
                    if pid not in results and p.exists():
                        try:
                            results[pid] = json.loads(p.read_text())
                        except json.JSONDecodeError:
                            pass  # being written
                if len(results) == processes or all(pr.poll() is not None for pr in procs):
                    break
                time.sleep(0.2)
        finally:
            for pr in procs:
                try:
                    os.killpg(pr.pid, signal.SIGKILL)
                except (ProcessLookupError, PermissionError):
                    pass
                pr.wait()
        for pid in range(processes):
            if pid not in results:
                log = (Path(tmp) / f"log_{pid}.txt").read_text(errors="replace")[-3000:]
                results[pid] = {"pid": pid, "missing": True, "log": log}
    return results


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--worker":
        worker(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5]), sys.argv[6])
    else:
        print(json.dumps(run_job(sys.argv[1]), indent=1))
