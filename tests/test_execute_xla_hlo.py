"""`shlo-lint run` on XLA's HLO text: the XLA engine compiles the module with
jaxlib on the devices its header names and runs it in the watchdogged worker.
Every buggy_deadlock module of corpus/hlo aborts (XLA:CPU's verdict when the
corpus was made, VERDICTS.json) with the blocked devices at their instruction;
a sample of the completing ones completes. One subprocess run per module (an
abort waits for the shortened rendezvous timeout); the whole corpus is
bench/hlo_run_corpus.py."""
from __future__ import annotations

import json

import numpy as np
import pytest

from shlo_lint.checker.execute.run import RunOptions, run_path
from shlo_lint.checker.execute.xla.local import jax_available

from conftest import CORPUS, run_cli

pytestmark = pytest.mark.skipif(not jax_available(), reason="the XLA engine needs jax (pip install 'shlo-lint[jax]')")

HLO = CORPUS / "hlo"
VERDICTS = json.loads((HLO / "VERDICTS.json").read_text())["files"]
FAST = dict(engine="xla", xla_stuck_warn_s=1, xla_stuck_terminate_s=2, xla_timeout_s=60)

DEADLOCKS = sorted(f for f in VERDICTS if ".buggy_deadlock" in f)

COMPLETING = [
    "psum.hlo",                                    # one all-reduce
    "fori_pipeline.hlo",                           # while loop (known_trip_count 11), collective-permute
    "cond_collectives.hlo",                        # conditional with all-gather / all-reduce / permute
    "psum_tuple.hlo",                              # combined tuple all-reduce (f32 + bf16 as f32), bf16 input
    "auto_fsdp_step.hlo",                          # mesh groups, tuple all-to-all, combined all-reduce
    "auto_mesh3d_sum.hlo",                         # iota groups
    "auto_halo_stencil.hlo",                       # two permutes whose order the edges keep
    "mesh_psum_both_axes.gspmd.hlo",               # an order the importer changed without the edges
    "debug_print.hlo",                             # a host callback (jax.debug.print)
    "schedule/sync_collectives_scheduler_order.hlo",  # an SHLO505 program's compiled order: completes
    "dumps/fori_pipeline/module_0000.jit_body.cpu_after_optimizations.txt",
    "dumps/auto_tp_mlp/module_0000.jit__lambda.before_optimizations.txt",  # unscheduled: partitioned here
]


@pytest.mark.parametrize("name", DEADLOCKS)
def test_every_deadlocking_module_aborts_with_its_blocked_devices(name):
    assert VERDICTS[name]["verdict"] == "aborted"
    report = run_path(str(HLO / name), RunOptions(**FAST))
    xla = report.reports["xla"]
    assert xla.outcome == "aborted", (xla.message, xla.notes)
    assert "participants" in xla.message and "arrived" in xla.message
    assert report.exit_code() == 1
    assert xla.blocked, "the progress markers name no blocked device"
    lines = (HLO / name).read_text().split("\n")
    for b in xla.blocked:  # each at a collective instruction of the file, by line and column
        assert b.path == str(HLO / name) and b.line > 0
        assert lines[b.line - 1][b.column - 1:].startswith("%") and f" {b.op}(" in lines[b.line - 1]
    assert any(n.startswith("XLA:CPU gave up on the ") for n in xla.notes), xla.notes


def test_crossed_branches_block_at_the_collective_each_schedule_issues_first():
    """Branch 0 (partitions 0-1) issues its all-gather (line 19) and then its
    all-reduce, branch 1 (partitions 2-3) its all-reduce (line 39) first: each
    pair waits at its first collective for the other pair, as XLA scheduled them.
    Without the order edges the compiled copy had branch 0 issue its all-reduce
    first (measured: (0,0) and (0,1) were blocked at line 20)."""
    report = run_path(str(HLO / "schedule" / "crossed_independent_by_use_swapped.buggy_deadlock.hlo"),
                      RunOptions(**FAST))
    at = {b.process: (b.op, b.line) for b in report.reports["xla"].blocked}
    assert at == {(0, 0): ("all-gather", 19), (0, 1): ("all-gather", 19),
                  (0, 2): ("all-reduce", 39), (0, 3): ("all-reduce", 39)}


