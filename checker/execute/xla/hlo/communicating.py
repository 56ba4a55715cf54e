"""Which HLO instructions communicate, and in which order (no jax).

What an instruction does is the op catalog's (checker/ir/catalog.py), asked with
the IR op the front end lowers it to (checker/frontend/hlo/opcodes.py
`ir_name`): a collective or a permute is synchronous; a start (`*-start`,
`async-start`), a done, a send and a recv-done are the halves XLA splits
asynchronous communication into. The catalog gives no role to the other
halves, which are no event of the process model: a `send-done` or an
`async-update` reads a half that issues, a `recv` is what a recv-done
completes; they are read here from those operands.

On a scheduled module each computation's order is the order XLA issues its
communication in, which is what decides whether it deadlocks: the rewrites keep
it (hlo/rewrite.py `impose_order`) and `order_kept` checks, on every run, that
the compiled module still has it.
"""
from __future__ import annotations

from ....frontend.hlo import Computation, HloText, Instruction, read_hlo
from ....frontend.hlo.opcodes import ir_name
from ....ir import catalog

__all__ = ["SYNC", "ISSUE", "FINISH", "halves", "talking_computations", "communicating_instructions",
           "communication_order", "order_kept"]

SYNC = "sync"
"""A synchronous collective (all-reduce, all-gather, all-to-all, collective-permute, ...)."""
ISSUE = "issue"
"""The half of asynchronous communication that issues it: a start, a send, a recv."""
FINISH = "finish"
"""A half that waits for (or updates) what a start issued: a done, send-done, recv-done, async-update."""

_ISSUING_ROLES = (catalog.START, catalog.SEND)
_FINISHING_ROLES = (catalog.DONE, catalog.RECV)


def halves(comp: Computation) -> dict[str, str]:
    """Instruction name -> SYNC, ISSUE or FINISH for each instruction of `comp` that
    communicates."""
    out: dict[str, str] = {}
    finishing: list[Instruction] = []
    for ins in comp.instructions:
        role = catalog.info(ir_name(ins)).role
        if role in (catalog.COLLECTIVE, catalog.PERMUTE):
            out[ins.name] = SYNC
        elif role in _ISSUING_ROLES:
            out[ins.name] = ISSUE
        elif role in _FINISHING_ROLES:
            out[ins.name] = FINISH
            finishing.append(ins)
    for ins in comp.instructions:
        if ins.name not in out and any(out.get(o) == ISSUE for o in ins.operand_names):
            out[ins.name] = FINISH  # send-done, async-update
    for ins in finishing:
        for o in ins.operand_names:
            if o is not None and o not in out and comp.instruction(o) is not None:
                out[o] = ISSUE  # the recv a recv-done completes
    return out


def talking_computations(module: HloText) -> set[str]:
    """The computations that communicate, themselves or through what they run."""
    direct = {name for name, comp in module.computations.items() if halves(comp)}
    calls = {name: {c for ins in comp.instructions for c in ins.called_computations}
             for name, comp in module.computations.items()}
    talking = set(direct)
    changed = True
    while changed:  # a fixed point: call chains are short, computations that call themselves harmless
        changed = False
        for name, callees in calls.items():
            if name not in talking and callees & talking:
                talking.add(name)
                changed = True
    return talking


def communicating_instructions(comp: Computation, talking: set[str]) -> list[tuple[Instruction, str | None]]:
    """(instruction, SYNC / ISSUE / FINISH, or None for a while / conditional / call
    that runs communication) of one computation, in text order."""
    kinds = halves(comp)
    out = []
    for ins in comp.instructions:
        if ins.name in kinds:
            out.append((ins, kinds[ins.name]))
        elif any(c in talking for c in ins.called_computations):
            out.append((ins, None))
    return out


def communication_order(module: HloText, label=None) -> list[list[str]]:
    """Per computation, its communicating instructions in text order: each
    collective by name (by `label(ins)` when given: in a compiled module, the label
    the rewrites put into its metadata), each while / conditional / call that
    runs one by opcode. An asynchronous pair counts once, at the half that
    issues it, and the computation a generic async-start wraps not at all:
    XLA:CPU compiles each pair into one synchronous collective there, labelled
    as the start. Sorted: compiling renames and merges computations."""
    talking = talking_computations(module)
    wrapped = {c for ins in module.instructions() if ins.opcode == "async-start" for c in ins.called_computations}

    def key(ins: Instruction, kind: str | None) -> str:
        if kind is None:
            return ins.opcode
        return (label(ins) or ins.name) if label is not None else ins.name

    orders = ([key(i, k) for i, k in communicating_instructions(c, talking) if k != FINISH]
              for c in module.computations.values() if c.name not in wrapped)
    return sorted(seq for seq in orders if seq)


def order_kept(text: str, compiled: str, label) -> str | None:
    """None when the compiled module issues the text's collectives in the text's
    order in every computation, else what differs. The rewrites promise that
    order (it is what decides whether a scheduled module deadlocks); this checks
    the promise on every run. `label(ins)`: the text's instruction name a
    compiled instruction carries (hlo/rewrite.py `label_of_instruction`)."""
    before = communication_order(read_hlo(text))
    after = communication_order(read_hlo(compiled), label)
    if before == after:
        return None
    calls = ("while", "conditional", "call")
    flat_before = sorted(x for seq in before for x in seq if x not in calls)
    flat_after = sorted(x for seq in after for x in seq if x not in calls)
    if flat_before != flat_after:
        return (f"XLA's compiled module does not have the text's collectives ({len(flat_after)} compiled, "
                f"{len(flat_before)} in the text): the run may not be the text's program")
    return ("XLA's compiled module issues the text's collectives in another order or nesting than the text "
            "in some computation: a hang or its absence may not be the text's")
