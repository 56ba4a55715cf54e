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


# ---------------------------------------------------------------------------
# The second sweep (docs/conformance.md, "A sweep of JAX programs nobody here
# wrote"): forms the first set does not have. Appended after PATTERNS so the
# debug-info exports above keep their line numbers. Each ran on XLA:CPU with 8
# host devices; the buggy ones hang there (XLA:CPU aborts at its rendezvous).
# many=False: not in corpus/many (bench/parallel.py's set stays the one measured;
# psum_in_both_branches is not clean either: SHLO502).
# ---------------------------------------------------------------------------

def b_pmap_psum_groups():
    """pmap with axis_index_groups: two sums of four, the groups interleaved."""
    return jax.pmap(lambda x: lax.psum(x, "i", axis_index_groups=[[0, 2, 4, 6], [1, 3, 5, 7]]),
                    axis_name="i"), (_sds((8, 4)),)


def b_psum_tuple():
    """psum of a tuple of f32, i32 and bf16 arrays: JAX emits one all_reduce per
    array (not one variadic all_reduce)."""
    f = _smap(lambda a, b, c: lax.psum((a, b, c), "x"), _mesh(), (P("x"),) * 3, (P(),) * 3)
    return f, (_sds((8, 4)), _sds((8,), jnp.int32), _sds((16, 2), jnp.bfloat16))


def b_pmin_pmax_int():
    """pmin on int32, pmax on uint8: integer min/max reductions."""
    f = _smap(lambda a: (lax.pmin(a, "x"), lax.pmax(a.astype(jnp.uint8), "x")), _mesh(), P("x"), (P(), P()))
    return f, (_sds((8, 4), jnp.int32),)


def b_all_to_all_untiled():
    """all_to_all(tiled=False): the split axis is removed, a new concat axis of 8 appears
    (reshapes around a tiled all_to_all in the StableHLO)."""
    f = _smap(lambda x: lax.all_to_all(x, "x", 0, 1, tiled=False), _mesh(), P("x"), P("x"))
    return f, (_sds((64, 4)),)


def b_psum_scatter_untiled():
    """psum_scatter(tiled=False) along dimension 1: the scattered axis disappears."""
    f = _smap(lambda x: lax.psum_scatter(x, "x", scatter_dimension=1, tiled=False), _mesh(), P(None), P("x"))
    return f, (_sds((4, 8, 3)),)


def b_ppermute_partial():
    """A permutation that moves data between two pairs only; the other six devices
    receive zeros (and still take part in the collective_permute)."""
    f = _smap(lambda x: lax.ppermute(x, "x", [(0, 1), (2, 3)]), _mesh(), P("x"), P("x"))
    return f, (_sds((8, 4)),)


def b_mesh_cond_x_psum_y():
    """Valid: a 2x4 mesh, psum over "y" only where axis_index("x") == 0. Each psum
    group ([0..3], [4..7]) lies on one "x" row, so a group enters it whole."""
    def body(v):
        return lax.cond(lax.axis_index("x") == 0, lambda v: lax.psum(v, "y"), lambda v: v, v)
    f = _smap(body, _mesh((2, 4), ("x", "y")), P("x", "y"), P("x", "y"))
    return f, (_sds((8, 16)),)


def b_mesh_cond_y_psum_y():
    """Bug: psum over "y" only where axis_index("y") == 0: one member of each group
    of four enters it (XLA:CPU: devices 0 and 4 wait for 3 peers each)."""
    def body(v):
        return lax.cond(lax.axis_index("y") == 0, lambda v: lax.psum(v, "y"), lambda v: v, v)
    f = _smap(body, _mesh((2, 4), ("x", "y")), P("x", "y"), P("x", "y"))
    return f, (_sds((8, 16)),)


def b_cond_on_psum():
    """Valid: the predicate is a psum, the same on every device, so every device
    takes the branch with the second psum or none does."""
    def body(x):
        s = lax.psum(x.sum(), "x")
        return lax.cond(s > 0, lambda v: lax.psum(v, "x"), lambda v: v * 2.0, x)
    f = _smap(body, _mesh(), P("x"), P("x"))
    return f, (_sds((8, 4)),)


def b_fori_trip_psum():
    """Valid: a fori_loop whose trip count is a psum (the same everywhere) with a
    psum in its body."""
    def body(x):
        n = lax.psum(jnp.int32(1), "x") // 4
        return lax.fori_loop(0, n, lambda i, c: lax.psum(c, "x") * 0.1, x)
    f = _smap(body, _mesh(), P("x"), P("x"))
    return f, (_sds((8, 4)),)


def b_fori_trip_axis_index():
    """Bug: the trip count is axis_index + 1, the body a psum: device 0 stops after
    one psum while the other seven wait at the second (XLA:CPU aborts at the
    rendezvous). No GSPMD form: XLA refuses to compile that one ("PartitionId
    instruction is not supported for SPMD partitioning")."""
    def body(x):
        return lax.fori_loop(0, lax.axis_index("x") + 1, lambda i, c: lax.psum(c, "x") * 0.1, x)
    f = _smap(body, _mesh(), P("x"), P("x"))
    return f, (_sds((8, 4)),)


