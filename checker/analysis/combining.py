"""XLA's collective combiners, as one notion shared by the StableHLO hints (SHLO631-633:
what a combiner *would* merge) and the compiled-HLO hint (SHLO641: what XLA left
apart, and why).

XLA's AllReduceCombiner / AllGatherCombiner / ReduceScatterCombiner run
`CombineInstructionsByKey` (xla/service/collective_combiner_utils.h, seed 001) on
each computation: in post order, instructions with an equal key join the open
group while

* neither depends on the other (reachability),
* each is at most `combine_threshold_bytes` and the running total stays within
  it (bytes of the instruction's result shape: ShapeUtil::ByteSizeOf), and
* the group holds at most `combine_threshold_count` ops;

an instruction over the threshold alone, or with more than one operand (already
combined), is never combined. The key (xla/service/all_reduce_key.cc
GetAllReduceKey; AllGatherCombiner::CombineKey; ReduceScatterCombiner::CombineKey):
the opcode, the reduction (a reducer of one op: its opcode; anything else is never
combined), the element type, the domain, whether there is a channel,
use_global_device_ids, the replica groups (as lists: XLA compares the groups, so
two spellings of the same groups are one key), and for all-gather and
reduce-scatter the dimension when the combiner combines "by dimension". On XLA:GPU
the all-gather combiner also combines different element types
(`combine_different_dtypes`), and neither it nor the reduce-scatter one combines by
dimension unless `--xla_gpu_enable_all_gather_combine_by_dim` /
`--xla_gpu_enable_reduce_scatter_combine_by_dim` say so (both false by default):
`Keying` says which fields a backend's combiner compares.

Here a computation is one block of the IR: dependence is def-use between the
block's ops, read from their text (semantics.BlockFlow: regions included, no
header parse), searched backwards from each candidate and bounded below by the
group's first member. `combine` returns the groups and, for every place where a
group closed before the next candidate of its key, why (`Split`): a dependence on
a member (with its path), the bytes or the count limit. Each key is grouped on the
program as written (XLA recomputes reachability after each combine: merging one
key's ops can only add dependences between another key's, so this may find a
group XLA would split).
"""
from __future__ import annotations

from dataclasses import dataclass, field

from ..ir.attributes import DenseElementsAttr, ReplicaGroupsAttr
from ..ir.core import Operation
from ..ir.types import TensorType
from .comm_counts import collective_results, type_bytes
from .semantics import BlockFlow, channel_id, flag, int_attr, replica_groups
from .tracer.structure import collective_kind, collective_op

KINDS = ("all_reduce", "all_gather", "reduce_scatter")
"""The kinds XLA has a combiner for (and SHLO631-633 hint at)."""
KEY_FIELDS = ("kind", "reduction", "element type", "replica groups", "channel", "use_global_device_ids", "dimension")
"""The fields of a combine key, in the key tuple's order (what a message names)."""
_DIM = {"all_gather": "all_gather_dim", "reduce_scatter": "scatter_dimension"}


@dataclass(frozen=True)
class Keying:
    """Which key fields a combiner compares (XLA's combiners differ by backend)."""

    by_dim: bool = True
    """all-gather / reduce-scatter: the dimension is part of the key."""
    by_dtype: bool = True
    """The element type is part of the key (XLA:GPU's all-gather combiner: not)."""


XLA_KEYING = Keying()
"""The combiners as XLA's hardware-independent passes are built (and SHLO631-633 read them)."""


@dataclass
class Candidate:
    index: int
    """The op's position in its block."""
    key: tuple | None
    """None: never combined (no static array result, a reducer of more than one op)."""
    bytes: int
    operands: int


@dataclass
class Group:
    members: list[int]
    """Block indices of the ops to combine, in order."""
    bytes: int
    key: tuple


