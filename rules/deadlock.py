"""Deadlocks (SPEC-NOTES §5): can every process run the program to completion?

One analysis per module (checker/analysis/process_model/, its verdict memoised
by rules/support/verdict.py), five rules reading it:

* SHLO500: processes wait for each other in a cycle;
* SHLO501: a process waits for a peer that never arrives;
* SHLO502: a collective completes only because XLA matches collectives by kind
  and channel (the spec would hang);
* SHLO503: the analysis could not decide (a value it could not resolve, a limit);
* SHLO505: a deadlock that depends on the issue order XLA's scheduler chooses.
  The analysis decides the order written and the orders XLA's scheduler may
  choose for collectives that do not depend on each other inside a branch
  (process_model/schedule.py). When some of those orders hang and others
  complete, which one runs is the scheduler's heuristics' call: XLA:CPU (jaxlib
  0.10) issued two independent collectives in the order their results are
  *used*, not the order written (docs/deadlock.md, "Measured against XLA:CPU").
  Such a program is reported as a warning; SHLO500 / SHLO501 keep the deadlocks
  of every order.

Options (`-O key=value` or `[tool.shlo-lint.options]`): `deadlock-matching`
(`xla`, the default, or `spec`), `external-channels`, `z3-timeout-ms`,
`deadlock-timeout-ms`, `deadlock-max-trips`, `deadlock-max-steps`,
`deadlock-max-events`, `deadlock-core-limit`, `max-processes` (see
docs/deadlock.md).
"""
from __future__ import annotations

from dataclasses import replace
from typing import Iterator

from shlo_lint.checker.lint.context import Context
from shlo_lint.checker.analysis.process_model import Blocked, Deadlock, Peer, Verdict
from shlo_lint.checker.analysis.process_model.schedule import independent
from shlo_lint.checker.source.diagnostics import Diagnostic, ProcessTrace, TraceStep
from shlo_lint.checker.ir import catalog
from shlo_lint.checker.ir.core import Operation
from shlo_lint.checker.lint.registry import rule
from shlo_lint.checker.analysis.tracer.trace import Step
from shlo_lint.checker.analysis.tracer.structure import collective_kind, op_label
from .support.verdict import MODULE_OPS, VERDICT_KEY, VERDICT_REUSE, verdict


_BRANCHES = catalog.names(regions=catalog.BRANCHES)
_LOOPS = catalog.names(regions=catalog.LOOP)
MAX_TRACES = 8
"""Processes (beyond that: classes of processes with the same story) shown per
deadlock; the ones left out are counted in a note ("and N more processes")."""
MAX_STEPS = 6
"""Completed steps shown before the blocked one, per process."""


def _issue(step: Step) -> str:
    kind = collective_kind(step.op)
    return f"{kind} start" if step.role == "start" else kind


def _line(ctx: Context, op: Operation) -> int:
    return ctx.source.line_col(op.span.start)[0]


def _proc(p: tuple[int, int]) -> str:
    return f"({p[0]}, {p[1]})"


def _procs(ps: list[tuple[int, int]], limit: int = 4) -> str:
    names = [_proc(p) for p in ps]
    if len(names) <= limit:
        return ", ".join(names)
    return ", ".join(names[: limit - 1]) + f" and {len(names) - limit + 1} more"


def _step_text(ctx: Context, step: Step) -> str:
    where = step.where()
    return f"{op_label(step.op)}" + (f" ({where})" if where else "")


def waits_text(b: Blocked, limit: int = 3) -> str:
    """What a blocked process waits for, peers with the same story grouped:
    "processes (0, 1), (0, 2) and 5 more to reach this collective; they finished ..."."""
    groups: dict[str, list[tuple[int, int]]] = {}
    for w in b.waits_for:
        template = w.text.replace(f"process {_proc(w.process)}", "{who}", 1)
        groups.setdefault(template, []).append(w.process)
    parts = []
    for template, ps in list(groups.items())[:limit]:
        if len(ps) == 1:
            parts.append(template.replace("{who}", f"process {_proc(ps[0])}"))
        else:
            text = template.replace("{who}", f"processes {_procs(ps)}")
            for one, many in (("; it finished", "; they finished"), ("; it never executes", "; they never execute"),
                              ("; it is blocked", "; they are blocked"), ("; it stopped", "; they stopped")):
                text = text.replace(one, many)
            parts.append(text)
    if len(groups) > limit:
        parts.append(f"and {len(groups) - limit} more")
    if b.waits_more:
        parts.append(f"and {b.waits_more} more process{'es' if b.waits_more != 1 else ''} of the group")
    return "; ".join(parts)


