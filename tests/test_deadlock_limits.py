"""The deadlock analysis's limits hold: its time limit, the Z3 time limit,
step/event/trip limits and max-processes give an "unknown" verdict or a SHLO503
finding in time, and grids of thousands of processes are decided within the
default budget."""
from __future__ import annotations

import sys
import time

import pytest

from shlo_lint import Config, lint_text

from conftest import CORPUS
from deadlock_helpers import verdict_of

sys.path.insert(0, str(CORPUS / "deadlock"))
from generate_grids import all_distinct, branch_psum, permute_loop, sendrecv  # noqa: E402


def test_time_limit_is_respected():
    text = sendrecv(4096, recv_first=True)
    t0 = time.monotonic()
    v = verdict_of(text, **{"deadlock-timeout-ms": 1})
    assert time.monotonic() - t0 < 5
    assert v.status == "unknown" and "deadlock-timeout-ms" in v.reason


def test_z3_time_limit_falls_back_to_the_exact_check():
    v = verdict_of(CORPUS / "deadlock" / "pipeline_permute_loop.mlir", **{"z3-timeout-ms": 1})
    assert v.status == "deadlock-free" and v.stats.get("classes_check") == "sat"
    v = verdict_of(CORPUS / "deadlock" / "recv_before_send_ring.mlir", **{"z3-timeout-ms": 1})
    assert v.status == "deadlock"  # the unsat core is only an explanation: without it the cycle still stands


def test_step_and_event_limits_make_unknown():
    v = verdict_of(permute_loop(64, trips=50), **{"deadlock-max-trips": 10})
    assert v.status == "unknown" and "more than 10 iterations" in v.reason
    v = verdict_of(sendrecv(64, recv_first=True), **{"deadlock-max-events": 100})  # needs the per-process model
    assert v.status == "unknown" and "deadlock-max-events" in v.reason


def test_4096_all_distinct_processes_are_decided_within_the_default_budget():
    """Every process differs (trip count = partition id): 4,096 classes."""
    t0 = time.monotonic()
    v = verdict_of(all_distinct(4096))
    assert v.status == "deadlock-free" and time.monotonic() - t0 < 20


@pytest.mark.parametrize("group", [2, 256])
def test_the_time_limit_holds_on_all_distinct_deadlocks(group):
    """Many classes and a deadlock: whatever phase is running when the time runs
    out (tracing, building constraints or events, propagating, explaining), the
    verdict is back within deadlock-timeout-ms + 1 s."""
    text = all_distinct(1024, group)
    for limit in (300, 1500):
        t0 = time.monotonic()
        v = verdict_of(text, **{"deadlock-timeout-ms": limit})
        took = time.monotonic() - t0
        assert took < limit / 1000 + 1, (limit, took, v.reason)
        assert v.status in ("deadlock", "unknown")
        if v.status == "unknown":
            assert "deadlock-timeout-ms" in v.reason


def test_half_a_large_group_missing_is_linear_and_counted():
    """4,096 processes wait at an all_reduce over 8,192 that the other 4,096 never
    reach: the waits are collected once per collective instance (not once per
    waiting member), and the message names both halves."""
    text = branch_psum(8192, 4096, [list(range(8192))])
    t0 = time.monotonic()
    diags = [d for d in lint_text(text, "t.mlir", Config(select=("deadlock",))) if d.category == "deadlock"]
    assert time.monotonic() - t0 < 15
    d, = diags
    assert d.code == "SHLO501" and d.message == ("deadlock: processes (0, 0)\u2013(0, 4095) hang at this all_reduce; "
                                                 "(0, 4096)\u2013(0, 8191) finish without reaching it")


def test_max_processes_skips_with_a_finding():
    text = branch_psum(8, 4, [list(range(8))]).replace("mhlo.num_partitions = 8", "mhlo.num_partitions = 2147483648")
    t0 = time.monotonic()
    # only the deadlock rules: other rules' process lists are issue 15's (they grow with the grid)
    diags = [d for d in lint_text(text, "t.mlir", Config(select=("deadlock",))) if d.category == "deadlock"]
    assert time.monotonic() - t0 < 10
    d, = diags
    assert d.code == "SHLO503" and "skipped" in d.message and "max-processes = 1048576" in d.message
    v = verdict_of(branch_psum(8, 4, [list(range(8))]), **{"max-processes": 4})
    assert v.status == "unknown" and v.skipped and "8 processes" in v.reason
    assert verdict_of(branch_psum(8, 4, [list(range(8))]), **{"max-processes": 8}).status == "deadlock"


def test_4096_processes_within_the_default_budget():
    t0 = time.monotonic()
    v = verdict_of(sendrecv(4096, recv_first=True))
    assert v.status == "deadlock" and len(v.deadlocks[0].chain) == 4096
    assert time.monotonic() - t0 < 10
