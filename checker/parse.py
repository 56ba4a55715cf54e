"""Lark LALR parsing of operation headers, types, attributes and locations.

The structural scanner (scan.py) cuts a file into operations and regions; this
module parses one operation's *header* when somebody first asks for it. The op's
text has each of its own regions collapsed to a two-character REGION token
("«»") and a small offset map turns every position back into an absolute offset
in the file, so a 30 MB module's `builtin.module` header costs what its first and
last lines cost.

IR objects are built in the parser's callbacks (`Lark(..., transformer=...)`, no
parse tree). Pretty (custom-assembly) forms are read by the grammar as a balanced
sequence of items; `_Builder._interpret` maps each known op's items to its real
attribute names (`dims` -> `broadcast_dimensions`, `LT` ->
`comparison_direction`, ...) with the values the generic form would give, and
reads any other op generically, so a well-formed line of an unknown dialect
never fails. Plain lines (most of what JAX prints) take a regex fast path that
builds the same items without Lark (~5x faster; tests check both agree).

Entry points: `LarkParser` (what ir.Module calls: parse_header, parse_block_label,
parse_location_alias) and `parse_type` / `parse_type_list` / `parse_attribute` /
`parse_location` / `parse_alias_definition`, which raise `SyntaxProblem`.
Syntax errors met lazily are appended to `module.syntax_errors`, never raised.
Aliases: `#name` / `!name` references resolve through the scanner's
`module.alias_texts` (name -> (text, offset)) or `module.attr_aliases` /
`module.type_aliases`; `loc(#locN)` stays a LocAlias named "#locN".
The builder keeps per-parse state: parse from one thread at a time.
"""
from __future__ import annotations

import bisect
import re
import struct
from dataclasses import fields, replace
from importlib import resources
from typing import Any

from lark import Lark, Token, Transformer, Tree, v_args
from lark.exceptions import UnexpectedCharacters, UnexpectedInput, UnexpectedToken

from .attributes import (ArrayAttr, Attribute, BoolAttr, DenseArrayAttr, DenseElementsAttr,
                         DenseResourceAttr, DialectAttr, DictAttr, EnumAttr, FloatAttr, IntegerAttr,
                         OpaqueAttr, StringAttr, SymbolRefAttr, TypeAttr, UnitAttr)
from .ir import (CallSiteLoc, FileLineColLoc, FusedLoc, LocAlias, Location, NameLoc, OpHeader,
                 UnknownLoc)
from .source import Span
from .types import (ComplexType, FunctionType, FutureType, MemRefType, OpaqueType, QuantizedType,
                    ScalarType, ShardType, TensorType, TokenType, TupleType, Type)

__all__ = ["InternalParseError", "LarkParser", "SyntaxProblem", "parse_alias_definition", "parse_attribute",
           "parse_location", "parse_type", "parse_type_list"]

_STARTS = ["op", "type_only", "attr_only", "loc_only", "sig_only", "type_list_only",
           "block_label", "alias_def", "dialect_body"]

# Dialects whose pretty forms shlo-lint knows: a header of theirs that does not
# parse is a syntax error. Any other dialect's custom form that the permissive
# grammar cannot read is taken apart crudely instead (operands, trailing types).
_STRICT_DIALECTS = frozenset({"stablehlo", "chlo", "func", "builtin", "tessera"})

_REGION_TOKEN = "«»"


class SyntaxProblem(Exception):
    """A syntax error: a human-readable `message` ("expected one of: ..., got ...")
    and the absolute `span` it is about."""

    def __init__(self, message: str, span: Span):
        super().__init__(message)
        self.message = message
        self.span = span


class InternalParseError(SyntaxProblem):
    """The parser itself failed (an exception in our code, not bad text): report it
    as SHLO003. A SyntaxProblem subclass so that callers catching SyntaxProblem
    still never see a traceback."""


# --------------------------------------------------------------------------- Lark instance
_LARK: Lark | None = None
_BUILDER: "_Builder | None" = None
_DISPLAY: dict[str, str] = {}

_TYPE_TERMINALS = {"TENSOR_SIMPLE", "TENSOR_OPEN", "ELEMTYPE", "COMPLEX_OPEN", "TUPLE_OPEN",
                   "FUTURE_OPEN", "ASYNC_OPEN", "BANG", "MEMREF"}
_NAMED_DISPLAY = {
    "VALUE_ID": "a value (%name)", "BLOCK_ID": "a block (^bb)", "SYMBOL": "a symbol (@name)",
    "HASH": "an attribute (#...)", "STRING": "a string", "FLOAT": "a float", "HEX": "a hex number",
    "INT": "an integer", "DENSE": "dense<...>", "DENSE_RESOURCE": "dense_resource<...>",
    "ARRAY": "array<...>", "OPAQUE_ANGLE": "an attribute", "ANGLE": "'<...>'", "DIM": "a dimension",
    "LOC_OPEN": "loc(...)", "REGION": "a region", "BARE_ID": "an identifier", "$END": "end of input",
}


def _lark() -> Lark:
    """The one Lark instance (built on first use, analysis cached on disk by Lark)."""
    global _LARK, _BUILDER
    if _LARK is None:
        text = resources.files("shlo_lint.grammar").joinpath("stablehlo.lark").read_text("utf-8")
        _BUILDER = _Builder()
        try:
            lark = Lark(text, parser="lalr", lexer="contextual", start=_STARTS,
                        transformer=_BUILDER, maybe_placeholders=True, cache=True)
        except Exception:  # pragma: no cover - unwritable cache directory and the like
            lark = Lark(text, parser="lalr", lexer="contextual", start=_STARTS,
                        transformer=_BUILDER, maybe_placeholders=True)
        for term in lark.terminals:
            pattern = term.pattern
            if term.name in _TYPE_TERMINALS:
                _DISPLAY[term.name] = "a type"
            elif term.name in _NAMED_DISPLAY:
                _DISPLAY[term.name] = _NAMED_DISPLAY[term.name]
            elif pattern.type == "str":
                _DISPLAY[term.name] = f"'{pattern.value}'"
            else:
                _DISPLAY[term.name] = term.name.lower()
        _DISPLAY["$END"] = "end of input"
        _LARK = lark
    return _LARK


def _builder() -> "_Builder":
    _lark()
    assert _BUILDER is not None
    return _BUILDER


# --------------------------------------------------------------------------- parse context
class _Ctx:
    """Where the text being parsed sits in the file, and which module's aliases apply."""

    __slots__ = ("text", "base", "gap_pos", "gap_delta", "module", "source")

    def __init__(self, text: str, base: int, module=None, gap_pos=None, gap_delta=None):
        self.text = text
        self.base = base
        self.module = module
        self.source = module.source.text if module is not None else None
        self.gap_pos: list[int] = gap_pos or []
        self.gap_delta: list[int] = gap_delta or []


def _run(start: str, ctx: _Ctx):
    """Parse ctx.text from `start` with ctx as the builder's context (re-entrant)."""
    lark = _lark()
    b = _BUILDER
    saved = (b.ctx, b._ts, b._te)
    b.ctx = ctx
    try:
        return lark.parse(ctx.text, start=start)
    finally:
        b.ctx, b._ts, b._te = saved


def _problem(err: UnexpectedInput, ctx: _Ctx) -> SyntaxProblem:
    b = _builder()
    text = ctx.text
    if isinstance(err, UnexpectedToken):
        tok = err.token
        try:  # `accepts` replays the parser: exact, where `expected` is LALR's merged lookahead
            expected = set(err.accepts or err.expected or ())
        except Exception:  # pragma: no cover - defensive
            expected = set(err.expected or ())
        if tok.type == "$END":
            got = "end of input"
            pos = len(text.rstrip())
            start = end = pos
        else:
            got = _show_token(tok)
            start, end = tok.start_pos, tok.end_pos
            if start is None:
                start = end = len(text)
    elif isinstance(err, UnexpectedCharacters):
        start = err.pos_in_stream
        end = start + 1
        got = f"'{text[start]}'" if start < len(text) else "end of input"
        expected = set(err.allowed or ())
    else:  # pragma: no cover - UnexpectedEOF (not raised by LALR in practice)
        start = end = len(text)
        got = "end of input"
        expected = set(getattr(err, "expected", ()) or ())
    shown = sorted({_DISPLAY.get(name, name.lower()) for name in expected},
                   key=lambda s: (not s.startswith("'"), s))
    if len(shown) > 10:
        shown = shown[:10] + ["..."]
    if not shown:
        msg = f"unexpected {got}"
    elif len(shown) == 1:
        msg = f"expected {shown[0]}, got {got}"
    else:
        msg = f"expected one of: {', '.join(shown)}, got {got}"
    saved = b.ctx
    b.ctx = ctx
    try:
        span = Span(b._abs(start), b._abs(max(start, end)))
    finally:
        b.ctx = saved
    return SyntaxProblem(msg, span)


def _show_token(tok: Token) -> str:
    if tok.type == "REGION":
        return "a region"
    v = str(tok.value)
    if len(v) > 40:
        v = v[:37] + "..."
    return f"'{v}'"


# --------------------------------------------------------------------------- small helpers
_ESC = re.compile(r'\\(["\\nt]|[0-9a-fA-F]{2})')


def _unquote(s: str) -> str:
    """Decode an MLIR string literal (with its quotes)."""
    body = s[1:-1]
    if "\\" not in body:
        return body
    out = bytearray()
    i = 0
    n = len(body)
    while i < n:
        c = body[i]
        if c == "\\" and i + 1 < n:
            d = body[i + 1]
            if d in '"\\':
                out += d.encode()
                i += 2
                continue
            if d == "n":
                out += b"\n"
                i += 2
                continue
            if d == "t":
                out += b"\t"
                i += 2
                continue
            h = body[i + 1:i + 3]
            if len(h) == 2 and all(ch in "0123456789abcdefABCDEF" for ch in h):
                out.append(int(h, 16))
                i += 3
                continue
        out += c.encode("utf-8")
        i += 1
    return out.decode("utf-8", errors="replace")


_SCALARS: dict[str, Type] = {}


def _scalar(name: str) -> Type:
    t = _SCALARS.get(name)
    if t is None:
        if name == "token":
            t = TokenType()
        elif name == "none":
            t = OpaqueType("none")
        elif name.startswith("complex<"):
            t = ComplexType(_scalar(name[8:-1]))
        else:
            t = ScalarType(name)
        _SCALARS[name] = t
    return t


_TENSOR_SIMPLE = re.compile(r"tensor<(\*x|(?:(?:[0-9]+|\?)x)*)(.+)>$")
_TENSORS: dict[str, TensorType] = {}


def _tensor_simple(text: str) -> TensorType:
    t = _TENSORS.get(text)
    if t is None:
        m = _TENSOR_SIMPLE.match(text)
        assert m is not None
        dims = m.group(1)
        if dims == "*x":
            shape = None
        else:
            shape = tuple(None if d == "?" else int(d) for d in dims.split("x")[:-1])
        t = TensorType(shape, _scalar(m.group(2)))
        if len(_TENSORS) < 50000:
            _TENSORS[text] = t
    return t