def _trace_of(ctx: Context, b: Blocked) -> ProcessTrace:
    shown = list(zip(b.completed, b.completed_what))[-MAX_STEPS:]
    steps = [TraceStep(ctx.loc(s.op), _with_where(what, s)) for s, what in shown]
    steps.append(TraceStep(ctx.loc(b.op), _with_where(b.what, b.step), blocked=True))
    waits = waits_text(b)
    return ProcessTrace(b.process, tuple(steps), waits_for=f"waits for {waits}" if waits else "")


def _with_where(what: str, step: Step | None) -> str:
    where = step.where() if step is not None else ""
    return f"{what} ({where})" if where else what


def _peer_trace(ctx: Context, peer: Peer) -> ProcessTrace:
    """A process that never arrives: what it did instead."""
    shown = list(zip(peer.completed, peer.completed_what))[-MAX_STEPS:]
    steps = tuple(TraceStep(ctx.loc(s.op), _with_where(what, s)) for s, what in shown)
    text = "finished without reaching it" if peer.state == "finished" else "stopped being followed (unresolved)"
    return ProcessTrace(peer.process, steps, waits_for=text)


def _traces(ctx: Context, d: Deadlock) -> tuple[list[ProcessTrace], int]:
    """(traces, processes left out). Up to MAX_TRACES processes one trace each;
    more are grouped into classes with the same story (the same ops completed,
    blocked at the same op), one trace per class naming its members (`others`)."""
    by_proc = {b.process: b for b in d.blocked}
    in_chain = set(d.chain)  # a set: chains run to tens of thousands of processes
    order = [p for p in d.chain if p in by_proc] + [b.process for b in d.blocked if b.process not in in_chain]
    if len(order) <= MAX_TRACES:
        out = [_trace_of(ctx, by_proc[p]) for p in order]
        left = 0
    else:
        classes: dict[tuple, list[tuple[int, int]]] = {}
        for p in order:
            b = by_proc[p]
            classes.setdefault((id(b.op), tuple(id(s.op) for s in b.completed)), []).append(p)
        groups = list(classes.values())
        out = [replace(_trace_of(ctx, by_proc[ps[0]]), others=tuple(ps[1:])) for ps in groups[:MAX_TRACES]]
        left = sum(len(ps) for ps in groups[MAX_TRACES:])
    peer_classes: dict[tuple, list[Peer]] = {}
    for peer in d.peers:
        peer_classes.setdefault((peer.state, tuple(id(s.op) for s in peer.completed)), []).append(peer)
    for members in list(peer_classes.values())[:2]:
        trace = _peer_trace(ctx, members[0])
        out.append(replace(trace, others=tuple(m.process for m in members[1:])) if len(members) > 1 else trace)
    left += sum(len(m) for m in list(peer_classes.values())[2:])
    return out, left


def _notes(ctx: Context, diag: Diagnostic, d: Deadlock, primary: Blocked) -> Diagnostic:
    seen = {id(primary.op)}
    if primary.hint is not None:  # the near miss first: it says more than "blocked here"
        op, text = primary.hint
        diag = diag.note(ctx.loc(op), text)
        seen.add(id(op))
    for b in d.blocked:
        if id(b.op) in seen:
            continue
        seen.add(id(b.op))
        diag = diag.note(ctx.loc(b.op), f"process {_proc(b.process)} is blocked here, at {b.what}")
        if len(seen) > 4:
            break
    for proc, items in d.orders:  # where each issue order starts (the message lists them)
        if len(items) >= 2:
            first, then = items[0][0], items[1][0]
            diag = diag.note(ctx.loc(first.op), f"process {_proc(proc)} issues this {_issue(first)} first, then the "
                                                f"{_issue(then)} at line {_line(ctx, then.op)}")
    branch = _branch_note(ctx, primary)
    if branch is not None:
        diag = diag.note(*branch)
    for w in primary.waits_for[:1]:
        if w.need is not None and id(w.need) not in seen:
            diag = diag.note(ctx.loc(w.need), f"process {_proc(w.process)} would have to reach this "
                                              f"{op_label(w.need)}")
    return diag


