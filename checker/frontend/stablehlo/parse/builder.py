"""The Lark callbacks that build IR while parsing (`Builder`): positions
(relative -> absolute through the `ParseCtx` offset map), generic op headers,
pretty-form items and the other start rules; attributes (integers, floats,
strings, `dense<...>`, `array<...>`, dialect attributes, whose bodies `_sub`
parses with their own start rule, cached process-wide for alias-free texts: a
hit equals a fresh parse); types (tensors, simple ones by their text, complex,
tuple, future/async, `!dialect.type<...>`, memref); locations (file:line:col and
ranges, names, call sites, fused locations, `#locN` references kept as
LocAlias); and the pretty-form interpreter, which maps a known op's items to
its real attribute names with the values the generic form would give (the
per-op readers are handlers.py) and reads any other op generically, so a
well-formed op of an unknown dialect is an opaque op, never an error."""
from __future__ import annotations

import bisect
from dataclasses import replace
from typing import Any

from lark import Token, Transformer, Tree, v_args
from lark.exceptions import UnexpectedInput

from ....ir.attributes import (ArrayAttr, Attribute, BoolAttr, DenseArrayAttr, DenseElementsAttr, DenseResourceAttr,
                               DialectAttr, DictAttr, EnumAttr, FloatAttr, IntegerAttr, OpaqueAttr, StringAttr,
                               SymbolRefAttr, TypeAttr, UnitAttr)
from ....ir.core import CallSiteLoc, FileLineColLoc, FusedLoc, LocAlias, NameLoc, OpHeader
from ....source.text import Span
from ....ir.types import (ComplexType, FunctionType, FutureType, MemRefType, OpaqueType, QuantizedType, ShardType,
                          TensorType, TokenType, TupleType, Type)
from .ctx import BARE_LOCATION, ParseCtx
from .pieces import (ARROW, BANGS, CANON, COLON, COMMA, DIMS_ELEM, ENUM_BODY, EQ, I64, INT_PARAM, INT_PARAMS, QUANT,
                     QUESTION, STAR, UNKNOWN, Angle, Axis, Marker, Pretty, Range, Scan, Val, decl_group, hex_value,
                     is_float_text, manual_axes, read_signature, scalar_type, shifted, split_top, tensor_simple,
                     unquote)
from .aliases import ALIASES
from .handlers import HANDLERS, default_handler


def set_dictionaries(h: OpHeader, props, attrs) -> None:
    """A generic op's `<{properties}>` and `{attributes}` into its header: one
    attribute table, the property names remembered (the grammar's callback and
    the fast path, fast.py, both build headers this way)."""
    merged: dict[str, Attribute] = {}
    if props is not None:
        merged.update(props.entries)
        h.properties = frozenset(k for k, _ in props.entries)
    if attrs is not None:
        merged.update(attrs.entries)
    h.attributes = merged


_MISS = object()
# (start rule, text) -> the parse of an alias-free dialect body at offset 0 (see _sub).
_SUB_CACHE: dict[tuple[str, str], Any] = {}
_SUB_CACHE_MAX = 8192


