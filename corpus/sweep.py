"""More JAX programs for bench/jax_sweep.py, beside corpus/generate.py's and
corpus/patterns.py's (which corpus/real/ comes from): the kinds of program the
second sweep of JAX exports covered (docs/conformance.md) and the corpus does
not keep — collectives on other element types, pmean and axis_size, scans and
remat, custom_vjp, random numbers, sharding constraints, optimization barriers,
sorting, zero-size and 0-d operands, reversed axis tuples, and training-loop
control (gradient accumulation under a cond, a step skipped on a non-finite
loss, an early-stopping while).

Each builder returns (function, example argument specs), as in generate.py; the
options: `bug` (the program hangs on XLA:CPU whatever its inputs: some devices
never reach a collective the others wait in), `platforms`. Imported after generate.py has set
XLA_FLAGS (8 CPU devices).
"""
from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax
from jax.sharding import Mesh, NamedSharding, PartitionSpec as P


def _smap(f, mesh, in_specs, out_specs):
    return jax.shard_map(f, mesh=mesh, in_specs=in_specs, out_specs=out_specs, check_vma=False)


def _mesh(shape=(8,), names=("x",)):
    return Mesh(np.array(jax.devices()[:8]).reshape(shape), names)


def _sds(shape, dtype=jnp.float32):
    return jax.ShapeDtypeStruct(shape, dtype)


def _psum_of(dtype):
    def build():
        f = _smap(lambda a: lax.psum(a, "x"), _mesh(), P("x"), P())
        return f, (_sds((8, 4), dtype),)
    return build


def s_psum_bool():
    """psum of booleans: JAX sums them as int32 then compares."""
    f = _smap(lambda a: lax.psum(a.astype(jnp.int32), "x") > 0, _mesh(), P("x"), P())
    return f, (_sds((8, 4), jnp.bool_),)


def s_pmean_axis_size():
    """pmean and axis_size (a constant after lowering)."""
    f = _smap(lambda a: lax.pmean(a, "x") * lax.axis_size("x"), _mesh(), P("x"), P())
    return f, (_sds((8, 4)),)


def s_psum_reversed_axes():
    """A psum over ("y", "x") on a 2x4 mesh: the axes written in reverse order."""
    f = _smap(lambda a: lax.psum(a, ("y", "x")), _mesh((2, 4), ("x", "y")), P("x", "y"), P())
    return f, (_sds((8, 16)),)


def s_all_to_all_two_axes():
    """all_to_all over both axes of a 2x4 mesh."""
    f = _smap(lambda a: lax.all_to_all(a, ("x", "y"), 0, 0, tiled=True), _mesh((2, 4), ("x", "y")),
              P(("x", "y")), P(("x", "y")))
    return f, (_sds((64, 4)),)


def s_scan_unrolled():
    """A scan with unroll=2 around a psum."""
    def body(x):
        def step(c, _):
            return lax.psum(c, "x") * 0.5, None
        return lax.scan(step, x, None, length=6, unroll=2)[0]
    f = _smap(body, _mesh(), P("x"), P("x"))
    return f, (_sds((8, 4)),)


def s_checkpoint_grad():
    """jax.checkpoint around a layer whose forward has a psum: the gradient recomputes it."""
    def loss(w, x):
        @jax.checkpoint
        def layer(h):
            return jnp.tanh(lax.psum(h @ w, "x"))
        return layer(x).sum()
    f = _smap(jax.grad(loss), _mesh(), (P(), P("x")), P())
    return f, (_sds((4, 4)), _sds((8, 4)))


def s_custom_vjp():
    """A custom_vjp whose backward pass all_gathers."""
    @jax.custom_vjp
    def g(x):
        return x * 2.0

    def g_fwd(x):
        return g(x), x

    def g_bwd(x, ct):
        return (lax.all_gather(ct, "x", tiled=True)[:ct.shape[0]],)

    g.defvjp(g_fwd, g_bwd)
    f = _smap(jax.grad(lambda x: g(x).sum()), _mesh(), P("x"), P("x"))
    return f, (_sds((8, 4)),)


def s_random_psum():
    """jax.random in each device, folded with the axis index, then a psum."""
    def body(x):
        key = jax.random.fold_in(jax.random.key(0), lax.axis_index("x"))
        return lax.psum(x + jax.random.normal(key, x.shape), "x")
    f = _smap(body, _mesh(), P("x"), P())
    return f, (_sds((8, 4)),)


