"""Helpers shared by the collective, async and seed-form rules: naming, types,
promotability, reduction regions, result shapes (replica groups and process-group
sizes are in rules/support/groups.py).

Each check is a generator over one op that yields diagnostics through `ctx`, so a
rule is a docstring plus one call, and the rule being run labels what it yields
(`ctx.error` appends the rule's spec label, e.g. "(all_gather C2)").
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Iterator

from shlo_lint.checker.ir.attributes import DenseElementsAttr, DenseResourceAttr, IntegerAttr
from shlo_lint.checker.lint.context import Context
from shlo_lint.checker.source.diagnostics import Diagnostic
from shlo_lint.checker.ir.catalog import TERMINATORS
from shlo_lint.checker.ir.core import Block, Operation, Value
from shlo_lint.checker.analysis.semantics import flag
from shlo_lint.checker.source.text import Span
from shlo_lint.checker.ir.types import ComplexType, FutureType, QuantizedType, ScalarType, TensorType, Type


def elided(attr) -> str:
    """" (elided ...)" when `attr` is `dense_resource<__elided__>`: what MLIR's
    printer writes for a constant over `large_elements_limit` (`get_asm(
    large_elements_limit=N)`, some dump tools). jaxlib's parser rejects it too
    ("failed to satisfy constraint"), so the error stands; the note says why."""
    if isinstance(attr, DenseResourceAttr) and attr.key == "__elided__":
        return (" (`dense_resource<__elided__>`: the printer elided it, e.g. `large_elements_limit`; "
                "print the module without eliding constants)")
    return ""


# --------------------------------------------------------------------------- naming
def op_label(op: Operation) -> str:
    """`stablehlo.all_gather_start` → `all_gather_start` (what messages start with), an
    HLO opcode of its own as written (`hlo.all-gather-start` → `all-gather-start`);
    other dialects keep their full name (`tessera.collective.all_reduce`)."""
    name = op.name
    for prefix in ("stablehlo.", "hlo."):
        if name.startswith(prefix):
            return name[len(prefix):]
    return name


POINT_AT_ATTRIBUTE = True
"""Where attribute findings point: the attribute's value (True), or the op's name
(False: the line MLIR's own verifier reports, which differs for multi-line ops)."""


def attr_where(ctx: Context, op: Operation, name: str) -> Span:
    """The primary span for a finding about attribute `name` of `op`."""
    return ctx.attr_span(op, name) if POINT_AT_ATTRIBUTE else op.name_span


# --------------------------------------------------------------------------- types
def tensor(t: Type | None) -> TensorType | None:
    """The type as a ranked tensor, else None (unknown, unranked, token, ...)."""
    return t if isinstance(t, TensorType) and t.shape is not None else None


def unwrap_futures(types: Iterable[Type | None]) -> list[Type | None]:
    """Payload types: `future<A, B>` contributes A and B; other types stay as they are."""
    out: list[Type | None] = []
    for t in types:
        if isinstance(t, FutureType):
            out.extend(t.types)
        else:
            out.append(t)
    return out


def result_types(op: Operation) -> list[Type | None]:
    """What the collective produces: for a seed-004 `*_start` op, the future's payload."""
    types = list(op.result_types)
    return unwrap_futures(types) if op.name.endswith("_start") else types


def data_operand_types(op: Operation) -> list[Type | None]:
    """The operands that carry data (a dynamic root's trailing index operand dropped)."""
    types = list(op.operand_types)
    if has_dynamic_root(op) and types:
        types = types[:-1]
    return types


def has_dynamic_root(op: Operation) -> bool:
    return flag(op, "has_dynamic_root")


def fmt_types(types: Iterable[Type | None]) -> str:
    items = ["?" if t is None else str(t) for t in types]
    return items[0] if len(items) == 1 else f"({', '.join(items)})"


def fmt_dims(shape) -> str:
    return "x".join("?" if d is None else str(d) for d in shape) or "scalar"


def element_kind(e: Type) -> str | None:
    if isinstance(e, ComplexType):
        return "complex"
    if isinstance(e, ScalarType):
        if e.is_bool:
            return "bool"
        if e.is_integer:
            return "integer"
        if e.is_float:
            return "float"
    return None


def is_promotable(x: Type, y: Type, ignore_fp_precision: bool = False) -> bool | None:
    """The spec's is_promotable(x, y) on element types: same kind (boolean, integer,
    floating-point, complex, quantized with the same expressed type) and
    bitwidth(x) <= bitwidth(y) (a quantized type's is its storage's). None when
    unknown (unfamiliar types: say nothing).

    ignore_fp_precision: any float to any float, as the StableHLO 1.20 verifier's
    reduction check reads it (`isPromotableElementType(..., ignoreFpPrecision=true)`)."""
    if x == y:
        return True
    if isinstance(x, QuantizedType) or isinstance(y, QuantizedType):
        if not (isinstance(x, QuantizedType) and isinstance(y, QuantizedType)):
            return False
        if x.expressed != y.expressed:
            return False
        wx, wy = x.bitwidth, y.bitwidth
        return None if wx is None or wy is None else wx <= wy
    kx, ky = element_kind(x), element_kind(y)
    if kx is None or ky is None:
        return None
    if kx != ky:
        return False
    if ignore_fp_precision and kx == "float":
        return True
    wx, wy = getattr(x, "bitwidth", None), getattr(y, "bitwidth", None)
    if wx is None or wy is None:
        return None
    return wx <= wy


# --------------------------------------------------------------------------- reduction region
@dataclass
class Computation:
    """What a reduction region declares: argument and returned types."""

    args: list[Type | None]
    returns: list[Type | None] | None
    """None when the region has no return we can read."""

    @property
    def element(self) -> Type | None:
        """E, when the region is `(tensor<E>, tensor<E>) -> tensor<E>`."""
        ts = [tensor(t) for t in self.args + (self.returns or [])]
        if len(self.args) != 2 or self.returns is None or len(self.returns) != 1:
            return None
        if any(t is None or t.rank != 0 for t in ts):
            return None
        elems = {t.element for t in ts}  # type: ignore[union-attr]
        return ts[0].element if len(elems) == 1 else None  # type: ignore[union-attr]


def computation(op: Operation) -> Computation | None:
    if not op.regions or not op.regions[0].blocks:
        return None
    block: Block = op.regions[0].blocks[0]
    args = [v.type for v in block.arguments]
    returns = None
    last = op.regions[0].blocks[-1].operations[-1:] or []
    if last and last[0].name in TERMINATORS:
        returns = list(last[0].operand_types)
    return Computation(args, returns)


def check_computation(op: Operation, ctx: Context, operand_types: list[Type | None]) -> Iterator[Diagnostic]:
    """The region is `(tensor<E>, tensor<E>) -> tensor<E>` and each operand's element
    type is promotable to E."""
    comp = computation(op)
    name = op_label(op)
    if comp is None:
        if op.regions is not None and len(op.regions) == 0:
            yield ctx.error(op, f"{name}: the op has no computation region; it needs a reduction "
                                f"`(tensor<E>, tensor<E>) -> tensor<E>`")
        return
    if any(t is None for t in comp.args) or comp.returns is None or any(t is None for t in comp.returns):
        return  # types we cannot read: say nothing
    sig = f"({', '.join(map(str, comp.args))}) -> {fmt_types(comp.returns)}"
    if comp.element is None:
        d = ctx.error(op, f"{name}: computation type is not (tensor<E>, tensor<E>) -> tensor<E>",
                      help="the reduction takes two 0-d tensors of one element type E and returns one")
        yield d.note(ctx.loc(op), f"the computation has type {sig}")
        return
    e = comp.element
    for i, t in enumerate(operand_types):
        tt = tensor(t)
        if tt is None:
            continue
        ok = is_promotable(tt.element, e)
        if ok is False:
            which = f"operand {i} " if len(operand_types) > 1 else "operand "
            msg = f"{name}: {which}element type {tt.element} is not promotable to the computation's {e}"
            if is_promotable(tt.element, e, ignore_fp_precision=True):
                # A narrower float: the spec's is_promotable says no, the 1.20
                # verifier ignores float precision here. A warning.
                d = ctx.warning(op, msg)
                yield d.note(ctx.loc(op), f"{e} is a narrower float: the StableHLO verifier accepts it, the spec "
                                          f"does not")
            else:
                yield ctx.error(op, msg)


# --------------------------------------------------------------------------- shapes
def check_arity(op: Operation, ctx: Context, operands: list, results: list) -> Iterator[Diagnostic]:
    if len(operands) != len(results):
        yield ctx.error(op, f"{op_label(op)}: {len(operands)} operand(s) but {len(results)} result(s); "
                            f"each operand has one result")


def pairs(op: Operation) -> list[tuple[int, TensorType, TensorType]]:
    """(index, operand, result) for the ranked tensor pairs of a collective."""
    out = []
    for i, (a, b) in enumerate(zip(data_operand_types(op), result_types(op))):
        ta, tb = tensor(a), tensor(b)
        if ta is not None and tb is not None:
            out.append((i, ta, tb))
    return out


def which(op: Operation, i: int) -> str:
    return f"result {i}" if len(result_types(op)) > 1 else "result"


def dim_out_of_range(value: int | None, rank: int) -> bool:
    return value is not None and not 0 <= value < rank


def _constant_attr(v: Value | None):
    """The value attribute (dense or integer) of the constant op defining `v`, else None."""
    op = v.defining_op if v is not None else None
    if op is None or op.name not in ("stablehlo.constant", "arith.constant"):
        return None
    attr = op.attr("value")
    if not isinstance(attr, (DenseElementsAttr, IntegerAttr)):
        attr = next((a for a in op.attributes.values() if isinstance(a, (DenseElementsAttr, IntegerAttr))), None)
    return attr


def defining_constant(v: Value | None) -> int | None:
    """The integer a 0-d `stablehlo.constant` defines, else None."""
    attr = _constant_attr(v)
    if isinstance(attr, IntegerAttr):
        return attr.value
    if isinstance(attr, DenseElementsAttr):
        try:
            arr = attr.array
            if arr.size >= 1:
                return int(arr.reshape(-1)[0])
        except Exception:
            return None
    return None


def defining_constants(v: Value | None) -> list[int] | None:
    """Every integer of the `stablehlo.constant` that defines `v` (any rank), else None."""
    attr = _constant_attr(v)
    if isinstance(attr, IntegerAttr):
        return [attr.value]
    if isinstance(attr, DenseElementsAttr):
        try:
            arr = attr.array
            if 0 < arr.size <= 4096:
                return [int(x) for x in arr.reshape(-1)]
        except Exception:
            return None
    return None


__all__ = [
    "POINT_AT_ATTRIBUTE", "attr_where", "Computation", "check_arity",
    "check_computation", "computation", "data_operand_types", "defining_constant", "defining_constants",
    "dim_out_of_range", "elided", "fmt_dims", "fmt_types", "has_dynamic_root", "is_promotable",
    "op_label", "pairs", "result_types", "tensor", "unwrap_futures", "which",
]


# --------------------------------------------------------------------------- async bodies
def body_argument_mismatches(ctx: Context, op: Operation, args: list, operand_types: list) -> list[Diagnostic]:
    """An async_start's operands against its body's arguments: the count, then each
    type (seed 004's region and seed 002's function body alike)."""
    if len(args) != len(operand_types):
        return [ctx.error(op, f"async_start: {len(operand_types)} operand(s) but the body takes {len(args)} "
                              f"argument(s)")]
    return [ctx.error(op, f"async_start: operand {i} has type {t}, but the body's argument {a.name} "
                          f"has type {a.type}")
            for i, (a, t) in enumerate(zip(args, operand_types))
            if a.type is not None and t is not None and a.type != t]