@dataclass
class Split:
    """Where a group of one key closed although another op of its key followed."""

    key: tuple
    last: int
    """The block index of the group's last member."""
    next: int
    """The op that opened the next group."""
    reason: str
    """"dependence" (`next` depends on a member, or the search ran past its budget),
    "bytes" (the total would pass the threshold) or "count" (the group is full)."""
    total: int = 0
    """"bytes": the group's bytes with `next` added."""
    members: tuple[int, ...] = ()
    """The closed group's members (block indices)."""
    found: bool = False
    """"dependence": a def-use path was found (False: the search ran past its budget)."""

    def path(self, f: BlockFlow) -> list[int]:
        """"dependence": block indices from the member `next` depends on to `next`
        (searched when asked: only a message needs it)."""
        if self.reason != "dependence" or not self.found or not self.members:
            return []
        return dependence_path(f, set(self.members), self.members[0], self.next)


@dataclass
class Combining:
    """What the combiner algorithm makes of one block: groups (of 2 or more) and splits."""

    groups: list[Group] = field(default_factory=list)
    splits: list[Split] = field(default_factory=list)
    candidates: dict[tuple, list[Candidate]] = field(default_factory=dict)
    """key → its combinable ops (one operand, within the threshold), in order."""
    too_big: list[Candidate] = field(default_factory=list)
    """Ops over the byte threshold on their own."""


# ----------------------------------------------------------------------------- keys
def reduction(op: Operation) -> str | None:
    """The reduction of a one-op region (`add`, `maximum`, ...), else None (XLA skips
    non-trivial reductions)."""
    if len(op.regions) != 1 or len(op.regions[0].blocks) != 1:
        return None
    ops = op.regions[0].blocks[0].operations
    if len(ops) != 2 or ops[1].name not in ("stablehlo.return", "mhlo.return"):
        return None
    return ops[0].name.rsplit(".", 1)[-1]


class GroupIds:
    """Replica groups → a small int, equal for equal groups however they are spelled
    (XLA's keys compare the groups as lists): each distinct spelling is listed once."""

    def __init__(self) -> None:
        self._by_spelling: dict[object, int] = {}
        self._by_rows: dict[tuple, int] = {}

    def of(self, op: Operation, text: str) -> int | None:
        a = op.attr("replica_groups")
        if isinstance(a, DenseElementsAttr):
            spelling: object = (" ".join(a.literal.split()), str(a.type))
        elif isinstance(a, ReplicaGroupsAttr):
            spelling = a.key
        elif a is None:
            spelling = None
        else:
            span = getattr(a, "span", None)
            return self._rows_id(("text", text[span.start:span.end])) if span is not None else None
        got = self._by_spelling.get(spelling)
        if got is None:
            if a is None:
                rows: tuple = ()
            else:
                listed = replica_groups(op)
                rows = tuple(tuple(g) for g in listed) if listed is not None else ("unread", spelling)
            got = self._by_spelling[spelling] = self._rows_id(rows)
        return got

    def _rows_id(self, rows: tuple) -> int:
        return self._by_rows.setdefault(rows, len(self._by_rows))


def candidate(op: Operation, index: int, text: str, ids: GroupIds, keying: Keying = XLA_KEYING,
              units: bool = False) -> Candidate:
    """The op's combine key and byte size (key None: never combined). `op` is a
    collective of the block, or an async start of one (its collective is read).
    `units`: an op of several operands (one a combiner made) is a candidate too, of
    its results' total size, when they share one element type: how a compiled
    module's collectives are compared (the combiner has run; what it made is what
    runs)."""
    view = collective_op(op)
    kind = collective_kind(op)
    n_operands = len(view.header.operands)
    results = collective_results(op)
    if units and len(results) > 1 and len({str(getattr(r, "element", r)) for r in results}) == 1:
        sizes = [type_bytes(r) for r in results]
        t = results[0]
        size = None if None in sizes else sum(sizes)  # type: ignore[arg-type]
        n_operands = 1
    else:
        t = results[0] if len(results) == 1 else None
        size = type_bytes(t)
    if kind not in KINDS or not isinstance(t, TensorType) or size is None:
        return Candidate(index, None, 0, n_operands)
    red = None
    if kind != "all_gather":
        red = reduction(view)
        if red is None:
            return Candidate(index, None, 0, n_operands)
    ch = channel_id(view)
    dim = int_attr(view, _DIM[kind]) if kind in _DIM and keying.by_dim else None
    element = str(t.element) if keying.by_dtype or kind != "all_gather" else None
    key = (kind, red, element, ids.of(view, text), ch is not None and ch > 0, flag(view, "use_global_device_ids"),
           dim)
    return Candidate(index, key, size, n_operands)


