"""Helpers shared by the collective, async and seed-form rules: replica groups,
process-group sizes, reduction regions, result types.

Each check is a generator over one op that yields diagnostics through `ctx`, so a
rule is a docstring plus one call, and the rule being run labels what it yields
(`ctx.error` appends the rule's spec label, e.g. "(all_gather C2)").
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Iterable, Iterator

from shlo_lint.checker.attributes import Attribute, DenseElementsAttr, DialectAttr, IntegerAttr, OpaqueAttr
from shlo_lint.checker.context import Context
from shlo_lint.checker.diagnostics import Diagnostic
from shlo_lint.checker.ir import Block, Operation, Value
from shlo_lint.checker.semantics import (CROSS_PARTITION, CROSS_REPLICA, CROSS_REPLICA_AND_PARTITION,
                                         FLATTENED_IDS, base_kind, channel_id, flag, strategy)
from shlo_lint.checker.source import Span
from shlo_lint.checker.types import ComplexType, FutureType, QuantizedType, ScalarType, TensorType, Type

from .grid import overflowing_integer

GRID_SKIPPED = "grid_skipped"
"""ctx.cache key shared with rules/grid.py: labels of checks skipped for want of a grid."""
GRID_SKIPPED_AT = "grid_skipped_at"
"""ctx.cache key: the first op whose check was skipped."""

RETURN_OPS = frozenset({"stablehlo.return", "func.return", "return"})


# --------------------------------------------------------------------------- naming
def op_label(op: Operation) -> str:
    """`stablehlo.all_gather_start` → `all_gather_start` (what messages start with);
    other dialects keep their full name (`tessera.collective.all_reduce`)."""
    name = op.name
    for prefix in ("stablehlo.",):
        if name.startswith(prefix):
            return name[len(prefix):]
    return name


def grid_needed(ctx: Context, op: Operation, check: str) -> bool:
    """True when the process grid is known; else record `check` as skipped (one
    note for the whole file is reported by the grid rule)."""
    if ctx.grid.known:
        return True
    ctx.cache.setdefault(GRID_SKIPPED, set()).add(check)
    ctx.cache.setdefault(GRID_SKIPPED_AT, op)
    return False


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


# --------------------------------------------------------------------------- replica groups
_AXIS_REF = re.compile(r'axis_ref<\s*name\s*=\s*"([^"]*)"(?:\s*,\s*sub_axis_info\s*=\s*\(\s*(\d+)\s*\)\s*(\d+))?')
# The current spec (1.20) spells the reference `mesh = @m` (or inlines
# `mesh = #stablehlo.mesh<axes = [...]>`); the seed RFC wrote `mesh_name = @m`.
# Both are read.
_MESH_NAME = re.compile(r"\bmesh(?:_name)?\s*=\s*@([\w.$-]+)")
_INLINE_MESH_AXIS = re.compile(r'mesh_axis<\s*name\s*=\s*"([^"]*)"\s*,\s*size\s*=\s*(\d+)')


@dataclass
class MeshAxes:
    """`#stablehlo.replica_group_mesh_axes<mesh_name = @m, axes = [...]>`."""

    mesh_name: str | None
    axes: list[tuple[str, int | None]] = field(default_factory=list)
    """(axis name, sub-axis size or None for the whole axis)."""
    pre_sizes: list[int | None] = field(default_factory=list)
    """Each axis's sub_axis_info pre-size (None for the whole axis)."""
    inline: dict[str, int] | None = None
    """Axis name → size of an inlined `#stablehlo.mesh<...>` (None for a symbol)."""


@dataclass
class ReplicaGroups:
    """An op's `replica_groups` as written."""

    span: Span
    rows: list[list[int]] | None = None
    """The dense rows, `-1` padding included (None for the mesh-axes form)."""
    mesh: MeshAxes | None = None
    problem: str | None = None
    """Why the attribute is malformed (not a rank-2 integer constant), if it is."""

    @property
    def ids(self) -> list[int]:
        return [i for row in self.rows or () for i in row if i != -1]

    @property
    def empty(self) -> bool:
        return self.rows is not None and not self.ids and not any(self.rows)

    @property
    def padded(self) -> bool:
        return any(i == -1 for row in self.rows or () for i in row)

    @property
    def width(self) -> int | None:
        """dim(replica_groups, 1) as written."""
        if self.rows is None or not self.rows:
            return 0 if self.rows is not None else None
        return len(self.rows[0])


def _attr_text(ctx: Context, attr: Attribute) -> str:
    text = getattr(attr, "text", "") or ""
    span = getattr(attr, "span", None)
    if not text and isinstance(span, Span):
        text = ctx.source.text[span.start:span.end]
    return text