def _branch_note(ctx: Context, primary: Blocked):
    """Where the processes split: the innermost case/if around the blocked op."""
    v = ctx.cache.get(VERDICT_KEY)
    if not isinstance(v, Verdict) or v.trace is None or primary.step is None:
        return None
    P = v.trace.grid.num_partitions
    for op, _label in reversed(primary.step.context):
        if op.name in _LOOPS and id(op) in v.trace.loops:
            counts = v.trace.loops[id(op)][1]
            by: dict[int, list[tuple[int, int]]] = {}
            for p, k in enumerate(counts.tolist()):
                by.setdefault(k, []).append(divmod(p, P))
            if len(by) < 2:
                continue
            parts = [f"{k} time{'s' if k != 1 else ''} on {_procs(ps, 3)}" for k, ps in sorted(by.items())]
            return ctx.loc(op), ("this while iterates " + "; ".join(parts[:4]) + ("; …" if len(parts) > 4 else "") +
                                 " (its trip count depends on the process id)")
        if op.name in _BRANCHES:
            split = v.trace.branch_of(op)
            if not split or len(split) < 2:
                return None
            parts = [f"{_procs([divmod(p, P) for p in ps], 3)} to branch {b}" for b, ps in sorted(split.items())]
            return ctx.loc(op), (f"this {op_label(op)} sends " + "; ".join(parts) +
                                 " (its index depends on the process id)")
    return None


def _help(d: Deadlock, primary: Blocked) -> str:
    kind = op_label(primary.op)
    in_branch = primary.step is not None and any(op.name in _BRANCHES for op, _ in primary.step.context)
    if d.orders:
        return "issue the collectives of a group in the same order on every process: XLA issues them (and async " \
               "starts) in program order, and the k-th collective of each process meets the k-th of the others; " \
               "where the order is the scheduler's choice, run them outside the branch or make one depend on the other"
    if d.kind == "cycle" and kind == "recv":
        return "send before receiving on at least one process of the ring (or use one collective_permute), " \
               "so the first recv has a send to take"
    if d.kind == "cycle" and primary.what.startswith("async_done") or kind.endswith("_done"):
        return "start every collective before waiting on any other one that its peers start later " \
               "(the same start/done order on every process)"
    if d.kind == "cycle" and primary.what.split(" ")[0] in catalog.COLLECTIVE_KINDS:
        return "every process of a group must reach its collectives in the same order (here the order " \
               "depends on the process id)"
    in_loop = primary.step is not None and any(op.name in _LOOPS for op, _ in primary.step.context)
    if in_loop and d.kind == "missing-peer":
        return "the loop runs a different number of iterations on different processes: give every member " \
               "of the group the same trip count (or move the collective out of the loop)"
    if in_branch:
        return "every process of the group must reach the collective: move it out of the branch, or make the " \
               "branch condition the same on all of them (a lax.cond on axis_index runs it on some devices only)"
    if kind in catalog.KINDS and catalog.KINDS[kind].meets == catalog.POINT_TO_POINT or primary.at_end:
        return "every send needs a recv at its target with the same source, channel and order (the n-th send " \
               "s→t pairs with the n-th recv at t from s)"
    return "every process of a group must reach the same collectives in the same order"


