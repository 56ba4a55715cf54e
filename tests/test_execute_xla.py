"""The XLA engine: compile with jaxlib for N virtual CPU devices, run in a
subprocess under a watchdog, classify, and cross-check with the interpreter.
A handful of subprocess runs, a few seconds each."""
from __future__ import annotations

import hashlib
import json

import pytest

from shlo_lint.checker.execute.run import RunOptions, run_path
from shlo_lint.checker.execute.availability import jax_available

from conftest import CORPUS, run_cli

pytestmark = [pytest.mark.slow,  # XLA runs in subprocesses (`-m "not slow"` skips it)
              pytest.mark.skipif(not jax_available(), reason="the XLA engine needs jax (pip install 'shlo-lint[jax]')")]

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


def test_blocked_devices_come_from_their_own_progress_markers():
    """A cond whose branches run an all_reduce and an all_gather: XLA's log gives
    rank ids 0..1 for both rendezvous; the markers put each device at its op."""
    report = run_path(str(CORPUS / "deadlock" / "collectives_different_order.mlir"), RunOptions(engine="both", **FAST))
    xla = report.reports["xla"]
    assert xla.outcome == "aborted", xla.message
    at = {b.process: (b.op, b.line) for b in xla.blocked}
    assert at == {(0, 0): ("stablehlo.all_reduce", 13), (0, 2): ("stablehlo.all_reduce", 13),
                  (0, 1): ("stablehlo.all_gather", 21), (0, 3): ("stablehlo.all_gather", 21)}
    assert report.cross_check["status"] == "match", report.cross_check
    assert "same 4 processes blocked at the same ops" in report.cross_check["reason"]


def test_the_finished_process_is_not_blamed():
    """Process (0, 0) leaves the loop early; the other three wait in its all_reduce."""
    report = run_path(str(CORPUS / "deadlock" / "while_partition_trip_count.mlir"), RunOptions(engine="both", **FAST))
    xla = report.reports["xla"]
    assert sorted(b.process for b in xla.blocked) == [(0, 1), (0, 2), (0, 3)]
    assert xla.states[(0, 0)] == "finished"
    assert report.cross_check["status"] == "match", report.cross_check


def test_cross_check_compares_the_ops_too():
    from shlo_lint.checker.execute.interpreter import Blocked
    from shlo_lint.checker.execute.run import EngineReport, cross_check

    a = EngineReport("deadlock", "interp", "cpu", [Blocked((0, 0), "stablehlo.all_reduce", "f", 13, 1, "")])
    b = EngineReport("aborted", "xla", "cpu", [Blocked((0, 0), "stablehlo.all_gather", "f", 21, 1, "")])
    cc = cross_check(a, b, RunOptions())
    assert cc["status"] == "mismatch" and "line 13" in cc["reason"] and "line 21" in cc["reason"]
    b.blocked[0] = Blocked((0, 1), "stablehlo.all_reduce", "f", 13, 1, "")
    assert "blocked processes differ" in cross_check(a, b, RunOptions())["reason"]


def test_confirm_with_xla_confirms_a_real_deadlock():
    from shlo_lint.checker.execute.replay import confirm
    from shlo_lint.checker.execute.run import load
    from shlo_lint.checker.lint.config import Config
    from shlo_lint.checker.lint.engine import lint_text

    path = CORPUS / "real" / "cond_axis_index_psum.buggy_deadlock.mlir"
    diags = lint_text(path.read_text(), str(path), Config().merged(select=("deadlock",)))
    assert diags
    marked = confirm(diags, load(str(path)), RunOptions(**FAST), "xla")
    notes = [d.notes[-1].message for d in marked if d.category == "deadlock"]
    assert notes and all(n.startswith("confirmed by execution (xla): process (0, 0) blocked as predicted")
                         for n in notes), notes


def test_parser_rejection_is_unsupported_with_the_reason():
    report = run_path(str(CORPUS / "deadlock" / "async_cycle.mlir"), RunOptions(engine="xla", **FAST))
    xla = report.reports["xla"]
    assert xla.outcome == "unsupported"
    assert "unregistered operation 'stablehlo.all_reduce_start'" in xla.message


