"""HLO shapes: `f32[8,16]{1,0}`, `s32[<=4,?]`, `(f32[], token[])`, `b(f32[2])`.

A shape is read from its text on first use and cached by text (a 30 MB module
spells a few hundred distinct shapes 300,000 times). The layout is kept as the
text between its braces (`1,0:T(8,128)S(1)`): the analyses need dimensions,
element types and sizes, not tiling.

Element types are XLA's primitive types (xla/xla_data.proto, lower case). A
type this table does not know (XLA adds them) is read all the same, with no
bit width.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

__all__ = ["Shape", "ShapeError", "ELEMENT_BITS", "SHAPE_PATTERN", "parse_shape", "shape_at"]

# Bits per element as XLA stores them (pred is a byte; s4/u4 and the 4-bit
# floats are half a byte when packed).
ELEMENT_BITS: dict[str, int] = {
    "pred": 8, "s1": 1, "s2": 2, "s4": 4, "s8": 8, "s16": 16, "s32": 32, "s64": 64,
    "u1": 1, "u2": 2, "u4": 4, "u8": 8, "u16": 16, "u32": 32, "u64": 64,
    "f16": 16, "bf16": 16, "f32": 32, "f64": 64, "c64": 64, "c128": 128,
    "f8e5m2": 8, "f8e4m3": 8, "f8e4m3fn": 8, "f8e4m3b11fnuz": 8, "f8e3m4": 8, "f8e5m2fnuz": 8,
    "f8e4m3fnuz": 8, "f8e8m0fnu": 8, "f4e2m1fn": 4,
}
UNBOUNDED = -1
"""The size recorded for a `?` (unbounded dynamic) dimension."""


class ShapeError(ValueError):
    """A shape's text does not read; `offset` is where, relative to the text."""

    def __init__(self, message: str, offset: int):
        super().__init__(message)
        self.message = message
        self.offset = offset


@dataclass(frozen=True, slots=True)
class Shape:
    """One HLO shape: an array, a tuple, a token, an opaque value or a buffer."""

    element_type: str
    """`f32`, `s32`, `pred`, `token`, `opaque`; `tuple` for a tuple, `buffer` for `b(...)`."""
    dims: tuple[int, ...] = ()
    """Dimension sizes, major to minor as written; a bounded dynamic `<=8` records 8, `?` records -1."""
    dynamic: tuple[bool, ...] = ()
    """Per dimension: written `<=N` or `?` (its size is only known at run time)."""
    layout: str | None = None
    """The layout's text between its braces (`1,0`, `1,0:T(8,128)S(1)`), None when not written."""
    tuple_shapes: tuple["Shape", ...] = ()
    """The elements of a tuple (or the one shape a buffer holds); empty otherwise."""

    @property
    def is_tuple(self) -> bool:
        return self.element_type == "tuple"

    @property
    def is_token(self) -> bool:
        return self.element_type == "token"

    @property
    def is_array(self) -> bool:
        return self.element_type not in ("tuple", "token", "opaque", "buffer")

    @property
    def rank(self) -> int:
        return len(self.dims)

    @property
    def element_bits(self) -> int | None:
        """Bits per element; None for tuples, tokens and element types not in ELEMENT_BITS."""
        return ELEMENT_BITS.get(self.element_type)

    @property
    def num_elements(self) -> int | None:
        """Elements of an array (1 for a scalar); None when a dimension is unbounded or not an array."""
        if not self.is_array or UNBOUNDED in self.dims:
            return None
        n = 1
        for d in self.dims:
            n *= d
        return n

    def byte_size(self) -> int | None:
        """Bytes of the data this shape holds, summed over a tuple's leaves (bounded dynamic
        dimensions at their bound, sub-byte types packed); None when unknown."""
        if self.element_type in ("tuple", "buffer"):
            total = 0
            for s in self.tuple_shapes:
                b = s.byte_size()
                if b is None:
                    return None
                total += b
            return total
        if self.element_type == "token":
            return 0
        n, bits = self.num_elements, self.element_bits
        if n is None or bits is None:
            return None
        return (n * bits + 7) // 8

    def leaves(self) -> tuple["Shape", ...]:
        """The non-tuple shapes of a (nested) tuple, in order; (self,) for anything else."""
        if self.element_type != "tuple":
            return (self,)
        out: list[Shape] = []
        for s in self.tuple_shapes:
            out.extend(s.leaves())
        return tuple(out)

    def __str__(self) -> str:
        if self.element_type == "tuple":
            return "(" + ", ".join(str(s) for s in self.tuple_shapes) + ")"
        if self.element_type == "buffer":
            return f"b({self.tuple_shapes[0]})"
        dims = ",".join("?" if d == UNBOUNDED else (f"<={d}" if dyn else str(d))
                        for d, dyn in zip(self.dims, self.dynamic))
        lay = "" if self.layout is None else "{" + self.layout + "}"
        return f"{self.element_type}[{dims}]{lay}"


