"""The combiner algorithm (checker/analysis/combining.py) run on a block for the rules
that read it: SHLO631-633 (rules/combine.py: what a combiner would merge in a
StableHLO program) and SHLO641 (rules/xla_comm.py: what XLA left apart in a
compiled module). One run per block, keying and thresholds, kept in `ctx.cache`,
so the two read the same groups and the same notion of independence."""
from __future__ import annotations

from shlo_lint.checker.analysis.combining import KINDS, XLA_KEYING, Combining, GroupIds, Keying, candidate, combine
from shlo_lint.checker.analysis.semantics import replica_groups
from shlo_lint.checker.analysis.tracer.structure import collective_kind, comm_role
from shlo_lint.checker.ir.catalog import DONE, START, info
from shlo_lint.checker.ir.core import Block, Operation
from shlo_lint.checker.lint.context import Context

from .overlap_work import flow

THRESHOLD_BYTES = 30 * 1024 * 1024
"""`combine-threshold-bytes` by default: XLA:GPU's default (kDefaultAllReduceCombineThreshold,
30 MiB + 7 bytes, xla/service/collective_utils.h, rounded to 30 MiB here)."""
THRESHOLD_COUNT = 256
"""`combine-threshold-count` by default: what XLA:GPU and XLA:CPU pass (combine_threshold_count)."""
SCAN_LIMIT = 20_000
"""`combine-scan-limit` by default: a dependence search that visits more ops counts as dependent."""

_UNSET = object()


def block_combining(ctx: Context, block: Block, *, keying: Keying = XLA_KEYING, threshold_bytes=_UNSET,
                    threshold_count: int | None = None, kinds: tuple[str, ...] = KINDS,
                    starts: bool = False, units: bool = False) -> Combining:
    """The combiner's groups and splits over the collectives of `kinds` in `block`
    (`starts`: async starts too, as the collectives they start: in a compiled GPU
    module every collective is one, and XLA combined them before making them async;
    `units`: ops the combiner already made count as one candidate each, combining.candidate).
    Thresholds default to the options (`combine-threshold-bytes`, `combine-threshold-count`);
    `threshold_bytes=None`: no byte limit."""
    if threshold_bytes is _UNSET:
        threshold_bytes = int(ctx.option("combine-threshold-bytes", THRESHOLD_BYTES))
    if threshold_count is None:
        threshold_count = int(ctx.option("combine-threshold-count", THRESHOLD_COUNT))
    budget = int(ctx.option("combine-scan-limit", SCAN_LIMIT))
    cache = ctx.cache.setdefault("combine.blocks", {})
    key = (id(block), keying, threshold_bytes, threshold_count, kinds, starts, units)
    got = cache.get(key)
    if got is None:
        f = flow(ctx, block)
        ids = ctx.cache.setdefault("combine.group_ids", GroupIds())
        text = ctx.source.text
        cands = []
        for i, o in enumerate(f.ops):
            role = info(o.name).role
            if role is None or role == DONE or (role == START and not starts):
                continue
            if collective_kind(o) in kinds and comm_role(o) is not None:
                cands.append(candidate(o, i, text, ids, keying, units))
        got = cache[key] = combine(f, cands, threshold_bytes, threshold_count, budget)
    return got


def key_words(key: tuple, op: Operation) -> str:
    """What a combine key holds, in words (`add, f32, replica groups [[0, 1]], a channel`)."""
    _kind, reduction, element, _groups_id, channel, global_ids, dim = key
    words = [w for w in (reduction, element) if w]
    groups = replica_groups(op)
    if groups is not None:
        words.append("replica groups " + ("all" if not groups else
                                         "[" + ", ".join("[" + ", ".join(map(str, g)) + "]" for g in groups[:4])
                                         + (", ..." if len(groups) > 4 else "") + "]"))
    words.append("a channel" if channel else "no channel")
    if global_ids:
        words.append("global device ids")
    if dim is not None:
        words.append(f"dimension {dim}")
    return ", ".join(words)


__all__ = ["SCAN_LIMIT", "THRESHOLD_BYTES", "THRESHOLD_COUNT", "block_combining", "key_words"]
