"""Random numbers: rng_bit_generator and rng.

The spec leaves rng_bit_generator's bits to the implementation; here they are
XLA's (read in XLA's prng library and its rng_bit_generator expansion, checked
bit for bit against XLA:CPU in tests), so `--engine both` agrees on programs
that use `jax.random` with the `rbg` implementations:

* state u64[2] = [key, counter]; the key's low and high 32 bits key the cipher.
* THREE_FRY (Threefry-2x32, 20 rounds): for 32-bit (and narrower) results the
  shape is split in halves along its first even dimension (else its largest,
  rounded up); the counters are key-independent linear indices over the half
  shape added to the counter word; the two output words fill the two halves,
  interleaved along the split dimension. For 64-bit results every element has
  its counter and is (word0 | word1 << 32). The counter advances by the number
  of counters used.
* PHILOX (Philox-4x32, 10 rounds; also DEFAULT on CPU): 128-bit counters
  (low 64 bits = counter word + i, high 64 bits = the key word), four output
  words per counter taken round-robin; 64-bit results pair consecutive words.
* Results narrower than 32 bits keep the low bits of each 32-bit word.

`stablehlo.rng` (deprecated) is deterministic here but not XLA's.
"""
from __future__ import annotations

import numpy as np

from ..op_registry import impl, register
from ..values import ExecutionError, dtype_of
from .common import ComputeFunctions, enum

_U32 = np.uint64(0xFFFFFFFF)


def _words(v: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    v = np.asarray(v, np.uint64)
    return (v & _U32).astype(np.uint32), (v >> np.uint64(32)).astype(np.uint32)


def _rotl(x: np.ndarray, r: int) -> np.ndarray:
    return ((x << np.uint32(r)) | (x >> np.uint32(32 - r))).astype(np.uint32)


def threefry2x32(k0: int, k1: int, x0: np.ndarray, x1: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    ks = [np.uint32(k0), np.uint32(k1), np.uint32(k0 ^ k1 ^ 0x1BD11BDA)]
    rotations = ((13, 15, 26, 6), (17, 29, 16, 24))
    with np.errstate(over="ignore"):
        x0 = (x0.astype(np.uint32) + ks[0]).astype(np.uint32)
        x1 = (x1.astype(np.uint32) + ks[1]).astype(np.uint32)
        for i in range(5):
            for r in rotations[i % 2]:
                x0 = (x0 + x1).astype(np.uint32)
                x1 = _rotl(x1, r) ^ x0
            x0 = (x0 + ks[(i + 1) % 3]).astype(np.uint32)
            x1 = (x1 + ks[(i + 2) % 3] + np.uint32(i + 1)).astype(np.uint32)
    return x0, x1


def philox4x32(k0: int, k1: int, c: list[np.ndarray]) -> list[np.ndarray]:
    key = [np.uint64(k0), np.uint64(k1)]
    x = [np.asarray(v, np.uint64) for v in c]
    for _ in range(10):
        p0 = np.uint64(0xD2511F53) * x[0]
        p1 = np.uint64(0xCD9E8D57) * x[2]
        x = [(p1 >> np.uint64(32)) ^ x[1] ^ key[0], p1 & _U32, (p0 >> np.uint64(32)) ^ x[3] ^ key[1], p0 & _U32]
        key = [(key[0] + np.uint64(0x9E3779B9)) & _U32, (key[1] + np.uint64(0xBB67AE85)) & _U32]
    return [v.astype(np.uint32) for v in x]


def _threefry(key: int, counter: int, shape: tuple[int, ...], wide: bool) -> tuple[np.ndarray, int]:
    k0, k1 = key & 0xFFFFFFFF, key >> 32
    if wide:
        n = int(np.prod(shape, dtype=np.int64))
        lo, hi = _words(np.uint64(counter) + np.arange(n, dtype=np.uint64))
        a, b = threefry2x32(k0, k1, lo, hi)
        return (a.astype(np.uint64) | (b.astype(np.uint64) << np.uint64(32))).reshape(shape), n
    if not shape:
        lo, hi = _words(np.array([counter], np.uint64))
        a, _b = threefry2x32(k0, k1, lo, hi)
        return a.reshape(()), 1
    even = [i for i, d in enumerate(shape) if d % 2 == 0]
    split = even[0] if even else max(range(len(shape)), key=lambda i: (shape[i], -i))
    half = list(shape)
    half[split] = (shape[split] + 1) // 2
    n = int(np.prod(half, dtype=np.int64))
    lo, hi = _words(np.uint64(counter) + np.arange(n, dtype=np.uint64))
    a, b = threefry2x32(k0, k1, lo, hi)
    both = np.stack([a.reshape(half), b.reshape(half)], axis=split + 1)
    full = list(shape)
    full[split] = 2 * half[split]
    out = both.reshape(full)
    return out[tuple(slice(0, d) for d in shape)], n


def _philox(key: int, counter: int, shape: tuple[int, ...], wide: bool) -> tuple[np.ndarray, int]:
    k0, k1 = key & 0xFFFFFFFF, key >> 32
    n = int(np.prod(shape, dtype=np.int64))
    words = 2 * n if wide else n
    m = (words + 3) // 4
    lo, hi = _words(np.uint64(counter) + np.arange(m, dtype=np.uint64))
    out = philox4x32(k0, k1, [lo, hi, np.full(m, k0, np.uint32), np.full(m, k1, np.uint32)])
    stream = np.stack(out, 1).reshape(-1)[:words]
    if wide:
        stream = stream[0::2].astype(np.uint64) | (stream[1::2].astype(np.uint64) << np.uint64(32))
    return stream.reshape(shape), m


@register
class RandomFunctions(ComputeFunctions):
    @impl("stablehlo.rng_bit_generator")
    def rng_bit_generator(self, frame, op, args):
        (state,) = args
        s = np.asarray(self.host(state))
        words = s.astype(np.uint64).reshape(-1)
        if words.size != 2:
            raise ExecutionError(f"cannot execute: rng_bit_generator with a state of {words.size} words "
                                 "(XLA's generators take u64[2])", op)
        alg = enum(op, "rng_algorithm") or "DEFAULT"
        t = self.interp.result_type(op, 1)
        dt = dtype_of(t.element)
        if dt.kind not in "iu" and not dt.kind == "f":
            raise ExecutionError(f"cannot execute: rng_bit_generator producing {t}", op)
        wide = dt.itemsize == 8
        gen = _threefry if alg == "THREE_FRY" else _philox
        bits, used = gen(int(words[0]), int(words[1]), tuple(t.shape), wide)
        new_state = words.copy()
        new_state[1] = new_state[1] + np.uint64(used)
        out = bits if wide else bits.astype(np.uint32)
        if dt.itemsize < 4:  # narrower results keep the low bits of each word
            out = (out & np.uint32((1 << (8 * dt.itemsize)) - 1)).astype(np.dtype(f"u{dt.itemsize}"))
        out = np.ascontiguousarray(out).view(dt) if out.dtype.itemsize == dt.itemsize else out.astype(dt)
        return [self.cast(op, new_state.view(s.dtype).reshape(s.shape), 0), self.cast(op, out, 1)]

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
