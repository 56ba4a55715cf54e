#!/usr/bin/env python
"""Regenerate corpus/execute/scatter_pipeline.mlir: a real JAX export of a
pipeline that writes each step's activations into a buffer with
`x.at[i].set(v)` (a stablehlo.scatter) inside a `lax.fori_loop` whose body
passes the activations to the next device with `lax.ppermute` (8 CPU devices,
shard_map over a 1-D mesh).

    python corpus/execute/generate_scatter_pipeline.py

Needs the `jax` extra; deterministic output.
"""
from __future__ import annotations

import os
from pathlib import Path

_FLAG = "--xla_force_host_platform_device_count=8"
if _FLAG not in os.environ.get("XLA_FLAGS", ""):
    os.environ["XLA_FLAGS"] = (os.environ.get("XLA_FLAGS", "") + " " + _FLAG).strip()
os.environ.setdefault("JAX_PLATFORMS", "cpu")

import numpy as np  # noqa: E402

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
from jax import lax  # noqa: E402
from jax.sharding import Mesh, PartitionSpec as P  # noqa: E402

STEPS = 6
RING = [(i, (i + 1) % 8) for i in range(8)]


def stage(x, w, buf):
    """One device's loop: compute, record the step's output in `buf` at row i,
    hand the activations to the next device."""

    def body(i, carry):
        x, buf = carry
        y = jnp.tanh(x @ w)
        buf = buf.at[i].set(y)                  # scatter
        buf = buf.at[i, 0].add(1.0)             # scatter-add into one element
        x = lax.ppermute(y, "x", RING)          # collective_permute
        return x, buf

    x, buf = lax.fori_loop(0, STEPS, body, (x, buf))
    return x, buf


def main() -> None:
    mesh = Mesh(np.array(jax.devices()[:8]), ("x",))
    f = jax.shard_map(stage, mesh=mesh, in_specs=(P("x"), P(), P("x")), out_specs=(P("x"), P("x")))
    x = jax.ShapeDtypeStruct((8 * 2, 4), jnp.float32)
    w = jax.ShapeDtypeStruct((4, 4), jnp.float32)
    buf = jax.ShapeDtypeStruct((8 * STEPS, 2, 4), jnp.float32)
    text = jax.jit(f).trace(x, w, buf).lower().as_text()
    out = Path(__file__).resolve().parent / "scatter_pipeline.mlir"
    out.write_text(text)
    print(f"wrote {out} ({len(text)} chars, jax {jax.__version__})")


if __name__ == "__main__":
    main()
