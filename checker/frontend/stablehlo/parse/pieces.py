"""Leaf pieces every other parse module shares: MLIR string unquoting, scalar
and simple tensor types by their text (process-wide caches keyed by the full
text, whose values are immutable), hex float bits, the pretty-form item records
(`("v", name, span)` tuples, `Range`, `Val`, `Angle`, `Axis`, `Marker`,
`Pretty`, `Scan`), re-spanning a cached value (`shifted`), and reading a
pretty op's trailing `: types` into operand/result types."""
from __future__ import annotations

import re
import struct

from lark import Token

from ....ir.attributes import ArrayAttr, Attribute, DictAttr, FloatAttr, StringAttr
from ....ir.core import OpHeader, UnknownLoc
from ....source.text import Span
from ....ir.types import ComplexType, FunctionType, OpaqueType, ScalarType, TensorType, TokenType, Type


# Dialects whose pretty forms shlo-lint knows: a header of theirs that does not
# parse is a syntax error. Any other dialect's custom form that the permissive
# grammar cannot read is taken apart crudely instead (operands, trailing types).
_STRICT_DIALECTS = frozenset({"stablehlo", "chlo", "func", "builtin", "tessera"})

REGION_TOKEN = "«»"


# --------------------------------------------------------------------------- small helpers
_ESC = re.compile(r'\\(["\\nt]|[0-9a-fA-F]{2})')


def unquote(s: str) -> str:
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


def scalar_type(name: str) -> Type:
    t = _SCALARS.get(name)
    if t is None:
        if name == "token":
            t = TokenType()
        elif name == "none":
            t = OpaqueType("none")
        elif name.startswith("complex<"):
            t = ComplexType(scalar_type(name[8:-1]))
        else:
            t = ScalarType(name)
        _SCALARS[name] = t
    return t


_TENSOR_SIMPLE = re.compile(r"tensor<(\*x|(?:(?:[0-9]+|\?)x)*)(.+)>$")
_TENSORS: dict[str, TensorType] = {}


def tensor_simple(text: str) -> TensorType:
    t = _TENSORS.get(text)
    if t is None:
        m = _TENSOR_SIMPLE.match(text)
        assert m is not None
        dims = m.group(1)
        if dims == "*x":
            shape = None
        else:
            shape = tuple(None if d == "?" else int(d) for d in dims.split("x")[:-1])
        t = TensorType(shape, scalar_type(m.group(2)))
        if len(_TENSORS) < 50000:
            _TENSORS[text] = t
    return t


QUANT = re.compile(r"\s*([su]?i[0-9]+(?:<[^>]*>)?)\s*:\s*([A-Za-z0-9_]+)")
BANGS: dict[str, Type] = {}
ENUM_BODY = re.compile(r'\s*([A-Za-z_][\w]*)\s+([A-Za-z_][\w.]*|"(?:[^"\\]|\\.)*")\s*$')
INT_PARAMS = re.compile(r"\s*[A-Za-z_]\w*\s*=\s*-?[0-9]+\s*(?:,\s*[A-Za-z_]\w*\s*=\s*-?[0-9]+\s*)*$")
INT_PARAM = re.compile(r"([A-Za-z_]\w*)\s*=\s*(-?[0-9]+)")
DIMS_ELEM = re.compile(r"(\*x|(?:(?:[0-9]+|\?)x)*)(.*)$", re.S)
I64 = ScalarType("i64")
I32 = ScalarType("i32")
_INT_TYPE = re.compile(r"[su]?i[0-9]+$")


def top_level(body: str, targets: str):
    """The indices of the characters of `targets` that stand outside every
    bracket (`<([{`) and string literal; the `>` of `->` closes nothing."""
    depth = 0
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
        elif depth == 0 and c in targets:
            yield i
        i += 1


def split_top(body: str) -> list[str]:
    """Split on commas outside any bracket or string."""
    parts: list[str] = []
    cur = 0
    for i in top_level(body, ","):
        parts.append(body[cur:i])
        cur = i + 1
    parts.append(body[cur:])
    return parts


def hex_value(text: str, type_: Type | None) -> Attribute | None:
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
EQ = ("=", None, None)
COMMA = (",", None, None)
COLON = (":", None, None)
ARROW = ("->", None, None)
QUESTION = ("?", None, None)
STAR = ("*", None, None)


class Range:
    """`a:b[:c]` inside a pretty bracket (stablehlo.slice)."""

    __slots__ = ("start", "limit", "stride", "span")

    def __init__(self, start: int, limit: int, stride: int, span: Span):
        self.start, self.limit, self.stride, self.span = start, limit, stride, span


class Val:
    """A `%value` inside a bracket."""

    __slots__ = ("name", "span")

    def __init__(self, name: str, span: Span):
        self.name, self.span = name, span


class Angle:
    """An inline `<...>` (sdy sharding / mesh bodies)."""

    __slots__ = ("text", "span")

    def __init__(self, text: str, span: Span):
        self.text, self.span = text, span


class Axis:
    """`"x"=2` inside sdy's mesh brackets."""

    __slots__ = ("name", "size", "span")

    def __init__(self, name: str, size: int, span: Span):
        self.name, self.size, self.span = name, size, span


class Marker:
    __slots__ = ("text", "span")

    def __init__(self, text: str, span: Span | None = None):
        self.text, self.span = text, span


_RECORDS = (Range, Val, Angle, Axis, Marker)


class Pretty:
    __slots__ = ("name", "items")

    def __init__(self, name: Token, items: list):
        self.name, self.items = name, items


class Scan:
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


UNKNOWN = UnknownLoc()


