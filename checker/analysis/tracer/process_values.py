"""Values of the SIMT tracer (checker/spmd.py): what a value is for every
process at once, and how the ops that are not control flow fold.

* an int: the same on every process; an int64 numpy array indexed by
  flattened process id: one value per process (what `partition_id`,
  `replica_id` and the integer arithmetic JAX emits for `axis_index` become);
* `Table`: an integer constant array (a lookup table indexed by the device id);
* `checker.uniform.Uni`: not known, but the same within each class of a
  partition of the processes (uniformity, docs/uniformity.md);
* `Unknown`: not followed (with the reason); `FutureVal`: an async future.

`ValueFolding` holds the folds that do not depend on communication ops
(constants, tables, shardings, integer arithmetic); the tracer mixes it in.
"""
from __future__ import annotations

from typing import Iterable

from ..lazy_numpy import np  # imported on first use (lazy_numpy.py)

from .. import uniform as U
from ...ir.attributes import DenseElementsAttr, EnumAttr, StringAttr
from ...ir.core import Block, Operation, Region, Value
from ...ir.types import ScalarType, TensorType, Type
from ..uniform import Uni

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


def _tdiv(a, b):
    """Integer division rounding toward zero (StableHLO divide on integers)."""
    q = np.floor_divide(a, b)
    fix = (np.remainder(a, b) != 0) & ((np.asarray(a) < 0) != (np.asarray(b) < 0))
    return q + fix


