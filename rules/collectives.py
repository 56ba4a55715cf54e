"""The collectives: `all_gather`, `all_reduce`, `reduce_scatter`, `all_to_all`,
`collective_broadcast`, `collective_reduce` (and seed 004's `*_start` forms, which
"take the same arguments and have the same constraints").

Constraint labels (C1, C2, ...) are the current StableHLO spec's. The spec has no
`collective_reduce` section yet; its labels here follow `collective_broadcast`
(C1 unique ids, C2 ids in range, C3 result type) plus C4 for the reduction region,
as `all_reduce` C5 words it. The replica-group checks are shared (rules/_shapes.py):

* unique ids; ids in `[0, N)` with N from the process grid for the op's strategy
  (without a grid, the spec's literal bound `size(replica_groups)`, i.e. the ids
  must be 0..n-1); `-1` pads ragged groups only for `all_reduce`; the groups cover
  the axis (`size(replica_groups) = N`); an empty `replica_groups` is one group of
  every id (except with `use_global_device_ids`, where ids must be written out);
* the `#stablehlo.replica_group_mesh_axes<...>` form is accepted; its group size is
  read from the module's `sdy.mesh` when it can be.

The rules themselves live in one module per op: all_gather.py, all_reduce.py,
reduce_scatter.py, all_to_all.py, collective_broadcast.py, collective_reduce.py.
This module holds the op-name tuples, SHLO200 (shared by all of them) and the
result-type helpers they share.
"""
from __future__ import annotations

from typing import Iterator

from shlo_lint.checker.lint.context import Context
from shlo_lint.checker.source.diagnostics import Diagnostic
from shlo_lint.checker.ir.core import Operation
from shlo_lint.checker.lint.registry import rule
from shlo_lint.checker.analysis.semantics import int_attr
from shlo_lint.checker.ir.types import QuantizedType, ScalarType

from .support.groups import (check_groups_form, group_size)
from .support.shapes import (attr_where, check_arity, computation, data_operand_types, defining_constants, dim_out_of_range,
                      fmt_dims, has_dynamic_root, op_label, pairs, result_types, tensor, which)


def _on(kind: str) -> tuple[str, str]:
    return f"stablehlo.{kind}", f"stablehlo.{kind}_start"


ALL_GATHER = _on("all_gather")
ALL_REDUCE = _on("all_reduce")
REDUCE_SCATTER = _on("reduce_scatter")
ALL_TO_ALL = _on("all_to_all")
COLLECTIVE_BROADCAST = _on("collective_broadcast")
COLLECTIVE_REDUCE = _on("collective_reduce")

_INPUT_LABEL = {"all_gather": "all_gather I3", "all_reduce": "all_reduce I2", "reduce_scatter": "reduce_scatter I3",
                "all_to_all": "all_to_all I5", "collective_broadcast": "collective_broadcast I2",
                "collective_reduce": "collective_reduce I2"}


# =========================================================================== shared
@rule("SHLO200", "replica-groups-malformed",
      on=ALL_GATHER + ALL_REDUCE + REDUCE_SCATTER + ALL_TO_ALL + COLLECTIVE_BROADCAST + COLLECTIVE_REDUCE, local=True)
def replica_groups_malformed(op: Operation, ctx: Context) -> Iterator[Diagnostic]:
    """`replica_groups` is not a rank-2 integer constant.

    ## What it does
    Checks the input type of `replica_groups` on every collective that takes it:
    a 2-dimensional tensor constant of type `si64` (all_gather I3, all_reduce I2,
    reduce_scatter I3, all_to_all I5, collective_broadcast I2), or the
    `#stablehlo.replica_group_mesh_axes<...>` form, whose axes must exist in the
    module's `sdy.mesh` (named once each; a sub-axis `(pre)size` must divide its
    axis) when that mesh is in the file. The mesh is written `mesh = @m` in the
    current spec (1.20) or inlined as `#stablehlo.mesh<axes = [...]>`; a symbol
    that the module does not define is reported, as the 1.20 verifier does
    ("mesh symbol ... not found"). The seed RFC's `mesh_name = @m` is read (its
    axes are checked) but reported, since StableHLO does not parse it; the fix
    (safe) writes `mesh`.

    ## Why is this bad?
    The StableHLO verifier rejects the program ("replica groups should be a rank 2
    tensor"), so XLA never compiles it.

    ## Example
    ```mlir
    %0 = "stablehlo.all_gather"(%x) <{all_gather_dim = 0 : i64, replica_groups = dense<[0, 1]> : tensor<2xi64>}> : (tensor<2x4xf32>) -> tensor<4x4xf32>
    ```

    ## Use instead
    One row per group:
    ```mlir
    %0 = "stablehlo.all_gather"(%x) <{all_gather_dim = 0 : i64, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>}> : (tensor<2x4xf32>) -> tensor<4x4xf32>
    ```
    """
    kind = op_label(op).removesuffix("_start")
    yield from check_groups_form(op, ctx, _INPUT_LABEL.get(kind, f"{kind} replica_groups"))


_PER_TENSOR_ONLY = ALL_GATHER + ALL_REDUCE + REDUCE_SCATTER + ALL_TO_ALL + COLLECTIVE_BROADCAST + \
    COLLECTIVE_REDUCE + ("stablehlo.collective_permute", "stablehlo.async_start")


@rule("SHLO207", "collective-per-axis-quantized", on=_PER_TENSOR_ONLY, spec="collective I1", local=True)
def collective_per_axis_quantized(op: Operation, ctx: Context) -> Iterator[Diagnostic]:
    """A collective takes or returns a per-axis quantized tensor.

    ## What it does
    Checks the operand and result types of all_gather, all_reduce,
    reduce_scatter, all_to_all, collective_broadcast, collective_reduce,
    collective_permute and async_start: "tensors or per-tensor quantized
    tensors" (I1 of each op in the StableHLO 1.20 spec; the verifier's
    `HLO_Tensor`). Per-tensor
    quantized types (`!quant.uniform<i8:f32, 0.5:3>`) are fine; per-axis ones
    (`!quant.uniform<i8:f32:0, {0.1:-30}>`) are not. send and recv do accept
    per-axis types.

    ## Why is this bad?
    The verifier rejects the program: a per-axis scale does not survive being
    split, concatenated or combined across processes.

    ## Example
    ```mlir
    %0 = "stablehlo.collective_permute"(%x) <{source_target_pairs = dense<[[0, 1], [1, 0]]> : tensor<2x2xi64>}> : (tensor<2x!quant.uniform<i8:f32:0, {0.1:-30, 0.2:-30}>>) -> tensor<2x!quant.uniform<i8:f32:0, {0.1:-30, 0.2:-30}>>
    ```

    ## Use instead
    Dequantize first (`stablehlo.uniform_dequantize`), or requantize per
    tensor.
    """
    for where, types in (("operand", op.operand_types), ("result", result_types(op))):
        for i, t in enumerate(types):
            if per_axis_quantized(t):
                yield ctx.error(op, f"{op_label(op)}: {where} {i} has the per-axis quantized type {t}; "
                                    f"{op_label(op)} takes tensors or per-tensor quantized tensors")
                return


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


__all__ = ["ALL_GATHER", "ALL_REDUCE", "ALL_TO_ALL", "COLLECTIVE_BROADCAST", "COLLECTIVE_REDUCE", "REDUCE_SCATTER",
           "compatible", "dim_in_range", "dynamic_root", "element_is_e", "gather_like_result", "needs_data_operand",
           "per_axis_quantized", "same_shapes", "same_types"]
