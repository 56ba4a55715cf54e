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
from shlo_lint.checker.analysis.process_model import Blocked, Deadlock, Verdict
from shlo_lint.checker.analysis.process_model.lanes import Phrase, lanes
from shlo_lint.checker.analysis.process_model.schedule import independent
from shlo_lint.checker.source.diagnostics import Diagnostic, ProcessTrace, TraceStep
from shlo_lint.checker.source.processes import process_name, process_set, processes_phrase
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
    if step.op.module.front_end == "hlo":  # the opcode the line shows (`all-gather-start`)
        return op_label(step.op)
    kind = collective_kind(step.op)
    return f"{kind} start" if step.role == "start" else kind


def _line(ctx: Context, op: Operation) -> int:
    return ctx.source.line_col(op.span.start)[0]


def _proc(p: tuple[int, int]) -> str:
    return process_name(p)


def _procs(ps: list[tuple[int, int]], limit: int = 4) -> str:
    return process_set(ps, limit)


MAX_PEER_LANES = 4
"""Lanes for the processes that never arrive, after the blocked ones."""


def _with_where(what: str, step: Step | None) -> str:
    where = step.where() if step is not None else ""
    return f"{what} ({where})" if where else what


def _stories(d: Deadlock):
    """Each process's story for lanes.py: (process, what it did, its phrases), the
    blocked ones (the chain first) then the ones that never arrive."""
    by_proc = {b.process: b for b in d.blocked}
    in_chain = set(d.chain)  # a set: chains run to tens of thousands of processes
    order = [p for p in d.chain if p in by_proc] + [b.process for b in d.blocked if b.process not in in_chain]
    blocked = []
    for p in order:
        b = by_proc[p]
        shown = list(zip(b.completed, b.completed_phrases))[-MAX_STEPS:]
        key = ("blocked", b.step.index if b.step is not None else id(b.op), b.at_end,
               tuple(st.index for st in b.completed))
        what = b.what_phrase or Phrase(b.what.replace("{", "{{").replace("}", "}}"))
        blocked.append((p, key, tuple(ph for _s, ph in shown) + (what, b.waits_phrase or Phrase(""))))
    peers = []
    for peer in d.peers:
        shown = list(zip(peer.completed, peer.completed_phrases))[-MAX_STEPS:]
        peers.append((peer.process, ("peer", peer.state, tuple(st.index for st in peer.completed)),
                      tuple(ph for _s, ph in shown)))
    return by_proc, blocked, {peer.process: peer for peer in d.peers}, peers


def _traces(ctx: Context, d: Deadlock, grid_shape: tuple[int, int]) -> tuple[list[ProcessTrace], int]:
    """(traces, processes left out). Up to MAX_TRACES processes one trace each;
    more are worded as classes (lanes.py): one trace per class, its steps true for
    every member (`others`, `label`)."""
    by_proc, blocked, peer_of, peers = _stories(d)
    one_each = len(blocked) + len(peers) <= MAX_TRACES
    if one_each:  # every process its own lane: a key of its own
        blocked = [(p, (p, key), ph) for p, key, ph in blocked]
        peers = [(p, (p, key), ph) for p, key, ph in peers]
    blocked_lanes, left = lanes(blocked, grid_shape, len(blocked) if one_each else MAX_TRACES)
    peer_lanes, left_peers = lanes(peers, grid_shape, len(peers) if one_each else MAX_PEER_LANES)
    out: list[ProcessTrace] = []
    for lane in blocked_lanes:
        b = by_proc[lane.members[0]]
        shown = list(b.completed)[-MAX_STEPS:]
        texts = lane.texts
        steps = [TraceStep(ctx.loc(st.op), _with_where(text, st)) for st, text in zip(shown, texts)]
        steps.append(TraceStep(ctx.loc(b.op), _with_where(texts[len(shown)], b.step), blocked=True))
        waits = texts[len(shown) + 1]
        out.append(ProcessTrace(lane.members[0], tuple(steps), waits_for=f"waits for {waits}" if waits else "",
                                others=tuple(lane.members[1:]), label=lane.label if len(lane.members) > 1 else ""))
    for lane in peer_lanes:
        peer = peer_of[lane.members[0]]
        shown = list(peer.completed)[-MAX_STEPS:]
        steps = tuple(TraceStep(ctx.loc(st.op), _with_where(text, st)) for st, text in zip(shown, lane.texts))
        text = "finished without reaching it" if peer.state == "finished" else "stopped being followed (unresolved)"
        out.append(ProcessTrace(lane.members[0], steps, waits_for=text, others=tuple(lane.members[1:]),
                                label=lane.label if len(lane.members) > 1 else ""))
    return _link(out, d), left + left_peers


