#!/usr/bin/env python
"""Regenerate the real-JAX StableHLO corpus (corpus/real/) and the big modules.

Needs the ``jax`` extra (``pip install -e .[jax]``); CPU-only JAX is enough: the
send/recv (and pbroadcast) programs are lowered for ``cuda`` without a GPU.

    python corpus/generate.py [--out corpus/real] [--big corpus/big] [--no-big]
                              [--big-debug-info] [--only NAME ...] [--list]

Every program runs on 8 virtual CPU devices (``XLA_FLAGS`` is set below, before
JAX is imported).  Output names: ``<base>[.<variant>][.<bug>].mlir`` where
variant is ``gspmd`` (legacy partitioner), ``generic`` (generic op form),
``debug`` (with ``loc`` debug info) or ``export`` (``jax.export`` text), and the
bug tag, always last, starts with ``buggy_`` (deliberately defective programs).
See corpus/README.md.
"""
from __future__ import annotations

import argparse
import os
import sys
import time
import traceback
from pathlib import Path

_FLAG = "--xla_force_host_platform_device_count=8"
if _FLAG not in os.environ.get("XLA_FLAGS", ""):
    os.environ["XLA_FLAGS"] = (os.environ.get("XLA_FLAGS", "") + " " + _FLAG).strip()

import numpy as np  # noqa: E402

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
from jax import lax  # noqa: E402
from jax.sharding import Mesh, PartitionSpec as P  # noqa: E402

try:  # the async collective API is private; it exists in jax >= 0.7-ish
    import jax._src.lax.parallel as _par
except ImportError:  # pragma: no cover
    _par = None

HERE = Path(__file__).resolve().parent
REPO = HERE.parent

if hasattr(jax, "shard_map"):
    _shard_map = jax.shard_map
else:  # older JAX
    from jax.experimental.shard_map import shard_map as _shard_map


def shard_map(f, mesh, in_specs, out_specs, check_vma=True):
    try:
        return _shard_map(f, mesh=mesh, in_specs=in_specs, out_specs=out_specs,
                          check_vma=check_vma)
    except TypeError:  # older spelling of the flag
        return _shard_map(f, mesh=mesh, in_specs=in_specs, out_specs=out_specs,
                          check_rep=check_vma)


def mesh1d():
    return Mesh(np.array(jax.devices()[:8]), ("x",))


def mesh2d():
    return Mesh(np.array(jax.devices()[:8]).reshape(2, 4), ("x", "y"))


def sds(shape, dtype=jnp.float32):
    return jax.ShapeDtypeStruct(shape, dtype)


RING = [(i, (i + 1) % 8) for i in range(8)]
CHAIN = [(i, i + 1) for i in range(7)]  # pipeline step: stage i -> stage i+1


# --------------------------------------------------------------------------
# Small programs.  Each builder returns (function, example argument specs).
# --------------------------------------------------------------------------

def b_psum():
    f = shard_map(lambda x: lax.psum(x, "x"), mesh1d(), P("x"), P())
    return f, (sds((16, 4)),)


def b_pmax():
    f = shard_map(lambda x: lax.pmax(x, "x"), mesh1d(), P("x"), P())
    return f, (sds((16, 4)),)


def b_all_gather():
    # not tiled: a new leading axis of size 8
    # (all_gather results are not inferred replicated: out_specs P() needs
    # check_vma=False; the emitted all_gather is the same)
    f = shard_map(lambda x: lax.all_gather(x, "x", axis=0, tiled=False),
                  mesh1d(), P("x"), P(), check_vma=False)
    return f, (sds((16, 4)),)


def b_all_gather_tiled():
    f = shard_map(lambda x: lax.all_gather(x, "x", axis=1, tiled=True),
                  mesh1d(), P(None, "x"), P(), check_vma=False)
    return f, (sds((4, 16)),)


def b_psum_scatter():
    f = shard_map(lambda x: lax.psum_scatter(x, "x", scatter_dimension=0, tiled=True),
                  mesh1d(), P(None), P("x"))
    return f, (sds((64, 4)),)


