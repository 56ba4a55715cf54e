"""`stablehlo.collective_permute`: its source_target_pairs (C1–C4, the same checks as
send/recv) and its result type (C5).

The pair checks also run on seed 004's `collective_permute_start` form, whose
pairs mean the same; its result is a future, typed by the async rules.
"""
from __future__ import annotations

from typing import Iterator

from shlo_lint.checker.lint.context import Context
from shlo_lint.checker.source.diagnostics import Diagnostic
from shlo_lint.checker.ir import catalog
from shlo_lint.checker.ir.core import Operation
from shlo_lint.checker.lint.registry import Reuse, rule

from .support.pairs import compatible, pairs_range_diags, pairs_shape_diags, pairs_unique_diags

COLLECTIVE_PERMUTE = catalog.ops_of("collective_permute", catalog.PERMUTE, dialect="stablehlo")
PERMUTE_OPS = catalog.ops_of("collective_permute", catalog.PERMUTE, catalog.START, dialect="stablehlo")


@rule("SHLO121", "collective-permute-pairs-bad-shape", on=PERMUTE_OPS, spec="collective_permute C1", reuse=Reuse.OP)
def collective_permute_pairs_bad_shape(op: Operation, ctx: Context) -> Iterator[Diagnostic]:
    """A collective_permute's `source_target_pairs` is missing or not a [k, 2] si64 constant.

    ## What it does
    Checks collective_permute C1: `dim(source_target_pairs, 1) = 2` (a
    2-dimensional si64 constant, one (source, target) row per pair). The
    attribute is required.

    ## Why is this bad?
    The StableHLO verifier rejects the op: XLA cannot tell who sends to whom.

    ## Example
    ```mlir
    %0 = "stablehlo.collective_permute"(%x) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>,
        source_target_pairs = dense<[0, 1, 1, 0]> : tensor<4xi64>}> : (tensor<4xf32>) -> tensor<4xf32>
    ```

    ## Use instead
    ```mlir
    source_target_pairs = dense<[[0, 1], [1, 0]]> : tensor<2x2xi64>
    ```
    which `jax.lax.ppermute(x, "x", perm=[(0, 1), (1, 0)])` writes.
    """
    if op.attr("source_target_pairs") is None:
        yield ctx.error(op, "collective_permute: source_target_pairs is missing; expected a [k, 2] si64 constant",
                        op=op)
        return
    for d in pairs_shape_diags(op, ctx):
        yield d


@rule("SHLO122", "collective-permute-duplicate-source", on=PERMUTE_OPS, spec="collective_permute C2", reuse=Reuse.OP)
def collective_permute_duplicate_source(op: Operation, ctx: Context) -> Iterator[Diagnostic]:
    """A process is the source of two pairs of one collective_permute.

    ## What it does
    Checks collective_permute C2: `is_unique(source_target_pairs[:, 0])`; the
    message names the rows that repeat the source.

    ## Why is this bad?
    A permutation sends each process's operand to at most one target; XLA's
    verifier rejects duplicates ("duplicate sources not allowed").

    ## Example
    ```mlir
    %0 = "stablehlo.collective_permute"(%x) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>,
        source_target_pairs = dense<[[0, 1], [0, 2]]> : tensor<2x2xi64>}> : (tensor<4xf32>) -> tensor<4xf32>
    ```

    ## Use instead
    Two collective_permutes, or an `all_gather` if every process needs the data.
    For a ring, `ppermute(x, "x", perm=[(i, (i + 1) % n) for i in range(n)])`.
    """
    yield from pairs_unique_diags(op, ctx, 0)


@rule("SHLO123", "collective-permute-duplicate-target", on=PERMUTE_OPS, spec="collective_permute C3", reuse=Reuse.OP)
def collective_permute_duplicate_target(op: Operation, ctx: Context) -> Iterator[Diagnostic]:
    """A process is the target of two pairs of one collective_permute.

    ## What it does
    Checks collective_permute C3: `is_unique(source_target_pairs[:, 1])`.

    ## Why is this bad?
    The target's result is one buffer: two sources writing it is undefined, and
    XLA rejects it ("duplicate targets not allowed").

    ## Example
    ```mlir
    %0 = "stablehlo.collective_permute"(%x) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>,
        source_target_pairs = dense<[[0, 2], [1, 2]]> : tensor<2x2xi64>}> : (tensor<4xf32>) -> tensor<4xf32>
    ```

    ## Use instead
    A (partial) permutation, every target at most once: `dense<[[0, 2], [1, 0]]>`.
    """
    yield from pairs_unique_diags(op, ctx, 1)


@rule("SHLO124", "collective-permute-id-out-of-range", on=PERMUTE_OPS, spec="collective_permute C4", reuse=Reuse.OP)
def collective_permute_id_out_of_range(op: Operation, ctx: Context) -> Iterator[Diagnostic]:
    """A collective_permute's `source_target_pairs` names a process id outside [0, N).

    ## What it does
    Checks collective_permute C4: `0 <= source_target_pairs < N`, with N =
    `num_partitions` when channel_id > 0 (cross_partition) and `num_replicas`
    otherwise (cross_replica), from the module's `mhlo.num_*` attributes or the
    command line. Without a grid only negative ids (e.g. `-1` padding, which is
    not allowed in pairs) are reported.

    ## Why is this bad?
    The process does not exist: XLA rejects the program, or the collective waits
    for a peer that never arrives.

    ## Example
    ```mlir
    module attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
      ...
      %0 = "stablehlo.collective_permute"(%x) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>,
          source_target_pairs = dense<[[7, 8]]> : tensor<1x2xi64>}> : (tensor<4xf32>) -> tensor<4xf32>
    ```

    ## Use instead
    Wrap ids around the axis: `perm=[(i, (i + 1) % 8) for i in range(8)]`.
    """
    yield from pairs_range_diags(op, ctx, "collective_permute C4")


@rule("SHLO125", "collective-permute-result-type-mismatch", on=COLLECTIVE_PERMUTE, spec="collective_permute C5",
      reuse=Reuse.OP)
def collective_permute_result_type_mismatch(op: Operation, ctx: Context) -> Iterator[Diagnostic]:
    """A collective_permute's result type differs from its operand type.

    ## What it does
    Checks collective_permute C5: `type(result) = type(operand)` (per operand when
    the op is variadic). A dynamic dimension matches any size.

    ## Why is this bad?
    Each process receives a buffer shaped like the sender's operand; a result of
    another shape or element type is rejected by the verifier.

    ## Example
    ```mlir
    %0 = "stablehlo.collective_permute"(%x) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>,
        source_target_pairs = dense<[[0, 1], [1, 0]]> : tensor<2x2xi64>}> : (tensor<4xf32>) -> tensor<8xf32>
    ```

    ## Use instead
    ```mlir
    ... : (tensor<4xf32>) -> tensor<4xf32>
    ```
    """
    operands = op.operand_types
    results = op.result_types
    if not results or not operands:
        return
    if len(operands) != len(results):
        yield ctx.error(op, f"collective_permute: {len(results)} result(s) for {len(operands)} operand(s); "
                            f"expected one result per operand", op=op)
        return
    for i, (a, r) in enumerate(zip(operands, results)):
        if not compatible(a, r):
            which = "result" if len(results) == 1 else f"result #{i}"
            yield ctx.error(op, f"collective_permute: {which} type {r} differs from operand type {a}; "
                                f"expected {a}", op=op)
