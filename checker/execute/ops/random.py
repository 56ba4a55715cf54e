"""Random numbers: rng_bit_generator and rng. The spec leaves their values to
the implementation; here they are deterministic functions of the state / seed
(numpy's Philox), so a run is reproducible, but the bits differ from XLA's (a
cross-check against XLA reports that output as differing). JAX's default PRNG
(threefry written out in StableHLO ops) does not use them and matches exactly."""
from __future__ import annotations

import numpy as np

from ..registry import impl, register
from ..values import ExecutionError, dtype_of
from .common import ComputeFunctions, enum


@register
class RandomFunctions(ComputeFunctions):
    @impl("stablehlo.rng_bit_generator")
    def rng_bit_generator(self, frame, op, args):
        (state,) = args
        s = self.host(state)
        words = [int(w) & 0xFFFFFFFFFFFFFFFF for w in s.reshape(-1).astype(np.uint64)]
        key = [words[0] if words else 0, words[-1] if len(words) > 1 else 0]
        gen = np.random.Generator(np.random.Philox(key=key))
        t = self.interp.result_type(op, 1)
        dt = dtype_of(t.element)
        shape = tuple(t.shape)
        if dt.kind not in "iuf":
            raise ExecutionError(f"cannot execute: rng_bit_generator producing {t}", op)
        nbytes = int(np.prod(shape, dtype=np.int64)) * dt.itemsize
        raw = gen.bytes(nbytes)
        out = np.frombuffer(raw, dtype=np.dtype(f"u{dt.itemsize}")).view(dt).reshape(shape)
        new_state = s.copy()
        flat = new_state.reshape(-1)
        if flat.size:
            flat[-1] = flat[-1] + np.array(1, flat.dtype)  # advance the counter word
        return [self.cast(op, new_state, 0), self.cast(op, out, 1)]

    @impl("stablehlo.rng")
    def rng(self, frame, op, args):
        a, b, shape = args
        t = self.interp.result_type(op)
        dist = enum(op, "rng_distribution") or "UNIFORM"
        gen = np.random.default_rng(0)
        lo, hi = self.host(a), self.host(b)
        size = tuple(t.shape)
        if dist == "NORMAL":
            out = gen.normal(lo, hi, size)
        elif dtype_of(t.element).kind in "iu":
            out = gen.integers(lo, hi, size) if hi > lo else np.broadcast_to(lo, size)
        else:
            out = gen.uniform(lo, hi, size)
        return [self.cast(op, out)]
