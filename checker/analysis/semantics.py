"""Typed views the rules share: the process grid, each collective's strategy and
process groups (SPEC-NOTES §1–2), channels, pairs."""
from __future__ import annotations

import re
from bisect import bisect_right
from dataclasses import dataclass
from typing import Iterable, Iterator

from ..ir.attributes import (ArrayAttr, BoolAttr, DenseArrayAttr, DenseDecodeError, DenseElementsAttr, DialectAttr,
                             IntegerAttr, ReplicaGroupsAttr, UnitAttr)
from ..ir.catalog import GLOBAL_IDS_KINDS, base_kind
from ..ir.core import Module, Operation

CROSS_REPLICA = "cross_replica"
CROSS_PARTITION = "cross_partition"
CROSS_REPLICA_AND_PARTITION = "cross_replica_and_partition"
FLATTENED_IDS = "flattened_ids"

@dataclass(frozen=True)
class Grid:
    """num_replicas × num_partitions processes; `source` says where the numbers came from."""

    num_replicas: int | None
    num_partitions: int | None
    source: str = "module"
    """"module" (mhlo.num_* attributes), "config" (flags / pyproject) or "default"."""

    @property
    def known(self) -> bool:
        return self.num_replicas is not None and self.num_partitions is not None

    @property
    def size(self) -> int | None:
        return self.num_replicas * self.num_partitions if self.known else None  # type: ignore[operator]

    def processes(self) -> "Processes":
        """Every (replica_id, partition_id), in flattened-id order: a lazy sequence
        (len, iteration, indexing, `in`) that costs nothing until iterated, so a
        2^31-process grid is no list of 2^31 tuples."""
        assert self.known
        return Processes(self.num_replicas, self.num_partitions)  # type: ignore[arg-type]

    def flat(self, replica: int, partition: int) -> int:
        return replica * self.num_partitions + partition  # type: ignore[operator]

    def unflat(self, flat: int) -> tuple[int, int]:
        return divmod(flat, self.num_partitions)  # type: ignore[arg-type]

    def axis_size(self, strategy: str) -> int | None:
        """N for id bounds: replicas, partitions, or all processes."""
        if strategy in (CROSS_REPLICA, CROSS_REPLICA_AND_PARTITION):
            return self.num_replicas
        if strategy == CROSS_PARTITION:
            return self.num_partitions
        return self.size


@dataclass(frozen=True)
class Processes:
    """(replica_id, partition_id) for every process of an R x P grid, computed on demand."""

    num_replicas: int
    num_partitions: int

    def __len__(self) -> int:
        return self.num_replicas * self.num_partitions

    def __iter__(self) -> Iterator[tuple[int, int]]:
        for r in range(self.num_replicas):
            for p in range(self.num_partitions):
                yield (r, p)

    def __getitem__(self, i: int) -> tuple[int, int]:
        n = len(self)
        if i < 0:
            i += n
        if not 0 <= i < n:
            raise IndexError(i)
        return divmod(i, self.num_partitions)

    def __contains__(self, rp: object) -> bool:
        return (isinstance(rp, tuple) and len(rp) == 2 and 0 <= rp[0] < self.num_replicas
                and 0 <= rp[1] < self.num_partitions)


def grid_of(module: Module, num_replicas: int | None = None, num_partitions: int | None = None) -> Grid:
    """The module's grid; explicit numbers (flags/config) override the module attributes.
    A module that states one of the two gets 1 for the other (JAX always writes both)."""
    r, p = module.num_replicas, module.num_partitions
    # A count below 1 is no grid (SHLO191 reports it); analyses must not size arrays by it.
    r = r if r is None or r >= 1 else None
    p = p if p is None or p >= 1 else None
    source = "module" if (r is not None or p is not None) else "default"
    if num_replicas is not None or num_partitions is not None:
        source = "config"
        r = num_replicas if num_replicas is not None else r
        p = num_partitions if num_partitions is not None else p
    if source != "default":
        r = 1 if r is None else r
        p = 1 if p is None else p
    return Grid(r, p, source)


# --------------------------------------------------------------------------- op attributes
def channel_id(op: Operation) -> int | None:
    """The channel handle's `handle` (None when the op has no channel_handle)."""
    ch = op.attr("channel_handle")
    if isinstance(ch, DialectAttr):
        return ch.int_param("handle")
    if isinstance(ch, IntegerAttr):
        return ch.value
    return None


def channel_type(op: Operation) -> int | None:
    ch = op.attr("channel_handle")
    return ch.int_param("type") if isinstance(ch, DialectAttr) else None