def _scheduler_may_align(d: Deadlock) -> bool:
    """The crossed issues of some process are independent (their order is the
    scheduler's choice): the message must not suggest it always hangs."""
    for _p, items in d.orders:
        steps = [st for st, _t in items]
        if len(steps) >= 2 and steps[0].block == steps[1].block and independent(steps[0].op, steps[1].op):
            return True
    return False


MAX_CYCLE = 16
"""Processes of a cycle named in the message before "and N more"."""


def _cycle_text(d: Deadlock, primary: Blocked, n: int, where: str) -> str:
    chain = d.chain
    if len(chain) == 1:
        selves = [b.process for b in d.blocked if b.waits_for and all(w.process == b.process for w in b.waits_for)]
        if len(selves) > 1:
            who = f"processes {_procs(selves, MAX_CYCLE)} each wait"
        else:
            who = f"process {_proc(chain[0])} waits"
        extra = f" ({n} processes blocked)" if n > len(selves) and n > 1 else ""
        return (f"deadlock: {who} for {'themselves' if len(selves) > 1 else 'itself'} at this "
                f"{primary.what}{where}: the op {'each' if len(selves) > 1 else 'it'} waits for comes later in "
                f"its own program{extra}")
    names = [_proc(p) for p in chain]
    if len(names) > MAX_CYCLE:
        cyc = " → ".join(names[:MAX_CYCLE]) + f" → … and {len(names) - MAX_CYCLE} more → {names[0]}"
    else:
        cyc = " → ".join(names) + f" → {names[0]}"
    size = f"{len(chain)} processes wait for each other in a cycle"
    if n > len(chain):  # more processes are caught in it than the shortest chain of waits names
        everyone = [b.process for b in d.blocked]
        size = f"{n} processes wait for each other ({_procs(everyone, MAX_CYCLE)})"
    return f"deadlock: {size}; process {_proc(primary.process)} is blocked at this {primary.what}{where}; waits: {cyc}"


def _deadlock_diags(ctx: Context, v: Verdict, kind: str, warn: bool = False) -> Iterator[Diagnostic]:
    """The diagnostics of the verdict's deadlocks of one kind: errors (SHLO500,
    SHLO501), or warnings when the deadlock depends on the issue order XLA's
    scheduler chooses (`warn`, SHLO505)."""
    more = v.stats.get("deadlock_groups", len(v.deadlocks)) - len(v.deadlocks)
    last = v.deadlocks[-1] if v.deadlocks else None
    for d in v.deadlocks:
        if d.kind != kind:
            continue
        by_proc = {b.process: b for b in d.blocked}
        primary = by_proc.get(d.chain[0]) if d.chain else None
        primary = primary or d.blocked[0]
        n = len(d.blocked)
        where = primary.step.where() if primary.step is not None else ""
        where = f" ({where})" if where else ""
        if kind == "cycle":
            msg = _cycle_text(d, primary, n, where)
        else:
            missing = [w for w in primary.waits_for if w.state in ("finished", "never")]
            who = _procs([w.process for w in missing]) or "a peer"
            if missing and primary.waits_more:  # the waits were cut: count the whole group
                total = len(missing) + primary.waits_more
                who = ", ".join(_proc(w.process) for w in missing[:3]) + f" and {total - 3} more"
            one = len(missing) <= 1
            noun = "recv" if primary.at_end else "send" if op_label(primary.op) == "recv" else ""
            if noun:  # point-to-point: name the op the peer lacks
                why = (f"{'has' if one else 'have'} no matching {noun} (the n-th {noun} of the pair on that "
                       f"channel)" + (f"; {'it finishes' if one else 'they finish'} without one"
                                      if all(w.state == "finished" for w in missing) else ""))
                who = ("process " if one else "processes ") + who if missing else who
            else:
                why = ("finishes without reaching it" if one else "finish without reaching it") \
                    if all(w.state == "finished" for w in missing) else \
                    ("never executes a matching op" if one else "never execute a matching op")
            if primary.at_end:
                msg = (f"deadlock: process {_proc(primary.process)} cannot finish: this {primary.what}{where}; "
                       f"{who} {why}")
            else:
                msg = (f"deadlock: process {_proc(primary.process)} waits forever at this {primary.what}{where}: "
                       f"{who} {why}")
            if n > 1:
                msg += f" ({n} processes blocked)"
        if d.orders:
            msg += "; issue orders differ: " + "; ".join(
                f"{_proc(p)} issues " + ", then ".join(text for _s, text in items) for p, items in d.orders)
            if v.schedule is None and v.completes_with is None and _scheduler_may_align(d):
                msg += (" (neither of the first two depends on the other, so XLA's scheduler chooses their order "
                        "in each branch: it hangs whenever the orders stay crossed, as written)")
        if v.schedule is not None:
            a, b = v.schedule.first, v.schedule.second
            msg += (f" — in an issue order XLA's scheduler may choose: the {_issue(b)} at line {_line(ctx, b.op)} "
                    f"does not depend on the {_issue(a)} at line {_line(ctx, a.op)}, so the schedule of the "
                    f"processes that run them may issue it first (as shown) while the others keep their own order")
        if v.completes_with is not None:
            a, b = v.completes_with.first, v.completes_with.second
            msg += (f" — in the order written; it completes when the {_issue(b)} at line {_line(ctx, b.op)} is "
                    f"issued before the {_issue(a)} at line {_line(ctx, a.op)}, an order XLA's scheduler may choose "
                    f"(neither depends on the other)")
        if v.matching == "spec":
            msg += " [spec matching]"
        if d is last and more > 0:
            msg += f" (and {more} more group{'s' if more != 1 else ''} of processes blocked elsewhere, not shown)"
        if warn:
            msg = "schedule-dependent " + msg
        diag = (ctx.warning if warn else ctx.error)(primary.op, msg, help=_help(d, primary))
        diag = _notes(ctx, diag, d, primary)
        traces, left = _traces(ctx, d)
        if left:
            diag = diag.note(ctx.loc(primary.op), f"and {left} more process{'es' if left != 1 else ''} "
                                                  "not shown in the trace")
        yield diag.with_trace(traces)


