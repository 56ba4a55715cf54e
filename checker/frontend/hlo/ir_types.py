"""HLO shapes as IR types, and the flattening of tuples.

Every HLO value is lowered to its *leaves*: the non-tuple shapes of its
(nested) tuple, in order (one leaf for an array or a token, none for `()`).
A tuple-shaped instruction becomes an op with one result per leaf, a tuple
parameter one block argument per leaf, so a `while` over `(s32[], f32[4])`
is a `stablehlo.while` over two values, as StableHLO writes it
(checker/frontend/hlo/lower.py).

An array leaf is a `tensor<...>` (the layout is dropped: the analyses need
dimensions and element types; bytes come from them), a token `!stablehlo.token`;
a dynamic dimension (`<=8` or `?`) is `?`. Element types follow
xla/xla_data.proto: `pred` -> i1, `s32` -> i32, `u32` -> ui32, `bf16`,
`f8e4m3fn` -> f8E4M3FN, `c64` -> complex<f32>; a type this table does not know
is kept as an opaque type of its own name.
"""
from __future__ import annotations

from functools import lru_cache

from ...ir.types import ComplexType, OpaqueType, ScalarType, TensorType, TokenType, Type
from .shapes import Shape, ShapeError, parse_shape

__all__ = ["ELEMENT_TYPES", "element_type", "leaf_type", "leaves_of", "leaf_types", "leaf_count", "leaf_names"]

ELEMENT_TYPES: dict[str, str] = {
    "pred": "i1",
    "s2": "i2", "s4": "i4", "s8": "i8", "s16": "i16", "s32": "i32", "s64": "i64",
    "u1": "ui1", "u2": "ui2", "u4": "ui4", "u8": "ui8", "u16": "ui16", "u32": "ui32", "u64": "ui64",
    "f16": "f16", "bf16": "bf16", "f32": "f32", "f64": "f64",
    "f8e5m2": "f8E5M2", "f8e4m3": "f8E4M3", "f8e4m3fn": "f8E4M3FN", "f8e4m3b11fnuz": "f8E4M3B11FNUZ",
    "f8e3m4": "f8E3M4", "f8e5m2fnuz": "f8E5M2FNUZ", "f8e4m3fnuz": "f8E4M3FNUZ", "f8e8m0fnu": "f8E8M0FNU",
    "f4e2m1fn": "f4E2M1FN", "f6e2m3fn": "f6E2M3FN", "f6e3m2fn": "f6E3M2FN",
}
"""XLA's primitive type -> the MLIR element type StableHLO spells it with."""
_COMPLEX = {"c64": "f32", "c128": "f64"}


def element_type(name: str) -> Type:
    """The IR element type of an HLO primitive type (`s32` -> i32)."""
    if name in ELEMENT_TYPES:
        return ScalarType(ELEMENT_TYPES[name])
    if name in _COMPLEX:
        return ComplexType(ScalarType(_COMPLEX[name]))
    return OpaqueType(name)


@lru_cache(maxsize=4096)
def leaf_type(shape: Shape) -> Type:
    """One leaf (not a tuple) as an IR type."""
    if shape.is_token:
        return TokenType()
    if shape.element_type in ("opaque", "buffer"):
        return OpaqueType(str(shape))
    dims = tuple(None if dyn else d for d, dyn in zip(shape.dims, shape.dynamic))
    return TensorType(dims, element_type(shape.element_type))


def leaves_of(shape: Shape | None) -> tuple[Shape, ...]:
    """The leaves of a shape (one for None: a value whose shape is not written or does not read)."""
    if shape is None:
        return (Shape("opaque"),)
    return shape.leaves() if shape.is_tuple else (shape,)


@lru_cache(maxsize=16384)
def _leaf_types_of_text(text: str) -> tuple[Type | None, ...]:
    try:
        shape = parse_shape(text)
    except ShapeError:
        return (None,)
    return tuple(leaf_type(s) for s in leaves_of(shape))


def leaf_types(shape_text: str | None) -> tuple[Type | None, ...]:
    """The IR types of the leaves of a shape written `shape_text` (one None when it is not
    written or does not read: the syntax issue is reported where the text is read)."""
    if shape_text is None:
        return (None,)
    return _leaf_types_of_text(shape_text)


def leaf_count(shape_text: str | None) -> int:
    """How many IR values a value of this shape is lowered to."""
    return len(leaf_types(shape_text))


def leaf_names(name: str, count: int) -> list[str]:
    """The IR names of a value's leaves: `%x` for one, `%x#0`, `%x#1`, ... for several
    (as ir.Operation names the results of `%x:2 = ...`)."""
    if count == 1:
        return [f"%{name}"]
    return [f"%{name}#{k}" for k in range(count)]