def flag(op: Operation, name: str) -> bool:
    a = op.attr(name)
    if isinstance(a, UnitAttr):
        return True
    if isinstance(a, BoolAttr):
        return a.value
    if isinstance(a, IntegerAttr):
        return a.value != 0
    return False


def int_attr(op: Operation, name: str) -> int | None:
    a = op.attr(name)
    return a.value if isinstance(a, IntegerAttr) else None


def known_trip_count(op: Operation) -> int | None:
    """The iterations a while is known to run, where its front end states them (XLA
    proves a loop's trip count and writes it into the while's backend config:
    `known_trip_count`, lowered to `hlo.known_trip_count`); None when not stated."""
    n = int_attr(op, "hlo.known_trip_count")
    return n if n is not None and n >= 0 else None


def control_predecessors(op: Operation) -> list[Operation]:
    """The ops of `op`'s block it must run after although it reads none of their
    results: HLO's `control-predecessors={%a, %b}` (lowered to
    `hlo.control_predecessors`, the names), an ordering edge XLA's scheduler keeps.
    Names that are no op of the block are left out."""
    a = op.attr("hlo.control_predecessors")
    block = op.parent
    if not isinstance(a, ArrayAttr) or block is None:
        return []
    names = {e.value for e in a.elements if hasattr(e, "value")}
    return [o for o in block.operations if any(g in names for g, _n in o.result_names)]


def int_list(attr) -> list[int] | None:
    """An i64 list from `array<i64: ...>`, `[1, 2]`, or a 1-D dense constant."""
    if isinstance(attr, DenseArrayAttr):
        return [int(v) for v in attr.values]
    if isinstance(attr, ArrayAttr):
        out = []
        for e in attr.elements:
            if not isinstance(e, IntegerAttr):
                return None
            out.append(e.value)
        return out
    if isinstance(attr, DenseElementsAttr):
        try:
            return [int(v) for v in attr.array.reshape(-1)]
        except (DenseDecodeError, ValueError, OverflowError):
            return None
    return None


def strategy(op: Operation) -> str:
    """Which process-group strategy the op uses (SPEC-NOTES §2)."""
    kind = base_kind(op.name)
    ch = channel_id(op)
    positive = ch is not None and ch > 0
    if kind in GLOBAL_IDS_KINDS:  # all_reduce's rule: the channel, then use_global_device_ids
        if not positive:
            return CROSS_REPLICA
        return FLATTENED_IDS if flag(op, "use_global_device_ids") else CROSS_REPLICA_AND_PARTITION
    return CROSS_PARTITION if positive else CROSS_REPLICA


def dense_array(op: Operation, name: str):
    """Attribute `name` as a numpy array when it is a readable dense constant, else None."""
    a = op.attr(name)
    if not isinstance(a, DenseElementsAttr):
        return None
    try:
        return a.array
    except DenseDecodeError:
        return None


def replica_groups(op: Operation) -> list[list[int]] | None:
    """The `replica_groups` as lists with `-1` padding removed (None if absent or
    written in a form that is not a dense constant or a compact one). A compact
    spelling (ReplicaGroupsAttr: XLA's iota and mesh-axes forms) is listed once per
    spelling; analyses over many ops cache what they compute from it by its key."""
    a = op.attr("replica_groups")
    if isinstance(a, ReplicaGroupsAttr):
        return [list(g) for g in a.rows()]
    arr = dense_array(op, "replica_groups")
    if arr is None:
        return None
    if arr.ndim == 1 and arr.size == 0:
        return []
    if arr.ndim != 2:
        return None
    return [[int(v) for v in row if v != -1] for row in arr]


def source_target_pairs(op: Operation) -> list[tuple[int, int]] | None:
    """The pairs as (source, target) tuples (None if absent, unreadable or not [k, 2])."""
    arr = dense_array(op, "source_target_pairs")
    if arr is None:
        return None
    if arr.size == 0:
        return []
    if arr.ndim != 2 or arr.shape[1] != 2:
        return None
    return [(int(s), int(t)) for s, t in arr]


def process_groups(grid: Grid, strategy_name: str, groups: Iterable[Iterable[int]] | None
                   ) -> list[list[tuple[int, int]]]:
    """The spec's process groups: lists of (replica_id, partition_id) that rendezvous.

    An empty or missing `groups` means one group of every id on the strategy's axis.
    This materialises every group: its size grows with the grid. Rules that only
    look at a few groups use `iter_process_groups`.
    """
    return list(iter_process_groups(grid, strategy_name, groups))


