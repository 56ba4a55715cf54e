"""More real-JAX programs for corpus/real/: the patterns of JAX's shard_map and
distributed-training documentation that the first set (corpus/generate.py) does
not cover — ring attention, FSDP, MoE token routing, ragged all_to_all, a
convergence loop decided by a pmax, a two-axis mesh, a bidirectional pipeline,
reduce_scatter inside a loop, grouped psum, pmap, and a jit with shardings and
no shard_map at all (the partitioner inserts the collectives).

Imported by corpus/generate.py after it has set XLA_FLAGS (8 CPU devices); each
builder returns (function, example argument specs), as there. Every program
here compiles on XLA:CPU except ragged_all_to_all (XLA:CPU has no kernel for
it; it is lowered for CUDA). None of them may raise an error (tests/test_corpus.py).
"""
from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax
from jax.sharding import Mesh, NamedSharding, PartitionSpec as P


def _smap(f, mesh, in_specs, out_specs):
    # check_vma=False: these bodies build loop carries from fresh constants, as
    # the documentation's examples do; the lowered collectives are the same.
    return jax.shard_map(f, mesh=mesh, in_specs=in_specs, out_specs=out_specs, check_vma=False)


def _mesh(shape=(8,), names=("x",)):
    return Mesh(np.array(jax.devices()[:8]).reshape(shape), names)


def _sds(shape, dtype=jnp.float32):
    return jax.ShapeDtypeStruct(shape, dtype)


def b_ring_attention():
    """K/V blocks travel the ring (ppermute in a fori_loop), online softmax."""
    ring = [(j, (j + 1) % 8) for j in range(8)]

    def body(q, k, v):
        def step(_, c):
            k, v, acc, m, l = c
            s = q @ k.T
            m_new = jnp.maximum(m, s.max(-1))
            p = jnp.exp(s - m_new[:, None])
            corr = jnp.exp(m - m_new)
            acc = acc * corr[:, None] + p @ v
            l = l * corr + p.sum(-1)
            return lax.ppermute(k, "x", ring), lax.ppermute(v, "x", ring), acc, m_new, l
        init = (k, v, jnp.zeros_like(q), jnp.full(q.shape[:1], -jnp.inf), jnp.zeros(q.shape[:1]))
        _, _, acc, _, l = lax.fori_loop(0, 8, step, init)
        return acc / l[:, None]

    f = _smap(body, _mesh(), (P("x"), P("x"), P("x")), P("x"))
    return f, (_sds((64, 16)),) * 3


def b_fsdp_scan():
    """Weights sharded over devices, all-gathered layer by layer inside a scan."""
    def body(ws, x):
        def layer(h, w):
            return jnp.tanh(h @ lax.all_gather(w, "x", tiled=True)), None
        return lax.scan(layer, x, ws)[0]

    f = _smap(body, _mesh(), (P(None, "x"), P()), P())
    return f, (_sds((3, 16, 16)), _sds((4, 16)))


def b_fsdp_grad():
    """The gradient of an all-gathered weight: JAX transposes the all_gather
    into a reduce_scatter (psum_scatter)."""
    def body(w, x):
        return jax.grad(lambda w: jnp.sum(jnp.tanh(x @ lax.all_gather(w, "x", tiled=True))))(w)

    f = _smap(body, _mesh(), (P("x"), P()), P("x"))
    return f, (_sds((16, 16)), _sds((4, 16)))


def b_moe_all_to_all():
    """Tokens to their experts and back: all_to_all, expert MLP, all_to_all."""
    def body(x, w):
        y = lax.all_to_all(x, "x", 0, 0, tiled=True)
        y = jnp.tanh(y @ w)
        return lax.all_to_all(y, "x", 0, 0, tiled=True)

    f = _smap(body, _mesh(), (P("x"), P("x")), P("x"))
    return f, (_sds((64, 8)), _sds((64, 8)))


def b_ragged_all_to_all():
    """Variable-sized token groups (lax.ragged_all_to_all, MoE dispatch)."""
    def body(x, in_off, send, out_off, recv):
        return lax.ragged_all_to_all(x, jnp.zeros_like(x), in_off[0], send[0], out_off[0], recv[0],
                                     axis_name="x")

    i32 = jnp.int32
    f = _smap(body, _mesh(), (P("x"),) * 5, P("x"))
    return f, (_sds((64, 4)), _sds((8, 8), i32), _sds((8, 8), i32), _sds((8, 8), i32), _sds((8, 8), i32))


def b_ragged_all_to_all_cond():
    """Bug: the ragged_all_to_all runs only where axis_index == 0, so device 0 waits
    for 7 peers that never come (a hang on GPU; XLA:CPU cannot run it)."""
    def body(x, in_off, send, out_off, recv):
        def exchange(x):
            return lax.ragged_all_to_all(x, jnp.zeros_like(x), in_off[0], send[0], out_off[0], recv[0],
                                         axis_name="x")
        return lax.cond(lax.axis_index("x") == 0, exchange, lambda x: x, x)

    i32 = jnp.int32
    f = _smap(body, _mesh(), (P("x"),) * 5, P("x"))
    return f, (_sds((64, 4)), _sds((8, 8), i32), _sds((8, 8), i32), _sds((8, 8), i32), _sds((8, 8), i32))


