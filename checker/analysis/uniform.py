"""Which values are the same on every process of a group (uniformity analysis).

GPU compilers call this divergence analysis; PARCOACH calls it rank dependence
for MPI. A value is *uniform over a process group* when every member of the
group holds the same value: a constant; an input replicated across the group
(a JAX argument outside a manual region is one logical array; inside
`sdy.manual_computation` / after `@SPMDFullToShardShape`, each device holds the
shard its sharding gives it, so a value split along the manual axes differs
between devices); the result of a collective that hands every member the same
value (all_reduce, all_gather, collective_broadcast); or anything computed only
from values uniform over that group.

Uniformity is represented as a *partition* of the processes (`Uni.classes`):
processes in the same class hold the same value. `None` is the one-class
partition (the same everywhere); a per-process value (the partition id,
unsharded per-device data) has one class per process. Combining values meets
their partitions (the coarsest common refinement). A branch or loop whose
index/predicate is uniform over every communicator it guards (each collective's
process group, each send/recv/permute pair lies inside one class) cannot split
a communicator: every member takes the same branch or runs the same trip count
(tracer/tracer.py then follows each branch / a representative trip count for
all of them). Otherwise it guards communication with per-device data
(`Divergence`, SHLO504).

This module holds the value algebra and the facts it needs (shardings,
communicators); the tracer applies it while tracing.
"""
from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field

from .lazy_numpy import np  # imported on first use (lazy_numpy.py)

from ..ir.attributes import ArrayAttr, DictAttr, ReplicaGroupsAttr, StringAttr
from ..ir.core import Module, Operation
from .semantics import CROSS_PARTITION, Grid, flag, process_groups, replica_groups, source_target_pairs, strategy
from ..source.text import in_line_comment

MAX_ORIGINS = 4
"""Origins kept per value (the first ones: enough to name the data in a message)."""

@dataclass(frozen=True)
class Origin:
    """Where per-process data comes from: "the argument %arg0 (sharded <@mesh, [{"x"}]>
    along the manual axes)", "data received by all_to_all at line 12"."""

    text: str
    op: Operation | None
    classes: np.ndarray | None = field(default=None, compare=False, hash=False)
    """The partition this origin alone induces (None: it varies per process)."""


class Uni:
    """A value not known concretely, the same within each class of `classes`."""

    __slots__ = ("classes", "origins")

    def __init__(self, classes: np.ndarray | None, origins: tuple[Origin, ...] = ()):
        self.classes = classes
        self.origins = origins

    @property
    def everywhere(self) -> bool:
        return self.classes is None

    def __repr__(self) -> str:
        n = "all" if self.classes is None else f"{len(np.unique(self.classes))} classes"
        return f"Uni({n}; {', '.join(o.text for o in self.origins)})"


UNIFORM = Uni(None)
"""A value the same on every process, of no particular origin (a constant...)."""


def per_process(n: int, text: str, op: Operation | None = None) -> Uni:
    """Data each process holds its own copy of."""
    classes = np.arange(n, dtype=np.int64)
    return Uni(classes, (Origin(text, op, classes),))


_SMALL = 64
"""labels() of at most this many processes: the dict path."""


def labels(values: np.ndarray) -> np.ndarray | None:
    """A concrete per-process array as a partition (None when it is the same
    everywhere). Canonical: classes are numbered by first occurrence, so equal
    partitions get equal arrays."""
    if values.size <= _SMALL and values.dtype.kind in "iub":
        # The tracer asks this for every per-process value it combines; on a few
        # processes a dict is ~5x cheaper than np.unique (same numbering).
        first_seen: dict = {}
        got = [first_seen.setdefault(v, len(first_seen)) for v in values.reshape(-1).tolist()]
        return np.array(got, dtype=np.int64) if len(first_seen) > 1 else None
    _u, first, inv = np.unique(values, return_index=True, return_inverse=True)
    inv = np.asarray(inv, dtype=np.int64).reshape(-1)
    if inv.size == 0 or inv.max() == 0:
        return None
    rank = np.empty(first.size, dtype=np.int64)
    rank[np.argsort(first)] = np.arange(first.size, dtype=np.int64)
    return rank[inv]


def meet(a: np.ndarray | None, b: np.ndarray | None) -> np.ndarray | None:
    """The coarsest partition finer than both."""
    if a is None:
        return b
    if b is None or a is b:
        return a
    return labels(a * (int(b.max()) + 1) + b)


