"""MLIR/StableHLO types as immutable, hashable values (equal types compare equal)."""
from __future__ import annotations

import math
import re
from dataclasses import dataclass, field

# Bit widths of the element types StableHLO allows; f8/f6/f4 variants by prefix.
_WIDTH = {"i1": 1, "bf16": 16, "f16": 16, "f32": 32, "f64": 64, "tf32": 32, "index": 64}
_INT = re.compile(r"^(?:s|u)?i(\d+)$")
_FLOAT_SMALL = re.compile(r"^f(\d)E")


MAX_TYPE_DEPTH = 100
"""The deepest type the parser reads (tensor<tensor<...>>, tuple<tuple<...>>): printing,
comparing and hashing a type recurse once per level, so a deeper one is a syntax
error where it is written, not a RecursionError in whatever rule touches it."""


def _depth(types) -> int:
    return 1 + max((getattr(t, "depth", 0) for t in types), default=0)


def _encoding_depth(encoding) -> int:
    """How deep the types in a tensor's encoding attribute sit (a type attribute, or
    lists and dictionaries holding them: `tensor<4xf32, tensor<...>>` nests through
    it), walked with a stack; 0 for none."""
    deepest, stack = 0, [(encoding, 0)]
    while stack:
        attr, level = stack.pop()
        inner = getattr(attr, "type", None)
        if isinstance(inner, Type):
            deepest = max(deepest, inner.depth + level)
        stack.extend((a, level + 1) for a in getattr(attr, "elements", None) or ())
        stack.extend((a, level + 1) for _key, a in getattr(attr, "entries", None) or ())
    return deepest


class Type:
    """Base of all types. `depth`: 0 for a type with no type inside (a scalar, a
    token), else 1 + its deepest inner type's (each nesting type keeps it)."""

    __slots__ = ()
    depth = 0

    def __str__(self) -> str:  # pragma: no cover - overridden
        return repr(self)


@dataclass(frozen=True, slots=True)
class ScalarType(Type):
    """A builtin element type: i1, si32, ui32, i64, f32, bf16, f8E4M3FN, index, ..."""

    name: str
    """The spelling, e.g. "ui32"."""

    @property
    def bitwidth(self) -> int | None:
        if self.name in _WIDTH:
            return _WIDTH[self.name]
        m = _INT.match(self.name)
        if m:
            return int(m.group(1))
        m = _FLOAT_SMALL.match(self.name)
        if m:
            return int(m.group(1))
        return None

    @property
    def is_integer(self) -> bool:
        return bool(_INT.match(self.name))

    @property
    def is_unsigned(self) -> bool:
        return self.name.startswith("ui")

    @property
    def is_float(self) -> bool:
        return self.name.startswith(("f", "bf", "tf")) and not self.is_integer

    @property
    def is_bool(self) -> bool:
        return self.name == "i1"

    def __str__(self) -> str:
        return self.name


@dataclass(frozen=True, slots=True)
class ComplexType(Type):
    """complex<f32>."""

    element: Type
    depth: int = field(default=0, init=False, compare=False, repr=False)

    def __post_init__(self):
        object.__setattr__(self, "depth", getattr(self.element, "depth", 0) + 1)

    @property
    def bitwidth(self) -> int | None:
        w = getattr(self.element, "bitwidth", None)
        return None if w is None else 2 * w

    def __str__(self) -> str:
        return f"complex<{self.element}>"


@dataclass(frozen=True, slots=True)
class QuantizedType(Type):
    """!quant.uniform<storage:expressed, ...>; `text` keeps the parameters verbatim."""

    storage: str
    expressed: str
    text: str

    @property
    def bitwidth(self) -> int | None:
        return ScalarType(self.storage.split("<")[0]).bitwidth

    def __str__(self) -> str:
        return self.text


