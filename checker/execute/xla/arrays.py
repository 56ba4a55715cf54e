"""Arrays between the XLA engines and their worker processes, as .npz files.

np.savez keeps numpy's own dtypes only: a bfloat16 or float8 array (ml_dtypes,
what jax uses) is written as raw void (`|V2`) and comes back as something jax
refuses ("Dtype |V2 is not a valid JAX array type", measured on a bf16
all_reduce). So such arrays travel as their bits (an unsigned integer view of
the same width) with their dtype names in an entry of their own, and are viewed
back on loading: exact, both ways.
"""
from __future__ import annotations

import json

import numpy as np

_DTYPES = "__dtypes__"


def save_arrays(path: str, arrays: dict) -> None:
    stored, names = {}, {}
    for key, a in arrays.items():
        a = np.asarray(a)
        if a.dtype.kind == "V":  # an ml_dtypes type: numpy knows its width, not its meaning
            names[key] = a.dtype.name
            a = a.view(np.dtype(f"u{a.dtype.itemsize}"))
        stored[key] = a
    if names:
        stored[_DTYPES] = np.array(json.dumps(names))
    np.savez(path, **stored)


def load_arrays(path: str) -> dict:
    with np.load(path, allow_pickle=False) as data:
        out = {k: np.array(data[k]) for k in data.files if k != _DTYPES}
        names = json.loads(str(data[_DTYPES])) if _DTYPES in data.files else {}
    if names:
        import ml_dtypes  # ships with jax, which made these arrays

        for key, name in names.items():
            out[key] = out[key].view(np.dtype(getattr(ml_dtypes, name)))
    return out