def s_sharding_constraint():
    """jit with a with_sharding_constraint in the middle (the partitioner's collectives)."""
    mesh = _mesh()

    def fn(x):
        y = jnp.sin(x)
        y = jax.lax.with_sharding_constraint(y, NamedSharding(mesh, P(None, "x")))
        return y.sum(axis=1)
    return jax.jit(fn, in_shardings=NamedSharding(mesh, P("x"))), (_sds((16, 16)),)


def s_optimization_barrier():
    """An optimization_barrier between two psums."""
    def body(x):
        a = lax.psum(x, "x")
        a, x = lax.optimization_barrier((a, x))
        return lax.psum(a * x, "x")
    f = _smap(body, _mesh(), P("x"), P())
    return f, (_sds((8, 4)),)


def s_sort_top_k():
    """Local sort and top_k, then an all_gather of the winners."""
    def body(x):
        v, _ = lax.top_k(jnp.sort(x, axis=1), 2)
        return lax.all_gather(v, "x", tiled=True)
    f = _smap(body, _mesh(), P("x"), P())
    return f, (_sds((8, 6)),)


def s_zero_size():
    """A psum of a zero-size array and of a 0-d one."""
    f = _smap(lambda a, b: (lax.psum(a, "x"), lax.psum(b, "x")), _mesh(), (P("x"), P()), (P(), P()))
    return f, (_sds((8, 0)), _sds(()))


def s_fori_trip_argument():
    """Valid: the trip count is an argument replicated on every device (the same everywhere)."""
    def body(x, n):
        return lax.fori_loop(0, n, lambda i, c: lax.psum(c, "x") * 0.5, x)
    f = _smap(body, _mesh(), (P("x"), P()), P("x"))
    return f, (_sds((8, 4)), _sds((), jnp.int32))


def s_while_pmax():
    """Valid: a while whose condition is a pmax (the same on every device)."""
    def body(x):
        def cond(c):
            return lax.pmax(c[1], "x") < 5
        def step(c):
            return lax.psum(c[0], "x") * 0.1, c[1] + 1
        return lax.while_loop(cond, step, (x, jnp.int32(0)))[0]
    f = _smap(body, _mesh(), P("x"), P("x"))
    return f, (_sds((8, 4)),)


def s_grad_accumulation_cond():
    """Gradient accumulation: a pmean of the gradient under cond(i % 2 == 1), i a
    loop counter (the same on every device)."""
    def body(w, xs):
        def step(i, carry):
            w, acc = carry
            g = jax.grad(lambda w: (xs[i] @ w).sum())(w)
            acc = acc + g
            w, acc = lax.cond(i % 2 == 1, lambda w, a: (w - 0.1 * lax.pmean(a, "x"), a * 0.0),
                              lambda w, a: (w, a), w, acc)
            return w, acc
        return lax.fori_loop(0, 4, step, (w, jnp.zeros_like(w)))[0]
    f = _smap(body, _mesh(), (P(), P(None, "x")), P())
    return f, (_sds((4, 4)), _sds((4, 8, 4)))


def s_skip_nonfinite_local():
    """Bug: skip the update when the local loss is not finite: the psum'd update
    runs on some devices only (a local value decides it)."""
    def body(w, x):
        loss = (x @ w).sum()
        return lax.cond(jnp.isfinite(loss), lambda w: w - 0.1 * lax.psum(x.T @ x, "x"), lambda w: w, w)
    f = _smap(body, _mesh(), (P(), P("x")), P())
    return f, (_sds((4, 4)), _sds((8, 4)))


def s_skip_nonfinite_pmean():
    """Valid: the same skip decided by a pmean'd loss (the same everywhere)."""
    def body(w, x):
        loss = lax.pmean((x @ w).sum(), "x")
        return lax.cond(jnp.isfinite(loss), lambda w: w - 0.1 * lax.psum(x.T @ x, "x"), lambda w: w, w)
    f = _smap(body, _mesh(), (P(), P("x")), P())
    return f, (_sds((4, 4)), _sds((8, 4)))


def s_early_stop_local():
    """An early-stopping while on local data around a psum (a hang whenever the
    devices' data disagree; SHLO504 warns)."""
    def body(x):
        def cond(c):
            return (c[1] < 10) & (jnp.abs(c[0]).sum() > 1.0)
        def step(c):
            return lax.psum(c[0], "x") * 0.01, c[1] + 1
        return lax.while_loop(cond, step, (x, 0))[0]
    f = _smap(body, _mesh(), P("x"), P("x"))
    return f, (_sds((8, 4)),)