def b_while_pmax_cond():
    """Iterate until every device has converged: the loop condition is a pmax,
    the same value on every device, so the psum inside cannot be left by some."""
    def body(x):
        def cond(c):
            return lax.pmax(jnp.max(jnp.abs(c[0])), "x") > 1e-3

        def step(c):
            return lax.psum(c[0], "x") * 0.1, c[1] + 1
        return lax.while_loop(cond, step, (x, 0))[0]

    f = _smap(body, _mesh(), P("x"), P("x"))
    return f, (_sds((8,)),)


def b_mesh_psum_both_axes():
    """A 2x4 mesh: psum over both axes, all_gather over one, pmean over the other."""
    def body(x):
        z = lax.all_gather(x, "b", tiled=True)
        return lax.psum(x, ("a", "b")) + lax.pmean(z, "a")[: x.shape[0]]

    f = _smap(body, _mesh((2, 4), ("a", "b")), P("a", "b"), P("a", "b"))
    return f, (_sds((8, 8)),)


def b_mesh_cond_ppermute():
    """Bug: a ring ppermute over "x" on a 4x2 mesh, run only where axis_index("y") == 0.
    Every pair's ends take the branch, but XLA meets a permute as a rendezvous of
    its whole group (all 8 devices): XLA:CPU aborts, 4 of 8 arrived."""
    def body(x):
        ring = [(i, (i + 1) % 4) for i in range(4)]
        return lax.cond(lax.axis_index("y") == 0, lambda v: lax.ppermute(v, "x", ring), lambda v: v, x)

    f = _smap(body, _mesh((4, 2), ("x", "y")), P("x", "y"), P("x", "y"))
    return f, (_sds((8, 4)),)


def b_bidir_ppermute():
    """A pipeline's forward activations and backward gradients in one step."""
    fwd = [(i, i + 1) for i in range(7)]
    bwd = [(i + 1, i) for i in range(7)]
    f = _smap(lambda x: lax.ppermute(x, "x", fwd) + lax.ppermute(x, "x", bwd), _mesh(), P("x"), P("x"))
    return f, (_sds((8,)),)


def b_psum_scatter_loop():
    """reduce_scatter in every iteration of a fori_loop."""
    def body(x):
        def step(_, c):
            return c + lax.psum_scatter(x, "x", tiled=True).sum()
        return lax.fori_loop(0, 4, step, jnp.zeros(()))[None]

    f = _smap(body, _mesh(), P("x"), P("x"))
    return f, (_sds((64,)),)


def b_psum_groups():
    """psum within two groups of four (axis_index_groups)."""
    f = _smap(lambda x: lax.psum(x, "x", axis_index_groups=[[0, 1, 2, 3], [4, 5, 6, 7]]),
              _mesh(), P("x"), P("x"))
    return f, (_sds((8,)),)


def b_pmap_psum():
    """The older pmap API: replicas, not partitions."""
    return jax.pmap(lambda x: lax.psum(x, "i"), axis_name="i"), (_sds((8, 4)),)


def b_jit_auto_sharded():
    """No shard_map: jit with input shardings; the partitioner adds the
    collectives after this export (none in the StableHLO itself)."""
    mesh = _mesh()
    f = jax.jit(lambda x, w: jnp.tanh(x @ w).sum(0),
                in_shardings=(NamedSharding(mesh, P("x")), NamedSharding(mesh, P(None, "x"))))
    return f, (_sds((64, 16)), _sds((16, 16)))


# (name, builder, options) as in corpus/generate.py's PROGRAMS.
PATTERNS = [
    ("ring_attention", b_ring_attention, dict(extras=("debug",))),
    ("fsdp_scan", b_fsdp_scan, {}),
    ("fsdp_grad", b_fsdp_grad, {}),
    ("moe_all_to_all", b_moe_all_to_all, dict(extras=("generic",))),
    ("ragged_all_to_all", b_ragged_all_to_all, dict(platforms=("cuda",))),
    # Not `buggy_deadlock`: the engines' corpus test runs those, and no engine here
    # runs ragged_all_to_all; tests/test_deadlock.py checks this one's verdict.
    ("ragged_all_to_all_cond", b_ragged_all_to_all_cond, dict(platforms=("cuda",), bug="buggy_gpu_deadlock")),
    ("while_pmax_cond", b_while_pmax_cond, dict(extras=("debug",))),
    ("mesh_psum_both_axes", b_mesh_psum_both_axes, {}),
    ("bidir_ppermute", b_bidir_ppermute, {}),
    ("mesh_cond_ppermute", b_mesh_cond_ppermute, dict(bug="buggy_deadlock")),
    ("psum_scatter_loop", b_psum_scatter_loop, {}),
    ("psum_groups", b_psum_groups, {}),
    ("pmap_psum", b_pmap_psum, {}),
    ("jit_auto_sharded", b_jit_auto_sharded, {}),
]
