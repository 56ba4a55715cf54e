"""The fast path: most lines JAX prints are a handful of token kinds; a regex
tokenizer and a small recursive descent produce exactly the items the
grammar's callbacks would and hand them to the same interpreter (~5x faster
than Lark); anything unusual bails out to Lark."""
from __future__ import annotations

import re

from lark import Token

from ..attributes import DenseElementsAttr, FloatAttr, IntegerAttr, StringAttr, SymbolRefAttr, TypeAttr
from ..ir import LocAlias, OpHeader
from ..types import TokenType
from .builder import _Builder
from .ctx import _Ctx
from .runner import _builder
from .values import _ARROW, _COLON, _COMMA, _EQ, _Pretty, _Range, _UNKNOWN, _Val, _scalar, _tensor_simple


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
    except (_Bail, ValueError, AssertionError, RecursionError):  # deep nesting: Lark is iterative
        return None
    finally:
        b.ctx, b._ts, b._te = saved
