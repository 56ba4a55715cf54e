"""Per-op readers of pretty forms (`HANDLERS`): which keyword is which
attribute (`dims` -> `broadcast_dimensions`), enums, `dot_general`'s
contracting dims, slices, reduce/while/func/module/sdy forms, and the default
for every other op. Each takes the builder and the op's items before and after
its trailing `:`."""
from __future__ import annotations

import re
from dataclasses import replace
from typing import Any

from ....ir.attributes import (ArrayAttr, Attribute, DenseArrayAttr, DenseElementsAttr, DenseResourceAttr, DialectAttr,
                               DictAttr, EnumAttr, FloatAttr, IntegerAttr, OpaqueAttr, StringAttr, SymbolRefAttr,
                               TypeAttr)
from ....source.text import Span
from ....ir.types import FunctionType, TensorType, TupleType, Type
from .pieces import I32, I64, Range, SAME_TYPE_DIALECTS, Scan, assign_types, manual_axes


def default_handler(b, h, pre, fn, types, rest, nres, consumed=frozenset()):
    st = Scan()
    b._scan(pre, st)
    if rest:
        b._scan(rest, st)
    known = h.name.partition(".")[0] in SAME_TYPE_DIALECTS
    b._finish(h, st, known, consumed)
    assign_types(h, fn, types, nres, known)
    return st


def _dims(b, vals) -> Attribute:
    """`[0, 1]` -> array<i64: 0, 1> (what the generic form prints)."""
    a = b._value_attr(vals)
    if isinstance(a, ArrayAttr) and all(isinstance(e, IntegerAttr) for e in a.elements):
        return DenseArrayAttr("i64", tuple(e.value for e in a.elements), a.span)
    return a


def _i64(b, vals) -> Attribute:
    a = b._value_attr(vals)
    if isinstance(a, IntegerAttr) and a.type is None:
        return replace(a, type=I64)
    return a


def _enum(kind: str):
    def conv(b, vals) -> Attribute:
        if len(vals) == 1 and vals[0][0] == "w":
            return EnumAttr("stablehlo", kind, vals[0][1], vals[0][2])
        return b._value_attr(vals)
    return conv


def _precision(b, vals) -> Attribute:
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
    st = Scan()
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
    assign_types(h, fn, types, nres, True)
    return st


def _h_constant(b, h, pre, fn, types, rest, nres):
    st = Scan()
    b._scan(pre, st)
    b._finish(h, st, True)
    assign_types(h, fn, types, nres, True)
    if st.positional and "value" not in h.attributes:
        value = b._item_attr(st.positional[0])
        rtype = h.result_types[0] if h.result_types else None
        if isinstance(value, (DenseElementsAttr, DenseResourceAttr, IntegerAttr, FloatAttr)) \
                and value.type is None and rtype is not None:
            value = replace(value, type=rtype)
        h.attributes["value"] = value


def _h_compare(b, h, pre, fn, types, rest, nres):
    st = Scan()
    b._scan(pre, st)
    first_operand = st.operands[0][1].start if st.operands else None
    for w, sp in st.words:
        if first_operand is not None and sp.start < first_operand:
            h.attributes["comparison_direction"] = EnumAttr("stablehlo", "comparison_direction", w, sp)
        else:
            h.attributes["compare_type"] = EnumAttr("stablehlo", "comparison_type", w, sp)
    b._finish(h, st, True)
    assign_types(h, fn, types, nres, False)


def _h_dot_general(b, h, pre, fn, types, rest, nres):
    st = Scan()
    b._scan(pre, st)
    params: list[tuple[str, Attribute]] = []
    consumed = set()
    spans = []
    for kw, vals, sp in st.kws:
        if kw in ("batching_dims", "contracting_dims") and len(vals) == 3 and vals[0][0] == "b" \
                and vals[2][0] == "b":
            which = "batching" if kw == "batching_dims" else "contracting"
            lhs, rhs = b._bracket_attr(vals[0]), b._bracket_attr(vals[2])
            bad = next((a for a in (lhs, rhs) if not isinstance(a, ArrayAttr)), None)
            if bad is not None:  # e.g. `[%x] x [0]`: not dimension numbers
                if b.ctx is not None and b.ctx.module is not None:
                    b.ctx.module.syntax_errors.append(
                        (f"{kw}: expected two lists of dimension numbers, got {getattr(bad, 'text', '?')}", bad.span))
                continue
            params.append((f"lhs_{which}_dimensions", lhs))
            params.append((f"rhs_{which}_dimensions", rhs))
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
    assign_types(h, fn, types, nres, False)


def _array_text(a: Attribute) -> str:
    if isinstance(a, ArrayAttr):
        return "[" + ", ".join(str(getattr(e, "value", "?")) for e in a.elements) + "]"
    return "[]"


def _h_slice(b, h, pre, fn, types, rest, nres):
    st = Scan()
    b._scan(pre, st)
    for it in st.positional:
        if it[0] == "b" and it[1] and all(isinstance(e, Range) for e in it[1]):
            sp = it[2]
            h.attributes["start_indices"] = DenseArrayAttr("i64", tuple(e.start for e in it[1]), sp)
            h.attributes["limit_indices"] = DenseArrayAttr("i64", tuple(e.limit for e in it[1]), sp)
            h.attributes["strides"] = DenseArrayAttr("i64", tuple(e.stride for e in it[1]), sp)
            break
    b._finish(h, st, True)
    assign_types(h, fn, types, nres, False)


