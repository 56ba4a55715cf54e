"""The Lark callbacks that build IR while parsing (`_Builder`): positions
(relative -> absolute through the `_Ctx` offset map), generic op headers,
pretty-form items and the other start rules. Attribute, type and location
callbacks and the pretty-form interpreter are mixins in attrs.py, types.py,
locations.py and pretty.py; the builder is their union."""
from __future__ import annotations

import bisect

from lark import Token, Tree, v_args

from ....ir.attributes import Attribute
from ....ir.core import OpHeader
from ....source.text import Span
from ....ir.types import FunctionType
from .attrs import _AttrCallbacks
from .ctx import _Ctx
from .locations import _LocCallbacks
from .pretty import _PrettyForms
from .types import _TypeCallbacks
from .pieces import (_ARROW, _Angle, _Axis, _COLON, _COMMA, _EQ, _Marker, _Pretty, _QUESTION, _Range, _STAR,
                     _Val, _unquote)


def set_dictionaries(h: OpHeader, props, attrs) -> None:
    """A generic op's `<{properties}>` and `{attributes}` into its header: one
    attribute table, the property names remembered (the grammar's callback and
    the fast path, checker/parse/fast.py, both build headers this way)."""
    merged: dict[str, Attribute] = {}
    if props is not None:
        merged.update(props.entries)
        h.properties = frozenset(k for k, _ in props.entries)
    if attrs is not None:
        merged.update(attrs.entries)
    h.attributes = merged


@v_args(inline=True)
class _Builder(_AttrCallbacks, _TypeCallbacks, _LocCallbacks, _PrettyForms):
    """Lark callbacks: build types, attributes, locations and OpHeaders while parsing."""

    def __init__(self, run):
        super().__init__(visit_tokens=False)
        self._run = run  # runner._run: parse a piece with this builder (dialect bodies, aliases)
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
        set_dictionaries(h, props, attrs)
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
