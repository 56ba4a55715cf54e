"""The `check` dialect (assertions of StableHLO's interpreter tests) and the
`interpreter` dialect's test harness ops.

* check.expect_eq / expect_eq_const: same shape and elements (NaN equals NaN);
* check.expect_almost_eq / _const: floats within `tolerance` (default 1e-4,
  the upstream default), complex parts each within it, others exact;
* check.expect_close: floats within [min_ulp_difference, max_ulp_difference]
  ULPs (defaults 0 and 1);
* check.expect_serialized_eq: equal to what `interpreter.probe` recorded under
  the same `probe_id` (and `iteration`) in this run;
* interpreter.run_parallel: runs `programs` (replicas × partitions functions)
  as processes of their own grid (interpreter.run_programs), operands and
  results flattened process by process; `infeed` functions feed stablehlo.infeed;
* interpreter.probe records its operand; interpreter.print prints it as StableHLO's
  interpreter does (printing.py), into the run's `printed`.

A failed check does not stop the run: it is recorded (op + message) and the
run's outcome becomes "failed". The expected constant of an `_const` check is
its `value` attribute (generic form) or the dense literal written after the
operand (custom form, read by the parser as a positional attribute), with the
operand's type.
"""
from __future__ import annotations

import numpy as np

from ...ir.attributes import ArrayAttr, DenseElementsAttr, StringAttr
from ...analysis.semantics import Grid
from ...ir.types import TensorType
from ..op_registry import impl, register
from ..printing import ssa_prefix, tensor_text
from ..values import TOKEN, ExecutionError, constant_array, is_float, tensor_type
from .common import ComputeFunctions, float_attr, int_attr, symbol_list

DEFAULT_TOLERANCE = 1e-4