def b_psum_in_both_branches():
    """A psum in both branches of a cond on axis_index: device 0 runs one all_reduce,
    the others the other. XLA:CPU completes (it matches two all_reduces of the
    same kind, channel and group); the StableHLO spec counts them as different
    collectives: SHLO502, a warning."""
    def body(x):
        return lax.cond(lax.axis_index("x") == 0,
                        lambda v: lax.psum(v, "x") + 1.0, lambda v: lax.psum(v * 2.0, "x"), x)
    f = _smap(body, _mesh(), P("x"), P("x"))
    return f, (_sds((8, 4)),)


def b_async_all_gather_in_cond():
    """all_gather_start and its done inside a cond on a replicated flag; the done
    is followed only by `+ 1.0` (a constant JAX broadcasts): nothing to overlap."""
    from jax._src.lax import parallel as par

    def body(x, k):
        def gather(v):
            return par.all_gather_start(v, "x", axis=0, tiled=True).done()[: v.shape[0]] + 1.0
        return lax.cond(k[0] > 0, gather, lambda v: v, x)
    f = _smap(body, _mesh(), (P("x"), P()), P("x"))
    return f, (_sds((8, 4)), _sds((1,), jnp.int32))


def b_platform_dependent_psum():
    """lax.platform_dependent with a psum in each branch, lowered for CPU and CUDA
    at once: `main` takes the platform index (`jax.global_constant =
    "_platform_index"`) and `case`s on it around the collectives. The index is
    replicated (the same on every device), so the branches cannot split a group."""
    def body(x):
        return lax.platform_dependent(x, cpu=lambda v: lax.psum(v, "x"), cuda=lambda v: lax.psum(v * 2.0, "x"))
    f = _smap(body, _mesh(), P("x"), P("x"))
    return f, (_sds((8, 4)),)


def b_debug_print():
    """jax.debug.print inside shard_map: a host-callback custom_call (with a
    backend_config and side effects) next to a psum."""
    def body(x):
        jax.debug.print("x0={x}", x=x[0, 0])
        return lax.psum(x, "x")
    f = _smap(body, _mesh(), P("x"), P())
    return f, (_sds((8, 4)),)


PATTERNS += [
    ("pmap_psum_groups", b_pmap_psum_groups, dict(gspmd=False, many=False)),
    ("psum_tuple", b_psum_tuple, dict(gspmd=False, many=False)),
    ("pmin_pmax_int", b_pmin_pmax_int, dict(gspmd=False, many=False)),
    ("all_to_all_untiled", b_all_to_all_untiled, dict(gspmd=False, many=False)),
    ("psum_scatter_untiled", b_psum_scatter_untiled, dict(gspmd=False, many=False)),
    ("ppermute_partial", b_ppermute_partial, dict(gspmd=False, many=False)),
    ("mesh_cond_x_psum_y", b_mesh_cond_x_psum_y, dict(many=False)),
    ("mesh_cond_y_psum_y", b_mesh_cond_y_psum_y, dict(bug="buggy_deadlock", gspmd=False, many=False)),
    ("cond_on_psum", b_cond_on_psum, dict(gspmd=False, many=False)),
    ("fori_trip_psum", b_fori_trip_psum, dict(gspmd=False, many=False)),
    ("fori_trip_axis_index", b_fori_trip_axis_index, dict(bug="buggy_deadlock", gspmd=False, many=False)),
    ("psum_in_both_branches", b_psum_in_both_branches, dict(gspmd=False, many=False)),
    ("async_all_gather_in_cond", b_async_all_gather_in_cond, dict(gspmd=False, many=False)),
    ("platform_dependent_psum", b_platform_dependent_psum, dict(platforms=("cpu", "cuda"), extras=("export",), many=False)),
    ("debug_print", b_debug_print, dict(gspmd=False, many=False)),
]


def b_partial_manual_cond_psum():
    """Bug: a shard_map manual over "x" only (axis_names={"x"}) on a 2x4 mesh, a psum
    over "x" where axis_index("x") == 0: the devices of row 0 wait for their row-1
    peers (XLA:CPU, both partitioners: "expected 2 participants, 1 arrived"). JAX
    reads axis_index here through a nested, operand-less manual computation over
    "y" (Shardy) or a full-manual helper function whose result passes a
    SPMDShardToFullShape that stays manual (GSPMD)."""
    def body(v):
        return lax.cond(lax.axis_index("x") == 0, lambda v: lax.psum(v, "x"), lambda v: v * 2.0, v)
    m = _mesh((2, 4), ("x", "y"))
    f = jax.jit(jax.shard_map(body, mesh=m, in_specs=P("x"), out_specs=P("x"), axis_names={"x"},
                              check_vma=False))
    return f, (_sds((8, 16)),)


def b_partial_manual_cond_psum_ok():
    """Valid: the same partially manual shard_map with the predicate a psum over
    "x" (the same on every device of each psum group)."""
    def body(v):
        s = lax.psum(v.sum(), "x")
        return lax.cond(s > 0, lambda v: lax.psum(v, "x"), lambda v: v * 2.0, v)
    m = _mesh((2, 4), ("x", "y"))
    f = jax.jit(jax.shard_map(body, mesh=m, in_specs=P("x"), out_specs=P("x"), axis_names={"x"},
                              check_vma=False))
    return f, (_sds((8, 16)),)


PATTERNS += [
    ("partial_manual_cond_psum", b_partial_manual_cond_psum, dict(bug="buggy_deadlock", many=False)),
    ("partial_manual_cond_psum_ok", b_partial_manual_cond_psum_ok, dict(many=False)),
]