def s_cond_axis_index_all_gather_y():
    """Valid: an all_gather over "y" under a cond on axis_index("x"): each group is a row."""
    def body(v):
        return lax.cond(lax.axis_index("x") == 1, lambda v: lax.all_gather(v, "y", tiled=True)[:v.shape[0]],
                        lambda v: v, v)
    f = _smap(body, _mesh((2, 4), ("x", "y")), P("x", "y"), P("x", "y"))
    return f, (_sds((8, 16)),)


def s_ppermute_under_cond_x():
    """Bug: a ppermute over "y" under a cond on axis_index("x") == 0 ... on a 4x2 mesh whose
    "y" pairs lie in rows: row 0 enters, but XLA meets a permute as a rendezvous of
    its whole group (every device with a channel)."""
    def body(v):
        return lax.cond(lax.axis_index("x") == 0, lambda v: lax.ppermute(v, "y", [(0, 1), (1, 0)]),
                        lambda v: v, v)
    f = _smap(body, _mesh((4, 2), ("x", "y")), P("x", "y"), P("x", "y"))
    return f, (_sds((8, 8)),)


def s_psum_in_while_axis_index():
    """Bug: a while whose condition reads axis_index (device k runs k+1 iterations of a psum)."""
    def body(x):
        def cond(c):
            return c[1] <= lax.axis_index("x")
        def step(c):
            return lax.psum(c[0], "x"), c[1] + 1
        return lax.while_loop(cond, step, (x, 0))[0]
    f = _smap(body, _mesh(), P("x"), P("x"))
    return f, (_sds((8, 4)),)


def s_training_step_2x4():
    """A small training step on a 2x4 mesh: data parallel over "x", tensor parallel over "y"."""
    def body(w1, w2, x, y):
        def loss(w1, w2):
            h = jnp.tanh(x @ w1)
            out = lax.psum(h @ w2, "y")
            return ((out - y) ** 2).mean()
        g1, g2 = jax.grad(loss, argnums=(0, 1))(w1, w2)
        return w1 - 0.1 * lax.pmean(g1, "x"), w2 - 0.1 * lax.pmean(g2, "x")
    f = _smap(body, _mesh((2, 4), ("x", "y")), (P(None, "y"), P("y", None), P("x"), P("x")),
              (P(None, "y"), P("y", None)))
    return f, (_sds((8, 16)), _sds((16, 8)), _sds((4, 8)), _sds((4, 8)))


# (name, builder, options) as in corpus/generate.py's PROGRAMS
SWEEP = [
    ("psum_int8", _psum_of(jnp.int8), {}),
    ("psum_complex64", _psum_of(jnp.complex64), {}),
    ("psum_bf16", _psum_of(jnp.bfloat16), {}),
    ("psum_f8e4m3fn", _psum_of(jnp.float8_e4m3fn), {}),
    ("psum_bool", s_psum_bool, {}),
    ("pmean_axis_size", s_pmean_axis_size, {}),
    ("psum_reversed_axes", s_psum_reversed_axes, {}),
    ("all_to_all_two_axes", s_all_to_all_two_axes, {}),
    ("scan_unrolled", s_scan_unrolled, {}),
    ("checkpoint_grad", s_checkpoint_grad, {}),
    ("custom_vjp_all_gather", s_custom_vjp, {}),
    ("random_psum", s_random_psum, {}),
    ("sharding_constraint", s_sharding_constraint, {}),
    ("optimization_barrier", s_optimization_barrier, {}),
    ("sort_top_k_gather", s_sort_top_k, {}),
    ("zero_size_psum", s_zero_size, {}),
    ("fori_trip_argument", s_fori_trip_argument, {}),
    ("while_pmax_loop", s_while_pmax, {}),
    ("grad_accumulation_cond", s_grad_accumulation_cond, {}),
    ("skip_nonfinite_local", s_skip_nonfinite_local, {}),  # hangs only when some device's loss is not finite
    ("skip_nonfinite_pmean", s_skip_nonfinite_pmean, {}),
    ("early_stop_local", s_early_stop_local, {}),
    ("cond_x_all_gather_y", s_cond_axis_index_all_gather_y, {}),
    ("ppermute_under_cond_x", s_ppermute_under_cond_x, dict(bug="buggy_deadlock")),
    ("while_axis_index", s_psum_in_while_axis_index, dict(bug="buggy_deadlock")),
    ("training_step_2x4", s_training_step_2x4, {}),
]
