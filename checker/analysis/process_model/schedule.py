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
that run only), which the model then decides like any trace. A module whose
text is the schedule (a scheduled HLO module: ir.core.Module.schedule_fixed)
is run in that order: its steps are never candidates.

Two runs of one computation get one schedule wherever they are: blocks whose
text is the same computation (value names and locations aside: the two branches
of a `cond` whose functions are alike, the same step traced on two hosts) are
*twins* (`computation_digest`), and a reorder applies to every twin at once.
XLA's scheduler is deterministic, so it orders alike computations alike:
measured in corpus/meets/cond_identical_branches_control (both branches issue
the permute then the psum in the compiled HLO) and corpus/hosts, where the two
hosts' schedules agreed wherever their computations did.
"""
from __future__ import annotations

import dataclasses
import hashlib
from dataclasses import dataclass

from ...ir.core import Operation
from ..semantics import control_predecessors
from ..tracer.structure import CALL_OPS, CASE_OPS as BRANCH_OPS, call_target, comm_role, func_name
from ..tracer.trace import ProcessClass, Step, Trace
from .meets import normalized
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
    twins: tuple[tuple[object, object], ...] = ()
    """The same two ops of every twin computation (see the module docstring):
    (first op, second op) pairs reordered with them."""

    def pairs(self) -> tuple[tuple[object, object], ...]:
        return ((self.first.op, self.second.op),) + self.twins


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
        # A module whose text fixes the issue order (ir.core.Module.schedule_fixed: a
        # scheduled HLO module) runs that order: nothing of it is reordered.
        if st.role in ISSUES and st.block >= 0 and not st.op.module.schedule_fixed:
            by_block.setdefault(st.block, []).append(st)
    out: list[Reorder] = []
    positions: dict[int, dict[int, int]] = {}
    digests: dict[int, str] = {}
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
                    out.append(Reorder(a, b, twins_of(tr, a.op, b.op, digests)))
                    if len(out) >= limit:
                        return out
    return out


def twins_of(tr: Trace, first: Operation, second: Operation, digests: dict[int, str]) -> tuple:
    """The (first, second) ops at the same places of every other block of the
    trace that is the same computation as theirs (computation_digest)."""
    block = first.parent
    if block is None:
        return ()
    mine = _digest_of(block, digests)
    ia, ib = block.operations.index(first), block.operations.index(second)
    out = []
    seen = {id(block)}
    for st in tr.steps:
        other = st.op.parent
        if other is None or id(other) in seen or not isinstance(st.op, Operation):
            continue
        seen.add(id(other))
        if len(other.operations) == len(block.operations) and _digest_of(other, digests) == mine:
            out.append((other.operations[ia], other.operations[ib]))
    return tuple(out)


def _digest_of(block, digests: dict[int, str]) -> str:
    got = digests.get(id(block))
    if got is None:
        got = digests[id(block)] = computation_digest(block)
    return got


def computation_digest(block, _funcs: dict[str, str] | None = None) -> str:
    """A digest of the computation a block is: its ops' text with value names,
    locations and HLO metadata left out, and the computations of the functions it
    calls (XLA inlines them), so that two blocks with the same digest are
    scheduled alike."""
    ops = block.operations
    if not ops:
        return "empty"
    module = ops[0].module
    text = module.source.text
    h = hashlib.blake2b(digest_size=8)
    h.update(normalized(text[ops[0].span.start:ops[-1].span.end]).encode("utf-8", "surrogatepass"))
    funcs = {} if _funcs is None else _funcs
    for op in ops:
        for inner in op.walk():
            if inner.name in CALL_OPS:
                name = call_target(inner)
                if name is None:
                    continue
                got = funcs.get(name)
                if got is None:
                    funcs[name] = "recursive"
                    func = _function(module, name)
                    body = func.regions[0].blocks[0] if func is not None and func.regions and \
                        func.regions[0].blocks else None
                    got = funcs[name] = computation_digest(body, funcs) if body is not None else "missing"
                h.update(f"{name}={got};".encode())
    return h.hexdigest()


def _function(module, name: str):
    root = module.root
    for region in root.regions if root is not None else ():
        for block in region.blocks:
            for op in block.operations:
                if op.name == "func.func" and func_name(op)[0] == name:
                    return op
    return None


def variant(tr: Trace, r: Reorder) -> Trace:
    """The trace with `r.second` issued just before `r.first` in every run of
    their block and of its twins (one computation has one schedule: every
    iteration of a loop around them, every process that runs them, every block
    that is the same computation, gets the same order)."""
    runs: dict[int, list] = {}
    side = {}
    for a, b in r.pairs():
        side[id(a)], side[id(b)] = 0, 1
    for st in tr.steps:
        k = side.get(id(st.op))
        if k is not None:
            got = runs.setdefault(st.block, [None, None])
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