def _h_get_tuple_element(b, h, pre, fn, types, rest, nres):
    st = Scan()
    b._scan(pre, st)
    for it in st.positional:
        if it[0] == "b" and len(it[1]) == 1 and isinstance(it[1][0], IntegerAttr):
            h.attributes["index"] = IntegerAttr(it[1][0].value, I32, it[2])
    b._finish(h, st, True)
    assign_types(h, fn, types, nres, False)


def _h_reduce(b, h, pre, fn, types, rest, nres):
    st = Scan()
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
    rst = Scan()
    b._scan(rest, rst)
    if rst.decl_groups:  # reducer(%a: T, %c: T) (%b: U, %d: U): block args are a, b, c, d
        pairs = rst.decl_groups
        if all(len(p) == 2 for p in pairs):
            h.region_args = [[p[0] for p in pairs] + [p[1] for p in pairs]]
        else:
            h.region_args = [[d for p in pairs for d in p]]
    b._finish(h, st, True, consumed)
    assign_types(h, fn, types, nres, False)


def _h_while(b, h, pre, fn, types, rest, nres):
    st = Scan()
    b._scan(pre, st)
    b._finish(h, st, True)
    assign_types(h, fn, types, nres, True)
    tys = h.operand_types or []
    h.region_args = [[(name, tys[i] if i < len(tys) else None, sp)
                      for i, (name, sp) in enumerate(st.iter_args)]]


def _h_select(b, h, pre, fn, types, rest, nres):
    st = Scan()
    b._scan(pre, st)
    b._finish(h, st, True)
    if fn is None and types and len(types) == 2:
        h.operand_types = [types[0], types[1], types[1]]
        h.result_types = [types[1]]
    else:
        assign_types(h, fn, types, nres, True)


def _h_tuple(b, h, pre, fn, types, rest, nres):
    st = Scan()
    b._scan(pre, st)
    b._finish(h, st, True)
    if fn is None and types and len(types) == 1:
        h.result_types = [types[0]]
        if isinstance(types[0], TupleType) and len(types[0].types) == len(h.operands):
            h.operand_types = list(types[0].types)
    else:
        assign_types(h, fn, types, nres, False)


def _h_after_all(b, h, pre, fn, types, rest, nres):
    st = Scan()
    b._scan(pre, st)
    b._finish(h, st, True)
    if fn is None and types and len(types) == 1:
        h.result_types = [types[0]]
        h.operand_types = [types[0]] * len(h.operands)
    else:
        assign_types(h, fn, types, nres, False)


def _h_symbol_call(attr_name: str, as_string: bool):
    def handler(b, h, pre, fn, types, rest, nres):
        st = Scan()
        b._scan(pre, st)
        for i, it in enumerate(st.positional):
            if it[0] == "a" and isinstance(it[1], SymbolRefAttr):
                sym = it[1]
                h.attributes[attr_name] = StringAttr(sym.root, None, sym.span) if as_string else sym
                del st.positional[i]
                break
        b._finish(h, st, True)
        assign_types(h, fn, types, nres, False)
    return handler


def _h_composite(b, h, pre, fn, types, rest, nres):
    st = Scan()
    b._scan(pre, st)
    for it in st.positional:
        if it[0] == "a" and isinstance(it[1], StringAttr):
            h.attributes["name"] = it[1]
            break
    b._finish(h, st, True)
    assign_types(h, fn, types, nres, False)


def _h_reduce_precision(b, h, pre, fn, types, rest, nres):
    st = Scan()
    b._scan(pre, st)
    consumed = set()
    for kw, vals, sp in st.kws:
        if kw == "format" and len(vals) == 1 and vals[0][0] == "w":
            m = re.fullmatch(r"e([0-9]+)m([0-9]+)", vals[0][1])
            if m:
                vs = vals[0][2]
                h.attributes["exponent_bits"] = IntegerAttr(int(m.group(1)), I32, vs)
                h.attributes["mantissa_bits"] = IntegerAttr(int(m.group(2)), I32, vs)
                consumed.add(kw)
    b._finish(h, st, True, consumed)
    assign_types(h, fn, types, nres, True)


def _h_convolution(b, h, pre, fn, types, rest, nres):
    st = Scan()
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
                    ptype = TensorType((rows, 2), I64) if rows is not None else None
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
    assign_types(h, fn, types, nres, False)


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
    st = Scan()
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
            h.attributes[kw] = manual_axes(b._slice(d.span), d.span.start, d.span)
            consumed.add(kw)
    b._finish(h, st, True, consumed)
    assign_types(h, fn, types, nres, False)


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
    st = Scan()
    b._scan(pre, st)
    for i, it in enumerate(st.positional):
        if it[0] == "<":
            h.attributes["sharding"] = replace(b._angle_attr(it[1], it[2], "sdy", "sharding"),
                                               text=f"#sdy.sharding{it[1]}")
            del st.positional[i]
            break
    b._finish(h, st, True)
    assign_types(h, fn, types, nres, True)


HANDLERS = {
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
    HANDLERS.setdefault(_key, _h_keywords)
