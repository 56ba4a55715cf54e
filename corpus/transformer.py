"""The big modules of corpus/big/: a sequence-/tensor-parallel transformer
training step on a 2x4 (dp, tp) mesh, unrolled `steps` times over `layers`
layers (module size grows with both). Imported by corpus/generate.py (after it
has set XLA_FLAGS for 8 CPU devices), which passes its `shard_map` and `sds`
helpers and prints the text.
"""
from __future__ import annotations

import numpy as np

import jax
import jax.numpy as jnp
from jax import lax
from jax.sharding import Mesh, PartitionSpec as P


D, H, DH, F, B, S = 256, 8, 32, 1024, 4, 128  # model dims (global)


def _layer_params(key):
    k = jax.random.split(key, 4)
    s = 0.02
    return dict(
        ln1=jnp.ones((D,)), ln2=jnp.ones((D,)),
        wqkv=s * jax.random.normal(k[0], (D, 3, H, DH)),
        wo=s * jax.random.normal(k[1], (H, DH, D)),
        w1=s * jax.random.normal(k[2], (D, F)),
        w2=s * jax.random.normal(k[3], (F, D)),
    )


# data parallel over "dp" (batch), tensor + sequence parallel over "tp"
LAYER_SPECS = dict(ln1=P(), ln2=P(), wqkv=P(None, None, "tp", None),
                   wo=P("tp", None, None), w1=P(None, "tp"), w2=P("tp", None))
ACT_SPEC = P("dp", "tp", None)  # [batch, seq, d]: seq sharded between blocks


def _layernorm(x, g):
    mu = jnp.mean(x, -1, keepdims=True)
    var = jnp.mean((x - mu) ** 2, -1, keepdims=True)
    return (x - mu) * lax.rsqrt(var + 1e-5) * g


def _block(p, x):
    # attention: gather the sequence, heads are local, reduce-scatter back
    h = lax.all_gather(_layernorm(x, p["ln1"]), "tp", axis=1, tiled=True)
    qkv = jnp.einsum("bsd,dthe->tbhse", h, p["wqkv"])
    q, k, v = qkv[0], qkv[1], qkv[2]
    s = jnp.einsum("bhqe,bhke->bhqk", q, k) / np.sqrt(DH)
    n = s.shape[-1]
    mask = jnp.tril(jnp.ones((n, n), bool))
    a = jax.nn.softmax(jnp.where(mask, s, -1e9), -1)
    o = jnp.einsum("bhqk,bhke->bhqe", a, v)
    o = jnp.einsum("bhqe,hed->bqd", o, p["wo"])
    x = x + lax.psum_scatter(o, "tp", scatter_dimension=1, tiled=True)
    # MLP: same pattern
    h = lax.all_gather(_layernorm(x, p["ln2"]), "tp", axis=1, tiled=True)
    h = jax.nn.gelu(h @ p["w1"]) @ p["w2"]
    return x + lax.psum_scatter(h, "tp", scatter_dimension=1, tiled=True)


def _train_step(params, opt, x, y, step):
    """Inside shard_map: fwd+bwd, grad all-reduce, clip by global norm, Adam."""
    def loss_fn(params):
        h = x
        for p in params:
            h = _block(p, h)
        err = jnp.sum((h - y) ** 2)
        return lax.psum(err, ("dp", "tp")) / (B * S * D)

    loss, grads = jax.value_and_grad(loss_fn)(params)
    # grads of dp-replicated params are psum'ed over dp by the vma transpose;
    # the global norm needs the tp-sharded squares summed over tp.
    sq_sharded = sum(jnp.sum(g[k] ** 2) for g in grads for k in ("wqkv", "wo", "w1", "w2"))
    sq_repl = sum(jnp.sum(g[k] ** 2) for g in grads for k in ("ln1", "ln2"))
    gnorm = jnp.sqrt(lax.psum(sq_sharded, "tp") + sq_repl)
    scale = jnp.minimum(1.0, 1.0 / (gnorm + 1e-6))
    b1, b2, lr = 0.9, 0.999, 1e-3
    new_p, new_o = [], []
    for p, g, (m, v) in zip(params, grads, opt):
        np_, nm, nv = {}, {}, {}
        for k in p:
            gk = g[k] * scale
            nm[k] = b1 * m[k] + (1 - b1) * gk
            nv[k] = b2 * v[k] + (1 - b2) * gk * gk
            mh = nm[k] / (1 - b1 ** step)
            vh = nv[k] / (1 - b2 ** step)
            np_[k] = p[k] - lr * mh / (jnp.sqrt(vh) + 1e-8)
        new_p.append(np_)
        new_o.append((nm, nv))
    return new_p, new_o, loss


def build_transformer(layers: int, steps: int, shard_map, sds):
    mesh = Mesh(np.array(jax.devices()[:8]).reshape(2, 4), ("dp", "tp"))
    pspec = [LAYER_SPECS] * layers
    ospec = [(LAYER_SPECS, LAYER_SPECS)] * layers

    def many_steps(params, opt, x, y):
        losses = []
        for i in range(steps):  # unrolled on purpose (module size)
            params, opt, loss = _train_step(params, opt, x, y, float(i + 1))
            losses.append(loss)
        return params, opt, jnp.stack(losses)

    f = shard_map(many_steps, mesh, (pspec, ospec, ACT_SPEC, ACT_SPEC),
                  (pspec, ospec, P()))
    params = [jax.eval_shape(_layer_params, jax.random.key(i)) for i in range(layers)]
    opt = [(p, p) for p in params]
    return f, (params, opt, sds((B, S, D)), sds((B, S, D)))