def replica_groups(op: Operation, ctx: Context) -> ReplicaGroups | None:
    """The op's replica groups, decoded (memoised per op); None when it has none."""
    memo = ctx.cache.setdefault("collectives.groups", {})
    if op not in memo:
        memo[op] = _read_groups(op, ctx)
    return memo[op]


def _read_groups(op: Operation, ctx: Context) -> ReplicaGroups | None:
    attr = op.attr("replica_groups")
    if attr is None:
        return None
    span = attr_where(ctx, op, "replica_groups")
    if isinstance(attr, DenseElementsAttr):
        ttype = attr.type
        if isinstance(ttype, TensorType) and ttype.shape is not None and len(ttype.shape) != 2:
            return ReplicaGroups(span, problem=f"replica_groups has type {ttype}, expected a rank-2 tensor")
        if isinstance(ttype, TensorType) and not (isinstance(ttype.element, ScalarType)
                                                   and ttype.element.is_integer):
            return ReplicaGroups(span, problem=f"replica_groups has element type {ttype.element}, expected i64")
        shape = ttype.shape if isinstance(ttype, TensorType) else None
        if shape is not None and 0 in shape:
            # No ids at all: one empty row stands for any number of them.
            return ReplicaGroups(span, rows=[[] for _ in range(min(shape[0] or 0, 1))])
        try:
            arr = attr.array
        except Exception:
            literal = attr.literal.strip()
            if literal in ("", "[]", "[[]]"):
                return ReplicaGroups(span, rows=[])
            elem = ttype.element if isinstance(ttype, TensorType) else None
            big = overflowing_integer(literal, elem)
            if big is not None:
                return ReplicaGroups(span, problem=f"replica id {big} does not fit the element type {elem}")
            return ReplicaGroups(span, problem="replica_groups could not be read as integers")
        if arr.ndim == 1 and arr.size == 0:
            return ReplicaGroups(span, rows=[])
        if arr.ndim != 2:
            return ReplicaGroups(span, problem=f"replica_groups has rank {arr.ndim}, expected a rank-2 tensor")
        return ReplicaGroups(span, rows=[[int(v) for v in row] for row in arr])
    text = _attr_text(ctx, attr)
    if (isinstance(attr, DialectAttr) and attr.name == "replica_group_mesh_axes") or \
            "replica_group_mesh_axes" in text:
        m = _MESH_NAME.search(text)
        found = _AXIS_REF.findall(text)
        axes = [(name, int(size) if size else None) for name, _pre, size in found]
        pres = [int(pre) if pre else None for _name, pre, _size in found]
        inline = None
        if m is None and "mesh_axis<" in text:
            inline = {a: int(n) for a, n in _INLINE_MESH_AXIS.findall(text)}
        return ReplicaGroups(span, mesh=MeshAxes(m.group(1) if m else None, axes, pres, inline))
    if isinstance(attr, (DialectAttr, OpaqueAttr)):
        return None  # a form we do not know: say nothing
    return ReplicaGroups(span, problem="replica_groups is not a dense integer constant")


_MESH_AXIS = re.compile(r'"([^"]+)"\s*=\s*(\d+)')
_DICT_MESH_AXIS = re.compile(r'name\s*=\s*"([^"]+)"\s*,\s*size\s*=\s*(\d+)')


def symbol_defined(ctx: Context, name: str) -> bool:
    """Whether the module defines symbol `@name` (an op with that sym_name, or,
    for ops we read as opaque text such as `sdy.mesh @m = ...`, any mention of
    `@name` other than a replica_groups mesh reference: said generously, so a
    missing-symbol finding is never a guess)."""
    memo = ctx.cache.setdefault("collectives.symbols", {})
    if name not in memo:
        found = any(op.symbol_name == name for op in ctx.module.walk())
        if not found:
            text = ctx.source.text
            mentions = len(re.findall(rf"@{re.escape(name)}(?![\w.$-])", text))
            refs = len(re.findall(rf"\bmesh(?:_name)?\s*=\s*@{re.escape(name)}(?![\w.$-])", text))
            found = mentions > refs
        memo[name] = found
    return memo[name]


