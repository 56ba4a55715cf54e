"""What the rest of shlo-lint calls: `LarkParser` (ir.Module's parse_header,
parse_block_label, parse_location_alias: fast path, header cache, Lark, and a
crude fallback after a syntax error or an internal one) and `parse_type` /
`parse_type_list` / `parse_attribute` / `parse_location` /
`parse_alias_definition`, which raise SyntaxProblem."""
from __future__ import annotations

import bisect
import re
from typing import Any

from lark.exceptions import UnexpectedInput

from ....ir.attributes import Attribute
from ....ir.core import Location, OpHeader
from ....source.text import Span
from ....ir.types import FunctionType, Type
from .commas import comma_problems
from .cache import CACHE_MAX_BODY, SHARED, cache_key, error_count, cache_lookup, relocate, cache_store
from .ctx import BARE_LOCATION, InternalParseError, ParseCtx, TypeTooDeep, record_internal, internal_message
from .fast import fast_block_label, fast_loc, fast_parse
from .runner import shared_builder, lark_parser, syntax_problem, parse_rule
from .pieces import CANON, REGION_TOKEN, known_op, top_level


def _typeless_result(module, op, h: OpHeader) -> None:
    """`%1 = stablehlo.add` and nothing else: every StableHLO op's custom form that
    defines results writes its operands or attributes and a `: type` after its name
    (MLIR's parser: "expected SSA operand"); the grammar takes an empty custom body,
    as other dialects' ops may have one, so it is caught here."""
    if (op.result_names and not h.generic and op.name.startswith("stablehlo.")
            and not h.operands and not h.result_types and not h.attributes and not op.regions):
        module.syntax_errors.append((f"expected operands and a ': type' after {op.name}, got the end of the op",
                                     Span(h.name_span.end, h.name_span.end)))


def _comma_errors(module, name: str, body: str, ctx: ParseCtx) -> None:
    """The commas of a pretty form that MLIR rejects (commas.py), as syntax errors."""
    for message, start, end in comma_problems(body, name):
        module.syntax_errors.append((message, Span(_absolute(ctx, start), _absolute(ctx, end))))


def _absolute(ctx: ParseCtx, pos: int) -> int:
    if ctx.gap_pos:
        i = bisect.bisect_right(ctx.gap_pos, pos)
        if i:
            return pos + ctx.base + ctx.gap_delta[i - 1]
    return pos + ctx.base


# --------------------------------------------------------------------------- op text
def _compress(text: str, start: int, end: int, regions) -> tuple[str, list[int], list[int]]:
    """The op's text with each region replaced by "«»", plus the offset map."""
    if not regions:
        return text[start:end], [], []
    pieces: list[str] = []
    gap_pos: list[int] = []
    gap_delta: list[int] = []
    cur = start
    rel = 0
    delta = 0
    for r in sorted(regions, key=lambda s: s.start):
        rs, re_ = max(r.start, cur), min(r.end, end)
        if r.end - r.start < 2:  # a region the scanner saw open but never closed
            re_ = end
        if re_ <= rs:
            continue
        pieces.append(text[cur:rs])
        rel += rs - cur
        pieces.append(REGION_TOKEN)
        rel += 2
        delta += (re_ - rs) - 2
        gap_pos.append(rel)
        gap_delta.append(delta)
        cur = re_
    pieces.append(text[cur:end])
    return "".join(pieces), gap_pos, gap_delta


# An SSA name as the grammar's VALUE_ID (and the layout key, cache._MASKABLE) reads it.
_SKELETON = re.compile(r"%[\w$.\-]+(?:#[0-9]+)?")
_CRUDE_OPERAND = re.compile(r"%[\w$.\-]+(?:#[0-9]+)?(?![\w$.\-#]|:|\s*=)")
_OP_NAME = re.compile(r'"[^"]*"|[A-Za-z_][\w$.]*')


