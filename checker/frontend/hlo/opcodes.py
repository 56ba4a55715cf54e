"""Which IR op an HLO instruction becomes, and which computations it calls how.

Where HLO and StableHLO mean the same thing, the instruction becomes the
StableHLO op (`all-reduce` -> `stablehlo.all_reduce`, `while` ->
`stablehlo.while`, `compare` -> `stablehlo.compare`): the analyses and rules
read it as they read StableHLO. Everything else becomes `hlo.<opcode>`
(`hlo.fusion`, `hlo.get-tuple-element`, `hlo.all-reduce-start`, `hlo.send`);
what those do (communicate, call, forward their operands) is stated once, in
the op catalog (checker/ir/catalog.py). An opcode this table does not know is
`hlo.<opcode>` too, read as opaque: never a false error.

A few opcodes have a StableHLO counterpart only in their common form; the
others stay `hlo.` ops: `all-to-all` is `stablehlo.all_to_all` with
`dimensions={d}` and one operand (split and concatenated along d), the tuple
form (one operand per peer) is `hlo.all-to-all`; `collective-permute` with one
operand is `stablehlo.collective_permute`, the combined and in-place forms are
`hlo.collective-permute`; `conditional` is `stablehlo.if` with
`true_computation`/`false_computation` and `stablehlo.case` with
`branch_computations`.
"""
from __future__ import annotations

from .model import Instruction

__all__ = ["STABLEHLO", "REGION_ATTRS", "CALLEE_ATTRS", "ir_name", "region_computations", "callee_of"]

STABLEHLO: dict[str, str] = {
    # communication
    "all-reduce": "stablehlo.all_reduce",
    "all-gather": "stablehlo.all_gather",
    "reduce-scatter": "stablehlo.reduce_scatter",
    "collective-broadcast": "stablehlo.collective_broadcast",
    # control flow (regions: REGION_ATTRS)
    "while": "stablehlo.while",
    # process ids, constants, what the tracer folds branch indices and trip counts with
    "partition-id": "stablehlo.partition_id",
    "replica-id": "stablehlo.replica_id",
    "constant": "stablehlo.constant",
    "convert": "stablehlo.convert",
    "compare": "stablehlo.compare",
    "select": "stablehlo.select",
    "clamp": "stablehlo.clamp",
    "add": "stablehlo.add",
    "subtract": "stablehlo.subtract",
    "multiply": "stablehlo.multiply",
    "divide": "stablehlo.divide",
    "remainder": "stablehlo.remainder",
    "maximum": "stablehlo.maximum",
    "minimum": "stablehlo.minimum",
    "and": "stablehlo.and",
    "or": "stablehlo.or",
    "xor": "stablehlo.xor",
    "not": "stablehlo.not",
    "negate": "stablehlo.negate",
    "abs": "stablehlo.abs",
    "sign": "stablehlo.sign",
    "shift-left": "stablehlo.shift_left",
    "shift-right-arithmetic": "stablehlo.shift_right_arithmetic",
    "shift-right-logical": "stablehlo.shift_right_logical",
    "reshape": "stablehlo.reshape",
    "broadcast": "stablehlo.broadcast_in_dim",
    "dynamic-slice": "stablehlo.dynamic_slice",
    "dynamic-update-slice": "stablehlo.dynamic_update_slice",
    "after-all": "stablehlo.after_all",
    # element-wise math: StableHLO's op of the same meaning, operands and no attribute
    # spelled otherwise (what the interpreter runs them as)
    **{opcode: "stablehlo." + opcode.replace("-", "_") for opcode in (
        "atan2", "cbrt", "ceil", "complex", "cosine", "count-leading-zeros", "exponential", "exponential-minus-one",
        "floor", "imag", "is-finite", "log", "log-plus-one", "logistic", "popcnt", "power", "real",
        "round-nearest-afz", "round-nearest-even", "rsqrt", "sine", "sqrt", "tan", "tanh")},
    "opt-barrier": "stablehlo.optimization_barrier",
    "custom-call": "stablehlo.custom_call",
    "infeed": "stablehlo.infeed",
    "rng": "stablehlo.rng",
}
"""Opcodes that are StableHLO ops (in every form they take)."""

REGION_ATTRS: dict[str, tuple[str, ...]] = {
    "while": ("condition", "body"),
    "async-start": ("calls",),
    "all-reduce": ("to_apply",),
    "all-reduce-start": ("to_apply",),
    "reduce-scatter": ("to_apply",),
    "reduce-scatter-start": ("to_apply",),
}
"""Opcodes whose called computations become the op's regions, attribute by attribute, in
region order (`conditional`'s come from `branch_computations` or `true_computation`,
`false_computation`: region_computations)."""

CALLEE_ATTRS: dict[str, str] = {"call": "to_apply", "fusion": "calls"}
"""Opcodes that call one computation, lowered to a private function: the attribute naming it."""


def ir_name(ins: Instruction) -> str:
    """The IR op name of an instruction (reads its attributes only for the opcodes whose
    lowering depends on its form)."""
    opcode = ins.opcode
    name = STABLEHLO.get(opcode)
    if name is not None:
        return name
    if opcode == "conditional":
        return "stablehlo.case" if ins.attr("branch_computations") is not None else "stablehlo.if"
    if opcode == "all-to-all":
        dims = ins.attr("dimensions")
        if isinstance(dims, tuple) and len(dims) == 1 and len(ins.operands) == 1:
            return "stablehlo.all_to_all"
    elif opcode == "collective-permute":
        if len(ins.operands) == 1:
            return "stablehlo.collective_permute"
    return f"hlo.{opcode}"


def region_computations(ins: Instruction) -> list[tuple[str, object]]:
    """(attribute name, its value) of each computation the instruction runs as a region of
    its op, in region order; empty for an instruction with none."""
    opcode = ins.opcode
    if opcode == "conditional":
        branches = ins.attributes.get("branch_computations")
        if branches is not None:
            values = branches.value if isinstance(branches.value, tuple) else (branches.value,)
            return [("branch_computations", v) for v in values]
        return [(a, ins.attr(a)) for a in ("true_computation", "false_computation") if a in ins.attributes]
    return [(a, ins.attr(a)) for a in REGION_ATTRS.get(opcode, ()) if a in ins.attributes]


def callee_of(ins: Instruction) -> object:
    """The value of the attribute naming the computation a `call` / `fusion` runs (None when
    the instruction is no such call or does not name one)."""
    attr = CALLEE_ATTRS.get(ins.opcode)
    return None if attr is None else ins.attr(attr)