def b_all_to_all():
    f = shard_map(lambda x: lax.all_to_all(x, "x", split_axis=1, concat_axis=0, tiled=True),
                  mesh1d(), P("x", None), P(None, "x"))
    return f, (sds((64, 32)),)


def b_ppermute_ring():
    f = shard_map(lambda x: lax.ppermute(x, "x", RING), mesh1d(), P("x"), P("x"))
    return f, (sds((32, 4)),)


def b_mesh2x4():
    def body(x):
        y = lax.psum(x, "y")                              # groups of 4 along "y"
        return lax.all_gather(y, "x", axis=0, tiled=True)  # groups of 2 along "x"
    f = shard_map(body, mesh2d(), P("x", "y"), P(), check_vma=False)
    return f, (sds((8, 16)),)


def b_fori_pipeline():
    """GPipe-style forward: stage i holds W_i; activations hop i -> i+1."""
    n_micro = 4

    def body(w, xs):
        w = w[0]                                  # [D, D] of this stage
        stage = lax.axis_index("x")
        state = lax.pcast(jnp.zeros_like(xs[0]), "x", to="varying")
        outs = lax.pcast(jnp.zeros_like(xs), "x", to="varying")

        def step(t, carry):
            state, outs = carry
            mb = xs[jnp.minimum(t, n_micro - 1)]
            inp = jnp.where(stage == 0, mb, state)
            out = jnp.tanh(inp @ w)
            outs = lax.dynamic_update_index_in_dim(
                outs, out, jnp.clip(t - 7, 0, n_micro - 1), 0)
            state = lax.ppermute(out, "x", RING)
            return state, outs

        _, outs = lax.fori_loop(0, n_micro + 7, step, (state, outs))
        return outs[None]
    f = shard_map(body, mesh1d(), (P("x"), P()), P("x"))
    return f, (sds((8, 16, 16)), sds((n_micro, 2, 16)))


def b_tp_mlp_grad():
    """Megatron MLP: W1 column-sharded, W2 row-sharded, psum; grads wrt W1, W2, x."""
    mesh = mesh1d()

    def mlp(x, w1, w2):
        h = jax.nn.gelu(x @ w1)
        return lax.psum(h @ w2, "x")
    smlp = shard_map(mlp, mesh, (P(), P(None, "x"), P("x", None)), P())

    def loss(w1, w2, x, t):
        return jnp.mean((smlp(x, w1, w2) - t) ** 2)

    def f(w1, w2, x, t):
        # d/dx too: x is replicated, so its cotangent needs a psum in the bwd
        l, (g1, g2, gx) = jax.value_and_grad(loss, argnums=(0, 1, 2))(w1, w2, x, t)
        return l, w1 - 0.1 * g1, w2 - 0.1 * g2, gx
    return f, (sds((16, 64)), sds((64, 16)), sds((4, 16)), sds((4, 16)))


def b_collective_matmul():
    """All-gather matmul as a scan: x rows rotate around the ring, dot each step."""
    def body(x, w):                      # x: [m, K] rows of this device; w: [K, n]
        idx = lax.axis_index("x")
        m = x.shape[0]
        out = lax.pcast(jnp.zeros((8 * m, w.shape[1]), x.dtype), "x", to="varying")

        def step(carry, i):
            chunk, out = carry
            src = (idx - i) % 8              # whose rows we hold now
            out = lax.dynamic_update_slice_in_dim(out, chunk @ w, src * m, 0)
            chunk = lax.ppermute(chunk, "x", RING)
            return (chunk, out), None

        (_, out), _ = lax.scan(step, (x, out), jnp.arange(8))
        return out
    f = shard_map(body, mesh1d(), (P("x", None), P(None, "x")), P(None, "x"))
    return f, (sds((32, 16)), sds((16, 32)))


