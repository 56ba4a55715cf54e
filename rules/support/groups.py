"""Replica groups: reading `replica_groups` (dense rows or the mesh-axes form),
process-group sizes from the grid or a mesh, and the checks every collective
shares (form, unique ids, ids in range, coverage, use_global_device_ids).

Everything here is arithmetic on the ids written: nothing enumerates the process
grid, so a 2^31-process module costs what an 8-process one costs.
"""
from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field
from typing import Iterator

from shlo_lint.checker.ir.attributes import Attribute, DenseElementsAttr, DialectAttr, OpaqueAttr, ReplicaGroupsAttr
from shlo_lint.checker.lint.context import PER_OP, CacheKey, Context
from shlo_lint.checker.source.diagnostics import Diagnostic, Edit, Fix
from shlo_lint.checker.ir.core import Operation
from shlo_lint.checker.analysis.semantics import (CROSS_PARTITION, CROSS_REPLICA, CROSS_REPLICA_AND_PARTITION,
                                                  FLATTENED_IDS, channel_id, flag, strategy)
from shlo_lint.checker.source.text import Span, in_line_comment
from shlo_lint.checker.ir.types import ScalarType, TensorType

from .grid_checks import grid_needed, overflowing_integer
from .shapes import attr_where, elided, op_label

GROUPS_KEY = CacheKey("collectives.groups", PER_OP)
"""ctx.cache: op -> its replica groups, read from its own attributes."""


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
    old_spelling: Span | None = None
    """Where the seed RFC's `mesh_name` keyword is written (StableHLO spells it `mesh`)."""


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
    memo = ctx.cache.setdefault(GROUPS_KEY, {})
    if op not in memo:
        memo[op] = _read_groups(op, ctx)
    return memo[op]


@functools.lru_cache(maxsize=64)
def _compact_rows(attr: ReplicaGroupsAttr) -> list[list[int]]:
    """The groups of a compact spelling (HLO's iota / mesh axes), listed once per spelling
    (shared by every op written with it: read, never changed)."""
    return [list(g) for g in attr.rows()]


def _read_groups(op: Operation, ctx: Context) -> ReplicaGroups | None:
    attr = op.attr("replica_groups")
    if attr is None:
        return None
    span = attr_where(ctx, op, "replica_groups")
    if isinstance(attr, ReplicaGroupsAttr):
        return ReplicaGroups(span, rows=_compact_rows(attr))
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
        old = None
        k = re.search(r"\bmesh_name\b", text)
        base = getattr(attr, "span", None)
        if k is not None and isinstance(base, Span) and ctx.source.text[base.start:base.end] == text:
            old = Span(base.start + k.start(), base.start + k.end())
        elif k is not None:
            old = span
        return ReplicaGroups(span, mesh=MeshAxes(m.group(1) if m else None, axes, pres, inline, old))
    if isinstance(attr, (DialectAttr, OpaqueAttr)):
        return None  # a form we do not know: say nothing
    return ReplicaGroups(span, problem="replica_groups is not a dense integer constant" + elided(attr))


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
        if not found:  # mentions in comments are no definition (nor reference)
            text = ctx.source.text
            mentions = _count(rf"@{re.escape(name)}(?![\w.$-])", text)
            refs = _count(rf"\bmesh(?:_name)?\s*=\s*@{re.escape(name)}(?![\w.$-])", text)
            found = mentions > refs
        memo[name] = found
    return memo[name]


def _count(pattern: str, text: str) -> int:
    return sum(1 for m in re.finditer(pattern, text) if not in_line_comment(text, m.start()))


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
    if mesh is not None and mesh.old_spelling is not None:
        d = ctx.error(groups.span, f"{op_label(op)}: replica_group_mesh_axes names its mesh with `mesh_name` "
                                   f"({label})", op=op)
        d = d.note(ctx.loc(groups.span), "`mesh_name` is the seed RFC's spelling; StableHLO (1.20) writes "
                                         "`mesh = @...` and does not parse `mesh_name`")
        if mesh.old_spelling != groups.span:
            d = d.with_fix(Fix.safe("Write `mesh`", [Edit(mesh.old_spelling, "mesh")]))
        yield d
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
                yield ctx.error(groups.span, f"{op_label(op)}: replica id {i} appears twice in replica_groups "
                                             f"({place})", op=op)
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
        d = ctx.error(groups.span, f"{name}: replica id {over[0]} is out of range [0, {n}) for {strategy(op)}",
                      op=op)
        yield d.note(ctx.loc(groups.span), _axis_words(op, ctx))
    elif contiguous:
        # The verifier's own check, grid or not: the ids are exactly 0..k-1
        # (ops with no coverage constraint, e.g. collective_reduce).
        gap = first_missing(set(ids), len(set(ids)), 1)
        if gap:
            yield ctx.error(groups.span, f"{name}: replica id {gap[0]} is missing: the {len(set(ids))} ids "
                                         f"written must be 0..{len(set(ids)) - 1}", op=op)


def _axis_words(op: Operation, ctx: Context) -> str:
    """What the ids count under the op's strategy (a note: the headline names the strategy)."""
    strat = strategy(op)
    g = ctx.grid
    if strat in (CROSS_REPLICA, CROSS_REPLICA_AND_PARTITION):
        return f"{strat} ids count the replicas: num_replicas = {g.num_replicas}"
    if strat == CROSS_PARTITION:
        return f"{strat} ids count the partitions: num_partitions = {g.num_partitions}"
    return f"{strat} ids count every process: num_replicas x num_partitions = {g.size}"


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
            yield ctx.error(groups.span, f"{name}: replica_groups is empty under use_global_device_ids", op=op,
                            help="write the process ids out: use_global_device_ids (flattened_ids) gives no "
                                 "default group")
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
    d = ctx.error(groups.span, f"{name}: replica_groups name {len(distinct)} distinct ids, but {strat} needs all "
                               f"{n}{detail}", op=op)
    yield d.note(ctx.loc(groups.span), _axis_words(op, ctx))


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
    msg = f"{op_label(op)}: use_global_device_ids needs a channel_id > 0"
    if zero_is_warning and (ch is None or ch == 0):
        d = ctx.warning(where, msg, op=op)
        yield d.note(ctx.loc(where), f"the op has {seen}: the StableHLO verifier accepts this; the spec and XLA "
                                     f"do not")
        return
    yield ctx.error(where, msg, op=op).note(ctx.loc(where), f"the op has {seen}")
