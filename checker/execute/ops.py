"""Local (non-communicating) op semantics, one class per dialect:
StableHLO compute ops, StableHLO control flow, func, sdy, and the sharding
custom_calls JAX's GSPMD lowering emits.

Every impl takes (frame, op, args) and returns the op's result values; the
blocking ones (control flow, anything that runs a region that may communicate)
are generators. Results are cast to the declared result types, so numpy's own
type promotion never leaks into the program's values.
"""
from __future__ import annotations

import math

import numpy as np

from ..attributes import (ArrayAttr, DenseElementsAttr, DialectAttr, EnumAttr, IntegerAttr,
                          StringAttr)
from ..ir import Operation, callee
from ..semantics import int_list
from .interpreter import Frame, OpFunctions, Slot, custom_call_target, impl
from .sharding import Tiling, hlo_tiling, mesh_from_attr, sdy_dims, sdy_mesh_name, sdy_tiling
from .values import TOKEN, ExecutionError, PendingGlobal, constant_array, dtype_of, is_float


# ----------------------------------------------------------------------------- attribute helpers
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


def int_attr(op: Operation, name: str, default: int | None = None) -> int:
    a = op.attr(name)
    if isinstance(a, IntegerAttr):
        return a.value
    if default is not None:
        return default
    raise ExecutionError(f"cannot execute: op {op.name} has no integer `{name}`", op)


def enum(op: Operation, name: str) -> str | None:
    a = op.attr(name)
    if isinstance(a, EnumAttr):
        return a.value
    if isinstance(a, DialectAttr):  # `#stablehlo<comparison_direction LT>` read as a dialect attr
        return a.text.rsplit(" ", 1)[-1].rstrip(">") if a.text else None
    if isinstance(a, StringAttr):
        return a.value
    return None


def _param_ints(attr, name: str) -> list[int]:
    v = attr.get(name) if attr is not None else None
    if v is None:
        return []
    out = int_list(v)
    return out or []


