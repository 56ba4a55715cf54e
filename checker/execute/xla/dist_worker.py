"""One OS process of the distributed XLA engine:
`python -m shlo_lint.checker.execute.xla.dist_worker DIR PROCESS_ID`.

DIR holds module.mlir, spec.json (grid, coordinator address, number of
processes, devices per process) and inputs.npz. The process joins the job with
`jax.distributed.initialize(coordinator_address, num_processes, process_id)`,
CPU collectives over gloo (TCP between the processes), and its
`--xla_force_host_platform_device_count` local devices (set by the parent).
It compiles the module for the *global* device list (every process's devices,
in process order: grid process f runs on global device f), feeds the shards it
holds, and runs. Its progress markers (markers.py) go to progress_I.txt, its
result to result_I.json + outputs_I.npz (its devices' shards, unassembled).

A process that finished stays alive (no jax.distributed shutdown, whose barrier
would wait for a blocked peer; no exit that would close gloo connections a peer
still waits on) until the parent kills it; a blocked process is killed by the
parent's watchdog. Either way the parent reads what the files say.
"""
from __future__ import annotations

import json
import os
import sys
import time
import traceback

from shlo_lint.checker.execute.xla.worker import collect_outputs, compile_with_markers, make_args


def _phase(name: str) -> None:
    print(f"shlo-lint-xla: {name}", file=sys.stderr, flush=True)


def _orphan_guard(deadline_s: float) -> None:
    """Exit when the parent is gone or the deadline passed, even while blocked in a
    collective: no process of a killed or crashed run outlives it for long."""
    import threading

    parent, end = os.getppid(), time.monotonic() + deadline_s

    def watch() -> None:
        while os.getppid() == parent and time.monotonic() < end:
            time.sleep(0.5)
        os._exit(3)

    threading.Thread(target=watch, daemon=True).start()


def main(out_dir: str, pid: int) -> int:
    with open(os.path.join(out_dir, "spec.json"), encoding="utf-8") as f:
        spec = json.load(f)
    _orphan_guard(float(spec.get("timeout_s", 120)) + 30)

    def write(result: dict) -> None:
        tmp = os.path.join(out_dir, f"result_{pid}.json.tmp")
        with open(tmp, "w", encoding="utf-8") as f:
            json.dump(result, f)
        os.replace(tmp, os.path.join(out_dir, f"result_{pid}.json"))  # the parent never sees half a file

    try:
        import jax
        import numpy as np
    except ImportError as e:
        write({"status": "unsupported", "message": f"the XLA engine needs jax: {e}"})
        return 0
    from shlo_lint.checker.execute.xla.markers import Recorder

    N = spec["num_replicas"] * spec["num_partitions"]
    _phase("initialize")
    try:
        if spec["platform"] == "cpu":
            jax.config.update("jax_cpu_collectives_implementation", "gloo")
        extra = {}
        if spec["platform"] != "cpu" and spec.get("gpus_per_host"):
            # several processes on one host share its GPUs: process i takes its L of them
            L, per_host = spec["local_devices"], spec["gpus_per_host"]
            first = (pid * L) % per_host
            extra["local_device_ids"] = list(range(first, first + L))
        jax.distributed.initialize(coordinator_address=spec["coordinator"], num_processes=spec["num_processes"],
                                   process_id=pid, initialization_timeout=int(spec.get("init_timeout_s", 60)),
                                   **extra)
        devices = sorted(jax.devices(spec["platform"]), key=lambda d: (d.process_index, d.id))
    except Exception as e:  # noqa: BLE001 - reported, the parent decides
        write({"status": "error", "message": f"jax.distributed.initialize failed: {type(e).__name__}: {e}"})
        return 0
    if len(devices) < N:
        write({"status": "unsupported", "message": f"the grid needs {N} {spec['platform']} devices, the "
                                                   f"{spec['num_processes']} processes have {len(devices)}"})
        return 0
    devices = devices[:N]
    text = open(os.path.join(out_dir, "module.mlir"), encoding="utf-8").read()
    _phase("compile")
    recorder = Recorder(os.path.join(out_dir, f"progress_{pid}.txt"))
    exe, names, note = compile_with_markers(text, spec, devices, recorder)
    if isinstance(exe, dict):
        write(exe)
        return 0
    with open(os.path.join(out_dir, f"markers_{pid}.json"), "w", encoding="utf-8") as f:
        json.dump({"ops": names, "note": note}, f)
    inputs = dict(np.load(os.path.join(out_dir, "inputs.npz"), allow_pickle=False))
    try:
        args = make_args(exe, inputs, spec, devices)
        _phase("run")
        results = exe.execute_sharded(args)
        outs, shardings = collect_outputs(exe, results, spec, devices, assemble=False)
    except Exception as e:  # noqa: BLE001
        write({"status": "run_error", "message": f"{type(e).__name__}: {e}",
               "detail": traceback.format_exc()[-4000:]})
        return 0
    np.savez(os.path.join(out_dir, f"outputs_{pid}.npz"), **outs)
    write({"status": "completed", "num_outputs": len(shardings), "shardings": shardings,
           "device_kind": getattr(devices[0], "device_kind", spec["platform"])})
    _phase("done")
    return 0


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]))
    sys.stdout.flush()
    sys.stderr.flush()
    while True:  # wait to be killed (see the module docstring); the orphan guard ends it otherwise
        time.sleep(3600)