_QUANT = re.compile(r"\s*([su]?i[0-9]+(?:<[^>]*>)?)\s*:\s*([A-Za-z0-9_]+)")
_BANGS: dict[str, Type] = {}
_ENUM_BODY = re.compile(r'\s*([A-Za-z_][\w]*)\s+([A-Za-z_][\w.]*|"(?:[^"\\]|\\.)*")\s*$')
_INT_PARAMS = re.compile(r"\s*[A-Za-z_]\w*\s*=\s*-?[0-9]+\s*(?:,\s*[A-Za-z_]\w*\s*=\s*-?[0-9]+\s*)*$")
_INT_PARAM = re.compile(r"([A-Za-z_]\w*)\s*=\s*(-?[0-9]+)")
_DIMS_ELEM = re.compile(r"(\*x|(?:(?:[0-9]+|\?)x)*)(.*)$", re.S)
_I64 = ScalarType("i64")
_I32 = ScalarType("i32")
_INT_TYPE = re.compile(r"[su]?i[0-9]+$")


def _split_top(body: str) -> list[str]:
    """Split on commas outside any bracket or string."""
    parts: list[str] = []
    depth = 0
    cur = 0
    i = 0
    n = len(body)
    while i < n:
        c = body[i]
        if c == '"':
            i += 1
            while i < n and body[i] != '"':
                i += 2 if body[i] == "\\" else 1
        elif c in "<([{":
            depth += 1
        elif c in ">)]}":
            if not (c == ">" and i > 0 and body[i - 1] == "-"):
                depth -= 1
        elif c == "," and depth == 0:
            parts.append(body[cur:i])
            cur = i + 1
        i += 1
    parts.append(body[cur:])
    return parts


def _hex_value(text: str, type_: Type | None) -> Attribute | None:
    """`0x3F800000 : f32` is the bit pattern of a float; otherwise an integer."""
    value = int(text, 16)
    name = getattr(type_, "name", "")
    try:
        if name == "f32":
            return FloatAttr(struct.unpack("<f", struct.pack("<I", value & 0xFFFFFFFF))[0], type_)
        if name == "f64":
            return FloatAttr(struct.unpack("<d", struct.pack("<Q", value & (2**64 - 1)))[0], type_)
        if name == "f16":
            return FloatAttr(struct.unpack("<e", struct.pack("<H", value & 0xFFFF))[0], type_)
        if name == "bf16":
            return FloatAttr(struct.unpack("<f", struct.pack("<I", (value & 0xFFFF) << 16))[0], type_)
    except struct.error:  # pragma: no cover
        pass
    return None


# Soup (pretty-form) item kinds: (kind, value, span). Kinds: "v" value, "w" word,
# "=", ",", ":", "->", "?", "*" punctuation, "a" attribute, "t" type, "b" bracket
# (list of elements), "g" group (list of items), "d" dict, "p" properties,
# "<" angle text, "r" region, "l" location, "^" block.
_EQ = ("=", None, None)
_COMMA = (",", None, None)
_COLON = (":", None, None)
_ARROW = ("->", None, None)
_QUESTION = ("?", None, None)
_STAR = ("*", None, None)


class _Range:
    """`a:b[:c]` inside a pretty bracket (stablehlo.slice)."""

    __slots__ = ("start", "limit", "stride", "span")

    def __init__(self, start: int, limit: int, stride: int, span: Span):
        self.start, self.limit, self.stride, self.span = start, limit, stride, span


class _Val:
    """A `%value` inside a bracket."""

    __slots__ = ("name", "span")

    def __init__(self, name: str, span: Span):
        self.name, self.span = name, span


class _Angle:
    """An inline `<...>` (sdy sharding / mesh bodies)."""

    __slots__ = ("text", "span")

    def __init__(self, text: str, span: Span):
        self.text, self.span = text, span


class _Axis:
    """`"x"=2` inside sdy's mesh brackets."""

    __slots__ = ("name", "size", "span")

    def __init__(self, name: str, size: int, span: Span):
        self.name, self.size, self.span = name, size, span


class _Marker:
    __slots__ = ("text", "span")

    def __init__(self, text: str, span: Span | None = None):
        self.text, self.span = text, span


class _Pretty:
    __slots__ = ("name", "items")

    def __init__(self, name: Token, items: list):
        self.name, self.items = name, items


class _Scan:
    """What a generic walk over pretty items found."""

    __slots__ = ("operands", "iter_args", "kws", "words", "positional", "dicts", "props",
                 "decl_groups", "regions")

    def __init__(self):
        self.operands: list[tuple[str, Span]] = []
        self.iter_args: list[tuple[str, Span]] = []
        self.kws: list[tuple[str, list, Span]] = []
        self.words: list[tuple[str, Span]] = []
        self.positional: list[tuple] = []
        self.dicts: list[DictAttr] = []
        self.props: list[DictAttr] = []
        self.decl_groups: list[list[tuple[str, Type | None, Span]]] = []
        self.regions = 0


