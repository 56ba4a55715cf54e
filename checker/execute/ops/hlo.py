"""XLA's HLO opcodes that the HLO front end keeps as `hlo.*` ops (checker/frontend/hlo/
opcodes.py: those with no StableHLO op of the same spelling), with HLO's semantics
(xla/hlo/ir/hlo_instruction.h, the operation semantics XLA documents). Their
attributes are read from the instruction behind the op (`op.instruction`, the
front end's syntax model), in HLO's own spelling:

* values passed through (the catalog's `forwards`): `tuple`, `get-tuple-element`,
  `copy` (a copy may change the layout, never the values); tuples are lowered to
  their leaves, so each result is its operand;
* `bitcast`: a reinterpretation of the buffer, so its meaning depends on both
  layouts: the operand read in its physical (major-to-minor) order, reshaped, and
  laid out as the result's layout says;
* `call` / `fusion`: run the computation they name (a private function), as
  `func.call`;
* `slice` (`slice={[start:limit:stride], ...}`), `transpose` (`dimensions` is the
  permutation), `concatenate`, `iota`, `dot` (`lhs_batch_dims`,
  `lhs_contracting_dims`, ...), `reduce` (inputs then inits, `dimensions`,
  `to_apply`: a private function), `gather` (its dimension numbers as attributes).

An `hlo.*` op that is in neither list stops the run with `cannot execute: op
hlo.<opcode>`, the unsupported answer of `shlo-lint run --engine interp`.
Communication (the async halves, send / recv, the tuple all-to-all) is in
execute/comm.py.
"""
from __future__ import annotations

import math

import numpy as np

from ...frontend.hlo import SliceRanges
from ...ir.core import callee
from ..op_registry import impl, register
from ..values import ExecutionError, dtype_of, is_float
from .common import ComputeFunctions
from .indexing import gathered
from .reduce import COMBINE, binary_kind_region

LETTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"


def instruction(op):
    """The HLO instruction an `hlo.*` op was lowered from."""
    ins = getattr(op, "instruction", None)
    if ins is None:
        raise ExecutionError(f"cannot execute: {op.name} without the HLO instruction it was read from", op)
    return ins


def dims_attr(op, name: str, default=None) -> list[int]:
    """An HLO integer-list attribute (`dimensions={1,0}`) of the op's instruction."""
    value = instruction(op).attr(name)
    if value is None and default is not None:
        return list(default)
    if not isinstance(value, tuple) or not all(isinstance(x, int) for x in value):
        raise ExecutionError(f"cannot execute: {op.name} without a readable `{name}`", op)
    return list(value)


def minor_to_major(shape, rank: int) -> list[int]:
    """The layout of an HLO shape, minor to major (major-to-minor when none is written)."""
    written = ((shape.layout if shape is not None else None) or "").split(":")[0]
    dims = [int(d) for d in written.split(",") if d.strip()]
    return dims if len(dims) == rank else list(range(rank))[::-1]


