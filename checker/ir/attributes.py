"""MLIR attributes as immutable values. Every attribute may carry the span it was
written at (excluded from equality), so rules can point at `source_target_pairs`
rather than at the whole op."""
from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field
from typing import Any, Protocol

from ..source.text import Span
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


class CompactGroups(Protocol):
    """Replica groups in a compact spelling, as a front end reads them (XLA's iota and
    mesh-axes forms: checker/frontend/hlo/groups.py). Hashable: equal spellings are
    equal keys."""

    num_groups: int
    group_size: int | None

    def group(self, k: int, num_devices: int | None = None) -> tuple[int, ...]: ...

    def group_index_of(self, device: int) -> int | None: ...

    def expand(self, num_devices: int | None = None) -> tuple[tuple[int, ...], ...]: ...


@dataclass(frozen=True, slots=True)
class ReplicaGroupsAttr(Attribute):
    """`replica_groups` kept compact: XLA's iota `[2,4]<=[4,2]T(1,0)` or mesh axes
    `mesh[x=2,y=4] {x}`, which a 16,384-device module prints instead of the groups.
    `groups` answers which group a device is in, group k, and the number and size
    of groups without listing them; `rows()` lists them, once per distinct
    spelling in a process (analyses that need arrays cache them by `key`, so a
    thousand ops with one spelling cost one expansion)."""

    groups: CompactGroups
    text: str
    """The value as written."""
    span: Span | None = _span()

    @property
    def key(self) -> object:
        """Equal for equal spellings (the cache key of anything computed from the groups)."""
        return self.groups

    def rows(self) -> tuple[tuple[int, ...], ...]:
        """Every group, in order (computed once per spelling)."""
        return _expanded(self.groups)


@functools.lru_cache(maxsize=256)
def _expanded(groups: CompactGroups) -> tuple[tuple[int, ...], ...]:
    return groups.expand()


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


_BOOLS = {"true": "1", "false": "0"}


@functools.lru_cache(maxsize=8192)
def _decode_dense(literal: str, type_: Type | None):
    """Decode once per (literal, type): rules ask for the same replica groups again
    and again. The array is read-only because it is shared."""
    import numpy as np

    # A literal that does not fit its type (`dense<1e308> : tensor<ui32>`, SHLO150
    # reports it) is still decoded for the analyses: numpy's cast warning would
    # only print to the user's terminal.
    with np.errstate(all="ignore"):
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
    if text.startswith('"0x') and text.endswith('"') and _HEX_DIGITS.fullmatch(text, 3, len(text) - 1):
        raw = _unhex(text, 3, len(text) - 1)
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
        value = scalar_type(text)
        return np.full(shape, value, dtype=dtype)
    flat, dims = nested_lists(text)
    if len(dims) > 64:  # numpy's limit; no StableHLO tensor type is that deep
        raise DenseDecodeError(f"dense<...> nested {len(dims)} deep: more dimensions than can be held (64)")
    arr = np.array(flat, dtype=dtype).reshape(dims)
    if shape and arr.size == int(np.prod(shape)):
        arr = arr.reshape(shape)
    return arr


def scalar_type(tok: str):
    tok = _BOOLS.get(tok, tok)
    if tok.startswith(("0x", "-0x")) and "." not in tok:
        return int(tok, 16)
    try:
        return int(tok)
    except ValueError:
        return float(tok.replace("inf", "inf").replace("nan", "nan"))


_ELEMENT = re.compile(r"\s*(?:(\[)|(\])|(,)|\(\s*([^()\s,]+)\s*,\s*([^()\s,]+)\s*\)|([^\s,\[\]()]+))")


def nested_lists(text: str) -> tuple[list, tuple[int, ...]]:
    """`[[1, 2], [3, 4]]` -> ([1, 2, 3, 4], (2, 2)): a flat list and the shape,
    read with an explicit stack (no recursion, however deep the nesting: a
    100,000-deep literal is an error message, not a RecursionError). Rows of
    unequal length are a DenseDecodeError."""
    flat: list = []
    dims: list[int | None] = []   # size per depth, fixed by the first row at that depth
    counts: list[int] = []        # elements seen so far in each open bracket
    depth_of_leaves: int | None = None
    pos = 0
    n = len(text)
    done = False
    while pos < n:
        m = _ELEMENT.match(text, pos)
        if m is None or m.end() == pos:
            if text[pos:].strip():
                raise DenseDecodeError(f"cannot read dense<{text[:40]}>: unexpected {text[pos:pos + 10]!r}")
            break
        pos = m.end()
        if done:
            raise DenseDecodeError(f"cannot read dense<{text[:40]}>: text after the closing ']'")
        if m.group(1):
            if counts:
                counts[-1] += 1
            if depth_of_leaves is not None and len(counts) >= depth_of_leaves:
                raise DenseDecodeError(f"cannot read dense<{text[:40]}>: ragged nesting")
            counts.append(0)
            if len(dims) < len(counts):
                dims.append(None)
        elif m.group(2):
            if not counts:
                raise DenseDecodeError(f"cannot read dense<{text[:40]}>: unbalanced ']'")
            k = len(counts) - 1
            c = counts.pop()
            if dims[k] is None:
                dims[k] = c
            elif dims[k] != c:
                raise DenseDecodeError(f"cannot read dense<{text[:40]}>: rows of {dims[k]} and {c} elements")
            done = not counts
        elif m.group(3):
            continue
        else:
            if not counts:
                raise DenseDecodeError(f"cannot read dense<{text[:40]}>: a value outside brackets")
            if depth_of_leaves is None:
                depth_of_leaves = len(counts)
            elif depth_of_leaves != len(counts):
                raise DenseDecodeError(f"cannot read dense<{text[:40]}>: ragged nesting")
            counts[-1] += 1
            try:
                if m.group(4) is not None:
                    flat.append(complex(scalar_type(m.group(4)), scalar_type(m.group(5))))
                else:
                    flat.append(scalar_type(m.group(6)))
            except ValueError as e:
                raise DenseDecodeError(f"cannot read dense<{text[:40]}>: {e}") from None
    if counts or not done:
        raise DenseDecodeError(f"cannot read dense<{text[:40]}>: unbalanced '['")
    if depth_of_leaves is not None and depth_of_leaves != len(dims):  # pragma: no cover - caught above
        raise DenseDecodeError(f"cannot read dense<{text[:40]}>: ragged nesting")
    return flat, tuple(d or 0 for d in dims)


_HEX_DIGITS = re.compile(r"[0-9A-Fa-f]*")
_HEX_CHUNK = 1 << 20


def _unhex(text: str, start: int, end: int) -> bytearray:
    """The bytes of text[start:end] (hex digits), decoded a chunk at a time into
    one buffer: a 50 MB literal costs its 25 MB of bytes, not copies of itself."""
    if (end - start) % 2:
        raise DenseDecodeError("a hex dense literal has an odd number of digits")
    out = bytearray((end - start) // 2)
    j = 0
    for i in range(start, end, _HEX_CHUNK):
        piece = bytes.fromhex(text[i:min(i + _HEX_CHUNK, end)])
        out[j:j + len(piece)] = piece
        j += len(piece)
    return out