def shifted(value, delta: int):
    """A sub-parse result with every span moved by `delta` (for cache hits).
    Span is a NamedTuple: it is tested before the generic tuple case, which would
    otherwise rebuild it as a plain tuple without `.start`. Deeper than Python's
    recursion limit (a 100,000-deep literal), the same copy is made with a stack."""
    if delta == 0 or value is None:
        return value
    try:
        return _shifted_rec(value, delta)
    except RecursionError:
        return respan(value, lambda s: Span(s.start + delta, s.end + delta))


_FIELD_NAMES: dict[type, tuple[str, ...]] = {}


_PLAIN = frozenset({str, int, float, bool, type(None)})
_new_tuple = tuple.__new__


def _shifted_rec(value, delta: int):
    """_shifted's copy. The common shapes (a Span, a plain list or tuple, an
    attribute of a class seen before) are read by exact type, with spans and
    plain leaves taken in place rather than through a call each (a big module's
    `sdy.manual_computation` header moves thousands of cached shardings).
    Anything else is _shifted_any's, as before."""
    t = type(value)
    if t is Span:
        return _new_tuple(Span, (value[0] + delta, value[1] + delta))
    if t is list or t is tuple:
        out = [v if type(v) in _PLAIN else _shifted_rec(v, delta) for v in value]
        return out if t is list else tuple(out)
    names = _FIELD_NAMES.get(t)
    if names is None:
        return _shifted_any(value, delta)
    args = []
    for v in map(value.__getattribute__, names):
        tv = type(v)
        if tv is Span:
            args.append(_new_tuple(Span, (v[0] + delta, v[1] + delta)))
        elif tv in _PLAIN or not isinstance(v, (tuple, Attribute)):  # (only tuples and attributes nest here)
            args.append(v)
        else:
            args.append(_shifted_rec(v, delta))
    return t(*args)


def _shifted_any(value, delta: int):
    if isinstance(value, Span):
        return Span(value.start + delta, value.end + delta)
    if isinstance(value, list):
        return [_shifted_rec(v, delta) for v in value]
    if isinstance(value, tuple):
        return tuple(_shifted_rec(v, delta) for v in value)
    if isinstance(value, Attribute):  # (a copy through the constructor: dataclasses.replace is ~3x slower)
        cls = type(value)
        names = _FIELD_NAMES.get(cls)
        if names is None:
            names = _FIELD_NAMES[cls] = tuple(cls.__dataclass_fields__)
        return cls(*[_shifted_rec(v, delta) if isinstance(v, (tuple, Attribute)) else v  # Span is a tuple too
                     for v in map(value.__getattribute__, names)])
    if isinstance(value, _RECORDS):
        return _record_respan(value, lambda s: Span(s.start + delta, s.end + delta))
    return value  # types, strings, numbers: no spans


def _record_respan(value, move):
    copy = object.__new__(type(value))
    for name in type(value).__slots__:
        v = getattr(value, name)
        object.__setattr__(copy, name, move(v) if isinstance(v, Span) else v)
    return copy


def respan(value, move):
    """A copy of `value` (lists, tuples, attributes, item records, nested to any
    depth) with every Span replaced by `move(span)`, built bottom-up with an
    explicit stack: no recursion, so no depth the input can choose fails."""
    def children(v):
        if isinstance(v, Span):
            return None
        if isinstance(v, (list, tuple)):
            return list(v)
        if isinstance(v, Attribute):
            return [getattr(v, f) for f in v.__dataclass_fields__]
        return None

    def leaf(v):
        if isinstance(v, Span):
            return move(v)
        if isinstance(v, _RECORDS):
            return _record_respan(v, move)
        return v

    def build(v, parts):
        if isinstance(v, list):
            return parts
        if isinstance(v, tuple):
            return tuple(parts)
        return type(v)(*parts)

    kids = children(value)
    if kids is None:
        return leaf(value)
    frames = [[value, kids, 0, []]]
    while True:
        frame = frames[-1]
        node, kids, i, built = frame
        if i < len(kids):
            frame[2] = i + 1
            child = kids[i]
            grandkids = children(child)
            if grandkids is None:
                built.append(leaf(child))
            else:
                frames.append([child, grandkids, 0, []])
            continue
        frames.pop()
        done = build(node, built)
        if not frames:
            return done
        frames[-1][3].append(done)


# Bare op names as MLIR prints them inside func.func / at top level (as scan.py maps them).
CANON = {"module": "builtin.module", "return": "func.return", "call": "func.call",
          "call_indirect": "func.call_indirect", "constant": "func.constant", "func": "func.func"}


_QUOTED = re.compile(r'"((?:[^"\\]|\\.)*)"')


def manual_axes(body: str, body_abs: int, span: Span) -> ArrayAttr:
    """sdy's manual axes (generic `#sdy<manual_axes{"x"}>`) as an array of axis names."""
    return ArrayAttr(tuple(StringAttr(unquote(m.group(0)), None, Span(body_abs + m.start(), body_abs + m.end()))
                           for m in _QUOTED.finditer(body)), span)


def is_float_text(v: str) -> bool:
    return ("." in v or "e" in v or "E" in v or "inf" in v or "nan" in v) and not v.startswith(("0x", "-0x"))


def decl_group(items: list) -> list[tuple[str, Type | None, Span]] | None:
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


def read_signature(items: list):
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
def assign_types(h: OpHeader, fn: FunctionType | None, types: list | None, nres: int,
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


def known_op(name: str) -> bool:
    """Ops whose syntax errors are reported (the rest fall back quietly)."""
    return name.partition(".")[0] in _STRICT_DIALECTS


# Dialects whose single written type `: T` is the operands' and the result's type.
SAME_TYPE_DIALECTS = frozenset({"stablehlo", "chlo", "sdy", "mhlo", "func"})
