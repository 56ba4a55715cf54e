"""Rules for `collective_reduce` (and collective_reduce_start): SHLO251-255.

Shared helpers and the op-name tuples live in rules/collectives.py; replica-group
checks in rules/_shapes.py. Labels are the current StableHLO spec's (see
docs/conformance.md).
"""
from __future__ import annotations

from typing import Iterator

from shlo_lint.checker.context import Context
from shlo_lint.checker.diagnostics import Diagnostic
from shlo_lint.checker.ir import Operation
from shlo_lint.checker.registry import rule

from ._shapes import (check_computation, check_ids_in_range, check_unique_ids, data_operand_types)
from .collectives import (COLLECTIVE_REDUCE, same_types, dynamic_root)


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
    yield from same_types(op, ctx)


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
    yield from dynamic_root(op, ctx)
