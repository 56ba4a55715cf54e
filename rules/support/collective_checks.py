"""Checks the collective rule families share (all_gather.py, all_reduce.py,
reduce_scatter.py, all_to_all.py, collective_broadcast.py, collective_reduce.py):
result shapes grown or cut by the group size, dimensions in range, element types,
the dynamic root, and the op names each family runs on."""
from __future__ import annotations

from typing import Iterator

from shlo_lint.checker.analysis.semantics import int_attr
from shlo_lint.checker.ir.catalog import COLLECTIVE, PERMUTE, START, ops_of
from shlo_lint.checker.ir.core import Operation
from shlo_lint.checker.ir.types import QuantizedType, ScalarType
from shlo_lint.checker.lint.context import Context
from shlo_lint.checker.source.diagnostics import Diagnostic
from .groups import group_size
from .shapes import (attr_where, check_arity, computation, data_operand_types, defining_constants, dim_out_of_range,
                     fmt_dims, has_dynamic_root, op_label, pairs, result_types, tensor, which)


def _on(kind: str) -> tuple[str, ...]:
    """The StableHLO ops of a kind a family's rules run on: the op and its async start."""
    return ops_of(kind, COLLECTIVE, PERMUTE, START, dialect="stablehlo")


ALL_GATHER = _on("all_gather")


ALL_REDUCE = _on("all_reduce")


REDUCE_SCATTER = _on("reduce_scatter")


ALL_TO_ALL = _on("all_to_all")


COLLECTIVE_BROADCAST = _on("collective_broadcast")


COLLECTIVE_REDUCE = _on("collective_reduce")