@rule("SHLO500", "deadlock-wait-cycle", category="deadlock", on=MODULE_OPS, reuse=VERDICT_REUSE)
def deadlock_wait_cycle(op: Operation, ctx: Context) -> Iterator[Diagnostic]:
    """Processes wait for each other in a cycle, so none of them can continue.

    ## What it does
    Runs the whole program on every process of the grid (per-process traces
    through `case`/`if`/`while`/`func.call`, values that depend on
    `partition_id`/`replica_id` folded per process) and decides whether it can
    run to completion. Reports a set of processes each blocked at a
    communication op waiting for another member of the set: a recv-before-send
    ring, collectives reached in different orders by different processes, async
    collectives started in different orders. XLA issues every collective a
    process runs, synchronous or the start of an async one, in program order,
    and the k-th collective of each member of a group meets the k-th of the
    others (the default `deadlock-matching = "xla"`): the message then shows
    both issue orders. A deadlock that depends on the order XLA's scheduler
    picks for two collectives that do not depend on each other (it hangs in
    some orders and completes in others) is SHLO505, a warning, not this
    error. The text output prints each process's
    trace (what it completed, where it is blocked, what it waits for); JSON and
    SARIF carry the same trace, one SARIF thread flow per process.

    ## Why is this bad?
    The job hangs with no error: every device waits for another one.

    ## Example
    ```mlir
    // every process receives from its left neighbour before sending to its right one
    %r:2 = "stablehlo.recv"(%tok) {source_target_pairs = dense<[[0, 1], [1, 2], [2, 3], [3, 0]]> : tensor<4x2xi64>,
                                   channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>} : ...
    %s = "stablehlo.send"(%x, %r#1) {source_target_pairs = dense<[[0, 1], [1, 2], [2, 3], [3, 0]]> : tensor<4x2xi64>,
                                     channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>} : ...
    ```

    ## Use instead
    Send first, then receive (a send does not wait for its recv), or use one
    `collective_permute`.

    ## Options
    `deadlock-matching = "xla" | "spec"` (how collectives on different
    processes are matched, see SHLO502), `z3-timeout-ms`,
    `deadlock-timeout-ms`; docs/deadlock.md lists them all.
    """
    v = verdict(ctx, op)
    if isinstance(v, Verdict) and not v.schedule_dependent:
        yield from _deadlock_diags(ctx, v, "cycle")