def combine(parts: list) -> Uni:
    """The uniformity of a value computed from `parts` (Uni, or concrete ints and
    per-process arrays)."""
    classes = None
    origins: list[Origin] = []
    for p in parts:
        if isinstance(p, Uni):
            classes = meet(classes, p.classes)
            for o in p.origins:
                if o not in origins and len(origins) < MAX_ORIGINS:
                    origins.append(o)
        elif isinstance(p, np.ndarray):
            lab = labels(p)
            if lab is not None:
                classes = meet(classes, lab)
                o = Origin("the process id", None, lab)
                if o not in origins and len(origins) < MAX_ORIGINS:
                    origins.append(o)
    if classes is None:
        return UNIFORM if not origins else Uni(None, ())
    return Uni(classes, tuple(origins))


def split_group(classes: np.ndarray | None, groups: list[np.ndarray], mask: np.ndarray) -> np.ndarray | None:
    """The first group whose members (among `mask`) fall in different classes, else None."""
    if classes is None:
        return None
    for g in groups:
        g = g[(g >= 0) & (g < mask.size)]  # ids outside the grid (reported by the group rules) are no member
        g = g[mask[g]]
        if g.size > 1 and bool(np.any(classes[g] != classes[g[0]])):
            return g
    return None


def splitting_origins(u: Uni, group: np.ndarray) -> list[Origin]:
    """The origins that alone tell members of `group` apart (all, if none does alone)."""
    out = [o for o in u.origins if o.classes is not None and bool(np.any(o.classes[group] != o.classes[group[0]]))]
    return out or list(u.origins)


# --------------------------------------------------------------------------- communicators
def communicators(op: Operation, inner: Operation, kind: str, grid: Grid) -> list[np.ndarray] | None:
    """The sets of processes (flattened ids) that communicate at `op`: each process
    group of a collective or permute, each (source, target) pair of a send / recv.
    None when they cannot be read (the caller then cannot prove anything)."""
    if kind in ("send", "recv") and flag(inner, "is_host_transfer"):
        return []  # the host is no process of the grid
    if kind in ("send", "recv"):
        pairs = source_target_pairs(inner)
        if pairs is None:
            return None
        R, P = grid.num_replicas, grid.num_partitions
        out = []
        for s, t in pairs:
            if strategy(inner) == CROSS_PARTITION:
                if 0 <= s < P and 0 <= t < P:
                    out += [np.array([r * P + s, r * P + t]) for r in range(R)]
            elif 0 <= s < R and 0 <= t < R:
                out += [np.array([s * P + p, t * P + p]) for p in range(P)]
        return out
    if inner.name.startswith("tessera."):
        return [np.arange(grid.size)]
    if kind == "collective_permute":
        # XLA meets a permute as a rendezvous of its whole process group, not
        # only of each pair (deadlock/model.py PERMUTE_RENDEZVOUS): a guard that
        # splits the group hangs it even when every pair stays together.
        if source_target_pairs(inner) is None:
            return None
        rows = []
    else:
        attr = inner.attr("replica_groups")
        if isinstance(attr, ReplicaGroupsAttr):
            return _compact_communicators(grid, strategy(inner), attr)
        rows = replica_groups(inner) if attr is not None else []
    return _communicators(grid, strategy(inner), rows)


def _communicators(grid: Grid, strat: str, rows: list[list[int]] | None) -> list[np.ndarray] | None:
    if rows is None:
        return None
    try:
        groups = process_groups(grid, strat, rows)
    except (ValueError, AssertionError):
        return None
    return [np.array(sorted(grid.flat(r, p) for r, p in g), dtype=np.int64) for g in groups]


@functools.lru_cache(maxsize=64)
def _compact_communicators(grid: Grid, strat: str, attr: ReplicaGroupsAttr) -> list[np.ndarray] | None:
    """communicators() of a compact spelling, once per grid, mode and spelling (the ops
    that share one share the arrays: read, never changed)."""
    return _communicators(grid, strat, [list(g) for g in attr.rows()])


def group_labels(groups: list[np.ndarray], n: int) -> np.ndarray | None:
    """The partition "same group" (processes in no group each get their own class)."""
    lab = np.arange(n, dtype=np.int64) + n
    for i, g in enumerate(groups):
        g = g[(g >= 0) & (g < n)]
        lab[g] = i
    return labels(lab)


# --------------------------------------------------------------------------- shardings
_SPLIT = re.compile(r"devices=\[([\d,]+)\]")


