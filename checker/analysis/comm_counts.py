"""Where the communication time goes: how many collectives one run of a module
issues, per kind and group size, and the bytes they move (issue 22, item 3).

`communication_table(module, grid, struct=...)` walks the functions that
communicate (tracer/structure.py says which, by op names) from the entry and
counts each communication op once per time it runs in one execution of the
entry function (a *step*):

* a loop body counts its trip count times: the count XLA proved and wrote into
  the while (`known_trip_count`, semantics.known_trip_count), else the count
  the tracer folds on this program (its per-process trace of the loop, taken
  when some loop without a stated count holds communication and the grid is
  known); a loop neither states nor folds is counted once per entry and the
  table says so (`unknown_trips`: its executions are then a lower bound);
* a function counts once per call, times what encloses the call;
* of a `case` / `if`, one branch runs: per row the largest count of any branch
  (the table then says so: `in_branches`; each row is an upper bound for what
  the branches hold);
* an async pair counts once (its start: the done completes the same
  collective).

Bytes are per device and per execution, from the shapes (elements x element
bits, rounded up to whole bytes; a `pred` is one byte, as XLA stores it), and
for each kind the buffer the collective works over on one device
(`PAYLOAD_MEANING`, source/comm_table.py): the reduced buffer of an all-reduce, the gathered result
of an all-gather, the buffer a reduce-scatter reduces (its result times the
group size), what an all-to-all exchanges, what a permute or a send moves, what
a recv receives. The wire traffic of a bandwidth-optimal (ring) algorithm is a
fixed multiple of it: 2(n-1)/n for an all-reduce over n devices, (n-1)/n for
an all-gather, a reduce-scatter or an all-to-all, 1 for a permute.

The group size is the devices that meet in one group (a row of
`replica_groups`, the whole replica / partition axis when it is empty; in
cross_replica_and_partition mode a row's replicas in every partition); None
for permutes, send and recv (pairs, not groups) and where it is not known.

The cost is one pass over the ops of the communicating functions and the
attributes of their communication ops (which the rules read anyway); the
tracer only runs for loops that state no trip count.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterable

from ..ir.attributes import DenseElementsAttr, ReplicaGroupsAttr
from ..ir.catalog import ASYNC_BODY, BRANCHES, CALL, COMPUTATION, DONE, LOOP, SEND, START, info
from ..ir.core import Block, Module, Operation
from ..ir.types import FutureType, ScalarType, TensorType, TokenType, Type
from ..source.comm_table import CommTable, Row
from .semantics import CROSS_REPLICA_AND_PARTITION, Grid, known_trip_count, strategy
from .tracer.structure import Structure, collective_kind, collective_op, comm_role, structure

_NO_GROUP = frozenset({"collective_permute", "send", "recv"})
TRACE_STEPS = 50_000
"""The tracer's step budget when it folds trip counts for the table."""
TRACE_SECONDS = 2.0
"""... and its time budget."""


# ----------------------------------------------------------------------------- sizes
def type_bytes(t: Type | None) -> int | None:
    """Bytes of one value of type `t` (a `pred`/`i1` element is a byte, as XLA stores
    it); None when not a static tensor."""
    if isinstance(t, TensorType):
        n = t.num_elements
        if n is None:
            return None
        el = t.element
        bits = 8 if isinstance(el, ScalarType) and el.name == "i1" else getattr(el, "bitwidth", None)
        return None if bits is None else (n * bits + 7) // 8
    return None


def _sum_bytes(types: Iterable[Type]) -> int | None:
    total = 0
    for t in types:
        b = type_bytes(t)
        if b is None:
            return None
        total += b
    return total


