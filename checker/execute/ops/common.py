"""Helpers every op family uses: reading attributes, casting results to their
declared types (narrow integers wrapped), and the base class that carries them."""
from __future__ import annotations

import numpy as np

from ...ir.attributes import (ArrayAttr, BoolAttr, DenseArrayAttr, DialectAttr, EnumAttr, FloatAttr, IntegerAttr,
                              StringAttr)
from ...ir.core import Operation
from ...analysis.semantics import int_list
from ..op_registry import OpFunctions
from ..values import ExecutionError, dtype_of

# Integer types narrower than their numpy container: results wrap to their width.
_NARROW = {"i2": (2, True), "si2": (2, True), "i4": (4, True), "si4": (4, True), "ui2": (2, False),
           "ui4": (4, False)}


def ints(op: Operation, name: str, default=None) -> list[int]:
    a = op.attr(name)
    if a is None:
        if default is not None:
            return list(default)
        raise ExecutionError(f"cannot execute: op {op.name} has no `{name}` attribute", op)
    vals = int_list(a)
    if vals is None:
        raise ExecutionError(f"cannot execute: op {op.name}: cannot read `{name}`", op)
    return vals


def bools(op: Operation, name: str, n: int) -> list[bool]:
    a = op.attr(name)
    if a is None:
        return [False] * n
    if isinstance(a, DenseArrayAttr):
        return [bool(v) for v in a.values]
    vals = int_list(a)
    if vals is None:
        raise ExecutionError(f"cannot execute: op {op.name}: cannot read `{name}`", op)
    return [bool(v) for v in vals]


def int_attr(op: Operation, name: str, default: int | None = None) -> int:
    a = op.attr(name)
    if isinstance(a, IntegerAttr):
        return a.value
    if default is not None:
        return default
    raise ExecutionError(f"cannot execute: op {op.name} has no integer `{name}`", op)


def float_attr(op: Operation, name: str, default: float) -> float:
    a = op.attr(name)
    if isinstance(a, FloatAttr):
        return float(a.value)
    if isinstance(a, IntegerAttr):
        return float(a.value)
    return default


def flag_attr(op: Operation, name: str, default: bool = False) -> bool:
    a = op.attr(name)
    if isinstance(a, BoolAttr):
        return a.value
    if isinstance(a, IntegerAttr):
        return bool(a.value)
    return default


def enum(op: Operation, name: str) -> str | None:
    a = op.attr(name)
    if isinstance(a, EnumAttr):
        return a.value
    if isinstance(a, DialectAttr):  # `#stablehlo<comparison_direction LT>` read as a dialect attr
        return a.text.rsplit(" ", 1)[-1].rstrip(">") if a.text else None
    if isinstance(a, StringAttr):
        return a.value
    return None


def param_ints(attr, name: str) -> list[int]:
    """An integer-list parameter of a struct attribute (`#stablehlo.gather<offset_dims = [1], ...>`)."""
    v = attr.get(name) if attr is not None else None
    if v is None:
        return []
    if isinstance(v, IntegerAttr):
        return [v.value]
    out = int_list(v)
    return out or []


def struct(op: Operation, name: str) -> DialectAttr:
    a = op.attr(name)
    if not isinstance(a, DialectAttr):
        raise ExecutionError(f"cannot execute: {op.name} without readable `{name}`", op)
    return a


def wrap_narrow(arr, element, xp=np):
    """Wrap values of an i2/i4/ui2/ui4 result to their width (numpy holds them in 8 bits)."""
    spec = _NARROW.get(getattr(element, "name", ""))
    if spec is None:
        return arr
    bits, signed = spec
    m = 1 << bits
    a = xp.asarray(arr).astype(np.int64) % m
    if signed:
        a = xp.where(a >= m // 2, a - m, a)
    return a


def symbol_list(a) -> list[str]:
    out = []
    if isinstance(a, ArrayAttr):
        for e in a.elements:
            root = getattr(e, "root", None)
            if root is not None:
                out.append(root)
    return out


class ComputeFunctions(OpFunctions):
    """Base of the local (non-communicating) op families."""

    def cast(self, op: Operation, value, i: int = 0):
        t = self.interp.result_type(op, i)
        dt = dtype_of(t.element)
        if t.element is not None and getattr(t.element, "name", "") in _NARROW:
            value = wrap_narrow(value, t.element, self.xp)
        if self.interp.vectorized:  # a region body applied to whole arrays at once
            return self.xp.asarray(value, dtype=dt)
        return self.xp.asarray(value, dtype=dt).reshape(tuple(t.shape))

    def host(self, a) -> np.ndarray:
        return np.asarray(self.backend.to_numpy(a))

    def scalar(self, v) -> int:
        return int(self.host(v).reshape(()))
