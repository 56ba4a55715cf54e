#!/usr/bin/env python
"""How processes of a `jax.distributed` job can exchange small strings, measured:
a 2-process job on CPU that exercises the coordination service's key-value store
(`jax._src.distributed.global_state.client`), its barriers, and
`jax.experimental.multihost_utils`, and records what each call returned or raised
and how long it took.

    python corpus/hosts/kv_probe.py [--out corpus/hosts/kv_probe.json] [--timeout 120]

The parent starts two processes of this file (`--worker PID PORT DIR`), each in its
own process group, kills both groups when they are done or at the limit, and
writes every process's observations, step by step, to --out. Every step that could
wait has a timeout; the last step (a collective that one process never joins) runs
in a daemon thread, and the process exits with os._exit after looking at it.
"""
from __future__ import annotations

import argparse
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent


def worker(pid: int, port: int, tmp: str) -> None:
    other = 1 - pid
    notes: list[dict] = []
    out = Path(tmp) / f"probe_{pid}.json"

    def record(step: str, fn, **info) -> object:
        t = time.monotonic()
        entry = {"step": step, **info}
        try:
            value = fn()
            entry["returned"] = value if isinstance(value, (str, int, float, list, type(None))) else repr(value)
        except Exception as e:  # noqa: BLE001 - what it raises is what we measure
            value = None
            entry["raised"] = f"{type(e).__module__}.{type(e).__name__}"
            entry["message"] = str(e)[:1500]
        entry["seconds"] = round(time.monotonic() - t, 2)
        notes.append(entry)
        out.write_text(json.dumps(notes, indent=1))
        return value

    import jax
    jax.config.update("jax_cpu_collectives_implementation", "gloo")
    jax.distributed.initialize(f"127.0.0.1:{port}", num_processes=2, process_id=pid, initialization_timeout=30)
    from jax._src import distributed
    from jax.experimental import multihost_utils
    client = distributed.global_state.client

    if pid == 0:
        record("what exists: jax._src.distributed.global_state.client", lambda: f"{type(client).__module__}."
               f"{type(client).__name__}")
        for name in sorted(n for n in dir(client) if not n.startswith("_")):
            record(f"method {name}", lambda name=name: (getattr(client, name).__doc__ or "").strip().split("\n")[0])
        record("what exists: jax.experimental.multihost_utils",
               lambda: sorted(n for n in dir(multihost_utils) if not n.startswith("_") and
                              callable(getattr(multihost_utils, n))))

    # B: each sets its own key, reads the other's
    record("key_value_set('probe/sig/<pid>', text)", lambda: client.key_value_set(f"probe/sig/{pid}", f"sig-{pid}"))
    record("blocking_key_value_get('probe/sig/<other>', 10000)",
           lambda: client.blocking_key_value_get(f"probe/sig/{other}", 10000))
    record("wait_at_barrier('probe/b1', 10000)", lambda: client.wait_at_barrier("probe/b1", 10000))
    record("key_value_dir_get('probe/sig/')", lambda: [list(kv) for kv in client.key_value_dir_get("probe/sig/")])
    record("key_value_dir_get('probe/sig') (no trailing slash)",
           lambda: [list(kv) for kv in client.key_value_dir_get("probe/sig")])
    # D: the same key again
    record("key_value_set same key again", lambda: client.key_value_set(f"probe/sig/{pid}", "again"))
    record("key_value_set same key, allow_overwrite=True",
           lambda: client.key_value_set(f"probe/sig/{pid}", "again", allow_overwrite=True))
    record("key_value_delete own key then set it again",
           lambda: (client.key_value_delete(f"probe/sig/{pid}"), client.key_value_set(f"probe/sig/{pid}", "third"))
           and "ok")
    record("key_value_increment('probe/round', 1)", lambda: client.key_value_increment("probe/round", 1))
    # E, F: absent keys
    record("key_value_try_get('probe/absent')", lambda: client.key_value_try_get("probe/absent"))
    record("blocking_key_value_get('probe/never', 2000)", lambda: client.blocking_key_value_get("probe/never", 2000))
    record("wait_at_barrier('probe/b2', 20000)", lambda: client.wait_at_barrier("probe/b2", 20000))

    # G: the other process never sets its round-2 key (it is busy for 5 s, then goes on)
    if pid == 0:
        record("blocking_key_value_get('probe/round2/1', 3000) [process 1 never sets it]",
               lambda: client.blocking_key_value_get("probe/round2/1", 3000))
    else:
        record("sleep 5 s (does not take part in round 2)", lambda: time.sleep(5))
    record("wait_at_barrier('probe/b3', 20000)", lambda: client.wait_at_barrier("probe/b3", 20000))

    # G2: process 1 is late (4 s) with its key; process 0 gives up after 2 s; the late one still reads 0's key
    if pid == 0:
        record("key_value_set('probe/round3/0') then blocking_key_value_get('probe/round3/1', 2000) "
               "[process 1 sets it 4 s late]",
               lambda: (client.key_value_set("probe/round3/0", "early"),
                        client.blocking_key_value_get("probe/round3/1", 2000))[1])
    else:
        time.sleep(4)
        record("key_value_set('probe/round3/1') 4 s late, then blocking_key_value_get('probe/round3/0', 2000)",
               lambda: (client.key_value_set("probe/round3/1", "late"),
                        client.blocking_key_value_get("probe/round3/0", 2000))[1])
    record("wait_at_barrier('probe/b3b', 20000)", lambda: client.wait_at_barrier("probe/b3b", 20000))

    # H: a barrier the other process joins only after the first one's timeout
    if pid == 0:
        record("wait_at_barrier('probe/lonely', 2000) [process 1 arrives after 4 s]",
               lambda: client.wait_at_barrier("probe/lonely", 2000))
    else:
        time.sleep(4)
        record("wait_at_barrier('probe/lonely', 2000) [arriving 4 s late]",
               lambda: client.wait_at_barrier("probe/lonely", 2000))
    record("wait_at_barrier('probe/b4', 20000) [after a failed barrier: is the service still usable?]",
           lambda: client.wait_at_barrier("probe/b4", 20000))
    # I: a barrier id used twice
    record("wait_at_barrier('probe/reuse', 10000) first", lambda: client.wait_at_barrier("probe/reuse", 10000))
    record("wait_at_barrier('probe/reuse', 10000) second", lambda: client.wait_at_barrier("probe/reuse", 10000))
    # J: large values
    for size in (1 << 20, 8 << 20, 64 << 20):
        if pid == 0:
            record(f"key_value_set of {size} bytes", lambda size=size: client.key_value_set(f"probe/big/{size}",
                                                                                           "x" * size))
        else:
            record(f"blocking_key_value_get of the {size}-byte value (length)",
                   lambda size=size: len(client.blocking_key_value_get(f"probe/big/{size}", 10000)))
    record("key_value_set_bytes / blocking_key_value_get_bytes",
           lambda: (client.key_value_set_bytes(f"probe/bytes/{pid}", bytes([pid, 0, 255])),
                    list(client.blocking_key_value_get_bytes(f"probe/bytes/{other}", 10000)))[1])
    record("wait_at_barrier('probe/b5', 20000)", lambda: client.wait_at_barrier("probe/b5", 20000))

    # L: multihost_utils (device collectives: every process must call them)
    import numpy as np
    record("multihost_utils.process_allgather(np.uint8 text of 8 bytes)",
           lambda: np.asarray(multihost_utils.process_allgather(
               np.frombuffer(f"proc-{pid}..".encode()[:8], np.uint8))).tolist())
    record("multihost_utils.broadcast_one_to_all(np.int32 [pid])",
           lambda: np.asarray(multihost_utils.broadcast_one_to_all(np.array([pid + 10], np.int32))).tolist())
    record("wait_at_barrier('probe/b6', 20000)", lambda: client.wait_at_barrier("probe/b6", 20000))

    # M: a collective that process 1 never joins
    if pid == 0:
        done = threading.Event()

        def lonely() -> None:
            multihost_utils.process_allgather(np.zeros(4, np.uint8))
            done.set()
        threading.Thread(target=lonely, daemon=True).start()
        record("process_allgather that process 1 never calls: returned within 10 s?",
               lambda: bool(done.wait(10)))
    else:
        record("not calling process_allgather; sleeping 12 s", lambda: time.sleep(12))
    out.write_text(json.dumps(notes, indent=1))
    sys.stdout.flush()
    os._exit(0)  # not jax.distributed.shutdown(): its barrier would wait for the blocked peer


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv and argv[0] == "--worker":
        worker(int(argv[1]), int(argv[2]), argv[3])
        return 0
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", default=str(HERE / "kv_probe.json"))
    ap.add_argument("--timeout", type=float, default=120.0)
    args = ap.parse_args(argv)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    env = dict(os.environ, XLA_FLAGS="--xla_force_host_platform_device_count=1", JAX_PLATFORMS="cpu")
    with tempfile.TemporaryDirectory(prefix="kv-probe-") as tmp:
        procs = []
        for pid in range(2):
            with open(Path(tmp) / f"log_{pid}.txt", "wb") as log:
                procs.append(subprocess.Popen([sys.executable, __file__, "--worker", str(pid), str(port), tmp],
                                              stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                              env=env, start_new_session=True))
        t0 = time.time()
        try:
            for p in procs:
                p.wait(timeout=max(1.0, args.timeout - (time.time() - t0)))
        except subprocess.TimeoutExpired:
            pass
        finally:
            for p in procs:
                try:
                    os.killpg(p.pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
                p.wait()
        import jax
        result = {"jax_version": jax.__version__, "limit_s": args.timeout, "elapsed_s": round(time.time() - t0, 1),
                  "exit_status": [p.returncode for p in procs]}
        for pid in range(2):
            path = Path(tmp) / f"probe_{pid}.json"
            result[f"process_{pid}"] = json.loads(path.read_text()) if path.exists() else None
            tail = (Path(tmp) / f"log_{pid}.txt").read_text(errors="replace").splitlines()
            result[f"process_{pid}_log_errors"] = [ln[:300] for ln in tail if " E" in ln[:8] or "rror" in ln][:10]
    Path(args.out).write_text(json.dumps(result, indent=1) + "\n")
    print(f"wrote {args.out}: exit status {result['exit_status']} in {result['elapsed_s']} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