# --------------------------------------------------------------------------- the builder
@v_args(inline=True)
class _Builder(Transformer):
    """Lark callbacks: build types, attributes, locations and OpHeaders while parsing."""

    def __init__(self):
        super().__init__(visit_tokens=False)
        self.ctx: _Ctx | None = None
        self._ts = 0  # start / end (relative) of the type reduced last
        self._te = 0

    def __default__(self, data, children, meta):
        if data.startswith("_"):  # Lark's helper rules for `x*` (inlined into the parent)
            return Tree(data, children, meta)
        raise NotImplementedError(f"no callback for grammar rule {data!r}")  # pragma: no cover

    # -- positions ------------------------------------------------------------------
    def _abs(self, pos: int) -> int:
        ctx = self.ctx
        if ctx.gap_pos:
            i = bisect.bisect_right(ctx.gap_pos, pos)
            if i:
                return pos + ctx.base + ctx.gap_delta[i - 1]
        return pos + ctx.base

    def _span(self, tok: Token) -> Span:
        return Span(self._abs(tok.start_pos), self._abs(tok.end_pos))

    def _span2(self, start: int, end: int) -> Span:
        return Span(self._abs(start), self._abs(end))

    def _slice(self, span: Span) -> str:
        ctx = self.ctx
        if ctx.source is not None:
            return ctx.source[span.start:span.end]
        return ctx.text[span.start - ctx.base:span.end - ctx.base]

    # -- operations -----------------------------------------------------------------
    def op(self, results, core):
        nres = 0
        if results:
            nres = sum(n for _name, n, _s in results)
        if isinstance(core, _Pretty):
            return self._interpret(core, nres)
        return core

    def results_eq(self, *results):
        return list(results)

    def result(self, tok, count):
        return (tok.value, int(count) if count is not None else 1, self._span(tok))

    def generic_op(self, name, _lp, operands, _rp, succs, props, regions, attrs, fsig, loc):
        h = OpHeader(name=_unquote(name.value), name_span=self._span(name), generic=True)
        region_args = []
        for opnd_name, opnd_span, decl in operands or ():
            h.operands.append((opnd_name, opnd_span))
            if decl is not None:
                region_args.append(decl)
        if region_args:
            h.region_args = [region_args]
        if succs:
            h.successors = succs
        merged: dict[str, Attribute] = {}
        if props is not None:
            merged.update(props.entries)
            h.properties = frozenset(k for k, _ in props.entries)
        if attrs is not None:
            merged.update(attrs.entries)
        h.attributes = merged
        h.operand_types = list(fsig.inputs)
        h.result_types = list(fsig.results)
        h.loc = loc
        return h

    def g_operands(self, *ops):
        return list(ops)

    def g_operand_plain(self, tok):
        return (tok.value, self._span(tok), None)

    def g_operand_as(self, tok, arg, type_, _loc):
        return (tok.value, self._span(tok), (arg.value, type_, self._span(arg)))

    def successors(self, *succs):
        return list(succs)

    def successor(self, tok, *_rest):
        return tok.value

    def succ_arg(self, tok, _type):
        return tok.value

    def properties(self, d):
        return d

    def g_regions(self, *regions):
        return len(regions)

    def fsig_paren(self, _lp, types, _rp, results):
        return FunctionType(tuple(types or ()), results)

    def fsig_bare(self, t, results):
        return FunctionType((t,), results)

    def fn_results_one(self, t):
        return (t,)

    def fn_results_paren(self, _lp, types, rp):
        self._te = rp.end_pos
        return tuple(types or ())

    def pretty_op(self, name, *items):
        return _Pretty(name, list(items))

    # -- pretty items -----------------------------------------------------------------
    def it_value(self, tok):
        return ("v", tok.value, self._span(tok))

    def it_word(self, tok):
        return ("w", tok.value, self._span(tok))

    def it_eq(self):
        return _EQ

    def it_comma(self):
        return _COMMA

    def it_colon(self):
        return _COLON

    def it_arrow(self):
        return _ARROW

    def it_question(self):
        return _QUESTION

    def it_star(self):
        return _STAR

    def it_int(self, tok):
        a = self._a_int(tok)
        return ("a", a, a.span)

    def it_float(self, tok):
        a = self._a_float(tok)
        return ("a", a, a.span)

    def it_hex(self, tok):
        a = self._a_hex(tok)
        return ("a", a, a.span)

    def it_string(self, tok):
        a = self._a_string(tok)
        return ("a", a, a.span)

    def it_dense(self, tok):
        a = self._a_dense(tok)
        return ("a", a, a.span)

    def it_resource(self, tok):
        a = self._a_resource(tok)
        return ("a", a, a.span)

    def it_array(self, tok):
        a = self._a_array(tok)
        return ("a", a, a.span)

    def it_hash(self, tok):
        a = self._a_hash(tok)
        return ("a", a, a.span)

    def it_opaque(self, tok):
        a = self._a_opaque(tok)
        return ("a", a, a.span)

    def it_symbol(self, sym):
        return ("a", sym, sym.span)

    def it_type(self, t):
        return ("t", t, self._span2(self._ts, self._te))

    def it_bracket(self, b):
        return b

    def it_group(self, lp, *rest):
        rp = rest[-1]
        return ("g", list(rest[:-1]), self._span2(lp.start_pos, rp.end_pos))

    def it_dict(self, d):
        return ("d", d, d.span)

    def it_props(self, d):
        return ("p", d, d.span)

    def it_angle(self, tok):
        return ("<", tok.value, self._span(tok))

    def it_region(self, tok):
        return ("r", None, self._span(tok))

    def it_loc(self, loc):
        return ("l", loc, None)

    def it_block(self, tok):
        return ("^", tok.value, self._span(tok))

    def bracket(self, lb, *rest):
        rb = rest[-1]
        elems = [e for e in rest[:-1] if e is not None]
        return ("b", elems, self._span2(lb.start_pos, rb.end_pos))

    def se_attr(self, a):
        return a

    def se_range2(self, a, b):
        return _Range(int(a), int(b), 1, self._span2(a.start_pos, b.end_pos))

    def se_range3(self, a, b, c):
        return _Range(int(a), int(b), int(c), self._span2(a.start_pos, c.end_pos))

    def se_value(self, tok):
        return _Val(tok.value, self._span(tok))

    def se_angle(self, tok):
        return _Angle(tok.value, self._span(tok))

    def se_question(self):
        return _Marker("?")

    def se_axis(self, name, size):
        return _Axis(_unquote(name.value), int(size), self._span2(name.start_pos, size.end_pos))

    # -- attributes ---------------------------------------------------------------------
    # Callbacks the fast path and other callbacks reuse are written `_a_x` with an
    # alias `a_x = _a_x`: Lark's v_args wraps the public name, not the function.
    def _a_int(self, tok):
        return IntegerAttr(int(tok.value), None, self._span(tok))

    a_int = _a_int

    def _a_int_typed(self, tok, t):
        return IntegerAttr(int(tok.value), t, self._span2(tok.start_pos, self._te))

    a_int_typed = _a_int_typed

    def _a_float(self, tok):
        return FloatAttr(float(tok.value), None, self._span(tok))

    a_float = _a_float

    def _a_float_typed(self, tok, t):
        return FloatAttr(float(tok.value), t, self._span2(tok.start_pos, self._te))

    a_float_typed = _a_float_typed

    def _a_hex(self, tok):
        return IntegerAttr(int(tok.value, 16), None, self._span(tok))

    a_hex = _a_hex

    def _a_hex_typed(self, tok, t):
        span = self._span2(tok.start_pos, self._te)
        a = _hex_value(tok.value, t)
        if a is not None:
            return replace(a, span=span)
        return IntegerAttr(int(tok.value, 16), t, span)

    a_hex_typed = _a_hex_typed

    def _a_string(self, tok):
        return StringAttr(_unquote(tok.value), None, self._span(tok))

    a_string = _a_string

    def _a_string_typed(self, tok, t):
        return StringAttr(_unquote(tok.value), t, self._span2(tok.start_pos, self._te))

    a_string_typed = _a_string_typed

    def _a_word(self, tok):
        v = tok.value
        span = self._span(tok)
        if v == "true":
            return BoolAttr(True, span)
        if v == "false":
            return BoolAttr(False, span)
        if v == "unit":
            return UnitAttr(span)
        return OpaqueAttr(v, span)

    a_word = _a_word

    def _a_dense(self, tok):
        return DenseElementsAttr(tok.value[6:-1], None, self._span(tok))

    a_dense = _a_dense

    def _a_dense_typed(self, tok, t):
        return DenseElementsAttr(tok.value[6:-1], t, self._span2(tok.start_pos, self._te))

    a_dense_typed = _a_dense_typed

    def _a_resource(self, tok):
        return DenseResourceAttr(tok.value[15:-1].strip(), None, self._span(tok))

    a_resource = _a_resource

    def _a_resource_typed(self, tok, t):
        return DenseResourceAttr(tok.value[15:-1].strip(), t, self._span2(tok.start_pos, self._te))

    a_resource_typed = _a_resource_typed

    def _a_array(self, tok):
        body = tok.value[6:-1]
        span = self._span(tok)
        if ":" in body:
            etype, _, vals = body.partition(":")
        else:
            etype, vals = body, ""
        etype = etype.strip()
        values: list[Any] = []
        try:
            for v in vals.split(","):
                v = v.strip()
                if not v:
                    continue
                if v in ("true", "false"):
                    values.append(v == "true")
                elif _is_float_text(v):
                    values.append(float(v))
                else:
                    values.append(int(v, 0))
        except ValueError:
            return OpaqueAttr(tok.value, span)
        return DenseArrayAttr(etype, tuple(values), span)

    a_array = _a_array

    def _a_hash(self, tok):
        return self._hash_attr(tok.value, self._span(tok), tok.start_pos)

    a_hash = _a_hash

    def _a_opaque(self, tok):
        return OpaqueAttr(tok.value, self._span(tok))

    a_opaque = _a_opaque

    def a_symbol(self, sym):
        return sym

    def a_bracket(self, b):
        return self._bracket_attr(b)

    def a_dict(self, d):
        return d

    def a_type(self, t):
        return TypeAttr(t, self._span2(self._ts, self._te))

    def attr_dict(self, lb, *rest):
        rb = rest[-1]
        entries = tuple(e for e in rest[:-1] if e is not None)
        return DictAttr(entries, self._span2(lb.start_pos, rb.end_pos))

    def entry_id(self, key, value):
        return (key.value, value if value is not None else UnitAttr(self._span(key)))

    def entry_str(self, key, value):
        return (_unquote(key.value), value if value is not None else UnitAttr(self._span(key)))

    def symbol_ref(self, *syms):
        names = [s.value[1:] for s in syms]
        names = [_unquote(n) if n.startswith('"') else n for n in names]
        return SymbolRefAttr(names[0], tuple(names[1:]), self._span2(syms[0].start_pos, syms[-1].end_pos))

    # -- dialect attribute bodies -------------------------------------------------------
    def dialect_body(self, *params):
        return [p for p in params if p is not None]

    def dp_kv(self, key, value):
        return ("kv", key.value, value)

    def dp_pos(self, *values):
        return ("pos", list(values))

    def dv_selem(self, x):
        return x

    def dv_arrow(self):
        return _Marker("->")

    def dv_subaxis(self, lp, a, _rp, b):
        span = self._span2(lp.start_pos, b.end_pos)
        return OpaqueAttr(f"({int(a)}){int(b)}", span)

    # -- types ----------------------------------------------------------------------------
    def t_tensor_simple(self, tok):
        self._ts, self._te = tok.start_pos, tok.end_pos
        return _tensor_simple(tok.value)

    def t_tensor(self, open_, shape, elem, encoding, close):
        self._ts, self._te = open_.start_pos, close.end_pos
        return TensorType(shape, elem, encoding)

    def t_scalar(self, tok):
        self._ts, self._te = tok.start_pos, tok.end_pos
        return _scalar(tok.value)

    def t_complex(self, open_, elem, close):
        self._ts, self._te = open_.start_pos, close.end_pos
        return ComplexType(elem)

    def t_tuple(self, open_, types, close):
        self._ts, self._te = open_.start_pos, close.end_pos
        return TupleType(tuple(types or ()))

    def t_future(self, open_, types, close):
        self._ts, self._te = open_.start_pos, close.end_pos
        return FutureType(tuple(types), "stablehlo")

    def t_async(self, open_, types, close):
        self._ts, self._te = open_.start_pos, close.end_pos
        return FutureType(tuple(types), "async")

    def t_bang(self, tok):
        t = self._bang_type(tok.value)
        self._ts, self._te = tok.start_pos, tok.end_pos
        return t

    def t_memref(self, tok):
        t = self._memref_type(tok.value)
        self._ts, self._te = tok.start_pos, tok.end_pos
        return t

    def shape_unranked(self, _tok):
        return None

    def shape_ranked(self, *dims):
        return tuple(None if d.value[0] == "?" else int(d.value[:-1]) for d in dims)

    def function_type(self, lp, types, _rp, results):
        self._ts = lp.start_pos
        return FunctionType(tuple(types or ()), results)

    def type_list(self, *types):
        return list(types)

    # -- locations ------------------------------------------------------------------------
    def loc(self, _open, inner):
        return inner

    def l_unknown(self):
        return _UNKNOWN

    def l_file(self, f, line, col):
        return FileLineColLoc(_unquote(f.value), int(line), int(col))

    def l_file_range(self, f, line, col, eline, ecol):
        return FileLineColLoc(_unquote(f.value), int(line), int(col), int(eline), int(ecol))

    def l_file_range_col(self, f, line, col, ecol):
        return FileLineColLoc(_unquote(f.value), int(line), int(col), int(line), int(ecol))

    def l_name(self, s):
        return NameLoc(_unquote(s.value))

    def l_name_child(self, s, child):
        return NameLoc(_unquote(s.value), child)

    def l_callsite(self, callee, caller):
        return CallSiteLoc(callee, caller)

    def l_fused(self, *locs):
        return FusedLoc(tuple(x for x in locs if x is not None))

    def l_fused_meta(self, meta, *locs):
        if isinstance(meta, StringAttr):
            text = meta.value
        else:
            span = getattr(meta, "span", None)
            text = self._slice(span) if span is not None else str(meta)
        return FusedLoc(tuple(x for x in locs if x is not None), text)

    def l_alias(self, tok):
        return LocAlias(tok.value)

    # -- other starts ---------------------------------------------------------------------
    def type_only(self, t):
        return t

    def attr_only(self, a):
        return a

    def loc_only(self, loc):
        return loc

    def sig_fn(self, t, results):
        return FunctionType((t,), results)

    def sig_list(self, types):
        return types

    def type_list_only(self, types):
        return types

    def block_label(self, tok, args=None):
        return args or []

    def block_args(self, _lp, *rest):
        return [a for a in rest[:-1] if a is not None]

    def barg(self, tok, t, _attrs, _loc):
        return (tok.value, t, self._span(tok))

    def alias_loc(self, tok, loc):
        return (tok.value, loc)

    def alias_attr(self, tok, a):
        return (tok.value, a)

    def alias_type(self, tok, t):
        return (tok.value, t)

    # ================================================================= value helpers
    def _hash_attr(self, text: str, span: Span, rel_start: int) -> Attribute:
        lt = text.find("<")
        if lt < 0:
            return self._attr_alias(text, span)
        name = text[1:lt]
        body = text[lt + 1:-1]
        if name == "sdy" and body.startswith("manual_axes"):  # #sdy<manual_axes{"x", "y"}>
            return _manual_axes(body, span.start + lt + 1, span)
        m = _ENUM_BODY.match(body)
        if m is not None:
            value = m.group(2)
            return EnumAttr(name, m.group(1), _unquote(value) if value.startswith('"') else value, span)
        dialect, _, short = name.partition(".")
        if _INT_PARAMS.match(body):
            body_abs = span.start + lt + 1
            params = tuple(
                (pm.group(1), IntegerAttr(int(pm.group(2)), None,
                                          Span(body_abs + pm.start(2), body_abs + pm.end(2))))
                for pm in _INT_PARAM.finditer(body))
            return DialectAttr(dialect, short, params, (), text, span)
        parsed = self._sub(body, span.start + lt + 1, "dialect_body")
        if parsed is None:
            return DialectAttr(dialect, short, (), (), text, span)
        params, positional = self._dialect_params(parsed)
        return DialectAttr(dialect, short, params, positional, text, span)

    def _dialect_params(self, parsed) -> tuple[tuple, tuple]:
        params: list[tuple[str, Attribute]] = []
        positional: list[Any] = []
        for p in parsed:
            if p[0] == "kv":
                params.append((p[1], self._elem_attr(p[2])))
            else:
                positional.extend(self._elem_attr(x) for x in p[1])
        return tuple(params), tuple(positional)

    def _elem_attr(self, x) -> Attribute:
        """A bracket/dialect-body element as an attribute."""
        if isinstance(x, Attribute):
            return x
        if isinstance(x, _Angle):
            if x.text[1:].lstrip().startswith("@"):  # sdy's `<@mesh, [...]>` tensor sharding
                return self._angle_attr(x.text, x.span, "sdy", "sharding")
            return self._angle_attr(x.text, x.span, "", "")
        if isinstance(x, _Axis):
            return DictAttr((("name", StringAttr(x.name, None, x.span)),
                             ("size", IntegerAttr(x.size, _I64, x.span))), x.span)
        if isinstance(x, _Range):
            return OpaqueAttr(self._slice(x.span), x.span)
        if isinstance(x, _Val):
            return OpaqueAttr(x.name, x.span)
        if isinstance(x, _Marker):
            return OpaqueAttr(x.text, x.span)
        return OpaqueAttr(str(x))

    def _angle_attr(self, text: str, span: Span, dialect: str, name: str) -> Attribute:
        """An inline `<...>` (sdy) as a DialectAttr when its body parses."""
        parsed = self._sub(text[1:-1], span.start + 1, "dialect_body")
        if parsed is None:
            return DialectAttr(dialect, name, (), (), text, span) if dialect else OpaqueAttr(text, span)
        params, positional = self._dialect_params(parsed)
        return DialectAttr(dialect, name, params, positional, text, span)

    def _bracket_attr(self, b) -> Attribute:
        _k, elems, span = b
        if all(isinstance(e, Attribute) for e in elems):
            return ArrayAttr(tuple(elems), span)
        if all(isinstance(e, (_Axis, Attribute, _Angle)) for e in elems):
            return ArrayAttr(tuple(self._elem_attr(e) for e in elems), span)
        return OpaqueAttr(self._slice(span), span)

    def _sub(self, text: str, abs_start: int, start: str):
        """Parse a piece of a token (a dialect body) from `start`; None on failure.

        Dialect bodies repeat (every op's channel_handle, every sdy sharding, the
        same gather dimension numbers in file after file), so the parse of a text
        that names no alias (`#x`, `!x`) is cached process-wide by (start, text):
        it is parsed with no module (nothing but the text can shape it) at
        offset 0 and re-spanned for each occurrence, so a cache hit is exactly
        what a fresh parse would give, whatever was parsed before. Texts that
        name an alias are parsed each time in their own module's context."""
        module = self.ctx.module if self.ctx else None
        use_cache = "!" not in text and "#" not in text and (
            module is None or getattr(module.parser, "cache", True))
        if use_cache:
            key = (start, text)
            hit = _SUB_CACHE.get(key, _MISS)
            if hit is _MISS:
                try:
                    hit = _run(start, _Ctx(text, 0))
                except UnexpectedInput:
                    hit = None
                if len(_SUB_CACHE) < _SUB_CACHE_MAX:
                    _SUB_CACHE[key] = hit
            return _shifted(hit, abs_start)
        try:
            return _run(start, _Ctx(text, abs_start, module))
        except UnexpectedInput:
            return None

    def _attr_alias(self, name: str, span: Span) -> Attribute:
        module = self.ctx.module if self.ctx else None
        if module is not None:
            resolved = _ALIASES.attr_alias(module, name)
            if resolved is not None:
                try:
                    return replace(resolved, span=span)
                except TypeError:  # pragma: no cover - attribute without span
                    return resolved
        return OpaqueAttr(name, span)

    def _bang_type(self, text: str) -> Type:
        t = _BANGS.get(text)
        if t is not None:
            return t
        lt = text.find("<")
        if lt < 0:
            if text == "!stablehlo.token":
                return TokenType()
            module = self.ctx.module if self.ctx else None
            if module is not None:
                resolved = _ALIASES.type_alias(module, text)
                if resolved is not None:
                    return resolved
            return OpaqueType(text)
        name = text[1:lt]
        body = text[lt + 1:-1]
        # Types are cached across files by their text: only texts that cannot
        # name an alias (`!x`, `#x`), so the text alone decides the type.
        cacheable = "!" not in body and "#" not in body
        t = None
        if name in ("stablehlo.future", "tessera.future"):
            types = self._sub(body, 0, "type_list_only")
            if types:
                t = FutureType(tuple(types), "tessera" if name.startswith("tessera") else "stablehlo")
        elif name == "tessera.shard":
            inner = self._sub(body, 0, "type_only")
            if inner is not None:
                t = ShardType(inner)
        elif name.startswith("quant."):
            m = _QUANT.match(body)
            if m is not None:
                t = QuantizedType(m.group(1), m.group(2), text)
        if t is None:
            t = OpaqueType(text)
        if cacheable and len(_BANGS) < 20000:
            _BANGS[text] = t
        return t

    def _memref_type(self, text: str) -> Type:
        if not text.startswith("memref<"):
            return OpaqueType(text)
        parts = _split_top(text[7:-1])
        m = _DIMS_ELEM.match(parts[0].strip())
        dims, elem_text = m.group(1), m.group(2).strip()
        shape = None if dims == "*x" else tuple(None if d == "?" else int(d) for d in dims.split("x")[:-1])
        elem = self._sub(elem_text, 0, "type_only")
        if elem is None:
            elem = OpaqueType(elem_text)
        layout = ",".join(parts[1:]).strip() or None
        return MemRefType(shape, elem, layout)

    # ================================================================= pretty forms
    def _interpret(self, p: _Pretty, nres: int) -> OpHeader:
        name = p.name.value
        canonical = _CANON.get(name, name)
        h = OpHeader(name=canonical, name_span=self._span(p.name))
        items = p.items
        if items and items[-1][0] == "l":
            h.loc = items[-1][1]
            items = items[:-1]
        ci = -1
        for i in range(len(items) - 1, -1, -1):
            if items[i][0] == ":":
                ci = i
                break
        if ci >= 0:
            pre = items[:ci]
            fn, types, rest = _read_signature(items[ci + 1:])
        else:
            pre, fn, types, rest = items, None, None, []
        handler = _HANDLERS.get(canonical)
        (handler or _h_default)(self, h, pre, fn, types, rest, nres)
        return h

    def _scan(self, items: list, st: _Scan, top: bool = True) -> None:
        n = len(items)
        i = 0
        while i < n:
            k, v, sp = items[i]
            if k == "v":
                if i + 2 < n and items[i + 1][0] == "=" and items[i + 2][0] == "v":
                    st.iter_args.append((v, sp))
                    st.operands.append((items[i + 2][1], items[i + 2][2]))
                    i += 3
                    continue
                st.operands.append((v, sp))
            elif k == "w":
                if i + 2 < n and items[i + 1][0] == "=" and items[i + 2][2] is not None:
                    vals = [items[i + 2]]
                    j = i + 3
                    while j + 1 < n and (items[j][0] == "->" or (items[j][0] == "w" and items[j][1] == "x")) \
                            and items[j + 1][2] is not None:
                        vals.append(items[j])
                        vals.append(items[j + 1])
                        j += 2
                    st.kws.append((v, vals, sp))
                    for it in vals:
                        if it[0] == "b":
                            self._bracket_operands(it, st)
                    i = j
                    continue
                st.words.append((v, sp))
            elif k == "g":
                decls = _decl_group(v)
                if decls is not None:
                    st.decl_groups.append(decls)
                else:
                    self._scan(v, st, False)
            elif k == "b":
                self._bracket_operands(items[i], st)
                st.positional.append(items[i])
            elif k == "d":
                st.dicts.append(v)
            elif k == "p":
                st.props.append(v)
            elif k == "r":
                st.regions += 1
            elif k in ("a", "t", "<", "^"):
                st.positional.append(items[i])
            i += 1

    def _bracket_operands(self, item, st: _Scan) -> None:
        for e in item[1]:
            if isinstance(e, _Val):
                st.operands.append((e.name, e.span))

    def _value_attr(self, vals: list) -> Attribute:
        """A `kw = value` value as an attribute."""
        if len(vals) == 1:
            k, v, sp = vals[0]
            if k == "a" or k == "d":
                return v
            if k == "b":
                return self._bracket_attr(vals[0])
            if k == "w":
                if v in ("true", "false"):
                    return BoolAttr(v == "true", sp)
                return OpaqueAttr(v, sp)
            if k == "t":
                return TypeAttr(v, sp)
            if k == "<":
                return self._angle_attr(v, sp, "", "")
            if k == "v":
                return OpaqueAttr(v, sp)
        spans = [it[2] for it in vals if it[2] is not None]
        span = Span(spans[0].start, spans[-1].end)
        return OpaqueAttr(self._slice(span), span)

    def _finish(self, h: OpHeader, st: _Scan, known: bool, consumed_kws: set[str] = frozenset()) -> None:
        """Shared tail: operands, dicts, properties, leftover keywords and words."""
        h.operands = st.operands
        attrs = h.attributes
        for d in st.props:
            attrs.update(d.entries)
            h.properties = h.properties | frozenset(k for k, _ in d.entries)
        for kw, vals, _sp in st.kws:
            if kw not in consumed_kws and kw not in attrs:
                attrs[kw] = self._value_attr(vals)
        for d in st.dicts:
            attrs.update(d.entries)
        if not known:
            for w, sp in st.words:
                attrs.setdefault(w, UnitAttr(sp))
            pos = [self._item_attr(it) for it in st.positional]
            if pos:
                attrs.setdefault("_positional", ArrayAttr(tuple(pos), Span(pos[0].span.start, pos[-1].span.end)))
        if st.decl_groups and not h.region_args:
            h.region_args = list(st.decl_groups)

    def _item_attr(self, it) -> Attribute:
        k, v, sp = it
        if k == "a":
            return v
        if k == "b":
            return self._bracket_attr(it)
        if k == "t":
            return TypeAttr(v, sp)
        if k == "<":
            return self._angle_attr(v, sp, "", "")
        return OpaqueAttr(str(v), sp)


