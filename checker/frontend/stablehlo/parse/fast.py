"""The fast path: what JAX and stablehlo-opt print is a few dozen token kinds;
a regex tokenizer and a small recursive descent produce exactly the items and
values the grammar's callbacks would, through the same callbacks and the same
interpreter (much faster than Lark: docs/parser.md); anything unusual bails out
to Lark.
Entry points: `fast_parse` (op headers), `fast_block_label`, `fast_loc`."""
from __future__ import annotations

import re

from lark import Token

from ....ir.attributes import (DenseElementsAttr, DictAttr, FloatAttr, IntegerAttr, StringAttr, SymbolRefAttr, TypeAttr,
                               UnitAttr)
from ....ir.core import CallSiteLoc, FileLineColLoc, FusedLoc, LocAlias, NameLoc, OpHeader
from ....ir.types import FunctionType, TensorType, TokenType
from .builder import Builder, set_dictionaries
from .ctx import ParseCtx
from .runner import shared_builder, lark_parser
from .pieces import ARROW, Angle, COLON, COMMA, EQ, Pretty, Range, UNKNOWN, Val, scalar_type, tensor_simple


# ----------------------------------------------------------------------------- fast path
# Taken: values, words, types (tensors, with quantized elements and encodings,
# `!dialect<...>`), literals, `dense<...>`, `array<...>`, `#dialect<...>`,
# dictionaries and `<{...}>` properties, brackets, sdy's angle groups, function
# types as values, regions, locations. Left to Lark: strings with escapes,
# `::` symbols, `affine_map<...>` and other opaque angles, successors, nested
# function types, anything the contextual lexer could cut another way.
# Equivalence: tests/test_parse_fast.py (each form, generated programs) and
# tests/test_parse_corpus.py (every corpus file).
_ELEM_RE = (r"(?:[su]?i[0-9]+|bf16|f16|f32|f64|f80|f128|tf32|f[4-8]E[0-9A-Za-z]+|index"
            r"|complex<(?:bf16|f16|f32|f64)>)")
# Tokens whose text is a whole grammar terminal take that terminal's own regex
# from the Lark instance (`{hash}`, `{bang}`, `{dense}`, `{array}`, `{angle}`:
# HASH, BANG, DENSE, ARRAY, ANGLE), so a fast token is exactly the text Lark's
# lexer would cut. An angle group right after a word (`foo<...>`) is not one:
# Lark reads `tensor<`, `complex<`, `memref<`... as types there.
_FAST_TEMPLATE = (
    r"[ \t\n\r]*(?:"  # MLIR's whitespace only: a no-break space or a vertical tab is an error (scan.py says so), not a gap
    # First the kinds no other kind can start with (`%`, punctuation, `«`, `@`,
    # `"`, `^`): the most frequent tokens try the fewest alternatives. Below
    # them, order matters as in the grammar's priorities (`loc(` and `tensor<`
    # before a word, hex before float before int, `!stablehlo.token` before `!`).
    r"(?P<value>%[\w$.\-]+(?:#[0-9]+)?)"
    r"|(?P<p>::|[=,:()\[\]{{}}>]|<(?=\{{))"
    r"|(?P<region>«[^»]*»)"
    r"|(?P<sym>@[A-Za-z_$.\-][\w$.\-]*)"
    r'|(?P<string>"[^"\\\n]*")'
    r"|(?P<block>\^[\w$.\-]+)"
    r"|(?P<loc>loc\((?:#[A-Za-z_$.\-][\w$.\-]*|unknown)\))"
    r"|(?P<locopen>loc\()"
    r"|(?P<tensor>tensor<(?:\*x|(?:(?:[0-9]+|\?)x)*)" + _ELEM_RE + r">)"
    r"|(?P<tensoropen>tensor<(?:\*x|(?:(?:[0-9]+|\?)x)*)(?=[!a-z]))"
    r"|(?P<dense>{dense})"
    r"|(?P<array>{array})"
    r"|(?P<hex>[-+]?0x[0-9A-Fa-f]+)"
    r"|(?P<float>[-+]?[0-9]+\.[0-9]*(?:[eE][-+]?[0-9]+)?|[-+]?[0-9]+[eE][-+]?[0-9]+)"
    r"|(?P<int>[-+]?[0-9]+)"
    r"|(?P<elem>(?:[su]?i[0-9]+|bf16|f16|f32|f64|f80|f128|tf32|f[4-8]E[0-9A-Za-z]+|index|none|token)(?![\w$.]))"
    r"|(?P<token>!stablehlo\.token(?![\w$.<\-]))"
    r"|(?P<bang>{bang})"
    r"|(?P<hash>{hash})"
    r"|(?P<word>[A-Za-z_][\w$.]*)"
    r"|(?P<angle>(?<![\w$.]){angle})"
    r"|(?P<arrow>->)"
    r"|(?P<end>\Z))")
