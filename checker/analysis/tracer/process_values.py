"""Values of the SIMT tracer (tracer.py): what a value is for every process at
once, and the tables the tracer folds integer ops with.

* an int: the same on every process; an int64 numpy array indexed by
  flattened process id: one value per process (what `partition_id`,
  `replica_id` and the integer arithmetic JAX emits for `axis_index` become);
* `Table`: an integer constant array (a lookup table indexed by the device id);
* `analysis.uniform.Uni`: not known, but the same within each class of a
  partition of the processes (uniformity, docs/uniformity.md);
* `Unknown`: not followed (with the reason); `FutureVal`: an async future.

Also the helpers the tracer's folds share on such values (`join`, `merge`,
`same_value`, `wrap`) and its frames of values (`Frame`).
"""
from __future__ import annotations

from typing import Iterable

from ..lazy_numpy import np  # imported on first use (lazy_numpy.py)

from .. import uniform as U
from ...ir.core import Block, Operation, Region, Value
from ...ir.types import ScalarType, TensorType, Type
from ..uniform import Uni
from .structure import op_label

class Unknown:
    """A value the tracer cannot compute per process (data, an unsupported op)."""

    __slots__ = ("reason", "op")

    def __init__(self, reason: str, op: Operation | None = None):
        self.reason = reason
        self.op = op

    def __repr__(self) -> str:
        return f"Unknown({self.reason})"


class FutureVal:
    """A future: for each process, the index of the Step that started it (-1: none)."""

    __slots__ = ("ids",)

    def __init__(self, ids):
        self.ids = ids


class Table:
    """An integer constant array, the same on every process (a lookup table JAX
    indexes by the device index: `jnp.array([...])[axis_index("x")]`)."""

    __slots__ = ("array",)

    def __init__(self, array: np.ndarray):
        self.array = array


TABLE_LIMIT = 1 << 16
"""Largest constant (elements) kept as a Table."""
UNIFORM_WIDEN = 6
"""Iterations a loop whose trip count is uniform but unknown may take for its
carried values to settle: the first runs on the values it enters with, the
next ones on the *widened* values (what is the same over every iteration so
far), until widening changes nothing (docs/uniformity.md)."""

NONCOMM_FUTURE = FutureVal(-1)
"""The future of an async op that does not communicate (a slice, seed 002's
generic body): its done waits for nobody."""

Val = "int | np.ndarray | Table | Uni | Unknown | FutureVal"


def scalar_element(t: Type | None) -> ScalarType | None:
    """The element type when `t` is a one-element integer (or i1) tensor."""
    if isinstance(t, TensorType) and t.shape is not None and all(d == 1 for d in t.shape):
        e = t.element
        if isinstance(e, ScalarType) and e.is_integer:
            return e
    return None


def wrap(x, elem: ScalarType | None):
    """Reduce integers to the element type's range (two's complement)."""
    if elem is None:
        return x
    if elem.name == "i1":
        return (np.asarray(x) != 0).astype(np.int64) if isinstance(x, np.ndarray) else int(x != 0)
    bits = elem.bitwidth or 64
    if bits >= 64:
        return x
    mask = (1 << bits) - 1
    if isinstance(x, np.ndarray):
        m = x & mask
        if not elem.is_unsigned:
            m = np.where(m >= (1 << (bits - 1)), m - (1 << bits), m)
        return m
    m = int(x) & mask
    if not elem.is_unsigned and m >= (1 << (bits - 1)):
        m -= 1 << bits
    return m


def uniform_value(x):
    """The one value every process has, or None when it differs between processes."""
    if isinstance(x, np.ndarray):
        if x.size == 0:
            return None
        first = x.flat[0]
        return int(first) if bool(np.all(x == first)) else None
    return int(x)


def truncating_divide(a, b):
    """Integer division rounding toward zero (StableHLO divide on integers)."""
    q = np.floor_divide(a, b)
    fix = (np.remainder(a, b) != 0) & ((np.asarray(a) < 0) != (np.asarray(b) < 0))
    return q + fix


BINARY_FOLDS = {
    "stablehlo.add": lambda a, b: a + b,
    "stablehlo.subtract": lambda a, b: a - b,
    "stablehlo.multiply": lambda a, b: a * b,
    "stablehlo.minimum": lambda a, b: np.minimum(a, b),
    "stablehlo.maximum": lambda a, b: np.maximum(a, b),
    "stablehlo.and": lambda a, b: np.bitwise_and(a, b),
    "stablehlo.or": lambda a, b: np.bitwise_or(a, b),
    "stablehlo.xor": lambda a, b: np.bitwise_xor(a, b),
    "stablehlo.shift_left": lambda a, b: np.left_shift(a, np.clip(b, 0, 63)),
    "stablehlo.shift_right_arithmetic": lambda a, b: np.right_shift(a, np.clip(b, 0, 63)),
    "stablehlo.shift_right_logical": lambda a, b: np.right_shift(a, np.clip(b, 0, 63)),
}
COMPARE_UFUNCS = {"EQ": "equal", "NE": "not_equal", "LT": "less", "LE": "less_equal",
            "GT": "greater", "GE": "greater_equal"}  # numpy ufunc names (numpy is imported on first use)
