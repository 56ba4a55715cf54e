"""Replicas that are copies of each other: when no communication crosses replicas
and every replica runs what replica 0 runs, the exact per-process model is built
for replica 0 alone and what it finds holds in every replica.

A 1.2 KB send/recv module whose header says 65,536 replicas × 8 partitions (a
fuzz case, issue 24) built 524,288 per-process event lists and explained 458,752
blocked processes one by one: 15 s and 1 GB, and a 30 MB JSON report, for the
deadlock of 7 processes repeated in every replica. Such a grid is R copies of
one replica's program when

* the processes of replica r fall into the same trace classes as those of
  replica 0, partition by partition (so they execute the same steps, and a done
  names the same start);
* every process group of a collective (and of a collective_permute's
  rendezvous) lies inside one replica, and replica r's groups are replica 0's,
  shifted by r × P;
* every send/recv/permute pair joins two processes of one replica, with the
  same partitions in every replica.

Then replica r's events are replica 0's with every process id shifted by r × P:
the same requirements, the same fixpoint, the same counterexamples. The checks
are numpy over the grid (no Python per process), once per communication op.
"""
from __future__ import annotations

from ..lazy_numpy import np  # imported on first use (lazy_numpy.py)

from ..tracer.trace import Trace
from .model import CommInfo, Facts


def replica_copies(tr: Trace, facts: Facts) -> int:
    """R when the trace is R identical, independent copies of replica 0 (see the
    module docstring), else 1."""
    grid = tr.grid
    R, P = grid.num_replicas, grid.num_partitions
    if not R or R < 2 or not P:
        return 1
    if not _rows_equal(tr.class_of, R, P):
        return 1
    seen: set[int] = set()
    for step in tr.steps:
        if step.role == "done":
            if isinstance(step.future, np.ndarray) and not _rows_equal(step.future, R, P):
                return 1
            continue
        if step.role == "unresolved" or id(step.op) in seen:
            continue
        seen.add(id(step.op))
        if not _within_replicas(facts.info(step.op), R, P):
            return 1
    return R


def _rows_equal(values: np.ndarray, R: int, P: int) -> bool:
    rows = values.reshape(R, P)
    return bool((rows == rows[0]).all())


def _within_replicas(info: CommInfo, R: int, P: int) -> bool:
    """The op's groups and pairs stay inside each replica, alike in every replica."""
    if info.external or info.problem or info.invalid:
        return True  # no peer in this program, or no process goes past it (the same everywhere)
    if info.group_of is not None:
        group_of = info.group_of
        if (group_of < 0).any():
            return False
        first = np.array([g[0] for g in info.groups], dtype=np.int64) // P  # members ascending
        last = np.array([g[-1] for g in info.groups], dtype=np.int64) // P
        if (first != last).any():
            return False  # a group spans replicas
        # groups are numbered by their first member, so a replica's are consecutive
        rows = group_of.reshape(R, P)
        if not ((rows - rows.min(axis=1, keepdims=True)) == (rows[0] - rows[0].min())).all():
            return False
    for peers in (info.target, info.source):
        if peers is None:
            continue
        own = np.arange(len(peers), dtype=np.int64) // P
        there = peers >= 0
        if (peers[there] // P != own[there]).any():
            return False  # a pair between replicas
        if not _rows_equal(np.where(there, peers - own * P, -1), R, P):
            return False
    return True