def _link(traces: list[ProcessTrace], d: Deadlock) -> list[ProcessTrace]:
    """Each trace's `waits_on`: the traces holding a process its members wait for."""
    lane_of: dict[tuple[int, int], int] = {}
    for i, t in enumerate(traces):
        for p in (t.process, *t.others):
            lane_of[p] = i
    by_proc = {b.process: b for b in d.blocked}
    out = []
    for t in traces:
        targets: set[int] = set()
        seen: set[int] = set()  # the members of a collective share their slots
        for p in (t.process, *t.others):
            b = by_proc.get(p)
            if b is None:
                continue
            slots = b.waits_phrase.slots if b.waits_phrase is not None else tuple((w.process,) for w in b.waits_for)
            for ps in slots:
                if id(ps) in seen:
                    continue
                seen.add(id(ps))
                targets.update(lane_of[q] for q in ps if q in lane_of)
        out.append(replace(t, waits_on=tuple(sorted(targets))))
    return out


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
    for proc, items in d.orders:  # where each issue order starts, and what follows
        if len(items) >= 2:
            first, then = items[0][0], items[1][0]
            diag = diag.note(ctx.loc(first.op), f"process {_proc(proc)} issues this {_issue(first)} first, then the "
                                                f"{_issue(then)} at line {_line(ctx, then.op)}")
    counted = _executions_note(ctx, primary)
    branch = counted or _branch_note(ctx, primary)
    if branch is not None:
        diag = diag.note(*branch)
    where = primary.step.where() if primary.step is not None else ""
    if where:  # which iteration or branch the processes hang in (a summarised loop: the iterations it stands for)
        diag = diag.note(ctx.loc(primary.op), f"blocked in {where}")
    for w in primary.waits_for[:1]:
        if w.need is not None and id(w.need) not in seen:
            diag = diag.note(ctx.loc(w.need), f"process {_proc(w.process)} would have to reach this "
                                              f"{op_label(w.need)}")
    return diag


def _same_trips(ctx: Context, primary: Blocked) -> bool:
    """The loops around the blocked op run the same number of times on every
    process (so what differs is how often the op runs inside them)."""
    v = ctx.cache.get(VERDICT_KEY)
    if not isinstance(v, Verdict) or v.trace is None or primary.step is None:
        return False
    for op, _label in primary.step.context:
        if op.name in _LOOPS and id(op) in v.trace.loops:
            if len(set(v.trace.loops[id(op)][1].tolist())) > 1:
                return False
    return True


def _executions_note(ctx: Context, primary: Blocked):
    """Where an op inside a loop that every process runs alike is run a
    different number of times (a branch on the loop counter and the process
    id): how often each process runs it, since the k-th execution on each meets
    the k-th on its peers (corpus/meets/fori_pipeline_guarded_uneven)."""
    v = ctx.cache.get(VERDICT_KEY)
    if not isinstance(v, Verdict) or v.trace is None or primary.step is None or not _same_trips(ctx, primary):
        return None
    loops = [op for op, _l in primary.step.context if op.name in _LOOPS]
    if not loops:
        return None
    tr = v.trace
    P = tr.grid.num_partitions
    by: dict[int, list[tuple[int, int]]] = {}
    for cls in tr.classes:
        k = sum(1 for i in cls.steps if tr.steps[i].op is primary.op)
        by.setdefault(k, []).extend(divmod(int(p), P) for p in cls.processes.tolist())
    if len(by) < 2:
        return None
    parts = [f"{_procs(sorted(ps), 3)} {_times(k)}" for k, ps in sorted(by.items())]
    return ctx.loc(primary.op), (f"every process runs the while at line {_line(ctx, loops[-1])} alike, but this "
                                 f"{op_label(primary.op)} runs " + "; ".join(parts[:4]) +
                                 ("; …" if len(parts) > 4 else "") + ": XLA meets each process's first execution "
                                 "with its peers' first, its second with their second, whatever the iteration")