_FAST_TOKEN: "re.Pattern[str] | None" = None
_FAST_KINDS: list = []
_TYPE_KINDS = ("tensor", "elem", "token", "bang", "tensoropen")


def _tokenizer() -> "re.Pattern[str]":
    """The fast tokenizer, built on first use from the Lark instance's terminals."""
    global _FAST_TOKEN, _FAST_KINDS
    if _FAST_TOKEN is None:
        terms = {t.name: t.pattern.to_regexp() for t in lark_parser().terminals}
        pattern = re.compile(_FAST_TEMPLATE.format(dense=terms["DENSE"], array=terms["ARRAY"],
                                                   bang=terms["BANG"], hash=terms["HASH"],
                                                   angle=terms["ANGLE"]))
        kinds = [None] * (pattern.groups + 1)
        for name, index in pattern.groupindex.items():
            kinds[index] = name
        _FAST_KINDS = kinds
        _FAST_TOKEN = pattern
    return _FAST_TOKEN


# attr_value's `X : type` forms -> the grammar's callbacks (their span ends where the type does).
_TYPED = {"int": Builder._a_int_typed, "float": Builder._a_float_typed, "hex": Builder._a_hex_typed,
          "dense": Builder._a_dense_typed, "string": Builder._a_string_typed}


class _Bail(Exception):
    """The fast path met something it leaves to Lark."""