def b_cond_axis_index_psum():
    """Only device 0 enters the all_reduce: the other 7 never do -> deadlock."""
    def body(x):
        return lax.cond(lax.axis_index("x") == 0,
                        lambda: lax.pcast(lax.psum(x, "x"), "x", to="varying"),
                        lambda: x)
    f = shard_map(body, mesh1d(), P("x"), P("x"))
    return f, (sds((32, 4)),)


def b_switch_axis_index():
    """Valid: a 3-way case on the device index with local work only, then psum."""
    def body(x):
        y = lax.switch(lax.axis_index("x") % 3,
                       [lambda v: v * 2.0, jnp.sin, lambda v: v + 1.0], x)
        return lax.psum(y, "x")
    f = shard_map(body, mesh1d(), P("x"), P())
    return f, (sds((32, 4)),)


# ---- send / recv (GPU-only lowering; lowered for "cuda") -------------------

def _sendrecv(perm, recv_shape=None, recv_dtype=None):
    def body(x):
        tok = lax.psend(x, "x", perm)
        shape = x.shape if recv_shape is None else recv_shape
        dtype = x.dtype if recv_dtype is None else recv_dtype
        y = lax.precv(tok, jax.ShapeDtypeStruct(shape, dtype), "x", perm)
        if y.shape != x.shape:
            y = y[: x.shape[0]]
        return jnp.tanh(x) + y.astype(x.dtype)
    f = shard_map(body, mesh1d(), P("x"), P("x"))
    return f, (sds((32,)),)


def b_sendrecv_pair():
    return _sendrecv(CHAIN)


def b_sendrecv_ring():
    return _sendrecv(RING)


def b_sendrecv_type_mismatch():
    # send f32[4], recv declares f32[8]: the payload types disagree.
    return _sendrecv(CHAIN, recv_shape=(8,))


# ---- async collectives (jax._src.lax.parallel.*_start / Future.done) -------

def b_async_psum_overlap():
    def body(x, w):
        fut = _par.psum_start(x, "x")      # start ...
        y = jnp.tanh(x @ w)                # ... overlap independent compute ...
        return fut.done() + y              # ... done
    f = shard_map(body, mesh1d(), (P("x"), P()), P("x"))
    return f, (sds((32, 16)), sds((16, 16)))


def b_async_two_overlapping():
    def body(x, y):
        f1 = _par.ppermute_start(x, "x", RING)
        f2 = _par.all_gather_start(y, "x", axis=0, tiled=True)
        z = jnp.sin(x) * 3.0
        g = f2.done()                      # done in the reverse order of start
        p = f1.done()
        return p + z, g
    # async results carry no replication info: every output is P("x")
    f = shard_map(body, mesh1d(), (P("x"), P("x")), (P("x"), P("x")))
    return f, (sds((32, 8)), sds((32, 8)))


def b_async_fori_loop():
    def body(x):
        def step(i, c):
            fut = _par.ppermute_start(c, "x", RING)
            local = jnp.tanh(c)
            return fut.done() + local
        return lax.fori_loop(0, 4, step, x)
    f = shard_map(body, mesh1d(), P("x"), P("x"))
    return f, (sds((32, 8)),)


def b_async_done_twice():
    def body(x):
        fut = _par.ppermute_start(x, "x", RING)
        return fut.done() + fut.done()     # the same future consumed twice
    f = shard_map(body, mesh1d(), P("x"), P("x"))
    return f, (sds((32, 8)),)


def b_async_all_kinds():
    """One of every *_start; pbroadcast_start lowers only for GPU -> cuda."""
    def body(x):
        a = _par.all_gather_start(x, "x", axis=0, tiled=True)
        b = _par.psum_scatter_start(x, "x", scatter_dimension=0, tiled=True)
        c = _par.all_to_all_start(x, "x", 0, 0, tiled=True)
        d = _par.psum_start(x, "x")
        e = _par.ppermute_start(x, "x", RING)
        g = _par.pbroadcast_start(x, "x", 0)
        return a.done(), b.done(), c.done(), d.done(), e.done(), g.done()
    f = shard_map(body, mesh1d(), P("x"),
                  (P("x"),) * 6)
    return f, (sds((64, 8)),)


