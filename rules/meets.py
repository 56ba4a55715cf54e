"""What meets inside one program (issue 23): collective executions that XLA's
runtime meets although they are different steps, and what each of them computes.

The deadlock analysis (checker/analysis/process_model/, memoised by
rules/support/verdict.py) lists them (`Verdict.meetings`, meets.py): ops of the
same kind, channel and device list in different branches, or one op at
different iterations of a loop. Three rules word them, each with the runtime
its words were measured on (corpus/meets, docs/hosts.md):

* SHLO506 (warning): the executions that meet compute differently: another
  reduction, other pairs, other operand types or dimensions;
* SHLO507 (info): they compute the same way on other operands (psum(v) meeting
  psum(2 v): one sum over both operands, well defined);
* SHLO508 (info): the k-th execution of one op on each process meets the k-th on
  its peers at another loop iteration (a pipeline's stages, by design or not).

SHLO502 ("completes only because XLA matches it") is left out where SHLO506
says more about the same op; SHLO507 and SHLO508 stand beside it (a program
may mean what they describe, and still depend on XLA's matching).
"""
from __future__ import annotations

from typing import Iterator

from shlo_lint.checker.lint.context import Context
from shlo_lint.checker.analysis.process_model import Verdict
from shlo_lint.checker.analysis.process_model.meets import Fingerprints, Meeting, Side, computes
from shlo_lint.checker.source.diagnostics import Diagnostic
from shlo_lint.checker.source.processes import processes_phrase
from shlo_lint.checker.ir import catalog
from shlo_lint.checker.ir.core import Operation
from shlo_lint.checker.lint.registry import rule
from shlo_lint.checker.analysis.tracer.structure import op_label

from .support.verdict import MODULE_OPS, VERDICT_REUSE, verdict

_LOOPS = catalog.names(regions=catalog.LOOP)
MAX_REPORTS = 8
"""Findings per rule and module."""

REDUCTIONS = {"add": "sum", "maximum": "maximum", "minimum": "minimum", "multiply": "product", "and": "and",
              "or": "or", "xor": "xor"}
"""How a reduction body's op is named in words."""

CPU_ALL_REDUCE = ("XLA:CPU (measured, corpus/meets/cond_data_psum_pmax): its all-reduce splits the buffer into one "
                  "chunk per participant, and participant r reduces chunk r with its own op's reduction and copies "
                  "it to all, so every process holds the same mixture, which neither op asks for; NCCL would be "
                  "handed two different reductions for one all-reduce (not run: no GPU here)")
CPU_PERMUTE = ("XLA:CPU (measured, corpus/meets/cond_parity_ppermute_orders): each process copies from the source "
               "its own op names, so every process gets its own op's data; NCCL pairs each send with a recv, so "
               "on GPUs the same program does not match (not run: no GPU here)")
SIZES = ("not measured inside one program; across processes gloo aborts when the sizes differ "
         "(corpus/hosts/different_shape: \"Received data size doesn't match expected size\")")
ONE_SUM = ("XLA:CPU (measured, corpus/meets/cond_lt4_psum_2v): cond(axis_index < 4, psum(v), psum(2 v)) gave every "
           "device one sum, v over devices 0-3 plus 2 v over devices 4-7")
PIPELINE = ("XLA matches collectives by kind, channel and process group, not by iteration: measured on XLA:CPU "
            "in corpus/meets/fori_pipeline_guarded (each stage's first permute received its predecessor's first "
            "send, its second the second, on 8 of 8 devices)")


def _line(ctx: Context, op: Operation) -> int:
    return ctx.source.line_col(op.span.start)[0]


def _who(side: Side, ctx: Context) -> str:
    if side.processes is None:
        return f"the processes that take {side.where}"
    grid = ctx.grid if ctx.grid.known else None
    P = grid.num_partitions if grid is not None else 1
    return processes_phrase([divmod(int(p), P) for p in side.processes.tolist()], 3)


def _pairs(v: Verdict) -> Iterator[tuple[Meeting, Side, Side]]:
    """Each pair of sides that meet, the side written first first."""
    for m in v.meetings:
        for i, j in m.groups_shared:
            a, b = m.sides[i], m.sides[j]
            if b.op.span.start < a.op.span.start:
                a, b = b, a
            yield m, a, b