@rule("SHLO501", "deadlock-peer-never-arrives", category="deadlock", on=MODULE_OPS, reuse=VERDICT_REUSE)
def deadlock_peer_never_arrives(op: Operation, ctx: Context) -> Iterator[Diagnostic]:
    """A process waits for a peer that never gets there: a collective reached by part of its group, a recv with no send, a send never received.

    ## What it does
    Same analysis as SHLO500. Reports a process blocked at a collective some
    members of its process group never reach (a branch on `partition_id` or
    `replica_id`, a loop whose trip count differs by process), at a recv whose
    matching send never happens (wrong pairs, wrong channel, one send too few),
    or unable to finish because a send of its is never received. The n-th send
    from s to t pairs with the n-th recv at t from s on the same channel.

    ## Why is this bad?
    The waiting device hangs forever; the others finish or hang at the next
    collective. This is what `lax.cond(axis_index(...) == 0, psum, ...)` does:
    only device 0 enters the all_reduce.

    ## Example
    ```mlir
    %p = stablehlo.partition_id : tensor<ui32>
    %is0 = stablehlo.compare EQ, %p, %c0, UNSIGNED : (tensor<ui32>, tensor<ui32>) -> tensor<i1>
    %r = "stablehlo.if"(%is0) ({
      %s = "stablehlo.all_reduce"(%x) ({...}) {replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>,
                                               channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>} : ...
      stablehlo.return %s : tensor<4xf32>
    }, { stablehlo.return %x : tensor<4xf32> }) : (tensor<i1>) -> tensor<4xf32>
    ```

    ## Use instead
    Run the collective on every process and select its result:
    `jnp.where(axis_index == 0, psum(x), x)`.

    Device-to-device sends and recvs name devices of this program in their
    `source_target_pairs`, so their peers are matched here: a send no recv
    takes, a recv no send feeds, a pair written on different channels are
    each reported. Host transfers (`is_host_transfer = true`) talk to the host,
    and channels declared with `external-channels` (`-O external-channels=1,3`,
    or `external-channels = [1, 3]` under `[tool.shlo-lint.options]`) talk to
    another program (an MPMD pipeline stage): neither is matched.
    """
    v = verdict(ctx, op)
    if isinstance(v, Verdict) and not v.schedule_dependent:
        yield from _deadlock_diags(ctx, v, "missing-peer")


@rule("SHLO502", "collective-matched-only-by-xla", category="deadlock", severity="warning", on=MODULE_OPS,
      reuse=VERDICT_REUSE, front_ends=("stablehlo",))
