"""The devices a collective communicates among, and whether two collectives share two of
them in one group: the condition XLA:GPU's latency-hiding scheduler checks before it lets
two collectives be in flight together (service/gpu/gpu_latency_hiding_scheduler.cc,
GpuScheduleCrossesOverlapLimit: "more than 1 overlapping ranks ... can form cyclic
dependency"; CountOverlappingRanks counts, for every group of one and every group of the
other, the devices both hold, a permute's groups being its source-target pairs).

Ids are flattened over the module's grid (checker/analysis/semantics.py's strategies).
A grouped collective is a label per device (its group's index), made once per spelling of
its groups and strategy: from an iota (or mesh-axes) spelling by numpy alone, with no list
of groups (a 16,384-device module), else from the groups listed once; pairs stay pairs.
"""
from __future__ import annotations

from dataclasses import dataclass

from shlo_lint.checker.analysis.semantics import (CROSS_PARTITION, CROSS_REPLICA, FLATTENED_IDS, Grid, process_groups,
                                                  replica_groups, source_target_pairs, strategy)
from shlo_lint.checker.analysis.tracer.structure import collective_op
from shlo_lint.checker.frontend.hlo import IotaGroups, MeshAxesGroups
from shlo_lint.checker.ir import catalog
from shlo_lint.checker.ir.attributes import ReplicaGroupsAttr
from shlo_lint.checker.ir.core import Operation


@dataclass(frozen=True)
class Devices:
    """The device sets an op communicates over, flattened ids: `labels` (group index per
    device, -1: in none) for a grouped collective, or `pairs` (source, target) for a
    permute or a send/recv half. XLA's scheduler counts a permute's pairs as its groups
    (gpu_latency_hiding_scheduler.cc, CountOverlappingRanks)."""

    labels: object = None  # numpy array
    pairs: tuple[tuple[int, int], ...] | None = None


def devices(op: Operation, grid: Grid, cache: dict) -> Devices | None:
    """`op`'s device sets on `grid` (None when its groups or pairs do not read)."""
    from shlo_lint.checker.analysis.lazy_numpy import np

    inner = collective_op(op)
    kind = catalog.base_kind(inner.name)
    strat = strategy(inner)
    R, P = grid.num_replicas, grid.num_partitions
    if kind in ("collective_permute", "send", "recv"):
        pairs = source_target_pairs(inner)
        if pairs is None:
            return None
        flat = []
        for s, t in pairs:
            if strat == CROSS_PARTITION:
                flat += [(r * P + s, r * P + t) for r in range(R)]
            else:
                flat += [(s * P + p, t * P + p) for p in range(P)]
        return Devices(pairs=tuple(flat))
    a = inner.attr("replica_groups")
    spelled = a.key if isinstance(a, ReplicaGroupsAttr) else "all" if a is None else getattr(a, "literal", None)
    key = ("devices", strat, spelled)
    got = cache.get(key) if spelled is not None else None
    if got is not None:
        return got
    labels = _iota_labels(a, strat, grid) if isinstance(a, ReplicaGroupsAttr) else None
    if labels is not None:
        got = cache[key] = Devices(labels=labels)
        return got
    rows = replica_groups(inner)
    if rows is None and a is not None:
        return None
    try:
        groups = process_groups(grid, strat, rows)
    except (AssertionError, ValueError, IndexError):
        return None
    labels = np.full(grid.size, -1, dtype=np.int64)
    for gi, g in enumerate(groups):
        ids = [grid.flat(r, p) for r, p in g]
        if any(not 0 <= x < grid.size for x in ids):
            return None
        labels[ids] = gi
    got = Devices(labels=labels)
    if spelled is not None:
        cache[key] = got
    return got


def _iota_labels(a: ReplicaGroupsAttr, strat: str, grid: Grid):
    """The group index of every device, straight from an iota spelling (mesh axes through
    their iota form) with numpy: iota(N) reshaped and transposed, group k the k-th run of S
    values. Only where the groups' ids are the flattened ids (use_global_device_ids, or one
    replica / one partition); else None (the general path lists the groups once)."""
    from shlo_lint.checker.analysis.lazy_numpy import np

    g = a.groups
    iota = g.as_iota() if isinstance(g, MeshAxesGroups) else g
    if not isinstance(iota, IotaGroups) or iota.num_devices != grid.size:
        return None
    if not (strat == FLATTENED_IDS or strat == CROSS_PARTITION and grid.num_replicas == 1
            or strat == CROSS_REPLICA and grid.num_partitions == 1):
        return None
    values = np.arange(grid.size, dtype=np.int64).reshape(iota.reshape_dims).transpose(iota.transpose_perm).reshape(-1)
    labels = np.empty(grid.size, dtype=np.int64)
    labels[values] = np.arange(grid.size, dtype=np.int64) // iota.group_size
    return labels


def shared_pair(a: Devices, b: Devices) -> tuple[int, int] | None:
    """Two devices some group (or pair) of `a` and some group (or pair) of `b` both hold,
    else None: XLA's condition for two collectives that must not be in flight together
    (CountOverlappingRanks(...) > 1)."""
    from shlo_lint.checker.analysis.lazy_numpy import np

    if a.pairs is not None and b.pairs is not None:
        mine = {frozenset(p) for p in a.pairs if p[0] != p[1]}
        for p in b.pairs:
            if frozenset(p) in mine:
                return (min(p), max(p))
        return None
    if a.pairs is not None:
        a, b = b, a
    la = a.labels
    if b.pairs is not None:
        for s, t in b.pairs:
            if s != t and 0 <= s < len(la) and 0 <= t < len(la) and la[s] >= 0 and la[s] == la[t]:
                return (min(s, t), max(s, t))
        return None
    lb = b.labels
    both = np.nonzero((la >= 0) & (lb >= 0))[0]
    if len(both) < 2:
        return None
    key = la[both] * (int(lb.max()) + 1) + lb[both]
    order = np.argsort(key, kind="stable")
    ks = key[order]
    dup = np.nonzero(ks[1:] == ks[:-1])[0]
    if not len(dup):
        return None
    j = int(dup[0])
    return (int(both[order[j]]), int(both[order[j + 1]]))


__all__ = ["Devices", "devices", "shared_pair"]