def _case_of(m: Meeting) -> Operation | None:
    if m.data_dependent and m.sides[0].step is not None:
        for op, label in reversed(m.sides[0].step.context):
            if label.startswith("branch 0 (the branch index is per-device data"):
                return op
    return None


def _where_note(ctx: Context, diag: Diagnostic, m: Meeting, a: Side, b: Side, spec: bool = False) -> Diagnostic:
    case = _case_of(m)
    if case is not None:
        return diag.note(ctx.loc(case), f"this {op_label(case)}'s branch index is per-device data, and every branch "
                                        f"issues the same collectives: XLA meets them whichever branch each "
                                        f"process takes")
    diag = diag.note(ctx.loc(b.op), f"{_who(b, ctx)} run this {op_label(b.op)} ({b.where}) while {_who(a, ctx)} run "
                                    f"the one at line {_line(ctx, a.op)} ({a.where}); XLA matches them by kind, "
                                    f"channel and process group")
    if spec and a.op is not b.op:  # (SHLO502 says so where this rule does not supersede it)
        diag = diag.note(ctx.loc(a.op), "the StableHLO spec treats them as different collectives, which would wait "
                                        "forever; with different channels they hang on XLA too (SHLO502)")
    return diag


@rule("SHLO506", "collectives-meet-computing-differently", category="deadlock", severity="warning", on=MODULE_OPS,
      reuse=VERDICT_REUSE)
def collectives_meet_computing_differently(op: Operation, ctx: Context) -> Iterator[Diagnostic]:
    """Collectives that XLA meets across branches compute differently: another reduction, other pairs, other types.

    ## What it does
    Follows which collective executions XLA's runtime meets (kind, channel and
    process group: JAX gives every collective channel 1, so an op in each
    branch of a `cond` meets the other) and compares what they compute: the
    reduction, the pairs of a permute, the operand and result types, the
    dimensions. Reports a pair that differs, with what the runtime then does
    and where that was measured:

    * a `psum` meeting a `pmax`: XLA:CPU's all-reduce reduces chunk r of the
      buffer with participant r's reduction, so every process holds the same
      chunk-wise mixture of both (corpus/meets/cond_data_psum_pmax); NCCL
      would be handed two different reductions (not run: no GPU here);
    * permutes with different pairs: XLA:CPU gives each process its own op's
      data (corpus/meets/cond_parity_ppermute_orders); NCCL pairs each send
      with a recv, so on GPUs the same program does not match (not run);
    * different operand types or dimensions: not measured inside one program
      (across processes gloo aborts on different sizes: corpus/hosts).

    A branch whose index is per-device data is followed when every branch
    issues the same collectives (then XLA meets them whichever branch each
    device takes, and SHLO504 stays quiet): the ops of the branches are the
    ones compared.

    ## Why is this bad?
    Each device's code asks for one result and gets another: the mixture of a
    sum and a max is neither, and what happens depends on the runtime.

    ## Example
    ```mlir
    %r = "stablehlo.case"(%per_device) ({
      %m = "stablehlo.all_reduce"(%x) ({ ... stablehlo.maximum ... }) {channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, ...}
      stablehlo.return %m : tensor<1x4xf32>
    }, {
      %s = "stablehlo.all_reduce"(%x) ({ ... stablehlo.add ... }) {channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, ...}
      stablehlo.return %s : tensor<1x4xf32>
    }) : (tensor<i32>) -> tensor<1x4xf32>
    ```

    ## Use instead
    Run one collective on every device and choose per device what goes in or
    what comes out (`jnp.where(pred, lax.psum(x, "x"), lax.pmax(x, "x"))` runs
    both on every device).
    """
    v = verdict(ctx, op)
    if not isinstance(v, Verdict) or not v.meetings:
        return
    seen: set[tuple[int, int]] = set()
    for m, a, b in _pairs(v):
        if a.op is b.op or (id(a.op), id(b.op)) in seen or len(seen) >= MAX_REPORTS:
            continue
        ca, cb = computes(a.op), computes(b.op)
        diff = ca.differences(cb)
        if not diff:
            continue
        seen.add((id(a.op), id(b.op)))
        kind, other = op_label(a.op), _line(ctx, b.op)
        if "reduction" in diff and ca.kind == "all_reduce":
            msg = (f"this all_reduce ({_red(ca.reduce)}) meets the all_reduce at line {other} "
                   f"({_red(cb.reduce)}): XLA:CPU gives every process the same mixture of both")
            runtime = CPU_ALL_REDUCE
        elif "pairs" in diff:
            msg = (f"this {kind} meets the one at line {other}, which has other pairs: each process gets its own "
                   f"op's data on XLA:CPU")
            runtime = CPU_PERMUTE
        elif "operand types" in diff or "result types" in diff:
            ta = ", ".join(ca.operands) or "no operand"
            tb = ", ".join(cb.operands) or "no operand"
            msg = f"this {kind} of {ta} meets the {kind} at line {other} of {tb}: they exchange buffers of other sizes"
            runtime = SIZES
        else:
            what = " and ".join(diff)
            msg = f"this {kind} meets the {kind} at line {other}, whose {what} differ"
            runtime = "what the runtime then computes was not measured"
        diag = ctx.warning(a.op, msg, help="run one collective on every process and choose per process what goes "
                                           "in or what comes out (jnp.where), instead of a different op per branch")
        diag = _where_note(ctx, diag, m, a, b, spec=True)
        diag = diag.note(ctx.loc(a.op), f"they differ in {', '.join(diff)}: {runtime}")
        yield diag