def iter_process_groups(grid: Grid, strategy_name: str, groups: Iterable[Iterable[int]] | None
                        ) -> Iterator[list[tuple[int, int]]]:
    """`process_groups`, one group at a time (take the first few with itertools.islice)."""
    assert grid.known
    R, P = grid.num_replicas, grid.num_partitions
    groups = [list(g) for g in groups] if groups is not None else []
    if not groups:
        n = grid.axis_size(strategy_name)
        groups = [range(n)]  # type: ignore[list-item,arg-type]
    if strategy_name == CROSS_REPLICA:
        for g in groups:
            for p in range(P):  # type: ignore[arg-type]
                yield [(r, p) for r in g]
    elif strategy_name == CROSS_PARTITION:
        for g in groups:
            for r in range(R):  # type: ignore[arg-type]
                yield [(r, p) for p in g]
    elif strategy_name == CROSS_REPLICA_AND_PARTITION:
        for g in groups:
            # The spec's order (partition-major), which all_gather's concatenation follows.
            yield [(r, p) for p in range(P) for r in g]  # type: ignore[arg-type]
    elif strategy_name == FLATTENED_IDS:
        for g in groups:
            yield [grid.unflat(i) for i in g]
    else:  # pragma: no cover
        raise ValueError(strategy_name)


# --------------------------------------------------------------------------- calls, def-use
def call_graph(module: Module) -> dict[str, list[tuple[Operation, str]]]:
    """func name → the (func.call op, callee name) pairs in its body (nested regions
    included). JAX outlines loop bodies and shard_map bodies into private funcs
    (`@closed_call`, `@shmap_body`), so analyses follow these edges."""
    from ..ir.core import callee

    graph: dict[str, list[tuple[Operation, str]]] = {}
    for name, func in module.funcs.items():
        edges = graph.setdefault(name, [])
        for op in func.walk():
            if op.name == "func.call" and (target := callee(op)) is not None:
                edges.append((op, target))
    return graph


def reachable_funcs(module: Module, root: str) -> list[str]:
    """Funcs reachable from `root` through calls, root first, each once."""
    graph = call_graph(module)
    seen: list[str] = []
    stack = [root]
    while stack:
        name = stack.pop()
        if name in seen or name not in graph:
            continue
        seen.append(name)
        stack.extend(reversed([t for _op, t in graph[name]]))
    return seen


def uses(scope: Operation) -> dict[object, list[Operation]]:
    """Value → the ops (nested in `scope`) that use it, for def-use queries.
    Parses the headers of every op in `scope`; call it on a func, not a module."""
    table: dict[object, list[Operation]] = {}
    for op in scope.walk():
        if op is scope:
            continue
        for v in op.operands:
            if v is not None:
                table.setdefault(v, []).append(op)
    return table


# --------------------------------------------------------------------------- def-use from the text
_SSA_NAME = re.compile(r"%[\w$.\-]+")