@register
class CheckFunctions(ComputeFunctions):
    # -- values -------------------------------------------------------------------------
    def expected_const(self, op):
        a = op.attr("value")
        if not isinstance(a, DenseElementsAttr):
            pos = op.attr("_positional")
            if isinstance(pos, ArrayAttr):
                a = next((e for e in pos.elements if isinstance(e, DenseElementsAttr)), None)
        if not isinstance(a, DenseElementsAttr):
            a = _dense_in_text(op)  # an op the parser keeps opaque: its literal text
        if not isinstance(a, DenseElementsAttr):
            raise ExecutionError(f"cannot execute: {op.name} without a readable expected value", op)
        t = a.type if isinstance(a.type, TensorType) else (op.operand_types or [None])[0]
        if not isinstance(t, TensorType) and op.operands and op.operands[0] is not None:
            t = op.operands[0].type
        return constant_array(a, tensor_type(t, f"expected value of {op.name}"))

    def fail(self, op, message: str) -> list:
        self.interp.check_failed(op, message)
        return []

    def passed(self, op) -> list:
        self.interp.check_passed(op)
        return []

    def _pair(self, op, args, const: bool):
        actual = self.host(args[0])
        expected = self.expected_const(op) if const else self.host(args[1])
        return actual, np.asarray(expected)

    def _shape_mismatch(self, actual, expected) -> str | None:
        if actual.shape != expected.shape:
            return f"shape {list(actual.shape)} (actual) vs {list(expected.shape)} (expected)"
        return None

    # -- assertions -------------------------------------------------------------------
    @impl("check.expect_eq", "check.expect_eq_const")
    def expect_eq(self, frame, op, args):
        actual, expected = self._pair(op, args, op.name.endswith("_const"))
        bad = self._shape_mismatch(actual, expected)
        if bad:
            return self.fail(op, bad)
        same = actual == expected.astype(actual.dtype) if expected.dtype != actual.dtype else actual == expected
        if actual.dtype.kind in "fc" or is_float(actual.dtype):
            same = same | (np.isnan(actual.astype(np.complex128)) & np.isnan(expected.astype(np.complex128)))
        return self._verdict(op, actual, expected, same, "")

    @impl("check.expect_almost_eq", "check.expect_almost_eq_const")
    def expect_almost_eq(self, frame, op, args):
        actual, expected = self._pair(op, args, op.name.endswith("_const"))
        bad = self._shape_mismatch(actual, expected)
        if bad:
            return self.fail(op, bad)
        tol = float_attr(op, "tolerance", _number_in_text(op, "tolerance", DEFAULT_TOLERANCE))
        if actual.dtype.kind == "c":
            same = _almost(actual.real, expected.real, tol) & _almost(actual.imag, expected.imag, tol)
        elif is_float(actual.dtype):
            same = _almost(actual.astype(np.float64), expected.astype(np.float64), tol)
        else:
            same = actual == expected
        return self._verdict(op, actual, expected, same, f" with tolerance {tol:g}")

    @impl("check.expect_close")
    def expect_close(self, frame, op, args):
        actual, expected = self._pair(op, args, False)
        bad = self._shape_mismatch(actual, expected)
        if bad:
            return self.fail(op, bad)
        hi = int_attr(op, "max_ulp_difference", int(_number_in_text(op, "max_ulp_difference", 1)))
        lo = int_attr(op, "min_ulp_difference", int(_number_in_text(op, "min_ulp_difference", 0)))
        if actual.dtype.kind == "c":
            ulps = np.maximum(_ulps(actual.real, expected.real), _ulps(actual.imag, expected.imag))
        else:
            ulps = _ulps(actual, expected.astype(actual.dtype))
        same = (ulps <= hi) & (ulps >= lo)
        return self._verdict(op, actual, expected, same, f" within {lo}..{hi} ULPs")

    @impl("check.expect_serialized_eq")
    def expect_serialized_eq(self, frame, op, args):
        pid = op.attr("probe_id")
        key = pid.value if isinstance(pid, StringAttr) else _string_in_text(op, "probe_id")
        it = int_attr(op, "iteration", int_attr(op, "iter", int(_number_in_text(op, "iter(?:ation)?", 0))))
        seen = self.interp.probes.get(key, [])
        if it >= len(seen):
            return self.fail(op, f"no value was probed as {key!r} (iteration {it})")
        actual, expected = self.host(args[0]), seen[it]
        bad = self._shape_mismatch(actual, expected)
        if bad:
            return self.fail(op, bad)
        same = (actual == expected) | (np.isnan(actual.astype(np.complex128)) & np.isnan(
            expected.astype(np.complex128))) if actual.dtype.kind in "fc" else actual == expected
        return self._verdict(op, actual, expected, same, "")

    def _verdict(self, op, actual, expected, same, how: str) -> list:
        same = np.asarray(same, bool)
        if same.all():
            return self.passed(op)
        idx = np.argwhere(~same)
        first = tuple(int(i) for i in idx[0]) if idx.size else ()
        n = int((~same).sum())
        at = f" at {list(first)}" if first else ""
        return self.fail(op, f"{n} of {same.size} element{'s' if same.size != 1 else ''} differ{how}; first{at}: "
                             f"{_show(actual[first])} (actual) vs {_show(expected[first])} (expected)")

    # -- harness ------------------------------------------------------------------------
    @impl("interpreter.probe")
    def probe(self, frame, op, args):
        pid = op.attr("probe_id")
        key = pid.value if isinstance(pid, StringAttr) else _string_in_text(op, "probe_id")
        self.interp.probes.setdefault(key, []).append(np.array(self.host(args[0]), copy=True))
        return [args[0]]

    @impl("interpreter.print")
    def print_(self, frame, op, args):
        """`%0 = ` and the tensor as StableHLO's interpreter prints it (printing.py),
        kept in the run's `printed` (each one whole, in the order they ran)."""
        operand = op.operands[0] if op.operands else None
        ttype = tensor_type(operand.type if operand is not None else None, "interpreter.print's operand")
        self.interp.printed.append(ssa_prefix(operand) + tensor_text(self.host(args[0]), ttype))
        return []

    @impl("interpreter.run_parallel")
    def run_parallel(self, frame, op, args):
        programs = op.attr("programs")
        rows = [symbol_list(r) for r in programs.elements] if isinstance(programs, ArrayAttr) else []
        if not rows or any(len(r) != len(rows[0]) or not r for r in rows):
            raise ExecutionError("cannot execute: run_parallel needs `programs`, a non-empty rectangle of "
                                 "function symbols", op)
        grid = Grid(len(rows), len(rows[0]), "run_parallel")
        funcs, inputs = {}, {}
        rest = list(args)
        for r, row in enumerate(rows):
            for p, name in enumerate(row):
                func = self.interp.module.funcs.get(name)
                if func is None:
                    raise ExecutionError(f"cannot execute: run_parallel program @{name} is not defined", op)
                n = len(func.regions[0].blocks[0].arguments) if func.regions and func.regions[0].blocks else 0
                if n > len(rest):
                    raise ExecutionError(f"cannot execute: run_parallel has too few operands for @{name}", op)
                funcs[(r, p)], inputs[(r, p)], rest = func, rest[:n], rest[n:]
        if rest:
            raise ExecutionError(f"cannot execute: run_parallel has {len(rest)} operands no program takes", op)
        feeds = symbol_list(op.attr("infeed"))
        outputs = self.interp.run_programs(op, grid, funcs, inputs, feeds)
        return [v for pid in grid.processes() for v in outputs[pid]]

    @impl("stablehlo.infeed", blocking=True)
    def infeed(self, frame, op, args):
        feeds = getattr(self.interp, "infeeds", None)
        if not feeds:
            raise ExecutionError("cannot execute: infeed (the checker has no host to read from)", op)
        name = feeds.pop(0)
        func = self.interp.module.funcs.get(name)
        if func is None:
            raise ExecutionError(f"cannot execute: infeed queue @{name} is not defined", op)
        values = yield from self.interp.call_function(frame, func, [])
        return list(values) + [TOKEN]

    @impl("stablehlo.outfeed")
    def outfeed(self, frame, op, args):
        return [TOKEN]


