"""Issue order: where an async collective waits for its peers, and which order
the processes issue their collectives in (docs/execution.md, "Issue order").

XLA's runtime (the deadlock analysis models the same: analysis/process_model/model.py,
ISSUE_ORDER; docs/deadlock.md says where it was read in openxla/xla and what
ran on XLA:CPU) puts every collective a process issues, synchronous or the
start of an async one, onto that process's communication stream in program
order; the k-th collective a process issues on a group meets the k-th of every
other member. So under matching "xla" (the default) an async start
(`async_start`, `*_start`) is an issue point: it blocks until every member of
its group has issued the matching start, and its done then completes at once.
Under matching "spec" (the StableHLO spec's reading) a start never blocks and
its done waits for the peers.

Which order a process issues two independent collectives in is, on XLA, its
scheduler's choice (one schedule per computation). The deadlock analysis names
an order it found that hangs (`Verdict.schedule`: `second` issued before
`first`); `reordered` gives a block's ops in that order so the interpreter
(`--confirm`'s replay, `shlo-lint run` when asked) runs it.
"""
from __future__ import annotations

from typing import Iterator

from ..ir.core import Block, Operation
from .runtime import Wait
from .values import ExecutionError, Future


def waits_at_start(matching: str) -> bool:
    """True when an async start waits for its peers where it is issued (XLA's runtime)."""
    return matching == "xla"


def issue(fut: Future, at: Operation) -> Iterator[Wait]:
    """Block at the start `at` until the started collective can complete: every
    member has issued its matching start (a permute: its source has issued its
    send). The done then finds the future ready."""
    if fut.wait is not None and not fut.wait.ready():
        fut.wait.op = at
        yield fut.wait


def _captured(op: Operation) -> Iterator:
    """Every value `op` reads: its operands and the values its regions use from outside."""
    yield from op.operands
    for region in op.regions:
        for block in region.blocks:
            for inner in block.operations:
                yield from _captured(inner)


def reordered(block: Block, first: Operation, second: Operation) -> list[Operation]:
    """The block's ops with `second` issued just before `first`: `second` and the
    plain computation it needs between the two move up together (the static
    analysis only names pairs where nothing of that depends on `first`:
    analysis/process_model/schedule.py, `independent`). ExecutionError when the pair
    is not such a pair of this block."""
    ops = list(block.operations)
    pos = {id(o): i for i, o in enumerate(ops)}
    ia, ib = pos.get(id(first)), pos.get(id(second))
    if ia is None or ib is None or ia >= ib:
        raise ExecutionError(f"cannot replay the issue order: {second.name} does not follow {first.name} in one "
                             "block", second)
    need = {id(second)}
    todo = [second]
    while todo:
        op = todo.pop()
        for v in _captured(op):
            owner = getattr(v, "owner", None)
            k = pos.get(id(owner)) if isinstance(owner, Operation) else None
            if k is None or k < ia or k > ib or id(owner) in need:
                continue
            if owner is first:
                raise ExecutionError(f"cannot replay the issue order: {second.name} depends on {first.name}",
                                     second)
            need.add(id(owner))
            todo.append(owner)
    window = ops[ia:ib + 1]
    moved = [o for o in window if id(o) in need]
    return ops[:ia] + moved + [o for o in window if id(o) not in need] + ops[ib + 1:]


def scheduler_order(module, grid, analysis_options: dict | None = None) -> tuple[Operation, Operation] | None:
    """(first, second): an issue order XLA's scheduler may choose in which the
    program hangs although the order written completes (the deadlock analysis's
    Verdict.schedule: every process that runs their block issues `second` before
    `first`), or None. `analysis_options` are the lint's `-O` options. Only a
    program with communication under control flow can have one: others are not
    analysed (the check reads op names only)."""
    from ..analysis.process_model import analyze
    from ..analysis.tracer.structure import structure

    opts = dict(analysis_options or {})
    if str(opts.get("deadlock-matching", "xla")).lower() != "xla":
        return None
    struct = structure(module)
    if struct.uniform or not grid.known:
        return None
    try:
        v = analyze(module, grid, opts, struct=struct)
    except ValueError:  # a bad option: `check` reports it
        return None
    r = getattr(v, "schedule", None)
    return None if r is None else (r.first.op, r.second.op)


def describe(interp_where, reorder: tuple[Operation, Operation]) -> str:
    """The note a run in the scheduler's order carries."""
    first, second = reorder
    return (f"issue order: {second.name} at {interp_where(second)} issued before {first.name} at "
            f"{interp_where(first)} by every process that runs their block, an order XLA's scheduler may choose "
            "(neither depends on the other) in which the deadlock analysis finds a hang; the order as written "
            "completes (`--issue-order written` runs it)")