def _times(k: int) -> str:
    return {0: "never", 1: "once", 2: "twice"}.get(k, f"{k} times")


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


def _help(ctx: Context, d: Deadlock, primary: Blocked) -> str:
    kind = catalog.base_kind(primary.op.name)
    facts = catalog.info(primary.op.name)
    in_branch = primary.step is not None and any(op.name in _BRANCHES for op, _ in primary.step.context)
    if d.orders:
        return "issue the collectives of a group in the same order on every process: XLA issues them (and async " \
               "starts) in program order, and each process's first collective meets the others' first, its second " \
               "their second; where the order is the scheduler's choice, run them outside the branch or make one " \
               "depend on the other"
    if d.kind == "cycle" and kind == "recv":
        return "send before receiving on at least one process of the ring (or use one collective_permute), " \
               "so the first recv has a send to take"
    if d.kind == "cycle" and primary.what.startswith("async_done") or \
            facts.role == catalog.DONE and facts.future in ("stablehlo", "hlo"):
        return "start every collective before waiting on any other one that its peers start later " \
               "(the same start/done order on every process)"
    if d.kind == "cycle" and facts.role in (catalog.COLLECTIVE, catalog.PERMUTE):
        return "every process of a group must reach its collectives in the same order (here the order " \
               "depends on the process id)"
    in_loop = primary.step is not None and any(op.name in _LOOPS for op, _ in primary.step.context)
    if in_loop and d.kind == "missing-peer" and _same_trips(ctx, primary):
        return "XLA meets each process's first execution of a collective with its peers' first, its second with " \
               "their second, whatever the iteration: every member of the group must run it the same number of times"
    if in_loop and d.kind == "missing-peer":
        return "the loop runs a different number of iterations on different processes: give every member " \
               "of the group the same trip count (or move the collective out of the loop)"
    if in_branch:
        return "every process of the group must reach the collective: move it out of the branch, or make the " \
               "branch condition the same on all of them (a lax.cond on axis_index runs it on some devices only)"
    if kind in catalog.KINDS and catalog.KINDS[kind].meets == catalog.POINT_TO_POINT or primary.at_end:
        return "every send needs a recv at its target with the same source and channel: the sends from one " \
               "process to another on a channel pair with that process's recvs from it in order (first with " \
               "first, second with second)"
    return "every process of a group must reach the same collectives in the same order"


def _replicas_note(ctx: Context, diag: Diagnostic, v: Verdict, op: Operation) -> Diagnostic:
    """A verdict decided on replica 0 of identical replicas says so: the processes
    it names stand for theirs in every replica."""
    if v.replicas <= 1:
        return diag
    return diag.note(ctx.loc(op), f"the {v.replicas:,} replicas never communicate with each other and run the same "
                                  f"steps: the processes named are replica 0's, and every replica r has the same "
                                  f"with (0, p) read as (r, p)")


def _scheduler_may_align(d: Deadlock) -> bool:
    """The crossed issues of some process are independent (their order is the
    scheduler's choice): the message must not suggest it always hangs."""
    for _p, items in d.orders:
        steps = [st for st, _t in items]
        if len(steps) >= 2 and steps[0].block == steps[1].block and independent(steps[0].op, steps[1].op):
            return True
    return False


MAX_CYCLE = 16
"""Processes of a cycle named in its note before "and N more"."""


def _short_what(b: Blocked) -> str:
    """The op a process is blocked at, with its peer for a send or recv: "recv from (0, 7)"."""
    label = op_label(b.op)
    if catalog.base_kind(b.op.name) in ("send", "recv") and b.what.startswith(label):
        return b.what.split(" on channel ")[0]
    return label


