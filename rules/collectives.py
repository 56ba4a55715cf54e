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
"""
from __future__ import annotations

from typing import Iterator

from shlo_lint.checker.context import Context
from shlo_lint.checker.diagnostics import Diagnostic
from shlo_lint.checker.ir import Operation
from shlo_lint.checker.registry import rule
from shlo_lint.checker.semantics import int_attr
from shlo_lint.checker.types import ScalarType

from ._shapes import (attr_where, axis_size, check_arity, check_computation, check_global_ids_channel, check_groups_cover,
                      check_groups_form, check_ids_in_range, check_unique_ids, computation, data_operand_types,
                      defining_constant, dim_out_of_range, fmt_dims, group_size, has_dynamic_root, op_label,
                      pairs, replica_groups, result_types, tensor, which)


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
      on=ALL_GATHER + ALL_REDUCE + REDUCE_SCATTER + ALL_TO_ALL + COLLECTIVE_BROADCAST + COLLECTIVE_REDUCE)
def replica_groups_malformed(op: Operation, ctx: Context) -> Iterator[Diagnostic]:
    """`replica_groups` is not a rank-2 integer constant.

    ## What it does
    Checks the input type of `replica_groups` on every collective that takes it:
    a 2-dimensional tensor constant of type `si64` (all_gather I3, all_reduce I2,
    reduce_scatter I3, all_to_all I5, collective_broadcast I2), or the
    `#stablehlo.replica_group_mesh_axes<...>` form, whose axes must exist in the
    module's `sdy.mesh` (named once each; a sub-axis `(pre)size` must divide its
    axis) when that mesh is in the file.

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


