"""Issue orders that XLA's scheduler chooses (SPEC-NOTES §5, docs/deadlock.md).

XLA compiles every computation (the entry, each branch of a conditional, each
loop body; calls are inlined into their caller) and schedules it once: the
order of two collectives that do not depend on each other is the scheduler's
choice (the latency-hiding scheduler moves starts early and dones late; XLA:CPU
orders them by when their operands are ready). Processes that run the same
computation share its schedule; processes in different branches run
different schedules. So a program whose processes split over branches can
deadlock for an order the scheduler chooses even when the order written is
fine: `candidates` finds the pairs of issued collectives in one branch run
whose later one does not depend on the earlier one (what it needs in
between is plain computation that moves up with it), and
`variant` is the trace with that later one issued first (by the processes of
that run only), which the model then decides like any trace.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from ...ir.core import Operation
from ..semantics import control_predecessors
from ..tracer.structure import CASE_OPS as BRANCH_OPS, comm_role
from ..tracer.trace import ProcessClass, Step, Trace
from .model import Facts, key_of

ISSUES = ("collective", "start", "permute")
MAX_VARIANTS = 16
"""Reorders tried per program (each is one more decision of the model)."""
WINDOW = 8
"""How many earlier collectives of its block run each one is tried against."""


@dataclass(frozen=True)
class Reorder:
    """`second` may be issued before `first` by the processes of their run."""

    first: Step
    second: Step


def independent(first: Operation, second: Operation, positions: dict[int, dict[int, int]] | None = None) -> bool:
    """True when the scheduler may issue `second` before `first` (same block):
    nothing `second` needs, directly or through the ops between them, comes from
    `first`, and what it needs between them is plain computation (no
    communication, no region that may hold some), which moves up with it. What
    an op needs includes its control predecessors (HLO's `control-predecessors`:
    XLA's scheduler keeps those edges)."""
    block = second.parent
    if block is None or first.parent is not block:
        return False
    positions = {} if positions is None else positions
    pos = positions.get(id(block))
    if pos is None:
        pos = positions[id(block)] = {id(o): i for i, o in enumerate(block.operations)}
    ia, ib = pos.get(id(first)), pos.get(id(second))
    if ia is None or ib is None or ia >= ib:
        return False
    todo = [second]
    seen = {id(second)}
    while todo:
        op = todo.pop()
        owners = [v.owner if v is not None else None for v in op.operands]
        for owner in owners + control_predecessors(op):  # a control edge orders as a use does
            if not isinstance(owner, Operation) or id(owner) in seen:
                continue
            k = pos.get(id(owner))
            if k is None or k < ia:
                continue  # defined before `first` (or outside the block): ready either way
            if owner is first or owner.regions or comm_role(owner) is not None:
                return False
            seen.add(id(owner))
            todo.append(owner)
    return True


def candidates(tr: Trace, facts: Facts, limit: int = MAX_VARIANTS) -> list[Reorder]:
    """Pairs of collectives (different XLA matching keys) issued in one run of a
    block that only some processes run, which the scheduler may swap."""
    by_block: dict[int, list[Step]] = {}
    for st in tr.steps:
        if st.role in ISSUES and st.block >= 0:
            by_block.setdefault(st.block, []).append(st)
    out: list[Reorder] = []
    positions: dict[int, dict[int, int]] = {}
    for steps in by_block.values():
        if len(steps) < 2 or all(bool(s.mask.all()) for s in steps):
            continue  # every process runs this block: one schedule for all of them
        if not any(op.name in BRANCH_OPS for op, _label in steps[0].context):
            continue  # not inside a branch: every process that runs it runs the same computation
        for j in range(1, len(steps)):
            b = steps[j]
            ib = facts.info(b.op)
            if ib.problem or ib.invalid or ib.external:
                continue
            for i in range(max(0, j - WINDOW), j):
                a = steps[i]
                ia = facts.info(a.op)
                if ia.problem or ia.invalid or ia.external or key_of(ia, "xla") == key_of(ib, "xla"):
                    continue
                if independent(a.op, b.op, positions):
                    out.append(Reorder(a, b))
                    if len(out) >= limit:
                        return out
    return out


def variant(tr: Trace, r: Reorder) -> Trace:
    """The trace with `r.second` issued just before `r.first` in every run of
    their block (one computation has one schedule: every iteration of a loop
    around them, every process that runs them, gets the same order)."""
    runs: dict[int, list] = {}
    for st in tr.steps:
        if st.op is r.first.op or st.op is r.second.op:
            got = runs.setdefault(st.block, [None, None])
            k = 0 if st.op is r.first.op else 1
            if got[k] is None:
                got[k] = st.index
    hoist = {a: b for a, b in runs.values() if a is not None and b is not None and a < b}
    partner = {b: a for a, b in hoist.items()}
    classes = []
    for cls in tr.classes:
        have = set(cls.steps)
        if not any(a in have and b in have for a, b in hoist.items()):
            classes.append(cls)
            continue
        out = []
        for k in cls.steps:
            if k in partner and partner[k] in have:
                continue  # issued earlier, just before its partner
            b = hoist.get(k)
            if b is not None and b in have:
                out.append(b)
            out.append(k)
        classes.append(ProcessClass(cls.processes, out))
    return dataclasses.replace(tr, classes=classes)
