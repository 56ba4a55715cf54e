"""The XLA engine: compile with jaxlib for N virtual CPU devices, run in a
subprocess under a watchdog, classify, and cross-check with the interpreter.
A handful of subprocess runs, a few seconds each."""
from __future__ import annotations

import hashlib
import json

import pytest

from shlo_lint.checker.execute.run import RunOptions, run_path
from shlo_lint.checker.execute.xla import jax_available

from conftest import CORPUS, run_cli

pytestmark = pytest.mark.skipif(not jax_available(), reason="the XLA engine needs jax (pip install 'shlo-lint[jax]')")

FAST = dict(xla_stuck_warn_s=1, xla_stuck_terminate_s=2, xla_timeout_s=60)


def test_global_program_matches_the_interpreter():
    report = run_path(str(CORPUS / "real" / "tp_mlp_grad.mlir"), RunOptions(engine="both", **FAST))
    assert report.reports["interp"].outcome == "completed"
    assert report.reports["xla"].outcome == "completed", report.reports["xla"].message
    assert report.cross_check["status"] == "match", report.cross_check
    assert report.exit_code() == 0


def test_per_device_program_is_marked_manual_on_a_copy():
    path = CORPUS / "valid" / "permute_ring.mlir"
    before = hashlib.sha256(path.read_bytes()).hexdigest()
    report = run_path(str(path), RunOptions(engine="both", **FAST))
    assert report.cross_check["status"] == "match", (report.reports["xla"].message, report.cross_check)
    assert set(report.reports["xla"].outputs) == {(0, p) for p in range(8)}
    assert hashlib.sha256(path.read_bytes()).hexdigest() == before


def test_deadlock_aborts_xla_cpu_and_agrees_with_the_interpreter():
    report = run_path(str(CORPUS / "real" / "cond_axis_index_psum.buggy_deadlock.mlir"),
                      RunOptions(engine="both", **FAST))
    xla = report.reports["xla"]
    assert xla.outcome == "aborted", (xla.message, xla.outcome)
    assert "1 arrived" in xla.message
    assert [b.process for b in xla.blocked] == [(0, 0)] and xla.blocked[0].line == 17
    assert report.cross_check["status"] == "match"
    assert report.exit_code() == 1


def test_send_recv_is_unsupported_on_xla_cpu():
    proc = run_cli("run", "--engine", "both", "-f", "json", str(CORPUS / "real" / "sendrecv_pair.gspmd.mlir"))
    data = json.loads(proc.stdout)
    assert data["engines"]["xla"]["outcome"] == "unsupported"
    assert "HLO opcode `send` is not supported by XLA:CPU" in data["engines"]["xla"]["message"]
    assert data["engines"]["interp"]["outcome"] == "completed" and data["cross_check"]["status"] == "skipped"
    assert proc.returncode == 0