def test_while_loops_with_calls_compile():
    """XLA's while passes drop tuple elements but kept an explicit tuple sharding
    on the loop (RET_CHECK, then a crash): loops are left to propagation."""
    report = run_path(str(CORPUS / "deadlock" / "pipeline_permute_loop.mlir"), RunOptions(engine="both", **FAST))
    assert report.reports["xla"].outcome == "completed", report.reports["xla"].message
    assert report.cross_check["status"] == "match", report.cross_check


def test_markers_keep_the_data_layout():
    """An all_gather along dim 1: XLA gives it a column-major layout; the markers
    around it declare row-major buffers so passing the data through is exact."""
    report = run_path(str(CORPUS / "real" / "all_gather_tiled.mlir"), RunOptions(engine="both", **FAST))
    assert report.reports["xla"].notes == [], report.reports["xla"].notes
    assert report.cross_check["status"] == "match" and report.cross_check["max_abs_diff"] == 0, report.cross_check


BF16_PSUM = """module @m attributes {mhlo.num_partitions = 2 : i32, mhlo.num_replicas = 1 : i32} {
  func.func @main(%x: tensor<4xbf16>) -> tensor<4xbf16> {
    %0 = "stablehlo.all_reduce"(%x) ({
    ^bb0(%a: tensor<bf16>, %b: tensor<bf16>):
      %s = stablehlo.add %a, %b : tensor<bf16>
      stablehlo.return %s : tensor<bf16>
    }) {channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>,
        use_global_device_ids} : (tensor<4xbf16>) -> tensor<4xbf16>
    return %0 : tensor<4xbf16>
  }
}
"""


def test_bf16_arrays_travel_to_the_worker_and_back(tmp_path):
    """np.savez writes bfloat16 as raw void, which jax refused ("Dtype |V2 is not
    a valid JAX array type"): the arrays go as their bits and come back exact."""
    path = tmp_path / "bf16_psum.mlir"
    path.write_text(BF16_PSUM)
    report = run_path(str(path), RunOptions(engine="both", **FAST))
    xla = report.reports["xla"]
    assert xla.outcome == "completed", xla.message
    assert str(xla.outputs[(0, 0)][0].dtype) == "bfloat16"
    assert report.cross_check["status"] == "match" and report.cross_check["max_abs_diff"] == 0, report.cross_check


def test_arrays_file_keeps_ml_dtypes(tmp_path):
    import ml_dtypes
    import numpy as np

    from shlo_lint.checker.execute.xla.arrays import load_arrays, save_arrays

    arrays = {"a": np.array([1.5, -2.25], ml_dtypes.bfloat16), "b": np.array([0.5], ml_dtypes.float8_e4m3fn),
              "c": np.arange(3, dtype=np.int32)}
    save_arrays(str(tmp_path / "x.npz"), arrays)
    back = load_arrays(str(tmp_path / "x.npz"))
    assert set(back) == set(arrays)
    for k, a in arrays.items():
        assert back[k].dtype == a.dtype and np.array_equal(back[k].astype(np.float64), a.astype(np.float64))


def test_progress_records_last_one_wins_and_torn_lines_are_ignored(tmp_path):
    from shlo_lint.checker.execute.xla.markers import blocked_from_progress, read_progress

    path = tmp_path / "progress.txt"
    path.write_text("E 0 0 0\nX 0 0 0\nE 1 0 0\nE 0 0 1\nX 0 0 1\nE 1 0")  # the last line was cut by a kill
    progress = read_progress(str(path))
    assert progress == {(0, 0): ("E", 1, 3), (0, 1): ("X", 0, 2)}
    ops = [("stablehlo.all_reduce", 5, 3, None), ("stablehlo.all_gather", 9, 3, None)]
    blocked, states = blocked_from_progress(progress, ops, [o[0] for o in ops], [(0, 0), (0, 1)], "f.mlir")
    assert [(b.process, b.op, b.line) for b in blocked] == [((0, 0), "stablehlo.all_gather", 9)]
    assert states == {(0, 0): "blocked", (0, 1): "finished"}
    # the worker numbered other ops than ours: its op name, no line rather than a wrong one
    blocked, _ = blocked_from_progress(progress, ops, ["stablehlo.all_reduce", "stablehlo.all_to_all"],
                                       [(0, 0), (0, 1)], "f.mlir")
    assert [(b.op, b.line) for b in blocked] == [("stablehlo.all_to_all", 0)]


