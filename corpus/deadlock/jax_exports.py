"""Regenerate the real JAX exports of corpus/deadlock (needs the `jax` extra):

    python corpus/deadlock/jax_exports.py

JAX 0.10, CPU, 8 virtual devices, `jax.shard_map` over Mesh(8, ("x",)),
lowered with `jax.jit(f).trace(...).lower().as_text()`; the async collectives
are JAX's private `psum_start` / `all_gather_start` (jax._src.lax.parallel),
which lower to `stablehlo.async_start` / `async_done`. Each file starts with a
comment saying what XLA:CPU did with it (`shlo-lint run --engine xla FILE`).
"""
from __future__ import annotations

import os
import sys
from pathlib import Path

os.environ.setdefault("XLA_FLAGS", "--xla_force_host_platform_device_count=8")
os.environ.setdefault("JAX_PLATFORMS", "cpu")

HERE = Path(__file__).resolve().parent


def programs():
    import jax
    import jax.numpy as jnp
    from jax import lax
    from jax._src.lax import parallel as par

    def heavy(a):
        return jnp.tanh(a @ a.T @ a)

    def psum_first(x, y):
        f1 = par.psum_start(x, "x")
        f2 = par.all_gather_start(heavy(y), "x", axis=0, tiled=True)
        return f1.done(), f2.done()

    def gather_first(x, y):
        f2 = par.all_gather_start(y, "x", axis=0, tiled=True)
        f1 = par.psum_start(heavy(x), "x")
        return f1.done(), f2.done()

    def psum_first_heavy_psum(x, y):
        f1 = par.psum_start(heavy(x), "x")
        f2 = par.all_gather_start(y, "x", axis=0, tiled=True)
        return f1.done(), f2.done()

    def crossed(x, y):  # the branches start the two collectives in opposite orders
        return lax.cond(lax.axis_index("x") < 4, psum_first, gather_first, x, y)

    def same_order(x, y):  # the same order in both branches; the scheduler picks its own
        return lax.cond(lax.axis_index("x") < 4, psum_first, psum_first_heavy_psum, x, y)

    chain = [(i, i + 1) for i in range(7)]

    def send_only(x, y):  # lax.psend with no lax.precv
        lax.psend(x, "x", chain)
        return jnp.tanh(x), y

    def recv_only(x, y):  # lax.precv with no lax.psend
        got = lax.precv(lax.create_token(), jax.ShapeDtypeStruct(x.shape, x.dtype), "x", chain)
        return x + got, y

    return {
        "jax_psend_without_precv": (send_only,
            "lowered for cuda (XLA:CPU has no send/recv): a psend on the chain i -> i+1 that no precv receives; "
            "on a GPU each sender waits at its send-done forever"),
        "jax_precv_without_psend": (recv_only,
            "lowered for cuda (XLA:CPU has no send/recv): a precv on the chain i -> i+1 that no psend feeds; "
            "on a GPU each receiver waits forever"),
        "jax_cond_async_starts_crossed": (crossed,
            "aborted on XLA:CPU (expected 8 participants, 4 arrived): each branch starts a psum and an "
            "all_gather, in opposite orders"),
        "jax_cond_async_starts_scheduler_order": (same_order,
            "aborted on XLA:CPU (expected 8 participants, 4 arrived): both branches start the psum first, but "
            "XLA's scheduler issues the all_gather first in the branch whose psum operand needs more work"),
    }, jax, jnp


def main() -> int:
    progs, jax, jnp = programs()
    from jax.sharding import Mesh, PartitionSpec as P

    mesh = Mesh(jax.devices(), ("x",))
    x = jnp.ones((32, 8), jnp.float32)
    for name, (body, note) in progs.items():
        f = jax.jit(jax.shard_map(body, mesh=mesh, in_specs=(P("x"), P("x")), out_specs=(P("x"), P("x")),
                                  check_vma=False))
        traced = f.trace(x, x)
        text = (traced.lower(lowering_platforms=("cuda",)) if "psend" in name or "precv" in name
                else traced.lower()).as_text()
        (HERE / f"{name}.mlir").write_text(f"// JAX export (corpus/deadlock/jax_exports.py): {note}.\n{text}")
        print(name)
    return 0


if __name__ == "__main__":
    sys.exit(main())