def gather_like_result(op: Operation, ctx: Context, attr: str, grow: bool) -> Iterator[Diagnostic]:
    """Result = operand except along `attr`'s dimension, which is multiplied (all_gather)
    or divided (reduce_scatter) by the group size. Element types are checked by the
    caller when they differ in meaning (reduce_scatter C9)."""
    name = op_label(op)
    yield from check_arity(op, ctx, data_operand_types(op), result_types(op))
    dim = int_attr(op, attr)
    gs = group_size(op, ctx)
    for i, a, r in pairs(op):
        if grow and a.element != r.element:
            yield ctx.error(op, f"{name}: {which(op, i)} element type {r.element} differs from the operand's "
                                f"{a.element}")
        if a.rank != r.rank:
            yield ctx.error(op, f"{name}: {which(op, i)} has rank {r.rank}, but the operand has rank {a.rank}")
            continue
        if dim is None or dim_out_of_range(dim, a.rank):  # type: ignore[arg-type]
            continue
        others = [d for d in range(a.rank) if d != dim and None not in (a.shape[d], r.shape[d])  # type: ignore
                  and a.shape[d] != r.shape[d]]  # type: ignore[index]
        if others:
            yield ctx.error(op, f"{name}: {which(op, i)} shape {fmt_dims(r.shape)} differs from the operand "
                                f"shape {fmt_dims(a.shape)} outside {attr} {dim}")
        od, rd = a.shape[dim], r.shape[dim]  # type: ignore[index]
        if od is None or rd is None:
            continue
        if od == 0:
            yield ctx.error(op, f"{name}: the operand's dimension {dim} ({attr}) has size 0")
            continue
        if not grow and rd == 0:
            yield ctx.error(op, f"{name}: {which(op, i)} dimension {dim} ({attr}) has size 0")
            continue
        # What the StableHLO verifier (1.20) checks: a multiple. An error.
        if grow and rd % od:
            yield ctx.error(op, f"{name}: {which(op, i)} dimension {dim} ({attr}) is {rd}, not a multiple of "
                                f"the operand's {od}")
            continue
        if not grow and od % rd:
            yield ctx.error(op, f"{name}: the operand's dimension {dim} ({attr}) is {od}, not a multiple of "
                                f"the result's {rd}")
            continue
        # What only the spec says (x / ÷ the group size): the verifier accepts the
        # program (TODO #1745/#1746 upstream), XLA's HLO verifier does not. A warning.
        if gs is not None:
            want = od * gs if grow else (od // gs if od % gs == 0 else None)
            if want is not None and rd != want:
                how = f"{od} x {gs}" if grow else f"{od} / {gs}"
                yield ctx.warning(op, f"{name}: {which(op, i)} dimension {dim} ({attr}) is {rd}, expected "
                                      f"{how} (group size) = {want}; the StableHLO verifier accepts this, XLA "
                                      f"rejects it")


def dim_in_range(op: Operation, ctx: Context, attr: str) -> Iterator[Diagnostic]:
    dim = int_attr(op, attr)
    if dim is None:
        return
    for t in data_operand_types(op):
        tt = tensor(t)
        if tt is not None and dim_out_of_range(dim, tt.rank):  # type: ignore[arg-type]
            yield ctx.error(attr_where(ctx, op, attr), f"{op_label(op)}: {attr} {dim} is out of range for a "
                                                     f"rank-{tt.rank} operand", op=op)
            return


def element_is_e(op: Operation, ctx: Context) -> Iterator[Diagnostic]:
    """element_type(results...) = E, E the computation's element type."""
    comp = computation(op)
    e = comp.element if comp is not None else None
    if e is None:
        return
    for i, t in enumerate(result_types(op)):
        tt = tensor(t)
        if tt is not None and tt.element != e:
            yield ctx.error(op, f"{op_label(op)}: {which(op, i)} element type {tt.element} differs from the "
                                f"computation's element type {e}")


def same_shapes(op: Operation, ctx: Context) -> Iterator[Diagnostic]:
    """shape(results...) = shape(operands...)."""
    yield from check_arity(op, ctx, data_operand_types(op), result_types(op))
    for i, a, r in pairs(op):
        if a.shape != r.shape and not compatible(a.shape, r.shape):
            yield ctx.error(op, f"{op_label(op)}: {which(op, i)} shape {fmt_dims(r.shape)} differs from the "
                                f"operand shape {fmt_dims(a.shape)}")


def compatible(s1, s2) -> bool:
    return len(s1) == len(s2) and all(x is None or y is None or x == y for x, y in zip(s1, s2))


def same_types(op: Operation, ctx: Context) -> Iterator[Diagnostic]:
    """type(result) = type(operand)."""
    if has_dynamic_root(op) and len(op.operand_types) != len(result_types(op)) + 1:
        return  # the dynamic-root rule reports the missing root operand
    yield from check_arity(op, ctx, data_operand_types(op), result_types(op))
    for i, a, r in pairs(op):
        if a.element != r.element or not compatible(a.shape, r.shape):
            yield ctx.error(op, f"{op_label(op)}: {which(op, i)} type {r} differs from the operand type {a}")


def dynamic_root(op: Operation, ctx: Context) -> Iterator[Diagnostic]:
    """With `has_dynamic_root`, the last operand holds one root index per data
    operand: at least two operands, the last of type `tensor<[n]xi32>` with n the
    number of data operands (collective_broadcast C4, collective_reduce C3; the
    StableHLO 1.20 verifier checks the same), and a constant root lies in
    `[0, group size)` (collective_broadcast C6).

    The seed RFC and shlo-lint before 0.6 read the root as one 0-d integer; the
    current spec (1.20) wins: a 0-d root is reported."""
    if not has_dynamic_root(op):
        return
    name = op_label(op)
    ops_, res = list(op.operand_types), result_types(op)
    if len(ops_) < 2:
        yield ctx.error(op, f"{name}: has_dynamic_root needs at least two operands (the data, then the root "
                            f"indices), got {len(ops_)}")
        return
    n_data = len(ops_) - 1
    root_t = tensor(ops_[-1])
    want = f"tensor<{n_data}xi32>"
    if ops_[-1] is not None and (root_t is None or root_t.rank != 1 or not _is_i32(root_t.element)):
        yield ctx.error(op, f"{name}: the root operand (the last) has type {ops_[-1]}, expected {want}: one "
                            f"32-bit root index per data operand")
        return
    if root_t is not None and root_t.shape[0] is not None and root_t.shape[0] != n_data:
        yield ctx.error(op, f"{name}: the root operand has {root_t.shape[0]} element(s), expected {n_data} "
                            f"(one per data operand): {want}")
        return
    if len(res) != n_data:
        yield ctx.error(op, f"{name}: {n_data} data operand(s) but {len(res)} result(s); with has_dynamic_root "
                            f"the results are one fewer than the operands")
        return
    roots = defining_constants(op.operands[-1]) if op.operands else None
    gs = group_size(op, ctx)
    for root in roots or ():
        if root < 0 or (gs is not None and root >= gs):
            bound = f"[0, {gs})" if gs is not None else "[0, group size)"
            yield ctx.error(op, f"{name}: root index {root} is outside the group: it must lie in {bound}")
            return


def _is_i32(e) -> bool:
    return isinstance(e, ScalarType) and e.is_integer and e.bitwidth == 32 and not e.is_unsigned


def needs_data_operand(op: Operation, ctx: Context) -> Iterator[Diagnostic]:
    """Without has_dynamic_root, at least one data operand (collective_broadcast C3;
    the 1.20 verifier says the same for collective_reduce)."""
    if has_dynamic_root(op) or op.operand_types:
        return
    yield ctx.error(op, f"{op_label(op)}: the op has no data operand; it needs at least one tensor to "
                        f"{'broadcast' if 'broadcast' in op.name else 'reduce'}")


def per_axis_quantized(t) -> bool:
    """A tensor of `!quant.uniform<storage:expressed:axis, {...}>` (per-axis scales)."""
    tt = tensor(t)
    e = tt.element if tt is not None else None
    return isinstance(e, QuantizedType) and "{" in (e.text or str(e))