# ---- probes: things we expect JAX to refuse (reported, not written) --------

def b_probe_async_never_done():
    def body(x):
        _par.ppermute_start(x, "x", RING)  # never .done()
        return x * 2.0
    f = shard_map(body, mesh1d(), P("x"), P("x"))
    return f, (sds((32, 8)),)


def b_probe_async_loop_carried_future():
    def body(x):
        fut = _par.ppermute_start(x, "x", RING)

        def step(i, c):
            fx, acc = c
            y = _par.ppermute_done_p.bind(fx)
            nxt = _par.ppermute_start(y, "x", RING)
            return nxt.x, acc + jnp.tanh(y)
        fx, acc = lax.fori_loop(0, 4, step, (fut.x, x))
        return _par.ppermute_done_p.bind(fx) + acc
    f = shard_map(body, mesh1d(), P("x"), P("x"))
    return f, (sds((32, 8)),)


def b_gpipe_at_set():
    """GPipe as JAX's shard_map documentation writes it, with the schedule in a
    fori_loop: each stage keeps a state buffer, writes a microbatch in with
    `.at[i].set(...)` (scatter with a traced index), reads with `jnp.take`
    (gather), runs its layers, and shifts the last layer's output one stage to
    the right with a ppermute every step."""
    n_stages, n_micro, layers_per_stage, mb, feat = 8, 4, 2, 2, 16

    def stage_fn(ws, state):
        for k in range(layers_per_stage):
            state = state.at[k].set(jnp.tanh(state[k] @ ws[k]))
        return state

    def body(ws, inputs):
        ws = ws[0]                                   # [layers_per_stage, F, F]
        stage = lax.axis_index("x")
        state = lax.pcast(jnp.zeros((layers_per_stage, mb, feat)), "x", to="varying")
        outputs = lax.pcast(jnp.zeros_like(inputs), "x", to="varying")

        def step(i, carry):
            state, outputs = carry
            mb_in = jnp.take(inputs, i % n_micro, axis=0)
            state = state.at[0].set(jnp.where(stage == 0, mb_in, state[0]))
            state = stage_fn(ws, state)
            j = (i - n_stages + 1) % n_micro
            outputs = outputs.at[j].set(
                jnp.where(stage == n_stages - 1, state[-1], jnp.take(outputs, j, axis=0)))
            last = lax.ppermute(state[-1], "x", RING)
            state = jnp.roll(state, 1, axis=0).at[0].set(last)
            return state, outputs

        _, outputs = lax.fori_loop(0, n_micro + n_stages - 1, step, (state, outputs))
        return outputs[None]
    f = shard_map(body, mesh1d(), (P("x"), P()), P("x"))
    return f, (sds((n_stages, layers_per_stage, feat, feat)), sds((n_micro, mb, feat)))