def collective_results(op: Operation) -> list[Type]:
    """A communication op's own results, without the handles an async or
    point-to-point form adds: futures unwrapped, tokens dropped; an HLO start's
    operand half and context leaves dropped (`all-gather-start`'s `(operands,
    results)`, `collective-permute-start`'s `(operand, result, u32[], u32[])`,
    `reduce-scatter-start`'s `((operands), result, s32[])`: element 1 of its
    shape); for an async start with a body, the results of the collective it
    runs. (XLA's combiners size an op by these.)"""
    view = collective_op(op)
    if view is not op and isinstance(view, Operation):
        op = view
    name = op.name
    if name.startswith("hlo.") and name.endswith("-start") and name != "hlo.all-reduce-start":
        ins = getattr(op, "instruction", None)
        shape = ins.shape if ins is not None else None
        if shape is not None and shape.is_tuple and len(shape.tuple_shapes) >= 2:
            first = len(shape.tuple_shapes[0].leaves())
            return list(op.result_types)[first:first + len(shape.tuple_shapes[1].leaves())]
    out: list[Type] = []
    for t in op.result_types:
        if isinstance(t, FutureType):
            out.extend(t.types)
        elif not isinstance(t, TokenType):
            out.append(t)
    if name == "hlo.send" and len(out) > 1 and _scalar_int(out[-1]):
        out.pop()  # (payload, u32[] context, token[]): the context is no payload
    return out


def _scalar_int(t: Type) -> bool:
    return isinstance(t, TensorType) and t.shape == () and isinstance(t.element, ScalarType) \
        and not t.element.is_float


def payload_bytes(op: Operation, kind: str, group: int | None) -> int | None:
    """Bytes one device works over in one execution of `op` (PAYLOAD_MEANING)."""
    if info(op.name).role == SEND and op.name.startswith("stablehlo."):
        # StableHLO's send returns only a token: the payload is its operands.
        try:
            types = [v.type for v in op.operands if v is not None]
        except Exception:  # noqa: BLE001 - an unparsable header is another rule's finding
            return None
        return _sum_bytes(t for t in types if not isinstance(t, TokenType))
    try:
        got = _sum_bytes(collective_results(op))
    except Exception:  # noqa: BLE001 - an unparsable header is another rule's finding
        return None
    if got is not None and kind == "reduce_scatter":
        return got * group if group else None
    return got


def group_size(op: Operation, kind: str, grid: Grid) -> int | None:
    """Devices in one group of the collective `op` (the module docstring says how)."""
    if kind in _NO_GROUP:
        return None
    view = collective_op(op)
    a = view.attr("replica_groups")
    n: int | None
    if isinstance(a, ReplicaGroupsAttr):
        n = a.groups.group_size
    elif isinstance(a, DenseElementsAttr):
        shape = getattr(a.type, "shape", None)
        n = shape[1] if shape is not None and len(shape) == 2 and shape[0] and shape[1] else None
        if n is None and shape is not None and (not shape or 0 in shape):
            n = grid.axis_size(strategy(view)) if grid.known else None
    elif a is None:
        n = grid.axis_size(strategy(view)) if grid.known else None
    else:
        n = None
    if n is not None and strategy(view) == CROSS_REPLICA_AND_PARTITION:
        n = n * grid.num_partitions if grid.known else None
    return n


# ----------------------------------------------------------------------------- counting
@dataclass
class _Acc:
    """What one block (with what it encloses, calls aside) runs."""

    rows: dict[tuple, Row] = field(default_factory=dict)
    calls: dict[str, int] = field(default_factory=dict)
    """callee → calls per run of the block."""

    def add_row(self, r: Row, times: int = 1) -> None:
        mine = self.rows.get(r.key)
        if mine is None:
            mine = self.rows[r.key] = Row(r.kind, r.group_size)
        mine.ops += r.ops
        mine.executions += r.executions * times
        mine.bytes += r.bytes * times
        mine.async_ops += r.async_ops
        mine.unknown_trips += r.unknown_trips
        mine.in_branches += r.in_branches

    def add(self, other: "_Acc", times: int = 1) -> None:
        for r in other.rows.values():
            self.add_row(r, times)
        for f, n in other.calls.items():
            self.calls[f] = self.calls.get(f, 0) + n * times


@dataclass
class _Loop:
    """A loop with communication whose trip count the text does not state."""

    op: Operation
    func: str
    local: int
    """Runs of the loop per run of its function (its enclosing loops' trips), when exact."""
    exact: bool