def _red(name: str | None) -> str:
    if name is None:
        return "no reduction"
    if name.startswith("region:"):
        return "a reduction body of several ops"
    return name


@rule("SHLO507", "collectives-meet-with-other-operands", category="deadlock", severity="info", on=MODULE_OPS,
      reuse=VERDICT_REUSE)
def collectives_meet_with_other_operands(op: Operation, ctx: Context) -> Iterator[Diagnostic]:
    """Collectives that XLA meets across branches compute the same way on other operands: one result over both.

    ## What it does
    Reports two collective ops that meet (XLA's matching: kind, channel and
    process group, see SHLO506) and compute the same way, but on operands
    computed differently: `cond(axis_index < 4, psum(v), psum(2 v))` is *one*
    all-reduce over v on devices 0-3 and 2 v on devices 4-7. Measured on
    XLA:CPU (corpus/meets/cond_lt4_psum_2v): every device holds that one mixed
    sum, not the sum of its own branch's operand.

    ## Why is this bad?
    It is well defined, and a program may mean it; but each branch reads as if
    it summed its own operand over every device, which it does not.

    ## Example
    ```mlir
    %r = "stablehlo.case"(%idx) ({
      %a = "stablehlo.all_reduce"(%v) ({ ... add ... }) {channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, ...}
      stablehlo.return %a : tensor<1x4xf32>
    }, {
      %b = "stablehlo.all_reduce"(%v2) ({ ... add ... }) {channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, ...}
      stablehlo.return %b : tensor<1x4xf32>
    }) : (tensor<i32>) -> tensor<1x4xf32>
    ```

    ## Use instead
    Say it once: select the operand per device and run one collective outside
    the branch (`lax.psum(jnp.where(idx < 4, v, 2 * v), "x")`).
    """
    v = verdict(ctx, op)
    if not isinstance(v, Verdict) or not v.meetings:
        return
    prints = Fingerprints()
    seen: set[tuple[int, int]] = set()
    for m, a, b in _pairs(v):
        if a.op is b.op or (id(a.op), id(b.op)) in seen or len(seen) >= MAX_REPORTS:
            continue
        ca, cb = computes(a.op), computes(b.op)
        if ca.differences(cb) or prints.of(a.op) == prints.of(b.op):
            continue
        seen.add((id(a.op), id(b.op)))
        kind = op_label(a.op)
        msg = f"this {kind} meets the {kind} at line {_line(ctx, b.op)}, which has another operand: {_one(ca)}"
        diag = ctx.info(a.op, msg, help="select the operand per process and run one collective outside the branch, "
                                        "so the program says what it computes")
        diag = _where_note(ctx, diag, m, a, b)
        if ca.kind == "all_reduce":
            diag = diag.note(ctx.loc(a.op), ONE_SUM)
        yield diag


