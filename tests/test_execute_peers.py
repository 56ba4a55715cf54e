"""Device-to-device send/recv are matched inside the program: a send nobody
receives and a recv nobody sends to block (a deadlock, as on a GPU); only host
transfers and channels declared external (`external-channels`) talk to another
program."""
from __future__ import annotations

import json

import pytest

from shlo_lint.checker.execute.comm import parse_external_channels
from shlo_lint.checker.execute.run import RunOptions, run_path

from conftest import CORPUS, run_cli

EXE = CORPUS / "execute"


def blocked(report):
    return sorted((b.process, b.op) for b in report.primary.blocked)


def test_send_without_receiver_blocks_at_the_send():
    r = run_path(str(EXE / "send_only.buggy_deadlock.mlir"))
    assert r.outcome == "deadlock"
    assert blocked(r) == [((0, 0), "stablehlo.send")]
    assert "never received" in r.primary.blocked[0].waits_for


def test_recv_without_sender_blocks_at_the_recv():
    r = run_path(str(EXE / "recv_only.buggy_deadlock.mlir"))
    assert r.outcome == "deadlock", r.primary.message
    assert blocked(r) == [((0, 1), "stablehlo.recv")]
    assert "a send on channel 2 from process (0, 0) (finished)" in r.primary.blocked[0].waits_for


def test_channel_mismatch_blocks_both():
    r = run_path(str(EXE / "channel_mismatch.buggy_deadlock.mlir"))
    assert blocked(r) == [((0, 0), "stablehlo.send"), ((0, 1), "stablehlo.recv")]


def test_declared_external_channel_talks_to_another_program():
    path = str(EXE / "mpmd_stage.mlir")
    assert run_path(path).outcome == "deadlock"
    assert run_path(path, RunOptions(external_channels=frozenset({4}))).outcome == "completed"
    r = run_path(str(EXE / "recv_only.buggy_deadlock.mlir"), RunOptions(external_channels=frozenset({2})))
    assert r.outcome == "error"
    assert "recv on channel 2, declared external (external-channels)" in r.primary.message


def test_option_forms():
    assert parse_external_channels("1,3") == {1, 3}
    assert parse_external_channels("1, 3 5") == {1, 3, 5}
    assert parse_external_channels([1, 3]) == {1, 3}
    assert parse_external_channels(4) == {4}
    assert parse_external_channels(None) == frozenset()
    for bad in ("1,x", [1, "two"], [1.5], True, {"a": 1}):
        with pytest.raises(ValueError, match="not a channel id"):
            parse_external_channels(bad)


def test_cli_option_and_config(tmp_path):
    path = str(EXE / "mpmd_stage.mlir")
    assert run_cli("run", "-O", "external-channels=4", path).returncode == 0
    assert run_cli("run", "-O", "external-channels=[4]", path).returncode == 0
    bad = run_cli("run", "-O", "external-channels=four", path)
    # checked as `check` checks every -O option (run now validates them all)
    assert bad.returncode == 2 and "option `external-channels` = 'four' is not a valid value" in bad.stderr
    assert "expected list of integers" in bad.stderr
    (tmp_path / "pyproject.toml").write_text("[tool.shlo-lint.options]\nexternal-channels = [4]\n")
    (tmp_path / "stage.mlir").write_text((EXE / "mpmd_stage.mlir").read_text())
    proc = run_cli("run", "-f", "json", "stage.mlir", cwd=tmp_path)
    assert proc.returncode == 0 and json.loads(proc.stdout)["outcome"] == "completed", proc.stdout + proc.stderr


def test_host_transfers_stay_external():
    import shlo_lint
    from shlo_lint.checker.execute.run import run_module

    text = (EXE / "send_only.buggy_deadlock.mlir").read_text().replace("is_host_transfer = false",
                                                                       "is_host_transfer = true")
    r = run_module(shlo_lint.parse(text, "host.mlir"))
    assert r.outcome == "completed", r.primary.message
