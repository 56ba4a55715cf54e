"""Rules for `all_to_all` (and all_to_all_start): SHLO231-239.

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

from .support.groups import (check_groups_cover, check_ids_in_range, check_unique_ids, group_size, replica_groups)
from .support.shapes import (attr_where, check_arity, data_operand_types, dim_out_of_range, fmt_dims, op_label, pairs,
                             result_types, tensor, which)
from .support.collective_checks import (ALL_TO_ALL, dim_in_range, compatible)


@rule("SHLO231", "all-to-all-split-dim-out-of-range", on=ALL_TO_ALL, spec="all_to_all C1", reuse=Reuse.OP)
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
    yield from dim_in_range(op, ctx, "split_dimension")


@rule("SHLO232", "all-to-all-split-dim-not-divisible", on=ALL_TO_ALL, spec="all_to_all C2", reuse=Reuse.OP)
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
                            f"{op_label(op)}: operand dimension {split} (split_dimension) has size {d}, not "
                            f"divisible by split_count {count}", op=op)
            return


@rule("SHLO233", "all-to-all-concat-dim-out-of-range", on=ALL_TO_ALL, spec="all_to_all C3", reuse=Reuse.OP)
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
    yield from dim_in_range(op, ctx, "concat_dimension")


@rule("SHLO234", "all-to-all-split-count-not-positive", on=ALL_TO_ALL, spec="all_to_all C4", reuse=Reuse.OP)
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


@rule("SHLO235", "all-to-all-duplicate-replica-id", on=ALL_TO_ALL, spec="all_to_all C5", reuse=Reuse.OP)
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


@rule("SHLO236", "all-to-all-groups-not-covering", on=ALL_TO_ALL, spec="all_to_all C6", reuse=Reuse.OP)
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


@rule("SHLO237", "all-to-all-replica-id-out-of-range", on=ALL_TO_ALL, spec="all_to_all C7", reuse=Reuse.OP)
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


@rule("SHLO238", "all-to-all-group-size-not-split-count", on=ALL_TO_ALL, spec="all_to_all C8", reuse=Reuse.OP)
def all_to_all_group_size_not_split_count(op: Operation, ctx: Context) -> Iterator[Diagnostic]:
    """The all_to_all's group size differs from `split_count`.

    ## What it does
    Checks all_to_all C8: `dim(replica_groups, 1) = split_count` (for the
    mesh-axes form, the product of the axes' sizes). An empty `replica_groups`
    has no such group and is reported, as the StableHLO 1.20 verifier does
    (shlo-lint before 0.6 read it as one group of the whole axis, which the
    spec allows for other collectives but the verifier refuses here).

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
    if groups.rows is not None:
        if not groups.rows or groups.empty:
            # An empty replica_groups has no group of split_count members: the
            # 1.20 verifier rejects it (before 0.6 shlo-lint read it as one group
            # of the whole axis, as the other collectives do).
            yield ctx.error(groups.span, f"{op_label(op)}: replica_groups is empty, but all_to_all needs groups "
                                         f"of split_count = {count} processes written out", op=op)
            return
        widths = sorted({len(row) for row in groups.rows})
        size = widths[0] if len(widths) == 1 else None
    else:
        size = group_size(op, ctx)
    if size is not None and size != count:
        yield ctx.error(groups.span, f"{op_label(op)}: replica groups have {size} members, but split_count "
                                     f"is {count}", op=op)


@rule("SHLO239", "all-to-all-result-type-mismatch", on=ALL_TO_ALL, spec="all_to_all C9", reuse=Reuse.OP)
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
        if not compatible(tuple(want), r.shape):
            yield ctx.error(op, f"{op_label(op)}: {which(op, i)} shape {fmt_dims(r.shape)} should be "
                                f"{fmt_dims(want)} (operand {fmt_dims(a.shape)} split {count} ways along "
                                f"{split}, concatenated along {concat})")
