"""Pretty (custom-assembly) forms: the grammar reads any op's custom form as a
balanced sequence of items; `_PrettyForms._interpret` maps a known op's items
to its real attribute names with the values the generic form would give (the
per-op handlers are in handlers.py) and reads any other op generically, so a
well-formed op of an unknown dialect is an opaque op, never an error."""
from __future__ import annotations

from ....ir.attributes import ArrayAttr, Attribute, BoolAttr, OpaqueAttr, StringAttr, TypeAttr, UnitAttr
from ....ir.core import OpHeader
from ....source.text import Span
from .ctx import BARE_LOCATION
from .handlers import _HANDLERS, _h_default
from .pieces import _CANON, _Pretty, _Scan, _Val, _decl_group, _read_signature


class _PrettyForms:
    """Pretty-form methods of `_Builder`."""

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
        if rest and (handler is not None or canonical.startswith("stablehlo.")):
            self._bare_location(rest)
        (handler or _h_default)(self, h, pre, fn, types, rest, nres)
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

    def _scan(self, items: list, st: _Scan, top: bool = True) -> None:
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
                    decls = _decl_group(v)
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
