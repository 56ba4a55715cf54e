"""Checks that need the process grid, and integer bounds a literal must fit.

A check that needs the grid calls `grid_needed`: without a grid it records what
it skipped, and SHLO190 (rules/grid.py) reports one note for the whole file."""
from __future__ import annotations

import re

from shlo_lint.checker.ir.core import Operation
from shlo_lint.checker.ir.types import ScalarType
from shlo_lint.checker.lint.context import Context


GRID_SKIPPED = "grid_skipped"
"""ctx.cache key: set of the check labels skipped because the grid is unknown."""


GRID_SKIPPED_AT = "grid_skipped_at"
"""ctx.cache key: the first op whose check was skipped (where the note points when
the module op is implicit)."""


def grid_needed(ctx: Context, op: Operation | None, check: str) -> bool:
    """True when the process grid is known; else record `check` as skipped."""
    if ctx.grid.known:
        return True
    ctx.cache.setdefault(GRID_SKIPPED, set()).add(check)
    if op is not None:
        ctx.cache.setdefault(GRID_SKIPPED_AT, op)
    return False


_INT_TYPE = re.compile(r"^(s|u)?i(\d+)$")


def int_range(element) -> tuple[int, int] | None:
    """[lo, hi] of the values an integer element type holds as XLA reads them (signed
    for `iN` and `siN`, unsigned for `uiN`); None for other types."""
    m = _INT_TYPE.match(str(element)) if isinstance(element, ScalarType) else None
    if m is None:
        return None
    bits = int(m.group(2))
    if m.group(1) == "u":
        return 0, (1 << bits) - 1
    return -(1 << (bits - 1)), (1 << (bits - 1)) - 1


def overflowing_integer(literal: str, element) -> int | None:
    """The first integer written in a dense literal that its element type cannot hold."""
    bounds = int_range(element)
    if bounds is None or "0x" in literal:
        return None
    lo, hi = bounds
    for tok in re.findall(r"-?\d+(?![.\deE])", literal):
        v = int(tok)
        if not lo <= v <= hi:
            return v
    return None
