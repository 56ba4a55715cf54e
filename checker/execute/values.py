"""Runtime values of the execution checker: element types → numpy dtypes, tokens,
futures, and the program's inputs (random with a seed, zeros, or an .npz file).

Arrays are numpy on the host; the GPU backend converts at its boundary
(backends.py), so everything here stays backend-neutral.
"""
from __future__ import annotations

import re
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Iterator

import ml_dtypes
import numpy as np

from ..analysis.sharding import ShardingError
from ..ir.types import ComplexType, QuantizedType, ScalarType, TensorType, TokenType, Type


class ExecutionError(Exception):
    """The program cannot be executed: an op the checker does not implement, a
    refused custom_call, a malformed attribute, bad inputs. Carries the op (if
    any) so the report can say file:line; never escapes as a traceback."""

    def __init__(self, message: str, op=None):
        super().__init__(message)
        self.message = message
        self.op = op


class Unsupported(ExecutionError):
    """The interpreter does not run this program: an op it does not implement, a
    custom_call it refuses to call. Outcome "unsupported" (exit 2), as for an XLA
    engine that cannot run a program: `--engine both` then skips its cross-check
    with this reason instead of reporting a mismatch."""


@contextmanager
def sharding_errors() -> Iterator[None]:
    """A sharding the engines cannot run is an ExecutionError here (the analyses
    read the same shardings: analysis.sharding raises its own ShardingError)."""
    try:
        yield
    except ShardingError as e:
        raise ExecutionError(str(e)) from None


class LimitExceeded(Exception):
    """The time or memory limit was reached."""

    def __init__(self, kind: str, message: str):
        super().__init__(message)
        self.kind = kind  # "time" | "memory"
        self.message = message


# ----------------------------------------------------------------------------- dtypes
_INTS = {"i1": np.bool_, "i2": np.int8, "i4": np.int8, "i8": np.int8, "i16": np.int16, "i32": np.int32,
         "i64": np.int64, "si8": np.int8, "si16": np.int16, "si32": np.int32, "si64": np.int64,
         "ui2": np.uint8, "ui4": np.uint8, "ui8": np.uint8, "ui16": np.uint16, "ui32": np.uint32,
         "ui64": np.uint64, "index": np.int64}
_FLOATS = {"f16": np.float16, "f32": np.float32, "f64": np.float64,
           # The narrow floats come from ml_dtypes (a dependency: the field's numpy dtypes
           # for them, the ones jax and XLA use), so `run` computes them on a plain install.
           "bf16": ml_dtypes.bfloat16, "f8E4M3FN": ml_dtypes.float8_e4m3fn, "f8E5M2": ml_dtypes.float8_e5m2,
           "f8E4M3FNUZ": ml_dtypes.float8_e4m3fnuz, "f8E5M2FNUZ": ml_dtypes.float8_e5m2fnuz,
           "f8E4M3B11FNUZ": ml_dtypes.float8_e4m3b11fnuz, "f8E4M3": ml_dtypes.float8_e4m3,
           "f8E3M4": ml_dtypes.float8_e3m4, "f8E8M0FNU": ml_dtypes.float8_e8m0fnu,
           "f4E2M1FN": ml_dtypes.float4_e2m1fn, "f6E2M3FN": ml_dtypes.float6_e2m3fn,
           "f6E3M2FN": ml_dtypes.float6_e3m2fn,
           "tf32": np.float32}  # (tf32 is f32 storage with a narrower multiply on NVIDIA GPUs)


def dtype_of(element: Type) -> np.dtype:
    """The numpy dtype holding one element type; ExecutionError if there is none."""
    if isinstance(element, ScalarType):
        if element.name in _INTS:
            return np.dtype(_INTS[element.name])
        if element.name in _FLOATS:
            return np.dtype(_FLOATS[element.name])
    if isinstance(element, QuantizedType):  # quantized tensors hold their storage integers
        name = element.storage.split("<")[0]
        if name in _INTS:
            return np.dtype(_INTS[name])
    if isinstance(element, ComplexType):
        inner = getattr(element.element, "name", "f32")
        return np.dtype(np.complex128 if inner == "f64" else np.complex64)
    raise ExecutionError(f"element type {element} has no numpy representation here")


def tensor_type(t: Type | None, what: str = "value") -> TensorType:
    if not isinstance(t, TensorType) or not t.is_static:
        raise ExecutionError(f"{what} has type {t}: the execution checker runs statically shaped tensors only")
    return t