def _cycle_text(d: Deadlock, primary: Blocked, n: int) -> str:
    """The headline of a cycle: what and where, in one line (the chain goes to a note)."""
    chain = d.chain
    if len(chain) == 1:
        selves = [b.process for b in d.blocked if b.waits_for and all(w.process == b.process for w in b.waits_for)]
        if len(selves) > 1:
            return (f"deadlock: processes {_procs(selves, 3)} each wait at this {op_label(primary.op)} for an op "
                    f"later in their own program")
        return (f"deadlock: process {_proc(chain[0])} waits at this {op_label(primary.op)} for an op later in its "
                f"own program" + (f" ({n} processes blocked)" if n > 1 else ""))
    if d.orders:
        return (f"deadlock: {n} processes issue collectives in different orders; {_proc(primary.process)} hangs at "
                f"this {op_label(primary.op)}")
    extra = f" ({n} processes blocked)" if n > len(chain) else ""
    return (f"deadlock: {len(chain)} processes wait for each other in a cycle; process {_proc(primary.process)} "
            f"waits at this {_short_what(primary)}{extra}")


def _chain_note(d: Deadlock) -> str:
    names = [_proc(p) for p in d.chain]
    if len(names) > MAX_CYCLE:
        cyc = " → ".join(names[:MAX_CYCLE]) + f" → … and {len(names) - MAX_CYCLE} more → {names[0]}"
    else:
        cyc = " → ".join(names) + f" → {names[0]}"
    return f"the cycle of waits (each waits for the next): {cyc}"


def _missing_text(d: Deadlock, primary: Blocked) -> str:
    """The headline of a peer that never arrives: who waits where, and who never comes."""
    if primary.at_end:
        msg = f"deadlock: process {_proc(primary.process)} cannot finish: " + (
            primary.lacks or f"its {primary.what}")
    elif primary.lacks:
        msg = f"deadlock: process {_proc(primary.process)} hangs at this {op_label(primary.op)}: {primary.lacks}"
    else:
        here = [b for b in d.blocked if b.op is primary.op]
        never: dict[tuple[int, int], None] = {}
        seen: set[int] = set()
        states = set()
        for b in here:
            if id(b.never_arrive) not in seen:  # shared between the members of one collective
                seen.add(id(b.never_arrive))
                never.update(dict.fromkeys(b.never_arrive))
                states.update(b.never_states)
        who = _procs(sorted(never), 2) or "a peer"
        one = len(never) <= 1
        if states == {"finished"}:
            why = "finishes without reaching it" if one else "finish without reaching it"
        elif states == {"never"}:
            why = "never executes a matching op" if one else "never execute a matching op"
        else:
            why = "never reaches it" if one else "never reach it"
        waiting = processes_phrase([b.process for b in here], 2)
        msg = f"deadlock: {waiting} {'hangs' if len(here) == 1 else 'hang'} at this {op_label(primary.op)}; {who} {why}"
        return msg
    n = len(d.blocked)
    return msg + (f" ({n} processes blocked)" if n > 1 else "")