class LarkParser:
    """Parses op headers and block labels for a Module (the object ir.Module calls)."""

    def __init__(self, fast: bool = True, cache: bool = True):
        lark_parser()
        self.cache = cache
        """Reuse the parse of an identically laid-out header, block label or dialect
        body in the same module (False: parse every one afresh, the reference the
        differential test compares with)."""
        self.fast = fast
        """Try the regex fast path for plain lines before Lark (same results, much faster)."""
        self._last: tuple | None = None

    def parse_header(self, module, op) -> OpHeader:
        text = module.source.text
        start, end = op.span.start, op.span.end
        body, gap_pos, gap_delta = _compress(text, start, end, getattr(op, "region_spans", None) or [])
        ctx = ParseCtx(body, start, module, gap_pos, gap_delta)
        try:
            # The cache first: a big module repeats a few dozen layouts (98% of the
            # 2 MB transformer's headers are hits), small files repeat each other's
            # lines, and a hit is cheaper than even the fast path (cache.py).
            last, self._last = self._last, None
            if last is not None and last[0] is op:  # header_checked's key for this op
                key = last[1]
            else:
                key = cache_key(body) if self.cache and len(body) <= CACHE_MAX_BODY else None
            hit = cache_lookup(module, key, self.fast) if key is not None else None
            if hit:
                return relocate(hit, ctx, body)
            errors = error_count(module)
            h = fast_parse(ctx) if self.fast else None
            if h is None:
                h = parse_rule("op", ctx)
            if isinstance(h, OpHeader):  # (before _store: a comma error makes the layout unclean)
                _comma_errors(module, op.name, body, ctx)
                _typeless_result(module, op, h)
            if key is not None and hit is None and isinstance(h, OpHeader):
                cache_store(module, key, h, body, ctx, clean=error_count(module) == errors, shared=self.fast)
        except UnexpectedInput as err:
            problem = syntax_problem(err, ctx)
            generic = _is_generic(body)
            if generic or known_op(op.name) or op.name in CANON:
                message = problem.message
                if "loc(...)" in message and "got '\"" in message:  # `-> T "name"(#loc3)`
                    message += ": " + BARE_LOCATION
                module.syntax_errors.append((message, problem.span))
            return _whole_op_before(err, body, ctx) or self._fallback(op, body, ctx)
        except TypeTooDeep as err:  # bad text found by a callback, not by Lark
            module.syntax_errors.append((err.message, err.span))
            return self._fallback(op, body, ctx)
        except Exception as err:  # a parser bug must not cost the user the file
            record_internal(module, f"this {op.name} op", err, Span(start, end))
            return self._fallback(op, body, ctx)
        if not isinstance(h, OpHeader):  # pragma: no cover - defensive
            return self._fallback(op, body, ctx)
        return h

    def header_checked(self, module, op) -> bool:
        """True when `op`'s header is known to parse without parsing it: a header
        of the same layout (a cache hit) parsed without error. ir.Operation builds
        it when first read, the same as now; most never are (rules read ~5% of a
        big module's headers), so a whole-module check costs a mask and a lookup
        per op instead of a relocated copy."""
        if not self.cache:
            return False
        span = op.span
        regions = op.region_spans
        if regions:
            body = _compress(module.source.text, span.start, span.end, regions)[0]
        else:
            body = module.source.text[span.start:span.end]
        key = cache_key(body) if len(body) <= CACHE_MAX_BODY else None
        if key is not None and cache_lookup(module, key, self.fast):
            return True
        self._last = (op, key)  # a miss: parse_header, next, takes this op's key
        return False

    def unchecked(self, module, ops):
        """header_checked over ops in order, in one loop (every header of a file:
        engine._parse_everything): yields each op it could not check, and the
        caller parses that one before the next is checked (its parse stores the
        layout the ops after it hit). The per-op method call, attribute reads and
        the cache's lookups are hoisted out of the loop (docs/performance.md,
        "Throughput").

        Checking needs less than the layout key: a header parses cleanly or not
        whatever its SSA names' lengths (VALUE_ID is one token however long, and
        the parser only copies a name's text), so once one layout parses cleanly,
        every op whose text differs from it only in the length of its names is
        checked too. Such an op is matched on its skeleton (each name replaced
        by one \x01: one C-speed substitution, no per-name callback), taken only
        where the layout key masks nothing else (no string, no `#loc`), so the
        two differ only in the names' lengths. The layout key runs a callback per
        name, a skeleton none, and fewer skeletons than layouts stand for a big
        module's ops (docs/performance.md, "Throughput")."""
        if not self.cache:
            yield from ops
            return
        text = module.source.text
        key_of = cache_key
        skeleton_of = _SKELETON.sub
        limit = CACHE_MAX_BODY
        shared = SHARED if self.fast else None
        attrs = module.__dict__
        cache = None
        clean: set[str] = set()  # skeletons of layouts that parsed cleanly
        for op in ops:
            span = op.span
            regions = op.region_spans
            if regions:
                body = _compress(text, span.start, span.end, regions)[0]
            else:
                body = text[span.start:span.end]
            skeleton = None
            if len(body) <= limit:
                if '"' not in body and "#loc" not in body and "\x01" not in body:
                    skeleton = skeleton_of("\x01", body)
                    if skeleton in clean:
                        continue
                key = key_of(body)
                if cache is None:
                    cache = attrs.get("_header_cache")  # made by the first parse that stores
                hit = cache.get(key) if cache else None
                if hit is None and shared is not None:
                    hit = shared.get(key)
                if hit:
                    if skeleton is not None:
                        clean.add(skeleton)
                    continue
            else:
                key = None
            self._last = (op, key)  # a miss: parse_header, next, takes this op's key
            yield op
            if skeleton is not None:
                if cache is None:
                    cache = attrs.get("_header_cache")
                if cache and cache.get(key):  # stored as reusable: it parsed cleanly
                    clean.add(skeleton)

    def parse_location_alias(self, module, text: str, offset: int) -> Location | None:
        """A `#locN = loc(...)` definition's text (at `offset`) -> Location; a syntax
        error is recorded and None returned when it does not parse."""
        ctx = ParseCtx(text, offset, module)
        try:
            loc = fast_loc(ctx) if self.fast else None
            return loc if loc is not None else parse_rule("loc_only", ctx)
        except UnexpectedInput as err:
            problem = syntax_problem(err, ctx)
            module.syntax_errors.append((problem.message, problem.span))
        except Exception as err:  # pragma: no cover - a parser bug
            record_internal(module, "this location", err, Span(offset, offset + len(text)))
        return None

    def parse_block_label(self, module, block) -> list[tuple[str, Type | None, Span]]:
        span = block.label_span
        text = module.source.text[span.start:span.end]
        ctx = ParseCtx(text, span.start, module)
        try:
            # Reduction bodies repeat `^bb0(%arg2: tensor<f32>, %arg3: tensor<f32>):`
            # thousands of times: same cache idea as headers (names read back).
            key = ("^", cache_key(text)) if self.cache else None
            cache = module.__dict__.setdefault("_header_cache", {})
            hit = cache.get(key) if key is not None else None
            if hit is not None:
                base, args = hit
                delta = span.start - base
                source = module.source.text
                return [(source[s.start + delta:s.end + delta], t, Span(s.start + delta, s.end + delta))
                        for _n, t, s in args]
            args = fast_block_label(ctx) if self.fast else None
            if args is None:
                args = parse_rule("block_label", ctx)
            if key is not None:
                cache[key] = (span.start, args)
            return args
        except Exception as err:
            if isinstance(err, UnexpectedInput):
                problem = syntax_problem(err, ctx)
                module.syntax_errors.append((problem.message, problem.span))
            elif isinstance(err, TypeTooDeep):
                module.syntax_errors.append((err.message, err.span))
            else:  # pragma: no cover - a parser bug
                record_internal(module, "this block label", err, span)
            args = []
            for m in re.finditer(r"(%[\w$.\-]+)\s*:", text):
                args.append((m.group(1), None, Span(span.start + m.start(1), span.start + m.end(1))))
            return args

    def _fallback(self, op, body: str, ctx: ParseCtx) -> OpHeader:
        """Minimal header for an op whose text does not parse: name, operands, trailing types."""
        b = shared_builder()
        saved = b.ctx
        b.ctx = ctx
        try:
            eq = _header_name_start(body)
            m = _OP_NAME.match(body, eq)
            if m is not None:
                name_span = b._span2(m.start(), m.end())
                after = m.end()
            else:
                name_span = b._span2(eq, eq)
                after = eq
            h = OpHeader(name=op.name, name_span=name_span, generic=body[eq:eq + 1] == '"')
            for om in _CRUDE_OPERAND.finditer(body, after):
                h.operands.append((om.group(0), b._span2(om.start(), om.end())))
        finally:
            b.ctx = saved
        sig = _trailing_signature(body)
        if sig is not None:
            parsed = _signature_prefix(sig)
            if isinstance(parsed, list) and len(parsed) == 1 and isinstance(parsed[0], FunctionType):
                parsed = parsed[0]  # sig_only reads `(T) -> U` as a list of one function type
            if isinstance(parsed, FunctionType):
                h.operand_types = list(parsed.inputs)
                h.result_types = list(parsed.results)
            elif parsed:
                nres = sum(n for _, n in getattr(op, "result_names", ()) or ())
                if len(parsed) == nres:
                    h.result_types = list(parsed)
        return h


