"""Contractions and linear algebra: dot_general / dot (einsum), convolution
(any dimension layout, padding, lhs/rhs dilation, window reversal, feature and
batch groups), fft, triangular_solve, cholesky. Narrow floats (f16, bf16, f8)
accumulate in f32, as XLA:CPU does."""
from __future__ import annotations

import itertools
import re

import numpy as np

from ..op_registry import impl, register
from ..values import ExecutionError, dtype_of, is_float
from .common import ComputeFunctions, enum, flag_attr, int_attr, ints, param_ints, struct
from .shape import pad_array

LETTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"


@register
class LinalgFunctions(ComputeFunctions):
    def _operands_for(self, op, *arrays):
        t = self.interp.result_type(op)
        dt = dtype_of(t.element)
        if is_float(dt) and dt.itemsize < 4:
            return [a.astype(np.float32) for a in arrays]
        if dt.kind in "fc":
            return [a.astype(dt) if a.dtype != dt else a for a in arrays]
        if dt.kind in "iu" and any(np.dtype(a.dtype).kind in "iu" for a in arrays):
            return [a.astype(dt) if a.dtype != dt else a for a in arrays]
        return list(arrays)

    @impl("stablehlo.dot_general")
    def dot_general(self, frame, op, args):
        a, b = args
        dn = struct(op, "dot_dimension_numbers")
        lb, rb = param_ints(dn, "lhs_batching_dimensions"), param_ints(dn, "rhs_batching_dimensions")
        lc, rc = param_ints(dn, "lhs_contracting_dimensions"), param_ints(dn, "rhs_contracting_dimensions")
        return [self._contract(op, a, b, lb, rb, lc, rc)]

    @impl("stablehlo.dot")
    def dot(self, frame, op, args):
        a, b = args
        return [self._contract(op, a, b, [], [], [a.ndim - 1], [0] if b.ndim else [])]

    def _contract(self, op, a, b, lb, rb, lc, rc):
        la = [""] * a.ndim
        lbs = [""] * b.ndim
        k = 0
        for i, j in zip(lb, rb):
            la[i] = lbs[j] = LETTERS[k]
            k += 1
        for i, j in zip(lc, rc):
            la[i] = lbs[j] = LETTERS[k]
            k += 1
        out = [la[i] for i in lb]
        for i in range(a.ndim):
            if not la[i]:
                la[i] = LETTERS[k]
                out.append(LETTERS[k])
                k += 1
        for j in range(b.ndim):
            if not lbs[j]:
                lbs[j] = LETTERS[k]
                out.append(LETTERS[k])
                k += 1
        a, b = self._operands_for(op, a, b)
        r = self.xp.einsum(f"{''.join(la)},{''.join(lbs)}->{''.join(out)}", a, b)
        return self.cast(op, r)

    # -- convolution ------------------------------------------------------------------
    @impl("stablehlo.convolution", "stablehlo.dynamic_conv")
    def convolution(self, frame, op, args):
        lhs, rhs = args[:2]
        xp = self.xp
        dims = conv_dimensions(op)
        nsp = len(dims["input_spatial_dimensions"])
        strides = ints(op, "window_strides", [1] * nsp)
        if len(args) > 2:  # dynamic_conv: the padding is an operand
            pads = [int(v) for v in self.host(args[2]).reshape(-1)]
        else:
            pads = ints(op, "padding", [0] * (2 * nsp))
        lhs_dil = ints(op, "lhs_dilation", [1] * nsp)
        rhs_dil = ints(op, "rhs_dilation", [1] * nsp)
        rev = _bools(op, "window_reversal", nsp)
        groups = int_attr(op, "feature_group_count", 1)
        bgroups = int_attr(op, "batch_group_count", 1)
        lhs, rhs = self._operands_for(op, lhs, rhs)
        x = xp.transpose(lhs, [dims["input_batch_dimension"], dims["input_feature_dimension"],
                               *dims["input_spatial_dimensions"]])
        w = xp.transpose(rhs, [dims["kernel_output_feature_dimension"], dims["kernel_input_feature_dimension"],
                               *dims["kernel_spatial_dimensions"]])
        flip = tuple(2 + i for i, r in enumerate(rev) if r)
        if flip:
            w = xp.flip(w, axis=flip)
        zero = xp.zeros((), x.dtype)
        x = pad_array(xp, self.backend, x, zero, [0, 0, *pads[0::2]], [0, 0, *pads[1::2]],
                      [0, 0, *(d - 1 for d in lhs_dil)])
        w = pad_array(xp, self.backend, w, xp.zeros((), w.dtype), [0] * (2 + nsp), [0] * (2 + nsp),
                      [0, 0, *(d - 1 for d in rhs_dil)])
        n, c = x.shape[:2]
        o, i = w.shape[:2]
        out_sp = [(x.shape[2 + d] - w.shape[2 + d]) // strides[d] + 1 for d in range(nsp)]
        if any(s <= 0 for s in out_sp):
            out = xp.zeros((n // bgroups, o, *(max(s, 0) for s in out_sp)), x.dtype)
        else:
            xg = xp.reshape(x, (bgroups, n // bgroups, groups, c // groups, *x.shape[2:]))
            wg = xp.reshape(w, (bgroups, groups, o // (bgroups * groups), i, *w.shape[2:]))
            acc = None
            for k in itertools.product(*(range(s) for s in w.shape[2:])):
                index = (slice(None),) * 4 + tuple(slice(kk, kk + (so - 1) * st + 1, st)
                                                    for kk, so, st in zip(k, out_sp, strides))
                patch = xg[index]
                kern = wg[(slice(None),) * 4 + k]
                term = xp.einsum("bngc...,bgoc->bngo...", patch, kern)
                acc = term if acc is None else acc + term
            # (bgroups, n/bgroups, groups, o/groups, spatial) → (n/bgroups, o, spatial)
            acc = xp.moveaxis(acc, 0, 1)
            out = xp.reshape(acc, (n // bgroups, o, *out_sp))
        target = [dims["output_batch_dimension"], dims["output_feature_dimension"], *dims["output_spatial_dimensions"]]
        return [self.cast(op, xp.moveaxis(out, list(range(out.ndim)), target))]

    # -- fft, solvers -----------------------------------------------------------------
    @impl("stablehlo.fft")
    def fft(self, frame, op, args):
        (a,) = args
        kind = enum(op, "fft_type")
        length = ints(op, "fft_length")
        axes = tuple(range(a.ndim - len(length), a.ndim))
        h = self.host(a)
        if kind == "FFT":
            r = np.fft.fftn(h, axes=axes)
        elif kind == "IFFT":
            r = np.fft.ifftn(h, axes=axes)
        elif kind == "RFFT":
            r = np.fft.rfftn(h, s=length, axes=axes)
        elif kind == "IRFFT":
            r = np.fft.irfftn(h, s=length, axes=axes)
        else:
            raise ExecutionError(f"cannot execute: fft of type {kind}", op)
        return [self.cast(op, self.backend.asarray(r))]

    @impl("stablehlo.triangular_solve")
    def triangular_solve(self, frame, op, args):
        a, b = (self.host(x) for x in args)
        lower = flag_attr(op, "lower")
        wide = np.complex128 if a.dtype.kind == "c" else np.float64
        m = np.tril(a) if lower else np.triu(a)
        m = m.astype(wide)
        if flag_attr(op, "unit_diagonal"):
            eye = np.eye(m.shape[-1], dtype=bool)
            m = np.where(eye, 1, m)
        t = enum(op, "transpose_a") or "NO_TRANSPOSE"
        if t == "TRANSPOSE":
            m = np.swapaxes(m, -1, -2)
        elif t == "ADJOINT":
            m = np.conj(np.swapaxes(m, -1, -2))
        bb = b.astype(wide)
        if flag_attr(op, "left_side"):
            x = np.linalg.solve(m, bb)
        else:
            x = np.swapaxes(np.linalg.solve(np.swapaxes(m, -1, -2), np.swapaxes(bb, -1, -2)), -1, -2)
        return [self.cast(op, self.backend.asarray(x))]

    @impl("stablehlo.cholesky")
    def cholesky(self, frame, op, args):
        a = self.host(args[0])
        wide = np.complex128 if a.dtype.kind == "c" else np.float64
        lower = flag_attr(op, "lower")
        if lower:
            low = np.tril(a).astype(wide)
            full = low + np.conj(np.swapaxes(np.tril(a, -1), -1, -2))
        else:
            up = np.triu(a).astype(wide)
            full = up + np.conj(np.swapaxes(np.triu(a, 1), -1, -2))
        try:
            l = np.linalg.cholesky(full)
        except np.linalg.LinAlgError:
            l = np.full(full.shape, np.nan, wide)
        r = l if lower else np.conj(np.swapaxes(l, -1, -2))
        return [self.cast(op, self.backend.asarray(r))]


def _bools(op, name: str, n: int) -> list[bool]:
    from .common import bools

    return bools(op, name, n)


_CONV_KEYS = ("input_batch_dimension", "input_feature_dimension", "input_spatial_dimensions",
              "kernel_input_feature_dimension", "kernel_output_feature_dimension", "kernel_spatial_dimensions",
              "output_batch_dimension", "output_feature_dimension", "output_spatial_dimensions")


def conv_dimensions(op) -> dict:
    """The dimension numbers of a convolution, from the compact form
    `[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]` or the `raw` form."""
    dn = struct(op, "dimension_numbers")
    text = dn.text or ""
    m = re.search(r"\[([^\]]*)\]\s*x\s*\[([^\]]*)\]\s*->\s*\[([^\]]*)\]", text)
    if m:
        lhs, rhs, out = ([t.strip() for t in g.split(",")] for g in m.groups())

        def layout(items, first, second):
            sp = {int(t): p for p, t in enumerate(items) if t.isdigit()}
            return items.index(first), items.index(second), [sp[k] for k in sorted(sp)]

        ib, if_, isp = layout(lhs, "b", "f")
        ki, ko, ksp = layout(rhs, "i", "o")
        ob, of, osp = layout(out, "b", "f")
        return dict(zip(_CONV_KEYS, (ib, if_, isp, ki, ko, ksp, ob, of, osp)))
    out = {}
    for key in _CONV_KEYS:
        vals = param_ints(dn, key)
        if not vals:
            mm = re.search(key + r"\s*=\s*(\[[^\]]*\]|\d+)", text)
            if mm is None:
                raise ExecutionError(f"cannot execute: convolution dimension numbers without {key}", op)
            vals = [int(v) for v in re.findall(r"\d+", mm.group(1))]
        out[key] = vals if key.endswith("dimensions") else vals[0]
    return out
