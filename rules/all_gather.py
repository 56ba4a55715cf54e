"""Rules for `all_gather` (and seed 004's all_gather_start): SHLO201-206.

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
from .support.collective_checks import (ALL_GATHER, gather_like_result, dim_in_range)


@rule("SHLO201", "all-gather-dim-out-of-range", on=ALL_GATHER, spec="all_gather C1", reuse=Reuse.OP)
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
    yield from dim_in_range(op, ctx, "all_gather_dim")


@rule("SHLO202", "all-gather-duplicate-replica-id", on=ALL_GATHER, spec="all_gather C2", reuse=Reuse.OP)
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


@rule("SHLO203", "all-gather-groups-not-covering", on=ALL_GATHER, spec="all_gather C3", reuse=Reuse.OP)
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


@rule("SHLO204", "all-gather-replica-id-out-of-range", on=ALL_GATHER, spec="all_gather C4", reuse=Reuse.OP)
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


@rule("SHLO205", "all-gather-global-ids-without-channel", on=ALL_GATHER, spec="all_gather C5", reuse=Reuse.OP)
def all_gather_global_ids_without_channel(op: Operation, ctx: Context) -> Iterator[Diagnostic]:
    """all_gather sets `use_global_device_ids` without a positive channel_id.

    ## What it does
    Checks all_gather C5: `use_global_device_ids = true` ⇒ `channel_id > 0`.

    The StableHLO 1.20 verifier only rejects a negative channel_id here (for
    all_reduce, reduce_scatter and collective_reduce it rejects `<= 0`): a
    negative one is an error, a missing or zero one a warning (the spec's C5
    and XLA reject it, the verifier accepts it).

    ## Why is this bad?
    Flattened (global) device ids are only defined for cross-partition collectives,
    which need a channel; XLA rejects the program.

    ## Example
    ```mlir
    %0 = "stablehlo.all_gather"(%x) <{all_gather_dim = 0 : i64, channel_handle = #stablehlo.channel_handle<handle = 0, type = 0>, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>, use_global_device_ids}> : (tensor<2x4xf32>) -> tensor<4x4xf32>
    ```

    ## Use instead
    Give it a channel, as JAX does:
    `channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>`.
    """
    yield from check_global_ids_channel(op, ctx, zero_is_warning=True)


@rule("SHLO206", "all-gather-result-type-mismatch", on=ALL_GATHER, spec="all_gather C6", reuse=Reuse.OP)
def all_gather_result_type_mismatch(op: Operation, ctx: Context) -> Iterator[Diagnostic]:
    """The all_gather's result type is not the operand's grown along `all_gather_dim`.

    ## What it does
    Checks all_gather C6: `type(results...) = type(operands...)` except
    `dim(results..., all_gather_dim) = dim(operands..., all_gather_dim) *
    dim(process_groups, 1)` (one result per operand; variadic forms are checked
    pairwise). When the group size cannot be known (no grid for empty groups),
    the gathered dimension must at least be a multiple of the operand's.

    Severity follows the StableHLO 1.20 verifier: what it rejects (rank, other
    dimensions, element type, a gathered size that is not a multiple of the
    operand's, a zero-sized operand dimension) is an error; a multiple that is
    not `x group size` is a warning: the spec's C6 and XLA reject it, but the
    verifier accepts it (its TODO #1745), and the verifier's own tests use such
    programs as valid ones.

    ## Why is this bad?
    The gathered tensor would not fit the declared type; the verifier rejects the
    program, or the shapes later in the program are wrong.

    ## Example
    ```mlir
    %0 = "stablehlo.all_gather"(%x) <{all_gather_dim = 0 : i64, channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>, use_global_device_ids}> : (tensor<2x4xf32>) -> tensor<4x4xf32>
    ```

    ## Use instead
    Four processes gather four 2-row blocks: `-> tensor<8x4xf32>`. (This
    example is the warning case; `-> tensor<5x4xf32>` is an error.)
    """
    yield from gather_like_result(op, ctx, "all_gather_dim", grow=True)