def _fast_tokens(text: str) -> list[tuple[str, str, int, int]]:
    """(kind, text, start, end) for every token, or _Bail on anything unusual."""
    toks = []
    pos = 0
    match = _tokenizer().match
    kinds = _FAST_KINDS
    while True:
        m = match(text, pos)
        if m is None:
            raise _Bail
        index = m.lastindex
        start, pos = m.span(index)
        kind = kinds[index]
        if kind == "end":
            return toks
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

    def __init__(self, b: Builder, toks):
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
            return b._interpret(Pretty(name, items), nres)
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
                out.append(EQ)
            elif kind == ",":
                out.append(COMMA)
            elif kind == ":":
                out.append(COLON)
            elif kind == "->":
                out.append(ARROW)
            elif kind in _TYPE_KINDS:
                t = self.type_tok(kind, value, start, end)
                out.append(("t", t, b._span2(start, b._te)))
            elif kind == "{":
                d = self.dict_(start)
                out.append(("d", d, d.span))
            elif kind == "<":  # `<{...}>`: properties
                d = self.dict_(self.take("{")[2])
                self.take(">")
                out.append(("p", d, d.span))
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
            elif kind == "locopen":
                out.append(("l", self.loc_rest(), None))
            elif kind == "angle":
                out.append(("<", value, b._span2(start, end)))
            elif kind == "block":
                out.append(("^", value, b._span2(start, end)))
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
            return tensor_simple(value)
        if kind == "token":
            return TokenType()
        if kind == "bang":
            t = b._bang_type(value)
            b._ts, b._te = start, end  # (a nested parse of its body restores them; as t_bang)
            return t
        if kind == "tensoropen":  # `tensor<4x` + a non-simple element type [, encoding] `>` (t_tensor)
            dims = value[7:]
            shape = None if dims == "*x" else tuple(None if d == "?" else int(d) for d in dims.split("x")[:-1])
            t_kind, t_value, t_start, t_end = self.take()
            if t_kind not in _TYPE_KINDS:
                raise _Bail
            elem = self.type_tok(t_kind, t_value, t_start, t_end)
            encoding = None
            if self.peek() == ",":
                self.take()
                encoding = self.attr_value()
            close = self.take(">")
            b._ts, b._te = start, close[3]
            return TensorType(shape, elem, encoding)
        return scalar_type(value)

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
        if kind == "hash":
            return b._hash_attr(value, b._span2(start, end), start)
        if kind == "array":
            return b._a_array(Token("ARRAY", value, start, end_pos=end))
        raise _Bail

    def dict_(self, start: int) -> DictAttr:
        """`{key [= value], ...}` after its `{` (at `start`), as attr_dict."""
        b = self.b
        entries = []
        if self.peek() != "}":
            while True:
                kind, key, ks, ke = self.take()
                if kind in ("word", "elem"):  # (`index = ...`: BARE_ID where a key goes)
                    pass
                elif kind == "string":
                    key = key[1:-1]
                else:
                    raise _Bail
                if self.peek() == "=":
                    self.take()
                    entries.append((key, self.attr_value()))
                else:
                    entries.append((key, UnitAttr(b._span2(ks, ke))))
                if self.peek() == ",":
                    self.take()
                    continue
                break
        rb = self.take("}")
        return DictAttr(tuple(entries), b._span2(start, rb[3]))

    def attr_value(self):
        """One attr_value of the grammar (a dict entry's value, a bracket element)."""
        b = self.b
        kind, value, start, end = self.take()
        if kind in ("int", "float", "hex", "dense", "string"):
            if self.peek() == ":":
                self.take()
                t_kind, t_value, t_start, t_end = self.take()
                if t_kind not in _TYPE_KINDS:
                    raise _Bail
                t = self.type_tok(t_kind, t_value, t_start, t_end)
                tok = Token(kind.upper(), value, start, end_pos=end)
                return _TYPED[kind](b, tok, t)
            return self.attr_tok(kind, value, start, end)
        if kind == "word":
            return b._a_word(Token("BARE_ID", value, start, end_pos=end))
        if kind == "[":
            return b._bracket_attr(self.bracket(start))
        if kind == "{":
            return self.dict_(start)
        if kind in _TYPE_KINDS:
            t = self.type_tok(kind, value, start, end)
            return TypeAttr(t, b._span2(start, b._te))
        if kind == "(":  # a function type: `(T, U) -> V`, `() -> (V, W)`
            ins = self.types(")")
            self.take(")")
            self.take("->")
            if self.peek() == "(":
                self.take()
                outs = self.types(")")
                te = self.take(")")[3]
            else:
                t_kind, t_value, t_start, t_end = self.take()
                if t_kind not in _TYPE_KINDS:
                    raise _Bail
                outs = [self.type_tok(t_kind, t_value, t_start, t_end)]
                te = b._te
            b._ts, b._te = start, te
            return TypeAttr(FunctionType(tuple(ins), tuple(outs)), b._span2(start, te))
        return self.attr_tok(kind, value, start, end)

    def loc(self, value: str):
        inner = value[4:-1]
        return UNKNOWN if inner == "unknown" else LocAlias(inner)

    def loc_rest(self):
        """The rest of `loc(...)` after its `loc(`, as the grammar's loc_inner callbacks read it."""
        loc = self.loc_inner()
        self.take(")")
        return loc

    def loc_inner(self):
        kind, value, _start, _end = self.take()
        if kind == "string":
            name = value[1:-1]
            nk = self.peek()
            if nk == ":":
                self.take()
                line = int(self.take("int")[1])
                self.take(":")
                col = int(self.take("int")[1])
                if self.peek() == "word" and self.toks[self.i][1] == "to":
                    self.take()
                    if self.peek() == ":":
                        self.take()
                        return FileLineColLoc(name, line, col, line, int(self.take("int")[1]))
                    end_line = int(self.take("int")[1])
                    self.take(":")
                    return FileLineColLoc(name, line, col, end_line, int(self.take("int")[1]))
                return FileLineColLoc(name, line, col)
            if nk == "(":
                self.take()
                child = self.loc_inner()
                self.take(")")
                return NameLoc(name, child)
            return NameLoc(name)
        if kind == "hash":
            return LocAlias(value)
        if kind == "word":
            if value == "unknown":
                return UNKNOWN
            if value == "callsite":
                self.take("(")
                callee = self.loc_inner()
                if self.take("word")[1] != "at":
                    raise _Bail
                caller = self.loc_inner()
                self.take(")")
                return CallSiteLoc(callee, caller)
            if value == "fused" and self.peek() == "[":
                self.take()
                locs = []
                if self.peek() != "]":
                    while True:
                        locs.append(self.loc_inner())
                        if self.peek() != ",":
                            break
                        self.take()
                self.take("]")
                return FusedLoc(tuple(locs))
        raise _Bail

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
        """One bracket element: a slice range `a:b[:c]`, a `%value`, or an attr_value."""
        b = self.b
        kind, value, start, end = self.toks[self.i] if self.i < self.n else (None, None, 0, 0)
        if kind == "int" and self.peek(1) == ":" and self.peek(2) == "int":
            self.i += 3
            lim = self.toks[self.i - 1]
            if self.peek() == ":":
                self.take()
                st = self.take("int")
                return Range(int(value), int(lim[1]), int(st[1]), b._span2(start, st[3]))
            return Range(int(value), int(lim[1]), 1, b._span2(start, lim[3]))
        if kind == "value":
            self.i += 1
            return Val(value, b._span2(start, end))
        if kind == "angle":
            self.i += 1
            return Angle(value, b._span2(start, end))
        return self.attr_value()

    def types(self, closer: str | None) -> list:
        out = []
        if closer is not None and self.peek() == closer:
            return out
        while True:
            kind, value, start, end = self.take()
            if kind not in _TYPE_KINDS:
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
        props = None
        if self.peek() == "<":
            self.take()
            props = self.dict_(self.take("{")[2])
            self.take(">")
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
        attrs = None
        if self.peek() == "{":
            attrs = self.dict_(self.take()[2])
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
            if kind not in _TYPE_KINDS:
                raise _Bail
            outs = [self.type_tok(kind, value, start, end)]
        if self.peek() == "loc":
            h.loc = self.loc(self.take()[1])
        elif self.peek() == "locopen":
            self.take()
            h.loc = self.loc_rest()
        if self.i != self.n:
            raise _Bail
        set_dictionaries(h, props, attrs)
        h.operand_types = list(ins)
        h.result_types = list(outs)
        return h