class _Counter:
    def __init__(self, module: Module, grid: Grid, struct: Structure):
        self.module, self.grid, self.struct = module, grid, struct
        self.trips: dict[int, int] = {}
        """id(while) → trips folded by the tracer."""
        self.loops: list[_Loop] = []
        self.payload: dict[int, tuple[str, int | None, int | None]] = {}
        """id(op) → (kind, group size, bytes): read once however many passes."""

    # -- one function --------------------------------------------------------------
    def func(self, name: str) -> _Acc:
        acc = _Acc()
        func = self.struct.funcs[name]
        for region in func.regions:
            for block in region.blocks:
                self._block(block, acc, name, 1, True)
        return acc

    def _block(self, block: Block, acc: _Acc, fname: str, local: int, exact: bool) -> None:
        relevant = self.struct.relevant
        callees = self.struct.callees
        for op in block.operations:
            facts = info(op.name)
            role = facts.role
            if role is not None or op.name == "stablehlo.custom_call":
                if role != DONE and comm_role(op) is not None:
                    acc.add_row(self._row(op))
                continue
            if id(op) not in relevant:
                continue
            regions = facts.regions
            if regions == CALL:
                target = callees.get(id(op))
                if target is not None and target in self.struct.comm_funcs:
                    acc.calls[target] = acc.calls.get(target, 0) + 1
            elif regions == LOOP:
                self._loop(op, acc, fname, local, exact)
            elif regions == BRANCHES:
                self._branches(op, acc, fname, local)
            elif regions not in (COMPUTATION, ASYNC_BODY):
                for region in op.regions:
                    for b in region.blocks:
                        self._block(b, acc, fname, local, exact)

    def _loop(self, op: Operation, acc: _Acc, fname: str, local: int, exact: bool) -> None:
        trips = known_trip_count(op)
        unknown = False
        if trips is None:
            trips = self.trips.get(id(op))
            if trips is None:
                self.loops.append(_Loop(op, fname, local, exact))
                trips, unknown = 1, True
        inner = _Acc()
        for i, region in enumerate(op.regions):
            part = _Acc()
            for b in region.blocks:
                self._block(b, part, fname, local * max(trips, 1), exact and not unknown)
            # the condition is evaluated once more than the body runs
            inner.add(part, trips + 1 if i == 0 and len(op.regions) == 2 else trips)
        if unknown:
            for r in inner.rows.values():
                r.unknown_trips = r.ops
        acc.add(inner)

    def _branches(self, op: Operation, acc: _Acc, fname: str, local: int) -> None:
        parts = []
        for region in op.regions:
            part = _Acc()
            for b in region.blocks:
                self._block(b, part, fname, local, False)
            parts.append(part)
        merged = _Acc()
        for part in parts:
            for key, r in part.rows.items():
                m = merged.rows.get(key)
                if m is None:
                    m = merged.rows[key] = Row(r.kind, r.group_size)
                m.ops += r.ops
                m.executions = max(m.executions, r.executions)
                m.bytes = max(m.bytes, r.bytes)
                m.async_ops += r.async_ops
                m.unknown_trips += r.unknown_trips
                m.in_branches += r.ops
            for f, n in part.calls.items():
                merged.calls[f] = max(merged.calls.get(f, 0), n)
        acc.add(merged)

    def _row(self, op: Operation) -> Row:
        got = self.payload.get(id(op))
        if got is None:
            kind = collective_kind(op)
            group = group_size(op, kind, self.grid)
            got = self.payload[id(op)] = (kind, group, payload_bytes(op, kind, group))
        kind, group, size = got
        return Row(kind, group, ops=1, executions=1, bytes=size or 0,
                   async_ops=1 if info(op.name).role == START else 0)