@register
class HloFunctions(ComputeFunctions):
    """HLO's own opcodes (see the module docstring)."""

    @impl("hlo.tuple", "hlo.get-tuple-element", "hlo.copy")
    def forward(self, frame, op, args):
        return list(args)

    forward._accepts_pending = True

    @impl("hlo.bitcast")
    def bitcast(self, frame, op, args):
        (a,) = args
        ins = instruction(op)
        source = ins.computation.instruction(ins.operands[0].name or "") if ins.operands else None
        t = self.interp.result_type(op)
        src_layout = minor_to_major(source.shape if source is not None else None, a.ndim)
        dst_layout = minor_to_major(ins.shape, len(t.shape))
        physical = self.xp.transpose(a, src_layout[::-1])  # the buffer, major to minor
        laid = self.xp.reshape(physical, tuple(t.shape[d] for d in dst_layout[::-1]))
        return [self.cast(op, self.xp.transpose(laid, list(np.argsort(dst_layout[::-1]))))]

    @impl("hlo.call", "hlo.fusion", blocking=True)
    def call(self, frame, op, args):
        name = callee(op)
        func = self.interp.module.funcs.get(name or "")
        if func is None:
            raise ExecutionError(f"cannot execute: {op.name} of unknown computation %{name}", op)
        return (yield from self.interp.call_function(frame, func, args))

    @impl("hlo.slice")
    def slice_(self, frame, op, args):
        (a,) = args
        ranges = instruction(op).attr("slice")
        if not isinstance(ranges, SliceRanges) or len(ranges.ranges) != a.ndim:
            raise ExecutionError(f"cannot execute: {op.name} without a readable `slice`", op)
        return [self.cast(op, a[tuple(slice(s, e, st) for s, e, st in ranges.ranges)])]

    @impl("hlo.transpose")
    def transpose(self, frame, op, args):
        return [self.cast(op, self.xp.transpose(args[0], dims_attr(op, "dimensions")))]

    @impl("hlo.concatenate")
    def concatenate(self, frame, op, args):
        (d,) = dims_attr(op, "dimensions")
        return [self.cast(op, self.xp.concatenate(list(args), axis=d))]

    @impl("hlo.iota")
    def iota(self, frame, op, args):
        shape = tuple(self.interp.result_type(op).shape)
        d = instruction(op).attr("iota_dimension", 0)
        ar = np.arange(shape[d]).reshape([-1 if i == d else 1 for i in range(len(shape))])
        return [self.cast(op, np.broadcast_to(ar, shape))]

    @impl("hlo.dot")
    def dot(self, frame, op, args):
        a, b = args
        lb, rb = dims_attr(op, "lhs_batch_dims", ()), dims_attr(op, "rhs_batch_dims", ())
        lc, rc = dims_attr(op, "lhs_contracting_dims", ()), dims_attr(op, "rhs_contracting_dims", ())
        la, lbs = [""] * a.ndim, [""] * b.ndim
        k = 0
        for pairs in (zip(lb, rb), zip(lc, rc)):
            for i, j in pairs:
                la[i] = lbs[j] = LETTERS[k]
                k += 1
        out = [la[i] for i in lb]
        for labels in (la, lbs):  # result: batch, lhs free, rhs free dimensions (XLA's order)
            for i, x in enumerate(labels):
                if not x:
                    labels[i] = LETTERS[k]
                    out.append(LETTERS[k])
                    k += 1
        a, b = self._accumulate(op, a, b)
        return [self.cast(op, self.xp.einsum(f"{''.join(la)},{''.join(lbs)}->{''.join(out)}", a, b))]

    def _accumulate(self, op, a, b):
        """The operands in the type the products are summed in: f32 for narrow floats,
        as XLA:CPU does; the result's type otherwise."""
        out = dtype_of(self.interp.result_type(op).element)
        if is_float(out) and out.itemsize < 4:
            return a.astype(np.float32), b.astype(np.float32)
        return a.astype(out), b.astype(out)

    @impl("hlo.reduce")
    def reduce(self, frame, op, args):
        n = len(args) // 2
        xs, inits = args[:n], args[n:]
        dims = tuple(sorted(dims_attr(op, "dimensions")))
        name = instruction(op).attr("to_apply")
        func = self.interp.module.funcs.get(getattr(name, "name", "") or "")
        if func is None:
            raise ExecutionError(f"cannot execute: {op.name} whose reducer is not a computation of the module", op)
        region = func.regions[0]
        kind = binary_kind_region(region)
        if kind is not None and n == 1:
            r = {"add": self.xp.sum, "multiply": self.xp.prod, "maximum": self.xp.max,
                 "minimum": self.xp.min}.get(kind)
            if r is not None:
                reduced = r(xs[0], axis=dims) if dims else xs[0]
                return [self.cast(op, COMBINE[kind](self.xp, inits[0], reduced))]
        # any other reducer: applied in order over the reduced elements, on whole arrays
        accs = [self.xp.broadcast_to(init, tuple(s for i, s in enumerate(xs[0].shape) if i not in dims))
                for init in inits]
        moved = [self.xp.moveaxis(x, dims, tuple(range(len(dims)))) if dims else x for x in xs]
        count = math.prod(xs[0].shape[d] for d in dims)
        vals = [self.xp.reshape(m, (count, *m.shape[len(dims):])) for m in moved]
        for k in range(count):
            accs = list(self.interp.eval_region(frame, region, [*accs, *(v[k] for v in vals)]))
        return [self.cast(op, acc, i) for i, acc in enumerate(accs)]

    @impl("hlo.gather")
    def gather(self, frame, op, args):
        operand, indices = args[0], self.host(args[1])
        ins = instruction(op)
        offset_dims = dims_attr(op, "offset_dims", ())
        collapsed = dims_attr(op, "collapsed_slice_dims", ())
        op_batch = dims_attr(op, "operand_batching_dims", ())
        idx_batch = dims_attr(op, "start_indices_batching_dims", ())
        index_map = dims_attr(op, "start_index_map", ())
        ivd = ins.attr("index_vector_dim", indices.ndim)
        sizes = dims_attr(op, "slice_sizes")
        return gathered(self, op, operand, indices, offset_dims, collapsed, op_batch, idx_batch, index_map, ivd,
                        sizes)
