"""MLIR attributes as immutable values. Every attribute may carry the span it was
written at (excluded from equality), so rules can point at `source_target_pairs`
rather than at the whole op."""
from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field
from typing import Any

from .source import Span
from .types import ScalarType, TensorType, Type


class Attribute:
    """Base of all attributes."""

    __slots__ = ()


def _span() -> Any:
    return field(default=None, compare=False, repr=False)


@dataclass(frozen=True, slots=True)
class IntegerAttr(Attribute):
    """`3 : i64` (type None when written bare, e.g. inside a dictionary)."""

    value: int
    type: Type | None = None
    span: Span | None = _span()


@dataclass(frozen=True, slots=True)
class FloatAttr(Attribute):
    """`1.5 : f32`."""

    value: float
    type: Type | None = None
    span: Span | None = _span()


@dataclass(frozen=True, slots=True)
class BoolAttr(Attribute):
    """`true` / `false`."""

    value: bool
    span: Span | None = _span()


@dataclass(frozen=True, slots=True)
class StringAttr(Attribute):
    """`"text"` (escapes decoded)."""

    value: str
    type: Type | None = None
    span: Span | None = _span()


@dataclass(frozen=True, slots=True)
class UnitAttr(Attribute):
    """A name with no value: `{use_global_device_ids}`."""

    span: Span | None = _span()


@dataclass(frozen=True, slots=True)
class TypeAttr(Attribute):
    """A type used as an attribute: `function_type = (i32) -> i32`."""

    type: Type
    span: Span | None = _span()


@dataclass(frozen=True, slots=True)
class ArrayAttr(Attribute):
    """`[a, b, ...]`."""

    elements: tuple[Attribute, ...]
    span: Span | None = _span()


@dataclass(frozen=True, slots=True)
class DenseArrayAttr(Attribute):
    """`array<i64: 1, 2>` (values as Python numbers)."""

    element_type: str
    values: tuple[Any, ...]
    span: Span | None = _span()


@dataclass(frozen=True, slots=True)
class DictAttr(Attribute):
    """`{name = value, ...}`; entries keep their written order."""

    entries: tuple[tuple[str, Attribute], ...]
    span: Span | None = _span()

    def get(self, name: str, default: Attribute | None = None) -> Attribute | None:
        for k, v in self.entries:
            if k == name:
                return v
        return default

    def as_dict(self) -> dict[str, Attribute]:
        return dict(self.entries)


@dataclass(frozen=True, slots=True)
class SymbolRefAttr(Attribute):
    """`@name` or `@a::@b`."""

    root: str
    nested: tuple[str, ...] = ()
    span: Span | None = _span()


@dataclass(frozen=True, slots=True)
class EnumAttr(Attribute):
    """`#stablehlo<comparison_direction LT>`: dialect, enum kind and the value."""

    dialect: str
    kind: str
    value: str
    span: Span | None = _span()


@dataclass(frozen=True, slots=True)
class DialectAttr(Attribute):
    """A dialect attribute `#dialect.name<...>`.

    `params` holds `key = value` parameters when the body is written that way
    (`#stablehlo.channel_handle<handle = 1, type = 2>`), `positional` any other
    parsed parameters, and `text` the whole spelling verbatim.
    """

    dialect: str
    name: str
    params: tuple[tuple[str, Attribute], ...] = ()
    positional: tuple[Any, ...] = ()
    text: str = ""
    span: Span | None = _span()

    def get(self, name: str, default: Attribute | None = None) -> Attribute | None:
        for k, v in self.params:
            if k == name:
                return v
        return default

    def int_param(self, name: str, default: int | None = None) -> int | None:
        v = self.get(name)
        return v.value if isinstance(v, IntegerAttr) else default


@dataclass(frozen=True, slots=True)
class OpaqueAttr(Attribute):
    """Anything else (an alias `#foo`, affine maps, ...), kept verbatim."""

    text: str
    span: Span | None = _span()


_NUMPY_DTYPES = {
    "i1": "bool", "i2": "int8", "i4": "int8", "i8": "int8", "i16": "int16", "i32": "int32", "i64": "int64",
    "si2": "int8", "si4": "int8", "si8": "int8", "si16": "int16", "si32": "int32", "si64": "int64",
    "ui2": "uint8", "ui4": "uint8", "ui8": "uint8", "ui16": "uint16", "ui32": "uint32", "ui64": "uint64",
    "f16": "float16", "f32": "float32", "f64": "float64", "bf16": "float32", "index": "int64",
}


def numpy_dtype(element: Type) -> str:
    """The numpy dtype used to hold values of an element type (bf16/f8 widen to float32)."""
    if isinstance(element, ScalarType):
        if element.name in _NUMPY_DTYPES:
            return _NUMPY_DTYPES[element.name]
        if element.is_float:
            return "float32"
    if getattr(element, "element", None) is not None and "complex" in str(element):
        return "complex128" if "f64" in str(element) else "complex64"
    return "float64"