def differing_fields(a: tuple, b: tuple) -> list[str]:
    """The names of the key fields in which two keys differ."""
    return [name for name, x, y in zip(KEY_FIELDS, a, b) if x != y]


# ----------------------------------------------------------------------------- grouping
def combine(f: BlockFlow, cands: list[Candidate], threshold_bytes: int | None, threshold_count: int,
            budget: int | None) -> Combining:
    """XLA's CombineInstructionsByKey over one block's candidates (block order).

    Per key, XLA's loop: a candidate joins the open group unless it is too big
    (then it is skipped for good), the bytes or count limit is reached, or it
    depends on a member; then the group closes and the candidate opens the next.
    Dependence is a backward search from the candidate over its operands'
    definitions, bounded below by the group's first member and remembering, per
    group, the ops already shown independent (so a group costs about its span,
    and a chain of dependent collectives a few ops per pair). A search that
    visits more than `budget` ops counts as dependent (no path is given then).
    `threshold_bytes` None: no byte limit (XLA:CPU's all-reduce combiner)."""
    out = Combining()
    if threshold_count <= 0 or (threshold_bytes is not None and threshold_bytes <= 0):
        return out
    by_key: dict[tuple, list[Candidate]] = {}
    for c in cands:
        if c.key is None or c.operands != 1:
            continue  # never combinable (XLA erases it and goes on)
        if threshold_bytes is not None and c.bytes > threshold_bytes:
            out.too_big.append(c)
            continue
        by_key.setdefault(c.key, []).append(c)
    out.candidates = by_key
    for key, group_cands in by_key.items():
        if len(group_cands) < 2:
            continue  # a key held by one op forms no group
        members: list[int] = []
        inside: set[int] = set()
        known: set[int] = set()
        total = 0

        def close() -> None:
            if len(members) > 1:
                out.groups.append(Group(list(members), total, key))
            members.clear()
            inside.clear()
            known.clear()

        for c in group_cands:
            split: Split | None = None
            if members:
                if threshold_bytes is not None and total + c.bytes > threshold_bytes:
                    split = Split(key, members[-1], c.index, "bytes", total=total + c.bytes, members=tuple(members))
                else:
                    got = f.reaches(inside, members[0], c.index, known, budget)
                    if got is not False:
                        split = Split(key, members[-1], c.index, "dependence", members=tuple(members),
                                      found=bool(got))
            if split is not None:
                out.splits.append(split)
                close()
                total = 0
            members.append(c.index)
            inside.add(c.index)
            total += c.bytes
            if len(members) >= threshold_count:
                close()
                total = 0
                following = [d for d in group_cands if d.index > c.index]
                if following:
                    out.splits.append(Split(key, c.index, following[0].index, "count", members=tuple(members)))
        close()
    out.groups.sort(key=lambda g: g.members[0])
    out.splits.sort(key=lambda s: s.next)
    return out


def dependence_path(f: BlockFlow, targets: set[int], lo: int, i: int, limit: int = 20_000) -> list[int]:
    """One def-use path from an op of `targets` to op `i` through ops at positions
    >= `lo` (block indices, the target first, `i` last); [] when none is found
    within `limit` visits."""
    parent: dict[int, int] = {i: -1}
    frontier = [i]
    visits = 0
    while frontier:
        nxt = []
        for j in frontier:
            for d in f.deps(j):
                if d < lo or d in parent:
                    continue
                parent[d] = j
                if d in targets:
                    path = [d]
                    while path[-1] != i:
                        path.append(parent[path[-1]])
                    return path
                visits += 1
                if visits > limit:
                    return []
                nxt.append(d)
        frontier = nxt
    return []


__all__ = ["Candidate", "Combining", "GroupIds", "Group", "KEY_FIELDS", "KINDS", "Keying", "Split", "XLA_KEYING",
           "candidate", "combine", "dependence_path", "differing_fields", "reduction"]