_UNKNOWN = UnknownLoc()
_MISS = object()
# (start rule, text) -> the parse of an alias-free dialect body at offset 0 (see _sub).
_SUB_CACHE: dict[tuple[str, str], Any] = {}
_SUB_CACHE_MAX = 8192


def _shifted(value, delta: int):
    """A sub-parse result with every span moved by `delta` (for cache hits).
    Span is a NamedTuple: it is tested before the generic tuple case, which would
    otherwise rebuild it as a plain tuple without `.start`."""
    if delta == 0 or value is None:
        return value
    if isinstance(value, Span):
        return Span(value.start + delta, value.end + delta)
    if isinstance(value, list):
        return [_shifted(v, delta) for v in value]
    if isinstance(value, tuple):
        return tuple(_shifted(v, delta) for v in value)
    if isinstance(value, Attribute):
        changes = {}
        for name in value.__dataclass_fields__:
            v = getattr(value, name)
            if isinstance(v, (tuple, Attribute)):  # Span is a tuple too
                changes[name] = _shifted(v, delta)
        return replace(value, **changes) if changes else value
    if isinstance(value, (_Range, _Val, _Angle, _Axis, _Marker)):
        copy = object.__new__(type(value))
        for name in type(value).__slots__:
            v = getattr(value, name)
            object.__setattr__(copy, name, _shifted(v, delta) if isinstance(v, Span) else v)
        return copy
    return value  # types, strings, numbers: no spans


# Bare op names as MLIR prints them inside func.func / at top level (as scan.py maps them).
_CANON = {"module": "builtin.module", "return": "func.return", "call": "func.call",
          "call_indirect": "func.call_indirect", "constant": "func.constant", "func": "func.func"}


_QUOTED = re.compile(r'"((?:[^"\\]|\\.)*)"')


def _manual_axes(body: str, body_abs: int, span: Span) -> ArrayAttr:
    """sdy's manual axes (generic `#sdy<manual_axes{"x"}>`) as an array of axis names."""
    return ArrayAttr(tuple(StringAttr(_unquote(m.group(0)), None, Span(body_abs + m.start(), body_abs + m.end()))
                           for m in _QUOTED.finditer(body)), span)


def _is_float_text(v: str) -> bool:
    return ("." in v or "e" in v or "E" in v or "inf" in v or "nan" in v) and not v.startswith(("0x", "-0x"))


def _decl_group(items: list) -> list[tuple[str, Type | None, Span]] | None:
    """`(%a: T {attrs} loc(..), %b: T)` -> declarations; None if not that shape."""
    decls = []
    i = 0
    n = len(items)
    while i < n:
        if not (i + 2 < n and items[i][0] == "v" and items[i + 1][0] == ":" and items[i + 2][0] == "t"):
            return None
        decls.append((items[i][1], items[i + 2][1], items[i][2]))
        i += 3
        while i < n and items[i][0] in ("d", "l"):
            i += 1
        if i < n:
            if items[i][0] != ",":
                return None
            i += 1
    return decls if decls else None