def is_float(dt: np.dtype) -> bool:
    return dt.kind == "f" or dt.name in ("bfloat16",) or dt.name.startswith(("float8", "float4", "float6"))


# ----------------------------------------------------------------------------- runtime objects
class Token:
    """!stablehlo.token: carries ordering only."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "token"


TOKEN = Token()


@dataclass(eq=False)
class Future:
    """The value of an async_start / *_start: what its done waits for.

    `wait` is the pending communication (None for a body run eagerly, whose
    `values` are already known); `get()` gives the results once it is ready."""

    op: object
    wait: object | None = None
    get: object | None = None
    values: list | None = None
    consumed: bool = False


@dataclass(eq=False)
class PendingGlobal:
    """One result of sdy.manual_computation (or @SPMDShardToFullShape): a global
    array assembled from every process's shard once they have all produced it."""

    slot: object
    index: int


# ----------------------------------------------------------------------------- constants
_HEX_TOKEN = re.compile(r"^-?0x[0-9A-Fa-f]+$")


_TOKEN = re.compile(r"[^\s,\[\]()]+")


def constant_array(attr, t: TensorType) -> np.ndarray:
    """A dense constant as an array of its declared element type, read exactly:
    integers as Python ints (64-bit extremes included), float bit patterns like
    `0xFF800000` (-inf) reinterpreted at the element's width, complex numbers
    written as `(re, im)` pairs. The hex-blob form `"0x..."` goes through the
    shared decoder."""
    from ..ir.attributes import DenseDecodeError

    dt = dtype_of(t.element)
    text = attr.literal.strip()
    shape = tuple(t.shape)
    if text.startswith('"'):
        try:
            raw = attr.array
        except DenseDecodeError as e:
            raise ExecutionError(str(e)) from None
        if dt.name == "bfloat16":
            raw = np.asarray(raw, dtype=np.float32)
        arr = np.asarray(raw)
    else:
        try:
            arr = _literal_values(_TOKEN.findall(text), dt)
        except (ValueError, OverflowError) as e:
            raise ExecutionError(f"malformed dense literal dense<{text[:60]}>: {e}") from None
    if arr.size == 1 and shape and arr.shape != shape:
        arr = np.full(shape, arr.reshape(()).item(), dtype=arr.dtype)
    try:
        return np.array(arr, dtype=dt).reshape(shape)
    except ValueError as e:
        raise ExecutionError(f"constant does not fit its type {t}: {e}") from None


def _literal_values(tokens: list[str], dt: np.dtype) -> np.ndarray:
    if dt.kind == "c":
        part = np.dtype(np.float64 if dt.itemsize == 16 else np.float32)
        vals = _literal_values(tokens, part)
        return (vals[0::2].astype(np.complex128) + 1j * vals[1::2]).astype(dt)
    if dt == np.bool_:
        return np.array([t == "true" or (t not in ("false",) and int(t, 0) != 0) for t in tokens], dtype=bool)
    if dt.kind in "iu":
        return np.array([1 if t == "true" else 0 if t == "false" else int(t, 0) for t in tokens], dtype=dt)
    if any("0x" in t for t in tokens):
        width = np.dtype(f"u{dt.itemsize}")
        out = []
        for tok in tokens:
            if _HEX_TOKEN.match(tok):
                out.append(np.array(int(tok, 16), dtype=width).view(dt).item())
            else:
                out.append(float(tok))
        return np.array(out, dtype=np.float64).astype(dt) if dt.itemsize > 1 else \
            np.array([np.array(v).astype(dt) for v in out], dtype=dt)
    return np.array(tokens, dtype=np.float64).astype(dt)


