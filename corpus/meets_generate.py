#!/usr/bin/env python
"""Ground truth for "what meets" inside one program: shard_map programs on 8 XLA:CPU
devices (one process) whose devices reach *different* collective ops (branches of a
cond, iterations of a loop), run under a hard limit, each device's result compared
with what its own op asks for.

    python corpus/meets_generate.py [--out corpus/meets] [--only CASE ...] [--timeout 90] [--list]

Each case runs in a child process (`--child CASE OUT`) with
`XLA_FLAGS=--xla_force_host_platform_device_count=8` and XLA's default collective
timeouts; the parent kills its process group at the limit (after SIGUSR1, which
makes faulthandler print where it is blocked). The child saves <out>/<case>.mlir
(`lowered.as_text()`) and <out>/<case>.hlo (`compiled.as_text()`) and its per-device
results; <out>/VERDICTS.json says, per case, the outcome, each device's observed
row beside the row its own op asks for (numpy), and the other readings named in the
case (e.g. "the k-th execution meets the k-th").
"""
from __future__ import annotations

import argparse
import faulthandler
import json
import os
import re
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import numpy as np

HERE = Path(__file__).resolve().parent
N = 8
M = 4
T_STEPS = 10
"""Steps of the pipeline loops; K_MICRO microbatches pass each stage."""
K_MICRO = 3


def x_input() -> np.ndarray:
    """x[d, j] = 1 + 10 d + j: every value says which device it came from."""
    return (1 + 10 * np.arange(N)[:, None] + np.arange(M)[None, :]).astype(np.float32)


# ---------------------------------------------------------------- cases
# build() returns the shard_map body (a device's f32[1, M] block -> its output row);
# own() returns, per device, the row its own ops ask for; readings() other named
# models of what meets, each as per-device rows.

@dataclass
class Case:
    name: str
    what: str
    build: Callable
    own: Callable
    own_means: str
    readings: Callable = lambda x: {}


def _ops():
    import jax.numpy as jnp
    from jax import lax
    return jnp, lax


RING_UP = [(i, (i + 1) % N) for i in range(N)]
RING_DOWN = [(i, (i - 1) % N) for i in range(N)]
PIPE = [(i, i + 1) for i in range(N - 1)]


def build_parity_ppermute():
    jnp, lax = _ops()

    def even(v):
        y = lax.ppermute(v, "x", RING_UP)
        return jnp.concatenate([y, lax.ppermute(y, "x", RING_DOWN)], axis=1)

    def odd(v):
        y = lax.ppermute(v, "x", RING_DOWN)
        return jnp.concatenate([y, lax.ppermute(y, "x", RING_UP)], axis=1)
    return lambda v: lax.cond(lax.axis_index("x") % 2 == 0, even, odd, v)


def own_parity_ppermute(x):
    """Each device's op names its source: even ops ring+1 (from d-1) then ring-1
    (from d+1); odd ops the reverse. The k-th op reads its source's k-th operand."""
    d = np.arange(N)
    src1 = np.where(d % 2 == 0, (d - 1) % N, (d + 1) % N)
    y = x[src1]
    src2 = np.where(d % 2 == 0, (d + 1) % N, (d - 1) % N)
    return np.concatenate([y, y[src2]], axis=1)


def readings_parity_ppermute(x):
    """Sender-driven (what a send/recv pairing like NCCL's would deliver, if it did
    not hang): each device's value goes where ITS op sends it."""
    d = np.arange(N)
    dst1 = np.where(d % 2 == 0, (d + 1) % N, (d - 1) % N)
    y = np.zeros_like(x)
    got = np.zeros(N, int)
    for s in range(N):
        y[dst1[s]] += x[s]
        got[dst1[s]] += 1
    return {"sender_driven_first_permute (each device sends where its own op says; rows summed where two "
            "arrive, zeros where none)": np.concatenate([y, np.zeros_like(y)], axis=1),
            "receivers_per_device_first_permute": got[:, None].astype(np.float32)}


