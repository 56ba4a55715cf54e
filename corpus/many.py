#!/usr/bin/env python
"""Hundreds of distinct JAX exports, for measuring a directory run (`-j`):
every program of corpus/generate.py and corpus/patterns.py lowered again at
other sizes and element types, with both partitioners. Written to corpus/many/
(ignored by git; regenerate at will).

    python corpus/many.py [--out corpus/many] [--limit 720]

A directory of copies of the same files (bench/parallel.py's fallback) makes a
one-process run look better than it is: its cross-file header cache hits on
every copy after the first, while each worker process warms its own. Distinct
programs, as a model zoo or a CI job over many exports has, do not.

Each variant scales the first dimension of every argument by 1-4 (it stays a
multiple of the mesh) and turns float arguments into bf16 or f16; a variant
JAX refuses (a program that reshapes to a fixed size) is skipped, and so is
one whose text repeats another's. Deterministic: two runs write the same files.
"""
from __future__ import annotations

import argparse
import hashlib
import sys
from pathlib import Path

import generate as G  # beside this script; sets XLA_FLAGS (8 CPU devices) before importing JAX

jax, jnp = G.jax, G.jnp

SCALES = (1, 2, 3, 4)
DTYPES = ("float32", "bfloat16", "float16")


def variant_args(args, scale: int, dtype: str):
    out = []
    for a in args:
        shape = tuple(a.shape)
        if shape:
            shape = (shape[0] * scale,) + shape[1:]
        dt = jnp.dtype(dtype) if jnp.issubdtype(a.dtype, jnp.floating) else a.dtype
        out.append(jax.ShapeDtypeStruct(shape, dt))
    return tuple(out)


def generate_many(out: Path, limit: int) -> int:
    out.mkdir(parents=True, exist_ok=True)
    seen: set[str] = set()
    n = 0
    for mode in ("shardy", "gspmd"):
        G.set_partitioner(mode)
        for name, builder, opt in G.PROGRAMS:
            if opt.get("probe") or opt.get("bug") or opt.get("many") is False:
                continue  # only programs that lint clean: the bench measures a clean CI run
            for scale in SCALES:
                for dtype in DTYPES:
                    if n >= limit:
                        G.set_partitioner("shardy")
                        return n
                    try:
                        fn, args = builder()
                        text = G.render(fn, variant_args(args, scale, dtype), opt.get("platforms"),
                                        None if mode == "shardy" else "gspmd")
                    except Exception:  # noqa: BLE001 - JAX refuses this size or type: not a program
                        continue
                    digest = hashlib.sha256(text.encode()).hexdigest()
                    if digest in seen:
                        continue
                    seen.add(digest)
                    tag = "" if mode == "shardy" else ".gspmd"
                    G.write(out / f"{name}.x{scale}.{dtype}{tag}.mlir", text)
                    n += 1
    G.set_partitioner("shardy")
    return n


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=str(G.HERE / "many"))
    ap.add_argument("--limit", type=int, default=720, help="at most this many files")
    a = ap.parse_args(argv)
    n = generate_many(Path(a.out), a.limit)
    print(f"{n} distinct exports written to {a.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