# ----------------------------------------------------------------------------- inputs
@dataclass
class Inputs:
    """What the entry function's arguments are bound to.

    kind: "random" (seeded), "zeros", "npz" (path), "values" (`values`, one
    array per argument: what StableHLO's `stablehlo-translate --interpret
    --args=[dense<...> : tensor<...>, ...]` passes) or "arrays" (arrays already
    made, keyed as an .npz: `from_arrays`). For a program whose entry takes
    global arrays (shard_map / GSPMD exports) every process sees the same
    arguments; for a hand-written per-device program each process gets its own."""

    kind: str = "random"
    seed: int = 0
    path: str | None = None
    _npz: dict = field(default_factory=dict, repr=False)
    values: list | None = None

    @staticmethod
    def parse(spec: str, seed: int = 0) -> "Inputs":
        if spec in ("random", "zeros"):
            return Inputs(spec, seed)
        if spec.endswith(".npz"):
            return Inputs("npz", seed, spec)
        raise ExecutionError(f"--inputs must be random, zeros or a FILE.npz, not {spec!r}")

    @staticmethod
    def from_arrays(arrays: dict, described: str) -> "Inputs":
        """Arrays already made, keyed as in an .npz (`arg{i}_{r}_{p}` for one process,
        `arg{i}` for all): what both engines give a module read from HLO text
        (device_inputs.py). `described`: how they were made (`random (seed 0)`)."""
        return Inputs("arrays", path=described, _npz=dict(arrays))

    def describe(self) -> str:
        if self.kind == "arrays":
            return self.path or "given arrays"
        if self.kind == "values":
            return f"{len(self.values or [])} given arrays"
        return {"random": f"random (seed {self.seed})", "zeros": "zeros"}.get(self.kind, f"from {self.path}")

    def _load(self) -> dict:
        if self.kind == "npz" and not self._npz:
            try:
                with np.load(self.path, allow_pickle=False) as data:  # type: ignore[arg-type]
                    self._npz = {k: np.array(data[k]) for k in data.files}
            except (OSError, ValueError) as e:
                raise ExecutionError(f"cannot read inputs {self.path}: {e}") from None
        return self._npz

    def make(self, types: list[Type], process: tuple[int, int] | None, flat: int | None = None) -> list:
        """Argument values for one process (process None: the shared global arguments)."""
        out = []
        for i, t in enumerate(types):
            if isinstance(t, TokenType):
                out.append(TOKEN)
                continue
            tt = tensor_type(t, f"argument {i}")
            dt = dtype_of(tt.element)
            shape = tuple(tt.shape)
            if self.kind == "zeros":
                out.append(np.zeros(shape, dt))
            elif self.kind == "random":
                rng = np.random.default_rng([self.seed, i] if flat is None else [self.seed, i, 1 + flat])
                out.append(_random(rng, shape, dt))
            elif self.kind == "values":
                out.append(self._given(i, tt, dt, len(types)))
            else:
                out.append(self._from_npz(i, tt, dt, process))
        return out

    def _given(self, i: int, tt: TensorType, dt: np.dtype, count: int) -> np.ndarray:
        values = self.values or []
        if len(values) != count:
            raise ExecutionError(f"{len(values)} input{'s' if len(values) != 1 else ''} given, the entry function "
                                 f"takes {count}")
        arr = np.asarray(values[i])
        if tuple(arr.shape) != tuple(tt.shape) or arr.dtype != dt:
            raise ExecutionError(f"input {i} is {arr.dtype}{list(arr.shape)}, argument {i} is {tt}")
        return arr

    def _from_npz(self, i: int, tt: TensorType, dt: np.dtype, process) -> np.ndarray:
        data = self._load()
        keys = []
        if process is not None:
            keys.append(f"arg{i}_{process[0]}_{process[1]}")
        keys += [f"arg{i}", f"arr_{i}"]
        for k in keys:
            if k in data:
                arr = data[k]
                if tuple(arr.shape) != tuple(tt.shape):
                    raise ExecutionError(f"inputs {self.path}: {k} has shape {list(arr.shape)}, "
                                         f"argument {i} is {tt}")
                return arr.astype(dt)
        raise ExecutionError(f"inputs {self.path}: no array for argument {i} (expected one of {', '.join(keys)})")


def _random(rng: np.random.Generator, shape: tuple[int, ...], dt: np.dtype) -> np.ndarray:
    if dt == np.bool_:
        return rng.integers(0, 2, shape).astype(bool)
    if dt.kind in "iu":
        return rng.integers(0, 8, shape).astype(dt)
    if dt.kind == "c":
        return (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(dt)
    return rng.standard_normal(shape).astype(np.float32).astype(dt)


def nbytes(v) -> int:
    return int(getattr(v, "nbytes", 0) or 0)


def summarize(arr) -> dict:
    """A short, comparable summary of an output array."""
    a = np.asarray(arr)
    out: dict = {"shape": list(a.shape), "dtype": str(a.dtype)}
    if a.size and (a.dtype.kind in "fiucb" or is_float(a.dtype)):
        f = a.astype(np.complex128 if a.dtype.kind == "c" else np.float64)
        if a.dtype.kind == "c":
            out.update(sum=[float(f.sum().real), float(f.sum().imag)])
        else:
            out.update(min=float(f.min()), max=float(f.max()), mean=float(f.mean()), sum=float(f.sum()))
    return out