# ----------------------------------------------------------------------------- compute
class StableHLOFunctions(OpFunctions):
    """Element-wise arithmetic and logic, shapes and slices, dot_general, reduce."""

    def cast(self, op: Operation, value, i: int = 0):
        t = self.interp.result_type(op, i)
        dt = dtype_of(t.element)
        if self.interp.vectorized:  # a reduction body applied to whole arrays at once
            return self.xp.asarray(value, dtype=dt)
        return self.xp.asarray(value, dtype=dt).reshape(tuple(t.shape))

    # -- constants and ids ------------------------------------------------------
    @impl("stablehlo.constant")
    def constant(self, frame: Frame, op: Operation, args):
        attr = op.attr("value")
        if not isinstance(attr, DenseElementsAttr):
            raise ExecutionError(f"cannot execute: constant with a {type(attr).__name__} value", op)
        t = self.interp.result_type(op)
        return [self.backend.asarray(constant_array(attr, t))]

    @impl("stablehlo.iota")
    def iota(self, frame, op, args):
        t = self.interp.result_type(op)
        dim = int_attr(op, "iota_dimension")
        shape = tuple(t.shape)
        ar = np.arange(shape[dim]).reshape([-1 if i == dim else 1 for i in range(len(shape))])
        return [self.backend.asarray(np.broadcast_to(ar, shape).astype(dtype_of(t.element)))]

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
             "minimum": xp.minimum, "power": xp.power, "atan2": xp.arctan2}[kind]
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
        "sqrt": lambda xp, a: xp.sqrt(a), "rsqrt": lambda xp, a: 1 / xp.sqrt(a), "cbrt": lambda xp, a: xp.cbrt(a),
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
        if dt == np.bool_:
            return [self.xp.asarray(a != 0)]
        if a.dtype.kind == "c" and dt.kind != "c":
            a = self.xp.real(a)
        return [self.xp.asarray(a).astype(dt)]

    @impl("stablehlo.bitcast_convert")
    def bitcast_convert(self, frame, op, args):
        (a,) = args
        t = self.interp.result_type(op)
        host = np.ascontiguousarray(self.backend.to_numpy(a)).view(dtype_of(t.element)).reshape(tuple(t.shape))
        return [self.backend.asarray(host)]

    # -- shapes -----------------------------------------------------------------
    @impl("stablehlo.broadcast_in_dim")
    def broadcast_in_dim(self, frame, op, args):
        (a,) = args
        t = self.interp.result_type(op)
        dims = ints(op, "broadcast_dimensions")
        order = sorted(range(len(dims)), key=lambda i: dims[i])
        x = self.xp.transpose(a, order) if order != list(range(len(dims))) else a
        shape = [1] * len(t.shape)
        for i in order:
            shape[dims[i]] = a.shape[i]
        x = self.xp.reshape(x, shape)
        return [self.cast(op, self.xp.broadcast_to(x, tuple(t.shape)))]

    @impl("stablehlo.broadcast")
    def broadcast(self, frame, op, args):
        (a,) = args
        t = self.interp.result_type(op)
        return [self.cast(op, self.xp.broadcast_to(a, tuple(t.shape)))]

    @impl("stablehlo.reshape", "stablehlo.dynamic_reshape")
    def reshape(self, frame, op, args):
        t = self.interp.result_type(op)
        return [self.cast(op, self.xp.reshape(args[0], tuple(t.shape)))]

    @impl("stablehlo.transpose")
    def transpose(self, frame, op, args):
        return [self.cast(op, self.xp.transpose(args[0], ints(op, "permutation")))]

    @impl("stablehlo.reverse")
    def reverse(self, frame, op, args):
        return [self.cast(op, self.xp.flip(args[0], axis=tuple(ints(op, "dimensions"))))]

    @impl("stablehlo.slice")
    def slice_(self, frame, op, args):
        (a,) = args
        starts, limits = ints(op, "start_indices"), ints(op, "limit_indices")
        strides = ints(op, "strides", [1] * len(starts))
        index = tuple(slice(s, l, st) for s, l, st in zip(starts, limits, strides))
        return [self.cast(op, a[index])]

    def _starts(self, scalars, shape, sizes) -> list[int]:
        out = []
        for s, dim, size in zip(scalars, shape, sizes):
            v = int(self.backend.to_numpy(s))
            out.append(min(max(v, 0), dim - size))
        return out

    @impl("stablehlo.dynamic_slice")
    def dynamic_slice(self, frame, op, args):
        a, *idx = args
        sizes = ints(op, "slice_sizes")
        starts = self._starts(idx, a.shape, sizes)
        return [self.cast(op, a[tuple(slice(s, s + n) for s, n in zip(starts, sizes))])]

    @impl("stablehlo.dynamic_update_slice")
    def dynamic_update_slice(self, frame, op, args):
        a, upd, *idx = args
        starts = self._starts(idx, a.shape, upd.shape)
        index = tuple(slice(s, s + n) for s, n in zip(starts, upd.shape))
        return [self.cast(op, self.backend.update(a, index, upd))]

    @impl("stablehlo.concatenate")
    def concatenate(self, frame, op, args):
        dim = int_attr(op, "dimension", 0)
        return [self.cast(op, self.xp.concatenate(list(args), axis=dim))]

    @impl("stablehlo.pad")
    def pad(self, frame, op, args):
        a, value = args
        lo, hi = ints(op, "edge_padding_low"), ints(op, "edge_padding_high")
        interior = ints(op, "interior_padding", [0] * len(lo))
        inner = [n + max(n - 1, 0) * i for n, i in zip(a.shape, interior)]
        big = [max(l, 0) + n + max(h, 0) for l, n, h in zip(lo, inner, hi)]
        out = self.xp.full(big, value, dtype=a.dtype)
        index = tuple(slice(max(l, 0), max(l, 0) + n, i + 1) for l, n, i in zip(lo, inner, interior))
        out = self.backend.update(out, index, a)
        crop = tuple(slice(max(-l, 0), b - max(-h, 0)) for l, h, b in zip(lo, hi, big))
        return [self.cast(op, out[crop])]

    # -- contractions and reductions ------------------------------------------------
    @impl("stablehlo.dot_general")
    def dot_general(self, frame, op, args):
        a, b = args
        dn = op.attr("dot_dimension_numbers")
        if not isinstance(dn, DialectAttr):
            raise ExecutionError("cannot execute: dot_general without readable dot_dimension_numbers", op)
        lb, rb = _param_ints(dn, "lhs_batching_dimensions"), _param_ints(dn, "rhs_batching_dimensions")
        lc, rc = _param_ints(dn, "lhs_contracting_dimensions"), _param_ints(dn, "rhs_contracting_dimensions")
        return [self._contract(op, a, b, lb, rb, lc, rc)]

    @impl("stablehlo.dot")
    def dot(self, frame, op, args):
        a, b = args
        return [self._contract(op, a, b, [], [], [a.ndim - 1], [0] if b.ndim else [])]

    def _contract(self, op, a, b, lb, rb, lc, rc):
        letters = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
        la = [""] * a.ndim
        lbs = [""] * b.ndim
        k = 0
        for i, j in zip(lb, rb):
            la[i] = lbs[j] = letters[k]
            k += 1
        for i, j in zip(lc, rc):
            la[i] = lbs[j] = letters[k]
            k += 1
        out = [la[i] for i in lb]
        for i in range(a.ndim):
            if not la[i]:
                la[i] = letters[k]
                out.append(letters[k])
                k += 1
        for j in range(b.ndim):
            if not lbs[j]:
                lbs[j] = letters[k]
                out.append(letters[k])
                k += 1
        t = self.interp.result_type(op)
        dt = dtype_of(t.element)
        if is_float(dt) and dt.itemsize < 4:
            a, b = a.astype(np.float32), b.astype(np.float32)
        elif dt.kind in "fc" and a.dtype != dt:
            a, b = a.astype(dt), b.astype(dt)
        r = self.xp.einsum(f"{''.join(la)},{''.join(lbs)}->{''.join(out)}", a, b)
        return self.cast(op, r)

    @impl("stablehlo.reduce")
    def reduce(self, frame, op, args):
        n = len(args) // 2
        xs, inits = args[:n], args[n:]
        dims = tuple(sorted(ints(op, "dimensions")))
        kind = _binary_kind(op)
        if kind is not None and n == 1:
            x, init = xs[0], inits[0]
            f = self._reducer(kind, x.dtype)
            if f is not None:
                r = f(x, axis=dims) if dims else x
                return [self.cast(op, _COMBINE[kind](self.xp, init, r))]
        if not op.regions:
            raise ExecutionError(f"cannot execute: reduce applying {kind}", op)
        region = op.regions[0]
        accs = [self.xp.broadcast_to(init, tuple(s for i, s in enumerate(xs[0].shape) if i not in dims))
                for init in inits]
        moved = [self.xp.moveaxis(x, dims, tuple(range(len(dims)))) if dims else x for x in xs]
        count = math.prod(xs[0].shape[d] for d in dims)
        flat = [self.xp.reshape(m, (count, *m.shape[len(dims):])) for m in moved]
        for k in range(count):
            accs = self.interp.eval_region(frame, region, [*accs, *(f[k] for f in flat)])
        return [self.cast(op, acc, i) for i, acc in enumerate(accs)]

    def _reducer(self, kind: str, dtype):
        xp = self.xp
        if kind in ("and", "or") and dtype == bool:
            return xp.all if kind == "and" else xp.any
        return {"add": xp.sum, "multiply": xp.prod, "maximum": xp.max, "minimum": xp.min}.get(kind)