def _gather_like_result(op: Operation, ctx: Context, attr: str, grow: bool) -> Iterator[Diagnostic]:
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
        if gs is not None:
            want = od * gs if grow else (od // gs if od % gs == 0 else None)
            if want is not None and rd != want:
                how = f"{od} x {gs}" if grow else f"{od} / {gs}"
                yield ctx.error(op, f"{name}: {which(op, i)} dimension {dim} ({attr}) is {rd}, expected "
                                    f"{how} (group size) = {want}")
        elif grow and rd % od:
            yield ctx.error(op, f"{name}: {which(op, i)} dimension {dim} ({attr}) is {rd}, not a multiple of "
                                f"the operand's {od}")
        elif not grow and od % rd:
            yield ctx.error(op, f"{name}: the operand's dimension {dim} ({attr}) is {od}, not a multiple of "
                                f"the result's {rd}")


def _dim_in_range(op: Operation, ctx: Context, attr: str) -> Iterator[Diagnostic]:
    dim = int_attr(op, attr)
    if dim is None:
        return
    for t in data_operand_types(op):
        tt = tensor(t)
        if tt is not None and dim_out_of_range(dim, tt.rank):  # type: ignore[arg-type]
            yield ctx.error(attr_where(ctx, op, attr), f"{op_label(op)}: {attr} {dim} is out of range for a "
                                                     f"rank-{tt.rank} operand", op=op)
            return


def _element_is_e(op: Operation, ctx: Context) -> Iterator[Diagnostic]:
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


def _same_shapes(op: Operation, ctx: Context) -> Iterator[Diagnostic]:
    """shape(results...) = shape(operands...)."""
    yield from check_arity(op, ctx, data_operand_types(op), result_types(op))
    for i, a, r in pairs(op):
        if a.shape != r.shape and not _compatible(a.shape, r.shape):
            yield ctx.error(op, f"{op_label(op)}: {which(op, i)} shape {fmt_dims(r.shape)} differs from the "
                                f"operand shape {fmt_dims(a.shape)}")


def _compatible(s1, s2) -> bool:
    return len(s1) == len(s2) and all(x is None or y is None or x == y for x, y in zip(s1, s2))


def _same_types(op: Operation, ctx: Context) -> Iterator[Diagnostic]:
    """type(result) = type(operand)."""
    if has_dynamic_root(op) and len(op.operand_types) != len(result_types(op)) + 1:
        return  # the dynamic-root rule reports the missing root operand
    yield from check_arity(op, ctx, data_operand_types(op), result_types(op))
    for i, a, r in pairs(op):
        if a.element != r.element or not _compatible(a.shape, r.shape):
            yield ctx.error(op, f"{op_label(op)}: {which(op, i)} type {r} differs from the operand type {a}")


# =========================================================================== all_gather
@rule("SHLO201", "all-gather-dim-out-of-range", on=ALL_GATHER, spec="all_gather C1")
def all_gather_dim_out_of_range(op: Operation, ctx: Context) -> Iterator[Diagnostic]:
    """`all_gather_dim` is not a dimension of the operands.

    ## What it does
    Checks all_gather C1: `0 <= all_gather_dim < rank(operands...)`.

    ## Why is this bad?
    There is no such axis to concatenate along; the verifier rejects the program.

    ## Example
    ```mlir
    %0 = "stablehlo.all_gather"(%x) <{all_gather_dim = 2 : i64, channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>, use_global_device_ids}> : (tensor<2x4xf32>) -> tensor<4x4xf32>
    ```

    ## Use instead
    Gather along an existing axis (`jax.lax.all_gather(x, "i", axis=0, tiled=True)`):
    ```mlir
    %0 = "stablehlo.all_gather"(%x) <{all_gather_dim = 0 : i64, channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>, use_global_device_ids}> : (tensor<2x4xf32>) -> tensor<4x4xf32>
    ```
    """
    yield from _dim_in_range(op, ctx, "all_gather_dim")


@rule("SHLO202", "all-gather-duplicate-replica-id", on=ALL_GATHER, spec="all_gather C2")
def all_gather_duplicate_replica_id(op: Operation, ctx: Context) -> Iterator[Diagnostic]:
    """A process id appears twice in the all_gather's `replica_groups`.

    ## What it does
    Checks all_gather C2: `is_unique(replica_groups)`.

    ## Why is this bad?
    A process cannot be in two groups (or twice in one); the verifier rejects the
    program ("replica id #1 seen more than once").

    ## Example
    ```mlir
    %0 = "stablehlo.all_gather"(%x) <{all_gather_dim = 0 : i64, replica_groups = dense<[[0, 1], [1, 2]]> : tensor<2x2xi64>}> : (tensor<2x4xf32>) -> tensor<4x4xf32>
    ```

    ## Use instead
    Give every process exactly one group: `dense<[[0, 1], [2, 3]]>`.
    """
    yield from check_unique_ids(op, ctx)


@rule("SHLO203", "all-gather-groups-not-covering", on=ALL_GATHER, spec="all_gather C3")
def all_gather_groups_not_covering(op: Operation, ctx: Context) -> Iterator[Diagnostic]:
    """The all_gather's replica groups leave out processes of the grid.

    ## What it does
    Checks all_gather C3: `size(replica_groups)` is `num_replicas` (cross_replica,
    cross_replica_and_partition) or `num_processes` (flattened_ids): every id of
    the axis is in some group. Needs the process grid; an empty `replica_groups`
    (one group of everything) is accepted, except with `use_global_device_ids`.

    ## Why is this bad?
    A process that is in no group has no defined result; XLA rejects the groups.

    ## Example
    ```mlir
    module attributes {mhlo.num_partitions = 4 : i32, mhlo.num_replicas = 1 : i32} {
      ... "stablehlo.all_gather"(%x) <{all_gather_dim = 0 : i64, channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>, use_global_device_ids}> ...
    ```

    ## Use instead
    List every process: `replica_groups = dense<[[0, 1], [2, 3]]> : tensor<2x2xi64>`
    (what `shard_map` over a mesh axis produces).
    """
    yield from check_groups_cover(op, ctx, "all_gather C3 (groups cover the axis)")


@rule("SHLO204", "all-gather-replica-id-out-of-range", on=ALL_GATHER, spec="all_gather C4")
def all_gather_replica_id_out_of_range(op: Operation, ctx: Context) -> Iterator[Diagnostic]:
    """An all_gather replica id is negative, `-1` padding, or beyond the grid.

    ## What it does
    Checks all_gather C4: `0 <= replica_groups < size(replica_groups)`, with the
    size from the process grid (`num_replicas`, or `num_replicas × num_partitions`
    under flattened_ids); without a grid, ids must be `0..n-1` for the `n` ids
    written. all_gather needs groups of equal size, so `-1` padding is an error.

    ## Why is this bad?
    The collective waits for a process that does not exist (XLA rejects it, or the
    program hangs).

    ## Example
    ```mlir
    module attributes {mhlo.num_partitions = 2 : i32, mhlo.num_replicas = 1 : i32} {
      ... "stablehlo.all_gather"(%x) <{all_gather_dim = 0 : i64, channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 2]]> : tensor<1x2xi64>, use_global_device_ids}> ...
    ```

    ## Use instead
    Use ids of processes that exist: `dense<[[0, 1]]>`.
    """
    yield from check_ids_in_range(op, ctx, padding=False, need_grid=False, check="all_gather C4 (ids < N)")


@rule("SHLO205", "all-gather-global-ids-without-channel", on=ALL_GATHER, spec="all_gather C5")
def all_gather_global_ids_without_channel(op: Operation, ctx: Context) -> Iterator[Diagnostic]:
    """all_gather sets `use_global_device_ids` without a positive channel_id.

    ## What it does
    Checks all_gather C5: `use_global_device_ids = true` ⇒ `channel_id > 0`.

    ## Why is this bad?
    Flattened (global) device ids are only defined for cross-partition collectives,
    which need a channel; the verifier rejects the program.

    ## Example
    ```mlir
    %0 = "stablehlo.all_gather"(%x) <{all_gather_dim = 0 : i64, channel_handle = #stablehlo.channel_handle<handle = 0, type = 0>, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>, use_global_device_ids}> : (tensor<2x4xf32>) -> tensor<4x4xf32>
    ```

    ## Use instead
    Give it a channel, as JAX does:
    `channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>`.
    """
    yield from check_global_ids_channel(op, ctx)


@rule("SHLO206", "all-gather-result-type-mismatch", on=ALL_GATHER, spec="all_gather C6")
def all_gather_result_type_mismatch(op: Operation, ctx: Context) -> Iterator[Diagnostic]:
    """The all_gather's result type is not the operand's grown along `all_gather_dim`.

    ## What it does
    Checks all_gather C6: `type(results...) = type(operands...)` except
    `dim(results..., all_gather_dim) = dim(operands..., all_gather_dim) *
    dim(process_groups, 1)` (one result per operand; variadic forms are checked
    pairwise). When the group size cannot be known (no grid for empty groups),
    the gathered dimension must at least be a multiple of the operand's.

    ## Why is this bad?
    The gathered tensor would not fit the declared type; the verifier rejects the
    program, or the shapes later in the program are wrong.

    ## Example
    ```mlir
    %0 = "stablehlo.all_gather"(%x) <{all_gather_dim = 0 : i64, channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>, use_global_device_ids}> : (tensor<2x4xf32>) -> tensor<4x4xf32>
    ```

    ## Use instead
    Four processes gather four 2-row blocks: `-> tensor<8x4xf32>`.
    """
    yield from _gather_like_result(op, ctx, "all_gather_dim", grow=True)


# =========================================================================== all_reduce
@rule("SHLO211", "all-reduce-duplicate-replica-id", on=ALL_REDUCE, spec="all_reduce C1")
def all_reduce_duplicate_replica_id(op: Operation, ctx: Context) -> Iterator[Diagnostic]:
    """A process id appears twice in the all_reduce's `replica_groups`.

    ## What it does
    Checks all_reduce C1: `is_unique(replica_groups)`.

    ## Why is this bad?
    A process in two groups would contribute to two reductions at once; the
    verifier rejects the program.

    ## Example
    ```mlir
    %0 = "stablehlo.all_reduce"(%x) <{replica_groups = dense<[[0, 0]]> : tensor<1x2xi64>}> ({ ... }) : (tensor<4xf32>) -> tensor<4xf32>
    ```

    ## Use instead
    `replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>`.
    """
    yield from check_unique_ids(op, ctx)


@rule("SHLO212", "all-reduce-groups-not-covering", on=ALL_REDUCE, spec="all_reduce C2")
def all_reduce_groups_not_covering(op: Operation, ctx: Context) -> Iterator[Diagnostic]:
    """The all_reduce's replica groups leave out processes of the grid.

    ## What it does
    Checks all_reduce C2: `size(replica_groups)` is `num_replicas`
    (cross_replica, cross_replica_and_partition) or `num_processes`
    (flattened_ids). Needs the process grid. Groups may differ in size (`-1`
    pads the short ones), but together they name every id.

    ## Why is this bad?
    A process outside every group has no defined result.

    ## Example
    ```mlir
    module attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
      ... "stablehlo.all_reduce"(%x) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>, use_global_device_ids}> ({ ... }) ...
    ```

    ## Use instead
    `replica_groups = dense<[[0, 1, 2, 3], [4, 5, 6, 7]]> : tensor<2x4xi64>`.
    """
    yield from check_groups_cover(op, ctx, "all_reduce C2 (groups cover the axis)")


@rule("SHLO213", "all-reduce-replica-id-out-of-range", on=ALL_REDUCE, spec="all_reduce C3")
def all_reduce_replica_id_out_of_range(op: Operation, ctx: Context) -> Iterator[Diagnostic]:
    """An all_reduce replica id is negative or beyond the grid.

    ## What it does
    Checks all_reduce C3: `0 <= replica_groups < size(replica_groups)` with the
    size from the grid for the op's strategy (without a grid: the ids are
    `0..n-1`). `-1` is accepted as padding of a shorter group.

    ## Why is this bad?
    The reduction waits for a process that does not exist.

    ## Example
    ```mlir
    module attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 2 : i32} {
      ... "stablehlo.all_reduce"(%x) <{replica_groups = dense<[[0, 3]]> : tensor<1x2xi64>}> ({ ... }) ...
    ```

    ## Use instead
    `replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>`.
    """
    yield from check_ids_in_range(op, ctx, padding=True, need_grid=False, check="all_reduce C3 (ids < N)")


@rule("SHLO214", "all-reduce-global-ids-without-channel", on=ALL_REDUCE, spec="all_reduce C4")
def all_reduce_global_ids_without_channel(op: Operation, ctx: Context) -> Iterator[Diagnostic]:
    """all_reduce sets `use_global_device_ids` without a positive channel_id.

    ## What it does
    Checks all_reduce C4: `use_global_device_ids = true` ⇒ `channel_id > 0`.

    ## Why is this bad?
    The verifier rejects the program ("channel_id must be positive when
    useGlobalDeviceIds is set").

    ## Example
    ```mlir
    %0 = "stablehlo.all_reduce"(%x) <{replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>, use_global_device_ids}> ({ ... }) : (tensor<4xf32>) -> tensor<4xf32>
    ```

    ## Use instead
    `channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>` (what
    `jax.lax.psum` inside `shard_map` emits).
    """
    yield from check_global_ids_channel(op, ctx)


@rule("SHLO215", "all-reduce-bad-computation", on=ALL_REDUCE, spec="all_reduce C5")
def all_reduce_bad_computation(op: Operation, ctx: Context) -> Iterator[Diagnostic]:
    """The all_reduce's reduction region is not `(tensor<E>, tensor<E>) -> tensor<E>`.

    ## What it does
    Checks all_reduce C5: `computation` has type `(tensor<E>, tensor<E>) ->
    (tensor<E>)` (0-d tensors) where `is_promotable(element_type(operand), E)`:
    same kind (boolean, integer, float, complex) and no narrower.

    ## Why is this bad?
    The reduction cannot combine two partial results of the operand's type; the
    verifier rejects the program.

    ## Example
    ```mlir
    %0 = "stablehlo.all_reduce"(%x) <{replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>}> ({
    ^bb0(%a: tensor<i32>, %b: tensor<i32>):
      %s = stablehlo.add %a, %b : tensor<i32>
      stablehlo.return %s : tensor<i32>
    }) : (tensor<4xf32>) -> tensor<4xf32>
    ```

    ## Use instead
    Reduce over the operand's element type (`^bb0(%a: tensor<f32>, %b: tensor<f32>)`).
    """
    yield from check_computation(op, ctx, data_operand_types(op))


@rule("SHLO216", "all-reduce-result-shape-mismatch", on=ALL_REDUCE, spec="all_reduce C6")
def all_reduce_result_shape_mismatch(op: Operation, ctx: Context) -> Iterator[Diagnostic]:
    """An all_reduce result's shape differs from its operand's.

    ## What it does
    Checks all_reduce C6: `shape(results...) = shape(operands...)`, one result per
    operand.

    ## Why is this bad?
    An all-reduce is elementwise across processes; it cannot change the shape.

    ## Example
    ```mlir
    %0 = "stablehlo.all_reduce"(%x) <{replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>}> ({ ... }) : (tensor<4xf32>) -> tensor<8xf32>
    ```

    ## Use instead
    `: (tensor<4xf32>) -> tensor<4xf32>`; to concatenate, use all_gather.
    """
    yield from _same_shapes(op, ctx)


@rule("SHLO217", "all-reduce-result-element-type-mismatch", on=ALL_REDUCE, spec="all_reduce C7")
def all_reduce_result_element_type_mismatch(op: Operation, ctx: Context) -> Iterator[Diagnostic]:
    """An all_reduce result's element type is not the computation's element type E.

    ## What it does
    Checks all_reduce C7: `element_type(results...) = E`.

    ## Why is this bad?
    The reduction produces values of type E; the declared result type disagrees and
    the verifier rejects the program.

    ## Example
    ```mlir
    %0 = "stablehlo.all_reduce"(%x) <{...}> ({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>): ... stablehlo.return %s : tensor<f32>
    }) : (tensor<4xf32>) -> tensor<4xf16>
    ```

    ## Use instead
    `-> tensor<4xf32>`, then `stablehlo.convert` if a narrower type is wanted.
    """
    yield from _element_is_e(op, ctx)


# =========================================================================== reduce_scatter
@rule("SHLO221", "reduce-scatter-dim-not-divisible", on=REDUCE_SCATTER, spec="reduce_scatter C1")
def reduce_scatter_dim_not_divisible(op: Operation, ctx: Context) -> Iterator[Diagnostic]:
    """The scattered dimension does not split evenly among the group.

    ## What it does
    Checks reduce_scatter C1: `dim(operand, scatter_dimension) %
    dim(process_groups, 1) = 0`.

    ## Why is this bad?
    Each process receives an equal slice; a remainder has nowhere to go, so the
    program is rejected.

    ## Example
    ```mlir
    %0 = "stablehlo.reduce_scatter"(%x) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>, scatter_dimension = 0 : i64, use_global_device_ids}> ({ ... }) : (tensor<6x4xf32>) -> tensor<1x4xf32>
    ```

    ## Use instead
    Pad the operand to a multiple of the group size (8 rows for 4 processes) or
    scatter along a divisible axis (`jax.lax.psum_scatter(x, "i", scatter_dimension=1, tiled=True)`).
    """
    dim = int_attr(op, "scatter_dimension")
    gs = group_size(op, ctx)
    if dim is None or not gs:
        return
    for i, t in enumerate(data_operand_types(op)):
        tt = tensor(t)
        if tt is None or dim_out_of_range(dim, tt.rank):  # type: ignore[arg-type]
            continue
        d = tt.shape[dim]  # type: ignore[index]
        if d is not None and d % gs:
            yield ctx.error(attr_where(ctx, op, "scatter_dimension"),
                            f"{op_label(op)}: operand dimension {dim} (scatter_dimension) has size {d}, which "
                            f"is not divisible by the group size {gs}", op=op)


@rule("SHLO222", "reduce-scatter-dim-out-of-range", on=REDUCE_SCATTER, spec="reduce_scatter C2")
def reduce_scatter_dim_out_of_range(op: Operation, ctx: Context) -> Iterator[Diagnostic]:
    """`scatter_dimension` is not a dimension of the operand.

    ## What it does
    Checks reduce_scatter C2: `0 <= scatter_dimension < rank(operand)`.

    ## Why is this bad?
    There is no such axis to split; the verifier rejects the program.

    ## Example
    ```mlir
    %0 = "stablehlo.reduce_scatter"(%x) <{replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>, scatter_dimension = 1 : i64}> ({ ... }) : (tensor<4xf32>) -> tensor<2xf32>
    ```

    ## Use instead
    `scatter_dimension = 0 : i64`.
    """
    yield from _dim_in_range(op, ctx, "scatter_dimension")


@rule("SHLO223", "reduce-scatter-duplicate-replica-id", on=REDUCE_SCATTER, spec="reduce_scatter C3")
def reduce_scatter_duplicate_replica_id(op: Operation, ctx: Context) -> Iterator[Diagnostic]:
    """A process id appears twice in the reduce_scatter's `replica_groups`.

    ## What it does
    Checks reduce_scatter C3: `is_unique(replica_groups)`.

    ## Why is this bad?
    The verifier rejects the program; a process cannot receive two slices.

    ## Example
    ```mlir
    %0 = "stablehlo.reduce_scatter"(%x) <{replica_groups = dense<[[1, 1]]> : tensor<1x2xi64>, scatter_dimension = 0 : i64}> ({ ... }) : (tensor<4xf32>) -> tensor<2xf32>
    ```

    ## Use instead
    `replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>`.
    """
    yield from check_unique_ids(op, ctx)


@rule("SHLO224", "reduce-scatter-groups-not-covering", on=REDUCE_SCATTER, spec="reduce_scatter C4")
def reduce_scatter_groups_not_covering(op: Operation, ctx: Context) -> Iterator[Diagnostic]:
    """The reduce_scatter's replica groups leave out processes of the grid.

    ## What it does
    Checks reduce_scatter C4: `size(replica_groups)` is `num_replicas`
    (cross_replica, cross_replica_and_partition) or `num_processes`
    (flattened_ids). Needs the process grid.

    ## Why is this bad?
    A process outside every group has no defined result.

    ## Example
    ```mlir
    module attributes {mhlo.num_partitions = 4 : i32, mhlo.num_replicas = 1 : i32} {
      ... "stablehlo.reduce_scatter"(%x) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>, scatter_dimension = 0 : i64, use_global_device_ids}> ...
    ```

    ## Use instead
    `replica_groups = dense<[[0, 1], [2, 3]]> : tensor<2x2xi64>`.
    """
    yield from check_groups_cover(op, ctx, "reduce_scatter C4 (groups cover the axis)")


@rule("SHLO225", "reduce-scatter-replica-id-out-of-range", on=REDUCE_SCATTER, spec="reduce_scatter C5")
def reduce_scatter_replica_id_out_of_range(op: Operation, ctx: Context) -> Iterator[Diagnostic]:
    """A reduce_scatter replica id is negative, `-1` padding, or beyond the grid.

    ## What it does
    Checks reduce_scatter C5: `0 <= replica_groups < size(replica_groups)` (the
    size from the grid; without one, the ids are `0..n-1`). Groups must have
    equal size, so `-1` padding is an error.

    ## Why is this bad?
    The collective waits for a process that does not exist.

    ## Example
    ```mlir
    %0 = "stablehlo.reduce_scatter"(%x) <{replica_groups = dense<[[0, 1], [2, -1]]> : tensor<2x2xi64>, scatter_dimension = 0 : i64}> ({ ... }) : (tensor<4xf32>) -> tensor<2xf32>
    ```

    ## Use instead
    Groups of equal size: `dense<[[0, 1], [2, 3]]>`.
    """
    yield from check_ids_in_range(op, ctx, padding=False, need_grid=False, check="reduce_scatter C5 (ids < N)")


@rule("SHLO226", "reduce-scatter-global-ids-without-channel", on=REDUCE_SCATTER, spec="reduce_scatter C6")
def reduce_scatter_global_ids_without_channel(op: Operation, ctx: Context) -> Iterator[Diagnostic]:
    """reduce_scatter sets `use_global_device_ids` without a positive channel_id.

    ## What it does
    Checks reduce_scatter C6: `use_global_device_ids = true` ⇒ `channel_id > 0`.

    ## Why is this bad?
    The verifier rejects the program.

    ## Example
    ```mlir
    %0 = "stablehlo.reduce_scatter"(%x) <{replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>, scatter_dimension = 0 : i64, use_global_device_ids}> ({ ... }) : (tensor<4xf32>) -> tensor<2xf32>
    ```

    ## Use instead
    `channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>`.
    """
    yield from check_global_ids_channel(op, ctx)


@rule("SHLO227", "reduce-scatter-bad-computation", on=REDUCE_SCATTER, spec="reduce_scatter C7")
def reduce_scatter_bad_computation(op: Operation, ctx: Context) -> Iterator[Diagnostic]:
    """The reduce_scatter's reduction region is not `(tensor<E>, tensor<E>) -> tensor<E>`.

    ## What it does
    Checks reduce_scatter C7: `computation` has type `(tensor<E>, tensor<E>) ->
    (tensor<E>)` where `is_promotable(element_type(operand), E)`.

    ## Why is this bad?
    The verifier rejects the program.

    ## Example
    ```mlir
    ({ ^bb0(%a: tensor<f32>, %b: tensor<f32>, %c: tensor<f32>): ... })
    ```

    ## Use instead
    Two 0-d arguments and one 0-d result of the operand's element type.
    """
    yield from check_computation(op, ctx, data_operand_types(op))


@rule("SHLO228", "reduce-scatter-result-shape-mismatch", on=REDUCE_SCATTER, spec="reduce_scatter C8")
def reduce_scatter_result_shape_mismatch(op: Operation, ctx: Context) -> Iterator[Diagnostic]:
    """The reduce_scatter's result shape is not the operand's split along `scatter_dimension`.

    ## What it does
    Checks reduce_scatter C8: `shape(result) = shape(operand)` except
    `dim(result, scatter_dimension) = dim(operand, scatter_dimension) /
    dim(process_groups, 1)`. With an unknown group size the operand dimension
    must at least be a multiple of the result's; zero-sized scattered
    dimensions are rejected, as the reference verifier does.

    ## Why is this bad?
    Each process receives one slice of the reduced tensor; another shape cannot hold it.

    ## Example
    ```mlir
    %0 = "stablehlo.reduce_scatter"(%x) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>, scatter_dimension = 0 : i64, use_global_device_ids}> ({ ... }) : (tensor<8x4xf32>) -> tensor<4x4xf32>
    ```

    ## Use instead
    `-> tensor<2x4xf32>` (8 rows / 4 processes).
    """
    yield from _gather_like_result(op, ctx, "scatter_dimension", grow=False)


@rule("SHLO229", "reduce-scatter-result-element-type-mismatch", on=REDUCE_SCATTER, spec="reduce_scatter C9")
def reduce_scatter_result_element_type_mismatch(op: Operation, ctx: Context) -> Iterator[Diagnostic]:
    """The reduce_scatter's result element type is not the computation's element type E.

    ## What it does
    Checks reduce_scatter C9: `element_type(result) = E`.

    ## Why is this bad?
    The verifier rejects the program ("result element-type is expected to be ...").

    ## Example
    ```mlir
    ({ ^bb0(%a: tensor<f32>, %b: tensor<f32>): ... }) : (tensor<4xf32>) -> tensor<2xi32>
    ```

    ## Use instead
    `-> tensor<2xf32>`.
    """
    yield from _element_is_e(op, ctx)


# =========================================================================== all_to_all
@rule("SHLO231", "all-to-all-split-dim-out-of-range", on=ALL_TO_ALL, spec="all_to_all C1")
def all_to_all_split_dim_out_of_range(op: Operation, ctx: Context) -> Iterator[Diagnostic]:
    """`split_dimension` is not a dimension of the operands.

    ## What it does
    Checks all_to_all C1: `0 <= split_dimension < rank(operands...)`.

    ## Why is this bad?
    The verifier rejects the program.

    ## Example
    ```mlir
    %0 = "stablehlo.all_to_all"(%x) <{concat_dimension = 0 : i64, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>, split_count = 2 : i64, split_dimension = 2 : i64}> : (tensor<2x4xf32>) -> tensor<4x2xf32>
    ```

    ## Use instead
    `split_dimension = 1 : i64`.
    """
    yield from _dim_in_range(op, ctx, "split_dimension")


@rule("SHLO232", "all-to-all-split-dim-not-divisible", on=ALL_TO_ALL, spec="all_to_all C2")
def all_to_all_split_dim_not_divisible(op: Operation, ctx: Context) -> Iterator[Diagnostic]:
    """The split dimension does not divide into `split_count` equal parts.

    ## What it does
    Checks all_to_all C2: `dim(operands..., split_dimension) % split_count = 0`.

    ## Why is this bad?
    Each peer receives one equal part; a remainder cannot be sent. The verifier
    rejects the program.

    ## Example
    ```mlir
    %0 = "stablehlo.all_to_all"(%x) <{concat_dimension = 0 : i64, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>, split_count = 2 : i64, split_dimension = 1 : i64}> : (tensor<2x3xf32>) -> tensor<4x1xf32>
    ```

    ## Use instead
    Pad the split axis to a multiple of `split_count`.
    """
    split = int_attr(op, "split_dimension")
    count = int_attr(op, "split_count")
    if split is None or count is None or count <= 0:
        return
    for t in data_operand_types(op):
        tt = tensor(t)
        if tt is None or dim_out_of_range(split, tt.rank):  # type: ignore[arg-type]
            continue
        d = tt.shape[split]  # type: ignore[index]
        if d is not None and d % count:
            yield ctx.error(attr_where(ctx, op, "split_count"),
                            f"{op_label(op)}: operand dimension {split} (split_dimension) has size {d}, which "
                            f"is not divisible by split_count {count}", op=op)
            return


@rule("SHLO233", "all-to-all-concat-dim-out-of-range", on=ALL_TO_ALL, spec="all_to_all C3")
def all_to_all_concat_dim_out_of_range(op: Operation, ctx: Context) -> Iterator[Diagnostic]:
    """`concat_dimension` is not a dimension of the operands.

    ## What it does
    Checks all_to_all C3: `0 <= concat_dimension < rank(operands...)`.

    ## Why is this bad?
    The verifier rejects the program.

    ## Example
    ```mlir
    %0 = "stablehlo.all_to_all"(%x) <{concat_dimension = -1 : i64, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>, split_count = 2 : i64, split_dimension = 1 : i64}> : (tensor<2x4xf32>) -> tensor<4x2xf32>
    ```

    ## Use instead
    `concat_dimension = 0 : i64`.
    """
    yield from _dim_in_range(op, ctx, "concat_dimension")


@rule("SHLO234", "all-to-all-split-count-not-positive", on=ALL_TO_ALL, spec="all_to_all C4")
def all_to_all_split_count_not_positive(op: Operation, ctx: Context) -> Iterator[Diagnostic]:
    """all_to_all's `split_count` is zero or negative.

    ## What it does
    Checks all_to_all C4: `0 < split_count`.

    ## Why is this bad?
    The operand cannot be split into zero parts; the verifier rejects the program.

    ## Example
    ```mlir
    %0 = "stablehlo.all_to_all"(%x) <{concat_dimension = 0 : i64, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>, split_count = 0 : i64, split_dimension = 1 : i64}> : (tensor<2x4xf32>) -> tensor<2x4xf32>
    ```

    ## Use instead
    `split_count` = the group size (`split_count = 2 : i64`).
    """
    count = int_attr(op, "split_count")
    if count is not None and count <= 0:
        yield ctx.error(attr_where(ctx, op, "split_count"), f"{op_label(op)}: split_count is {count}, but it must "
                                                          f"be positive", op=op)


@rule("SHLO235", "all-to-all-duplicate-replica-id", on=ALL_TO_ALL, spec="all_to_all C5")
def all_to_all_duplicate_replica_id(op: Operation, ctx: Context) -> Iterator[Diagnostic]:
    """A process id appears twice in the all_to_all's `replica_groups`.

    ## What it does
    Checks all_to_all C5: `is_unique(replica_groups)`.

    ## Why is this bad?
    The verifier rejects the program.

    ## Example
    ```mlir
    replica_groups = dense<[[0, 1], [0, 2]]> : tensor<2x2xi64>
    ```

    ## Use instead
    `replica_groups = dense<[[0, 1], [2, 3]]> : tensor<2x2xi64>`.
    """
    yield from check_unique_ids(op, ctx)


@rule("SHLO236", "all-to-all-groups-not-covering", on=ALL_TO_ALL, spec="all_to_all C6")
def all_to_all_groups_not_covering(op: Operation, ctx: Context) -> Iterator[Diagnostic]:
    """The all_to_all's replica groups leave out processes of the grid.

    ## What it does
    Checks all_to_all C6: `size(replica_groups)` is `num_replicas`
    (cross_replica, no channel) or `num_partitions` (cross_partition, channel_id
    > 0). Needs the process grid.

    ## Why is this bad?
    A process outside every group has no defined result.

    ## Example
    ```mlir
    module attributes {mhlo.num_partitions = 4 : i32, mhlo.num_replicas = 1 : i32} {
      ... "stablehlo.all_to_all"(%x) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, concat_dimension = 0 : i64, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>, split_count = 2 : i64, split_dimension = 1 : i64}> ...
    ```

    ## Use instead
    `replica_groups = dense<[[0, 1], [2, 3]]> : tensor<2x2xi64>`.
    """
    yield from check_groups_cover(op, ctx, "all_to_all C6 (groups cover the axis)")


@rule("SHLO237", "all-to-all-replica-id-out-of-range", on=ALL_TO_ALL, spec="all_to_all C7")
def all_to_all_replica_id_out_of_range(op: Operation, ctx: Context) -> Iterator[Diagnostic]:
    """An all_to_all replica id is negative, `-1` padding, or beyond the grid.

    ## What it does
    Checks all_to_all C7: `0 <= replica_groups < size(replica_groups)` (N from the
    grid: `num_replicas` or `num_partitions`; without one, the ids are `0..n-1`).

    ## Why is this bad?
    The exchange waits for a process that does not exist.

    ## Example
    ```mlir
    replica_groups = dense<[[0, 5]]> : tensor<1x2xi64>   // only 2 partitions
    ```

    ## Use instead
    `replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>`.
    """
    yield from check_ids_in_range(op, ctx, padding=False, need_grid=False, check="all_to_all C7 (ids < N)")


@rule("SHLO238", "all-to-all-group-size-not-split-count", on=ALL_TO_ALL, spec="all_to_all C8")
def all_to_all_group_size_not_split_count(op: Operation, ctx: Context) -> Iterator[Diagnostic]:
    """The all_to_all's group size differs from `split_count`.

    ## What it does
    Checks all_to_all C8: `dim(replica_groups, 1) = split_count` (for an empty
    `replica_groups`, the whole axis from the grid; for the mesh-axes form, the
    product of the axes' sizes).

    ## Why is this bad?
    Each process sends one part to every group member; with another count some
    parts have no receiver. The verifier rejects the program.

    ## Example
    ```mlir
    %0 = "stablehlo.all_to_all"(%x) <{concat_dimension = 0 : i64, replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>, split_count = 2 : i64, split_dimension = 1 : i64}> : (tensor<2x4xf32>) -> tensor<4x2xf32>
    ```

    ## Use instead
    `split_count = 4 : i64` (`jax.lax.all_to_all` sets it to the axis size).
    """
    count = int_attr(op, "split_count")
    groups = replica_groups(op, ctx)
    if count is None or count <= 0 or groups is None or groups.problem:
        return
    if groups.rows is not None and not groups.empty:
        widths = sorted({len(row) for row in groups.rows})
        size = widths[0] if len(widths) == 1 else None
    else:
        size = group_size(op, ctx)
    if size is not None and size != count:
        yield ctx.error(groups.span, f"{op_label(op)}: replica groups have {size} members, but split_count "
                                     f"is {count}", op=op)


@rule("SHLO239", "all-to-all-result-type-mismatch", on=ALL_TO_ALL, spec="all_to_all C9")
def all_to_all_result_type_mismatch(op: Operation, ctx: Context) -> Iterator[Diagnostic]:
    """An all_to_all result is not the operand split and concatenated by `split_count`.

    ## What it does
    Checks all_to_all C9: `type(results...) = type(operands...)` except, when
    `split_dimension != concat_dimension`, `dim(results..., split_dimension) =
    dim(operands..., split_dimension) / split_count` and
    `dim(results..., concat_dimension) = dim(operands..., concat_dimension) *
    split_count`.

    ## Why is this bad?
    The declared type cannot hold what the exchange produces.

    ## Example
    ```mlir
    %0 = "stablehlo.all_to_all"(%x) <{concat_dimension = 0 : i64, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>, split_count = 2 : i64, split_dimension = 1 : i64}> : (tensor<2x4xf32>) -> tensor<2x4xf32>
    ```

    ## Use instead
    `-> tensor<4x2xf32>`.
    """
    split, concat = int_attr(op, "split_dimension"), int_attr(op, "concat_dimension")
    count = int_attr(op, "split_count")
    yield from check_arity(op, ctx, data_operand_types(op), result_types(op))
    if split is None or concat is None or count is None or count <= 0:
        return
    for i, a, r in pairs(op):
        if a.element != r.element:
            yield ctx.error(op, f"{op_label(op)}: {which(op, i)} element type {r.element} differs from the "
                                f"operand's {a.element}")
        if a.rank != r.rank:
            yield ctx.error(op, f"{op_label(op)}: {which(op, i)} has rank {r.rank}, but the operand has rank "
                                f"{a.rank}")
            continue
        if dim_out_of_range(split, a.rank) or dim_out_of_range(concat, a.rank):  # type: ignore[arg-type]
            continue
        want = list(a.shape)  # type: ignore[arg-type]
        if split != concat:
            if want[split] is not None:
                if want[split] % count:
                    continue  # C2 reports it
                want[split] //= count
            if want[concat] is not None:
                want[concat] *= count
        if not _compatible(tuple(want), r.shape):
            yield ctx.error(op, f"{op_label(op)}: {which(op, i)} shape {fmt_dims(r.shape)} should be "
                                f"{fmt_dims(want)} (operand {fmt_dims(a.shape)} split {count} ways along "
                                f"{split}, concatenated along {concat})")


# =========================================================================== collective_broadcast
@rule("SHLO241", "collective-broadcast-duplicate-replica-id", on=COLLECTIVE_BROADCAST,
      spec="collective_broadcast C1")
def collective_broadcast_duplicate_replica_id(op: Operation, ctx: Context) -> Iterator[Diagnostic]:
    """A process id appears twice in the collective_broadcast's `replica_groups`.

    ## What it does
    Checks collective_broadcast C1: `is_unique(replica_groups)`.

    ## Why is this bad?
    The verifier rejects the program.

    ## Example
    ```mlir
    %0 = "stablehlo.collective_broadcast"(%x) <{replica_groups = dense<[[2, 2]]> : tensor<1x2xi64>}> : (tensor<1x2xi64>) -> tensor<1x2xi64>
    ```

    ## Use instead
    `replica_groups = dense<[[2, 1]]> : tensor<1x2xi64>` (the first id is the source).
    """
    yield from check_unique_ids(op, ctx)


@rule("SHLO242", "collective-broadcast-replica-id-out-of-range", on=COLLECTIVE_BROADCAST,
      spec="collective_broadcast C2")
def collective_broadcast_replica_id_out_of_range(op: Operation, ctx: Context) -> Iterator[Diagnostic]:
    """A collective_broadcast replica id is negative or beyond the grid.

    ## What it does
    Checks collective_broadcast C2: `0 <= replica_groups < N`, N = `num_replicas`
    (cross_replica) or `num_partitions` (cross_partition). Negative ids are
    always reported; the upper bound needs the process grid. Groups need not
    cover the axis (processes outside every group receive zeros).

    ## Why is this bad?
    The broadcast waits for a process that does not exist.

    ## Example
    ```mlir
    module attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 4 : i32} {
      ... "stablehlo.collective_broadcast"(%x) <{replica_groups = dense<[[2, 4]]> : tensor<1x2xi64>}> ...
    ```

    ## Use instead
    `replica_groups = dense<[[2, 1]]> : tensor<1x2xi64>`.
    """
    yield from check_ids_in_range(op, ctx, padding=False, need_grid=True,
                                  check="collective_broadcast C2 (ids < N)")


@rule("SHLO243", "collective-broadcast-result-type-mismatch", on=COLLECTIVE_BROADCAST,
      spec="collective_broadcast C3")
def collective_broadcast_result_type_mismatch(op: Operation, ctx: Context) -> Iterator[Diagnostic]:
    """A collective_broadcast result's type differs from its operand's.

    ## What it does
    Checks collective_broadcast C3: `type(result) = type(operand)` (with
    `has_dynamic_root`, the trailing root operand is not data and is left out).

    ## Why is this bad?
    The broadcast copies the source's tensor as it is; another type cannot hold it.

    ## Example
    ```mlir
    %0 = "stablehlo.collective_broadcast"(%x) <{replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>}> : (tensor<1x2xi64>) -> tensor<2x1xi64>
    ```

    ## Use instead
    `: (tensor<1x2xi64>) -> tensor<1x2xi64>`.
    """
    yield from _same_types(op, ctx)


def _dynamic_root(op: Operation, ctx: Context) -> Iterator[Diagnostic]:
    """With `has_dynamic_root`, a trailing 0-d integer operand names the root's index
    within each group: one more operand than results, and a constant root must be
    in `[0, group size)`."""
    if not has_dynamic_root(op):
        return
    name = op_label(op)
    ops_, res = list(op.operand_types), result_types(op)
    if len(ops_) != len(res) + 1:
        yield ctx.error(op, f"{name}: has_dynamic_root needs a trailing root operand: {len(ops_)} operand(s) "
                            f"for {len(res)} result(s), expected {len(res) + 1}")
        return
    root_t = tensor(ops_[-1])
    if root_t is not None and (root_t.rank != 0 or not (isinstance(root_t.element, ScalarType)
                                                       and root_t.element.is_integer)):
        yield ctx.error(op, f"{name}: the root operand has type {root_t}, expected a 0-d integer tensor")
        return
    root = defining_constant(op.operands[-1]) if op.operands else None
    gs = group_size(op, ctx)
    if root is not None and (root < 0 or (gs is not None and root >= gs)):
        bound = f"[0, {gs})" if gs is not None else "[0, group size)"
        yield ctx.error(op, f"{name}: root index {root} is outside the group: it must lie in {bound}")


@rule("SHLO244", "collective-broadcast-bad-dynamic-root", on=COLLECTIVE_BROADCAST,
      spec="collective_broadcast has_dynamic_root")
def collective_broadcast_bad_dynamic_root(op: Operation, ctx: Context) -> Iterator[Diagnostic]:
    """A `has_dynamic_root` collective_broadcast lacks a valid root operand.

    ## What it does
    For the `has_dynamic_root` variant: the op takes one trailing operand more
    than it has results, a 0-d integer tensor naming the root's index within
    each group, and a constant root lies in `[0, group size)`.

    ## Why is this bad?
    Without a root (or with one outside the group) no process is the source, and
    the broadcast's result is undefined.

    ## Example
    ```mlir
    %r = stablehlo.constant dense<2> : tensor<i32>
    %0 = "stablehlo.collective_broadcast"(%x, %r) <{has_dynamic_root, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>}> : (tensor<4xf32>, tensor<i32>) -> tensor<4xf32>
    ```

    ## Use instead
    A root index inside the group: `dense<1> : tensor<i32>`.
    """
    yield from _dynamic_root(op, ctx)


# =========================================================================== collective_reduce
@rule("SHLO251", "collective-reduce-duplicate-replica-id", on=COLLECTIVE_REDUCE, spec="collective_reduce C1")
def collective_reduce_duplicate_replica_id(op: Operation, ctx: Context) -> Iterator[Diagnostic]:
    """A process id appears twice in the collective_reduce's `replica_groups`.

    ## What it does
    Checks collective_reduce C1 (shlo-lint's numbering, as collective_broadcast
    C1): `is_unique(replica_groups)`.

    ## Why is this bad?
    A process cannot contribute twice to one reduction.

    ## Example
    ```mlir
    replica_groups = dense<[[0, 0]]> : tensor<1x2xi64>
    ```

    ## Use instead
    `replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>` (the first id is the root).
    """
    yield from check_unique_ids(op, ctx)


@rule("SHLO252", "collective-reduce-replica-id-out-of-range", on=COLLECTIVE_REDUCE, spec="collective_reduce C2")
def collective_reduce_replica_id_out_of_range(op: Operation, ctx: Context) -> Iterator[Diagnostic]:
    """A collective_reduce replica id is negative or beyond the grid.

    ## What it does
    Checks collective_reduce C2 (as collective_broadcast C2): `0 <=
    replica_groups < N`, N = `num_replicas` or `num_partitions` by channel.

    ## Why is this bad?
    The reduction waits for a process that does not exist.

    ## Example
    ```mlir
    module attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 2 : i32} {
      ... "stablehlo.collective_reduce"(%x) ({ ... }) {replica_groups = dense<[[0, 2]]> : tensor<1x2xi64>} ...
    ```

    ## Use instead
    `replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>`.
    """
    yield from check_ids_in_range(op, ctx, padding=False, need_grid=True, check="collective_reduce C2 (ids < N)")


@rule("SHLO253", "collective-reduce-result-type-mismatch", on=COLLECTIVE_REDUCE, spec="collective_reduce C3")
def collective_reduce_result_type_mismatch(op: Operation, ctx: Context) -> Iterator[Diagnostic]:
    """A collective_reduce result's type differs from its operand's.

    ## What it does
    Checks collective_reduce C3: `type(result) = type(operand)`.

    ## Why is this bad?
    The root receives the reduced tensor and the others zeros of the operand's
    type; another type cannot hold them.

    ## Example
    ```mlir
    ... : (tensor<4xi64>) -> tensor<2xi64>
    ```

    ## Use instead
    `: (tensor<4xi64>) -> tensor<4xi64>`.
    """
    yield from _same_types(op, ctx)


@rule("SHLO254", "collective-reduce-bad-computation", on=COLLECTIVE_REDUCE, spec="collective_reduce C4")
def collective_reduce_bad_computation(op: Operation, ctx: Context) -> Iterator[Diagnostic]:
    """The collective_reduce's reduction region is not `(tensor<E>, tensor<E>) -> tensor<E>`.

    ## What it does
    Checks collective_reduce C4 (as all_reduce C5): the region has type
    `(tensor<E>, tensor<E>) -> tensor<E>` with the operand's element type
    promotable to E.

    ## Why is this bad?
    The reduction cannot combine the operands.

    ## Example
    ```mlir
    ({ ^bb0(%a: tensor<i64>, %b: tensor<i32>): ... }) : (tensor<4xi64>) -> tensor<4xi64>
    ```

    ## Use instead
    `^bb0(%a: tensor<i64>, %b: tensor<i64>)`.
    """
    yield from check_computation(op, ctx, data_operand_types(op))


@rule("SHLO255", "collective-reduce-bad-dynamic-root", on=COLLECTIVE_REDUCE,
      spec="collective_reduce has_dynamic_root")
def collective_reduce_bad_dynamic_root(op: Operation, ctx: Context) -> Iterator[Diagnostic]:
    """A `has_dynamic_root` collective_reduce lacks a valid root operand.

    ## What it does
    For the `has_dynamic_root` variant: one trailing 0-d integer operand more
    than results, naming the root's index within each group; a constant root
    lies in `[0, group size)`.

    ## Why is this bad?
    No process would receive the reduction.

    ## Example
    ```mlir
    %r = stablehlo.constant dense<-1> : tensor<i32>
    %0 = "stablehlo.collective_reduce"(%x, %r) ({ ... }) {has_dynamic_root, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<4xf32>, tensor<i32>) -> tensor<4xf32>
    ```

    ## Use instead
    `dense<0> : tensor<i32>`.
    """
    yield from _dynamic_root(op, ctx)


__all__ = ["ALL_GATHER", "ALL_REDUCE", "ALL_TO_ALL", "COLLECTIVE_BROADCAST", "COLLECTIVE_REDUCE", "REDUCE_SCATTER",
           "axis_size"]