@pytest.mark.parametrize("name", COMPLETING)
def test_a_completing_module_completes(name):
    assert VERDICTS[name]["verdict"] == "completed"
    report = run_path(str(HLO / name), RunOptions(**FAST))
    xla = report.reports["xla"]
    assert xla.outcome == "completed", (xla.message, xla.notes)
    assert report.exit_code() == 0
    assert not [n for n in xla.notes if "order" in n or "collectives" in n], xla.notes
    n = VERDICTS[name]["replica_count"] * VERDICTS[name]["num_partitions"]
    if VERDICTS[name]["is_scheduled"]:
        assert report.mode == "per_device" and len(xla.outputs) == n
    else:
        assert report.mode == "global" and list(xla.outputs) == [None]


def test_the_compiled_and_the_unpartitioned_module_compute_the_same():
    """psum's before_optimizations dump takes the global array and is partitioned
    here; the compiled module takes each device's shard of the same global value
    (its parameter's sharding): both give the sum of the eight row blocks."""
    before = run_path(str(HLO / "dumps" / "psum" / "module_0000.jit__lambda.before_optimizations.txt"),
                      RunOptions(**FAST))
    after = run_path(str(HLO / "psum.hlo"), RunOptions(**FAST))
    assert before.outcome == after.outcome == "completed"
    (expected,) = before.primary.outputs[None]
    for p in range(8):
        assert np.allclose(after.primary.outputs[(0, p)][0], expected, rtol=1e-6, atol=1e-6)


def test_inputs_from_an_npz_are_sharded_by_the_parameter_sharding(tmp_path):
    x = np.arange(64, dtype=np.float32).reshape(16, 4)
    np.savez(tmp_path / "in.npz", arg0=x)
    proc = run_cli("run", "-f", "json", "--inputs", str(tmp_path / "in.npz"), str(HLO / "psum.hlo"))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    data = json.loads(proc.stdout)
    assert data["engine"] == "xla" and data["grid"] == [1, 8] and data["mode"] == "per_device"
    total = float(x.reshape(8, 2, 4).sum(axis=0).sum())
    assert [round(o["sum"], 3) for o in data["outputs"]] == [total] * 8


def test_json_of_an_abort_names_instructions_and_states():
    proc = run_cli("run", "-f", "json", "--xla-stuck-timeout", "2",
                   str(HLO / "cond_axis_index_psum.buggy_deadlock.hlo"))
    assert proc.returncode == 1, proc.stdout + proc.stderr
    data = json.loads(proc.stdout)
    assert data["outcome"] == "aborted" and data["engine"] == "xla"
    (b,) = data["blocked"]
    assert (b["process"], b["op"], b["line"], b["column"]) == ([0, 0], "all-reduce", 41, 3)
    assert "%psum_invariant.6" in b["waits_for"]
    assert b["stack"] == [f"conditional %conditional.1.clone at {HLO / 'cond_axis_index_psum.buggy_deadlock.hlo'}:62:3"]
    states = {tuple(p["process"]): p["state"] for p in data["processes"]}
    assert states[(0, 0)] == "blocked" and all(states[(0, k)] == "finished" for k in range(1, 8))


def test_the_watchdog_bounds_a_run_xla_does_not_abort_in_time():
    """XLA:CPU's termination timeout longer than the watchdog: the watchdog kills
    the worker (outcome timeout, exit 2); the markers still say who was blocked."""
    report = run_path(str(HLO / "cond_axis_index_psum.buggy_deadlock.hlo"),
                      RunOptions(engine="xla", xla_stuck_warn_s=30, xla_stuck_terminate_s=60, xla_timeout_s=8))
    xla = report.reports["xla"]
    assert xla.outcome == "timeout" and "watchdog" in xla.message
    assert report.exit_code() == 2
    assert [(b.process, b.line) for b in xla.blocked] == [((0, 0), 41)]


ASYNC_PAIR = """HloModule ars, is_scheduled=true, entry_computation_layout={(f32[4]{0})->f32[4]{0}}, num_partitions=4

%sum (a: f32[], b: f32[]) -> f32[] {
  %a = f32[] parameter(0)
  %b = f32[] parameter(1)
  ROOT %add = f32[] add(%a, %b)
}

ENTRY %main (x: f32[4]) -> f32[4] {
  %x = f32[4]{0} parameter(0)
  %start = f32[4]{0} all-reduce-start(%x), channel_id=1, replica_groups={{0,1,2,3}}, use_global_device_ids=true, to_apply=%sum
  ROOT %done = f32[4]{0} all-reduce-done(%start)
}
"""


