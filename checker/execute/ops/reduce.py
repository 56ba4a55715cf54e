"""Reductions and ops built on a region applied to many elements: reduce,
reduce_window, select_and_scatter, sort, map.

A region that is one binary op on its two arguments (`stablehlo.add`, ...) runs
as the numpy reduction; any other region runs element-wise on whole arrays
(`interp.eval_region` with the interpreter in vectorised mode), so a body of
many ops still costs one numpy call per op, not one per element."""
from __future__ import annotations

import itertools
import math

import numpy as np

from ...ir.attributes import StringAttr
from ...ir.core import Operation
from ..op_registry import impl, register
from ..values import ExecutionError
from .common import ComputeFunctions, enum, int_attr, ints
from .shape import pad_array

COMBINE = {
    "add": lambda xp, a, b: a + b, "multiply": lambda xp, a, b: a * b, "maximum": lambda xp, a, b: xp.maximum(a, b),
    "minimum": lambda xp, a, b: xp.minimum(a, b), "and": lambda xp, a, b: xp.logical_and(a, b),
    "or": lambda xp, a, b: xp.logical_or(a, b),
}


def binary_kind(op: Operation) -> str | None:
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
    if kind not in COMBINE:
        return None
    args = block.arguments
    operands = ops[0].operands
    ret = ops[1].operands
    if len(args) != 2 or len(operands) != 2 or set(operands) != set(args) or ret != [ops[0].results[0]]:
        return None
    if kind in ("and", "or"):  # bitwise on integers: only the boolean form is a logical reduction
        t = getattr(args[0].type, "element", None)
        if getattr(t, "name", "i1") != "i1":
            return None
    return kind


def returns_argument(region, index: int) -> bool:
    """True when the region just returns its `index`-th argument (a scatter that sets)."""
    if not region.blocks:
        return False
    block = region.blocks[0]
    ops = block.operations
    return (len(ops) == 1 and ops[0].name in ("stablehlo.return", "mhlo.return") and len(block.arguments) > index
            and ops[0].operands == [block.arguments[index]])