def _group_types(items: list) -> list[Type] | None:
    """`(T, T)` group items -> types; None if anything else is inside."""
    out = []
    expect_type = True
    for k, v, _sp in items:
        if expect_type:
            if k != "t":
                return None
            out.append(v)
            expect_type = False
        else:
            if k != ",":
                return None
            expect_type = True
    if out and expect_type:
        return None
    return out


def _read_signature(items: list):
    """Items after a pretty op's top-level `:` -> (FunctionType|None, types|None, rest)."""
    n = len(items)
    if not n:
        return None, None, []
    k0 = items[0][0]
    if k0 == "g" or k0 == "t":
        if n >= 3 and items[1][0] == "->":
            ins = _group_types(items[0][1]) if k0 == "g" else [items[0][1]]
            k2 = items[2][0]
            outs = _group_types(items[2][1]) if k2 == "g" else ([items[2][1]] if k2 == "t" else None)
            if ins is not None and outs is not None:
                return FunctionType(tuple(ins), tuple(outs)), None, items[3:]
        if k0 == "t":
            types = [items[0][1]]
            i = 1
            while i + 1 < n and items[i][0] == "," and items[i + 1][0] == "t":
                types.append(items[i + 1][1])
                i += 2
            return None, types, items[i:]
        if k0 == "g":
            inner = _group_types(items[0][1])
            if inner is not None:  # `: (T, U)` (no arrow): a parenthesised type list
                return None, inner, items[1:]
    return None, None, items


# --------------------------------------------------------------------------- per-op handlers
def _assign_types(h: OpHeader, fn: FunctionType | None, types: list | None, nres: int,
                  same_type: bool) -> None:
    if fn is not None:
        h.operand_types = list(fn.inputs)
        h.result_types = list(fn.results)
        return
    if not types:
        return
    nops = len(h.operands)
    n = len(types)
    if nres == 0:
        if n == nops:
            h.operand_types = list(types)
        return
    if n == nres:
        h.result_types = list(types)
        if same_type and n == 1:
            h.operand_types = [types[0]] * nops
        elif same_type and n == nops:
            h.operand_types = list(types)
        return
    h.result_types = list(types[-nres:]) if n > nres else list(types)


def _known(name: str) -> bool:
    """Ops whose syntax errors are reported (the rest fall back quietly)."""
    return name.partition(".")[0] in _STRICT_DIALECTS


# Dialects whose single written type `: T` is the operands' and the result's type.
_SAME_TYPE_DIALECTS = frozenset({"stablehlo", "chlo", "sdy", "mhlo", "func"})


def _h_default(b: _Builder, h, pre, fn, types, rest, nres, consumed=frozenset()):
    st = _Scan()
    b._scan(pre, st)
    if rest:
        b._scan(rest, st)
    known = h.name.partition(".")[0] in _SAME_TYPE_DIALECTS
    b._finish(h, st, known, consumed)
    _assign_types(h, fn, types, nres, known)
    return st


def _dims(b: _Builder, vals) -> Attribute:
    """`[0, 1]` -> array<i64: 0, 1> (what the generic form prints)."""
    a = b._value_attr(vals)
    if isinstance(a, ArrayAttr) and all(isinstance(e, IntegerAttr) for e in a.elements):
        return DenseArrayAttr("i64", tuple(e.value for e in a.elements), a.span)
    return a


def _i64(b: _Builder, vals) -> Attribute:
    a = b._value_attr(vals)
    if isinstance(a, IntegerAttr) and a.type is None:
        return replace(a, type=_I64)
    return a


def _enum(kind: str):
    def conv(b: _Builder, vals) -> Attribute:
        if len(vals) == 1 and vals[0][0] == "w":
            return EnumAttr("stablehlo", kind, vals[0][1], vals[0][2])
        return b._value_attr(vals)
    return conv


def _precision(b: _Builder, vals) -> Attribute:
    if len(vals) == 1 and vals[0][0] == "b":
        _k, elems, span = vals[0]
        out = []
        for e in elems:
            if isinstance(e, OpaqueAttr):
                out.append(EnumAttr("stablehlo", "precision", e.text, e.span))
            else:
                out.append(b._elem_attr(e))
        return ArrayAttr(tuple(out), span)
    return b._value_attr(vals)


# (op, pretty keyword) -> (attribute name, converter)
_KW: dict[tuple[str, str], tuple[str, Any]] = {
    ("stablehlo.broadcast_in_dim", "dims"): ("broadcast_dimensions", _dims),
    ("stablehlo.dynamic_broadcast_in_dim", "dims"): ("broadcast_dimensions", _dims),
    ("stablehlo.transpose", "dims"): ("permutation", _dims),
    ("stablehlo.reverse", "dims"): ("dimensions", _dims),
    ("stablehlo.reduce", "dimensions"): ("dimensions", _dims),
    ("stablehlo.iota", "dim"): ("iota_dimension", _i64),
    ("stablehlo.dynamic_iota", "dim"): ("iota_dimension", _i64),
    ("stablehlo.concatenate", "dim"): ("dimension", _i64),
    ("stablehlo.get_dimension_size", "dim"): ("dimension", _i64),
    ("stablehlo.set_dimension_size", "dim"): ("dimension", _i64),
    ("stablehlo.dynamic_slice", "sizes"): ("slice_sizes", _dims),
    ("stablehlo.pad", "low"): ("edge_padding_low", _dims),
    ("stablehlo.pad", "high"): ("edge_padding_high", _dims),
    ("stablehlo.pad", "interior"): ("interior_padding", _dims),
    ("stablehlo.fft", "type"): ("fft_type", _enum("fft_type")),
    ("stablehlo.fft", "length"): ("fft_length", _dims),
    ("stablehlo.rng_bit_generator", "algorithm"): ("rng_algorithm", _enum("rng_algorithm")),
    ("stablehlo.rng", "distribution"): ("rng_distribution", _enum("rng_distribution")),
    ("stablehlo.dot_general", "precision"): ("precision_config", _precision),
    ("stablehlo.dot", "precision"): ("precision_config", _precision),
    ("stablehlo.convolution", "precision"): ("precision_config", _precision),
}

def _h_keywords(b, h, pre, fn, types, rest, nres):
    """Ops whose pretty form is `operands, kw = value, ... : types`."""
    st = _Scan()
    b._scan(pre, st)
    consumed = set()
    for kw, vals, _sp in st.kws:
        spec = _KW.get((h.name, kw))
        if spec is not None:
            h.attributes[spec[0]] = spec[1](b, vals)
            consumed.add(kw)
    if rest:
        b._scan(rest, st)
    b._finish(h, st, True, consumed)
    _assign_types(h, fn, types, nres, True)
    return st


def _h_constant(b, h, pre, fn, types, rest, nres):
    st = _Scan()
    b._scan(pre, st)
    b._finish(h, st, True)
    _assign_types(h, fn, types, nres, True)
    if st.positional and "value" not in h.attributes:
        value = b._item_attr(st.positional[0])
        rtype = h.result_types[0] if h.result_types else None
        if isinstance(value, (DenseElementsAttr, DenseResourceAttr, IntegerAttr, FloatAttr)) \
                and value.type is None and rtype is not None:
            value = replace(value, type=rtype)
        h.attributes["value"] = value


def _h_compare(b, h, pre, fn, types, rest, nres):
    st = _Scan()
    b._scan(pre, st)
    first_operand = st.operands[0][1].start if st.operands else None
    for w, sp in st.words:
        if first_operand is not None and sp.start < first_operand:
            h.attributes["comparison_direction"] = EnumAttr("stablehlo", "comparison_direction", w, sp)
        else:
            h.attributes["compare_type"] = EnumAttr("stablehlo", "comparison_type", w, sp)
    b._finish(h, st, True)
    _assign_types(h, fn, types, nres, False)


def _h_dot_general(b, h, pre, fn, types, rest, nres):
    st = _Scan()
    b._scan(pre, st)
    params: list[tuple[str, Attribute]] = []
    consumed = set()
    spans = []
    for kw, vals, sp in st.kws:
        if kw in ("batching_dims", "contracting_dims") and len(vals) == 3 and vals[0][0] == "b" \
                and vals[2][0] == "b":
            which = "batching" if kw == "batching_dims" else "contracting"
            params.append((f"lhs_{which}_dimensions", b._bracket_attr(vals[0])))
            params.append((f"rhs_{which}_dimensions", b._bracket_attr(vals[2])))
            spans.append(Span(sp.start, vals[2][2].end))
            consumed.add(kw)
        elif kw == "precision":
            h.attributes["precision_config"] = _precision(b, vals)
            consumed.add(kw)
    # As the generic form prints it: the non-empty fields, in this order.
    order = ["lhs_batching_dimensions", "rhs_batching_dimensions",
             "lhs_contracting_dimensions", "rhs_contracting_dimensions"]
    present = dict(params)
    full = tuple((k, present[k]) for k in order if k in present and present[k].elements)
    text = "#stablehlo.dot<" + ", ".join(f"{k} = {_array_text(v)}" for k, v in full) + ">"
    span = Span(spans[0].start, spans[-1].end) if spans else h.name_span
    h.attributes["dot_dimension_numbers"] = DialectAttr("stablehlo", "dot", full, (), text, span)
    b._finish(h, st, True, consumed)
    _assign_types(h, fn, types, nres, False)


def _array_text(a: Attribute) -> str:
    if isinstance(a, ArrayAttr):
        return "[" + ", ".join(str(getattr(e, "value", "?")) for e in a.elements) + "]"
    return "[]"


def _h_slice(b, h, pre, fn, types, rest, nres):
    st = _Scan()
    b._scan(pre, st)
    for it in st.positional:
        if it[0] == "b" and it[1] and all(isinstance(e, _Range) for e in it[1]):
            sp = it[2]
            h.attributes["start_indices"] = DenseArrayAttr("i64", tuple(e.start for e in it[1]), sp)
            h.attributes["limit_indices"] = DenseArrayAttr("i64", tuple(e.limit for e in it[1]), sp)
            h.attributes["strides"] = DenseArrayAttr("i64", tuple(e.stride for e in it[1]), sp)
            break
    b._finish(h, st, True)
    _assign_types(h, fn, types, nres, False)


def _h_get_tuple_element(b, h, pre, fn, types, rest, nres):
    st = _Scan()
    b._scan(pre, st)
    for it in st.positional:
        if it[0] == "b" and len(it[1]) == 1 and isinstance(it[1][0], IntegerAttr):
            h.attributes["index"] = IntegerAttr(it[1][0].value, _I32, it[2])
    b._finish(h, st, True)
    _assign_types(h, fn, types, nres, False)


def _h_reduce(b, h, pre, fn, types, rest, nres):
    st = _Scan()
    b._scan(pre, st)
    words = [w for w, _ in st.words]
    if "init" in words and len(st.operands) % 2 == 0:
        ops = st.operands
        st.operands = ops[0::2] + ops[1::2]
    for i, (w, sp) in enumerate(st.words):
        if w == "applies" and i + 1 < len(st.words):
            body = st.words[i + 1]
            h.attributes["applies"] = StringAttr(body[0], None, body[1])
    consumed = set()
    for kw, vals, _sp in st.kws:
        if kw == "dimensions":
            h.attributes["dimensions"] = _dims(b, vals)
            consumed.add(kw)
    rst = _Scan()
    b._scan(rest, rst)
    if rst.decl_groups:  # reducer(%a: T, %c: T) (%b: U, %d: U): block args are a, b, c, d
        pairs = rst.decl_groups
        if all(len(p) == 2 for p in pairs):
            h.region_args = [[p[0] for p in pairs] + [p[1] for p in pairs]]
        else:
            h.region_args = [[d for p in pairs for d in p]]
    b._finish(h, st, True, consumed)
    _assign_types(h, fn, types, nres, False)


