"""CHLO ops that JAX leaves in lowered programs (`jax.jit(f).lower(...)` keeps
them; XLA expands them when it compiles): element-wise special functions
(erf, erf_inv, lgamma, digamma, the inverse and hyperbolic trig functions, ...),
the implicitly broadcasting binary ops, and top_k. Special functions come from
scipy (installed with jax); without it they stop the run with a clear reason."""
from __future__ import annotations

import numpy as np

from ..op_registry import impl, register
from ..values import ExecutionError
from .common import ComputeFunctions, int_attr, ints


def _special():
    try:
        import scipy.special as sp
    except ImportError:  # pragma: no cover - scipy comes with jax
        raise ExecutionError("cannot execute: CHLO special functions need scipy (pip install scipy)") from None
    return sp


_UNARY = {
    "square": lambda xp, a: a * a, "conj": lambda xp, a: xp.conj(a), "tan": lambda xp, a: xp.tan(a),
    "acos": lambda xp, a: xp.arccos(a), "acosh": lambda xp, a: xp.arccosh(a), "asin": lambda xp, a: xp.arcsin(a),
    "asinh": lambda xp, a: xp.arcsinh(a), "atan": lambda xp, a: xp.arctan(a), "atanh": lambda xp, a: xp.arctanh(a),
    "cosh": lambda xp, a: xp.cosh(a), "sinh": lambda xp, a: xp.sinh(a),
    "is_inf": lambda xp, a: xp.isinf(a), "is_neg_inf": lambda xp, a: xp.isneginf(a),
    "is_pos_inf": lambda xp, a: xp.isposinf(a),
    "erf": lambda xp, a: _special().erf(a), "erfc": lambda xp, a: _special().erfc(a),
    "erf_inv": lambda xp, a: _special().erfinv(a), "lgamma": lambda xp, a: _special().gammaln(a),
    "digamma": lambda xp, a: _special().digamma(a), "bessel_i1e": lambda xp, a: _special().i1e(a),
}

_BINARY = {
    "add": np.add, "subtract": np.subtract, "multiply": np.multiply, "divide": None, "maximum": np.maximum,
    "minimum": np.minimum, "power": np.power, "atan2": np.arctan2, "and": None, "or": None, "xor": None,
    "remainder": None, "shift_left": None, "shift_right_arithmetic": None, "shift_right_logical": None,
    "compare": None, "complex": None, "next_after": np.nextafter, "polygamma": None, "zeta": None,
}


@register
class ChloFunctions(ComputeFunctions):
    @impl(*(f"chlo.{k}" for k in _UNARY))
    def unary(self, frame, op, args):
        (a,) = args
        kind = op.name.split(".", 1)[1]
        host = self.host(a)
        wide = host.astype(np.float64) if host.dtype.kind == "f" or host.dtype.name == "bfloat16" else host
        with np.errstate(all="ignore"):
            return [self.cast(op, self.backend.asarray(np.asarray(_UNARY[kind](np, wide))))]

    @impl("chlo.next_after", "chlo.polygamma", "chlo.zeta")
    def special_binary(self, frame, op, args):
        a, b = (self.host(x) for x in args)
        kind = op.name.split(".", 1)[1]
        if kind == "next_after":
            r = np.nextafter(a, b.astype(a.dtype))
        elif kind == "polygamma":
            r = _special().polygamma(a.astype(np.float64), b.astype(np.float64))
        else:
            r = _special().zeta(a.astype(np.float64), b.astype(np.float64))
        return [self.cast(op, self.backend.asarray(r))]

    @impl(*(f"chlo.broadcast_{k}" for k in ("add", "subtract", "multiply", "divide", "maximum", "minimum", "power",
                                            "atan2", "and", "or", "xor", "remainder", "shift_left",
                                            "shift_right_arithmetic", "shift_right_logical", "compare",
                                            "complex", "next_after", "polygamma", "zeta")))
    def broadcast_binary(self, frame, op, args):
        """Implicit broadcasting (numpy's rules, or `broadcast_dimensions`) then the
        stablehlo op of the same name."""
        a, b = args
        t = self.interp.result_type(op)
        dims = op.attr("broadcast_dimensions")
        if dims is not None and a.ndim != b.ndim:
            small, big = (a, b) if a.ndim < b.ndim else (b, a)
            d = ints(op, "broadcast_dimensions")
            shape = [1] * big.ndim
            for i, k in enumerate(d):
                shape[k] = small.shape[i]
            small = self.xp.reshape(small, shape)
            a, b = (small, big) if a.ndim < b.ndim else (big, small)
        kind = op.name.split(".", 1)[1][len("broadcast_"):]
        target = "chlo." + kind if kind in ("next_after", "polygamma", "zeta") else "stablehlo." + kind
        fn, _blocking = self.interp.impls[target]
        a, b = self.xp.broadcast_arrays(a, b)
        out = fn(frame, _Retyped(op, target), [a, b])
        return [self.cast(op, out[0])] if tuple(t.shape) else out

    @impl("chlo.top_k")
    def top_k(self, frame, op, args):
        (a,) = args
        k = int_attr(op, "k")
        host = self.host(a)
        order = np.argsort(-_sort_key(host), axis=-1, kind="stable")[..., :k]
        values = np.take_along_axis(host, order, axis=-1)
        return [self.cast(op, self.backend.asarray(values), 0), self.cast(op, self.backend.asarray(order), 1)]

    @impl("chlo.constant_like")
    def constant_like(self, frame, op, args):
        from ...ir.attributes import DenseElementsAttr, FloatAttr, IntegerAttr

        v = op.attr("value")
        if isinstance(v, (FloatAttr, IntegerAttr)):
            val = v.value
        elif isinstance(v, DenseElementsAttr):
            val = np.asarray(v.array).reshape(-1)[0]
        else:
            raise ExecutionError("cannot execute: chlo.constant_like without a value", op)
        return [self.cast(op, self.xp.full(args[0].shape, val))]

    @impl("chlo.constant")
    def constant(self, frame, op, args):
        return self.interp.impls["stablehlo.constant"][0](frame, op, args)


def _sort_key(a: np.ndarray) -> np.ndarray:
    """Descending order of top_k: NaN first (largest), as XLA's comparator does."""
    if a.dtype.kind == "f" or a.dtype.name == "bfloat16":
        f = a.astype(np.float64)
        return np.where(np.isnan(f), np.inf, f) + 0.0
    return a.astype(np.float64)


class _Retyped:
    """An op seen as another op of the same operands and results (chlo.broadcast_add
    run as stablehlo.add)."""

    def __init__(self, op, name: str):
        self._op = op
        self.name = name

    def __getattr__(self, item):
        return getattr(self._op, item)