@v_args(inline=True)
class Builder(Transformer):
    """Lark callbacks: build types, attributes, locations and OpHeaders while parsing."""

    def __init__(self, run):
        super().__init__(visit_tokens=False)
        self._run = run  # runner._run: parse a piece with this builder (dialect bodies, aliases)
        self.ctx: ParseCtx | None = None
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
        if isinstance(core, Pretty):
            return self._interpret(core, nres)
        return core

    def results_eq(self, *results):
        return list(results)

    def result(self, tok, count):
        return (tok.value, int(count) if count is not None else 1, self._span(tok))

    def generic_op(self, name, _lp, operands, _rp, succs, props, regions, attrs, fsig, loc):
        h = OpHeader(name=unquote(name.value), name_span=self._span(name), generic=True)
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
        return Pretty(name, list(items))

    # -- pretty items -----------------------------------------------------------------
    def it_value(self, tok):
        return ("v", tok.value, self._span(tok))

    def it_word(self, tok):
        return ("w", tok.value, self._span(tok))

    def it_eq(self):
        return EQ

    def it_comma(self):
        return COMMA

    def it_colon(self):
        return COLON

    def it_arrow(self):
        return ARROW

    def it_question(self):
        return QUESTION

    def it_star(self):
        return STAR

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
        return Range(int(a), int(b), 1, self._span2(a.start_pos, b.end_pos))

    def se_range3(self, a, b, c):
        return Range(int(a), int(b), int(c), self._span2(a.start_pos, c.end_pos))

    def se_value(self, tok):
        return Val(tok.value, self._span(tok))

    def se_angle(self, tok):
        return Angle(tok.value, self._span(tok))

    def se_question(self):
        return Marker("?")

    def se_axis(self, name, size):
        return Axis(unquote(name.value), int(size), self._span2(name.start_pos, size.end_pos))

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
        a = hex_value(tok.value, t)
        if a is not None:
            return replace(a, span=span)
        return IntegerAttr(int(tok.value, 16), t, span)

    a_hex_typed = _a_hex_typed

    def _a_string(self, tok):
        return StringAttr(unquote(tok.value), None, self._span(tok))

    a_string = _a_string

    def _a_string_typed(self, tok, t):
        return StringAttr(unquote(tok.value), t, self._span2(tok.start_pos, self._te))

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
                elif is_float_text(v):
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
        return (unquote(key.value), value if value is not None else UnitAttr(self._span(key)))

    def symbol_ref(self, *syms):
        names = [s.value[1:] for s in syms]
        names = [unquote(n) if n.startswith('"') else n for n in names]
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
        return Marker("->")

    def dv_subaxis(self, lp, a, _rp, b):
        span = self._span2(lp.start_pos, b.end_pos)
        return OpaqueAttr(f"({int(a)}){int(b)}", span)

    # ================================================================= value helpers
    def _hash_attr(self, text: str, span: Span, rel_start: int) -> Attribute:
        lt = text.find("<")
        if lt < 0:
            return self._attr_alias(text, span)
        name = text[1:lt]
        body = text[lt + 1:-1]
        if name == "sdy" and body.startswith("manual_axes"):  # #sdy<manual_axes{"x", "y"}>
            return manual_axes(body, span.start + lt + 1, span)
        m = ENUM_BODY.match(body)
        if m is not None:
            value = m.group(2)
            return EnumAttr(name, m.group(1), unquote(value) if value.startswith('"') else value, span)
        dialect, _, short = name.partition(".")
        if INT_PARAMS.match(body):
            body_abs = span.start + lt + 1
            params = tuple(
                (pm.group(1), IntegerAttr(int(pm.group(2)), None,
                                          Span(body_abs + pm.start(2), body_abs + pm.end(2))))
                for pm in INT_PARAM.finditer(body))
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
        if isinstance(x, Angle):
            if x.text[1:].lstrip().startswith("@"):  # sdy's `<@mesh, [...]>` tensor sharding
                return self._angle_attr(x.text, x.span, "sdy", "sharding")
            return self._angle_attr(x.text, x.span, "", "")
        if isinstance(x, Axis):
            return DictAttr((("name", StringAttr(x.name, None, x.span)),
                             ("size", IntegerAttr(x.size, I64, x.span))), x.span)
        if isinstance(x, Range):
            return OpaqueAttr(self._slice(x.span), x.span)
        if isinstance(x, Val):
            return OpaqueAttr(x.name, x.span)
        if isinstance(x, Marker):
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
        if all(isinstance(e, (Axis, Attribute, Angle)) for e in elems):
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
                    hit = self._run(start, ParseCtx(text, 0))
                except UnexpectedInput:
                    hit = None
                if len(_SUB_CACHE) < _SUB_CACHE_MAX:
                    _SUB_CACHE[key] = hit
            return shifted(hit, abs_start)
        try:
            return self._run(start, ParseCtx(text, abs_start, module))
        except UnexpectedInput:
            return None

    def _attr_alias(self, name: str, span: Span) -> Attribute:
        module = self.ctx.module if self.ctx else None
        if module is not None:
            resolved = ALIASES.attr_alias(module, name, self._run)
            if resolved is not None:
                try:
                    return replace(resolved, span=span)
                except TypeError:  # pragma: no cover - attribute without span
                    return resolved
        return OpaqueAttr(name, span)

    # -- types ----------------------------------------------------------------------------
    def t_tensor_simple(self, tok):
        self._ts, self._te = tok.start_pos, tok.end_pos
        return tensor_simple(tok.value)

    def t_tensor(self, open_, shape, elem, encoding, close):
        self._ts, self._te = open_.start_pos, close.end_pos
        return TensorType(shape, elem, encoding)

    def t_scalar(self, tok):
        self._ts, self._te = tok.start_pos, tok.end_pos
        return scalar_type(tok.value)

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

    def _bang_type(self, text: str) -> Type:
        t = BANGS.get(text)
        if t is not None:
            return t
        lt = text.find("<")
        if lt < 0:
            if text == "!stablehlo.token":
                return TokenType()
            module = self.ctx.module if self.ctx else None
            if module is not None:
                resolved = ALIASES.type_alias(module, text, self._run)
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
            m = QUANT.match(body)
            if m is not None:
                t = QuantizedType(m.group(1), m.group(2), text)
        if t is None:
            t = OpaqueType(text)
        if cacheable and len(BANGS) < 20000:
            BANGS[text] = t
        return t

    def _memref_type(self, text: str) -> Type:
        if not text.startswith("memref<"):
            return OpaqueType(text)
        parts = split_top(text[7:-1])
        m = DIMS_ELEM.match(parts[0].strip())
        dims, elem_text = m.group(1), m.group(2).strip()
        shape = None if dims == "*x" else tuple(None if d == "?" else int(d) for d in dims.split("x")[:-1])
        elem = self._sub(elem_text, 0, "type_only")
        if elem is None:
            elem = OpaqueType(elem_text)
        layout = ",".join(parts[1:]).strip() or None
        return MemRefType(shape, elem, layout)

    # -- locations ------------------------------------------------------------------------
    def loc(self, _open, inner):
        return inner

    def l_unknown(self):
        return UNKNOWN

    def l_file(self, f, line, col):
        return FileLineColLoc(unquote(f.value), int(line), int(col))

    def l_file_range(self, f, line, col, eline, ecol):
        return FileLineColLoc(unquote(f.value), int(line), int(col), int(eline), int(ecol))

    def l_file_range_col(self, f, line, col, ecol):
        return FileLineColLoc(unquote(f.value), int(line), int(col), int(line), int(ecol))

    def l_name(self, s):
        return NameLoc(unquote(s.value))

    def l_name_child(self, s, child):
        return NameLoc(unquote(s.value), child)

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

    # -- pretty forms: a known op's items to its attributes (per-op readers: handlers.py) -------
    # ================================================================= pretty forms
    def _interpret(self, p: Pretty, nres: int) -> OpHeader:
        name = p.name.value
        canonical = CANON.get(name, name)
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
            fn, types, rest = read_signature(items[ci + 1:])
        else:
            pre, fn, types, rest = items, None, None, []
        handler = HANDLERS.get(canonical)
        if rest and (handler is not None or canonical.startswith("stablehlo.")):
            self._bare_location(rest)
        (handler or default_handler)(self, h, pre, fn, types, rest, nres)
        return h

    def _bare_location(self, rest: list) -> None:
        """A string after a StableHLO op's type signature: nothing of its custom form
        goes there (StableHLO's own tests never write one), a location printed
        without `loc(...)` does (`-> tensor<4xf32> "psum"(#loc7)`)."""
        bare = next((it for it in rest if it[0] == "a" and isinstance(it[1], StringAttr)), None)
        module = self.ctx.module if self.ctx is not None else None
        if bare is not None and module is not None and bare[2] is not None:
            module.syntax_errors.append((f"expected loc(...) or the end of the op, got {self._slice(bare[2])}: "
                                         + BARE_LOCATION, bare[2]))

    def _scan(self, items: list, st: Scan, top: bool = True) -> None:
        """Sort a pretty op's items into `st`; parenthesised groups are walked with
        an explicit stack (a group nested 100,000 deep is no recursion)."""
        pending = [(items, 0)]
        while pending:
            items, i = pending.pop()
            n = len(items)
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
                    decls = decl_group(v)
                    if decls is not None:
                        st.decl_groups.append(decls)
                    else:  # the group's items now, then the rest of this list
                        pending.append((items, i + 1))
                        pending.append((v, 0))
                        break
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

    def _bracket_operands(self, item, st: Scan) -> None:
        for e in item[1]:
            if isinstance(e, Val):
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

    def _finish(self, h: OpHeader, st: Scan, known: bool, consumed_kws: set[str] = frozenset()) -> None:
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
