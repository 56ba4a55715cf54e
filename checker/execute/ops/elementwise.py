"""Element-wise ops: constants and ids, arithmetic and logic (integer division
truncates, division by zero gives -1 / all ones as XLA does), shifts, math
functions, compare (TOTALORDER included), select, clamp, convert,
bitcast_convert, count_leading_zeros, reduce_precision."""
from __future__ import annotations

import numpy as np

from ...ir.attributes import DenseElementsAttr
from ...ir.core import Operation
from ..op_registry import impl, register
from ..runtime import Frame
from ..values import TOKEN, ExecutionError, constant_array, dtype_of, is_float
from .common import ComputeFunctions, enum, int_attr


@register
class ElementwiseFunctions(ComputeFunctions):
    """Element-wise arithmetic and logic, constants, conversions."""

    # -- constants and ids ------------------------------------------------------
    @impl("stablehlo.constant")
    def constant(self, frame: Frame, op: Operation, args):
        attr = op.attr("value")
        if not isinstance(attr, DenseElementsAttr):
            raise ExecutionError(f"cannot execute: constant with a {type(attr).__name__} value", op)
        t = self.interp.result_type(op)
        return [self.backend.asarray(constant_array(attr, t))]

    @impl("stablehlo.partition_id")
    def partition_id(self, frame, op, args):
        return [self.cast(op, frame.proc.pid[1])]

    @impl("stablehlo.replica_id")
    def replica_id(self, frame, op, args):
        return [self.cast(op, frame.proc.pid[0])]

    @impl("stablehlo.create_token", "stablehlo.after_all")
    def token(self, frame, op, args):
        return [TOKEN]

    @impl("stablehlo.optimization_barrier")
    def barrier(self, frame, op, args):
        return list(args)

    # -- element-wise -------------------------------------------------------------
    @impl("stablehlo.add", "stablehlo.subtract", "stablehlo.multiply", "stablehlo.maximum", "stablehlo.minimum",
          "stablehlo.power", "stablehlo.atan2", "stablehlo.and", "stablehlo.or", "stablehlo.xor")
    def binary(self, frame, op, args):
        xp = self.xp
        a, b = args
        kind = op.name.rsplit(".", 1)[1]
        if kind in ("and", "or", "xor"):
            f = {"and": xp.logical_and, "or": xp.logical_or, "xor": xp.logical_xor} if a.dtype == bool else \
                {"and": xp.bitwise_and, "or": xp.bitwise_or, "xor": xp.bitwise_xor}
            return [self.cast(op, f[kind](a, b))]
        if kind == "power" and a.dtype.kind in "iu":
            neg = b < 0
            safe = xp.where(neg, 0, b)
            r = xp.power(a, safe)
            # x^-n for integers: 1 for |x| == 1 (sign by parity), else 0
            r = xp.where(neg, xp.where(a == 1, 1, xp.where(a == -1, xp.where(b % 2 == 0, 1, -1), 0)), r)
            return [self.cast(op, r)]
        f = {"add": xp.add, "subtract": xp.subtract, "multiply": xp.multiply, "maximum": xp.maximum,
             "minimum": xp.minimum, "power": xp.power, "atan2": _atan2(xp)}[kind]
        return [self.cast(op, f(a, b))]

    @impl("stablehlo.divide")
    def divide(self, frame, op, args):
        xp = self.xp
        a, b = args
        if a.dtype.kind in "iu":
            zero = b == 0
            safe = xp.where(zero, 1, b)
            q = a // safe
            if a.dtype.kind == "i":  # truncate toward zero, as C and XLA do
                q = xp.where(((a % safe) != 0) & ((a < 0) != (safe < 0)), q + 1, q)
            q = xp.where(zero, -1 if a.dtype.kind == "i" else np.iinfo(a.dtype).max, q)
            return [self.cast(op, q)]
        return [self.cast(op, xp.divide(a, b))]

    @impl("stablehlo.remainder")
    def remainder(self, frame, op, args):
        xp = self.xp
        a, b = args
        if a.dtype.kind in "iu":
            zero = b == 0
            r = xp.fmod(a, xp.where(zero, 1, b))
            return [self.cast(op, xp.where(zero, a, r))]
        return [self.cast(op, xp.fmod(a, b))]

    @impl("stablehlo.shift_left", "stablehlo.shift_right_arithmetic", "stablehlo.shift_right_logical")
    def shift(self, frame, op, args):
        xp = self.xp
        a, b = args
        bits = a.dtype.itemsize * 8
        big = (b < 0) | (b >= bits)
        safe = xp.where(big, 0, b).astype(a.dtype)
        kind = op.name.rsplit(".", 1)[1]
        if kind == "shift_left":
            r = xp.where(big, 0, xp.left_shift(a, safe))
        elif kind == "shift_right_arithmetic":
            r = xp.where(big, xp.where(a < 0, -1, 0), xp.right_shift(a, safe))
        else:
            u = a.view(np.dtype(f"u{a.dtype.itemsize}")) if hasattr(a, "view") else a
            r = xp.where(big, 0, xp.right_shift(u, safe.astype(u.dtype))).astype(a.dtype)
        return [self.cast(op, r)]

    _UNARY = {
        "negate": lambda xp, a: xp.negative(a), "abs": lambda xp, a: xp.abs(a), "sign": lambda xp, a: xp.sign(a),
        "exponential": lambda xp, a: xp.exp(a), "exponential_minus_one": lambda xp, a: xp.expm1(a),
        "log": lambda xp, a: xp.log(a), "log_plus_one": lambda xp, a: xp.log1p(a),
        "sqrt": lambda xp, a: xp.sqrt(a), "rsqrt": lambda xp, a: 1 / xp.sqrt(a), "cbrt": lambda xp, a: _cbrt(xp, a),
        "tanh": lambda xp, a: xp.tanh(a), "sine": lambda xp, a: xp.sin(a), "cosine": lambda xp, a: xp.cos(a),
        "tan": lambda xp, a: xp.tan(a), "logistic": lambda xp, a: 1 / (1 + xp.exp(-a)),
        "floor": lambda xp, a: xp.floor(a), "ceil": lambda xp, a: xp.ceil(a),
        "round_nearest_even": lambda xp, a: xp.rint(a),
        "round_nearest_afz": lambda xp, a: xp.sign(a) * xp.floor(xp.abs(a) + 0.5),
        "is_finite": lambda xp, a: xp.isfinite(a), "real": lambda xp, a: xp.real(a), "imag": lambda xp, a: xp.imag(a),
        "not": lambda xp, a: xp.logical_not(a) if a.dtype == bool else xp.invert(a),
        "popcnt": lambda xp, a: _popcount(xp, a),
    }

    @impl(*(f"stablehlo.{k}" for k in _UNARY))
    def unary(self, frame, op, args):
        (a,) = args
        return [self.cast(op, self._UNARY[op.name.rsplit(".", 1)[1]](self.xp, a))]

    @impl("stablehlo.complex")
    def complex_(self, frame, op, args):
        a, b = args
        return [self.cast(op, a + 1j * b)]

    @impl("stablehlo.compare")
    def compare(self, frame, op, args):
        xp = self.xp
        a, b = args
        d = enum(op, "comparison_direction")
        f = {"EQ": xp.equal, "NE": xp.not_equal, "LT": xp.less, "LE": xp.less_equal, "GT": xp.greater,
             "GE": xp.greater_equal}.get(d or "")
        if f is None:
            raise ExecutionError(f"cannot execute: compare with direction {d}", op)
        if enum(op, "compare_type") == "TOTALORDER" and is_float(np.dtype(a.dtype)):
            a, b = total_order_key(xp, a), total_order_key(xp, b)
        return [self.cast(op, f(a, b))]

    @impl("stablehlo.select")
    def select(self, frame, op, args):
        p, a, b = args
        return [self.cast(op, self.xp.where(p, a, b))]

    @impl("stablehlo.clamp")
    def clamp(self, frame, op, args):
        lo, x, hi = args
        return [self.cast(op, self.xp.minimum(self.xp.maximum(x, lo), hi))]

    @impl("stablehlo.convert")
    def convert(self, frame, op, args):
        (a,) = args
        t = self.interp.result_type(op)
        dt = dtype_of(t.element)
        if a.dtype.kind == "c" and dt.kind != "c":  # complex → real types: the real part
            a = self.xp.real(a)
        if dt == np.bool_:
            return [self.xp.asarray(a != 0)]
        if a.dtype.kind == "c" and dt.kind != "c":
            a = self.xp.real(a)
        if dt.kind in "iu" and is_float(np.dtype(a.dtype)):
            # float → integer: NaN gives 0 and out-of-range values saturate (XLA's CPU/GPU behaviour)
            info = np.iinfo(dt)
            a64 = self.xp.asarray(a).astype(np.float64)
            a64 = self.xp.where(self.xp.isnan(a64), 0, self.xp.clip(a64, info.min, info.max))
            a = self.xp.trunc(a64)
            if dt.itemsize == 8:  # float64 cannot hold int64's extremes exactly
                big = a64 >= 2.0 ** (63 if dt.kind == "i" else 64)
                out = self.xp.where(big, 0, a).astype(dt)
                return [self.cast(op, self.xp.where(big, info.max, out))]
        return [self.cast(op, self.xp.asarray(a).astype(dt))]

    @impl("stablehlo.bitcast_convert")
    def bitcast_convert(self, frame, op, args):
        (a,) = args
        t = self.interp.result_type(op)
        host = np.ascontiguousarray(self.host(a))
        dt = dtype_of(t.element)
        if host.dtype == np.bool_:  # i1 elements are bits, least significant first
            host = np.packbits(host.reshape(*host.shape[:-1], -1, 8), axis=-1, bitorder="little")
            host = host.reshape(host.shape[:-1])
        if dt == np.bool_:
            bits = np.unpackbits(host.view(np.uint8).reshape(*host.shape, -1), axis=-1, bitorder="little")
            out = bits.astype(bool).reshape(tuple(t.shape))
        else:
            out = host.view(dt).reshape(tuple(t.shape))
        return [self.backend.asarray(out)]

    @impl("stablehlo.count_leading_zeros")
    def count_leading_zeros(self, frame, op, args):
        (a,) = args
        t = self.interp.result_type(op)
        bits = {"i2": 2, "si2": 2, "ui2": 2, "i4": 4, "si4": 4, "ui4": 4}.get(getattr(t.element, "name", ""),
                                                                             a.dtype.itemsize * 8)
        u = self.xp.asarray(a).astype(np.int64) & ((1 << bits) - 1) if bits < 64 else \
            self.xp.asarray(a).view(np.uint64)
        count = self.xp.zeros(a.shape, dtype=np.int64)
        seen = self.xp.zeros(a.shape, dtype=bool)
        for k in range(bits - 1, -1, -1):
            bit = ((u >> k) & 1).astype(bool)
            seen = seen | bit
            count = count + (~seen)
        return [self.cast(op, count)]

    @impl("stablehlo.reduce_precision")
    def reduce_precision(self, frame, op, args):
        (a,) = args
        e_bits, m_bits = int_attr(op, "exponent_bits"), int_attr(op, "mantissa_bits")
        return [self.cast(op, reduce_precision(np.asarray(self.host(a)), e_bits, m_bits))]


