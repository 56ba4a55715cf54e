"""The LAPACK custom_calls JAX emits for linear algebra on CPU
(`lapack_{s,d,c,z}<routine>_ffi`): potrf (cholesky), getrf (LU), trsm
(triangular solve), geqrf + orgqr/ungqr (QR), syevd/heevd (eigh), gesdd (SVD).
They run through scipy's LAPACK/BLAS wrappers — the same routines jaxlib's CPU
kernels call — matrix by matrix over the leading `num_batch_dims`, with the
outputs laid out as the kernels return them (getrf's pivots 1-based, `info`
per matrix; potrf leaves the other triangle as it was). The single-character
options come in `mhlo.backend_config` as ASCII codes (uplo = 76 is 'L')."""
from __future__ import annotations

import re

import numpy as np

from ...ir.attributes import DictAttr, IntegerAttr, StringAttr
from ..op_registry import impl, register
from ..runtime import custom_call_target
from ..values import ExecutionError
from .common import ComputeFunctions

_TARGET = re.compile(r"lapack_([sdcz])(\w+?)_ffi$")
ROUTINES = ("potrf", "getrf", "trsm", "geqrf", "orgqr", "ungqr", "syevd", "heevd", "gesdd")


def _scipy():
    try:
        from scipy.linalg import blas, lapack
    except ImportError:  # pragma: no cover - scipy comes with jax
        raise ExecutionError("cannot execute: LAPACK custom_calls need scipy (pip install scipy)") from None
    return lapack, blas


def _config(op) -> dict:
    a = op.attr("mhlo.backend_config")
    out = {}
    if isinstance(a, DictAttr):
        for k in ("uplo", "side", "trans_x", "diag", "mode"):
            v = a.get(k)
            if isinstance(v, IntegerAttr):
                out[k] = chr(v.value)
    return out


def _batch_dims(op) -> int:
    fa = op.attr("mhlo.frontend_attributes")
    v = fa.get("num_batch_dims") if isinstance(fa, DictAttr) else None
    return int(v.value) if isinstance(v, StringAttr) else 0


def _targets():
    return [f"custom_call@lapack_{p}{r}_ffi" for p in "sdcz" for r in ROUTINES]


@register
class LapackFunctions(ComputeFunctions):
    @impl(*_targets())
    def lapack(self, frame, op, args):
        m = _TARGET.match(custom_call_target(op) or "")
        prefix, routine = m.group(1), m.group(2)
        lapack, blas = _scipy()
        cfg = _config(op)
        arrays = [self.host(a) for a in args]
        nb = _batch_dims(op)
        batch = arrays[0].shape[:nb]
        outs: list[list] = []
        for idx in np.ndindex(*batch):
            mats = [a[idx] for a in arrays]
            outs.append(self._one(op, prefix, routine, cfg, mats, lapack, blas))
        results = []
        for k in range(len(op.result_types)):
            stacked = np.stack([o[k] for o in outs]) if outs else np.zeros(0)
            t = self.interp.result_type(op, k)
            results.append(self.cast(op, self.backend.asarray(stacked.reshape(tuple(t.shape))), k))
        return results

    def _one(self, op, p, routine, cfg, mats, lapack, blas) -> list:
        lower = cfg.get("uplo", "L") == "L"
        if routine == "potrf":
            (a,) = mats
            c, info = getattr(lapack, p + "potrf")(a, lower=lower, clean=0)
            return [c, np.int32(info)]
        if routine == "getrf":
            (a,) = mats
            lu, piv, info = getattr(lapack, p + "getrf")(a)
            return [lu, (piv + 1).astype(np.int32), np.int32(info)]
        if routine == "trsm":
            a, b = mats
            side = cfg.get("side", "L")
            trans = {"N": 0, "T": 1, "C": 2}[cfg.get("trans_x", "N")]
            x = getattr(blas, p + "trsm")(1.0, a, b, side=int(side == "R"), lower=int(lower), trans_a=trans,
                                          diag=int(cfg.get("diag", "N") == "U"))
            return [x]
        if routine == "geqrf":
            (a,) = mats
            qr, tau, _work, _info = getattr(lapack, p + "geqrf")(a)
            return [qr, tau]
        if routine in ("orgqr", "ungqr"):
            a, tau = mats
            q, _work, _info = getattr(lapack, p + routine)(a, tau)
            return [q]
        if routine in ("syevd", "heevd"):
            (a,) = mats
            vectors = cfg.get("mode", "V") == "V"
            w, v, info = getattr(lapack, p + routine)(a, compute_v=int(vectors), lower=int(lower))
            return [v if vectors else a, w, np.int32(info)]
        if routine == "gesdd":
            (a,) = mats
            mode = cfg.get("mode", "A")
            u, s, vt, info = getattr(lapack, p + "gesdd")(a, compute_uv=int(mode != "N"),
                                                          full_matrices=int(mode == "A"))
            t_u, t_vt = self.interp.result_type(op, 2), self.interp.result_type(op, 3)
            u = u if mode != "N" else np.zeros(tuple(t_u.shape[-2:]), a.dtype)
            vt = vt if mode != "N" else np.zeros(tuple(t_vt.shape[-2:]), a.dtype)
            return [a, s, u, vt, np.int32(info)]
        raise ExecutionError(f"cannot execute: custom_call @lapack_{p}{routine}_ffi", op)  # pragma: no cover
