"""Seed 003's `tessera.collective` dialect: `all_reduce` / `reduce_scatter` /
`all_gather` return `!tessera.future<T>`, `tessera.await` unwraps it, and the
collectives take optional attributes with fixed value sets (the seed's
`StrEnumAttr`s) or positive integers (`chunk_bytes`, `max_inflight`, `qos`).

Enum attributes are accepted as strings (`dtype = "bf16"`) or as the dialect's
enum attribute (`dtype = #tessera.collective<WireDType "bf16">`); in the latter the
enum's name must also be the attribute's (`WireDType` for `dtype`). The seed's
examples write no types; type checks run only where types are written.
"""
from __future__ import annotations

import re
from typing import Iterator

from shlo_lint.checker.ir.attributes import (Attribute, BoolAttr, DialectAttr, EnumAttr, FloatAttr, IntegerAttr,
                                             OpaqueAttr, StringAttr)
from shlo_lint.checker.lint.context import Context
from shlo_lint.checker.source.diagnostics import Diagnostic
from shlo_lint.checker.ir.catalog import DONE, START, in_order, names
from shlo_lint.checker.ir.core import Operation
from shlo_lint.checker.lint.registry import rule
from shlo_lint.checker.ir.types import FutureType

from .support.shapes import attr_where, op_label

COLLECTIVE_OPS = in_order(names(role=START, future="tessera"))
AWAIT_OPS = in_order(names(role=DONE, future="tessera"))

ENUMS: dict[str, tuple[str, tuple[str, ...]]] = {
    "algo": ("Algo", ("auto", "ring", "tree", "hier")),
    "path": ("Path", ("auto", "nvlink", "pcie", "rdma")),
    "scope": ("Scope", ("intra_sm", "intra_gpu", "node", "rack")),
    "dtype": ("WireDType", ("fp32", "bf16", "fp16", "fp8", "i8")),
    "overlap": ("Overlap", ("compute", "none")),
    "priority": ("Priority", ("latency", "throughput")),
}
POSITIVE_INTS = ("chunk_bytes", "max_inflight", "qos")

_ENUM_TEXT = re.compile(r'#tessera(?:\.collective)?<\s*(\w+)\s+"([^"]*)"\s*>|<\s*(\w+)\s+"([^"]*)"\s*>')


def enum_value(ctx: Context, attr: Attribute) -> tuple[str | None, str | None]:
    """(enum name or None, value) for a string or `#tessera.collective<Kind "value">`."""
    if isinstance(attr, StringAttr):
        return None, attr.value
    if isinstance(attr, EnumAttr):
        return attr.kind or None, attr.value.strip('"')
    text = getattr(attr, "text", "") or ""
    span = getattr(attr, "span", None)
    if not text and span is not None:
        text = ctx.source.text[span.start:span.end]
    m = _ENUM_TEXT.search(text)
    if m:
        return (m.group(1) or m.group(3)), (m.group(2) if m.group(2) is not None else m.group(4))
    if isinstance(attr, DialectAttr):
        for p in attr.positional:
            if isinstance(p, StringAttr):
                return attr.name or None, p.value
            if isinstance(p, str):
                return attr.name or None, p.strip('"')
    if isinstance(attr, OpaqueAttr) and re.fullmatch(r"\w+", attr.text.strip()):
        return None, attr.text.strip()
    return None, None


@rule("SHLO331", "tessera-bad-enum-value", on=COLLECTIVE_OPS, spec="seed 003 attributes")
def tessera_bad_enum_value(op: Operation, ctx: Context) -> Iterator[Diagnostic]:
    """A tessera collective's `algo`/`path`/`scope`/`dtype`/`overlap`/`priority` has an unknown value.

    ## What it does
    Checks the seed-003 enum attributes against their value sets: `algo` ∈ {auto,
    ring, tree, hier}, `path` ∈ {auto, nvlink, pcie, rdma}, `scope` ∈ {intra_sm,
    intra_gpu, node, rack}, `dtype` ∈ {fp32, bf16, fp16, fp8, i8}, `overlap` ∈
    {compute, none}, `priority` ∈ {latency, throughput}. In the
    `#tessera.collective<Kind "value">` spelling the Kind must match too
    (`dtype` takes `WireDType`).

    ## Why is this bad?
    The dialect's verifier rejects the op; a planner reading the attribute would
    pick no algorithm, path or wire precision at all.

    ## Example
    ```mlir
    %f = tessera.collective.all_reduce %dw {op = "sum", chunk_bytes = 1048576, dtype = "f32"}
    ```

    ## Use instead
    `dtype = "fp32"` (the wire dtypes are fp32, bf16, fp16, fp8, i8).
    """
    name = op_label(op)
    for attr_name, (kind, allowed) in ENUMS.items():
        attr = op.attr(attr_name)
        if attr is None:
            continue
        enum_kind, value = enum_value(ctx, attr)
        where = attr_where(ctx, op, attr_name)
        if value is None:
            yield ctx.error(where, f"{name}: {attr_name} must be one of {', '.join(allowed)}; got an attribute "
                                   f"that is not a string", op=op)
            continue
        if enum_kind is not None and enum_kind != kind and enum_kind not in ("collective",):
            yield ctx.error(where, f"{name}: {attr_name} takes {kind} values, not {enum_kind}", op=op)
        if value not in allowed:
            yield ctx.error(where, f"{name}: {attr_name} \"{value}\" is not one of {', '.join(allowed)}", op=op)