def mesh_axis_sizes(ctx: Context, name: str | None, inline: dict[str, int] | None = None) -> dict[str, int] | None:
    """Axis name → size for the `sdy.mesh @name` of this module (None if not found),
    or of an inlined mesh."""
    if inline is not None:
        return inline
    if name is None:
        return None
    cache = ctx.cache.setdefault("collectives.meshes", {})
    if name in cache:
        return cache[name]
    found = None
    for op in ctx.module.walk():
        if op.name == "sdy.mesh":
            text = ctx.source.text[op.span.start:op.span.end]
            if re.search(rf"@{re.escape(name)}\b", text) or op.symbol_name == name:
                found = {a: int(n) for a, n in _MESH_AXIS.findall(text.split("{stablehlo.mesh", 1)[0])}
                if not found:  # the generic form's `stablehlo.mesh = {axes = [{name = "x", size = 2}]}`
                    found = {a: int(n) for a, n in _DICT_MESH_AXIS.findall(text)}
                # A mesh whose axes we could not read is unknown, not empty: say nothing.
                found = found or None
                break
    cache[name] = found
    return found


def mesh_group_size(ctx: Context, mesh: MeshAxes) -> int | None:
    """How many processes one mesh-axes group holds (None when it cannot be resolved)."""
    sizes = mesh_axis_sizes(ctx, mesh.mesh_name, mesh.inline)
    if sizes is None or not mesh.axes:
        return None
    total = 1
    for axis, sub in mesh.axes:
        if sub is not None:
            total *= sub
        elif axis in sizes:
            total *= sizes[axis]
        else:
            return None
    return total


def strategy_defined(op: Operation) -> bool:
    """False for `use_global_device_ids` without a positive channel_id: the spec
    defines no process groups then (C4/C5 report it; group checks stay quiet)."""
    if not flag(op, "use_global_device_ids"):
        return True
    ch = channel_id(op)
    return ch is not None and ch > 0


def axis_size(op: Operation, ctx: Context) -> int | None:
    """N: how many ids the op's strategy ranges over (None without a grid)."""
    if not ctx.grid.known:
        return None
    return ctx.grid.axis_size(strategy(op))


def group_size(op: Operation, ctx: Context) -> int | None:
    """dim(process_groups, 1): how many processes meet in each group (None if unknown)."""
    groups = replica_groups(op, ctx)
    if groups is None or groups.problem:
        return None
    if groups.mesh is not None:
        return mesh_group_size(ctx, groups.mesh)
    if not strategy_defined(op):
        return None
    strat = strategy(op)
    grid = ctx.grid
    if groups.empty:
        if not grid.known or strat == FLATTENED_IDS:
            return None
        if strat == CROSS_REPLICA_AND_PARTITION:
            return grid.num_replicas * grid.num_partitions  # type: ignore[operator]
        return grid.axis_size(strat)
    widths = {len([i for i in row if i != -1]) for row in groups.rows or ()}
    if len(widths) != 1:
        return None
    width = widths.pop()
    if strat == CROSS_REPLICA_AND_PARTITION:
        return width * grid.num_partitions if grid.known else None  # type: ignore[operator]
    return width


# --------------------------------------------------------------------------- group checks
def check_groups_form(op: Operation, ctx: Context, label: str) -> Iterator[Diagnostic]:
    """replica_groups is a rank-2 integer constant (the spec's input type, e.g. all_gather I3),
    or a mesh-axes form whose axes exist in the module's mesh (when it can be found)."""
    groups = replica_groups(op, ctx)
    if groups is None:
        return
    if groups.problem:
        yield ctx.error(groups.span, f"{op_label(op)}: {groups.problem} ({label})", op=op)
        return
    mesh = groups.mesh
    if mesh is not None and mesh.mesh_name is not None and not symbol_defined(ctx, mesh.mesh_name):
        yield ctx.error(groups.span, f"{op_label(op)}: replica_groups refers to mesh @{mesh.mesh_name}, which is "
                                     f"not defined in this module ({label})", op=op)
        return
    sizes = mesh_axis_sizes(ctx, mesh.mesh_name, mesh.inline) if mesh is not None else None
    if mesh is None or sizes is None:
        return
    seen: set[str] = set()
    for (axis, size), pre in zip(mesh.axes, mesh.pre_sizes):
        if axis not in sizes:
            which_mesh = f"@{mesh.mesh_name}" if mesh.mesh_name else "(inline)"
            yield ctx.error(groups.span, f"{op_label(op)}: replica_groups names axis \"{axis}\", but mesh "
                                         f"{which_mesh} has only {', '.join(sizes) or 'no axes'} ({label})", op=op)
            continue
        if size is None and axis in seen:
            yield ctx.error(groups.span, f"{op_label(op)}: replica_groups names axis \"{axis}\" twice ({label})",
                            op=op)
        seen.add(axis)
        if size is not None and pre is not None and (size <= 0 or pre <= 0 or sizes[axis] % (pre * size)):
            yield ctx.error(groups.span, f"{op_label(op)}: sub-axis ({pre}){size} does not divide axis "
                                         f"\"{axis}\" of size {sizes[axis]} ({label})", op=op)


