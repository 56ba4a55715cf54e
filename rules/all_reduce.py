"""Rules for `all_reduce` (and all_reduce_start): SHLO211-217.

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

from .support.groups import (check_global_ids_channel, check_groups_cover, check_ids_in_range, check_unique_ids)
from .support.shapes import (check_computation, data_operand_types)
from .support.collective_checks import (ALL_REDUCE, element_is_e, same_shapes)


@rule("SHLO211", "all-reduce-duplicate-replica-id", on=ALL_REDUCE, spec="all_reduce C1", reuse=Reuse.OP)
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


@rule("SHLO212", "all-reduce-groups-not-covering", on=ALL_REDUCE, spec="all_reduce C2", reuse=Reuse.OP)
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


@rule("SHLO213", "all-reduce-replica-id-out-of-range", on=ALL_REDUCE, spec="all_reduce C3", reuse=Reuse.OP)
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


@rule("SHLO214", "all-reduce-global-ids-without-channel", on=ALL_REDUCE, spec="all_reduce C4", reuse=Reuse.OP)
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


@rule("SHLO215", "all-reduce-bad-computation", on=ALL_REDUCE, spec="all_reduce C5", reuse=Reuse.OP)
def all_reduce_bad_computation(op: Operation, ctx: Context) -> Iterator[Diagnostic]:
    """The all_reduce's reduction region is not `(tensor<E>, tensor<E>) -> tensor<E>`.

    ## What it does
    Checks all_reduce C5: `computation` has type `(tensor<E>, tensor<E>) ->
    (tensor<E>)` (0-d tensors) where `is_promotable(element_type(operand), E)`:
    same kind (boolean, integer, float, complex) and no narrower.

    Promotability follows the spec (same kind, no narrower bitwidth; quantized
    types need the same expressed type and no narrower storage). A narrower
    float (`f32` operands, `f16` computation) is a warning: the StableHLO 1.20
    verifier ignores float precision there, the spec does not.

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


@rule("SHLO216", "all-reduce-result-shape-mismatch", on=ALL_REDUCE, spec="all_reduce C6", reuse=Reuse.OP)
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
    yield from same_shapes(op, ctx)


@rule("SHLO217", "all-reduce-result-element-type-mismatch", on=ALL_REDUCE, spec="all_reduce C7", reuse=Reuse.OP)
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
    yield from element_is_e(op, ctx)