ASYNC_BRANCH = """\
// Partition 0 alone starts an async all_reduce and waits for its peers at the async_start.
module @async_branch attributes {mhlo.num_partitions = 4 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%x: tensor<4xf32>) -> tensor<4xf32> {
    %p = stablehlo.partition_id : tensor<ui32>
    %c0 = stablehlo.constant dense<0> : tensor<ui32>
    %first = stablehlo.compare EQ, %p, %c0, UNSIGNED : (tensor<ui32>, tensor<ui32>) -> tensor<i1>
    %i = stablehlo.convert %first : (tensor<i1>) -> tensor<i32>
    %r = "stablehlo.case"(%i) ({
      stablehlo.return %x : tensor<4xf32>
    }, {
      %f = "stablehlo.async_start"(%x) ({
      ^bb0(%a: tensor<4xf32>):
        %s = "stablehlo.all_reduce"(%a) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>, use_global_device_ids}> ({
        ^bb0(%u: tensor<f32>, %v: tensor<f32>):
          %t = stablehlo.add %u, %v : tensor<f32>
          stablehlo.return %t : tensor<f32>
        }) : (tensor<4xf32>) -> tensor<4xf32>
        stablehlo.return %s : tensor<4xf32>
      }) : (tensor<4xf32>) -> !stablehlo.future<tensor<4xf32>>
      %y = stablehlo.tanh %x : tensor<4xf32>
      %d = "stablehlo.async_done"(%f) : (!stablehlo.future<tensor<4xf32>>) -> tensor<4xf32>
      %z = stablehlo.add %d, %y : tensor<4xf32>
      stablehlo.return %z : tensor<4xf32>
    }) : (tensor<i32>) -> tensor<4xf32>
    return %r : tensor<4xf32>
  }
}
"""


def test_an_async_collective_blocks_at_its_async_start(tmp_path):
    """The markers go around the async_start / async_done pair (the start's region
    must hold exactly the collective); the device is reported where the
    interpreter and the static analysis put it: at the async_start, where XLA
    issues the collective (issue_order.py)."""
    from shlo_lint.checker.lint.config import Config
    from shlo_lint.checker.lint.engine import lint_text
    from shlo_lint.checker.execute.replay import confirm
    from shlo_lint.checker.execute.run import load

    path = tmp_path / "async_branch.mlir"
    path.write_text(ASYNC_BRANCH)
    report = run_path(str(path), RunOptions(engine="both", **FAST))
    xla = report.reports["xla"]
    assert xla.notes == [] and xla.outcome == "aborted", (xla.notes, xla.message)
    assert [(b.process, b.op, b.line) for b in xla.blocked] == [((0, 0), "stablehlo.async_start", 11)]
    assert "all_reduce at line 13" in xla.blocked[0].waits_for
    assert report.cross_check["status"] == "match", report.cross_check
    diags = lint_text(ASYNC_BRANCH, str(path), Config().merged(select=("deadlock",)))
    marked = confirm([d for d in diags if d.trace], load(str(path)), RunOptions(**FAST), "xla")
    assert marked and all(d.notes[-1].message.startswith("confirmed by execution (xla)") for d in marked)


def test_send_recv_is_unsupported_on_xla_cpu():
    proc = run_cli("run", "--engine", "both", "-f", "json", str(CORPUS / "real" / "sendrecv_pair.gspmd.mlir"))
    data = json.loads(proc.stdout)
    assert data["engines"]["xla"]["outcome"] == "unsupported"
    assert "HLO opcode `send` is not supported by XLA:CPU" in data["engines"]["xla"]["message"]
    assert data["engines"]["interp"]["outcome"] == "completed" and data["cross_check"]["status"] == "skipped"
    assert proc.returncode == 2  # XLA was asked for and could not run it: not a pass