def _header_name_start(body: str) -> int:
    """Offset of the op name in an op's text (after any `%r, %s:2 =`)."""
    m = re.match(r"\s*(?:%[\w$.\-]+(?::[0-9]+)?\s*(?:,\s*%[\w$.\-]+(?::[0-9]+)?\s*)*=\s*)?", body)
    return m.end() if m else 0


def _is_generic(body: str) -> bool:
    i = _header_name_start(body)
    return body[i:i + 1] == '"'


def _whole_op_before(err: UnexpectedInput, body: str, ctx: ParseCtx) -> OpHeader | None:
    """The header of the op that ends where the syntax error starts, when the text
    before it is one: junk after a complete generic op (MLIR's pretty_debug_info
    printing writes `... -> T "send"(#loc7)`) costs one SHLO001, and the rules still
    read the op's real attributes instead of a fallback without them (which made
    a send "have no channel_handle", SHLO105, under that SHLO001)."""
    cut = getattr(err, "pos_in_stream", None)
    if not cut or cut <= 0 or not _is_generic(body) or body[cut:].lstrip().startswith(("}", ")", ">", "]")):
        return None
    head = body[:cut].rstrip()
    try:
        h = parse_rule("op", ParseCtx(head, ctx.base, ctx.module, ctx.gap_pos, ctx.gap_delta))
    except Exception:  # not a whole op either: the fallback header
        return None
    return h if isinstance(h, OpHeader) else None


