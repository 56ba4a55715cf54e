"""`stablehlo.custom_call` with buffer (memref) types: the three buffer targets
(`CreateBuffer`, `Pin`, `Unpin`) and the output_operand_alias rule for buffer
results of other targets, as the StableHLO 1.20 verifier checks them
(`CustomCallOp::verifyKnownCustomCalls` in stablehlo/dialect/StablehloOps.cpp;
the spec has no label for them).

Buffer types are otherwise legal as custom_call operands and results, and the
linter reads them without complaint: only these checks look at them.
"""
from __future__ import annotations

import re
from typing import Iterator

from shlo_lint.checker.context import Context
from shlo_lint.checker.diagnostics import Diagnostic
from shlo_lint.checker.ir import Operation
from shlo_lint.checker.registry import rule
from shlo_lint.checker.types import MemRefType, TensorType, Type

from ._shapes import op_label

_OUTPUT_INDICES = re.compile(r"output_tuple_indices\s*=\s*\[([^\]]*)\]")


def _target(op: Operation) -> str | None:
    a = op.attr("call_target_name")
    return getattr(a, "value", None)


def _compatible(a: Type | None, b: Type | None) -> bool:
    """Same element type and compatible shapes (a `?` matches any size)."""
    sa, sb = getattr(a, "shape", None), getattr(b, "shape", None)
    if getattr(a, "element", None) != getattr(b, "element", None):
        return False
    if sa is None or sb is None:
        return True
    return len(sa) == len(sb) and all(x is None or y is None or x == y for x, y in zip(sa, sb))


def _problem(op: Operation, ctx: Context) -> str | None:
    target = _target(op)
    ins, outs = list(op.operand_types), list(op.result_types)
    if target == "CreateBuffer":
        if ins:
            return "CreateBuffer takes no operands"
        if len(outs) != 1 or not isinstance(outs[0], MemRefType):
            return "CreateBuffer has one result, of a memref type"
        return None
    if target in ("Pin", "Unpin"):
        src, dst = (TensorType, MemRefType) if target == "Pin" else (MemRefType, TensorType)
        words = ("a tensor", "a memref") if target == "Pin" else ("a memref", "a tensor")
        if len(ins) != 1 or not isinstance(ins[0], src):
            return f"{target} takes one operand, {words[0]}"
        if len(outs) != 1 or not isinstance(outs[0], dst):
            return f"{target} has one result, {words[1]}"
        if not _compatible(ins[0], outs[0]):
            return f"{target}'s operand {ins[0]} and result {outs[0]} differ in shape or element type"
        return None
    # Any other target: each buffer result must be named by one output_operand_alias.
    aliases = op.attr("output_operand_aliases")
    text = ""
    if aliases is not None:
        span = getattr(aliases, "span", None)
        text = getattr(aliases, "text", "") or (ctx.source.text[span.start:span.end] if span is not None else "")
        if not text:
            return None  # aliases we cannot read: say nothing
    named = {tuple(int(x) for x in m.split(",") if x.strip()) for m in _OUTPUT_INDICES.findall(text)}
    for i, t in enumerate(outs):
        if isinstance(t, MemRefType):
            index = () if len(outs) == 1 else (i,)
            if index not in named:
                where = "the result" if len(outs) == 1 else f"result {i}"
                return (f"{where} is a buffer ({t}) that no output_operand_alias names; a buffer result must "
                        f"alias a buffer operand")
    return None


@rule("SHLO140", "custom-call-buffer-misuse", on="stablehlo.custom_call", spec="custom_call (verifier)")
def custom_call_buffer_misuse(op: Operation, ctx: Context) -> Iterator[Diagnostic]:
    """A custom_call misuses buffer (memref) types.

    ## What it does
    Checks what the StableHLO 1.20 verifier checks for buffers: `CreateBuffer`
    takes no operand and returns one memref; `Pin` turns one tensor into a
    memref of the same shape and element type, `Unpin` the reverse; any other
    custom_call that returns a memref names that result in an
    `output_operand_aliases` entry. Memref results are otherwise valid and not
    reported (before 0.6 they could not be read at all).

    ## Why is this bad?
    The verifier rejects the program: a buffer result that aliases no operand
    has no storage, and Pin/Unpin that change the type are not copies.

    ## Example
    ```mlir
    %0 = "stablehlo.custom_call"(%x) {call_target_name = "CreateBuffer", api_version = 4 : i32} : (tensor<2xf32>) -> memref<2xf32>
    ```

    ## Use instead
    ```mlir
    %0 = "stablehlo.custom_call"() {call_target_name = "CreateBuffer", api_version = 4 : i32} : () -> memref<2xf32>
    ```
    """
    if not any(isinstance(t, MemRefType) for t in (*op.operand_types, *op.result_types)) and \
            _target(op) not in ("CreateBuffer", "Pin", "Unpin"):
        return
    problem = _problem(op, ctx)
    if problem:
        yield ctx.error(op, f"{op_label(op)}: {problem}")
