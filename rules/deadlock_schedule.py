"""SHLO505: a deadlock that depends on the issue order XLA's scheduler chooses.

The deadlock analysis (checker/deadlock/) decides the order written and the
orders XLA's scheduler may choose for collectives that do not depend on each
other inside a branch (deadlock/schedule.py). When some of those orders hang
and others complete, which one runs is the scheduler's heuristics' call:
XLA:CPU (jaxlib 0.10) issued two independent collectives in the order their
results are *used*, not the order written (docs/deadlock.md, "Measured against
XLA:CPU"). Such a program is reported here, as a warning; SHLO500 / SHLO501
keep the deadlocks of every order.
"""
from __future__ import annotations

from typing import Iterator

from shlo_lint.checker.lint.context import Context
from shlo_lint.checker.analysis.process_model import Verdict
from shlo_lint.checker.source.diagnostics import Diagnostic
from shlo_lint.checker.ir.core import Operation
from shlo_lint.checker.lint.registry import rule

from .deadlock import MODULE_OPS, _deadlock_diags, verdict


@rule("SHLO505", "deadlock-depends-on-schedule", category="deadlock", severity="warning", on=MODULE_OPS)
def deadlock_depends_on_schedule(op: Operation, ctx: Context) -> Iterator[Diagnostic]:
    """Processes hang in some issue orders XLA's scheduler may choose, and complete in others.

    ## What it does
    Reports a deadlock (a cycle of waits, or a peer that never arrives) that
    depends on the order in which processes issue two collectives that do not
    depend on each other, inside a branch that only some processes take. XLA
    schedules each branch of a conditional on its own, and its scheduler, not
    the order written, decides which of two independent collectives goes
    first. When one order hangs and another completes, the message names both:
    "in the order written; it completes when the all_reduce at line 18 is
    issued before the all_gather at line 16", or "in an issue order XLA's
    scheduler may choose: the all_gather at line 17 does not depend on the
    all_reduce at line 13 ...". A deadlock in every order is SHLO500 /
    SHLO501 (errors). Only with `deadlock-matching = "xla"` (the default).

    ## Why is this bad?
    Whether the job hangs is up to the compiler's heuristics: XLA:CPU issued
    two independent collectives in the order a later op *uses* their results,
    so swapping the operands of an `add` turned a completing program into a
    hang (docs/deadlock.md). A new XLA release, another backend or an
    unrelated edit can flip it.

    ## Example
    ```mlir
    %r = "stablehlo.if"(%first_half) ({
      %g = "stablehlo.all_gather"(%x) {...}      // independent of %a
      %a = "stablehlo.all_reduce"(%x) ({...}) {...}
      ...
    }, {
      %a = "stablehlo.all_reduce"(%x) ({...}) {...}
      %g = "stablehlo.all_gather"(%a) {...}      // needs %a: always second
      ...
    }) : (tensor<i1>) -> tensor<4xf32>
    ```

    ## Use instead
    Make every process issue the collectives in one order: run them outside
    the branch, or make the order a data dependence in every branch (the
    second collective takes a value computed from the first).
    """
    v = verdict(ctx, op)
    if isinstance(v, Verdict) and v.schedule_dependent:
        for kind in ("cycle", "missing-peer"):
            yield from _deadlock_diags(ctx, v, kind, warn=True)
