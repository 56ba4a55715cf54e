"""Attribute callbacks (integers, floats, strings, `dense<...>`, `array<...>`,
`#dialect<...>` bodies, dictionaries, symbol references) and the helpers that
read dialect attribute bodies: `_sub` parses a body with its own start rule,
cached process-wide for alias-free texts (a hit equals a fresh parse)."""
from __future__ import annotations

from dataclasses import replace
from typing import Any

from lark import Transformer, v_args
from lark.exceptions import UnexpectedInput

from ....ir.attributes import (ArrayAttr, Attribute, BoolAttr, DenseArrayAttr, DenseElementsAttr,
                          DenseResourceAttr, DialectAttr, DictAttr, EnumAttr, FloatAttr, IntegerAttr,
                          OpaqueAttr, StringAttr, SymbolRefAttr, TypeAttr, UnitAttr)
from ....source.text import Span
from .aliases import _ALIASES
from .ctx import _Ctx
from .pieces import (_Angle, _Axis, _ENUM_BODY, _I64, _INT_PARAM, _INT_PARAMS, _Marker, _Range, _Val,
                     _hex_value, _is_float_text, _manual_axes, _shifted, _unquote)


_MISS = object()
# (start rule, text) -> the parse of an alias-free dialect body at offset 0 (see _sub).
_SUB_CACHE: dict[tuple[str, str], Any] = {}
_SUB_CACHE_MAX = 8192


@v_args(inline=True)
class _AttrCallbacks(Transformer):
    """Attribute callbacks of `_Builder`."""

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
                    hit = self._run(start, _Ctx(text, 0))
                except UnexpectedInput:
                    hit = None
                if len(_SUB_CACHE) < _SUB_CACHE_MAX:
                    _SUB_CACHE[key] = hit
            return _shifted(hit, abs_start)
        try:
            return self._run(start, _Ctx(text, abs_start, module))
        except UnexpectedInput:
            return None

    def _attr_alias(self, name: str, span: Span) -> Attribute:
        module = self.ctx.module if self.ctx else None
        if module is not None:
            resolved = _ALIASES.attr_alias(module, name, self._run)
            if resolved is not None:
                try:
                    return replace(resolved, span=span)
                except TypeError:  # pragma: no cover - attribute without span
                    return resolved
        return OpaqueAttr(name, span)
