"""Channels: a collective whose ids only make sense across partitions but which has
no positive channel_id, so its ids are read as replica ids (SPEC-NOTES §2).

Repeated channel ids are *not* reported: JAX gives every collective channel 1.
"""
from __future__ import annotations

from itertools import islice
from typing import Iterator

from shlo_lint.checker.lint.context import Context
from shlo_lint.checker.source.diagnostics import Diagnostic
from shlo_lint.checker.ir.core import Operation
from shlo_lint.checker.lint.registry import Reuse, rule
from shlo_lint.checker.analysis.semantics import (CROSS_PARTITION, FLATTENED_IDS, channel_id, flag, iter_process_groups,
                                                  replica_groups)
from shlo_lint.checker.ir.catalog import DONE, GLOBAL_IDS_KINDS, KINDS, OPS, POINT_TO_POINT, START, base_kind

from .support.grid_checks import grid_needed
from .support.pairs import read_pairs

COLLECTIVE_OPS = tuple(name for name, o in OPS.items() if name.startswith("stablehlo.") and o.kind is not None
                       and o.role not in (START, DONE)) + \
    tuple(name for name, o in OPS.items() if name.startswith("stablehlo.") and o.kind is not None and o.role == START)
"""StableHLO's communication ops and their async starts (the channel is on the start)."""


def _ids(op: Operation, ctx: Context) -> tuple[str, list[list[int]]] | None:
    """(attribute name, id groups) the op's processes are named by."""
    kind = base_kind(op.name)
    if kind in ("collective_permute", "send", "recv"):
        p = read_pairs(op, ctx)
        return ("source_target_pairs", [list(r) for r in p.rows]) if p.rows else None
    groups = replica_groups(op)
    return ("replica_groups", groups) if groups else None


def _describe(groups: list[list[tuple[int, int]]]) -> str:
    g = next((g for g in groups if len({p for _r, p in g}) > 1), groups[0])
    shown = ", ".join(f"(r{r}, p{p})" for r, p in g[:4]) + (" ..." if len(g) > 4 else "")
    return f"{{{shown}}}"


@rule("SHLO130", "cross-partition-group-without-channel", on=COLLECTIVE_OPS, spec="process groups", reuse=Reuse.OP)
def cross_partition_group_without_channel(op: Operation, ctx: Context) -> Iterator[Diagnostic]:
    """A collective addresses processes across partitions but has no positive channel_id.

    ## What it does
    With no `channel_handle` (or `handle <= 0`) a collective, send or recv uses
    the cross_replica strategy: its `replica_groups` / `source_target_pairs`
    are replica ids, and each group stays inside one partition. This rule
    reports an op whose ids are too large to be replica ids (`>= num_replicas`)
    but would fit the partitions (`< num_partitions`, or the flattened ids for
    all_reduce / all_gather / reduce_scatter): the program means to talk across
    partitions, and for that the spec requires a positive channel_id (SPEC-NOTES
    §2, "any group that mixes partition ids needs a positive channel_id").
    Repeated channel ids are fine (JAX gives every collective channel 1). Ops with
    `use_global_device_ids` and no channel are left to that op's own C5 rule.

    ## Why is this bad?
    XLA treats the ids as replica ids: it rejects them as out of range, or (with
    several replicas) pairs up the wrong processes, and the partitions that
    expected to meet wait forever.

    ## Example
    ```mlir
    module attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
      ...
      %0 = "stablehlo.collective_permute"(%x) <{source_target_pairs = dense<[[0, 1], [1, 0]]> : tensor<2x2xi64>}>
          : (tensor<4xf32>) -> tensor<4xf32>
    ```

    ## Use instead
    ```mlir
    %0 = "stablehlo.collective_permute"(%x) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>,
        source_target_pairs = dense<[[0, 1], [1, 0]]> : tensor<2x2xi64>}> : (tensor<4xf32>) -> tensor<4xf32>
    ```
    (all_reduce / all_gather / reduce_scatter over flattened ids also need
    `use_global_device_ids`). JAX's shard_map collectives always carry a channel.
    """
    ch = channel_id(op)
    if ch is not None and ch > 0:
        return
    kind = base_kind(op.name)
    if kind in KINDS and KINDS[kind].meets == POINT_TO_POINT and flag(op, "is_host_transfer"):
        return
    if kind in GLOBAL_IDS_KINDS and flag(op, "use_global_device_ids"):
        return  # all_reduce/all_gather/reduce_scatter C5 (use_global_device_ids ⇒ channel_id > 0)
    found = _ids(op, ctx)
    if found is None:
        return
    if not grid_needed(ctx, op, "cross-partition ids without a channel"):
        return
    grid = ctx.grid
    R, P = grid.num_replicas, grid.num_partitions
    if P is None or R is None or P <= 1:
        return
    name, groups = found
    ids = [i for g in groups for i in g if i >= 0]
    if not ids:
        return
    hi = max(ids)
    ar_like = kind in GLOBAL_IDS_KINDS
    limit = R * P if ar_like else P
    if hi < R or hi >= limit:
        return  # valid replica ids, or out of range on every axis (C4 says so)
    intended = FLATTENED_IDS if ar_like else CROSS_PARTITION
    try:
        # Only a few groups are shown: never build all of them (a 2^31-process
        # grid would make billions).
        meant = list(islice(iter_process_groups(grid, intended, groups), 64))
    except Exception:  # pragma: no cover - malformed groups are C2/C4's business
        meant = []
    example = f"; read as {intended} they would form groups like {_describe(meant)}" if meant else ""
    why = "no channel_handle" if ch is None else f"channel_id {ch} <= 0"
    fix = ("give it a positive channel_id and use_global_device_ids" if ar_like
           else "give it a positive channel_id")
    span = ctx.attr_span(op, name)
    d = ctx.error(span, f"{kind}: {name} names id {hi} >= num_replicas = {R} without a positive channel_id", op=op,
                  help=f"{fix}, e.g. channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>")
    yield d.note(ctx.loc(span), f"with {why} the ids are replica ids (cross_replica); they fit the {P} "
                                f"partitions{example}: a group spanning partitions needs a positive channel_id")