def _h_while(b, h, pre, fn, types, rest, nres):
    st = _Scan()
    b._scan(pre, st)
    b._finish(h, st, True)
    _assign_types(h, fn, types, nres, True)
    tys = h.operand_types or []
    h.region_args = [[(name, tys[i] if i < len(tys) else None, sp)
                      for i, (name, sp) in enumerate(st.iter_args)]]


def _h_select(b, h, pre, fn, types, rest, nres):
    st = _Scan()
    b._scan(pre, st)
    b._finish(h, st, True)
    if fn is None and types and len(types) == 2:
        h.operand_types = [types[0], types[1], types[1]]
        h.result_types = [types[1]]
    else:
        _assign_types(h, fn, types, nres, True)


def _h_tuple(b, h, pre, fn, types, rest, nres):
    st = _Scan()
    b._scan(pre, st)
    b._finish(h, st, True)
    if fn is None and types and len(types) == 1:
        h.result_types = [types[0]]
        if isinstance(types[0], TupleType) and len(types[0].types) == len(h.operands):
            h.operand_types = list(types[0].types)
    else:
        _assign_types(h, fn, types, nres, False)


def _h_after_all(b, h, pre, fn, types, rest, nres):
    st = _Scan()
    b._scan(pre, st)
    b._finish(h, st, True)
    if fn is None and types and len(types) == 1:
        h.result_types = [types[0]]
        h.operand_types = [types[0]] * len(h.operands)
    else:
        _assign_types(h, fn, types, nres, False)


def _h_symbol_call(attr_name: str, as_string: bool):
    def handler(b, h, pre, fn, types, rest, nres):
        st = _Scan()
        b._scan(pre, st)
        for i, it in enumerate(st.positional):
            if it[0] == "a" and isinstance(it[1], SymbolRefAttr):
                sym = it[1]
                h.attributes[attr_name] = StringAttr(sym.root, None, sym.span) if as_string else sym
                del st.positional[i]
                break
        b._finish(h, st, True)
        _assign_types(h, fn, types, nres, False)
    return handler


def _h_composite(b, h, pre, fn, types, rest, nres):
    st = _Scan()
    b._scan(pre, st)
    for it in st.positional:
        if it[0] == "a" and isinstance(it[1], StringAttr):
            h.attributes["name"] = it[1]
            break
    b._finish(h, st, True)
    _assign_types(h, fn, types, nres, False)


def _h_reduce_precision(b, h, pre, fn, types, rest, nres):
    st = _Scan()
    b._scan(pre, st)
    consumed = set()
    for kw, vals, sp in st.kws:
        if kw == "format" and len(vals) == 1 and vals[0][0] == "w":
            m = re.fullmatch(r"e([0-9]+)m([0-9]+)", vals[0][1])
            if m:
                vs = vals[0][2]
                h.attributes["exponent_bits"] = IntegerAttr(int(m.group(1)), _I32, vs)
                h.attributes["mantissa_bits"] = IntegerAttr(int(m.group(2)), _I32, vs)
                consumed.add(kw)
    b._finish(h, st, True, consumed)
    _assign_types(h, fn, types, nres, True)


def _h_convolution(b, h, pre, fn, types, rest, nres):
    st = _Scan()
    b._scan(pre, st)
    consumed = set()
    for kw, vals, sp in st.kws:
        if kw == "dim_numbers":
            span = Span(vals[0][2].start, vals[-1][2].end)
            text = b._slice(span)
            h.attributes["dimension_numbers"] = DialectAttr("stablehlo", "conv", (), (), f"#stablehlo.conv<{text}>", span)
            consumed.add(kw)
        elif kw == "window" and len(vals) == 1 and vals[0][0] == "d":
            names = {"stride": "window_strides", "lhs_dilate": "lhs_dilation",
                     "rhs_dilate": "rhs_dilation", "reverse": "window_reversal"}
            for key, value in vals[0][1].entries:
                if key == "pad":
                    rows = len(value.elements) if isinstance(value, ArrayAttr) else None
                    ptype = TensorType((rows, 2), _I64) if rows is not None else None
                    h.attributes["padding"] = DenseElementsAttr(
                        b._slice(value.span) if value.span else "", ptype, value.span)
                elif key in names and isinstance(value, ArrayAttr):
                    el = value.elements
                    if key == "reverse":
                        h.attributes[names[key]] = DenseArrayAttr(
                            "i1", tuple(bool(getattr(e, "value", 0)) for e in el), value.span)
                    else:
                        h.attributes[names[key]] = DenseArrayAttr(
                            "i64", tuple(getattr(e, "value", 0) for e in el), value.span)
            consumed.add(kw)
    b._finish(h, st, True, consumed)
    _assign_types(h, fn, types, nres, False)


def _h_func(b, h, pre, fn, types, rest, nres):
    items = list(pre) + list(rest)
    attrs = h.attributes
    i = 0
    n = len(items)
    if i < n and items[i][0] == "w" and items[i][1] in ("public", "private", "nested"):
        attrs["sym_visibility"] = StringAttr(items[i][1], None, items[i][2])
        i += 1
    if i < n and items[i][0] == "a" and isinstance(items[i][1], SymbolRefAttr):
        sym = items[i][1]
        attrs["sym_name"] = StringAttr(sym.root, None, sym.span)
        i += 1
    sig_start = items[i][2].start if i < n and items[i][2] is not None else None
    inputs: list[Type] = []
    arg_attrs: list[DictAttr] = []
    args: list[tuple[str, Type | None, Span]] = []
    sig_end = None
    if i < n and items[i][0] == "g":
        for seg in _segments(items[i][1]):
            if len(seg) >= 3 and seg[0][0] == "v" and seg[1][0] == ":" and seg[2][0] == "t":
                args.append((seg[0][1], seg[2][1], seg[0][2]))
                inputs.append(seg[2][1])
                tail = seg[3:]
            elif seg and seg[0][0] == "t":
                inputs.append(seg[0][1])
                tail = seg[1:]
            else:
                continue
            d = next((x[1] for x in tail if x[0] == "d"), None)
            arg_attrs.append(d if d is not None else DictAttr((), None))
        sig_end = items[i][2].end
        i += 1
    results: list[Type] = []
    res_attrs: list[DictAttr] = []
    if i + 1 < n and items[i][0] == "->":
        r = items[i + 1]
        if r[0] == "g":
            for seg in _segments(r[1]):
                if seg and seg[0][0] == "t":
                    results.append(seg[0][1])
                    d = next((x[1] for x in seg[1:] if x[0] == "d"), None)
                    res_attrs.append(d if d is not None else DictAttr((), None))
        elif r[0] == "t":
            results.append(r[1])
            res_attrs.append(DictAttr((), None))
        sig_end = r[2].end if r[2] is not None else sig_end
        i += 2
    span = Span(sig_start, sig_end) if sig_start is not None and sig_end is not None else None
    attrs["function_type"] = TypeAttr(FunctionType(tuple(inputs), tuple(results)), span)
    if any(d.entries for d in arg_attrs):
        attrs["arg_attrs"] = ArrayAttr(tuple(arg_attrs), None)
    if any(d.entries for d in res_attrs):
        attrs["res_attrs"] = ArrayAttr(tuple(res_attrs), None)
    has_region = False
    while i < n:
        k = items[i][0]
        if k == "w" and items[i][1] == "attributes" and i + 1 < n and items[i + 1][0] == "d":
            attrs.update(items[i + 1][1].entries)
            i += 2
            continue
        if k == "r":
            has_region = True
        elif k == "d":
            attrs.update(items[i][1].entries)
        i += 1
    if has_region:
        h.region_args = [args]


def _segments(items: list) -> list[list]:
    segs: list[list] = [[]]
    for it in items:
        if it[0] == ",":
            segs.append([])
        else:
            segs[-1].append(it)
    return [s for s in segs if s]


def _h_module(b, h, pre, fn, types, rest, nres):
    for k, v, sp in list(pre) + list(rest):
        if k == "a" and isinstance(v, SymbolRefAttr) and "sym_name" not in h.attributes:
            h.attributes["sym_name"] = StringAttr(v.root, None, v.span)
        elif k == "d":
            h.attributes.update(v.entries)


def _h_manual_computation(b, h, pre, fn, types, rest, nres):
    st = _Scan()
    b._scan(pre, st)
    consumed = set()
    for kw, vals, sp in st.kws:
        if kw in ("in_shardings", "out_shardings") and len(vals) == 1 and vals[0][0] == "b":
            # the same value the generic form's #sdy.sharding_per_value<[<@mesh, ...>, ...]> gives
            _k, elems, bspan = vals[0]
            shardings = ArrayAttr(tuple(b._elem_attr(e) for e in elems), bspan)
            h.attributes[kw] = DialectAttr("sdy", "sharding_per_value", (), (shardings,),
                                           f"#sdy.sharding_per_value<{b._slice(bspan)}>", bspan)
            consumed.add(kw)
        elif kw == "manual_axes" and len(vals) == 1 and vals[0][0] == "d":
            d = vals[0][1]
            h.attributes[kw] = _manual_axes(b._slice(d.span), d.span.start, d.span)
            consumed.add(kw)
    b._finish(h, st, True, consumed)
    _assign_types(h, fn, types, nres, False)


def _h_sdy_mesh(b, h, pre, fn, types, rest, nres):
    items = list(pre)
    for i, (k, v, sp) in enumerate(items):
        if k == "a" and isinstance(v, SymbolRefAttr) and "sym_name" not in h.attributes:
            h.attributes["sym_name"] = StringAttr(v.root, None, v.span)
        elif k == "<":
            h.attributes["mesh"] = replace(b._angle_attr(v, sp, "sdy", "mesh"), text=f"#sdy.mesh{v}")
        elif k == "d":
            h.attributes.update(v.entries)


def _h_sharding_constraint(b, h, pre, fn, types, rest, nres):
    st = _Scan()
    b._scan(pre, st)
    for i, it in enumerate(st.positional):
        if it[0] == "<":
            h.attributes["sharding"] = replace(b._angle_attr(it[1], it[2], "sdy", "sharding"),
                                               text=f"#sdy.sharding{it[1]}")
            del st.positional[i]
            break
    b._finish(h, st, True)
    _assign_types(h, fn, types, nres, True)


_HANDLERS = {
    "builtin.module": _h_module,
    "func.func": _h_func,
    "func.call": _h_symbol_call("callee", False),
    "stablehlo.custom_call": _h_symbol_call("call_target_name", True),
    "stablehlo.constant": _h_constant,
    "chlo.constant": _h_constant,
    "stablehlo.compare": _h_compare,
    "stablehlo.dot_general": _h_dot_general,
    "stablehlo.slice": _h_slice,
    "stablehlo.get_tuple_element": _h_get_tuple_element,
    "stablehlo.reduce": _h_reduce,
    "stablehlo.while": _h_while,
    "stablehlo.select": _h_select,
    "stablehlo.tuple": _h_tuple,
    "stablehlo.after_all": _h_after_all,
    "stablehlo.optimization_barrier": _h_while,
    "stablehlo.composite": _h_composite,
    "stablehlo.reduce_precision": _h_reduce_precision,
    "stablehlo.convolution": _h_convolution,
    "sdy.manual_computation": _h_manual_computation,
    "sdy.mesh": _h_sdy_mesh,
    "sdy.sharding_constraint": _h_sharding_constraint,
}
for _key in {k[0] for k in _KW}:
    _HANDLERS.setdefault(_key, _h_keywords)


