"""The other async forms the seed documents describe.

* Seed 002 (2024 RFC): a generic `async_start` whose body is any function
  `(T0, ..., TN-1) -> (R0, ..., RM-1)`, written with `%x as %arg0: T` operands, and
  results `async<Ri>`; `async_done` unwraps `async<T>` into `T`. Each op's C1 is
  that typing.
* Seed 004's alternative: a start/done pair per collective
  (`all_gather_start` ... `reduce_scatter_start`, `*_done`). The starts obey their
  collective's constraints (rules/collectives.py runs on them, reading the future's
  payload as the result type). All kinds share one future type, so
  `collective_permute_start` → `all_reduce_done` type-checks and is still wrong.
"""
from __future__ import annotations

from typing import Iterator

from shlo_lint.checker.lint.context import Context
from shlo_lint.checker.source.diagnostics import Diagnostic
from shlo_lint.checker.ir.core import Operation
from shlo_lint.checker.lint.registry import rule
from shlo_lint.checker.ir.catalog import COLLECTIVE_KINDS, DONE, START, base_kind, names
from shlo_lint.checker.ir.types import FutureType

from .support.shapes import body_argument_mismatches, fmt_types, op_label
from .support.async_forms import ASYNC_DONE, ASYNC_START, body_ops, done_type_diags, inner_op, is_seed002

# Seed 004's per-collective forms (six: it names none for collective_reduce).
DONE_OPS = tuple(sorted(names(role=DONE, seed_004=True)))
START_OPS = tuple(sorted(names(role=START, seed_004=True)))


# =========================================================================== seed 002
@rule("SHLO311", "async-body-signature-mismatch", on=ASYNC_START, spec="seed 002 async_start C1")
def async_body_signature_mismatch(op: Operation, ctx: Context) -> Iterator[Diagnostic]:
    """A generic (seed 002) async_start's types disagree with its body's function type.

    ## What it does
    Checks seed 002's async_start C1: the body has type `(T0, ..., TN-1) ->
    (R0, ..., RM-1)` where `type(operand[i]) == Ti` and `type(results[i]) ==
    async<Ri>`. Runs only on starts written in that form (results `async<...>`).

    ## Why is this bad?
    The body would read operands of another type than it declares, or the done
    would unwrap values of another type than the body returns.

    ## Example
    ```mlir
    %future = "stablehlo.async_start"(%init_i as %arg0: tensor<i64>, %init_sum as %arg1: tensor<i64>) {
        %new_sum = stablehlo.add %arg1, %arg0 : tensor<i64>
        stablehlo.return %new_sum : tensor<i64>
    } : (tensor<i64>, tensor<i64>) -> async<tensor<i32>>
    ```

    ## Use instead
    `-> async<tensor<i64>>`: the payload is what the body returns.
    """
    if not is_seed002(op):
        return
    if op.regions and op.regions[0].blocks:
        args = op.regions[0].blocks[0].arguments
        operand_types = list(op.operand_types)
        yield from body_argument_mismatches(ctx, op, args, operand_types)
        if len(args) != len(operand_types):
            return
    results = list(op.result_types)
    for i, t in enumerate(results):
        if not (isinstance(t, FutureType) and t.flavor == "async"):
            yield ctx.error(op, f"async_start: result {i} has type {t}, expected async<R{i}>")
            return
    _ops, ret = body_ops(op)
    if ret is None:
        return
    returned = list(ret.operand_types)
    if len(returned) != len(results):
        yield ctx.error(op, f"async_start: the body returns {len(returned)} value(s) but the start has "
                            f"{len(results)} result(s)")
        return
    for i, (r, t) in enumerate(zip(returned, results)):
        if r is not None and tuple(t.types) != (r,):  # type: ignore[union-attr]
            yield ctx.error(op, f"async_start: result {i} has type {t}, but the body returns {r}; expected "
                                f"async<{r}>")


