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

from shlo_lint.checker.lint.context import Context
from shlo_lint.checker.source.diagnostics import Diagnostic
from shlo_lint.checker.ir.core import Operation
from shlo_lint.checker.lint.registry import rule
from shlo_lint.checker.ir.types import MemRefType, TensorType, TupleType, Type

from .support.shapes import op_label

_OUTPUT_INDICES = re.compile(r"output_tuple_indices\s*=\s*\[([^\]]*)\]")
_ALIAS = re.compile(r"output_operand_alias<\s*output_tuple_indices\s*=\s*\[([^\]]*)\]\s*,\s*"
                    r"operand_index\s*=\s*(\d+)\s*,\s*operand_tuple_indices\s*=\s*\[([^\]]*)\]")


def _ints(text: str) -> tuple[int, ...]:
    """The integers of a `[1, 2]` list body; anything else in it is not an index."""
    return tuple(int(x) for x in re.findall(r"-?\d+", text))


def _has_buffer(t: Type | None) -> bool:
    if isinstance(t, TupleType):
        return any(_has_buffer(x) for x in t.types)
    return isinstance(t, MemRefType)


def _part(t: Type | None, indices: tuple[int, ...]) -> Type | None:
    """The type at `indices` inside nested tuples (None when it cannot be followed)."""
    for i in indices:
        if not isinstance(t, TupleType) or not 0 <= i < len(t.types):
            return None
        t = t.types[i]
    return t


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


def _alias_text(op: Operation, ctx: Context) -> str | None:
    """The output_operand_aliases attribute as written ("" when absent, None when unreadable)."""
    aliases = op.attr("output_operand_aliases")
    if aliases is None:
        return ""
    span = getattr(aliases, "span", None)
    text = getattr(aliases, "text", "") or (ctx.source.text[span.start:span.end] if span is not None else "")
    return text or None


def _alias_type_mismatch(op: Operation, text: str) -> tuple[str, str] | None:
    """An alias between a buffer and a non-buffer (or two different buffers): the
    verifier's "shapes mismatch in the output_operand_alias attribute"."""
    ins, outs = list(op.operand_types), list(op.result_types)
    result = outs[0] if len(outs) == 1 else TupleType(tuple(outs))  # type: ignore[arg-type]
    for out_idx, operand, in_idx in _ALIAS.findall(text):
        o = int(operand)
        a = _part(ins[o], _ints(in_idx)) if o < len(ins) else None
        b = _part(result, _ints(out_idx))
        if a is None or b is None or not (isinstance(a, MemRefType) or isinstance(b, MemRefType)):
            continue
        if type(a) is not type(b) or not _compatible(a, b):
            return ("an output_operand_alias pairs parts of different types",
                    f"it pairs operand part {a} with output part {b}; an alias keeps the type")
    return None


def _problem(op: Operation, ctx: Context) -> str | tuple[str, str] | None:
    """What is wrong: a headline, or (a headline, a note saying more)."""
    target = _target(op)
    ins, outs = list(op.operand_types), list(op.result_types)
    text = _alias_text(op, ctx)
    if text:
        mismatch = _alias_type_mismatch(op, text)
        if mismatch:
            return mismatch
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
    if text is None:
        return None  # aliases we cannot read: say nothing
    named = {_ints(m) for m in _OUTPUT_INDICES.findall(text)}
    # A buffer operand part, and the output it aliases, may appear in one alias only.
    seen_in: set[tuple[int, tuple[int, ...]]] = set()
    seen_out: set[tuple[int, ...]] = set()
    for out_idx, operand, in_idx in _ALIAS.findall(text):
        o, path, target = int(operand), _ints(in_idx), _ints(out_idx)
        part = _part(ins[o], path) if o < len(ins) else None
        if not isinstance(part, MemRefType):
            continue
        if target in seen_out:
            return f"buffer output {list(target)} is named by more than one output_operand_alias"
        if (o, path) in seen_in:
            return f"buffer operand {o}{list(path)} is aliased by more than one output_operand_alias"
        seen_out.add(target)
        seen_in.add((o, path))
    for i, t in enumerate(outs):
        if isinstance(t, MemRefType):
            index = () if len(outs) == 1 else (i,)
            if index not in named:
                where = "the result" if len(outs) == 1 else f"result {i}"
                return (f"{where} is a buffer ({t}) that no output_operand_alias names",
                        "a buffer result must alias a buffer operand (an output_operand_aliases entry)")
    return None


@rule("SHLO140", "custom-call-buffer-misuse", on="stablehlo.custom_call", spec="custom_call (verifier)")
def custom_call_buffer_misuse(op: Operation, ctx: Context) -> Iterator[Diagnostic]:
    """A custom_call misuses buffer (memref) types.

    ## What it does
    Checks what the StableHLO 1.20 verifier checks for buffers: `CreateBuffer`
    takes no operand and returns one memref; `Pin` turns one tensor into a
    memref of the same shape and element type, `Unpin` the reverse; any other
    custom_call that returns a memref names that result in an
    `output_operand_aliases` entry, and no buffer operand (or buffer output) is
    named by two entries, and an alias that involves a buffer pairs parts of the
    same type. Memref results are otherwise valid and not
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
    if not any(_has_buffer(t) for t in (*op.operand_types, *op.result_types)) and \
            _target(op) not in ("CreateBuffer", "Pin", "Unpin"):
        return
    problem = _problem(op, ctx)
    if problem:
        headline, more = (problem, None) if isinstance(problem, str) else problem
        d = ctx.error(op, f"{op_label(op)}: {headline}")
        yield d.note(ctx.loc(op), more) if more else d