# When the parser keeps a custom-form op of an unknown dialect opaque (name,
# operands, results, location, no attributes), its parameters are read from the
# op's own text: `check.expect_eq_const %x, dense<[1, 2]> : tensor<2xi64>`,
# `..., tolerance = 0.1`, `probe_id = "p", iter = 1`.
def _op_text(op) -> str:
    return op.module.source.text[op.span.start:op.span.end]


def _dense_in_text(op):
    from ...ir.attributes import DenseElementsAttr as _Dense

    text = _op_text(op)
    start = text.find("dense<")
    if start < 0:
        return None
    depth, i = 0, start + len("dense")
    for i in range(start + len("dense"), len(text)):
        c = text[i]
        depth += c == "<"
        depth -= c == ">"
        if depth == 0:
            break
    return _Dense(text[start + len("dense<"):i], None) if depth == 0 else None


def _number_in_text(op, name: str, default: float) -> float:
    import re

    m = re.search(rf"\b{name}\s*=\s*([-+0-9.eE]+)", _op_text(op))
    try:
        return float(m.group(1)) if m else default
    except ValueError:
        return default


def _string_in_text(op, name: str) -> str | None:
    import re

    m = re.search(rf'\b{name}\s*=\s*"([^"]*)"', _op_text(op))
    return m.group(1) if m else None


def _show(v) -> str:
    item = np.asarray(v).item()
    return repr(item) if not isinstance(item, float) else f"{item:.9g}"


def _almost(a, b, tol):
    eq = a == b
    both_nan = np.isnan(a) & np.isnan(b)
    finite = np.isfinite(a) & np.isfinite(b)
    with np.errstate(all="ignore"):
        close = finite & (np.abs(a - b) <= tol)
    return eq | both_nan | close


def _ulps(a, b):
    """ULP distance between floats (0 for two NaNs; huge between a finite and a non-finite value)."""
    a, b = np.asarray(a), np.asarray(b)
    it = {2: np.int16, 4: np.int32, 8: np.int64}[a.dtype.itemsize]
    ia = np.abs(a).view(it).astype(object if it == np.int64 else np.int64)
    ib = np.abs(b).view(it).astype(object if it == np.int64 else np.int64)
    diff = np.where(np.signbit(a) != np.signbit(b), ia + ib, np.abs(ia - ib))
    out = np.where(np.isfinite(a) & np.isfinite(b), diff, np.iinfo(np.int64).max)
    out = np.where(np.isnan(a) & np.isnan(b), 0, out)
    same_bits = a.view(it) == b.view(it)
    return np.where(same_bits, 0, out).astype(np.float64)