@dataclass(frozen=True, slots=True)
class TensorType(Type):
    """tensor<2x?x4xf32>; shape None for an unranked tensor<*xf32>, None dims for `?`."""

    shape: tuple[int | None, ...] | None
    element: Type
    encoding: object = None
    """The optional encoding attribute (e.g. a sparsity or bounds attribute)."""
    depth: int = field(default=0, init=False, compare=False, repr=False)

    def __post_init__(self):
        depth = getattr(self.element, "depth", 0)
        if self.encoding is not None:
            depth = max(depth, _encoding_depth(self.encoding))
        object.__setattr__(self, "depth", depth + 1)

    @property
    def rank(self) -> int | None:
        return None if self.shape is None else len(self.shape)

    @property
    def is_static(self) -> bool:
        return self.shape is not None and all(d is not None for d in self.shape)

    @property
    def num_elements(self) -> int | None:
        return math.prod(self.shape) if self.is_static else None  # type: ignore[arg-type]

    @property
    def num_bytes(self) -> int | None:
        n, w = self.num_elements, getattr(self.element, "bitwidth", None)
        return None if n is None or w is None else (n * w + 7) // 8

    def with_shape(self, shape: tuple[int | None, ...]) -> "TensorType":
        return TensorType(shape, self.element, self.encoding)

    def __str__(self) -> str:
        if self.shape is None:
            dims = "*x"
        else:
            dims = "".join(("?" if d is None else str(d)) + "x" for d in self.shape)
        enc = f", {self.encoding}" if self.encoding is not None else ""
        return f"tensor<{dims}{self.element}{enc}>"


@dataclass(frozen=True, slots=True)
class TokenType(Type):
    """!stablehlo.token (also the bare `token` of the spec's examples)."""

    def __str__(self) -> str:
        return "!stablehlo.token"


@dataclass(frozen=True, slots=True)
class FutureType(Type):
    """A handle to the results of an asynchronous operation.

    flavor: "stablehlo" for `!stablehlo.future<T, ...>` (and seed 004's bare
    `future<T>`), "async" for seed 002's `async<T>`, "tessera" for `!tessera.future<T>`.
    """

    types: tuple[Type, ...]
    flavor: str = "stablehlo"
    depth: int = field(default=0, init=False, compare=False, repr=False)

    def __post_init__(self):
        object.__setattr__(self, "depth", _depth(self.types))

    def __str__(self) -> str:
        inner = ", ".join(map(str, self.types))
        return {"async": f"async<{inner}>", "tessera": f"!tessera.future<{inner}>"}.get(
            self.flavor, f"!stablehlo.future<{inner}>")


@dataclass(frozen=True, slots=True)
class ShardType(Type):
    """Seed 003's !tessera.shard<T>."""

    value: Type
    depth: int = field(default=0, init=False, compare=False, repr=False)

    def __post_init__(self):
        object.__setattr__(self, "depth", getattr(self.value, "depth", 0) + 1)

    def __str__(self) -> str:
        return f"!tessera.shard<{self.value}>"


@dataclass(frozen=True, slots=True)
class TupleType(Type):
    """tuple<T, ...>."""

    types: tuple[Type, ...]
    depth: int = field(default=0, init=False, compare=False, repr=False)

    def __post_init__(self):
        object.__setattr__(self, "depth", _depth(self.types))

    def __str__(self) -> str:
        return f"tuple<{', '.join(map(str, self.types))}>"


@dataclass(frozen=True, slots=True)
class FunctionType(Type):
    """(T, ...) -> (R, ...)."""

    inputs: tuple[Type, ...]
    results: tuple[Type, ...]
    depth: int = field(default=0, init=False, compare=False, repr=False)

    def __post_init__(self):
        object.__setattr__(self, "depth", _depth((*self.inputs, *self.results)))

    def __str__(self) -> str:
        res = ", ".join(map(str, self.results))
        if len(self.results) != 1 or isinstance(self.results[0], FunctionType):
            res = f"({res})"
        return f"({', '.join(map(str, self.inputs))}) -> {res}"


@dataclass(frozen=True, slots=True)
class MemRefType(Type):
    """memref<4x8xf32> (seed 003's examples use memrefs); layout kept as text."""

    shape: tuple[int | None, ...] | None
    element: Type
    layout: str | None = None
    depth: int = field(default=0, init=False, compare=False, repr=False)

    def __post_init__(self):
        object.__setattr__(self, "depth", getattr(self.element, "depth", 0) + 1)

    def __str__(self) -> str:
        dims = "".join(("?" if d is None else str(d)) + "x" for d in (self.shape or ()))
        return f"memref<{dims}{self.element}>"


@dataclass(frozen=True, slots=True)
class OpaqueType(Type):
    """Any other type, e.g. `!mydialect.thing<...>`, kept verbatim."""

    text: str

    def __str__(self) -> str:
        return self.text


def is_future(t: Type | None) -> bool:
    return isinstance(t, FutureType)