def test_a_gpu_async_pair_runs_as_one_synchronous_collective(tmp_path):
    path = tmp_path / "async_pair.hlo"
    path.write_text(ASYNC_PAIR)
    np.savez(tmp_path / "in.npz", **{f"arg0_0_{p}": np.full(4, p, np.float32) for p in range(4)})
    from shlo_lint.checker.execute.values import Inputs

    report = run_path(str(path), RunOptions(**FAST, inputs=Inputs.parse(str(tmp_path / "in.npz"))))
    xla = report.reports["xla"]
    assert xla.outcome == "completed", (xla.message, xla.notes)
    assert xla.notes == []  # the compiled module has the pair's one collective, labelled as the start
    assert all(np.array_equal(out[0], np.full(4, 6.0)) for out in xla.outputs.values())


def test_send_recv_is_unsupported_on_xla_cpu(tmp_path):
    from test_execute_xla_hlo_text import SEND_RECV

    path = tmp_path / "send_recv.hlo"
    path.write_text(SEND_RECV)
    report = run_path(str(path), RunOptions(**FAST))
    xla = report.reports["xla"]
    assert xla.outcome == "unsupported" and "send" in xla.message and report.exit_code() == 2, xla.message


def test_broken_hlo_text_is_an_error_at_its_line(tmp_path):
    text = (HLO / "psum.hlo").read_text().replace("all-reduce(%param.1)", "all-reduce(%param.9)")
    path = tmp_path / "broken.hlo"
    path.write_text(text)
    report = run_path(str(path), RunOptions(**FAST))
    xla = report.reports["xla"]
    assert xla.outcome == "error" and report.exit_code() == 2
    assert xla.message.startswith(f"{path}:29:53: XLA's HLO parser: ") and "param.9" in xla.message


@pytest.mark.parametrize("name", ["auto_fsdp_step.hlo",          # bitcasts over layouts, tuple all-to-all, dots
                                  "auto_embedding_gather.hlo",   # a gather
                                  "psum_tuple.hlo",              # combined all-reduce, bf16
                                  "cond_collectives.hlo"])       # branches that take operands
def test_both_engines_compute_the_same_outputs(name):
    report = run_path(str(HLO / name), RunOptions(**{**FAST, "engine": "both"}))
    assert report.reports["interp"].outcome == report.reports["xla"].outcome == "completed"
    assert report.cross_check["status"] == "match", report.cross_check
    assert report.exit_code() == 0


def test_both_engines_block_the_same_devices_at_the_same_instructions():
    """The interpreter names the op as its IR does and XLA as the instruction: the
    cross-check compares what the catalog says each is, and the line."""
    report = run_path(str(HLO / "schedule" / "crossed_independent_by_use_swapped.buggy_deadlock.hlo"),
                      RunOptions(**{**FAST, "engine": "both"}))
    interp, xla = report.reports["interp"], report.reports["xla"]
    assert (interp.outcome, xla.outcome) == ("deadlock", "aborted")
    assert {b.process: (b.kind, b.line) for b in interp.blocked} == {b.process: (b.kind, b.line) for b in xla.blocked}
    assert {b.kind for b in xla.blocked} == {"all_gather", "all_reduce"}
    assert report.cross_check["status"] == "match" and "the same 4 processes" in report.cross_check["reason"]
    assert report.exit_code() == 1


def test_confirm_with_xla_replays_an_hlo_finding_on_the_text_itself():
    """`--confirm --confirm-engine both` on a compiled module: the interpreter and XLA:CPU
    (compiling the text) each confirm the finding, naming the devices and the instruction."""
    path = HLO / "schedule" / "crossed_independent_by_use_swapped.buggy_deadlock.hlo"
    proc = run_cli("--confirm", "--confirm-engine", "both", "-f", "json", str(path))
    assert proc.returncode == 1, proc.stdout + proc.stderr
    (d,) = [d for d in json.loads(proc.stdout)["diagnostics"] if d["code"] == "SHLO500"]
    notes = [n["message"] for n in d["related"]]
    for engine in ("interp", "xla"):
        (note,) = [n for n in notes if n.startswith(f"confirmed by execution ({engine}): ")]
        assert "(0, 0), (0, 1) at all-gather %all-gather.0, line 19; (0, 2), (0, 3) at all-reduce %all-reduce.2, " \
               "line 39" in note, note
