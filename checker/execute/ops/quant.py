"""Uniform quantization (`!quant.uniform<storage:expressed[:axis], scale:zero_point>`,
per tensor or per axis `{s0:z0, s1:z1, ...}`). A quantized tensor holds its
storage integers; `uniform_quantize` rounds x / scale + zero_point half to even
and clamps to the storage range (`i8<-127:127>` narrows it), `uniform_dequantize`
gives (q - zero_point) * scale, and every other op on quantized values runs as
the spec's reading: dequantize the operands, compute in the expressed type,
quantize the results (`quantized_call`, which the interpreter routes such ops
through)."""
from __future__ import annotations

import re
from dataclasses import dataclass, replace

import numpy as np

from ...ir.types import QuantizedType, ScalarType, TensorType
from ..op_registry import impl, register
from ..values import ExecutionError, dtype_of
from .common import ComputeFunctions

_PARAMS = re.compile(r"^\s*([su]?i\d+)(?:<\s*(-?\d+)\s*:\s*(-?\d+)\s*>)?\s*:\s*([A-Za-z0-9_]+)(?:\s*:\s*(\d+))?\s*,\s*(.*)>\s*$")
_PAIR = re.compile(r"([-+0-9.eE]+)(?:\s*:\s*(-?\d+))?")

NATIVE = frozenset({"stablehlo.uniform_quantize", "stablehlo.uniform_dequantize", "stablehlo.bitcast_convert"})


@dataclass(frozen=True)
class Quant:
    storage: np.dtype
    qmin: int
    qmax: int
    expressed: str
    axis: int | None
    scales: tuple[float, ...]
    zero_points: tuple[int, ...]


def quant_of(t: QuantizedType) -> Quant:
    body = t.text.split("<", 1)[1] if "<" in t.text else t.text
    m = _PARAMS.match(body)
    if m is None:
        raise ExecutionError(f"cannot read the quantized type {t.text}")
    storage, lo, hi, expressed, axis, rest = m.groups()
    dt = dtype_of(ScalarType(storage))
    info = np.iinfo(dt) if dt.kind in "iu" else None
    pairs = _PAIR.findall(rest.strip("{} "))
    if info is None or not pairs:
        raise ExecutionError(f"cannot read the quantized type {t.text}")
    return Quant(dt, int(lo) if lo else int(info.min), int(hi) if hi else int(info.max), expressed,
                 int(axis) if axis is not None else None, tuple(float(s) for s, _ in pairs),
                 tuple(int(z) if z else 0 for _, z in pairs))


def _broadcast(q: Quant, values, shape):
    if q.axis is None:
        return np.float64(values[0])
    v = np.asarray(values, np.float64)
    return v.reshape([-1 if i == q.axis else 1 for i in range(len(shape))])


def quantize(x: np.ndarray, q: Quant) -> np.ndarray:
    scale, zp = _broadcast(q, q.scales, x.shape), _broadcast(q, q.zero_points, x.shape)
    r = np.rint(np.asarray(x, np.float64) / scale + zp)
    return np.clip(r, q.qmin, q.qmax).astype(q.storage)


def dequantize(v: np.ndarray, q: Quant) -> np.ndarray:
    scale, zp = _broadcast(q, q.scales, v.shape), _broadcast(q, q.zero_points, v.shape)
    return ((np.asarray(v, np.float64) - zp) * scale).astype(dtype_of(ScalarType(q.expressed)))


def element(t):
    return t.element if isinstance(t, TensorType) else None


def is_quantized_op(op) -> bool:
    if op.name in NATIVE:
        return False
    return any(isinstance(element(t), QuantizedType) for t in (*op.result_types, *op.operand_types))


class _Expressed:
    """The op seen with its quantized result types replaced by their expressed types."""

    def __init__(self, op):
        self._op = op
        self.result_types = [replace(t, element=ScalarType(quant_of(t.element).expressed))
                             if isinstance(element(t), QuantizedType) else t for t in op.result_types]

    def __getattr__(self, item):
        return getattr(self._op, item)


def quantized_call(interp, fn, frame, op, args) -> list:
    """Dequantize the quantized operands, run the op in the expressed type, quantize
    the results to their declared types."""
    types = op.operand_types
    plain = []
    for a, t in zip(args, types):
        el = element(t)
        plain.append(interp.backend.asarray(dequantize(interp.backend.to_numpy(a), quant_of(el)))
                     if isinstance(el, QuantizedType) else a)
    results = fn(frame, _Expressed(op), plain)
    out = []
    for r, t in zip(results, op.result_types):
        el = element(t)
        out.append(interp.backend.asarray(quantize(interp.backend.to_numpy(r), quant_of(el)))
                   if isinstance(el, QuantizedType) else r)
    return out


@register
class QuantFunctions(ComputeFunctions):
    @impl("stablehlo.uniform_quantize")
    def uniform_quantize(self, frame, op, args):
        (a,) = args
        target = element(self.interp.result_type(op))
        if not isinstance(target, QuantizedType):
            raise ExecutionError(f"cannot execute: uniform_quantize to {target}", op)
        src = element((op.operand_types or [None])[0])
        x = self.host(a)
        if isinstance(src, QuantizedType):  # requantize
            x = dequantize(x, quant_of(src))
        return [self.backend.asarray(quantize(x, quant_of(target)))]

    @impl("stablehlo.uniform_dequantize")
    def uniform_dequantize(self, frame, op, args):
        (a,) = args
        src = element((op.operand_types or [None])[0])
        if not isinstance(src, QuantizedType):
            raise ExecutionError(f"cannot execute: uniform_dequantize of {src}", op)
        return [self.backend.asarray(dequantize(self.host(a), quant_of(src)))]