def total_order_key(xp, a):
    """Integers ordered as the floats' total order (-NaN < -inf < ... < -0 < +0 < ... < +inf < NaN)."""
    width = np.dtype(a.dtype).itemsize
    it = {2: np.int16, 4: np.int32, 8: np.int64}[width]
    i = a.view(it) if hasattr(a, "view") else xp.asarray(a).view(it)
    mask = np.array(np.iinfo(it).max, dtype=it)
    return i ^ ((i >> (width * 8 - 1)) & mask)


def reduce_precision(a: np.ndarray, exponent_bits: int, mantissa_bits: int) -> np.ndarray:
    """Round to a float format with the given exponent and mantissa widths (round
    to nearest even; overflow to ±inf, underflow to ±0; NaN stays NaN), then back."""
    dt = a.dtype
    wide = np.float64 if dt.itemsize > 4 else np.float32
    x = a.astype(wide)
    ut, src_m, src_e = (np.uint64, 52, 11) if wide == np.float64 else (np.uint32, 23, 8)
    bits = x.view(ut).copy()
    one = ut(1)
    if mantissa_bits < src_m:
        shift = ut(src_m - mantissa_bits)
        last = (bits >> shift) & one
        bias = (one << (shift - one)) - one + last
        bits = (bits + bias) & ~((one << shift) - one)
    if exponent_bits < src_e:
        sign = bits & (one << ut(src_m + src_e))
        exp_mask = ((one << ut(src_e)) - one) << ut(src_m)
        src_bias = (1 << (src_e - 1)) - 1
        dst_bias = (1 << (exponent_bits - 1)) - 1
        exp = ((bits & exp_mask) >> ut(src_m)).astype(np.int64) - src_bias
        over = exp > dst_bias
        under = exp <= -dst_bias
        inf_bits = exp_mask
        bits = np.where(over, sign | inf_bits, np.where(under, sign, bits)).astype(ut)
    out = bits.view(wide)
    if mantissa_bits > 0:
        out = np.where(np.isnan(x), x, out)
    else:  # no mantissa bit left to mark a NaN: it becomes an infinity of its sign
        out = np.where(np.isnan(x), np.copysign(np.inf, x), out)
    return out.astype(dt)


def _popcount(xp, a):
    u = a.astype(np.uint64) if a.dtype.kind == "i" else a.astype(np.uint64)
    if a.dtype.kind == "i" and a.dtype.itemsize < 8:  # count the bits of the element's own width
        u = u & np.uint64((1 << (8 * a.dtype.itemsize)) - 1)
    count = xp.zeros(a.shape, dtype=np.uint64)
    for _ in range(a.dtype.itemsize * 8):
        count = count + (u & np.uint64(1))
        u = u >> np.uint64(1)
    return count


def _cbrt(xp, a):
    if np.dtype(a.dtype).kind == "c":  # principal cube root
        return xp.exp(xp.log(a) / 3)
    return xp.cbrt(a)


def _atan2(xp):
    def f(y, x):
        if np.dtype(y.dtype).kind == "c":  # -i log((x + iy) / sqrt(x^2 + y^2))
            return -1j * xp.log((x + 1j * y) / xp.sqrt(x * x + y * y))
        return xp.arctan2(y, x)

    return f