@register
class ReduceFunctions(ComputeFunctions):
    def _reducer(self, kind: str, dtype):
        xp = self.xp
        if kind in ("and", "or") and dtype == bool:
            return xp.all if kind == "and" else xp.any
        return {"add": xp.sum, "multiply": xp.prod, "maximum": xp.max, "minimum": xp.min}.get(kind)

    def apply(self, frame, op: Operation, kind: str | None, accs: list, xs: list) -> list:
        """One step of a reduction: the region on (accs..., xs...), element-wise."""
        if kind is not None and len(accs) == 1:
            return [COMBINE[kind](self.xp, accs[0], xs[0])]
        return list(self.interp.eval_region(frame, op.regions[0], [*accs, *xs]))

    @impl("stablehlo.reduce")
    def reduce(self, frame, op, args):
        n = len(args) // 2
        xs, inits = args[:n], args[n:]
        dims = tuple(sorted(ints(op, "dimensions")))
        kind = binary_kind(op)
        if kind is not None and n == 1:
            x, init = xs[0], inits[0]
            f = self._reducer(kind, x.dtype)
            if f is not None:
                r = f(x, axis=dims) if dims else x
                return [self.cast(op, COMBINE[kind](self.xp, init, r))]
        if not op.regions:
            raise ExecutionError(f"cannot execute: reduce applying {kind}", op)
        accs = [self.xp.broadcast_to(init, tuple(s for i, s in enumerate(xs[0].shape) if i not in dims))
                for init in inits]
        moved = [self.xp.moveaxis(x, dims, tuple(range(len(dims)))) if dims else x for x in xs]
        count = math.prod(xs[0].shape[d] for d in dims)
        vals = [self.xp.reshape(m, (count, *m.shape[len(dims):])) for m in moved]
        if count > 2 and not self._associative(frame, op, vals):
            for k in range(count):  # in order, as a loop over the elements would
                accs = self.apply(frame, op, None, accs, [v[k] for v in vals])
            return [self.cast(op, acc, i) for i, acc in enumerate(accs)]
        # A balanced tree of the body over the reduced elements (the spec leaves the
        # schedule to the implementation, and XLA reorders associative reductions):
        # log2(count) region runs on whole arrays.
        while count > 1:
            half = count // 2
            merged = self.apply(frame, op, None, [v[:half] for v in vals], [v[half:2 * half] for v in vals])
            merged = [self.xp.broadcast_to(m, v[:half].shape) for m, v in zip(merged, vals)]
            vals = [self.xp.concatenate([m, v[2 * half:]]) if count % 2 else m for m, v in zip(merged, vals)]
            count = half + count % 2
        if count == 1:
            accs = self.apply(frame, op, None, accs, [v[0] for v in vals])
        return [self.cast(op, acc, i) for i, acc in enumerate(accs)]

    def _associative(self, frame, op, vals: list) -> bool:
        """Whether the body behaves associatively and commutatively on a sample of
        the data (three shuffles of up to 64 rows): then any schedule gives the
        sequential result (up to rounding) and the tree may be used."""
        rng = np.random.default_rng(0)
        n = min(64, vals[0].shape[0])
        rows = [self.xp.asarray(v[:n]) for v in vals]
        a, b, c = ([r[self.backend.asarray(p)] for r in rows] for p in (rng.permutation(n) for _ in range(3)))
        ab = self.apply(frame, op, None, a, b)
        left = self.apply(frame, op, None, ab, c)
        right = self.apply(frame, op, None, a, self.apply(frame, op, None, b, c))
        ba = self.apply(frame, op, None, b, a)
        for x, y in (*zip(left, right), *zip(ab, ba)):
            x, y = np.asarray(self.host(x)), np.asarray(self.host(y))
            if x.dtype.kind in "fc":
                if not np.allclose(x, y, rtol=1e-4, atol=1e-6, equal_nan=True):
                    return False
            elif not np.array_equal(x, y):
                return False
        return True

    @impl("stablehlo.reduce_window")
    def reduce_window(self, frame, op, args):
        n = len(args) // 2
        xs, inits = args[:n], args[n:]
        rank = xs[0].ndim
        wdims = ints(op, "window_dimensions")
        strides = ints(op, "window_strides", [1] * rank)
        bdil = ints(op, "base_dilations", [1] * rank)
        wdil = ints(op, "window_dilations", [1] * rank)
        pads = _padding(op, rank)
        padded = [pad_array(self.xp, self.backend, x, init, [p[0] for p in pads], [p[1] for p in pads],
                            [b - 1 for b in bdil]) for x, init in zip(xs, inits)]
        out_shape = tuple(self.interp.result_type(op, 0).shape)
        kind = binary_kind(op)
        accs = [self.xp.broadcast_to(init, out_shape) for init in inits]
        for k in itertools.product(*(range(w) for w in wdims)):
            index = tuple(slice(kk * d, kk * d + (o - 1) * s + 1, s) for kk, d, o, s in zip(k, wdil, out_shape, strides))
            accs = self.apply(frame, op, kind, accs, [p[index] for p in padded])
        return [self.cast(op, a, i) for i, a in enumerate(accs)]

    @impl("stablehlo.select_and_scatter")
    def select_and_scatter(self, frame, op, args):
        operand, source, init = args
        xp = self.xp
        rank = operand.ndim
        wdims = ints(op, "window_dimensions", [1] * rank)
        strides = ints(op, "window_strides", [1] * rank)
        pads = _padding(op, rank)
        lo = [p[0] for p in pads]
        padded = pad_array(xp, self.backend, operand, xp.zeros((), operand.dtype), lo, [p[1] for p in pads],
                           [0] * rank)
        valid = pad_array(xp, self.backend, xp.ones(operand.shape, bool), xp.zeros((), bool), lo,
                          [p[1] for p in pads], [0] * rank)
        out_shape = tuple(source.shape)
        sel_val = sel_pos = None
        have = xp.zeros(out_shape, bool)
        select_region = op.regions[0]
        for k in itertools.product(*(range(w) for w in wdims)):
            index = tuple(slice(kk, kk + (o - 1) * s + 1, s) for kk, o, s in zip(k, out_shape, strides))
            cand, ok = padded[index], valid[index]
            pos = np.stack(np.broadcast_arrays(*(
                (np.arange(o) * s + kk - l).reshape([-1 if i == d else 1 for i in range(rank)])
                for d, (kk, o, s, l) in enumerate(zip(k, out_shape, strides, lo)))), axis=-1) if rank else \
                np.zeros((0,), np.int64)
            if sel_val is None:
                sel_val, sel_pos = cand, pos
                have = ok
                continue
            (keep,) = self.interp.eval_region(frame, select_region, [sel_val, cand])
            keep = self.host(keep).astype(bool)
            take = ok & (~have | ~keep)
            sel_val = xp.where(take, cand, sel_val)
            sel_pos = np.where(self.host(take)[..., None], pos, sel_pos)
            have = have | ok
        result = np.broadcast_to(self.host(init), operand.shape).copy()
        src = self.host(source)
        ok = self.host(have)
        targets = [tuple(p) for p in sel_pos.reshape(-1, rank)] if rank else [()]
        kind = binary_kind_region(op.regions[1])
        flat_src = src.reshape(-1)
        flat_ok = ok.reshape(-1)
        if kind == "add":
            idx = tuple(np.array([t[d] for t, g in zip(targets, flat_ok) if g], np.int64) for d in range(rank))
            np.add.at(result, idx, flat_src[flat_ok])
        else:
            for t, v, g in zip(targets, flat_src, flat_ok):
                if g:
                    (r,) = self.interp.eval_region(frame, op.regions[1], [self.backend.asarray(result[t]),
                                                                          self.backend.asarray(v)])
                    result[t] = self.host(r)
        return [self.cast(op, self.backend.asarray(result))]

    @impl("stablehlo.sort")
    def sort(self, frame, op, args):
        xp = self.xp
        dim = int_attr(op, "dimension", -1)
        if dim < 0:
            dim += args[0].ndim
        n = args[0].shape[dim] if args[0].ndim else 1
        region = op.regions[0]
        simple = _simple_comparator(region)
        moved = [xp.moveaxis(a, dim, -1) for a in args]
        if simple is not None:
            arg, descending, total = simple
            key = moved[arg]
            if total and np.dtype(key.dtype).kind == "f":
                from .elementwise import total_order_key

                key = total_order_key(xp, key)
            if descending:  # ~ reverses the order of integers (and booleans) without overflow
                key = -key if np.dtype(key.dtype).kind in "fc" else ~key
            order = self.backend.asarray(np.argsort(self.host(key), axis=-1, kind="stable"))
        elif n * n * max(1, int(np.prod(moved[0].shape[:-1]))) > 16_000_000:
            order = self.backend.asarray(self._sort_by_calls(frame, region, [self.host(m) for m in moved]))
        else:
            # rank of each element by the comparator, evaluated on every pair at once
            (less,) = self.interp.eval_region(frame, region, _interleave(moved))
            less = self.host(less).astype(bool)
            before = less.sum(axis=-2)  # elements j that come before i
            ties = ~less & ~np.swapaxes(less, -1, -2)
            earlier = np.tril(np.ones((n, n), bool), -1)  # j < i
            rank = before + (ties & earlier[..., :, :].T).sum(axis=-2)
            order = self.backend.asarray(np.argsort(rank, axis=-1, kind="stable"))
        out = [xp.take_along_axis(a, order, axis=-1) for a in moved]
        return [self.cast(op, xp.moveaxis(o, -1, dim), i) for i, o in enumerate(out)]

    def _sort_by_calls(self, frame, region, moved: list) -> np.ndarray:
        """The same ranks as the all-pairs path, computed block of rows by block of
        rows so memory stays bounded (the work is still n^2 comparator elements)."""
        n = moved[0].shape[-1]
        rows = max(1, int(np.prod(moved[0].shape[:-1])))
        block = max(1, 4_000_000 // max(1, n * rows))
        before = np.zeros(moved[0].shape, np.int64)
        for j0 in range(0, n, block):
            j1 = min(n, j0 + block)
            # less_ji[..., j, i] = comp(x_j, x_i) and less_ij[..., j, i] = comp(x_i, x_j) for j in the block
            args_ji, args_ij = [], []
            for m in moved:
                xj, xi = self.backend.asarray(m[..., j0:j1, None]), self.backend.asarray(m[..., None, :])
                args_ji += [xj, xi]
                args_ij += [xi, xj]
            (less_ji,) = self.interp.eval_region(frame, region, args_ji)
            (less_ij,) = self.interp.eval_region(frame, region, args_ij)
            less_ji = np.broadcast_to(self.host(less_ji).astype(bool), (*moved[0].shape[:-1], j1 - j0, n))
            less_ij = np.broadcast_to(self.host(less_ij).astype(bool), less_ji.shape)
            ties = ~less_ji & ~less_ij
            earlier = np.arange(j0, j1)[:, None] < np.arange(n)[None, :]
            before += less_ji.sum(axis=-2) + (ties & earlier).sum(axis=-2)
        return np.argsort(before, axis=-1, kind="stable")

    @impl("stablehlo.map")
    def map_(self, frame, op, args):
        res = self.interp.eval_region(frame, op.regions[0], list(args))
        return [self.cast(op, self.xp.broadcast_to(r, args[0].shape), i) for i, r in enumerate(res)]


def _interleave(moved: list) -> list:
    """Comparator arguments (lhs0, rhs0, lhs1, rhs1, ...) on every pair (i, j) of a sorted dimension."""
    out = []
    for a in moved:
        out += [a[..., :, None], a[..., None, :]]
    return out


def binary_kind_region(region) -> str | None:
    class _Op:  # binary_kind reads op.regions / op.attr only
        regions = [region]

        @staticmethod
        def attr(name):
            return None

    return binary_kind(_Op)  # type: ignore[arg-type]


def _simple_comparator(region) -> tuple[int, bool, bool] | None:
    """(operand index, descending, total order) when the comparator is one compare
    LT/GT of one operand's pair of arguments."""
    if not region.blocks:
        return None
    block = region.blocks[0]
    ops = block.operations
    if len(ops) != 2 or ops[0].name != "stablehlo.compare" or ops[1].name != "stablehlo.return":
        return None
    if ops[1].operands != [ops[0].results[0]]:
        return None
    direction = enum(ops[0], "comparison_direction")
    args = block.arguments
    a, b = ops[0].operands
    if a not in args or b not in args:
        return None
    i, j = args.index(a), args.index(b)
    if i // 2 != j // 2 or i == j or direction not in ("LT", "GT"):
        return None
    descending = (direction == "GT") == (i % 2 == 0)
    return i // 2, descending, enum(ops[0], "compare_type") == "TOTALORDER"


def _padding(op: Operation, rank: int) -> list[tuple[int, int]]:
    a = op.attr("padding")
    if a is None:
        return [(0, 0)] * rank
    vals = ints(op, "padding")
    return [(vals[2 * i], vals[2 * i + 1]) for i in range(rank)]