@rule("SHLO332", "tessera-nonpositive-integer", on=COLLECTIVE_OPS, spec="seed 003 attributes")
def tessera_nonpositive_integer(op: Operation, ctx: Context) -> Iterator[Diagnostic]:
    """A tessera collective's `chunk_bytes`, `max_inflight` or `qos` is not a positive integer.

    ## What it does
    Checks that `chunk_bytes`, `max_inflight` and `qos` (seed 003's `I64Attr`s)
    are integers greater than zero.

    ## Why is this bad?
    The planner divides the tensor into `chunk_bytes`-sized chunks and keeps at
    most `max_inflight` of them in flight: zero or a negative value means no
    chunk is ever sent (a hang) or a division by zero.

    ## Example
    ```mlir
    %f = tessera.collective.all_reduce %dw {chunk_bytes = 0, max_inflight = -2}
    ```

    ## Use instead
    `chunk_bytes = 1048576, max_inflight = 4` (or leave them out for the defaults).
    """
    name = op_label(op)
    for attr_name in POSITIVE_INTS:
        attr = op.attr(attr_name)
        if attr is None:
            continue
        where = attr_where(ctx, op, attr_name)
        if isinstance(attr, IntegerAttr) and not isinstance(attr, BoolAttr):
            if attr.value <= 0:
                yield ctx.error(where, f"{name}: {attr_name} is {attr.value}, but it must be a positive "
                                       f"integer", op=op)
        else:
            shown = attr.value if isinstance(attr, (StringAttr, FloatAttr)) else type(attr).__name__
            yield ctx.error(where, f"{name}: {attr_name} must be a positive integer (i64), got {shown!r}",
                            op=op)


@rule("SHLO333", "tessera-collective-result-not-future", on=COLLECTIVE_OPS, spec="seed 003 types")
def tessera_collective_result_not_future(op: Operation, ctx: Context) -> Iterator[Diagnostic]:
    """A tessera collective's written result type is not `!tessera.future<T>`.

    ## What it does
    When the result type is written: it must be one `!tessera.future<T>`; for
    `all_reduce`, `T` is the input's type (the seed's planner builds
    `FutureType::get(input type)`).

    ## Why is this bad?
    "Collectives return futures; blocking uses must insert `tessera.await`": a
    plain tensor result would let a consumer read the buffer before the
    collective finished.

    ## Example
    ```mlir
    %f = tessera.collective.all_reduce %dw {dtype = "bf16"} : (memref<1024xf32>) -> memref<1024xf32>
    ```

    ## Use instead
    `-> !tessera.future<memref<1024xf32>>`, then `tessera.await %f` where the value is used.
    """
    name = op_label(op)
    results = list(op.result_types)
    if not results:
        return
    if len(results) != 1:
        yield ctx.error(op, f"{name}: has {len(results)} results, expected one !tessera.future<T>")
        return
    t = results[0]
    if t is None:
        return
    if not (isinstance(t, FutureType) and t.flavor == "tessera"):
        yield ctx.error(op, f"{name}: result has type {t}, expected !tessera.future<T>")
        return
    if op.name.endswith("all_reduce"):
        inputs = list(op.operand_types)
        if inputs and inputs[0] is not None and t.types and t.types[0] != inputs[0]:
            yield ctx.error(op, f"{name}: result {t} should carry the input type {inputs[0]}")


@rule("SHLO334", "tessera-await-type-mismatch", on=AWAIT_OPS, spec="seed 003 types")
def tessera_await_type_mismatch(op: Operation, ctx: Context) -> Iterator[Diagnostic]:
    """`tessera.await`'s result type is not the payload of the future it awaits.

    ## What it does
    When types are written: the operand is a `!tessera.future<T>` and the result
    is `T` ("the concrete result type of `await` is derived from the future's
    payload"). With no types written (as in the seed's examples) it says nothing.

    ## Why is this bad?
    The awaited buffer is read as another type than the collective produced.

    ## Example
    ```mlir
    %v = tessera.await %f : (!tessera.future<memref<1024xf32>>) -> memref<1024xbf16>
    ```

    ## Use instead
    `-> memref<1024xf32>`.
    """
    name = op_label(op)
    operands = list(op.operand_types)
    if not operands or operands[0] is None:
        return
    fut = operands[0]
    if not isinstance(fut, FutureType):
        yield ctx.error(op, f"{name}: operand has type {fut}, expected a !tessera.future<T>")
        return
    results = list(op.result_types)
    if results and results[0] is not None and tuple(results) != tuple(fut.types):
        payload = ", ".join(map(str, fut.types))
        yield ctx.error(op, f"{name}: result type {', '.join(map(str, results))} is not the future's "
                            f"payload {payload}")


__all__ = ["AWAIT_OPS", "COLLECTIVE_OPS", "ENUMS", "POSITIVE_INTS"]