@dataclass(frozen=True, slots=True)
class DenseElementsAttr(Attribute):
    """`dense<...> : tensor<...>`.

    `literal` is the text between the angle brackets, decoded to numpy only when
    `.array` is asked for (constants in big modules are never decoded unless a
    rule reads them). A hex literal `"0x..."` is raw little-endian data.
    """

    literal: str
    type: Type | None
    span: Span | None = _span()

    @property
    def array(self):  # -> numpy.ndarray
        """The values as numpy (shape from the type). Raises DenseDecodeError for a
        literal that is not a valid dense body."""
        try:
            return _decode_dense(self.literal, self.type)
        except DenseDecodeError:
            raise
        except (ValueError, TypeError, OverflowError, IndexError) as e:
            raise DenseDecodeError(f"malformed dense literal dense<{self.literal[:40]}>: {e}") from e

    @property
    def is_splat(self) -> bool:
        s = self.literal.strip()
        return not s.startswith("[") and not s.startswith('"0x')


@dataclass(frozen=True, slots=True)
class DenseResourceAttr(Attribute):
    """`dense_resource<blob> : tensor<...>`: data lives in the file's dialect_resources."""

    key: str
    type: Type | None
    span: Span | None = _span()


class DenseDecodeError(ValueError):
    """A `dense<...>` body that cannot be read as values of its type."""


_HEX = re.compile(r'^"0x([0-9A-Fa-f]*)"$')
_BOOLS = {"true": "1", "false": "0"}
_TOKENS = re.compile(r"\(|\)|[^\s,\[\]()]+")


@functools.lru_cache(maxsize=8192)
def _decode_dense(literal: str, type_: Type | None):
    """Decode once per (literal, type): rules ask for the same replica groups again
    and again. The array is read-only because it is shared."""
    arr = _decode_dense_uncached(literal, type_)
    arr.setflags(write=False)
    return arr


def _decode_dense_uncached(literal: str, type_: Type | None):
    import numpy as np

    shape: tuple[int, ...] = ()
    dtype = "float64"
    if isinstance(type_, TensorType):
        dtype = numpy_dtype(type_.element)
        if type_.is_static:
            shape = tuple(type_.shape)  # type: ignore[arg-type]
    text = literal.strip()
    if not text:  # `dense<>`: no elements (e.g. tensor<0x0xi64>)
        if shape and 0 not in shape:
            raise DenseDecodeError("dense<> has no elements but the type has some")
        return np.zeros(shape or (0,), dtype=dtype)
    m = _HEX.match(text)
    if m:
        raw = bytes.fromhex(m.group(1))
        elem = type_.element if isinstance(type_, TensorType) else ScalarType("f32")
        name = getattr(elem, "name", "")
        if name == "bf16":
            u16 = np.frombuffer(raw, dtype="<u2").astype(np.uint32) << 16
            arr = u16.view(np.float32)
        elif name == "i1":
            arr = np.frombuffer(raw, dtype=np.uint8).astype(bool)
        else:
            arr = np.frombuffer(raw, dtype=np.dtype(dtype).newbyteorder("<"))
        if arr.size == 1 and shape:
            return np.full(shape, arr[0], dtype=arr.dtype)
        return arr.reshape(shape) if shape else arr.reshape(())
    if text.startswith("("):  # complex splat "(1.0, 2.0)"
        text = text.replace("(", "").replace(")", "")
        re_, im = (float(x) for x in text.split(","))
        return np.full(shape, complex(re_, im))
    if not text.startswith("["):
        value = _scalar(text)
        return np.full(shape, value, dtype=dtype)
    try:
        nested = _nested(text)
    except ValueError as e:  # json.JSONDecodeError is a ValueError
        raise DenseDecodeError(f"cannot read dense<{text[:40]}>") from e
    arr = np.array(nested, dtype=dtype)
    if shape and arr.size == int(np.prod(shape)):
        arr = arr.reshape(shape)
    return arr


def _scalar(tok: str):
    tok = _BOOLS.get(tok, tok)
    if tok.startswith(("0x", "-0x")) and "." not in tok:
        return int(tok, 16)
    try:
        return int(tok)
    except ValueError:
        return float(tok.replace("inf", "inf").replace("nan", "nan"))


def _nested(text: str):
    # Cheap, safe nested-list reader for `[[1, 2], [3, 4]]` (no eval).
    import json

    body = re.sub(r"\btrue\b", "1", re.sub(r"\bfalse\b", "0", text))
    body = re.sub(r"(?<![\w.])(-?)0x([0-9A-Fa-f]+)", lambda m: str(int(m.group(1) + m.group(2), 16)), body)
    body = re.sub(r"\(([^()]*),([^()]*)\)", r"[\1,\2]", body)  # complex pairs
    body = body.replace("inf", "Infinity").replace("nan", "NaN")
    return json.loads(body)