def _deadlock_diags(ctx: Context, v: Verdict, kind: str, warn: bool = False) -> Iterator[Diagnostic]:
    """The diagnostics of the verdict's deadlocks of one kind: errors (SHLO500,
    SHLO501), or warnings when the deadlock depends on the issue order XLA's
    scheduler chooses (`warn`, SHLO505). The headline says what and where; the
    chain of waits, the issue orders, the scheduler's part and the traces are
    notes."""
    more = v.stats.get("deadlock_groups", len(v.deadlocks)) - len(v.deadlocks)
    last = v.deadlocks[-1] if v.deadlocks else None
    shape = (ctx.grid.num_replicas or 1, ctx.grid.num_partitions or 1) if v.trace is None else \
        (v.trace.grid.num_replicas, v.trace.grid.num_partitions)
    for d in v.deadlocks:
        if d.kind != kind:
            continue
        by_proc = {b.process: b for b in d.blocked}
        primary = by_proc.get(d.chain[0]) if d.chain else None
        primary = primary or d.blocked[0]
        n = len(d.blocked)
        msg = _cycle_text(d, primary, n) if kind == "cycle" else _missing_text(d, primary)
        if v.replicas > 1:  # decided on replica 0 of identical replicas: say how many it stands for
            msg = msg.removesuffix(f" ({n} processes blocked)") + (
                f" ({n} in each of {v.replicas:,} replicas)")
        if v.matching == "spec":
            msg += " [spec matching]"
        if warn:
            msg = "schedule-dependent " + msg
        diag = (ctx.warning if warn else ctx.error)(primary.op, msg, help=_help(ctx, d, primary))
        if kind == "cycle" and len(d.chain) > 1:
            diag = diag.note(ctx.loc(primary.op), _chain_note(d))
        diag = _replicas_note(ctx, _notes(ctx, diag, d, primary), v, primary.op)
        if d.orders and v.schedule is None and v.completes_with is None and _scheduler_may_align(d) \
                and not primary.op.module.schedule_fixed:  # a scheduled module's order is XLA's choice, made
            diag = diag.note(ctx.loc(primary.op), "neither of the first two collectives depends on the other, so "
                                                  "XLA's scheduler chooses their order in each branch: it hangs "
                                                  "whenever the orders stay crossed, as written")
        if v.schedule is not None:
            a, b = v.schedule.first, v.schedule.second
            diag = diag.note(ctx.loc(b.op), f"XLA's scheduler may issue this {_issue(b)} before the {_issue(a)} at "
                                            f"line {_line(ctx, a.op)} (it does not depend on it), as the trace "
                                            f"shows, while the other processes keep their own order")
        if v.completes_with is not None:
            a, b = v.completes_with.first, v.completes_with.second
            diag = diag.note(ctx.loc(b.op), f"this deadlock is in the order written: issued before the {_issue(a)} "
                                            f"at line {_line(ctx, a.op)}, this {_issue(b)} completes (an order "
                                            f"XLA's scheduler may choose: neither depends on the other)")
        if d is last and more > 0:
            diag = diag.note(ctx.loc(primary.op), f"{more} more group{'s' if more != 1 else ''} of processes "
                                                  f"{'are' if more != 1 else 'is'} blocked elsewhere (not shown)")
        traces, left = _traces(ctx, d, shape)
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
      reuse=VERDICT_REUSE, front_ends=("stablehlo",), superseded_by=("SHLO506",))
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
        d = ctx.warning(b.op, f"this {op_label(b.op)} completes only because XLA matches collectives by kind and "
                              f"channel", help="run the program with -O deadlock-matching=spec for the spec's "
                                               "counterexample")
        d = d.note(ctx.loc(b.op), f"under the StableHLO spec's matching process {_proc(b.process)} waits forever here")
        yield _replicas_note(ctx, d, v, b.op)
    for m in v.xla_only:
        first = m.ops[0]
        others = ", ".join(f"line {_line(ctx, o)}" for o in m.ops[1:])
        procs = {id(o): ps for o, ps in ((o, m.processes.get(id(o), [])) for o in m.ops)}
        msg = f"this {op_label(first)} completes only because XLA matches it with the one at {others}"
        diag = ctx.warning(first, msg, help="select the operand per process and run one collective outside the "
                                            "branch; with different channels this hangs on XLA too")
        diag = diag.note(ctx.loc(first), f"XLA matches them by kind, {_channel_text(m.channel)} and process group; "
                                         f"the StableHLO spec treats them as different collectives, and "
                                         f"{processes_phrase(procs[id(first)])} would wait forever")
        for o in m.ops[1:]:
            diag = diag.note(ctx.loc(o), f"processes {_procs(procs[id(o)])} run this {op_label(o)} instead")
        yield _replicas_note(ctx, diag, v, first)


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
        yield ctx.info(where, f"deadlock analysis skipped: {v.reason}",
                       help="the per-process trace holds a value per process; raise the option "
                            "(-O max-processes=N) to run it")
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