# A regex (no groups) for the text of a shape as XLA prints it: an array whose
# layout has no braces inside, or a tuple of those nested three deep. The
# structural pass cuts lines with it; parse_shape reads what it cut.
_PAREN3 = r"\((?:[^()\n]|\((?:[^()\n]|\((?:[^()\n]|\([^()\n]*\))*\))*\))*\)"
SHAPE_PATTERN = r"(?:[a-z][a-z0-9]*\[[^\]\n]*\](?:\{[^{}\n]*\})?|" + _PAREN3 + ")"

# The common case in one regex: an array shape with static dimensions and an
# optional layout without nested braces.
_ARRAY = re.compile(r"([a-z][a-z0-9]*)\[([0-9,]*)\](?:\{([0-9:][^{}]*)\})?\Z")
_ELEM = re.compile(r"([a-z][a-z0-9]*)\[")
_DIM = re.compile(r"[ \t\n\r]*(?:(<=)[ \t\n\r]*(-?[0-9]+)|(-?[0-9]+)|(\?))[ \t\n\r]*([,\]])")
# Blanks, and the comments XLA writes into long tuples (`/*index=5*/`).
_WS = re.compile(r"(?:[ \t\n\r]+|/\*.*?\*/)*", re.S)
# A layout's braces: `{` followed by a number or `:` (XLA's look-ahead, so `{}`
# is not a layout), nested parentheses inside (`T(8,128)`), no braces.
_LAYOUT = re.compile(r"\{([ \t\n\r]*[0-9:][^{}]*)\}")


@lru_cache(maxsize=16384)
def parse_shape(text: str) -> Shape:
    """The Shape a whole text spells (surrounding blanks allowed); ShapeError if it does not."""
    m = _ARRAY.match(text)
    if m is not None:
        dims = tuple(int(d) for d in m.group(2).split(",")) if m.group(2) else ()
        return Shape(m.group(1), dims, (False,) * len(dims), m.group(3))
    shape, end = shape_at(text, 0)
    end = _WS.match(text, end).end()
    if end != len(text):
        raise ShapeError(f"unexpected '{text[end]}' after the shape", end)
    return shape


def shape_at(text: str, pos: int) -> tuple[Shape, int]:
    """Read one shape starting at text[pos] (blanks first allowed): (Shape, end offset)."""
    pos = _WS.match(text, pos).end()
    if text.startswith("(", pos):  # a tuple
        pos += 1
        elems: list[Shape] = []
        pos = _WS.match(text, pos).end()
        if text.startswith(")", pos):
            return Shape("tuple"), pos + 1
        while True:
            s, pos = shape_at(text, pos)
            elems.append(s)
            pos = _WS.match(text, pos).end()
            if text.startswith(",", pos):
                pos += 1
                continue
            if text.startswith(")", pos):
                return Shape("tuple", tuple_shapes=tuple(elems)), pos + 1
            raise ShapeError("expected ',' or ')' in a tuple shape", pos)
    if text.startswith("b(", pos):  # a buffer
        inner, pos = shape_at(text, pos + 2)
        pos = _WS.match(text, pos).end()
        if not text.startswith(")", pos):
            raise ShapeError("expected ')' at the end of a buffer shape", pos)
        return Shape("buffer", tuple_shapes=(inner,)), pos + 1
    m = _ELEM.match(text, pos)  # pos is past blanks already
    if m is None:
        raise ShapeError("expected a shape (element type and dimensions, or a tuple)", pos)
    elem = m.group(1)
    pos = m.end()
    dims: list[int] = []
    dynamic: list[bool] = []
    close = _WS.match(text, pos).end()
    if text.startswith("]", close):
        pos = close + 1
    else:
        while True:
            d = _DIM.match(text, pos)
            if d is None:
                raise ShapeError("expected a dimension size, '<=N' or '?'", _WS.match(text, pos).end())
            if d.group(4):
                dims.append(UNBOUNDED)
                dynamic.append(True)
            elif d.group(1):
                dims.append(int(d.group(2)))
                dynamic.append(True)
            else:
                dims.append(int(d.group(3)))
                dynamic.append(False)
            pos = d.end()
            if d.group(5) == "]":
                break
    layout = None
    lay = _LAYOUT.match(text, _WS.match(text, pos).end())
    if lay is not None:
        layout = lay.group(1).strip()
        pos = lay.end()
    return Shape(elem, tuple(dims), tuple(dynamic), layout), pos