@rule("SHLO312", "async-done-unwrap-mismatch", on=ASYNC_DONE, spec="seed 002 async_done C1")
def async_done_unwrap_mismatch(op: Operation, ctx: Context) -> Iterator[Diagnostic]:
    """A generic (seed 002) async_done does not return the `T` of each `async<T>` it takes.

    ## What it does
    Checks seed 002's async_done C1: `type(operand) == (async<T0>, ..., async<TN>)`
    and `type(result) == (T0, ..., TN)`. Runs only on dones written with `async<...>`.

    ## Why is this bad?
    The values handed on would have another type than the computation produced.

    ## Example
    ```mlir
    %result = "stablehlo.async_done"(%future) : async<tensor<i64>> -> tensor<f32>
    ```

    ## Use instead
    `: async<tensor<i64>> -> tensor<i64>`.
    """
    if not is_seed002(op):
        return
    yield from done_type_diags(op, ctx, "async")


# =========================================================================== seed 004 alternative
def _started_kind(op: Operation) -> str | None:
    """Which collective a start op (per-kind start, or async_start) runs."""
    if op.name in START_OPS:
        return base_kind(op.name)
    if op.name == ASYNC_START:
        inner = inner_op(op)
        if inner is not None:
            kind = base_kind(inner.name)
            return kind if kind in COLLECTIVE_KINDS else None
    return None


@rule("SHLO321", "start-done-kind-mismatch", on=DONE_OPS, spec="seed 004 start/done pairing")
def start_done_kind_mismatch(op: Operation, ctx: Context) -> Iterator[Diagnostic]:
    """A `*_done` completes a future started by a different kind of collective.

    ## What it does
    Follows each operand of `all_gather_done` ... `reduce_scatter_done` to the op
    that defined it; when that is `X_start` (or an `async_start` running `X`) and
    X is not the done's own collective, reports it. Seed 004 notes that every
    collective returns the same future type, so this is well-typed but wrong.
    Futures that arrive through block arguments are not followed.

    ## Why is this bad?
    The runtime waits for a different operation than the one started: the
    collective is never completed (its buffers are never released) and the done
    blocks or returns garbage.

    ## Example
    ```mlir
    %future = "stablehlo.collective_permute_start"(%operand) {source_target_pairs = dense<[[0, 1], [1, 2]]> : tensor<2x2xi64>, channel_handle = #stablehlo.channel_handle<handle = 0, type = 0>} : (tensor<2x2xi64>) -> future<tensor<2x2xi64>>
    %result = "stablehlo.all_reduce_done"(%future) : (future<tensor<2x2xi64>>) -> tensor<2x2xi64>
    ```

    ## Use instead
    `"stablehlo.collective_permute_done"(%future)`.
    """
    want = base_kind(op.name)
    for v in op.operands:
        start = v.defining_op if v is not None else None
        if start is None:
            continue
        got = _started_kind(start)
        if got is not None and got != want:
            yield (ctx.error(op, f"{op_label(op)}: completes a future started by {op_label(start)} "
                                 f"({got}); use {got}_done")
                   .note(ctx.loc(start), f"the {got} is started here"))


@rule("SHLO322", "collective-done-type-mismatch", on=DONE_OPS, spec="seed 004 done typing")
def collective_done_type_mismatch(op: Operation, ctx: Context) -> Iterator[Diagnostic]:
    """A `*_done` does not return the payload `T` of the `future<T>` it takes.

    ## What it does
    Checks seed 004's done ops: "A done op takes a `future<T>` as an argument
    and returns a `T`." (When the start returns tensors instead of futures, the
    RFC's "tensors instead of futures" alternative, the done returns the same type.)

    ## Why is this bad?
    The unwrapped value would have another type than the collective produced.

    ## Example
    ```mlir
    %result = "stablehlo.collective_permute_done"(%future) : (future<tensor<2x2xi64>>) -> tensor<4x2xi64>
    ```

    ## Use instead
    `-> tensor<2x2xi64>`.
    """
    operands = list(op.operand_types)
    if operands and all(t is not None and not isinstance(t, FutureType) for t in operands):
        results = list(op.result_types)
        if None not in results and results != operands:
            yield ctx.error(op, f"{op_label(op)}: results {fmt_types(results)} differ from the started "
                                f"value's type {fmt_types(operands)}")
        return
    yield from done_type_diags(op, ctx, "stablehlo")


__all__ = ["DONE_OPS", "START_OPS"]