PARTITIONED_MARKERS = ("sdy.mesh", "@SPMDFullToShardShape")
"""What `partitioned` looks for anywhere in the program text (outside comments)."""


def partitioned(module: Module) -> bool:
    """Whether the module is a JAX program the compiler still partitions (a Shardy
    mesh, GSPMD's shard_map markers): its top-level values are logical (global)
    arrays, the same for every device; per-device data appears only inside
    manual regions."""
    cached = getattr(module, "_uniform_partitioned", None)
    if cached is None:
        text = module.source.text
        cached = any(_written(text, marker) for marker in PARTITIONED_MARKERS)
        try:
            module._uniform_partitioned = cached  # type: ignore[attr-defined]
        except AttributeError:  # pragma: no cover - slotted module
            pass
    return cached


def _written(text: str, needle: str) -> bool:
    """Whether `needle` occurs in the program text outside `//` comments (a comment
    that mentions a Shardy mesh does not make the module partitioned: it hid a
    SHLO504 and a SHLO503)."""
    at = text.find(needle)
    while at >= 0:
        if not in_line_comment(text, at):
            return True
        at = text.find(needle, at + 1)
    return False


def _process_device(grid: Grid, size: int) -> np.ndarray | None:
    """Per flattened process, its device id in a mesh of `size` devices."""
    flat = np.arange(grid.size, dtype=np.int64)
    if size == grid.num_partitions:
        return flat % grid.num_partitions
    if size == grid.size:
        return flat
    return None


def hlo_sharding_classes(text: str, grid: Grid) -> np.ndarray | None | str:
    """Processes holding the same shard under an HLO sharding string: None
    (replicated), a partition, or a string saying why it cannot be read."""
    from .sharding import ShardingError, hlo_tiling

    body = text.strip().strip("{}").strip()
    if body.startswith("replicated") or body == "":
        return None
    if body == "manual":
        return "manual"
    m = _SPLIT.search(body)
    if m is None:
        return f"sharding {text} not read"
    dims = [int(x) for x in m.group(1).split(",")]
    rank = len(dims) - (1 if "last_tile_dim_replicate" in body else 0)
    try:
        tiling = hlo_tiling(text, rank, grid.num_partitions)
    except ShardingError as e:
        return str(e)
    except (ValueError, IndexError, TypeError):  # a device list that does not fit its tile shape
        return f"sharding {text} not read"
    if isinstance(tiling, str):
        return "manual"
    dev = _process_device(grid, len(tiling.device_coords))
    if dev is None:
        return f"sharding {text} is for {len(tiling.device_coords)} devices"
    coords = {d: i for i, d in enumerate(sorted(set(tiling.device_coords.values())))}
    lab = np.array([coords.get(tiling.device_coords.get(int(d), ()), -1) for d in dev], dtype=np.int64)
    if grid.num_replicas > 1:
        lab = lab * grid.num_replicas + np.arange(grid.size) // grid.num_partitions
    return labels(lab)


def manual_arg_classes(op: Operation, index: int, module: Module, grid: Grid) -> np.ndarray | None | str:
    """For operand `index` of an sdy.manual_computation: processes whose shard of it
    is the same (its in_sharding split along the manual axes), None when every
    device gets the whole value, or why it cannot be read."""
    from .sharding import ShardingError, mesh_from_attr, sdy_dims, sdy_mesh_name

    shardings = sdy_list(op.attr("in_shardings"))
    if shardings is None or len(shardings) != len(op.operands):
        return "in_shardings not read (not one per operand)"
    sh = shardings[index]
    dims = sdy_dims(sh)
    if dims is None:
        return "in_sharding not read"
    manual = op.attr("manual_axes")
    manual_axes = {e.value for e in manual.elements if isinstance(e, StringAttr)} \
        if isinstance(manual, ArrayAttr) else set()
    if not any(a for axes in dims for a in axes):
        return None
    name = sdy_mesh_name(sh)
    mesh = None
    for m in module.walk():
        if m.name == "sdy.mesh" and m.symbol_name == name:
            try:
                mesh = mesh_from_attr(m.attr("mesh"))
            except ShardingError as e:
                return str(e)
            break
    if mesh is None:
        return f"mesh @{name} not found"
    sizes = dict(mesh.axes)
    unknown = [a for axes in dims for a in axes if a not in sizes]
    if unknown:
        return f"the in_sharding names axis {unknown[0]!r}, which mesh @{name} does not have"
    used = [a for axes in dims for a in axes if a in manual_axes]
    if not used:
        return None
    if len(set(mesh.device_ids)) != mesh.size:
        return f"mesh @{name} lists {len(mesh.device_ids)} device ids for {mesh.size} devices"
    dev = _process_device(grid, mesh.size)
    if dev is None:
        return f"mesh @{name} has {mesh.size} devices"
    lab = np.zeros(grid.size, dtype=np.int64)
    for i, d in enumerate(dev.tolist()):
        c = mesh.coords(int(d)) if int(d) in mesh.device_ids else {}
        k = 0
        for a in used:
            k = k * sizes.get(a, 1) + c.get(a, 0)
        lab[i] = k
    if grid.num_replicas > 1:
        lab = lab * grid.num_replicas + np.arange(grid.size) // grid.num_partitions
    return labels(lab)