# --------------------------------------------------------------------------- alias caches
class _AliasCache:
    """Parsed `#alias` / `!alias` definitions, kept on the module they belong to
    (so nothing parsed for one file can answer a lookup for another)."""

    def __init__(self):
        self._depth = 0  # nesting of alias definitions being resolved (cycle bound)

    def _table(self, module) -> dict:
        try:
            d = module.__dict__
        except AttributeError:  # pragma: no cover - a module without a __dict__
            return {}
        t = d.get("_alias_cache")
        if t is None:
            t = d["_alias_cache"] = {}
        return t

    def type_alias(self, module, name: str) -> Type | None:
        found = _alias_text(module, name)
        if found is None:
            return None
        table = self._table(module)
        if name in table:
            return table[name]
        if self._depth > 16:
            return None
        self._depth += 1
        table[name] = None  # cycle guard
        try:
            t = _run("type_only", _Ctx(found[0], found[1], module))
        except UnexpectedInput:
            t = OpaqueType(name)
        finally:
            self._depth -= 1
        table[name] = t
        return t

    def attr_alias(self, module, name: str) -> Attribute | None:
        found = _alias_text(module, name)
        if found is None or found[0].lstrip().startswith("loc("):
            return None
        table = self._table(module)
        if name in table:
            return table[name]
        if self._depth > 16:
            return None
        self._depth += 1
        table[name] = None
        try:
            a = _run("attr_only", _Ctx(found[0], found[1], module))
        except UnexpectedInput:
            a = None
        finally:
            self._depth -= 1
        table[name] = a
        return a


def _alias_text(module, name: str) -> tuple[str, int] | None:
    """(definition text, its offset) of an alias: the scanner's `alias_texts`, else
    `attr_aliases` / `type_aliases` (text only; the offset is looked up in the source)."""
    texts = getattr(module, "alias_texts", None)
    if texts and name in texts:
        text, offset = texts[name]
        return text, offset
    table = getattr(module, "type_aliases" if name.startswith("!") else "attr_aliases", None) or {}
    if name in table:
        text = table[name]
        return text, _definition_offset(module, name, text)
    return None


def _definition_offset(module, name: str, text: str) -> int:
    """Where `name = text` is written in the module's source (so nested spans are right)."""
    src = module.source.text
    m = re.search(r"(?m)^[ \t]*" + re.escape(name) + r"[ \t]*=[ \t]*", src)
    if m is not None and src.startswith(text, m.end()):
        return m.end()
    return 0


_ALIASES = _AliasCache()


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
        pieces.append(_REGION_TOKEN)
        rel += 2
        delta += (re_ - rs) - 2
        gap_pos.append(rel)
        gap_delta.append(delta)
        cur = re_
    pieces.append(text[cur:end])
    return "".join(pieces), gap_pos, gap_delta


# ----------------------------------------------------------------------------- fast path
# Most lines JAX prints are a handful of token kinds (values, words, tensor types,
# small brackets, `dense<...>`, `loc(#alias)`). For those, a regex tokenizer and a
# small recursive descent produce exactly the items the grammar's callbacks would
# and hand them to the same `_interpret`; anything else (dicts, `<...>`, `#attr`,
# strings with escapes, ...) goes to Lark. Equivalence is tested on the corpus.
_ELEM_RE = (r"(?:[su]?i[0-9]+|bf16|f16|f32|f64|f80|f128|tf32|f[4-8]E[0-9A-Za-z]+|index"
            r"|complex<(?:bf16|f16|f32|f64)>)")
_FAST_TOKEN = re.compile(
    r"\s*(?:"
    r"(?P<loc>loc\((?:#[A-Za-z_$.\-][\w$.\-]*|unknown)\))"
    r"|(?P<bail>loc\()"
    r"|(?P<tensor>tensor<(?:\*x|(?:(?:[0-9]+|\?)x)*)" + _ELEM_RE + r">)"
    r"|(?P<value>%[\w$.\-]+(?:#[0-9]+)?)"
    r"|(?P<dense>dense<[^<>\"]*>)"
    r"|(?P<hex>[-+]?0x[0-9A-Fa-f]+)"
    r"|(?P<float>[-+]?[0-9]+\.[0-9]*(?:[eE][-+]?[0-9]+)?|[-+]?[0-9]+[eE][-+]?[0-9]+)"
    r"|(?P<int>[-+]?[0-9]+)"
    r"|(?P<elem>(?:[su]?i[0-9]+|bf16|f16|f32|f64|f80|f128|tf32|f[4-8]E[0-9A-Za-z]+|index|none|token)(?![\w$.]))"
    r"|(?P<token>!stablehlo\.token(?![\w$.<\-]))"
    r"|(?P<word>[A-Za-z_][\w$.]*)"
    r"|(?P<arrow>->)"
    r"|(?P<p>::|[=,:()\[\]])"
    r"|(?P<region>«[^»]*»)"
    r"|(?P<sym>@[A-Za-z_$.\-][\w$.\-]*)"
    r'|(?P<string>"[^"\\\n]*")'
    r"|(?P<end>\Z))")
_FAST_KINDS = [None] * (_FAST_TOKEN.groups + 1)
for _name, _index in _FAST_TOKEN.groupindex.items():
    _FAST_KINDS[_index] = _name


class _Bail(Exception):
    """The fast path met something it leaves to Lark."""


def _fast_tokens(text: str) -> list[tuple[str, str, int, int]]:
    """(kind, text, start, end) for every token, or _Bail on anything unusual."""
    toks = []
    pos = 0
    kinds = _FAST_KINDS
    match = _FAST_TOKEN.match
    while True:
        m = match(text, pos)
        if m is None:
            raise _Bail
        index = m.lastindex
        start, pos = m.span(index)
        kind = kinds[index]
        if kind == "end":
            return toks
        if kind == "bail":
            raise _Bail
        value = m.group(index)
        if kind == "p":
            if value == "::":
                raise _Bail
            kind = value
        elif kind == "arrow":
            kind = "->"
        toks.append((kind, value, start, pos))


class _Fast:
    """Recursive descent over `_fast_tokens` output, calling the builder's callbacks."""

    __slots__ = ("b", "toks", "i", "n")

    def __init__(self, b: _Builder, toks):
        self.b, self.toks, self.i, self.n = b, toks, 0, len(toks)

    def peek(self, k: int = 0) -> str | None:
        j = self.i + k
        return self.toks[j][0] if j < self.n else None

    def take(self, kind: str | None = None):
        if self.i >= self.n:
            raise _Bail
        t = self.toks[self.i]
        if kind is not None and t[0] != kind:
            raise _Bail
        self.i += 1
        return t

    def tok(self, t) -> Token:
        return Token(t[0], t[1], t[2], end_pos=t[3])

    def op(self):
        b = self.b
        nres = 0
        if self.peek() == "value":
            while True:
                self.take("value")
                if self.peek() == ":":
                    self.take()
                    nres += int(self.take("int")[1])
                else:
                    nres += 1
                if self.peek() == ",":
                    self.take()
                    continue
                self.take("=")
                break
        k = self.peek()
        if k == "word":
            name = self.tok(self.take())
            items = self.items(None)
            return b._interpret(_Pretty(name, items), nres)
        if k == "string":
            return self.generic()
        raise _Bail

    def items(self, closer: str | None) -> list:
        b = self.b
        out = []
        while self.i < self.n:
            kind, value, start, end = self.toks[self.i]
            if kind == closer:
                return out
            self.i += 1
            if kind == "value":
                out.append(("v", value, b._span2(start, end)))
            elif kind == "word":
                out.append(("w", value, b._span2(start, end)))
            elif kind == "=":
                out.append(_EQ)
            elif kind == ",":
                out.append(_COMMA)
            elif kind == ":":
                out.append(_COLON)
            elif kind == "->":
                out.append(_ARROW)
            elif kind in ("tensor", "elem", "token"):
                t = self.type_tok(kind, value, start, end)
                out.append(("t", t, b._span2(start, end)))
            elif kind == "(":
                inner = self.items(")")
                rp = self.take(")")
                out.append(("g", inner, b._span2(start, rp[3])))
            elif kind == "[":
                out.append(self.bracket(start))
            elif kind == "region":
                out.append(("r", None, b._span2(start, end)))
            elif kind == "loc":
                out.append(("l", self.loc(value), None))
            else:
                a = self.attr_tok(kind, value, start, end)
                out.append(("a", a, a.span))
        if closer is not None:
            raise _Bail
        return out

    def type_tok(self, kind, value, start, end):
        b = self.b
        b._ts, b._te = start, end
        if kind == "tensor":
            return _tensor_simple(value)
        if kind == "token":
            return TokenType()
        return _scalar(value)

    def attr_tok(self, kind, value, start, end):
        b = self.b
        if kind == "int":
            return IntegerAttr(int(value), None, b._span2(start, end))
        if kind == "float":
            return FloatAttr(float(value), None, b._span2(start, end))
        if kind == "hex":
            return IntegerAttr(int(value, 16), None, b._span2(start, end))
        if kind == "dense":
            return DenseElementsAttr(value[6:-1], None, b._span2(start, end))
        if kind == "sym":
            return SymbolRefAttr(value[1:], (), b._span2(start, end))
        if kind == "string":
            return StringAttr(value[1:-1], None, b._span2(start, end))
        raise _Bail

    def loc(self, value: str):
        inner = value[4:-1]
        return _UNKNOWN if inner == "unknown" else LocAlias(inner)

    def bracket(self, start: int):
        b = self.b
        elems = []
        if self.peek() != "]":
            while True:
                elems.append(self.selem())
                if self.peek() == ",":
                    self.take()
                    continue
                break
        rb = self.take("]")
        return ("b", elems, b._span2(start, rb[3]))

    def selem(self):
        b = self.b
        kind, value, start, end = self.take()
        if kind in ("int", "float", "hex", "dense"):
            if self.peek() == ":":
                self.take()
                nk = self.peek()
                if kind == "int" and nk == "int":
                    lim = self.take()
                    if self.peek() == ":":
                        self.take()
                        st = self.take("int")
                        return _Range(int(value), int(lim[1]), int(st[1]), b._span2(start, st[3]))
                    return _Range(int(value), int(lim[1]), 1, b._span2(start, lim[3]))
                if nk in ("tensor", "elem", "token"):
                    t_kind, t_value, t_start, t_end = self.take()
                    t = self.type_tok(t_kind, t_value, t_start, t_end)
                    tok = Token(kind.upper(), value, start, end_pos=end)
                    if kind == "int":
                        return b._a_int_typed(tok, t)
                    if kind == "float":
                        return b._a_float_typed(tok, t)
                    if kind == "hex":
                        return b._a_hex_typed(tok, t)
                    return b._a_dense_typed(tok, t)
                raise _Bail
            return self.attr_tok(kind, value, start, end)
        if kind == "word":
            return b._a_word(Token("BARE_ID", value, start, end_pos=end))
        if kind == "value":
            return _Val(value, b._span2(start, end))
        if kind == "[":
            return b._bracket_attr(self.bracket(start))
        if kind in ("tensor", "elem", "token"):
            t = self.type_tok(kind, value, start, end)
            return TypeAttr(t, b._span2(start, end))
        if kind in ("sym", "string"):
            return self.attr_tok(kind, value, start, end)
        raise _Bail

    def types(self, closer: str | None) -> list:
        out = []
        if closer is not None and self.peek() == closer:
            return out
        while True:
            kind, value, start, end = self.take()
            if kind not in ("tensor", "elem", "token"):
                raise _Bail
            out.append(self.type_tok(kind, value, start, end))
            if self.peek() == ",":
                self.take()
                continue
            return out

    def generic(self):
        b = self.b
        name = self.take("string")
        h = OpHeader(name=name[1][1:-1], name_span=b._span2(name[2], name[3]), generic=True)
        self.take("(")
        if self.peek() != ")":
            while True:
                v = self.take("value")
                h.operands.append((v[1], b._span2(v[2], v[3])))
                if self.peek() == ",":
                    self.take()
                    continue
                break
        self.take(")")
        if self.peek() == "(" and self.peek(1) == "region":
            self.take()
            while True:
                self.take("region")
                if self.peek() == ",":
                    self.take()
                    continue
                break
            self.take(")")
        elif self.peek() == "region":
            raise _Bail
        self.take(":")
        if self.peek() == "(":
            self.take()
            ins = self.types(")")
            self.take(")")
        else:
            ins = self.types(None)
            if len(ins) != 1:
                raise _Bail
        self.take("->")
        if self.peek() == "(":
            self.take()
            outs = self.types(")")
            self.take(")")
        else:
            kind, value, start, end = self.take()
            if kind not in ("tensor", "elem", "token"):
                raise _Bail
            outs = [self.type_tok(kind, value, start, end)]
        if self.peek() == "loc":
            h.loc = self.loc(self.take()[1])
        if self.i != self.n:
            raise _Bail
        h.attributes = {}
        h.operand_types = list(ins)
        h.result_types = list(outs)
        return h


