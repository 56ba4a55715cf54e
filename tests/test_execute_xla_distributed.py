"""The distributed XLA engine: 2-4 OS processes on this machine joined by
jax.distributed (coordinator on 127.0.0.1, a free port; CPU collectives over
gloo). Each test starts one small job; every job is bounded by its watchdog."""
from __future__ import annotations

import json
import os

import pytest

from shlo_lint.checker.execute.run import RunOptions, cross_check, run_path
from shlo_lint.checker.execute.availability import jax_available

from conftest import CORPUS, run_cli

pytestmark = [pytest.mark.slow,  # multi-process jax.distributed jobs (`-m "not slow"` skips it)
              pytest.mark.skipif(not jax_available(), reason="the XLA engine needs jax (pip install 'shlo-lint[jax]')")]

FAST = dict(xla_stuck_warn_s=1, xla_stuck_terminate_s=30, xla_timeout_s=60, dist_stuck_s=3)


def _children_alive() -> list[int]:
    """Worker processes still alive whose parent is this test process."""
    me, alive = os.getpid(), []
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                cmd = f.read()
            with open(f"/proc/{pid}/stat") as f:
                ppid = int(f.read().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            continue
        if b"xla.dist_worker" in cmd and ppid == me:
            alive.append(int(pid))
    return alive


def test_a_program_that_completes_matches_the_interpreter():
    path = str(CORPUS / "valid" / "permute_ring.mlir")
    dist = run_path(path, RunOptions(engine="xla-distributed", num_processes=2, **FAST)).primary
    assert dist.outcome == "completed", (dist.message, dist.notes)
    assert "2 processes x 4" in dist.device
    interp = run_path(path, RunOptions(engine="interp")).primary
    cc = cross_check(interp, dist, RunOptions())
    assert cc["status"] == "match", cc
    assert not _children_alive()


def test_a_global_program_is_assembled_from_every_process():
    path = str(CORPUS / "real" / "tp_mlp_grad.mlir")
    dist = run_path(path, RunOptions(engine="xla-distributed", num_processes=2, **FAST)).primary
    assert dist.outcome == "completed", dist.message
    assert None in dist.outputs
    interp = run_path(path, RunOptions(engine="interp")).primary
    assert cross_check(interp, dist, RunOptions())["status"] == "match"


def test_a_deadlock_names_the_process_that_did_not_return():
    """Two processes of four devices each: device (0, 0) takes the psum branch alone;
    process 0 never returns, process 1 completes."""
    report = run_path(str(CORPUS / "real" / "cond_axis_index_psum.buggy_deadlock.mlir"),
                      RunOptions(engine="xla-distributed", num_processes=2, **FAST))
    dist = report.primary
    assert dist.outcome == "deadlock", (dist.outcome, dist.message, dist.notes)
    assert [(b.process, b.op, b.line) for b in dist.blocked] == [((0, 0), "stablehlo.all_reduce", 17)]
    assert any(n.startswith("process 0 of 2") and "did not return; blocked at stablehlo.all_reduce (line 17)" in n
               for n in dist.notes), dist.notes
    assert any(n.startswith("process 1 of 2") and n.endswith("completed") for n in dist.notes), dist.notes
    assert report.exit_code() == 1
    assert not _children_alive()


def test_one_device_per_process_from_the_cli():
    proc = run_cli("run", "--engine", "xla-distributed", "-n", "4", "--stuck-timeout", "3", "-f", "json",
                   str(CORPUS / "deadlock" / "collectives_different_order.mlir"))
    data = json.loads(proc.stdout)
    assert proc.returncode == 1, proc.stderr
    assert data["outcome"] == "deadlock" and "4 processes x 1 device" in data["device"]
    at = {tuple(b["process"]): b["line"] for b in data["blocked"]}
    assert at == {(0, 0): 13, (0, 1): 21, (0, 2): 13, (0, 3): 21}


def test_processes_must_split_the_grid_evenly():
    dist = run_path(str(CORPUS / "valid" / "permute_ring.mlir"),
                    RunOptions(engine="xla-distributed", num_processes=3, **FAST)).primary
    assert dist.outcome == "error" and "do not split evenly into 3 processes" in dist.message


def test_send_is_unsupported_with_xla_cpus_reason():
    dist = run_path(str(CORPUS / "deadlock" / "send_without_recv.mlir"),
                    RunOptions(engine="xla-distributed", **FAST)).primary
    assert dist.outcome == "unsupported" and "HLO opcode `send` is not supported by XLA:CPU" in dist.message


def test_two_hosts_are_two_commands_with_the_same_coordinator():
    """What several hosts run, simulated on one: each command starts only its own
    process id and points at the same coordinator; each reports its process."""
    import subprocess
    import sys

    from shlo_lint.checker.execute.xla.distributed import free_port

    coordinator = f"127.0.0.1:{free_port()}"
    cmds = [[sys.executable, "-m", "shlo_lint", "run", "--engine", "xla-distributed", "-n", "2", "--coordinator",
             coordinator, "--process-id", str(i), "--stuck-timeout", "3", "--xla-timeout", "60", "-f", "json",
             str(CORPUS / "real" / "cond_axis_index_psum.buggy_deadlock.mlir")] for i in (0, 1)]
    hosts = [subprocess.Popen(c, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for c in cmds]
    outs = [h.communicate(timeout=120) for h in hosts]
    host0, host1 = (json.loads(o) for o, _ in outs)
    assert [h.returncode for h in hosts] == [1, 0], [e[-2000:] for _, e in outs]
    assert host0["outcome"] == "deadlock" and [b["process"] for b in host0["blocked"]] == [[0, 0]]
    assert "1 of 2 processes here" in host0["device"]
    assert host1["outcome"] == "completed" and host1["notes"] == ["process 1 of 2: completed"]
    assert {tuple(o["process"]) for o in host1["outputs"]} == {(0, 4), (0, 5), (0, 6), (0, 7)}


def test_confirm_on_the_multi_process_runtime():
    proc = run_cli("--confirm", "--confirm-engine", "xla-distributed", "--output-format", "json",
                   str(CORPUS / "deadlock" / "while_partition_trip_count.mlir"))
    data = json.loads(proc.stdout)
    diags = data if isinstance(data, list) else data.get("diagnostics", data.get("results", []))
    text = json.dumps(diags)
    assert "confirmed by execution (xla-distributed): processes (0, 1), (0, 2), (0, 3) blocked as predicted" in text, \
        proc.stdout[-3000:]
    assert "not reproduced" not in text
