"""The per-module header cache: headers with the same layout (SSA names and
`#locN` references masked to the same length) parse once; a hit is the cached
header with its spans moved through both ops' offset maps and its names and
location read back from this op's own text. Only a header whose every masked
name is one a hit reads back is reused (`_reusable`)."""
from __future__ import annotations

import bisect
import re
from dataclasses import fields
from typing import Any

from ....ir.attributes import Attribute
from ....ir.core import LocAlias, OpHeader
from ....source.text import Span
from .ctx import ParseCtx
from .pieces import respan


# ----------------------------------------------------------------------------- header cache
# Big JAX modules repeat the same lines, layer after layer, with other SSA
# names: `"stablehlo.all_gather"(%812) <{...same attributes...}> : (...) -> ... loc(#loc93)`,
# `%53 = stablehlo.add %51, %52 : tensor<8x32x256xf32>`. A hit (~5 µs) costs a
# fifth of the fast path and a fiftieth of Lark; a per-module cache keyed on the
# compressed text with every SSA name and `#locN` reference masked *to the same
# length* makes equal keys mean identical layouts, so a hit is the cached header
# with its spans moved (through both ops' offset maps) and its names and loc read
# back from this op's own text. Strings are left as they are (they may hold `%`).
CACHE_MAX_BODY = 4096
# A name is masked as the grammar's VALUE_ID reads it (`%0#1`, never `%0#x`: the
# same length, but a syntax error that a hit on `%0#1` would hide).
_MASKABLE = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"|%[\w$.\-]+(?:#[0-9]+)?|#loc[\w$.\-]*')
_LOC_ALIAS_AT_END = re.compile(r"loc\((#[\w$.\-]+)\)\s*$")


_VALUE_MASKS = ["%" + "_" * (n - 1) for n in range(1, 65)]  # by length: the callback runs per SSA name


def _mask(m: re.Match) -> str:
    tok = m.group()
    c = tok[0]
    if c == "%":
        n = len(tok)
        return _VALUE_MASKS[n - 1] if n <= 64 else "%" + "_" * (n - 1)
    return tok if c == '"' else c + "_" * (len(tok) - 1)


def cache_key(body: str) -> str:
    return _MASKABLE.sub(_mask, body)


# Small files repeat each other's lines (`return %c : tensor<i32>`, JAX's
# `func.func private @inputs() -> (... {mhlo.layout_mode = "default"})`): a
# header that no module context can shape (no `#alias` / `!alias` it could
# name: no `#` but in `loc(#...)`, no `!`) is also kept process-wide, like the
# dialect-body cache (attrs.py _sub). 41% of the StableHLO testdata sample's
# headers hit one or the other (11% per module alone). Bounded: past
# _SHARED_MAX entries nothing more is added.
SHARED: dict[str, tuple] = {}
_SHARED_MAX = 4096


def cache_lookup(module, key: str, shared: bool = True):
    """The entry for `key`: (header, its _Ctx) to relocate, False (parsed, not
    reusable) or None (never parsed). `shared`: also the process-wide entries
    (the default parser; a parser without the fast path is the tests' reference
    and must not read headers the fast path built)."""
    cache = module.__dict__.get("_header_cache")
    hit = cache.get(key) if cache else None
    return SHARED.get(key) if hit is None and shared else hit


def error_count(module) -> int:
    return len(module.syntax_errors) + len(getattr(module, "internal_errors", ()))


def cache_store(module, key: str, h: OpHeader, body: str, ctx: ParseCtx, clean: bool, shared: bool = True) -> None:
    """Keep a fresh parse for the next op of the same layout. Not when its parse
    recorded an error (a hit would not repeat it: `_h_dot_general`'s
    `[0:2] x [0]`), nor when a hit could not read it back (`_reusable`)."""
    cache = module.__dict__.get("_header_cache")
    if cache is None:
        cache = module.__dict__["_header_cache"] = {}
    if not (clean and _reusable(h, body, ctx)):
        cache[key] = False
        return
    # (the op's position and offset map only: no module or text kept alive)
    entry = (h, ParseCtx("", ctx.base, None, ctx.gap_pos, ctx.gap_delta))
    cache[key] = entry
    if shared and len(SHARED) < _SHARED_MAX and "!" not in body and body.count("#") == body.count("loc(#"):
        SHARED[key] = entry


def clear_shared() -> None:
    """Forget the process-wide entries (bench/throughput.py: each timed pass cold)."""
    SHARED.clear()