def _signature_prefix(sig: str):
    """The trailing signature parsed, or its longest part before a syntax error:
    the types of `: (T) -> U "junk"` are still `(T) -> U`, so an op whose trailing
    text is broken keeps its result count (else every rule comparing results
    with operands piles an error on the one SHLO001)."""
    try:
        return parse_rule("sig_only", ParseCtx(sig, 0))
    except UnexpectedInput as err:
        cut = getattr(err, "pos_in_stream", None)
    except TypeTooDeep:  # already a syntax error of the op (parse_header)
        return None
    if not cut or cut <= 0 or not sig[:cut].strip():
        return None
    try:
        return parse_rule("sig_only", ParseCtx(sig[:cut].rstrip(), 0))
    except (UnexpectedInput, TypeTooDeep):
        return None


def _trailing_signature(body: str) -> str | None:
    """Text after the last top-level ' : ' of an op (its trailing loc removed)."""
    last = -1
    for last in top_level(body, ":"):
        pass
    if last < 0:
        return None
    sig = body[last + 1:]
    k = sig.rfind(" loc(")
    if k >= 0:
        sig = sig[:k]
    return sig.strip() or None


# --------------------------------------------------------------------------- helpers
def _parse_text(start: str, text: str, offset: int):
    ctx = ParseCtx(text, offset)
    try:
        return parse_rule(start, ctx)
    except UnexpectedInput as err:
        raise syntax_problem(err, ctx) from None
    except TypeTooDeep:
        raise
    except Exception as err:  # a parser bug: still a located problem, not a traceback
        raise InternalParseError(internal_message("this text", err),
                                 Span(offset, offset + len(text))) from None


def parse_type(text: str, offset: int = 0) -> Type:
    """Parse one type; raises SyntaxProblem (spans shifted by `offset`)."""
    return _parse_text("type_only", text, offset)


def parse_type_list(text: str, offset: int = 0) -> list[Type]:
    """Parse `T, U, ...`; raises SyntaxProblem."""
    return _parse_text("type_list_only", text, offset)


def parse_attribute(text: str, offset: int = 0) -> Attribute:
    """Parse one attribute value; raises SyntaxProblem."""
    return _parse_text("attr_only", text, offset)


def parse_location(text: str, offset: int = 0) -> Location:
    """Parse `loc(...)`; raises SyntaxProblem."""
    return _parse_text("loc_only", text, offset)


def parse_alias_definition(text: str, offset: int = 0) -> tuple[str, Any]:
    """Parse `#name = loc(...)` / `#name = attr` / `!name = type` -> (name, value)."""
    return _parse_text("alias_def", text, offset)