_COMBINE = {
    "add": lambda xp, a, b: a + b, "multiply": lambda xp, a, b: a * b, "maximum": lambda xp, a, b: xp.maximum(a, b),
    "minimum": lambda xp, a, b: xp.minimum(a, b), "and": lambda xp, a, b: xp.logical_and(a, b),
    "or": lambda xp, a, b: xp.logical_or(a, b),
}


def _popcount(xp, a):
    u = a.astype(np.uint64) if a.dtype.kind == "i" else a.astype(np.uint64)
    count = xp.zeros(a.shape, dtype=np.uint64)
    for _ in range(a.dtype.itemsize * 8):
        count = count + (u & 1)
        u = u >> 1
    return count


def _binary_kind(op: Operation) -> str | None:
    """The op a reduction region applies when it is one binary op on its two
    arguments (`applies stablehlo.add` in the pretty form), else None."""
    a = op.attr("applies")
    if isinstance(a, StringAttr):
        return a.value.rsplit(".", 1)[-1]
    if not op.regions or not op.regions[0].blocks:
        return None
    block = op.regions[0].blocks[0]
    ops = block.operations
    if len(ops) != 2 or ops[1].name not in ("stablehlo.return", "mhlo.return"):
        return None
    kind = ops[0].name.rsplit(".", 1)[-1]
    if kind not in _COMBINE:
        return None
    args = block.arguments
    operands = ops[0].operands
    ret = ops[1].operands
    if len(args) != 2 or len(operands) != 2 or set(operands) != set(args) or ret != [ops[0].results[0]]:
        return None
    return kind


