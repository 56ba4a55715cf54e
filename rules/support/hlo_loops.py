"""How many times an HLO instruction runs in one execution of its module: the trip
counts of the while loops around it.

XLA:GPU's point-to-point validation (`_xla_send_recv_validation`) counts the
executions of an instruction in one run (backends/gpu/runtime/send_thunk.cc,
recv_thunk.cc: an execution counter per instruction, per device and run), so an
instruction in a while body runs the loop's trip count times, one nested in two
loops the product, one outside any loop once.

A trip count is the one XLA proved (`known_trip_count` in the while's backend
config, lowered to `hlo.known_trip_count`), else the one the loop's text folds
to in the form XLA's loops have: the condition compares one element of the
carried tuple with a constant, the body adds a constant to it, and the init tuple
holds a constant there (`i = c; while i < n: i += s`).
"""
from __future__ import annotations

from dataclasses import dataclass

from shlo_lint.checker.analysis.semantics import known_trip_count
from shlo_lint.checker.frontend.hlo import Computation, Instruction, NameRef, Word
from shlo_lint.checker.ir import catalog
from shlo_lint.checker.ir.core import Operation

LOOPS = catalog.names(regions=catalog.LOOP)
BRANCHES = catalog.names(regions=catalog.BRANCHES)


@dataclass(frozen=True)
class Executions:
    """How many times an op runs per execution of the module: `count` (None: not known, and
    `why`), with the loops around it, innermost first, and how each trip count was read."""

    count: int | None
    loops: tuple[tuple[Operation, int, str], ...] = ()
    """(while op, its trip count, "known_trip_count" or "folded") per enclosing loop."""
    why: str = ""


def executions(op: Operation) -> Executions:
    """How many times `op` runs in one execution of the module (see the module docstring)."""
    count = 1
    loops: list[tuple[Operation, int, str]] = []
    cur = op
    entry = op.module.entry_function()
    for _ in range(256):
        block = cur.parent
        region = block.parent if block is not None else None
        owner = region.parent if region is not None else None
        if owner is None or owner.name in catalog.names(regions=catalog.MODULE):
            return Executions(count, tuple(loops))
        if owner.name == "func.func":
            if owner is entry:
                return Executions(count, tuple(loops))
            return Executions(None, tuple(loops), f"its computation %{owner.symbol_name} is called from elsewhere")
        if owner.name in LOOPS:
            if len(owner.regions) != 2 or region is not owner.regions[1]:
                return Executions(None, tuple(loops), "it is in a while loop's condition")
            trips, how = trip_count(owner)
            if trips is None:
                return Executions(None, tuple(loops), f"the trip count of the while at line {_line(owner)} is not "
                                                      f"known (no known_trip_count, and it does not fold)")
            count *= trips
            loops.append((owner, trips, how))
        elif owner.name in BRANCHES:
            return Executions(None, tuple(loops), f"it is in a branch of the conditional at line {_line(owner)}")
        cur = owner
    return Executions(None, tuple(loops), "it is nested too deeply")


def trip_count(loop: Operation) -> tuple[int | None, str]:
    """(the while's trip count, "known_trip_count" | "folded"), or (None, "")."""
    n = known_trip_count(loop)
    if n is not None:
        return n, "known_trip_count"
    ins = getattr(loop, "instruction", None)
    n = _fold(ins) if ins is not None else None
    return (n, "folded") if n is not None else (None, "")


_FLIP = {"LT": "GT", "LE": "GE", "GT": "LT", "GE": "LE", "NE": "NE"}


def _fold(ins: Instruction) -> int | None:
    cond = _called(ins, "condition")
    body = _called(ins, "body")
    if cond is None or body is None or cond.root is None or body.root is None or not ins.operands:
        return None
    cmp = cond.root
    direction = cmp.attr("direction")
    if cmp.opcode != "compare" or not isinstance(direction, Word) or len(cmp.operands) != 2:
        return None
    d = direction.text
    a, b = (cond.instruction(o.name) if o.name else None for o in cmp.operands)
    k, n = _element_index(a, cond), _constant(b)
    if k is None or n is None:
        k, n = _element_index(b, cond), _constant(a)
        d = _FLIP.get(d, "")
    if k is None or n is None or d not in _FLIP:
        return None
    step = _step(body, k)
    init_ins = ins.computation.instruction(ins.operands[0].name) if ins.operands[0].name else None
    if init_ins is None or init_ins.opcode != "tuple" or k >= len(init_ins.operands):
        return None
    first = init_ins.operands[k]
    c = _constant(ins.computation.instruction(first.name)) if first.name else None
    if step is None or c is None or step == 0:
        return None
    return _count(c, n, step, d)


def _count(c: int, n: int, step: int, d: str) -> int | None:
    if d == "NE":
        if (n - c) % step != 0 or (n - c) // step < 0:
            return None
        return (n - c) // step
    if step > 0 and d in ("LT", "LE"):
        span = n - c + (1 if d == "LE" else 0)
        return max(0, -(-span // step))
    if step < 0 and d in ("GT", "GE"):
        span = c - n + (1 if d == "GE" else 0)
        return max(0, -(-span // -step))
    return None


def _called(ins: Instruction, attr: str) -> Computation | None:
    ref = ins.attr(attr)
    return ins.module.computation(ref.name) if isinstance(ref, NameRef) else None


def _element_index(ins: Instruction | None, comp: Computation) -> int | None:
    """k when `ins` is get-tuple-element(parameter(0)), index=k."""
    if ins is None or ins.opcode != "get-tuple-element" or not ins.operands or not ins.operands[0].name:
        return None
    src = comp.instruction(ins.operands[0].name)
    index = ins.attr("index")
    if src is None or src.opcode != "parameter" or not isinstance(index, int):
        return None
    return index


def _constant(ins: Instruction | None) -> int | None:
    if ins is None or ins.opcode != "constant" or ins.body.literal is None:
        return None
    v = ins.body.literal.scalar
    return v if isinstance(v, int) and not isinstance(v, bool) else None


def _step(body: Computation, k: int) -> int | None:
    """s when element k of the body's ROOT tuple is element k plus the constant s."""
    root = body.root
    if root is None or root.opcode != "tuple" or k >= len(root.operands) or not root.operands[k].name:
        return None
    nxt = body.instruction(root.operands[k].name)
    if nxt is None or nxt.opcode not in ("add", "subtract") or len(nxt.operands) != 2:
        return None
    x, y = (body.instruction(o.name) if o.name else None for o in nxt.operands)
    if _element_index(x, body) == k and _constant(y) is not None:
        s = _constant(y)
    elif nxt.opcode == "add" and _element_index(y, body) == k and _constant(x) is not None:
        s = _constant(x)
    else:
        return None
    return -s if nxt.opcode == "subtract" else s


def _line(op: Operation) -> int:
    return op.module.source.line_col(op.span.start)[0]


__all__ = ["Executions", "executions", "trip_count"]