def collective_matched_only_by_xla(op: Operation, ctx: Context) -> Iterator[Diagnostic]:
    """Collectives at different ops complete only because XLA matches them by kind and channel.

    ## What it does
    Reports collectives that different processes reach at *different* ops (an
    all_reduce in each branch of a `case`) which complete on XLA because its
    runtime matches collectives by kind, channel id and process group (every
    op without a positive channel shares one key: two channel-less
    all_reduces over the same replicas meet wherever they are), while the
    StableHLO spec treats each op as its own collective and would hang.
    Only with `deadlock-matching = "xla"` (the default); with `"spec"` such
    programs are reported as deadlocks (SHLO500/SHLO501). Not run on HLO text
    (`front_ends`): HLO has no semantics but XLA's, in which collectives meet
    by kind, channel and group (on GPU, by communicator and order), so there
    is no other reading to warn against.

    ## Why is this bad?
    The program depends on an XLA implementation detail: give the two ops
    different channels (or run it on another runtime) and it hangs.

    ## Example
    ```mlir
    %r = "stablehlo.case"(%idx) ({
      %a = "stablehlo.all_reduce"(%x) ({...}) {channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, ...}
      stablehlo.return %a : tensor<4xf32>
    }, {
      %b = "stablehlo.all_reduce"(%y) ({...}) {channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, ...}
      stablehlo.return %b : tensor<4xf32>
    }) : (tensor<i32>) -> tensor<4xf32>
    ```

    ## Use instead
    Select the operand per process, then run one all_reduce outside the branch.
    """
    v = verdict(ctx, op)
    if not isinstance(v, Verdict) or v.status == "deadlock":
        return
    if v.spec_deadlocks and not v.xla_only:  # matched by XLA in a way we cannot name an op pair for
        b = v.spec_deadlocks[0].blocked[0]
        yield ctx.warning(b.op, f"this {op_label(b.op)} completes on XLA only because XLA matches collectives by "
                                f"kind and channel; under the StableHLO spec's matching process "
                                f"{_proc(b.process)} waits forever here",
                          help="run the program with -O deadlock-matching=spec for the spec's counterexample")
    for m in v.xla_only:
        first = m.ops[0]
        others = ", ".join(f"line {_line(ctx, o)}" for o in m.ops[1:])
        procs = {id(o): ps for o, ps in ((o, m.processes.get(id(o), [])) for o in m.ops)}
        msg = (f"this {op_label(first)} completes on XLA only because XLA matches it with the {op_label(first)} at "
               f"{others} (same kind, {_channel_text(m.channel)} and process group); the StableHLO spec treats them as "
               f"different collectives, and processes {_procs(procs[id(first)])} would wait forever")
        diag = ctx.warning(first, msg, help="select the operand per process and run one collective outside the "
                                            "branch; with different channels this hangs on XLA too")
        for o in m.ops[1:]:
            diag = diag.note(ctx.loc(o), f"processes {_procs(procs[id(o)])} run this {op_label(o)} instead")
        yield diag


def _channel_text(channel: int | None) -> str:
    # XLA gives every op without a positive channel the same key: "no channel" is the match
    return f"channel {channel}" if (channel or 0) > 0 else "no channel"


@rule("SHLO503", "deadlock-undecided", category="deadlock", severity="info", on=MODULE_OPS,
      reuse=replace(VERDICT_REUSE, final=False),  # (undecided may be a time limit's: the next run may decide)
      superseded_by=("SHLO504",))
def deadlock_undecided(op: Operation, ctx: Context) -> Iterator[Diagnostic]:
    """The deadlock analysis could not decide, and says why.

    ## What it does
    Reports when the analysis of SHLO500/SHLO501 ends with neither a proof nor
    a counterexample: a branch index or trip count that depends on data (not
    only on the process id) guards communication, a loop runs more than
    `deadlock-max-trips` iterations, the time limit (`deadlock-timeout-ms`,
    `z3-timeout-ms`) or a size limit ran out, replica groups in a form it does
    not read. Points at the op it could not get past. Stays quiet where
    SHLO504 warns about the same branch or loop (its per-device decision is
    why the analysis stopped, and the warning says so with more detail).

    ## Why is this bad?
    Nothing is known to be wrong; nothing is proven either.

    ## Example
    ```mlir
    %r = "stablehlo.if"(%data_dependent) ({ ... all_reduce ... }, { ... })
    ```

    ## Use instead
    Make the predicate depend only on the process id or constants, or raise
    the limit the message names (`-O deadlock-max-trips=100000`).
    """
    v = verdict(ctx, op)
    if v is None:
        return
    if isinstance(v, str):
        yield ctx.info(op, f"deadlock analysis not run: {v}")
        return
    if v.status != "unknown" or v.reason == "the process grid is unknown" or v.invalid_only:
        return
    where = v.unresolved[0].op if v.unresolved else op
    if v.skipped:
        yield ctx.info(where, f"deadlock analysis skipped: {v.reason}")
        return
    yield ctx.info(where, f"deadlock analysis undecided: {v.reason}")


@rule("SHLO505", "deadlock-depends-on-schedule", category="deadlock", severity="warning", on=MODULE_OPS,
      reuse=VERDICT_REUSE)
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