PASS_THROUGH_OPS = frozenset({"stablehlo.reshape", "stablehlo.broadcast_in_dim", "stablehlo.broadcast",
                           "stablehlo.bitcast_convert", "stablehlo.optimization_barrier",
                           # Shardy's sharding annotations: the value is unchanged (JAX puts a
                           # sharding_constraint between a partially manual shard_map's
                           # `axis_index == 0` and the case it decides)
                           "sdy.sharding_constraint", "sdy.reshard", "sdy.propagation_barrier"})


def as_np(x):
    return x if isinstance(x, np.ndarray) else np.int64(x)


def norm(x):
    """Scalars back to Python ints (cheap uniform values); arrays stay arrays."""
    if isinstance(x, np.ndarray) and x.ndim == 0:
        return int(x)
    if isinstance(x, (np.integer, np.bool_)):
        return int(x)
    if isinstance(x, np.ndarray) and x.dtype != np.int64:
        return x.astype(np.int64)
    return x


class Frame:
    __slots__ = ("region", "parent", "values")

    def __init__(self, region: Region | None, parent: "Frame | None"):
        self.region = region
        self.parent = parent
        self.values: dict[Value, object] = {}


def region_of(v: Value) -> Region | None:
    owner = v.owner
    if isinstance(owner, Block):
        return owner.parent
    block = owner.parent
    return block.parent if block is not None else None


MISSING = object()
PER_PROCESS_OPS = frozenset({"stablehlo.infeed", "stablehlo.rng"})
"""Ops whose result each process computes on its own (host input, a generator
whose state is per device)."""


def name_of(v: Value | None) -> str:
    if v is None:
        return "a value"
    owner = v.owner
    if isinstance(owner, Block):
        return f"the argument {v.name}"
    return f"the {op_label(owner)} at line {line_of(owner)}"


def same_value(a, b) -> bool:
    """Whether two tracer values are the same (for widening to a fixpoint)."""
    if a is b:
        return True
    if isinstance(a, int) and isinstance(b, int):
        return a == b
    if isinstance(a, np.ndarray) and isinstance(b, np.ndarray):
        return a.shape == b.shape and bool(np.all(a == b))
    if isinstance(a, Uni) and isinstance(b, Uni):
        if a.classes is None or b.classes is None:
            return a.classes is None and b.classes is None
        return bool(np.array_equal(a.classes, b.classes))
    return False


def join(vals: list, decided_by: Uni):
    """A value after a uniform decision (branch or loop): unchanged when every
    alternative gives the same one, else the same only where the decision and
    every alternative are."""
    if not vals:
        return Unknown("no value")
    first = vals[0]
    for v in vals:
        if isinstance(v, (Unknown, FutureVal)):
            return v if isinstance(v, Unknown) else Unknown("a future after a uniform decision")
    if all(v is first for v in vals) or (isinstance(first, int) and all(isinstance(v, int) and v == first
                                                                        for v in vals)):
        return first
    return U.combine([decided_by] + [v for v in vals if not isinstance(v, Table)])


def line_of(op: Operation) -> int:
    return op.module.source.line_col(op.span.start)[0]


def merge(parts: Iterable[tuple[np.ndarray, object]]):
    """Per process, the value of the part whose mask holds it (parts are disjoint)."""
    parts = list(parts)
    if not parts:
        return Unknown("no branch ran")
    live = [(m, v) for m, v in parts if m is None or bool(np.any(m))]
    if not live:
        live = parts[:1]
    firsts = [v for _m, v in live]
    if all(v is firsts[0] for v in firsts) and not isinstance(firsts[0], np.ndarray):
        return firsts[0]
    for v in firsts:
        if isinstance(v, Unknown):
            return v
    if all(isinstance(v, FutureVal) for v in firsts):
        out = None
        for m, v in live:
            ids = v.ids  # type: ignore[union-attr]
            out = np.where(m, ids, -1 if out is None else out)
        return FutureVal(norm(out) if uniform_value(out) is None else uniform_value(out))
    if any(isinstance(v, FutureVal) for v in firsts):
        return Unknown("a future on some processes only")
    if any(isinstance(v, (Uni, Table)) for v in firsts):
        # Different values on different (process-id dependent) parts: the same
        # only within a part, and within the part's own classes.
        if any(m is None for m, _v in live):
            return U.combine([v for v in firsts if not isinstance(v, Table)])
        size = live[0][0].size
        part = np.full(size, -1, dtype=np.int64)
        for i, (m, _v) in enumerate(live):
            part[m] = i
        lab = U.labels(part)
        parts = [Uni(lab, (U.Origin("the process id", None, lab),))] if lab is not None else []
        return U.combine(parts + [v for v in firsts if not isinstance(v, Table)])
    out = None
    for m, v in live:
        out = np.where(m, as_np(v), 0 if out is None else out)
    u = uniform_value(out)
    return u if u is not None else norm(out)
