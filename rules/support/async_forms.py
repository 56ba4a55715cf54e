"""The async forms' shared reading: seed 004's `async_start` (which collective its
body runs, what it allows there) and seed 002's generic `async<T>` form, and the
done's result types (rules/async_ops.py, rules/seed_forms.py)."""
from __future__ import annotations

from typing import Iterator

from shlo_lint.checker.ir.catalog import COLLECTIVE_KINDS, TERMINATORS
from shlo_lint.checker.ir.core import Block, Operation
from shlo_lint.checker.ir.types import FutureType
from shlo_lint.checker.lint.context import Context
from shlo_lint.checker.source.diagnostics import Diagnostic

from .shapes import fmt_types, op_label, unwrap_futures


ASYNC_START = "stablehlo.async_start"
ASYNC_DONE = "stablehlo.async_done"


# The spec's C2 lists six collectives and three slices; the StableHLO 1.20
# verifier also accepts collective_reduce (AsyncStartOp::inferReturnTypes).
ALLOWED_INNER = frozenset({*(f"stablehlo.{k}" for k in COLLECTIVE_KINDS), "stablehlo.slice", "stablehlo.dynamic_slice",
                           "stablehlo.dynamic_update_slice"})


def is_seed002(op: Operation) -> bool:
    """An async op written in seed 002's generic form (`async<T>` types)."""
    types = list(op.result_types) + list(op.operand_types if op.name == ASYNC_DONE else [])
    return any(isinstance(t, FutureType) and t.flavor == "async" for t in types)


def body(op: Operation) -> Block | None:
    if len(op.regions) != 1 or len(op.regions[0].blocks) != 1:
        return None
    return op.regions[0].blocks[0]


def body_ops(op: Operation) -> tuple[list[Operation], Operation | None]:
    """(the body's operations before its return, the return op or None)."""
    if not op.regions:
        return [], None
    ops = [o for b in op.regions[0].blocks for o in b.operations]
    if ops and ops[-1].name in TERMINATORS:
        return ops[:-1], ops[-1]
    return ops, None


def inner_op(op: Operation) -> Operation | None:
    """The one operation an async_start runs (None unless the body is well formed)."""
    ops, ret = body_ops(op)
    if body(op) is None or ret is None or len(ops) != 1:
        return None
    return ops[0]


# =========================================================================== async_done
def done_type_diags(op: Operation, ctx: Context, flavor: str) -> Iterator[Diagnostic]:
    """Operands are futures of `flavor`; their payloads, in order, are the result types."""
    name = op_label(op)
    operands = list(op.operand_types)
    for i, t in enumerate(operands):
        if t is not None and not (isinstance(t, FutureType) and t.flavor == flavor):
            want = "async<T>" if flavor == "async" else "!stablehlo.future<T>"
            yield ctx.error(op, f"{name}: operand {i} has type {t}, expected a future ({want})")
            return
    want = unwrap_futures(operands)
    got = list(op.result_types)
    if None in want or None in got or not operands:
        return
    if want != got:
        yield ctx.error(op, f"{name}: results {fmt_types(got)} do not match the future's payload "
                            f"{fmt_types(want)}")
