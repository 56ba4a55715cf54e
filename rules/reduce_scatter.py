"""Rules for `reduce_scatter` (and reduce_scatter_start): SHLO221-229.

Shared helpers and the op-name tuples live in rules/support/collective_checks.py; replica-group
checks in rules/support/groups.py. Labels are the current StableHLO spec's (see
docs/conformance.md).
"""
from __future__ import annotations

from typing import Iterator

from shlo_lint.checker.lint.context import Context
from shlo_lint.checker.source.diagnostics import Diagnostic
from shlo_lint.checker.ir.core import Operation
from shlo_lint.checker.lint.registry import Reuse, rule
from shlo_lint.checker.analysis.semantics import int_attr

from .support.groups import (check_global_ids_channel, check_groups_cover, check_ids_in_range, check_unique_ids,
                             group_size)
from .support.shapes import (attr_where, check_computation, data_operand_types, dim_out_of_range, op_label, tensor)
from .support.collective_checks import (REDUCE_SCATTER, gather_like_result, dim_in_range, element_is_e)


@rule("SHLO221", "reduce-scatter-dim-not-divisible", on=REDUCE_SCATTER, spec="reduce_scatter C1", reuse=Reuse.OP)
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
                            f"{op_label(op)}: operand dimension {dim} (scatter_dimension) has size {d}, not "
                            f"divisible by the group size {gs}", op=op)


@rule("SHLO222", "reduce-scatter-dim-out-of-range", on=REDUCE_SCATTER, spec="reduce_scatter C2", reuse=Reuse.OP)
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
    yield from dim_in_range(op, ctx, "scatter_dimension")


@rule("SHLO223", "reduce-scatter-duplicate-replica-id", on=REDUCE_SCATTER, spec="reduce_scatter C3", reuse=Reuse.OP)
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


@rule("SHLO224", "reduce-scatter-groups-not-covering", on=REDUCE_SCATTER, spec="reduce_scatter C4", reuse=Reuse.OP)
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


@rule("SHLO225", "reduce-scatter-replica-id-out-of-range", on=REDUCE_SCATTER, spec="reduce_scatter C5", reuse=Reuse.OP)
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


@rule("SHLO226", "reduce-scatter-global-ids-without-channel", on=REDUCE_SCATTER, spec="reduce_scatter C6",
      reuse=Reuse.OP)
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


@rule("SHLO227", "reduce-scatter-bad-computation", on=REDUCE_SCATTER, spec="reduce_scatter C7", reuse=Reuse.OP)
def reduce_scatter_bad_computation(op: Operation, ctx: Context) -> Iterator[Diagnostic]:
    """The reduce_scatter's reduction region is not `(tensor<E>, tensor<E>) -> tensor<E>`.

    ## What it does
    Checks reduce_scatter C7: `computation` has type `(tensor<E>, tensor<E>) ->
    (tensor<E>)` where `is_promotable(element_type(operand), E)`.

    Promotability follows the spec (same kind, no narrower bitwidth; quantized
    types need the same expressed type and no narrower storage). A narrower
    float (`f32` operands, `f16` computation) is a warning: the StableHLO 1.20
    verifier ignores float precision there, the spec does not.

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


@rule("SHLO228", "reduce-scatter-result-shape-mismatch", on=REDUCE_SCATTER, spec="reduce_scatter C8", reuse=Reuse.OP)
def reduce_scatter_result_shape_mismatch(op: Operation, ctx: Context) -> Iterator[Diagnostic]:
    """The reduce_scatter's result shape is not the operand's split along `scatter_dimension`.

    ## What it does
    Checks reduce_scatter C8: `shape(result) = shape(operand)` except
    `dim(result, scatter_dimension) = dim(operand, scatter_dimension) /
    dim(process_groups, 1)`. With an unknown group size the operand dimension
    must at least be a multiple of the result's; zero-sized scattered
    dimensions are rejected, as the reference verifier does.

    Severity follows the StableHLO 1.20 verifier: what it rejects is an error;
    a result size that divides the operand's but is not `/ group size` is a
    warning (spec C8 and XLA reject it; the verifier accepts it, TODO #1746).

    ## Why is this bad?
    Each process receives one slice of the reduced tensor; another shape cannot hold it.

    ## Example
    ```mlir
    %0 = "stablehlo.reduce_scatter"(%x) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>, scatter_dimension = 0 : i64, use_global_device_ids}> ({ ... }) : (tensor<8x4xf32>) -> tensor<4x4xf32>
    ```

    ## Use instead
    `-> tensor<2x4xf32>` (8 rows / 4 processes).
    """
    yield from gather_like_result(op, ctx, "scatter_dimension", grow=False)


@rule("SHLO229", "reduce-scatter-result-element-type-mismatch", on=REDUCE_SCATTER, spec="reduce_scatter C9",
      reuse=Reuse.OP)
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
    yield from element_is_e(op, ctx)