def sdy_list(attr) -> list | None:
    for p in getattr(attr, "positional", ()):
        if isinstance(p, ArrayAttr):
            return list(p.elements)
    return None


def sharding_text(attr) -> str:
    t = getattr(attr, "text", None)
    if t:
        return t
    return str(getattr(attr, "value", attr))


def entry_arg(func: Operation, index: int, name: str, module: Module, grid: Grid) -> Uni:
    """The uniformity of argument `index` of the entry function."""
    attrs = func.attr("arg_attrs")
    d = attrs.elements[index] if isinstance(attrs, ArrayAttr) and index < len(attrs.elements) else None
    sharding = None
    if isinstance(d, DictAttr):
        sharding = d.get("mhlo.sharding") or d.get("sdy.sharding")
    if sharding is not None and "manual" in sharding_text(sharding):
        return per_process(grid.size, f"the block argument {name} (sharding {{manual}}: each process is passed its own)")
    if module.per_device:
        return _device_shard(sharding, name, grid)
    if sharding is not None or partitioned(module):
        return UNIFORM  # one logical array (declared replicated, or split by the compiler and reassembled)
    return per_process(grid.size, f"the block argument {name} (a per-device program: each process is passed its own "
                                  f"buffer)")


def _device_shard(sharding, name: str, grid: Grid) -> Uni:
    """An entry argument of one device's program (Module.per_device: HLO after SPMD
    partitioning): this device's shard of the array, the same on the devices its
    sharding gives the same shard (every device: replicated)."""
    if sharding is None:
        return per_process(grid.size, f"the block argument {name} (a per-device program: each process is passed its "
                                      f"own buffer)")
    text = sharding_text(sharding)
    classes = hlo_sharding_classes(text, grid)
    if classes is None:
        return UNIFORM
    if isinstance(classes, str):
        return per_process(grid.size, f"the block argument {name} ({classes}: taken as per-device data)")
    return Uni(classes, (Origin(f"the block argument {name} sharded {text} (each device holds its own shard)",
                                None, classes),))


# --------------------------------------------------------------------------- decisions
@dataclass
class UniformDecision:
    """A branch or loop whose index / predicate is the same on every member of
    each communicator it guards: proven for every value."""

    op: Operation
    what: str
    """"branch index" or "trip count"."""
    value: Uni


@dataclass
class Divergence:
    """A branch or loop whose index / predicate can differ between members of a
    communicator it guards (SHLO504)."""

    op: Operation
    what: str
    """"branch index" or "trip count"."""
    origins: list[Origin]
    """Where the per-device data comes from."""
    guarded: Operation
    """A communication op it guards whose communicator the value splits."""
    group: np.ndarray
    """That communicator (flattened process ids, among the processes that reach it)."""

    def text(self) -> str:
        return " and ".join(o.text for o in self.origins) or "data that differs between processes"


def check_guard(u: Uni, guarded: list[tuple[Operation, list[np.ndarray] | None]], mask: np.ndarray,
                op: Operation, what: str) -> Divergence | str | None:
    """None when no communicator of `guarded` (op, its communicators) is split by
    `u`'s classes among the processes of `mask`; a Divergence when one is; a string
    when a communicator cannot be read."""
    if u.classes is None:
        return None
    for comm, groups in guarded:
        if groups is None:
            from .tracer.structure import op_label

            return f"the process groups of the {op_label(comm)} it guards could not be read"
        g = split_group(u.classes, groups, mask)
        if g is not None:
            return Divergence(op, what, splitting_origins(u, g), comm, g)
    return None
