"""Rules for `collective_reduce` (and collective_reduce_start): SHLO251-256.

Shared helpers and the op-name tuples live in rules/support/collective_checks.py; replica-group
checks in rules/support/groups.py. Labels are the current StableHLO spec's (see
docs/conformance.md).
"""
from __future__ import annotations

from typing import Iterator

from shlo_lint.checker.lint.context import Context
from shlo_lint.checker.source.diagnostics import Diagnostic
from shlo_lint.checker.ir.core import Operation
from shlo_lint.checker.lint.registry import rule
from shlo_lint.checker.analysis.semantics import flag

from .support.groups import (check_global_ids_channel, check_ids_in_range, check_unique_ids, replica_groups)
from .support.shapes import (check_computation, data_operand_types, has_dynamic_root, result_types)
from .support.collective_checks import COLLECTIVE_REDUCE, dynamic_root, element_is_e, needs_data_operand, same_shapes


@rule("SHLO251", "collective-reduce-duplicate-replica-id", on=COLLECTIVE_REDUCE, spec="collective_reduce C1")
def collective_reduce_duplicate_replica_id(op: Operation, ctx: Context) -> Iterator[Diagnostic]:
    """A process id appears twice in the collective_reduce's `replica_groups`.

    ## What it does
    Checks collective_reduce C1: `is_unique(replica_groups)` (StableHLO spec
    1.20; the seed RFC had no section for the op and shlo-lint borrowed
    collective_broadcast's numbering, which the spec now matches).

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
    Checks collective_reduce C2 (StableHLO spec 1.20): `0 <= replica_groups <
    N`, N = `num_replicas` or `num_partitions` by channel, and what the 1.20
    verifier adds: the ids written are exactly 0..k-1 (grid or not), and `-1`
    may pad ragged groups (as for all_reduce). Before 0.6 this rule read the op
    as collective_broadcast (no padding, no bound without a grid).

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
    yield from check_ids_in_range(op, ctx, padding=True, need_grid=False, check="collective_reduce C2 (ids < N)",
                                  contiguous=True)


@rule("SHLO253", "collective-reduce-result-type-mismatch", on=COLLECTIVE_REDUCE, spec="collective_reduce C3")
def collective_reduce_result_type_mismatch(op: Operation, ctx: Context) -> Iterator[Diagnostic]:
    """A collective_reduce has no data operand, or a result whose type is not the reduced one.

    ## What it does
    Checks collective_reduce C3 as the current spec (StableHLO 1.20) words it:
    `shape(results) = shape(operands)` (the trailing root operand left out with
    `has_dynamic_root`), and, as the 1.20 verifier infers it (like all_reduce
    C7), each result's element type is the computation's element type E, which
    may be wider than the operand's (`f32` operands reduced in `f64` give `f64`
    results). Without `has_dynamic_root` the op needs at least one data operand.

    Before 0.6 this rule demanded `type(result) = type(operand)` (the seed
    RFC's reading), a false error on promoted reductions: the spec wins.

    ## Why is this bad?
    The root receives the reduced tensor and the others zeros of the result
    type; a result of another shape cannot hold them, and the verifier rejects
    the op.

    ## Example
    ```mlir
    ... : (tensor<4xi64>) -> tensor<2xi64>
    ```

    ## Use instead
    `: (tensor<4xi64>) -> tensor<4xi64>` (or `tensor<4xf64>` from `tensor<4xf32>`
    with an `f64` computation).
    """
    yield from needs_data_operand(op, ctx)
    if has_dynamic_root(op) and len(op.operand_types) != len(result_types(op)) + 1:
        return  # SHLO255 reports the root operand
    yield from same_shapes(op, ctx)
    yield from element_is_e(op, ctx)


@rule("SHLO254", "collective-reduce-bad-computation", on=COLLECTIVE_REDUCE, spec="collective_reduce C4")
def collective_reduce_bad_computation(op: Operation, ctx: Context) -> Iterator[Diagnostic]:
    """The collective_reduce's reduction region is not `(tensor<E>, tensor<E>) -> tensor<E>`.

    ## What it does
    Checks collective_reduce C4 (as all_reduce C5): the region has type
    `(tensor<E>, tensor<E>) -> tensor<E>` with the operand's element type
    promotable to E.

    Promotability follows the spec (same kind, no narrower bitwidth; quantized
    types need the same expressed type and no narrower storage). A narrower
    float (`f32` operands, `f16` computation) is a warning: the StableHLO 1.20
    verifier ignores float precision there, the spec does not.

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


@rule("SHLO255", "collective-reduce-bad-dynamic-root", on=COLLECTIVE_REDUCE, spec="collective_reduce C3")
def collective_reduce_bad_dynamic_root(op: Operation, ctx: Context) -> Iterator[Diagnostic]:
    """A `has_dynamic_root` collective_reduce lacks a valid root operand.

    ## What it does
    For the `has_dynamic_root` variant, collective_reduce C3 (StableHLO spec
    1.20): the last operand is a rank-1 `i32` tensor with one root index per
    data operand (`tensor<[size(operands)-1]xi32>`), the op has at least two
    operands, one result per data operand, and a constant root lies in
    `[0, group size)`.

    The seed RFC (and shlo-lint before 0.6) took one 0-d integer root for all
    data operands; the current spec and verifier (1.20) take a rank-1 `i32`
    tensor, and a 0-d root is now what is reported.

    ## Why is this bad?
    The verifier rejects the op; with a root outside the group no process
    receives the reduction.

    ## Example
    ```mlir
    %r = stablehlo.constant dense<0> : tensor<i32>
    %0 = "stablehlo.collective_reduce"(%x, %r) ({ ... }) {has_dynamic_root, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<4xf32>, tensor<i32>) -> tensor<4xf32>
    ```

    ## Use instead
    `%r = stablehlo.constant dense<[0]> : tensor<1xi32>` and `(tensor<4xf32>, tensor<1xi32>)`.
    """
    yield from dynamic_root(op, ctx)


@rule("SHLO256", "collective-reduce-global-ids-without-channel", on=COLLECTIVE_REDUCE,
      spec="collective_reduce (verifier)")
def collective_reduce_global_ids_without_channel(op: Operation, ctx: Context) -> Iterator[Diagnostic]:
    """`use_global_device_ids` is set on a collective_reduce without a positive channel_id.

    ## What it does
    Checks what the StableHLO 1.20 verifier enforces for collective_reduce as
    for all_reduce C4: `use_global_device_ids = true` needs `channel_id > 0`
    and replica ids written out (an empty `replica_groups` is rejected).
    The spec's collective_reduce section (1.20) lists no
    `use_global_device_ids` input; the verifier accepts and checks it.

    ## Why is this bad?
    Global device ids (the flattened_ids strategy) are only defined for an op
    on a channel; the verifier rejects the program.

    ## Example
    ```mlir
    %0 = "stablehlo.collective_reduce"(%x) ({ ... }) {replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>, use_global_device_ids} : (tensor<4xf32>) -> tensor<4xf32>
    ```

    ## Use instead
    Add `channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>`, or
    drop `use_global_device_ids`.
    """
    yield from check_global_ids_channel(op, ctx)
    groups = replica_groups(op, ctx)
    if flag(op, "use_global_device_ids") and groups is not None and groups.rows is not None and groups.empty:
        yield ctx.error(groups.span, "collective_reduce: replica_groups is empty under use_global_device_ids",
                        op=op, help="write the process ids out: use_global_device_ids gives no default group")
