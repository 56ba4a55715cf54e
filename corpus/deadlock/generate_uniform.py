#!/usr/bin/env python
"""Export and run the uniformity examples of corpus/deadlock/ (real JAX programs).

    python corpus/deadlock/generate_uniform.py [--run] [--only NAME ...]

Each program is a `jax.shard_map` over 8 CPU devices (mesh axis "x"), written as
`uniform_<name>.mlir` (Shardy), `uniform_<name>.gspmd.mlir` (GSPMD) and, for
three of them, `uniform_<name>.debug.mlir` (Shardy with debug info). With
`--run` each is also executed by JAX on XLA:CPU (8 virtual devices, one
subprocess per program, shortened rendezvous timeouts) and the outcome printed:
that outcome is the verdict the analysis must give (docs/uniformity.md).
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

_FLAGS = ("--xla_force_host_platform_device_count=8",)
for _f in _FLAGS:
    if _f not in os.environ.get("XLA_FLAGS", ""):
        os.environ["XLA_FLAGS"] = (os.environ.get("XLA_FLAGS", "") + " " + _f).strip()
os.environ.setdefault("JAX_PLATFORMS", "cpu")

import numpy as np  # noqa: E402

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
from jax import lax  # noqa: E402
from jax.sharding import Mesh, PartitionSpec as P  # noqa: E402

HERE = Path(__file__).resolve().parent
TOL = 1e-3


def mesh():
    return Mesh(np.array(jax.devices()[:8]), ("x",))


def smap(f, in_specs, out_specs):
    return jax.shard_map(f, mesh=mesh(), in_specs=in_specs, out_specs=out_specs)


def _step(x):
    # every device gets the same new x from the psum: the error shrinks together
    # (pcast: the loop carry stays typed as per-device data, as it was on entry)
    return lax.pcast(lax.psum(x, "x") * (0.5 / 8), "x", to="varying")


def _varying(v):
    """Type a branch result as per-device data (both branches of a cond must agree)."""
    try:
        return lax.pcast(v, "x", to="varying")
    except ValueError:  # already per-device (an all_gather result)
        return v


def pmax_loop():
    """`while pmax(err) > tol` around a psum: the predicate is an all_reduce
    result, the same on every device, so every device runs the same trip count."""
    def body(x):
        def cond(c):
            return lax.pmax(c[1], "x") > TOL

        def step(c):
            y = _step(c[0])
            return y, jnp.max(jnp.abs(y))
        return lax.while_loop(cond, step, (x, jnp.max(jnp.abs(x))))[0]
    return smap(body, P("x"), P("x")), (np.arange(32, dtype=np.float32),)


def local_loop():
    """`while local_err > tol` around a psum: the error is this device's own
    data. Device 0's shard is zero, so it never enters the loop while the other
    seven wait for it in the psum: a hang."""
    x0 = np.arange(32, dtype=np.float32)
    x0[:4] = 0.0
    def body(x):
        def cond(c):
            return c[1] > TOL

        def step(c):
            y = _step(c[0])
            return y, jnp.max(jnp.abs(y))
        return lax.while_loop(cond, step, (x, jnp.max(jnp.abs(x))))[0]
    return smap(body, P("x"), P("x")), (x0,)


def replicated_cond():
    """`lax.cond(pred, psum, pmax)` where pred is a replicated input (P()): every
    device takes the same branch, whichever it is."""
    def body(pred, x):
        return lax.cond(pred, lambda v: _varying(lax.psum(v, "x")),
                        lambda v: _varying(lax.pmax(v, "x") * 2.0), x)
    return smap(body, (P(), P("x")), P("x")), (np.array(True), np.arange(32, dtype=np.float32))


def table_switch():
    """The branch index read from a constant table by the device index:
    devices 0, 2, 4, 6 run a psum, devices 1, 3, 5, 7 an all_gather: a hang."""
    table = [0, 1, 0, 1, 0, 1, 0, 1]

    def body(x):
        idx = jnp.array(table, dtype=jnp.int32)[lax.axis_index("x")]
        return lax.switch(idx, [lambda v: _varying(lax.psum(v, "x")),
                                lambda v: _varying(lax.all_gather(v, "x", tiled=True).reshape(8, -1).sum(0))], x)
    return smap(body, P("x"), P("x")), (np.arange(32, dtype=np.float32),)


def table_switch_same():
    """Valid: a constant table that gives every device the same index (all 1)."""
    def body(x):
        idx = jnp.array([1] * 8, dtype=jnp.int32)[lax.axis_index("x")]
        return lax.switch(idx, [lambda v: _varying(lax.psum(v, "x")),
                                lambda v: _varying(lax.all_gather(v, "x", tiled=True).reshape(8, -1).sum(0))], x)
    return smap(body, P("x"), P("x")), (np.arange(32, dtype=np.float32),)


def mesh2x4():
    return Mesh(np.array(jax.devices()[:8]).reshape(2, 4), ("x", "y"))


def _row_loop(reduce_axes):
    """2x4 mesh: the error is reduced over "y" only (the same within each row of
    four devices); the loop body psums over `reduce_axes`. Row 0 starts at 0.0
    (below the tolerance: it never enters the loop), row 1 at 1000.0."""
    def body(x):
        def cond(c):
            return lax.pmax(c[1], "y") > 1.0e-3

        def step(c):
            y = lax.psum(c[0], reduce_axes) * (0.5 / 8)
            y = lax.pcast(y, reduce_axes, to="varying")  # the carry stays per-device data
            return y, jnp.max(jnp.abs(y))
        return lax.while_loop(cond, step, (x, jnp.max(jnp.abs(x))))[0]
    x0 = np.zeros((8, 4), dtype=np.float32)
    x0[4:] = 1000.0
    return jax.shard_map(body, mesh=mesh2x4(), in_specs=P(("x", "y")), out_specs=P(("x", "y"))), (x0,)


def row_loop_psum_row():
    """`while pmax(err, "y") > tol` around a psum over "y": each row decides for
    itself and only talks within itself: safe."""
    return _row_loop(("y",))


def row_loop_psum_all():
    """The same predicate around a psum over both axes: the rows run different
    trip counts, and the psum over all 8 devices waits for the row that left."""
    return _row_loop(("x", "y"))


PROGRAMS = {f.__name__: f for f in (pmax_loop, local_loop, replicated_cond, table_switch, table_switch_same,
                                     row_loop_psum_row, row_loop_psum_all)}


DEBUG = ("pmax_loop", "local_loop", "table_switch")
"""Also written with debug info (`loc(...)` on every op), Shardy only."""


def export(name: str) -> None:
    variants = [("shardy", "")] + ([("shardy", ".debug")] if name in DEBUG else []) + [("gspmd", ".gspmd")]
    for mode, suffix in variants:
        jax.config.update("jax_use_shardy_partitioner", mode == "shardy")
        fn, args = PROGRAMS[name]()
        lowered = jax.jit(fn).trace(*args).lower()
        if suffix == ".debug":
            text = lowered.compiler_ir("stablehlo").operation.get_asm(enable_debug_info=True)
            text = text.replace(str(HERE.parent.parent) + os.sep, "")  # repo-relative locations
        else:
            text = lowered.as_text()
        path = HERE / f"uniform_{name}{suffix}.mlir"
        path.write_text(text if text.endswith("\n") else text + "\n")
        print(f"wrote {path.relative_to(HERE.parent.parent)}")
    jax.config.update("jax_use_shardy_partitioner", True)


def run_one(name: str) -> None:
    """Run in this process (called in a subprocess by --run)."""
    fn, args = PROGRAMS[name]()
    out = jax.jit(fn)(*args)
    jax.block_until_ready(out)
    print("completed", np.asarray(out).ravel()[:4])


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--run", action="store_true")
    ap.add_argument("--only", nargs="*")
    ap.add_argument("--child")
    a = ap.parse_args()
    if a.child:
        run_one(a.child)
        return 0
    for name in a.only or PROGRAMS:
        export(name)
        if not a.run:
            continue
        env = dict(os.environ)
        env["XLA_FLAGS"] += (" --xla_cpu_collective_call_warn_stuck_timeout_seconds=5"
                             " --xla_cpu_collective_call_terminate_timeout_seconds=10")
        try:
            p = subprocess.run([sys.executable, __file__, "--child", name], env=env, capture_output=True,
                               text=True, timeout=120)
            lines = (p.stdout + p.stderr).strip().splitlines()
            tail = [ln for ln in lines if "rendezvous" in ln or "completed" in ln or "Error" in ln][:3]
            print(f"{name}: rc={p.returncode}", *tail, sep="\n  ")
        except subprocess.TimeoutExpired:
            print(f"{name}: still running after 120 s (hang)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
