"""`shlo_lint.check_hosts` in real 2-process `jax.distributed` jobs on CPU (gloo),
started by tests/hosts_job.py (each job a few seconds; every process group is
killed at the end): an extra collective and a different reduction are flagged
on both processes, with the same findings; identical programs pass; a process
that never calls it is named, and the call returns within its timeout."""
from __future__ import annotations

import pytest

from shlo_lint.checker.execute.xla.local import jax_available

import hosts_job

pytestmark = pytest.mark.skipif(not jax_available(), reason="needs jax (the `jax` extra) for jax.distributed")

LIMIT_S = 90.0


def job(case: str) -> dict[int, dict]:
    got = hosts_job.run_job(case, limit_s=LIMIT_S)
    for pid, r in got.items():
        assert not r.get("missing"), (pid, r.get("log"))
        assert "raised" not in r, r["raised"]
    return got


def test_identical_programs_pass():
    got = job("identical")
    for r in got.values():
        assert r["codes"] == [] and r["assert"] == "passed"
    assert got[0]["devices"] == [0, 1] and got[1]["devices"] == [2, 3]


@pytest.mark.parametrize("case, code, words", [
    ("extra_collective", "SHLO510", "hosts deadlock: process 1 waits in all_reduce at hosts_job.py:"),
    ("different_reduction", "SHLO511", "hosts compute differently: process 0's all_reduce (add) at hosts_job.py:"),
    ("different_reduction_compiled", "SHLO511", "meets process 1's all-reduce (maximum) at hosts_job.py:"),
])
def test_differences_are_flagged_on_every_process(case, code, words):
    got = job(case)
    assert got[0]["codes"] == got[1]["codes"] == [code]
    assert got[0]["messages"] == got[1]["messages"]
    assert words in got[0]["messages"][0]
    for r in got.values():
        assert r["assert"].startswith("raised: shlo-lint check_hosts")
        assert r["check_seconds"] < 20


def test_a_process_that_never_calls_is_named_within_the_timeout():
    got = job("absent")
    assert got[1]["called"] is False
    r = got[0]
    assert r["codes"] == ["SHLO514"]
    assert r["messages"][0].startswith("process 1 did not answer check_hosts within 4 s")
    assert r["check_seconds"] <= 4.0 + 1.0  # its timeout (and the decision), never a hang