def _reusable(h: OpHeader, body: str, ctx: ParseCtx) -> bool:
    """Whether a hit on `h` reads as a fresh parse would: every masked name of the
    body must be a result (before the op name: not in the header), an operand or
    an entry-block argument (read back from the new op's text), or the trailing
    `loc(#alias)` (read back too). A name anywhere else (a `kw = %x` or `#d<%x>`
    attribute, a `loc("n"(#loc3))` child) would be the first op's on a hit."""
    read_back = {s.start for _n, s in h.operands}
    for args in h.region_args:
        read_back.update(s.start for _n, _t, s in args)
    loc_at = -1
    if isinstance(h.loc, LocAlias):
        m = _LOC_ALIAS_AT_END.search(body)
        if m is not None:
            loc_at = m.start(1)
    gap_pos, gap_delta, base = ctx.gap_pos, ctx.gap_delta, ctx.base
    name_at = h.name_span.start
    # The common case by counting (an op with no region: no gap in the offset
    # map): when every read-back position holds a `%` after the op name, as
    # many `%` there as read-back positions, and no `#loc` but the trailing
    # one, mean nothing else is masked.
    if not gap_pos and body.count("%", name_at - base) == len(read_back) \
            and body.count("#loc") == (loc_at >= 0) and all(body[p - base] == "%" for p in read_back):
        return True
    for m in _MASKABLE.finditer(body):
        p = m.start()
        if body[p] == '"' or p == loc_at:
            continue
        i = bisect.bisect_right(gap_pos, p) if gap_pos else 0
        at = p + base + (gap_delta[i - 1] if i else 0)
        if at < name_at or at in read_back:
            continue
        return False
    return True


def relocate(hit: tuple, ctx: ParseCtx, body: str) -> OpHeader:
    h, old = hit
    if not old.gap_pos and not ctx.gap_pos:
        delta = ctx.base - old.base

        def move(span: Span) -> Span:
            return Span(span.start + delta, span.end + delta)
    else:
        def to_new(p: int) -> int:
            b = p - old.base  # absolute (old op) -> position in the shared body
            for gp, gd in zip(reversed(old.gap_pos), reversed(old.gap_delta)):
                if b - gd >= gp:
                    b -= gd
                    break
            i = bisect.bisect_right(ctx.gap_pos, b)
            return b + ctx.base + (ctx.gap_delta[i - 1] if i else 0)

        def move(span: Span) -> Span:
            return Span(to_new(span.start), to_new(span.end))

    source = ctx.source
    operands = []
    for _n, s in h.operands:
        s = move(s)
        operands.append((source[s.start:s.end], s))
    loc = h.loc
    if isinstance(loc, LocAlias):
        m = _LOC_ALIAS_AT_END.search(body)
        loc = LocAlias(m.group(1)) if m else loc
    attributes = h.attributes
    if attributes:
        attributes = {k: move_attr(v, move) for k, v in attributes.items()}
    else:
        attributes = {}
    region_args = h.region_args
    if region_args:
        region_args = [[(source[s2.start:s2.end], t, s2) for _n, t, s in args for s2 in (move(s),)]
                       for args in region_args]
    else:
        region_args = []
    return OpHeader(h.name, move(h.name_span), h.generic, operands,
                    None if h.operand_types is None else list(h.operand_types), list(h.result_types),
                    attributes, h.properties, region_args, list(h.successors), loc)


_ATTR_FIELDS: dict[type, tuple[tuple[str, int], ...]] = {}
_LEAF, _SPAN, _NEST = 0, 1, 2


def move_attr(value: Any, move) -> Any:
    """_move_attr_rec, or (deeper than the recursion limit) the same copy made
    with an explicit stack."""
    try:
        return _move_attr_rec(value, move)
    except RecursionError:
        return respan(value, move)


def _move_attr_rec(value: Any, move) -> Any:
    """A copy of an attribute (tree) with every span moved. Per class, each field is
    classified once (span / may nest attributes / plain value) so the common
    leaves (integers, dense constants, unit attributes) cost one constructor call."""
    if isinstance(value, Attribute):
        cls = type(value)
        plan = _ATTR_FIELDS.get(cls)
        if plan is None:
            plan = _ATTR_FIELDS[cls] = tuple(
                (f.name, _SPAN if f.name == "span" else
                 _NEST if f.name in ("elements", "entries", "params", "positional", "value") else _LEAF)
                for f in fields(cls))
        args = []
        for name, kind in plan:
            v = getattr(value, name)
            if kind == _SPAN:
                args.append(None if v is None else move(v))
            elif kind == _NEST and isinstance(v, (tuple, list, Attribute)):
                args.append(_move_attr_rec(v, move))
            else:
                args.append(v)
        return cls(*args)
    if isinstance(value, tuple):
        return tuple([_move_attr_rec(v, move) if isinstance(v, (tuple, list, Attribute)) else v for v in value])
    if isinstance(value, list):
        return [_move_attr_rec(v, move) if isinstance(v, (tuple, list, Attribute)) else v for v in value]
    return value