def build_data_psum_pmax():
    _, lax = _ops()
    return lambda v: lax.cond(v[0, 0] % 20 < 10, lambda u: lax.psum(u, "x"), lambda u: lax.pmax(u, "x"), v)


def own_data_psum_pmax(x):
    """x[d, 0] % 20 < 10 holds on even devices: they psum, odd devices pmax."""
    d = np.arange(N)
    return np.where((d % 2 == 0)[:, None], x.sum(0, keepdims=True), x.max(0, keepdims=True))


def readings_data_psum_pmax(x):
    """Besides "everyone sums" and "everyone maxes": XLA:CPU's in-process all-reduce
    splits the buffer into ceil(M / N) element chunks, participant r reduces chunk r
    with ITS OWN reduction and copies it to everyone."""
    chunk = -(-M // N)
    row = np.array([x[:, j].sum() if (j // chunk) % 2 == 0 else x[:, j].max() for j in range(M)], np.float32)
    return {"every_device_sum": np.broadcast_to(x.sum(0), x.shape),
            "every_device_max": np.broadcast_to(x.max(0), x.shape),
            "chunk_r_reduced_by_participant_r_with_its_own_op": np.broadcast_to(row, x.shape)}


def build_lt4_psum_2v():
    _, lax = _ops()
    return lambda v: lax.cond(lax.axis_index("x") < 4, lambda u: lax.psum(u, "x"),
                              lambda u: lax.psum(2 * u, "x"), v)


def own_lt4_psum_2v(x):
    d = np.arange(N)
    return np.where((d < 4)[:, None], x.sum(0, keepdims=True), 2 * x.sum(0, keepdims=True))


def readings_lt4_psum_2v(x):
    """One all-reduce over every device's operand (v on 0-3, 2v on 4-7)."""
    mixed = x[:4].sum(0) + 2 * x[4:].sum(0)
    return {"one_mixed_sum": np.broadcast_to(mixed, x.shape)}


def build_pipeline(steps: int):
    """Stage s = axis_index runs ppermute(pairs s -> s+1) only at steps s .. s+K-1 (a
    pipeline with bubbles); what it sends is 1000 s + t (its stage and step), what it
    receives is logged at log[t] (-1 where it ran no ppermute)."""
    jnp, lax = _ops()

    def body(t, log):
        s = lax.axis_index("x")
        send = jnp.full((1, 1), 1000.0, jnp.float32) * s + t

        def run(u):
            return lax.ppermute(u, "x", PIPE)
        got = lax.cond((s <= t) & (t < s + K_MICRO), run, lambda u: jnp.full_like(u, -1.0), send)
        return lax.dynamic_update_slice(log, got, (0, t))

    def f(v):
        return lax.fori_loop(0, steps, body, jnp.zeros((1, steps), jnp.float32) + 0 * v[:, :1])
    return f


def _guard(steps):
    s = np.arange(N)[:, None]
    t = np.arange(steps)[None, :]
    return (s <= t) & (t < s + K_MICRO)


def own_pipeline(steps: int):
    def own(x):
        """Same step: at step t stage s receives what stage s-1 sends at step t
        (1000 (s-1) + t), which exists only where s-1 runs at t; stage 0 has no source
        (zeros); NaN where the source runs no ppermute at that step."""
        g = _guard(steps)
        out = np.full((N, steps), -1.0, np.float32)
        for s in range(N):
            for t in range(steps):
                if g[s, t]:
                    out[s, t] = 0.0 if s == 0 else (1000.0 * (s - 1) + t if g[s - 1, t] else np.nan)
        return out
    return own


def readings_pipeline(steps: int):
    def readings(x):
        """The k-th execution meets the k-th: stage s's j-th ppermute (step s + j)
        gets stage s-1's j-th send (step s - 1 + j): 1000 (s-1) + t - 1."""
        g = _guard(steps)
        counts = g.sum(1)
        out = np.full((N, steps), -1.0, np.float32)
        for s in range(N):
            for j, t in enumerate(np.nonzero(g[s])[0]):
                if s == 0:
                    out[s, t] = 0.0
                elif j < counts[s - 1]:
                    out[s, t] = 1000.0 * (s - 1) + (s - 1 + j)
                else:
                    out[s, t] = np.nan
        return {"kth_meets_kth": out, "executions_per_device": counts[:, None].astype(np.float32)}
    return readings


def build_kinds():
    _, lax = _ops()
    return lambda v: lax.cond(lax.axis_index("x") % 2 == 0, lambda u: lax.psum(u, "x"),
                              lambda u: lax.ppermute(u, "x", RING_UP), v)


def own_kinds(x):
    d = np.arange(N)
    return np.where((d % 2 == 0)[:, None], x.sum(0, keepdims=True), x[(d - 1) % N])


def build_control():
    jnp, lax = _ops()

    def branch(v):
        return jnp.concatenate([lax.ppermute(v, "x", RING_UP), lax.psum(v, "x")], axis=1)
    return lambda v: lax.cond(lax.axis_index("x") % 2 == 0, branch, lambda u: branch(u), v)


def own_control(x):
    return np.concatenate([x[(np.arange(N) - 1) % N], np.broadcast_to(x.sum(0), x.shape)], axis=1)


CASES = [
    Case("cond_parity_ppermute_orders",
         "lax.cond(axis_index % 2 == 0): even devices ppermute(ring+1) then ppermute(ring-1), odd devices the "
         "reverse; output [first, second]",
         build_parity_ppermute, own_parity_ppermute,
         "each device's k-th ppermute reads its own op's source's k-th operand", readings_parity_ppermute),
    Case("cond_data_psum_pmax",
         "lax.cond on local data (x[0,0] % 20 < 10: true on even devices): psum in one branch, pmax in the other",
         build_data_psum_pmax, own_data_psum_pmax, "even devices the sum, odd devices the max",
         readings_data_psum_pmax),
    Case("cond_lt4_psum_2v", "lax.cond(axis_index < 4, psum(v), psum(2 v))", build_lt4_psum_2v, own_lt4_psum_2v,
         "devices 0-3 sum(v), devices 4-7 2 sum(v)", readings_lt4_psum_2v),
    Case("fori_pipeline_guarded",
         f"fori_loop over {T_STEPS} steps; stage s runs ppermute(s -> s+1, s < 7) only at steps s .. s+{K_MICRO - 1} "
         f"(cond on (loop counter, axis_index)); every stage runs it {K_MICRO} times",
         lambda: build_pipeline(T_STEPS), own_pipeline(T_STEPS),
         "same step: stage s at step t receives what s-1 sends at step t (NaN: s-1 runs none then)",
         readings_pipeline(T_STEPS)),
    Case("fori_pipeline_guarded_uneven",
         f"as fori_pipeline_guarded, but {N} steps: stage 6 runs the ppermute twice, stage 7 once, the others "
         f"{K_MICRO} times",
         lambda: build_pipeline(N), own_pipeline(N),
         "same step (as fori_pipeline_guarded)", readings_pipeline(N)),
    Case("cond_parity_psum_vs_ppermute",
         "lax.cond(axis_index % 2 == 0): psum on even devices, ppermute(ring+1) on odd devices (different kinds)",
         build_kinds, own_kinds, "even devices the sum, odd devices x[d-1]"),
    Case("cond_identical_branches_control",
         "lax.cond(axis_index % 2 == 0) with the same ppermute(ring+1) and psum in both branches",
         build_control, own_control, "every device: x[d-1], then the sum"),
]
BY_NAME = {c.name: c for c in CASES}


# ---------------------------------------------------------------- child

def child(name: str, out: str, result_path: str) -> None:
    faulthandler.register(signal.SIGUSR1, all_threads=True)
    import jax
    from jax.sharding import Mesh, NamedSharding, PartitionSpec as P

    case = BY_NAME[name]
    mesh = Mesh(np.array(jax.devices()[:N]), ("x",))
    spec = P("x")
    step = jax.jit(jax.shard_map(case.build(), mesh=mesh, in_specs=spec, out_specs=spec, check_vma=False))
    x = jax.device_put(x_input(), NamedSharding(mesh, spec))
    lowered = step.lower(x)
    Path(out, f"{name}.mlir").write_text(lowered.as_text())
    compiled = lowered.compile()
    # file names in the HLO's stack-frame table relative to the repository
    Path(out, f"{name}.hlo").write_text(compiled.as_text().replace(str(HERE.parent) + os.sep, ""))
    print("meets-generate: run", file=sys.stderr, flush=True)
    result = compiled(x)
    jax.block_until_ready(result)
    Path(result_path).write_text(json.dumps(np.asarray(result).tolist()))
    print("meets-generate: done", file=sys.stderr, flush=True)


# ---------------------------------------------------------------- parent

_MESSAGE = re.compile(r"(rror|stuck|Stuck|timed out|timeout|Timeout|Check failed|abort|Abort|terminat|Terminat|"
                      r"participants|rendezvous|Rendezvous|deadlock|Deadlock)")


def _messages(log: str) -> list[str]:
    seen, out = set(), []
    for line in log.splitlines():
        if not _MESSAGE.search(line) or line.lstrip().startswith(("File", "Thread", "Current", "@")):
            continue
        key = re.sub(r"^[EWIF]\d{4} [\d:.]+\s+\d+\s+", "", line)
        key = re.sub(r"\[id=\d+\] |run_id=RunId: -?\d+, ", "", key)[:600]  # one line per kind, not per thread
        if key not in seen:
            seen.add(key)
            out.append(key)
    return out[:12]


def _rows(a: np.ndarray) -> list:
    return [[None if np.isnan(v) else float(v) for v in row] for row in np.asarray(a, np.float64)]


def hlo_collectives(text: str) -> list[str]:
    """The compiled HLO's collectives, one line each, without metadata: what XLA kept,
    in which computation (a branch, a loop body)."""
    out, comp = [], None
    for line in text.splitlines():
        head = re.match(r"^(?:ENTRY )?%([\w.\-]+) ", line)
        if head:
            comp = head.group(1)
        if re.search(r"\b(all-reduce|collective-permute|all-gather|all-to-all|reduce-scatter)(-start)?\(", line):
            text_ = re.sub(r", metadata=\{.*?\}", "", line.strip())
            out.append(f"[{comp}] {text_[:260]}")
    return out


def run(case: Case, out: Path, timeout_s: float) -> dict:
    out.mkdir(parents=True, exist_ok=True)
    result_path = out / f".{case.name}.result.json"
    log_path = out / f".{case.name}.log"
    for p in (result_path, log_path):
        p.unlink(missing_ok=True)
    env = dict(os.environ, XLA_FLAGS=f"--xla_force_host_platform_device_count={N}", JAX_PLATFORMS="cpu")
    t0 = time.time()
    with open(log_path, "wb") as log:
        proc = subprocess.Popen([sys.executable, str(Path(__file__).resolve()), "--child", case.name, str(out),
                                 str(result_path)], stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                env=env, start_new_session=True)
    try:
        proc.wait(timeout=timeout_s)
        hung = False
    except subprocess.TimeoutExpired:
        hung = True
        os.kill(proc.pid, signal.SIGUSR1)
        time.sleep(1.5)
    finally:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        proc.wait()
    elapsed = time.time() - t0
    log = log_path.read_text(errors="replace")
    log_path.unlink(missing_ok=True)
    x = x_input()
    own = case.own(x)
    verdict = {"case": case.name, "what": case.what, "devices": N, "elapsed_s": round(elapsed, 1),
               "limits": {"wall_clock_s": timeout_s, "xla_flags": env["XLA_FLAGS"],
                          "xla_collective_timeouts": "XLA defaults"},
               "own_op_means": case.own_means}
    if result_path.exists():
        got = np.array(json.loads(result_path.read_text()), np.float32).reshape(N, -1)
        result_path.unlink()
        verdict["outcome"] = "completed"
        verdict["observed"] = _rows(got)
        verdict["own_op_expected"] = _rows(own)
        verdict["devices_matching_own_op"] = [d for d in range(N) if np.array_equal(got[d], own[d], equal_nan=True)]
        for name, rows in case.readings(x).items():
            if rows.shape == got.shape:
                verdict.setdefault("readings", {})[name] = {
                    "rows": _rows(rows),
                    "devices_matching": [d for d in range(N) if np.array_equal(got[d], rows[d], equal_nan=True)]}
            else:
                verdict.setdefault("facts", {})[name] = [float(v) for v in rows.ravel()]
    elif hung:
        verdict["outcome"] = "hung"
        frames = re.findall(r'File "([^"]+)", line (\d+) in (\S+)', log.split("Current thread")[-1])
        verdict["blocked_in"] = [f"{Path(f).name}:{ln} in {fn}" for f, ln, fn in frames][:6]
        verdict["own_op_expected"] = _rows(own)
    else:
        verdict["outcome"] = "aborted"
        verdict["exit_status"] = proc.returncode
    verdict["reached_run"] = "meets-generate: run" in log
    verdict["messages"] = _messages(log)
    hlo = out / f"{case.name}.hlo"
    if hlo.exists():
        verdict["hlo_collectives"] = hlo_collectives(hlo.read_text())
    return verdict


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv and argv[0] == "--child":
        child(*argv[1:4])
        return 0
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", default=str(HERE / "meets"))
    ap.add_argument("--only", nargs="*")
    ap.add_argument("--timeout", type=float, default=90.0)
    ap.add_argument("--list", action="store_true")
    args = ap.parse_args(argv)
    if args.list:
        for c in CASES:
            print(f"{c.name:34} {c.what}")
        return 0
    out = Path(args.out)
    path = out / "VERDICTS.json"
    manifest = json.loads(path.read_text()) if path.exists() else {}
    import jax
    manifest["jax_version"] = jax.__version__
    manifest["backend"] = f"XLA:CPU, one process, {N} devices"
    manifest.setdefault("cases", {})
    for case in CASES:
        if args.only and case.name not in args.only:
            continue
        print(f"== {case.name}", flush=True)
        v = run(case, out, args.timeout)
        print(f"   {v['outcome']} in {v['elapsed_s']} s; own-op devices {v.get('devices_matching_own_op')}", flush=True)
        manifest["cases"][case.name] = v
        manifest["cases"] = {c.name: manifest["cases"][c.name] for c in CASES if c.name in manifest["cases"]}
        path.write_text(dumps(manifest) + "\n")
    return 0


def dumps(value, indent: int = 0) -> str:
    """JSON with one key per line but rows of numbers on one line."""
    pad = " " * (indent + 1)
    if isinstance(value, dict) and value:
        items = [f"{pad}{json.dumps(str(k))}: {dumps(v, indent + 1)}" for k, v in value.items()]
        return "{\n" + ",\n".join(items) + "\n" + " " * indent + "}"
    if isinstance(value, list) and any(isinstance(v, (dict, list)) for v in value):
        if all(isinstance(v, list) and not any(isinstance(w, (dict, list)) for w in v) for v in value):
            return "[\n" + ",\n".join(pad + json.dumps(v) for v in value) + "\n" + " " * indent + "]"
        return "[\n" + ",\n".join(pad + dumps(v, indent + 1) for v in value) + "\n" + " " * indent + "]"
    return json.dumps(value)


if __name__ == "__main__":
    sys.exit(main())