def _fast_parse(ctx: _Ctx) -> OpHeader | None:
    """The fast path; None when the text needs the full grammar."""
    try:
        toks = _fast_tokens(ctx.text)
    except _Bail:
        return None
    b = _builder()
    saved = (b.ctx, b._ts, b._te)
    b.ctx = ctx
    try:
        return _Fast(b, toks).op()
    except (_Bail, ValueError, AssertionError):
        return None
    finally:
        b.ctx, b._ts, b._te = saved


_CRUDE_OPERAND = re.compile(r"%[\w$.\-]+(?:#[0-9]+)?(?![\w$.\-#]|:|\s*=)")
_OP_NAME = re.compile(r'"[^"]*"|[A-Za-z_][\w$.]*')


# ----------------------------------------------------------------------------- header cache
# Big JAX modules repeat the same collective, layer after layer, with other SSA
# names: `"stablehlo.all_gather"(%812) <{...same attributes...}> : (...) -> ... loc(#loc93)`.
# Those headers go through Lark (~150-200 µs); a per-module cache keyed on the
# compressed text with every SSA name and `#locN` reference masked *to the same
# length* makes equal keys mean identical layouts, so a hit is the cached header
# with its spans moved (through both ops' offset maps) and its names and loc read
# back from this op's own text. Strings are left as they are (they may hold `%`).
_CACHE_MAX_BODY = 4096
_MASKABLE = re.compile(r'"(?:[^"\\]|\\.)*"|%[\w$.\-#]+|#loc[\w$.\-]*')
_LOC_ALIAS_AT_END = re.compile(r"loc\((#[\w$.\-]+)\)\s*$")


def _mask(m: re.Match) -> str:
    tok = m.group(0)
    return tok if tok[0] == '"' else tok[0] + "_" * (len(tok) - 1)


def _cache_key(body: str) -> str:
    return _MASKABLE.sub(_mask, body)


def _relocate(hit: tuple, ctx: _Ctx, body: str) -> OpHeader:
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

    def name_at(span: Span) -> str:
        return source[span.start:span.end]

    loc = h.loc
    if isinstance(loc, LocAlias):
        m = _LOC_ALIAS_AT_END.search(body)
        loc = LocAlias(m.group(1)) if m else loc
    return OpHeader(
        name=h.name, name_span=move(h.name_span), generic=h.generic,
        operands=[(name_at(s2), s2) for s2 in (move(s) for _n, s in h.operands)],
        operand_types=None if h.operand_types is None else list(h.operand_types),
        result_types=list(h.result_types),
        attributes={k: _move_attr(v, move) for k, v in h.attributes.items()},
        properties=h.properties,
        region_args=[[(name_at(s2), t, s2) for _n, t, s in args for s2 in (move(s),)] for args in h.region_args],
        successors=list(h.successors), loc=loc)


_ATTR_FIELDS: dict[type, tuple[tuple[str, int], ...]] = {}
_LEAF, _SPAN, _NEST = 0, 1, 2


def _move_attr(value: Any, move) -> Any:
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
                args.append(_move_attr(v, move))
            else:
                args.append(v)
        return cls(*args)
    if isinstance(value, tuple):
        return tuple([_move_attr(v, move) if isinstance(v, (tuple, list, Attribute)) else v for v in value])
    if isinstance(value, list):
        return [_move_attr(v, move) if isinstance(v, (tuple, list, Attribute)) else v for v in value]
    return value


class LarkParser:
    """Parses op headers and block labels for a Module (the object ir.Module calls)."""

    def __init__(self, fast: bool = True, cache: bool = True):
        _lark()
        self.cache = cache
        """Reuse the parse of an identically laid-out header, block label or dialect
        body in the same module (False: parse every one afresh, the reference the
        differential test compares with)."""
        self.fast = fast
        """Try the regex fast path for plain lines before Lark (same results, ~10x faster)."""

    def parse_header(self, module, op) -> OpHeader:
        text = module.source.text
        start, end = op.span.start, op.span.end
        body, gap_pos, gap_delta = _compress(text, start, end, getattr(op, "region_spans", None) or [])
        ctx = _Ctx(body, start, module, gap_pos, gap_delta)
        try:
            h = _fast_parse(ctx) if self.fast else None
            if h is not None:
                return h
            key = _cache_key(body) if self.cache and len(body) <= _CACHE_MAX_BODY else None
            cache = module.__dict__.setdefault("_header_cache", {})
            hit = cache.get(key) if key is not None else None
            if hit is not None:
                return _relocate(hit, ctx, body)
            h = _run("op", ctx)
            if key is not None and isinstance(h, OpHeader):
                cache[key] = (h, ctx)
        except UnexpectedInput as err:
            problem = _problem(err, ctx)
            generic = _is_generic(body)
            if generic or _known(op.name) or op.name in _CANON:
                module.syntax_errors.append((problem.message, problem.span))
            return self._fallback(op, body, ctx)
        except Exception as err:  # a parser bug must not cost the user the file
            _internal(module, f"this {op.name} op", err, Span(start, end))
            return self._fallback(op, body, ctx)
        if not isinstance(h, OpHeader):  # pragma: no cover - defensive
            return self._fallback(op, body, ctx)
        return h

    def parse_location_alias(self, module, text: str, offset: int) -> Location | None:
        """A `#locN = loc(...)` definition's text (at `offset`) -> Location; a syntax
        error is recorded and None returned when it does not parse."""
        ctx = _Ctx(text, offset, module)
        try:
            return _run("loc_only", ctx)
        except UnexpectedInput as err:
            problem = _problem(err, ctx)
            module.syntax_errors.append((problem.message, problem.span))
        except Exception as err:  # pragma: no cover - a parser bug
            _internal(module, "this location", err, Span(offset, offset + len(text)))
        return None

    def parse_block_label(self, module, block) -> list[tuple[str, Type | None, Span]]:
        span = block.label_span
        text = module.source.text[span.start:span.end]
        ctx = _Ctx(text, span.start, module)
        try:
            # Reduction bodies repeat `^bb0(%arg2: tensor<f32>, %arg3: tensor<f32>):`
            # thousands of times: same cache idea as headers (names read back).
            key = ("^", _cache_key(text)) if self.cache else None
            cache = module.__dict__.setdefault("_header_cache", {})
            hit = cache.get(key) if key is not None else None
            if hit is not None:
                base, args = hit
                delta = span.start - base
                source = module.source.text
                return [(source[s.start + delta:s.end + delta], t, Span(s.start + delta, s.end + delta))
                        for _n, t, s in args]
            args = _run("block_label", ctx)
            if key is not None:
                cache[key] = (span.start, args)
            return args
        except Exception as err:
            if isinstance(err, UnexpectedInput):
                problem = _problem(err, ctx)
                module.syntax_errors.append((problem.message, problem.span))
            else:  # pragma: no cover - a parser bug
                _internal(module, "this block label", err, span)
            args = []
            for m in re.finditer(r"(%[\w$.\-]+)\s*:", text):
                args.append((m.group(1), None, Span(span.start + m.start(1), span.start + m.end(1))))
            return args

    def _fallback(self, op, body: str, ctx: _Ctx) -> OpHeader:
        """Minimal header for an op whose text does not parse: name, operands, trailing types."""
        b = _builder()
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
            try:
                parsed = _run("sig_only", _Ctx(sig, 0))
            except UnexpectedInput:
                parsed = None
            if isinstance(parsed, FunctionType):
                h.operand_types = list(parsed.inputs)
                h.result_types = list(parsed.results)
            elif parsed:
                nres = sum(n for _, n in getattr(op, "result_names", ()) or ())
                if len(parsed) == nres:
                    h.result_types = list(parsed)
        return h


def _internal_message(what: str, err: BaseException) -> str:
    """An exception inside the parser is our bug: name the exception type (never its
    text, which reads like a verdict on the user's file) and ask for a report."""
    return (f"internal error in the parser reading {what} ({type(err).__name__}); "
            "the op was read without its details; please report it with this file")


def _internal(module, what: str, err: BaseException, span: Span) -> None:
    errors = getattr(module, "internal_errors", None)
    if errors is None:  # pragma: no cover - a Module from before internal_errors
        errors = module.__dict__.setdefault("internal_errors", [])
    errors.append((_internal_message(what, err), span))


def _header_name_start(body: str) -> int:
    """Offset of the op name in an op's text (after any `%r, %s:2 =`)."""
    m = re.match(r"\s*(?:%[\w$.\-]+(?::[0-9]+)?\s*(?:,\s*%[\w$.\-]+(?::[0-9]+)?\s*)*=\s*)?", body)
    return m.end() if m else 0


def _is_generic(body: str) -> bool:
    i = _header_name_start(body)
    return body[i:i + 1] == '"'


def _trailing_signature(body: str) -> str | None:
    """Text after the last top-level ' : ' of an op (its trailing loc removed)."""
    depth = 0
    last = -1
    i = 0
    n = len(body)
    while i < n:
        c = body[i]
        if c == '"':
            i += 1
            while i < n and body[i] != '"':
                i += 2 if body[i] == "\\" else 1
        elif c in "([{<":
            depth += 1
        elif c in ")]}>":
            if not (c == ">" and i and body[i - 1] == "-"):
                depth -= 1
        elif c == ":" and depth == 0:
            last = i
        i += 1
    if last < 0:
        return None
    sig = body[last + 1:]
    k = sig.rfind(" loc(")
    if k >= 0:
        sig = sig[:k]
    return sig.strip() or None


# --------------------------------------------------------------------------- helpers
def _parse_text(start: str, text: str, offset: int):
    ctx = _Ctx(text, offset)
    try:
        return _run(start, ctx)
    except UnexpectedInput as err:
        raise _problem(err, ctx) from None
    except Exception as err:  # a parser bug: still a located problem, not a traceback
        raise InternalParseError(_internal_message("this text", err),
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