def check_unique_ids(op: Operation, ctx: Context) -> Iterator[Diagnostic]:
    """is_unique(replica_groups): no id appears twice (across all groups)."""
    groups = replica_groups(op, ctx)
    if groups is None or groups.rows is None:
        return
    where: dict[int, int] = {}
    reported: set[int] = set()
    for g, row in enumerate(groups.rows):
        for i in row:
            if i == -1:
                continue
            if i in where and i not in reported:
                reported.add(i)
                first = where[i]
                place = "in the same group" if first == g else f"in groups {first} and {g}"
                yield ctx.error(groups.span, f"{op_label(op)}: replica id {i} appears more than once "
                                             f"in replica_groups ({place})", op=op)
            where.setdefault(i, g)


def check_ids_in_range(op: Operation, ctx: Context, *, padding: bool, need_grid: bool,
                       check: str, contiguous: bool = False) -> Iterator[Diagnostic]:
    """0 <= replica_groups < N.

    contiguous: with a grid too, the ids written must be exactly 0..k-1 (what the
    verifier checks for ops that have no coverage rule, e.g. collective_reduce).
    padding: `-1` may pad ragged groups (all_reduce); elsewhere it is an error, since
    those ops need groups of equal size. need_grid: the bound is only N from the grid
    (collective_broadcast C2); otherwise, with no grid, the spec's literal bound
    `size(replica_groups)` (the number of ids) is used.
    """
    groups = replica_groups(op, ctx)
    if groups is None or groups.rows is None:
        return
    name = op_label(op)
    if not strategy_defined(op):
        return
    negative = sorted({i for i in groups.ids if i < 0})
    if groups.padded and not padding:
        if need_grid:  # collective_broadcast / collective_reduce: no padding at all
            negative = [-1] + negative
        else:
            yield ctx.error(groups.span, f"{name}: replica id -1 pads a ragged group, but {name} needs "
                                         f"groups of equal size", op=op)
    for i in negative:
        yield ctx.error(groups.span, f"{name}: replica id {i} is negative", op=op)
    n = axis_size(op, ctx)
    ids = groups.ids
    if n is None:
        grid_needed(ctx, op, check)
        if need_grid:
            return
        bound = len(set(ids))
        over = sorted({i for i in ids if i >= bound})
        if over:
            yield ctx.error(groups.span, f"{name}: replica id {over[0]} is out of range: replica_groups "
                                         f"hold {bound} ids, so every id must lie in [0, {bound})", op=op)
        return
    over = sorted({i for i in ids if i >= n})
    if over:
        yield ctx.error(groups.span, f"{name}: replica id {over[0]} is out of range [0, {n}) for "
                                     f"{_axis_words(op, ctx)}", op=op)
    elif contiguous:
        # The verifier's own check, grid or not: the ids are exactly 0..k-1
        # (ops with no coverage constraint, e.g. collective_reduce).
        gap = first_missing(set(ids), len(set(ids)), 1)
        if gap:
            yield ctx.error(groups.span, f"{name}: replica id {gap[0]} is missing: the {len(set(ids))} ids "
                                         f"written must be 0..{len(set(ids)) - 1}", op=op)


def _axis_words(op: Operation, ctx: Context) -> str:
    strat = strategy(op)
    g = ctx.grid
    if strat in (CROSS_REPLICA, CROSS_REPLICA_AND_PARTITION):
        return f"{strat} (num_replicas = {g.num_replicas})"
    if strat == CROSS_PARTITION:
        return f"{strat} (num_partitions = {g.num_partitions})"
    return f"{strat} (num_replicas x num_partitions = {g.size})"


def check_groups_cover(op: Operation, ctx: Context, check: str) -> Iterator[Diagnostic]:
    """size(replica_groups) = N: the groups name every id on the strategy's axis
    (empty groups mean one group of all of them, except under flattened_ids)."""
    groups = replica_groups(op, ctx)
    if groups is None or groups.rows is None:
        return
    name = op_label(op)
    strat = strategy(op)
    if not strategy_defined(op):
        return
    if groups.empty:
        if strat == FLATTENED_IDS:
            yield ctx.error(groups.span, f"{name}: replica_groups is empty, but use_global_device_ids "
                                         f"(flattened_ids) needs the process ids written out", op=op)
        return
    n = axis_size(op, ctx)
    if n is None:
        grid_needed(ctx, op, check)
        return
    distinct = set(groups.ids)
    if len(distinct) == n:
        return
    # Arithmetic on the ids written, never range(n): n may be 2^31.
    in_range = sum(1 for i in distinct if 0 <= i < n)
    missing = first_missing(distinct, n, 7)
    more = n - in_range > len(missing)
    detail = f"; missing {_short(missing, more=more)}" if missing and len(distinct) < n else ""
    yield ctx.error(groups.span, f"{name}: replica_groups name {len(distinct)} distinct ids, but "
                                 f"{_axis_words(op, ctx)} needs all {n}{detail}", op=op)