def _with_builder(ctx: ParseCtx, read):
    """read(_Fast over ctx's tokens) with the shared builder pointed at ctx (and
    put back after: a fast parse may run inside another parse); None when the
    text needs the full grammar."""
    try:
        toks = _fast_tokens(ctx.text)
    except _Bail:
        return None
    b = shared_builder()
    saved = (b.ctx, b._ts, b._te)
    b.ctx = ctx
    try:
        return read(_Fast(b, toks))
    except (_Bail, ValueError, AssertionError, RecursionError):  # deep nesting: Lark is iterative
        return None
    finally:
        b.ctx, b._ts, b._te = saved


def fast_parse(ctx: ParseCtx) -> OpHeader | None:
    """The fast path; None when the text needs the full grammar."""
    return _with_builder(ctx, _Fast.op)


def fast_loc(ctx: ParseCtx):
    """A `loc(...)` text (a `#locN = ...` definition's value) on the fast path;
    None when it needs the full grammar. Locations carry no spans."""
    try:
        toks = _fast_tokens(ctx.text)
        if len(toks) == 1 and toks[0][0] == "loc":
            return _Fast(None, toks).loc(toks[0][1])
        if not toks or toks[0][0] != "locopen":
            return None
        p = _Fast(None, toks)
        p.i = 1
        loc = p.loc_rest()
        return loc if p.i == p.n else None
    except (_Bail, ValueError, RecursionError):
        return None


def fast_block_label(ctx: ParseCtx):
    """`^bb0(%a: T, %b: U):` as the grammar's block_label reads it; None when it
    needs the full grammar."""
    return _with_builder(ctx, _block_label)


def _block_label(p: _Fast):
    b = p.b
    p.take("block")
    args = []
    if p.peek() == "(":
        p.take()
        if p.peek() != ")":
            while True:
                name, value, start, end = p.take("value")
                p.take(":")
                t_kind, t_value, t_start, t_end = p.take()
                if t_kind not in _TYPE_KINDS:
                    raise _Bail
                t = p.type_tok(t_kind, t_value, t_start, t_end)
                if p.peek() == "{":  # (barg's attribute dict and location are read, not kept)
                    p.dict_(p.take()[2])
                if p.peek() == "loc":
                    p.take()
                elif p.peek() == "locopen":
                    p.take()
                    p.loc_rest()
                args.append((value, t, b._span2(start, end)))
                if p.peek() != ",":
                    break
                p.take()
        p.take(")")
    p.take(":")
    return args if p.i == p.n else None
