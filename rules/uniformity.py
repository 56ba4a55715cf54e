"""Per-device data guarding communication (uniformity, docs/uniformity.md).

SHLO504 reads the deadlock analysis' trace (rules/deadlock.py computes it once
per module): the branches and loops whose index or trip count the tracer found
to be per-device data that can split a communicator they guard
(`analysis.uniform.Divergence`).
"""
from __future__ import annotations

from typing import Iterator

from shlo_lint.checker.lint.context import Context
from shlo_lint.checker.analysis.process_model import Verdict
from shlo_lint.checker.source.diagnostics import Diagnostic
from shlo_lint.checker.ir.core import Operation
from shlo_lint.checker.lint.registry import rule
from shlo_lint.checker.analysis.tracer.structure import op_label
from shlo_lint.checker.source.processes import process_set

from .support.verdict import MODULE_OPS, VERDICT_REUSE, verdict

MAX_REPORTS = 16
"""Findings per module (one per branch / loop op)."""


def _procs(ids, grid, limit: int = 4) -> str:
    return process_set([grid.unflat(int(i)) for i in ids], limit)


@rule("SHLO504", "communication-guarded-by-per-device-data", category="deadlock", severity="warning",
      on=MODULE_OPS, reuse=VERDICT_REUSE)
def communication_guarded_by_per_device_data(op: Operation, ctx: Context) -> Iterator[Diagnostic]:
    """A branch or loop that guards communication decides on per-device data: it may deadlock.

    ## What it does
    Follows which values are the same on every process of a group: constants,
    inputs replicated across it (a JAX argument outside `shard_map`, a
    `shard_map` input not split along the mapped axes), the results of
    all_reduce / all_gather / collective_broadcast, and anything computed only
    from those. Reports a `case`/`if` index or a `while` predicate that is not
    the same on every member of a process group (or send/recv pair) it guards,
    and names where the per-device data comes from: the argument and its
    sharding, or the op. A branch or loop decided by a value that *is* uniform
    over every group it guards is proven deadlock-free for every value instead
    (every member takes the same branch, runs the same trip count).

    ## Why is this bad?
    When the data differs between devices, some members of the group enter the
    collective and others do not: the ones inside wait forever. XLA:CPU aborts
    ("Expected 8 threads to join the rendezvous, but not all of them arrived");
    NCCL hangs. Whether it happens depends on the data, so tests pass until it
    does.

    ## Example
    `lax.while_loop(lambda c: c[1] > tol, step, ...)` inside `shard_map`, where
    `c[1]` is this device's own error and `step` runs a psum:
    ```mlir
    %w:2 = stablehlo.while(%it = %x, %err = %local_err) : tensor<4xf32>, tensor<f32>
    cond {
      %go = stablehlo.compare GT, %err, %tol, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      stablehlo.return %go : tensor<i1>
    } do {
      %s = "stablehlo.all_reduce"(%it) ({...}) {replica_groups = dense<[[0, 1, 2, 3, 4, 5, 6, 7]]> : tensor<1x8xi64>, ...}
      ...
    }
    ```

    ## Use instead
    Decide on a value every device shares: reduce it first
    (`lax.pmax(err, "x") > tol`, an all_reduce in the cond region), or pass the
    predicate replicated (`in_specs=P()`).
    """
    v = verdict(ctx, op)
    if not isinstance(v, Verdict) or v.trace is None:
        return
    grid = v.trace.grid
    seen: set[int] = set()
    for d in v.trace.divergent:
        if id(d.op) in seen or len(seen) >= MAX_REPORTS:
            continue
        seen.add(id(d.op))
        comm = d.guarded
        verb = "leave the loop at different iterations" if d.what == "trip count" else "take different branches"
        msg = (f"this {op_label(d.op)} may deadlock: its {d.what} depends on per-device data, around the "
               f"{op_label(comm)} at line {ctx.source.line_col(comm.span.start)[0]}")
        diag = ctx.warning(d.op, msg, help=("decide on a value every process of the group shares: reduce it "
                                            "first (lax.pmax(err, axis) > tol) or pass it replicated"))
        diag = diag.note(ctx.loc(d.op), f"its {d.what} depends on {d.text()}, which can differ between processes "
                                        f"{_procs(d.group, grid)}; if they {verb}, the ones inside wait forever")
        diag = diag.note(ctx.loc(comm), f"processes {_procs(d.group, grid)} meet here only if all of them get here")
        for o in d.origins:
            if o.op is not None and o.op is not d.op:
                diag = diag.note(ctx.loc(o.op), f"the per-device data: {o.text}")
                break
        yield diag