# ----------------------------------------------------------------------------- control flow
class ControlFlowFunctions(OpFunctions):
    """while / case / if and func.call: regions run in the same process, and may block."""

    def _scalar(self, v) -> int:
        return int(np.asarray(self.backend.to_numpy(v)).reshape(()))

    @impl("stablehlo.while", blocking=True)
    def while_(self, frame, op, args):
        if len(op.regions) != 2:
            raise ExecutionError("cannot execute: while without cond and body regions", op)
        cond, body = op.regions
        values = list(args)
        while True:
            (c,) = yield from self.interp.run_region(frame, cond, values)
            if not self._scalar(c):
                return values
            values = yield from self.interp.run_region(frame, body, values)
            frame.proc.op = op

    @impl("stablehlo.case", blocking=True)
    def case(self, frame, op, args):
        i = self._scalar(args[0])
        n = len(op.regions)
        if not 0 <= i < n:
            i = n - 1  # out-of-range index runs the last branch (spec)
        return (yield from self.interp.run_region(frame, op.regions[i], []))

    @impl("stablehlo.if", blocking=True)
    def if_(self, frame, op, args):
        branch = op.regions[0] if self._scalar(args[0]) else op.regions[1]
        return (yield from self.interp.run_region(frame, branch, []))

    @impl("func.call", "call", blocking=True)
    def call(self, frame, op, args):
        name = callee(op)
        func = self.interp.module.funcs.get(name or "")
        if func is None:
            raise ExecutionError(f"cannot execute: call to unknown function @{name}", op)
        return (yield from self.interp.call_function(frame, func, args))

    call._accepts_pending = True