class BlockFlow:
    """Def-use among the ops of one block, read from their text with a regex (no
    header parse, so it stays cheap on a 300k-op block).

    An op *mentions* every `%name` in its text, nested regions included (`%0#1`
    counts as `%0`; its own result names too, which never matter: a value is
    not used before it is defined), so a use inside an op's region counts as a
    use by that op. Names are unique within a function as printers write them; a
    stray match (a `%` inside a string) can only add a dependence, never hide one,
    which keeps every question asked here conservative.
    """

    __slots__ = ("ops", "text", "_mentions", "_pos", "_header", "_defs", "_definers", "_deps", "_starts")

    def __init__(self, block):
        self.ops = block.operations
        """The block's operations, in order."""
        self.text = block.parent.module.source.text
        self._mentions: list[list[str] | None] = [None] * len(self.ops)
        self._header: dict[int, list[str]] = {}
        self._pos: dict[int, int] | None = None
        self._defs: dict[str, int] | None = None
        self._definers: dict[str, Operation] | None = None
        self._deps: list[list[int] | None] = [None] * len(self.ops)
        self._starts: list[int] | None = None

    def index(self, op: Operation) -> int:
        """The op's position in the block."""
        if self._pos is None:
            self._pos = {id(o): i for i, o in enumerate(self.ops)}
        return self._pos[id(op)]

    def op_at(self, offset: int) -> int | None:
        """The position of the op whose text contains `offset` (None: between ops)."""
        if self._starts is None:
            self._starts = [o.span.start for o in self.ops]
        k = bisect_right(self._starts, offset) - 1
        if k < 0 or offset >= self.ops[k].span.end:
            return None
        return k

    def mentioning(self, names: Iterable[str], lo: int = 0) -> Iterator[int]:
        """Positions >= `lo` of the ops that mention any of `names`, in order, found by
        a regex search of the text (C speed: no per-op work in between)."""
        names = sorted(set(names))
        if not names or lo >= len(self.ops):
            return
        pattern = re.compile("(?:" + "|".join(map(re.escape, names)) + r")(?![\w$.\-])")
        end = self.ops[-1].span.end
        pos = self.ops[lo].span.start
        while True:
            m = pattern.search(self.text, pos, end)
            if m is None:
                return
            k = self.op_at(m.start())
            if k is None:
                pos = m.end()
                continue
            yield k
            pos = self.ops[k].span.end

    def defs(self, i: int) -> list[str]:
        """The result names op `i` defines (`%0` for `%0:2`)."""
        rn = self.ops[i].result_names
        return [rn[0][0]] if len(rn) == 1 else [g for g, _n in rn]

    def def_index(self, name: str) -> int | None:
        """Which op of the block defines `name` (None: a block argument or a value from outside)."""
        return self.definitions().get(name)

    def definitions(self) -> dict[str, int]:
        """Each result name (`%0` for `%0:2`) → the position of the op that defines it."""
        if self._defs is None:
            self._defs = {g: i for i, o in enumerate(self.ops) for g, _n in o.result_names}
        return self._defs

    def definers(self) -> dict[str, Operation]:
        """Each result name → the op that defines it: `definitions` for a reader that
        wants the ops, not their positions (it costs no int per op: a 300k-op block
        makes, and later frees, 300k of them)."""
        if self._definers is None:
            self._definers = {g: o for o in self.ops for g, _n in o.result_names}
        return self._definers

    def mentions(self, i: int) -> list[str]:
        """Every SSA name op `i` mentions, its regions included."""
        m = self._mentions[i]
        if m is None:
            span = self.ops[i].span
            m = self._mentions[i] = _SSA_NAME.findall(self.text, span.start, span.end)
        return m

    def header_mentions(self, i: int) -> list[str]:
        """The SSA names op `i` mentions outside its regions and after its results, in
        order (its operands)."""
        m = self._header.get(i)
        if m is None:
            m = self._header[i] = self.operand_names(self.ops[i])
        return m

    def operand_names(self, op: Operation) -> list[str]:
        """`header_mentions` of an op of this block, found without its position (which
        costs a table of the block's ops: a step's block has 300k of them)."""
        start = op.span.start
        if op.result_names:
            eq = self.text.find("=", start, op.span.end)
            start = eq + 1 if eq >= 0 else start
        end = op.header_end if op.regions and op.header_end >= 0 else op.span.end
        return _SSA_NAME.findall(self.text, start, end)

    def depends(self, sources: Iterable[int], lo: int, hi: int) -> list[int]:
        """Indices in [lo, hi) of the ops that depend, through ops of this block, on
        the results of the ops `sources` (which precede `lo`), in order."""
        tainted: set[str] = set()
        for s in sources:
            tainted.update(self.defs(s))
        out: list[int] = []
        for i in range(lo, hi):
            if not tainted.isdisjoint(self.mentions(i)):
                out.append(i)
                tainted.update(self.defs(i))
        return out

    def deps(self, i: int) -> list[int]:
        """Positions of the ops of this block whose results op `i` mentions, latest first."""
        d = self._deps[i]
        if d is None:
            get = self.definitions().get
            d = []
            for name in self.mentions(i):
                k = get(name)
                if k is not None and k < i:
                    d.append(k)
            if len(d) > 1:
                d.sort(reverse=True)
            self._deps[i] = d
        return d

    def reaches(self, targets: set[int], lo: int, i: int, known: set[int] | None = None,
                budget: int | None = None) -> bool | None:
        """Whether op `i` depends, through ops at positions >= `lo`, on an op in
        `targets`: a backward search over its operands' definitions, nearest to
        `lo` first (a chain back to a target is found without visiting the whole
        cone). `known` holds ops already shown not to depend on `targets` (it is
        extended). None when `budget` ops were visited without an answer."""
        stack = [i]
        seen: set[int] = set()
        known = known if known is not None else set()
        cached = self._deps
        visits = 0
        while stack:
            j = stack.pop()
            visits += 1
            if budget is not None and visits > budget:
                return None
            ds = cached[j]
            if ds is None:
                ds = self.deps(j)
            for d in ds:  # latest first: the earliest is pushed last and visited next
                if d < lo or d in seen or d in known:
                    continue
                if d in targets:
                    return True
                seen.add(d)
                stack.append(d)
        known |= seen
        return False