_BINARY = {
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
_COMPARE = {"EQ": "equal", "NE": "not_equal", "LT": "less", "LE": "less_equal",
            "GT": "greater", "GE": "greater_equal"}  # numpy ufunc names (numpy is imported on first use)
_PASS_THROUGH = frozenset({"stablehlo.reshape", "stablehlo.broadcast_in_dim", "stablehlo.broadcast",
                           "stablehlo.bitcast_convert", "stablehlo.optimization_barrier",
                           # Shardy's sharding annotations: the value is unchanged (JAX puts a
                           # sharding_constraint between a partially manual shard_map's
                           # `axis_index == 0` and the case it decides)
                           "sdy.sharding_constraint", "sdy.reshard", "sdy.propagation_barrier"})


def _as_np(x):
    return x if isinstance(x, np.ndarray) else np.int64(x)


def _norm(x):
    """Scalars back to Python ints (cheap uniform values); arrays stay arrays."""
    if isinstance(x, np.ndarray) and x.ndim == 0:
        return int(x)
    if isinstance(x, (np.integer, np.bool_)):
        return int(x)
    if isinstance(x, np.ndarray) and x.dtype != np.int64:
        return x.astype(np.int64)
    return x


class _Frame:
    __slots__ = ("region", "parent", "values")

    def __init__(self, region: Region | None, parent: "_Frame | None"):
        self.region = region
        self.parent = parent
        self.values: dict[Value, object] = {}


def _region_of(v: Value) -> Region | None:
    owner = v.owner
    if isinstance(owner, Block):
        return owner.parent
    block = owner.parent
    return block.parent if block is not None else None


_MISSING = object()
_PER_PROCESS = frozenset({"stablehlo.infeed", "stablehlo.rng"})
"""Ops whose result each process computes on its own (host input, a generator
whose state is per device)."""


def _name_of(v: Value | None) -> str:
    if v is None:
        return "a value"
    owner = v.owner
    if isinstance(owner, Block):
        return f"the argument {v.name}"
    return f"the {_short(owner.name)} at line {_line(owner)}"


def _same(a, b) -> bool:
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


def _join(vals: list, decided_by: Uni):
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


def _line(op: Operation) -> int:
    return op.module.source.line_col(op.span.start)[0]


def _short(name: str) -> str:
    return name.rsplit(".", 1)[-1]


def _merge(parts: Iterable[tuple[np.ndarray, object]]):
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
        return FutureVal(_norm(out) if uniform_value(out) is None else uniform_value(out))
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
        out = np.where(m, _as_np(v), 0 if out is None else out)
    u = uniform_value(out)
    return u if u is not None else _norm(out)


class ValueFolding:
    """Folds of the tracer that need no communication facts (mixed into spmd.Tracer)."""

    def _shard(self, op: Operation, index: int, val):
        """Operand `index` of a manual_computation as each device sees it: its shard
        (the same on devices its in_sharding does not split along the manual axes)."""
        if isinstance(val, (Unknown, FutureVal)):
            return val
        classes = U.manual_arg_classes(op, index, self.module, self.grid)
        if classes is None:
            return val
        src = _name_of(op.operands[index])
        if isinstance(classes, str):
            return U.per_process(self.n, f"{src} ({classes}: taken as per-device data)", op)
        sh = U._sdy_list(op.attr("in_shardings"))
        text = U.sharding_text(sh[index]) if sh else "?"
        origin = U.Origin(f"{src} sharded {text} along the manual axes (each device holds its own shard)", op, classes)
        return U.combine([val, Uni(classes, (origin,))])

    def _entry_arg(self, v: Value) -> object:
        block = self.entry_block
        try:
            index = block.arguments.index(v)  # type: ignore[union-attr]
        except ValueError:
            return Unknown(f"the block argument {v.name} (data)")
        return U.entry_arg(self.entry_func, index, v.name or f"#{index}", self.module, self.grid)  # type: ignore[arg-type]

    def _custom_call(self, op: Operation, frame: _Frame, depth: int) -> list:
        """JAX's GSPMD shard_map markers: @Sharding passes its operand; the result of
        @SPMDFullToShardShape is each device's shard (the same on devices the
        preceding @Sharding does not split); @SPMDShardToFullShape is one logical
        array again. Any other custom call is taken as per-device data."""
        target = op.attr("call_target_name")
        name = target.value if isinstance(target, StringAttr) else ""
        n = max(op.num_results, 1)
        operand = op.operands[0] if op.operands else None
        if name == "Sharding" and operand is not None:
            return [self.value(operand, frame, depth + 1)] * n
        if name == "SPMDShardToFullShape":
            # One logical array again, unless its sharding is still manual along
            # other axes (a shard_map nested in a partially manual one: JAX's
            # `axis_index` there comes out of a full-manual helper): each device
            # then still holds its own value, the one it computed.
            sh = op.attr("mhlo.sharding")
            if operand is not None and sh is not None and "manual" in U.sharding_text(sh):
                return [self.value(operand, frame, depth + 1)] * n
            return [U.UNIFORM] * n
        if name == "SPMDFullToShardShape" and operand is not None:
            val = self.value(operand, frame, depth + 1)
            if isinstance(val, (Unknown, FutureVal)):
                return [val] * n
            src_op = operand.owner
            sh = src_op.attr("mhlo.sharding") if isinstance(src_op, Operation) else None
            text = U.sharding_text(sh) if sh is not None else "{replicated}"
            classes = U.hlo_sharding_classes(text, self.grid)
            if classes is None:
                return [val] * n
            src = _name_of(src_op.operands[0]) if isinstance(src_op, Operation) and src_op.operands and \
                src_op.operands[0] is not None else _name_of(operand)
            if isinstance(classes, str):
                return [U.per_process(self.n, f"{src} ({classes}: taken as per-device data)", op)] * n
            origin = U.Origin(f"{src} sharded {text} (each device holds its own shard)", op, classes)
            return [U.combine([val, Uni(classes, (origin,))])] * n
        return [U.per_process(self.n, f"the custom_call @{name} at line {_line(op)}", op)] * n

    def _table_slice(self, op: Operation, args: list):
        """`dynamic_slice` of a constant table at per-process indices, one element."""
        table = args[0].array
        starts = args[1:]
        sizes = op.attr("slice_sizes")
        if len(starts) != table.ndim or (table.size and any(d < 1 for d in table.shape)):
            return None
        try:
            sz = list(getattr(sizes, "values", None) or [])
        except TypeError:
            sz = []
        if sz and any(int(x) != 1 for x in sz):
            return None
        idx = []
        for s, dim in zip(starts, table.shape):
            a = _as_np(s)
            idx.append(np.broadcast_to(np.clip(a, 0, dim - 1), (self.n,)))
        out = table[tuple(idx)].astype(np.int64)
        return out

    def _table_gather(self, op: Operation, table: np.ndarray, index):
        """`gather` of one element of a constant table at a per-process index (what
        `jnp.take(table, i)` lowers to): the index vector has one component, mapped
        to one table dimension by start_index_map; other dimensions start at 0."""
        dn = op.attr("dimension_numbers")
        params = dict(getattr(dn, "params", ()) or ())
        sim = params.get("start_index_map")
        dims = [e.value for e in getattr(sim, "elements", ())] if sim is not None else []
        if len(dims) != 1 or not (0 <= dims[0] < table.ndim) or table.size == 0:
            return None
        starts = [np.zeros(self.n, dtype=np.int64)] * table.ndim
        d = dims[0]
        starts = list(starts)
        starts[d] = np.broadcast_to(np.clip(_as_np(index), 0, table.shape[d] - 1), (self.n,))
        return table[tuple(starts)].astype(np.int64)

    def _constant(self, op: Operation, elem: ScalarType | None):
        a = op.attr("value")
        if isinstance(a, DenseElementsAttr):
            t = op.result_types[0] if op.result_types else None
            if elem is not None or (isinstance(t, TensorType) and isinstance(t.element, ScalarType)
                                    and t.element.is_integer and t.shape is not None
                                    and int(np.prod(t.shape)) <= TABLE_LIMIT):
                try:
                    arr = a.array
                except Exception:
                    return U.UNIFORM
                if elem is not None and arr.size == 1:
                    return wrap(int(arr.reshape(-1)[0]), elem)
                if elem is None and t is not None and arr.size == int(np.prod(t.shape)):  # type: ignore[union-attr]
                    return Table(np.asarray(arr, dtype=np.int64).reshape(t.shape))  # type: ignore[union-attr]
                if elem is None and arr.size == 1 and t is not None:  # a splat
                    return Table(np.full(t.shape, int(arr.reshape(-1)[0]), dtype=np.int64))  # type: ignore[union-attr]
        return U.UNIFORM

    def _apply(self, op: Operation, name: str, args: list, elem: ScalarType):
        if name in _BINARY and len(args) == 2:
            a, b = args
            if name == "stablehlo.shift_right_logical" and elem.bitwidth and not elem.is_unsigned:
                a = np.bitwise_and(_as_np(a), (1 << elem.bitwidth) - 1)
            return _BINARY[name](_as_np(a), _as_np(b))
        if name in ("stablehlo.divide", "stablehlo.remainder") and len(args) == 2:
            a, b = _as_np(args[0]), _as_np(args[1])
            if bool(np.any(b == 0)):
                return Unknown(f"a division by zero at line {_line(op)}")
            q = _tdiv(a, b)
            return q if name == "stablehlo.divide" else a - b * q
        if name == "stablehlo.negate" and len(args) == 1:
            return -_as_np(args[0])
        if name == "stablehlo.abs" and len(args) == 1:
            return np.abs(_as_np(args[0]))
        if name == "stablehlo.sign" and len(args) == 1:
            return np.sign(_as_np(args[0]))
        if name == "stablehlo.not" and len(args) == 1:
            a = _as_np(args[0])
            return (a == 0).astype(np.int64) if elem.name == "i1" else np.invert(a)
        if name == "stablehlo.compare" and len(args) == 2:
            d = op.attr("comparison_direction")
            direction = d.value if isinstance(d, EnumAttr) else str(getattr(d, "text", d))
            direction = direction.strip().split()[-1].strip(">") if direction else ""
            fn = _COMPARE.get(direction)
            if fn is None:
                return Unknown(f"a compare with direction {direction!r}")
            a, b = _as_np(args[0]), _as_np(args[1])
            ct = op.attr("compare_type")
            if isinstance(ct, EnumAttr) and ct.value == "UNSIGNED":
                a, b = a.astype(np.uint64), b.astype(np.uint64)
            return getattr(np, fn)(a, b).astype(np.int64)
        if name == "stablehlo.select" and len(args) == 3:
            return np.where(_as_np(args[0]) != 0, _as_np(args[1]), _as_np(args[2]))
        if name == "stablehlo.clamp" and len(args) == 3:
            return np.minimum(np.maximum(_as_np(args[1]), _as_np(args[0])), _as_np(args[2]))
        if name == "stablehlo.convert" and len(args) == 1:
            src = op.operand_types[0] if op.operand_types else None
            se = scalar_element(src)
            if se is None:
                return Unknown(f"a convert from {src} at line {_line(op)}")
            return _as_np(args[0])
        if name in _PASS_THROUGH and args:
            return _as_np(args[0])
        return Unknown(f"{_short(name)} at line {_line(op)}", op)

    def _region_returns(self, region: Region, frame: _Frame, args: list) -> list:
        """What `region` returns (folded, nothing executed) when its entry block
        takes `args`: one run of a loop's cond or body."""
        inner = _Frame(region, frame)
        if region.blocks:
            self._bind(region.blocks[0], inner, args)
        return self._returned(region, inner)

    def _fold_uniform_while(self, op: Operation, frame: _Frame, carried: list, pred: Uni) -> list:
        """A loop's results when its trip count is unknown but uniform: what the
        carried values are the same over, after 0, 1 or 2 iterations."""
        body = op.regions[1]
        for _ in range(UNIFORM_WIDEN):
            new = self._region_returns(body, frame, carried)
            if len(new) != len(carried):
                return [Unknown("a malformed while")] * op.num_results
            wide = [_join([c, v], pred) for c, v in zip(carried, new)]
            if all(_same(a, b) for a, b in zip(wide, carried)):
                return wide
            carried = wide
        return [Unknown(f"a while at line {_line(op)} whose carried values do not settle", op)] * op.num_results