def _one(c) -> str:
    red = REDUCTIONS.get(c.reduce or "", "reduction")
    if c.kind == "all_reduce":
        return f"every process gets one {red} over both operands"
    if c.kind == "reduce_scatter":
        return f"each process gets its shard of one {red} over both operands"
    if c.kind == "collective_permute":
        return "each process receives its source's operand, whichever op the source runs"
    if c.kind == "collective_broadcast":
        return "every process receives the source's operand, whichever op the source runs"
    return "each process's piece comes from whichever op its peer runs"


@rule("SHLO508", "collective-meets-across-iterations", category="deadlock", severity="info", on=MODULE_OPS,
      reuse=VERDICT_REUSE)
def collective_meets_across_iterations(op: Operation, ctx: Context) -> Iterator[Diagnostic]:
    """One collective's executions meet at different loop iterations on different processes: the k-th with the k-th.

    ## What it does
    Reports a collective under a branch on `(loop counter, partition id)` that
    different processes run at different iterations (a pipeline whose stage s
    works at steps s..s+2): XLA's runtime meets the k-th execution on each
    process with the k-th on its peers, whatever the iteration. The analysis
    decides it exactly: when every process runs it the same number of times
    the program completes (this finding), otherwise the processes that run it
    more often wait forever (SHLO501). Measured on XLA:CPU
    (corpus/meets/fori_pipeline_guarded: each stage's j-th permute received its
    predecessor's j-th send; fori_pipeline_guarded_uneven: aborted after XLA's
    40 s rendezvous timeout).

    ## Why is this bad?
    A pipeline with bubbles may mean exactly this; a loop whose iterations are
    meant to exchange data with the same iteration on the peer does not: its
    data arrives from another iteration.

    ## Example
    ```mlir
    // in a while over the step t: stage s = partition_id permutes only at t in [s, s+3)
    %go = stablehlo.and %started, %not_done : tensor<i1>
    %r = "stablehlo.case"(%go_index) ({ ... }, {
      %p = "stablehlo.collective_permute"(%x) {source_target_pairs = dense<[[0, 1], [1, 2]]> : tensor<2x2xi64>, ...}
      stablehlo.return %p : tensor<1x1xf32>
    }) : (tensor<i32>) -> tensor<1x1xf32>
    ```

    ## Use instead
    If each iteration must meet the same iteration of its peers, run the
    collective on every process at every iteration and mask its data
    (`jnp.where(active, x, 0)`).
    """
    v = verdict(ctx, op)
    if not isinstance(v, Verdict) or not v.meetings:
        return
    seen: set[int] = set()
    for m, a, b in _pairs(v):
        if a.op is not b.op or id(a.op) in seen or len(seen) >= MAX_REPORTS:
            continue
        seen.add(id(a.op))
        ia, ib = _iteration(a), _iteration(b)
        kind = op_label(a.op)
        loop = ia[0] if ia is not None else (ib[0] if ib is not None else None)
        if loop is not None:
            where = f"at different iterations of the while at line {_line(ctx, loop)}"
        else:
            where = "at different places of the program"
        n = _ordinal(m.rank + 1)
        msg = f"the {n} execution of this {kind} on each process meets the {n} on its peers {where}"
        diag = ctx.info(a.op, msg, help="if each iteration must meet the same iteration of its peers, run the "
                                        "collective on every process at every iteration and mask its data")
        first_a = _first(a, ctx)
        first_b = _first(b, ctx)
        diag = diag.note(ctx.loc(a.op), f"{first_a} runs its {n} at {_label(ia)}, meeting the {n} of {first_b} at "
                                        f"{_label(ib)}")
        if loop is not None:
            diag = diag.note(ctx.loc(loop), PIPELINE)
        yield diag


def _first(side: Side, ctx: Context) -> str:
    if side.processes is None or not len(side.processes):
        return "a process"
    P = ctx.grid.num_partitions if ctx.grid.known else 1
    r, p = divmod(int(side.processes[0]), P)
    return f"process ({r}, {p})"


def _iteration(side: Side) -> tuple[Operation, str] | None:
    if side.step is None:
        return None
    for op, label in reversed(side.step.context):
        if op.name in _LOOPS:
            return op, label
    return None


def _label(it: tuple[Operation, str] | None) -> str:
    return it[1] if it is not None else "another place"


def _ordinal(n: int) -> str:
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"