# (name, builder, options): platforms, extras (more Shardy variants), bug (tag, last),
# probe (expected refusal), gspmd / many (False: no GSPMD form / not in corpus/many).
from patterns import PATTERNS  # noqa: E402  (corpus/patterns.py; imported here, not at the top, so the
# builders above keep the line numbers the committed debug-info exports point at)
SHARED_EXTRAS = ("generic", "debug")
PROGRAMS = [
    ("psum", b_psum, dict(extras=SHARED_EXTRAS + ("export",))),
    ("pmax", b_pmax, {}),
    ("all_gather", b_all_gather, {}),
    ("all_gather_tiled", b_all_gather_tiled, {}),
    ("psum_scatter", b_psum_scatter, {}),
    ("all_to_all", b_all_to_all, {}),
    ("ppermute_ring", b_ppermute_ring, dict(extras=SHARED_EXTRAS)),
    ("mesh2x4_psum_y_gather_x", b_mesh2x4, {}),
    ("fori_pipeline", b_fori_pipeline, dict(extras=SHARED_EXTRAS)),
    ("gpipe_at_set", b_gpipe_at_set, dict(extras=("debug",))),
    ("tp_mlp_grad", b_tp_mlp_grad, {}),
    ("collective_matmul_scan", b_collective_matmul, {}),
    ("cond_axis_index_psum", b_cond_axis_index_psum,
     dict(extras=SHARED_EXTRAS, bug="buggy_deadlock")),
    ("switch_axis_index", b_switch_axis_index, {}),
    ("sendrecv_pair", b_sendrecv_pair,
     dict(platforms=("cuda",), extras=("debug", "export"))),
    ("sendrecv_ring", b_sendrecv_ring, dict(platforms=("cuda",), extras=("generic",))),
    ("sendrecv_pair", b_sendrecv_type_mismatch,
     dict(platforms=("cuda",), bug="buggy_type_mismatch")),
    ("async_psum_overlap", b_async_psum_overlap, dict(extras=("debug",))),
    ("async_two_overlapping", b_async_two_overlapping, dict(extras=("generic",))),
    ("async_fori_loop", b_async_fori_loop, {}),
    ("async_ppermute", b_async_done_twice, dict(bug="buggy_done_twice")),
    ("async_all_kinds", b_async_all_kinds, dict(platforms=("cuda",))),
    ("probe_async_never_done", b_probe_async_never_done,
     dict(probe="the start has no effect and no user: JAX drops it (no async_start left)",
          must_contain="async_start")),
    ("probe_async_loop_carried_future", b_probe_async_loop_carried_future,
     dict(probe="a future cannot be a fori_loop carry")),
    *PATTERNS,  # corpus/patterns.py: ring attention, FSDP, MoE, ...
]


# --------------------------------------------------------------------------
# Lowering helpers
# --------------------------------------------------------------------------

def set_partitioner(mode: str) -> None:
    jax.config.update("jax_use_shardy_partitioner", mode == "shardy")


def lower(fn, args, platforms=None):
    traced = jax.jit(fn).trace(*args)
    if platforms:
        return traced.lower(lowering_platforms=tuple(platforms))
    return traced.lower()


def relativize(text: str) -> str:
    """Debug locations carry absolute paths; make them repo-relative."""
    return text.replace(str(REPO) + os.sep, "")


def render(fn, args, platforms, variant):
    if variant == "export":
        from jax import export as jex
        plats = list(platforms) if platforms else None
        exp = jex.export(jax.jit(fn), platforms=plats)(*args)
        return relativize(exp.mlir_module())
    lowered = lower(fn, args, platforms)
    if variant in (None, "gspmd"):
        return lowered.as_text()
    module = lowered.compiler_ir("stablehlo")
    if variant == "generic":
        return module.operation.get_asm(print_generic_op_form=True)
    if variant == "debug":
        return relativize(module.operation.get_asm(enable_debug_info=True))
    raise ValueError(variant)


def file_name(base, variant, bug):
    parts = [base] + ([variant] if variant else []) + ([bug] if bug else [])
    return ".".join(parts) + ".mlir"


def write(path: Path, text: str) -> int:
    if not text.endswith("\n"):
        text += "\n"
    path.write_text(text)
    return len(text.encode())