def first_missing(present: set[int], n: int, limit: int) -> list[int]:
    """The smallest ids of [0, n) not in `present`, at most `limit` of them. The
    answer lies below len(present) + limit, so this costs O(len(present) + limit)
    whatever n is."""
    out = []
    for i in range(min(n, len(present) + limit)):
        if i not in present:
            out.append(i)
            if len(out) == limit:
                break
    return out


def _short(ids: list[int], limit: int = 6, more: bool = False) -> str:
    s = ", ".join(map(str, ids[:limit]))
    return s + (", ..." if len(ids) > limit or more else "")


def check_global_ids_channel(op: Operation, ctx: Context, zero_is_warning: bool = False) -> Iterator[Diagnostic]:
    """use_global_device_ids = true ⇒ channel_id > 0. zero_is_warning: the
    verifier only rejects a negative id (all_gather), so a missing or zero one is
    a warning."""
    if not flag(op, "use_global_device_ids"):
        return
    ch = channel_id(op)
    if ch is not None and ch > 0:
        return
    where = attr_where(ctx, op, "channel_handle") if op.attr("channel_handle") is not None \
        else attr_where(ctx, op, "use_global_device_ids")
    seen = "no channel_handle" if ch is None else f"channel_id {ch}"
    msg = f"{op_label(op)}: use_global_device_ids is set, but the op has {seen}; it needs a channel_id > 0"
    if zero_is_warning and (ch is None or ch == 0):
        yield ctx.warning(where, msg + " (the StableHLO verifier accepts this; the spec and XLA do not)", op=op)
        return
    yield ctx.error(where, msg, op=op)


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
    if last and last[0].name in RETURN_OPS:
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
        yield ctx.error(op, f"{name}: computation has type {sig}, expected (tensor<E>, tensor<E>) -> "
                            f"tensor<E> with 0-d tensors of one element type E")
        return
    e = comp.element
    for i, t in enumerate(operand_types):
        tt = tensor(t)
        if tt is None:
            continue
        ok = is_promotable(tt.element, e)
        if ok is False:
            which = f"operand {i} " if len(operand_types) > 1 else "operand "
            msg = f"{name}: {which}element type {tt.element} is not promotable to the computation's element type {e}"
            if is_promotable(tt.element, e, ignore_fp_precision=True):
                # A narrower float: the spec's is_promotable says no, the 1.20
                # verifier ignores float precision here. A warning.
                yield ctx.warning(op, msg + " (a narrower float: the StableHLO verifier accepts it, the spec does "
                                            "not)")
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


def defining_constant(v: Value | None) -> int | None:
    """The integer a 0-d `stablehlo.constant` defines, else None."""
    op = v.defining_op if v is not None else None
    if op is None or op.name not in ("stablehlo.constant", "arith.constant"):
        return None
    attr = op.attr("value")
    if not isinstance(attr, (DenseElementsAttr, IntegerAttr)):
        attr = next((a for a in op.attributes.values() if isinstance(a, (DenseElementsAttr, IntegerAttr))), None)
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
    op = v.defining_op if v is not None else None
    if op is None or op.name not in ("stablehlo.constant", "arith.constant"):
        return None
    attr = op.attr("value")
    if not isinstance(attr, (DenseElementsAttr, IntegerAttr)):
        attr = next((a for a in op.attributes.values() if isinstance(a, (DenseElementsAttr, IntegerAttr))), None)
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
    "POINT_AT_ATTRIBUTE", "attr_where", "Computation", "GRID_SKIPPED", "MeshAxes", "ReplicaGroups", "axis_size", "base_kind", "check_arity",
    "check_computation", "check_global_ids_channel", "check_groups_cover", "check_groups_form",
    "check_ids_in_range", "check_unique_ids", "computation", "data_operand_types", "defining_constant",
    "defining_constants",
    "dim_out_of_range", "fmt_dims", "fmt_types", "grid_needed", "group_size", "has_dynamic_root",
    "is_promotable", "op_label", "pairs", "replica_groups", "result_types", "tensor", "unwrap_futures",
    "which",
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
