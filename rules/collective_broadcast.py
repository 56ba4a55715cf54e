"""Rules for `collective_broadcast` (and collective_broadcast_start): SHLO241-244.

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

from .support.groups import (check_ids_in_range, check_unique_ids)
from .support.collective_checks import COLLECTIVE_BROADCAST, dynamic_root, needs_data_operand, same_types


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
    """A collective_broadcast has no data operand, or a result whose type differs from its operand's.

    ## What it does
    Checks collective_broadcast C3 (StableHLO spec 1.20): without
    `has_dynamic_root`, `size(operands) >= 1` and `type(results[j]) =
    type(operands[j])`; with it (C4), the same for every operand but the
    trailing root.

    The "at least one operand" half is new in the current spec (the seed RFC
    had none): `"stablehlo.collective_broadcast"() ... : () -> ()` is reported.

    ## Why is this bad?
    The broadcast copies the source's tensor as it is; another type cannot hold
    it, and a broadcast of nothing is rejected by the verifier.

    ## Example
    ```mlir
    %0 = "stablehlo.collective_broadcast"(%x) <{replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>}> : (tensor<1x2xi64>) -> tensor<2x1xi64>
    ```

    ## Use instead
    `: (tensor<1x2xi64>) -> tensor<1x2xi64>`.
    """
    yield from needs_data_operand(op, ctx)
    yield from same_types(op, ctx)


@rule("SHLO244", "collective-broadcast-bad-dynamic-root", on=COLLECTIVE_BROADCAST,
      spec="collective_broadcast C4")
def collective_broadcast_bad_dynamic_root(op: Operation, ctx: Context) -> Iterator[Diagnostic]:
    """A `has_dynamic_root` collective_broadcast lacks a valid root operand.

    ## What it does
    For the `has_dynamic_root` variant, collective_broadcast C4-C6 (StableHLO
    spec 1.20): at least two operands; the last has type
    `tensor<[size(operands)-1]xi32>`, one root index per data operand; one
    result per data operand (C5); a constant root lies in `[0, group size)`
    (C6).

    The seed RFC (and shlo-lint before 0.6) took one 0-d integer root; the
    current spec and verifier take a rank-1 `i32` tensor, so a 0-d root is now
    what is reported.

    ## Why is this bad?
    The verifier rejects the op; with a root outside the group no process is
    the source, and the broadcast's result is undefined.

    ## Example
    ```mlir
    %r = stablehlo.constant dense<[2]> : tensor<1xi32>
    %0 = "stablehlo.collective_broadcast"(%x, %r) <{has_dynamic_root, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>}> : (tensor<4xf32>, tensor<1xi32>) -> tensor<4xf32>
    ```

    ## Use instead
    A root index inside the group: `dense<[1]> : tensor<1xi32>`.
    """
    yield from dynamic_root(op, ctx)
