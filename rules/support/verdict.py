"""The deadlock analysis' verdict on a module, computed once per lint (in
`ctx.cache`) for the rules that read it: SHLO500-503 and SHLO505
(rules/deadlock.py) and SHLO504 (rules/uniformity.py)."""
from __future__ import annotations

from shlo_lint.checker.analysis.process_model import Verdict, analyze
from shlo_lint.checker.analysis.tracer.structure import structure_of
from shlo_lint.checker.analysis.uniform import PARTITIONED_MARKERS
from shlo_lint.checker.ir.core import Operation
from shlo_lint.checker.lint.context import ANALYSIS, STRUCTURE_KEY, CacheKey, Context
from shlo_lint.checker.lint.registry import Reuse

from .grid_checks import grid_needed


VERDICT_KEY = CacheKey("deadlock.verdict", ANALYSIS)
"""ctx.cache key of the verdict (computed again by whoever asks when it is missing)."""


MODULE_OPS = ("builtin.module",)
VERDICT_REUSE = Reuse("module", text_markers=PARTITIONED_MARKERS)
"""What the rules reading the verdict declare (registry.Reuse): their findings
depend on the header fields the analysis read, the block labels and whether the
program text names a Shardy mesh or GSPMD's shard_map markers."""
"""The rules run on the module op, during the op walk (before the module-level
rules: the grid note, SHLO190, then knows the analysis was skipped)."""


def verdict(ctx: Context, op: Operation | None = None) -> Verdict | str | None:
    """The module's verdict (computed once), or the text of an option error; None
    when `op` is a nested module (the analysis runs once, on the outermost)."""
    if op is not None and op is not ctx.module.root:
        return None
    if VERDICT_KEY not in ctx.cache:
        module = ctx.module
        struct = structure_of(module, ctx.cache, STRUCTURE_KEY)
        try:
            if not struct.uniform and not ctx.grid.known:
                grid_needed(ctx, None, "the deadlock analysis")
            ctx.cache[VERDICT_KEY] = analyze(module, ctx.grid, ctx.options, struct=struct)
        except ValueError as e:
            ctx.cache[VERDICT_KEY] = str(e)
    return ctx.cache[VERDICT_KEY]
