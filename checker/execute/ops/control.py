"""Control flow: while, case (an out-of-range index runs the last branch), if,
func.call and composite (its decomposition). Regions run in the same process
and may block (a collective inside a loop)."""
from __future__ import annotations

import numpy as np

from ...ir.core import callee
from ..op_registry import OpFunctions, impl, register
from ..values import ExecutionError


# ----------------------------------------------------------------------------- control flow
@register
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
        return (yield from self.interp.run_region(frame, op.regions[i], self._branch_args(op, i, args)))

    @impl("stablehlo.if", blocking=True)
    def if_(self, frame, op, args):
        i = 0 if self._scalar(args[0]) else 1
        return (yield from self.interp.run_region(frame, op.regions[i], self._branch_args(op, i, args)))

    @staticmethod
    def _branch_args(op, i: int, args) -> list:
        """The operands branch `i` takes. StableHLO's branches take none (they capture);
        HLO's `conditional` passes operand k+1 to branch k (the catalog's
        `branch_operands`), lowered to its leaves: each branch takes as many of the
        operands after the index as its region declares arguments, in branch order."""
        start = 1 + sum(len(r.blocks[0].arguments) for r in op.regions[:i] if r.blocks)
        region = op.regions[i]
        return list(args[start:start + (len(region.blocks[0].arguments) if region.blocks else 0)])

    @impl("func.call", "call", blocking=True)
    def call(self, frame, op, args):
        name = callee(op)
        func = self.interp.module.funcs.get(name or "")
        if func is None:
            raise ExecutionError(f"cannot execute: call to unknown function @{name}", op)
        return (yield from self.interp.call_function(frame, func, args))

    call._accepts_pending = True


    @impl("stablehlo.composite", blocking=True)
    def composite(self, frame, op, args):
        a = op.attr("decomposition")
        name = getattr(a, "root", None)
        func = self.interp.module.funcs.get(name or "")
        if func is None:
            raise ExecutionError(f"cannot execute: composite whose decomposition @{name} is not defined", op)
        return (yield from self.interp.call_function(frame, func, args))