# ----------------------------------------------------------------------------- sdy and GSPMD
class ShardingFunctions(OpFunctions):
    """sdy.manual_computation and the GSPMD custom_calls: where a global program
    becomes one program per device and back.

    Entering, each process takes its own shard of each global operand. Leaving,
    it publishes its local results into a Slot; the op's results are
    PendingGlobal values that the first op reading them resolves once every
    process of the mesh has published (a later manual_computation that shards
    the value the same way takes the process's own shard without waiting)."""

    def mesh(self, name: str | None, op: Operation):
        meshes = self.interp.meshes
        if not meshes:
            for m in self.interp.module.walk():
                if m.name == "sdy.mesh" and m.symbol_name:
                    meshes[m.symbol_name] = mesh_from_attr(m.attr("mesh"))
        if name not in meshes:
            raise ExecutionError(f"cannot execute: sdy mesh @{name} is not defined", op)
        return meshes[name]

    def devices(self, frame: Frame, size: int, op: Operation) -> tuple[int, dict[int, tuple[int, int]]]:
        """This process's device id and the device → process map for a mesh of `size`."""
        grid = self.interp.grid
        r, p = frame.proc.pid
        if size == grid.num_partitions:
            return p, {d: (r, d) for d in range(size)}
        if size == grid.size:
            return grid.flat(r, p), {d: grid.unflat(d) for d in range(size)}
        raise ExecutionError(f"cannot execute: a mesh of {size} devices on a grid of {grid.num_replicas}x"
                             f"{grid.num_partitions} processes", op)

    def _shardings(self, op: Operation, name: str) -> list:
        a = op.attr(name)
        from ..attributes import ArrayAttr as _Arr

        if isinstance(a, DialectAttr):
            for p in a.positional:
                if isinstance(p, _Arr):
                    return list(p.elements)
        raise ExecutionError(f"cannot execute: cannot read `{name}` of {op.name}", op)

    def _tiling(self, sharding, op: Operation) -> tuple[Tiling, object]:
        mesh = self.mesh(sdy_mesh_name(sharding), op)
        dims = sdy_dims(sharding)
        if dims is None:
            raise ExecutionError(f"cannot execute: cannot read sharding {getattr(sharding, 'text', sharding)}", op)
        return sdy_tiling(dims, mesh), mesh

    @impl("sdy.manual_computation", blocking=True)
    def manual_computation(self, frame, op, args):
        ins, outs = self._shardings(op, "in_shardings"), self._shardings(op, "out_shardings")
        if len(ins) != len(args):
            raise ExecutionError("cannot execute: in_shardings and operands differ in number", op)
        manual = op.attr("manual_axes")
        manual_axes = {e.value for e in manual.elements if isinstance(e, StringAttr)} \
            if isinstance(manual, ArrayAttr) else set()
        local = []
        mesh = None
        device = 0
        members: dict = {}
        for a, sh in zip(args, ins):
            tiling, mesh = self._tiling(sh, op)
            device, members = self.devices(frame, mesh.size, op)
            if isinstance(a, PendingGlobal) and a.slot.tilings[a.index] == tiling and device in a.slot.shards:
                local.append(a.slot.shards[device][a.index])  # same sharding: own shard, no wait
                continue
            if isinstance(a, PendingGlobal):
                a = yield from self.interp.resolve(frame, a, op)
            local.append(a[tiling.index(device, tuple(a.shape))])
        if mesh is None and outs:
            _t, mesh = self._tiling(outs[0], op)
            device, members = self.devices(frame, mesh.size, op)
        if mesh is not None:
            free = {n for n, s in mesh.axes if s > 1} - manual_axes
            if free:
                raise ExecutionError(f"cannot execute: partially manual sdy.manual_computation (axes "
                                     f"{', '.join(sorted(free))} stay automatic)", op)
        results = yield from self.interp.run_region(frame, op.regions[0], local)
        frame.proc.op = op
        if not outs:
            return []
        tilings = [self._tiling(sh, op)[0] for sh in outs]
        return self._publish(frame, op, members, device, tilings, results)

    manual_computation._accepts_pending = True

    def _publish(self, frame, op, members, device, tilings, results):
        world = self.interp.world
        key = (op.span.start, world.next_instance(frame.proc.pid, op), frame.proc.pid[0] if
               len(members) < self.interp.grid.size else 0)
        slot = world.slots.get(key)
        if slot is None:
            slot = world.slots[key] = Slot(op, members, tilings)
        slot.shards[device] = [self.backend.to_numpy(r) if hasattr(r, "shape") else r for r in results]
        return [PendingGlobal(slot, i) for i in range(len(results))]

    @impl("sdy.sharding_constraint", "sdy.reshard")
    def identity(self, frame, op, args):
        return list(args)

    @impl("stablehlo.custom_call", blocking=True)
    def custom_call(self, frame, op, args):
        target = custom_call_target(op)
        if target == "Sharding":
            return list(args)
        if target == "SPMDFullToShardShape":
            (a,) = args
            src = self.interp.operands(op)[0]
            definer = src.defining_op if src is not None else None
            text = _sharding_text(definer) if definer is not None else None
            if text is None:
                raise ExecutionError("cannot execute: @SPMDFullToShardShape whose operand has no mhlo.sharding", op)
            tiling = self._hlo(text, a.ndim, frame, op)
            device, _members = self.devices(frame, self._num_devices(), op)
            return [a[tiling.index(device, tuple(a.shape))]]
        if target == "SPMDShardToFullShape":
            (a,) = args
            text = _sharding_text(op)
            if text is None:
                raise ExecutionError("cannot execute: @SPMDShardToFullShape without mhlo.sharding", op)
            tiling = self._hlo(text, a.ndim, frame, op)
            device, members = self.devices(frame, self._num_devices(), op)
            return self._publish(frame, op, members, device, [tiling], [a])
        raise ExecutionError(f"refused: custom_call @{target}", op)
        yield  # pragma: no cover - makes this a generator

    def _num_devices(self) -> int:
        return self.interp.grid.num_partitions if self.interp.grid.num_partitions > 1 else self.interp.grid.size

    def _hlo(self, text: str, rank: int, frame, op) -> Tiling:
        n = self._num_devices()
        t = hlo_tiling(text, rank, n)
        if t == "manual":
            raise ExecutionError(f"cannot execute: {op.name} with a {{manual}} global sharding", op)
        return t  # type: ignore[return-value]


def _sharding_text(op: Operation) -> str | None:
    a = op.attr("mhlo.sharding")
    return a.value if isinstance(a, StringAttr) else None


FUNCTION_CLASSES = (StableHLOFunctions, ControlFlowFunctions, ShardingFunctions)