def _order(entry: str, local: dict[str, _Acc]) -> list[str] | None:
    """The communicating functions reachable from `entry`, callers before callees;
    None for a recursive call graph."""
    order: list[str] = []
    state: dict[str, int] = {}

    def visit(f: str) -> bool:
        s = state.get(f)
        if s == 1:
            return False
        if s == 2:
            return True
        state[f] = 1
        for g in local[f].calls:
            if g in local and not visit(g):
                return False
        state[f] = 2
        order.append(f)
        return True

    if not visit(entry):
        return None
    order.reverse()
    return order


def communication_table(module: Module, grid: Grid, *, struct: Structure | None = None) -> CommTable:
    """The module's communication per step (see the module docstring). `struct`: the
    module's structure when the caller has it."""
    struct = struct or structure(module)
    table = CommTable(module.source.path, module.front_end)
    if not struct.communicates or not struct.entries:
        return table
    entry = struct.entries[0]
    table.entry = entry
    counter = _Counter(module, grid, struct)
    mult: dict[str, int] = {}
    totals = _Acc()
    for attempt in range(3):
        counter.loops = []
        local = {f: counter.func(f) for f in struct.comm_funcs if f in struct.funcs}
        if entry not in local:
            return table
        order = _order(entry, local)
        if order is None:
            table.notes.append("the call graph is recursive: nothing counted")
            return table
        mult = {f: 0 for f in order}
        mult[entry] = 1
        for f in order:
            for g, n in local[f].calls.items():
                if g in mult:
                    mult[g] += mult[f] * n
        totals = _Acc()
        for f in order:
            if mult[f]:
                totals.add(local[f], mult[f])
        if attempt or not counter.loops or not _fold_trips(counter, module, grid, struct, mult):
            break
    _finish(table, totals, counter)
    return table


def _fold_trips(counter: _Counter, module: Module, grid: Grid, struct: Structure, mult: dict[str, int]) -> bool:
    """Trip counts of the loops that state none, from the tracer's per-process trace
    (its iterations of a loop, summed over the loop's runs, divided by the runs this
    count found); True when some were found."""
    if not grid.known:
        return False
    from .tracer.tracer import TraceLimit, trace
    import time

    try:
        tr = trace(module, grid, struct, max_steps=TRACE_STEPS, deadline=time.monotonic() + TRACE_SECONDS)
    except (TraceLimit, RecursionError, KeyError, ValueError):
        return False
    # A loop decided by a value that is the same on every device but not known (a
    # psum, an argument) was followed for a representative count: not a trip count.
    guessed = {id(u.op) for u in tr.uniform if u.what == "trip count"} | {id(d.op) for d in tr.divergent}
    found = False
    for loop in counter.loops:
        if id(loop.op) in guessed:
            continue
        got = tr.loops.get(id(loop.op))
        runs = mult.get(loop.func, 0) * loop.local
        if got is None or not loop.exact or runs <= 0:
            continue
        iterations = got[1]
        total = int(iterations.max()) if hasattr(iterations, "max") else int(iterations)
        if total % runs == 0:
            counter.trips[id(loop.op)] = total // runs
            found = True
    return found


def _finish(table: CommTable, totals: _Acc, counter: _Counter) -> None:
    table.rows = sorted(totals.rows.values(), key=lambda r: (-r.bytes, r.kind, r.group_size or 0))
    unknown = sum(r.unknown_trips for r in table.rows)
    branches = sum(r.in_branches for r in table.rows)
    if counter.trips:
        table.notes.append(f"{_plural(len(counter.trips), 'loop')} without a stated trip count counted with the "
                           "trips the tracer folds")
    if unknown:
        table.notes.append(f"{_plural(unknown, 'communication op')} in loops whose trip count is unknown: counted "
                           "once per entry into the loop (a lower bound)")
    if branches:
        table.notes.append(f"{_plural(branches, 'communication op')} in branches: each row counts the branch that "
                           "holds the most (an upper bound)")
    missing = [k for k, (_kind, _g, b) in counter.payload.items() if b is None]
    if missing:
        table.notes.append(f"{_plural(len(missing), 'communication op')} of unknown size (dynamic shapes): no bytes "
                           "counted for them")


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


__all__ = ["collective_results", "communication_table", "group_size", "payload_bytes", "type_bytes"]
