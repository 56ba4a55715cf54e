"""Type callbacks of `_Builder`: tensors (simple ones by their text, cached),
complex, tuple, future/async, `!dialect.type<...>` (quantized per-tensor and
per-axis, futures, aliases) and memref."""
from __future__ import annotations

from lark import Transformer, v_args

from ....ir.types import (ComplexType, FunctionType, FutureType, MemRefType, OpaqueType, QuantizedType, ShardType,
                     TensorType, TokenType, TupleType, Type)
from .aliases import _ALIASES
from .pieces import _BANGS, _DIMS_ELEM, _QUANT, _scalar, _split_top, _tensor_simple


@v_args(inline=True)
class _TypeCallbacks(Transformer):
    """Type callbacks of `_Builder`."""

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
                resolved = _ALIASES.type_alias(module, text, self._run)
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