def generate_small(out: Path, only=None):
    out.mkdir(parents=True, exist_ok=True)
    written, refused = [], []
    for mode in ("shardy", "gspmd"):
        set_partitioner(mode)
        for name, builder, opt in PROGRAMS:
            if only and name not in only:
                continue
            plats = opt.get("platforms")
            variants = [None] if mode == "shardy" else ["gspmd"]
            if mode == "shardy":
                variants += list(opt.get("extras", ()))
            if mode == "gspmd" and (opt.get("probe") or opt.get("gspmd") is False):
                continue
            for variant in variants:
                fname = file_name(name, variant, opt.get("bug"))
                try:
                    fn, args = builder()
                    text = render(fn, args, plats, variant)
                except Exception as e:  # record JAX's refusal verbatim
                    msg = f"{type(e).__name__}: {e}".strip().splitlines()[0]
                    refused.append((fname, msg))
                    print(f"  REFUSED {fname}: {msg}")
                    if not opt.get("probe"):
                        traceback.print_exc(limit=2)
                    continue
                if opt.get("probe"):
                    need = opt.get("must_contain")
                    if need and need not in text:
                        refused.append((fname, "lowered, but " + opt["probe"]))
                        print(f"  PROBE {fname}: lowered, but {opt['probe']}")
                    else:
                        print(f"  PROBE {fname}: unexpectedly lowered (not written)")
                    continue
                n = write(out / fname, text)
                written.append((fname, n))
                print(f"  wrote {fname} ({n} bytes)")
    set_partitioner("shardy")
    return written, refused


# --------------------------------------------------------------------------
# Big modules: a sequence-/tensor-parallel transformer training step (corpus/transformer.py)
# --------------------------------------------------------------------------

from transformer import build_transformer  # noqa: E402  (beside this script)


def transformer_text(layers, steps, debug_info=False):
    fn, args = build_transformer(layers, steps, shard_map, sds)
    lowered = lower(fn, args)
    if not debug_info:
        return lowered.as_text()
    return relativize(lowered.compiler_ir("stablehlo").operation.get_asm(
        enable_debug_info=True))


BIG_TARGETS = [("transformer_2mb", 2e6, 1), ("transformer_9mb", 9e6, 2),
               ("transformer_30mb", 30e6, 4)]  # (name, bytes, unrolled steps)


def generate_big(out: Path, debug_info=False):
    out.mkdir(parents=True, exist_ok=True)
    set_partitioner("shardy")
    # size ~ a + b * layers * steps: measure b with two cheap probes
    s1 = len(transformer_text(1, 1, debug_info))
    s2 = len(transformer_text(2, 1, debug_info))
    per_unit, base = s2 - s1, 2 * s1 - s2
    print(f"  transformer: ~{per_unit} bytes per layer-step, base {base}")
    written = []
    for name, target, steps in BIG_TARGETS:
        layers = max(1, round((target - base) / per_unit / steps))
        t0 = time.time()
        text = transformer_text(layers, steps, debug_info)
        fname = name + (".debug" if debug_info else "") + ".mlir"
        n = write(out / fname, text)
        written.append((fname, n))
        print(f"  wrote {fname}: {layers} layers x {steps} steps, {n / 1e6:.1f} MB "
              f"({time.time() - t0:.0f}s)")
    return written


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=str(HERE / "real"), help="small corpus dir")
    ap.add_argument("--big", default=str(HERE / "big"), help="big-module dir (ignored by git)")
    ap.add_argument("--no-big", action="store_true", help="skip the big modules")
    ap.add_argument("--no-small", action="store_true", help="skip the small corpus")
    ap.add_argument("--big-debug-info", action="store_true",
                    help="print the big modules with loc() debug info (bigger files)")
    ap.add_argument("--only", nargs="*", help="only these program base names")
    ap.add_argument("--list", action="store_true", help="list the programs and exit")
    a = ap.parse_args(argv)
    if a.list:
        for name, _, opt in PROGRAMS:
            print(name, opt)
        return 0
    if len(jax.devices()) < 8:
        sys.exit(f"need 8 devices, got {jax.devices()} (XLA_FLAGS={os.environ.get('XLA_FLAGS')})")
    print(f"jax {jax.__version__}, {len(jax.devices())} {jax.devices()[0].platform} devices")
    if not a.no_small:
        written, refused = generate_small(Path(a.out), a.only)
        print(f"{len(written)} small modules written, {len(refused)} refused/probed")
    if not a.no_big:
        generate_big(Path(a.big), a.big_debug_info)
    return 0


if __name__ == "__main__":
    sys.exit(main())
