"""The collectives: `all_gather`, `all_reduce`, `reduce_scatter`, `all_to_all`,
`collective_broadcast`, `collective_reduce` (and seed 004's `*_start` forms, which
"take the same arguments and have the same constraints").

Constraint labels (C1, C2, ...) are the current StableHLO spec's. The spec has no
`collective_reduce` section yet; its labels here follow `collective_broadcast`
(C1 unique ids, C2 ids in range, C3 result type) plus C4 for the reduction region,
as `all_reduce` C5 words it. The replica-group checks are shared (rules/support/groups.py):

* unique ids; ids in `[0, N)` with N from the process grid for the op's strategy
  (without a grid, the spec's literal bound `size(replica_groups)`, i.e. the ids
  must be 0..n-1); `-1` pads ragged groups only for `all_reduce`; the groups cover
  the axis (`size(replica_groups) = N`); an empty `replica_groups` is one group of
  every id (except with `use_global_device_ids`, where ids must be written out);
* the `#stablehlo.replica_group_mesh_axes<...>` form is accepted; its group size is
  read from the module's `sdy.mesh` when it can be.

The rules themselves live in one module per op: all_gather.py, all_reduce.py,
reduce_scatter.py, all_to_all.py, collective_broadcast.py, collective_reduce.py.
This module holds the rules every one of them has (SHLO200, SHLO207); the op
names each family runs on and the result-type checks they share are in
rules/support/collective_checks.py.
"""
from __future__ import annotations

from typing import Iterator

from shlo_lint.checker.lint.context import Context
from shlo_lint.checker.source.diagnostics import Diagnostic
from shlo_lint.checker.ir.core import Operation
from shlo_lint.checker.lint.registry import Reuse, rule

from .support.groups import check_groups_form
from .support.shapes import op_label, result_types
from .support.collective_checks import (ALL_GATHER, ALL_REDUCE, ALL_TO_ALL, COLLECTIVE_BROADCAST, COLLECTIVE_REDUCE,
                                        REDUCE_SCATTER, per_axis_quantized)


_INPUT_LABEL = {"all_gather": "all_gather I3", "all_reduce": "all_reduce I2", "reduce_scatter": "reduce_scatter I3",
                "all_to_all": "all_to_all I5", "collective_broadcast": "collective_broadcast I2",
                "collective_reduce": "collective_reduce I2"}


# =========================================================================== shared
@rule("SHLO200", "replica-groups-malformed",
      on=ALL_GATHER + ALL_REDUCE + REDUCE_SCATTER + ALL_TO_ALL + COLLECTIVE_BROADCAST + COLLECTIVE_REDUCE,
      reuse=Reuse.OP)
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


@rule("SHLO207", "collective-per-axis-quantized", on=_PER_TENSOR_ONLY, spec="collective I1", reuse=Reuse.OP)
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
                d = ctx.error(op, f"{op_label(op)}: {where} {i} has a per-axis quantized type",
                              help=f"{op_label(op)} takes tensors or per-tensor quantized tensors: dequantize "
                                   f"first, or requantize per tensor")
                yield d.note(ctx.loc(op), f"{where} {i} has type {t}")
                return
