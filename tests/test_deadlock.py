"""The deadlock model (checker/analysis/process_model/) and its rules (SHLO500-503, SHLO505): verdicts
on every corpus/deadlock case and real JAX export, counterexamples, matching
semantics, options, output formats. Its time and size limits: test_deadlock_limits.py."""
from __future__ import annotations

import json
import sys

import pytest

from shlo_lint import Config, lint_text
from shlo_lint.checker.lint.config import ConfigError
from shlo_lint.checker.analysis.process_model import analyze, options_of
from shlo_lint.checker.frontend.read import header_parser as parser
from shlo_lint.checker.ir.core import Operation
from shlo_lint.checker.frontend.stablehlo.scan import scan
from shlo_lint.checker.analysis.semantics import grid_of
from shlo_lint.checker.source.text import SourceFile

from conftest import CORPUS, run_cli
from deadlock_helpers import verdict_of

sys.path.insert(0, str(CORPUS / "deadlock"))
from generate_grids import corpus_files, sendrecv  # noqa: E402

# Uniformity cases (real JAX exports, corpus/deadlock/generate_uniform.py; tests/test_uniform.py
# checks them in depth): what XLA:CPU did with each is the verdict.
UNIFORM_CASES = {
    f"uniform_{name}{variant}.mlir": verdict
    for name, verdict in {
        "pmax_loop": ("deadlock-free", None, 0),            # completed
        "replicated_cond": ("deadlock-free", None, 0),      # completed
        "table_switch_same": ("deadlock-free", None, 0),    # completed
        "table_switch": ("deadlock", None, 0),              # aborted: all_reduce / all_gather rendezvous
        "local_loop": ("unknown", None, 0),                 # aborted (SHLO504: may deadlock)
        "row_loop_psum_row": ("deadlock-free", None, 0),    # completed
        "row_loop_psum_all": ("unknown", None, 0),          # aborted (SHLO504: may deadlock)
    }.items()
    for variant in ("", ".gspmd", ".debug")
    if variant != ".debug" or name in ("pmax_loop", "local_loop", "table_switch")
}


# (status, deadlock kind or None, blocked processes (flattened) of the first deadlock)
EXPECTED = {
    "recv_before_send_ring.mlir": ("deadlock", "cycle", 4),
    "send_before_recv_ring.mlir": ("deadlock-free", None, 0),
    "recv_before_send_chain.mlir": ("deadlock-free", None, 0),
    "send_without_recv.mlir": ("deadlock", "missing-peer", 1),
    "recv_without_send.mlir": ("deadlock", "missing-peer", 1),
    "mismatched_pairs.mlir": ("deadlock", "missing-peer", 4),
    "channel_mismatch.mlir": ("deadlock", "missing-peer", 2),  # the recv on 1, and the send on 2 never received
    "branch_on_partition_collective.mlir": ("deadlock", "missing-peer", 1),
    "branch_whole_group.mlir": ("deadlock-free", None, 0),
    "collectives_different_order.mlir": ("deadlock", "cycle", 4),
    "same_channel_both_branches.mlir": ("deadlock-free", None, 0),  # on XLA; a warning (SHLO502)
    "meets_psum_pmax.mlir": ("deadlock-free", None, 0),  # on XLA; a warning (SHLO506: they reduce differently)
    "meets_same_reduction.mlir": ("deadlock-free", None, 0),  # on XLA; a warning (SHLO502)
    "meets_other_operand.mlir": ("deadlock-free", None, 0),  # on XLA (SHLO502, SHLO507: one sum over both)
    "meets_pipeline_stages.mlir": ("deadlock-free", None, 0),  # the k-th meets the k-th (SHLO508)
    "meets_pipeline_every_step.mlir": ("deadlock-free", None, 0),
    "different_channel_both_branches.mlir": ("deadlock", "missing-peer", 4),
    "permute_both_branches.mlir": ("deadlock-free", None, 0),  # on XLA; a warning (SHLO502)
    "no_channel_both_branches.mlir": ("deadlock-free", None, 0),  # channel-less ops share XLA's key: SHLO502
    "groups_written_differently.mlir": ("deadlock-free", None, 0),  # same XLA device list: SHLO502
    "group_order_differs.mlir": ("deadlock", "missing-peer", 2),  # XLA:CPU aborts: the device lists differ
    "pmax_group_trip_count.mlir": ("deadlock", "missing-peer", 2),  # XLA:CPU aborts: 2 of 4 arrived
    "pmax_group_trip_count_same.mlir": ("deadlock-free", None, 0),  # completes: pmax is 2 in both pairs
    "crossed_independent_by_use.mlir": ("deadlock", "cycle", 4),  # schedule-dependent (SHLO505): XLA:CPU completes
    "permute_branch_partial_group.mlir": ("deadlock", "missing-peer", 2),  # XLA:CPU aborts: 2 of 4 arrived
    "while_partition_trip_count.mlir": ("deadlock", "missing-peer", 3),
    "async_cycle.mlir": ("deadlock", "cycle", 2),
    "async_starts_crossed_through_calls.mlir": ("deadlock", "cycle", 2),
    "send_recv_different_channels.mlir": ("deadlock", "missing-peer", 2),
    "self_wait.mlir": ("deadlock", "cycle", 2),
    "sync_collectives_scheduler_order.mlir": ("deadlock", "cycle", 4),
    "jax_psend_without_precv.mlir": ("deadlock", "missing-peer", 7),
    "jax_precv_without_psend.mlir": ("deadlock", "missing-peer", 7),
    "jax_cond_async_starts_crossed.mlir": ("deadlock", "cycle", 8),
    "jax_cond_async_starts_scheduler_order.mlir": ("deadlock", "cycle", 8),
    "pipeline_sendrecv_loop.mlir": ("deadlock-free", None, 0),
    "pipeline_permute_loop.mlir": ("deadlock-free", None, 0),
    "data_dependent_branch.mlir": ("unknown", None, 0),
    "grid_1024_ring_recv_first.mlir": ("deadlock", "cycle", 1024),
    "grid_1024_ring_send_first.mlir": ("deadlock-free", None, 0),
    "grid_4096_permute_pipeline.mlir": ("deadlock-free", None, 0),
    "grid_4096_sendrecv_pipeline.mlir": ("deadlock-free", None, 0),
    "grid_2048_branch_half_psum.mlir": ("deadlock", "missing-peer", 1024),
    "grid_2x1024_branch_whole_replica.mlir": ("deadlock-free", None, 0),
}
EXPECTED |= UNIFORM_CASES


def test_every_corpus_case_has_an_expected_verdict():
    assert sorted(EXPECTED) == sorted(p.name for p in (CORPUS / "deadlock").glob("*.mlir"))


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_corpus_verdict(name):
    status, kind, nblocked = EXPECTED[name]
    v = verdict_of(CORPUS / "deadlock" / name)
    assert v.status == status, (v.reason, v.deadlocks)
    if kind is not None:
        assert [d.kind for d in v.deadlocks] == [kind]
        assert len(v.deadlocks[0].blocked) == nblocked
    if status == "unknown":
        assert v.reason


def test_big_grid_files_are_up_to_date():
    for name, (text, expect) in corpus_files().items():
        assert (CORPUS / "deadlock" / name).read_text() == text, f"run python corpus/deadlock/generate_grids.py"


REAL = sorted((CORPUS / "real").glob("*.mlir"))


@pytest.mark.parametrize("path", REAL, ids=lambda p: p.name)
def test_no_false_deadlock_on_real_exports(path):
    v = verdict_of(path)
    if ".buggy_deadlock" in path.name and path.name.startswith("mesh_cond_ppermute"):
        # 4x2 mesh: the ring ppermute over "x" runs where axis_index("y") == 0
        # (even partitions); XLA meets it as a rendezvous of all 8 (XLA:CPU: 4 of 8 arrived)
        assert v.status == "deadlock"
        d, = v.deadlocks
        assert d.kind == "missing-peer"
        assert {b.process for b in d.blocked} == {(0, p) for p in (0, 2, 4, 6)}
        assert all(b.op.name == "stablehlo.collective_permute" for b in d.blocked)
        assert {w.process for w in d.blocked[0].waits_for} == {(0, p) for p in (1, 3, 5, 7)}
    elif ".buggy_deadlock" in path.name and path.name.startswith("fori_trip_axis_index"):
        # trip count axis_index + 1, a psum per trip: after the first, (0, 0) is
        # done and the other seven wait for it at the second
        assert v.status == "deadlock"
        d, = v.deadlocks
        assert d.kind == "missing-peer"
        assert {b.process for b in d.blocked} == {(0, p) for p in range(1, 8)}
        assert all(b.op.name == "stablehlo.all_reduce" for b in d.blocked)
        assert {w.process for w in d.blocked[0].waits_for} == {(0, 0)}
    elif ".buggy_deadlock" in path.name and path.name.startswith("partial_manual_cond_psum"):
        # shard_map manual over "x" only on a 2x4 mesh, psum over "x" where
        # axis_index("x") == 0 (read through a nested manual computation / a
        # ShardToFull that stays manual): row 0 waits for row 1 (XLA:CPU: 1 of 2 arrived)
        assert v.status == "deadlock"
        d, = v.deadlocks
        assert d.kind == "missing-peer"
        waits = {b.process: {w.process for w in b.waits_for} for b in d.blocked}
        assert waits == {(0, p): {(0, p + 4)} for p in range(4)}
        assert all(b.op.name == "stablehlo.all_reduce" for b in d.blocked)
    elif ".buggy_deadlock" in path.name and path.name.startswith("mesh_cond_y_psum_y"):
        # 2x4 mesh, psum over "y" where axis_index("y") == 0: partitions 0 and 4
        # enter, each waits for the three others of its row
        assert v.status == "deadlock"
        d, = v.deadlocks
        assert d.kind == "missing-peer"
        assert {b.process for b in d.blocked} == {(0, 0), (0, 4)}
        assert all(b.op.name == "stablehlo.all_reduce" for b in d.blocked)
        waits = {b.process: {w.process for w in b.waits_for} for b in d.blocked}
        assert waits == {(0, 0): {(0, 1), (0, 2), (0, 3)}, (0, 4): {(0, 5), (0, 6), (0, 7)}}
    elif ".buggy_deadlock" in path.name:
        assert v.status == "deadlock"
        d, = v.deadlocks
        assert d.kind == "missing-peer" and d.chain[0] == (0, 0)
        b, = d.blocked
        assert b.op.name == "stablehlo.all_reduce" and b.process == (0, 0)
        assert {w.process for w in b.waits_for} == {(0, p) for p in range(1, 8)}
        assert all(w.state == "finished" for w in b.waits_for)
    elif ".buggy_gpu_deadlock" in path.name:  # custom_call @ragged_all_to_all under a cond on axis_index
        assert v.status == "deadlock"
        d, = v.deadlocks
        b, = d.blocked
        assert b.op.name == "stablehlo.custom_call" and b.process == (0, 0)
        assert {w.process for w in b.waits_for} == {(0, p) for p in range(1, 8)}
    else:
        assert v.status == "deadlock-free", (v.reason, v.deadlocks)


QUOTIENT_CASES = sorted((CORPUS / "deadlock").glob("*.mlir")) + REAL


@pytest.mark.parametrize("path", QUOTIENT_CASES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_class_quotient_never_proves_what_propagation_refutes(path):
    """The quotient is sound: whenever Z3 finds a class-level schedule, the exact
    per-process check completes too (both matchings)."""
    from shlo_lint.checker.analysis.process_model import Model
    from shlo_lint.checker.analysis.process_model.model import Facts
    from shlo_lint.checker.analysis.process_model.quotient import z3_classes
    from shlo_lint.checker.analysis.process_model.quotient import linear_classes
    from shlo_lint.checker.analysis.tracer.structure import structure
    from shlo_lint.checker.analysis.tracer.tracer import trace

    m = scan(SourceFile("t.mlir", path.read_text()), parser())
    s = structure(m)
    if s.uniform:
        return
    tr = trace(m, grid_of(m), s)
    facts = Facts(tr.grid, s)
    for matching in ("spec", "xla"):
        q = z3_classes(tr, facts, matching, 5000, {})
        assert linear_classes(tr, facts, matching, {}) == q  # the linear check decides what Z3 decides
        model = Model(tr, facts, matching, max_events=10 ** 7, deadline=None)
        final = model.propagate()
        complete = all(final[p] == len(model.events[p]) for p in range(tr.grid.size))
        if q == "sat":
            assert complete, (path.name, matching)


# ----------------------------------------------------------------------------- counterexamples
def test_ring_counterexample_closes_the_cycle_with_a_z3_core():
    v = verdict_of(CORPUS / "deadlock" / "recv_before_send_ring.mlir")
    d, = v.deadlocks
    assert d.chain == [(0, 0), (0, 3), (0, 2), (0, 1)]  # each waits for the next, the last for the first
    assert len(d.core) == 4 and all("waits for" in c for c in d.core)
    for b in d.blocked:
        assert isinstance(b.op, Operation) and b.op.name == "stablehlo.recv"
        w, = b.waits_for
        assert w.state == "blocked" and w.at.op is b.op
        assert w.need is not None and w.need.name == "stablehlo.send"  # the send it needs, never reached


def test_async_cycle_blocks_at_the_starts_in_issue_order():
    """XLA issues starts in program order: process 0 issues the all_reduce first,
    process 1 the all_gather; each start waits there for the other."""
    v = verdict_of(CORPUS / "deadlock" / "async_cycle.mlir")
    d, = v.deadlocks
    assert sorted(b.op.name for b in d.blocked) == ["stablehlo.all_gather_start", "stablehlo.all_reduce_start"]
    assert [p for p, _items in d.orders] == [(0, 0), (0, 1)]
    assert [t for _s, t in d.orders[0][1]] == ["all_reduce (started) at line 13 (blocked here)",
                                                "all_gather (started) at line 19"]
    assert [t for _s, t in d.orders[1][1]] == ["all_gather (started) at line 24 (blocked here)",
                                                "all_reduce (started) at line 27"]


def test_async_cycle_under_the_spec_reading_blocks_at_the_dones():
    v = verdict_of(CORPUS / "deadlock" / "async_cycle.mlir", **{"deadlock-matching": "spec"})
    d, = v.deadlocks
    assert sorted(b.op.name for b in d.blocked) == ["stablehlo.all_gather_done", "stablehlo.all_reduce_done"]
    assert [s.op.name for s in d.blocked[0].completed] == ["stablehlo.all_reduce_start"]


def test_unmatched_send_blocks_the_sender_at_its_end():
    v = verdict_of(CORPUS / "deadlock" / "send_without_recv.mlir")
    b, = v.deadlocks[0].blocked
    assert b.at_end and b.op.name == "stablehlo.send" and b.process == (0, 0)
    assert b.waits_for[0].process == (0, 1) and b.waits_for[0].state == "finished"


def test_channel_mismatch_points_at_the_send_on_the_other_channel():
    v = verdict_of(CORPUS / "deadlock" / "channel_mismatch.mlir")
    b = next(b for b in v.deadlocks[0].blocked if not b.at_end)
    op, text = b.hint
    assert op.name == "stablehlo.send" and "channel 2" in text


# ----------------------------------------------------------------------------- matching
def test_matching_semantics_is_an_option():
    case = CORPUS / "deadlock" / "same_channel_both_branches.mlir"
    xla = verdict_of(case)
    assert xla.status == "deadlock-free" and xla.matching == "xla"
    m, = xla.xla_only
    assert m.kind == "all_reduce" and m.channel == 1 and len(m.ops) == 2
    assert xla.spec_deadlocks
    spec = verdict_of(case, **{"deadlock-matching": "spec"})
    assert spec.status == "deadlock" and spec.matching == "spec"
    codes = [d.code for d in lint_text(case.read_text(), "t.mlir", Config(options={"deadlock-matching": "spec"}))]
    assert codes == ["SHLO501"]


def test_a_permute_is_a_group_rendezvous_under_xla_matching_only():
    # pairs 0<->1 under `if partition_id < 2` on 4 partitions: XLA waits for the
    # whole group (XLA:CPU aborts, 2 of 4 arrived); the spec's reading waits for
    # the source only, and both ends of the one pair are there
    case = CORPUS / "deadlock" / "permute_branch_partial_group.mlir"
    xla = verdict_of(case)
    assert xla.status == "deadlock"
    b = xla.deadlocks[0].blocked[0]
    assert b.op.name == "stablehlo.collective_permute" and b.process == (0, 0)
    assert {w.process for w in b.waits_for} == {(0, 2), (0, 3)}
    assert verdict_of(case, **{"deadlock-matching": "spec"}).status == "deadlock-free"
    # the whole group taking the branch is fine under both
    whole = case.read_text().replace("dense<2> : tensor<ui32>", "dense<4> : tensor<ui32>")
    assert verdict_of(whole).status == "deadlock-free"
    assert verdict_of(whole, **{"deadlock-matching": "spec"}).status == "deadlock-free"


def test_bad_options_are_refused_before_linting():
    """A bad option must not let the analysis run with its default and exit 0:
    the library API refuses it when the Config is made, as the CLI does for -O."""
    with pytest.raises(ValueError):
        options_of({"deadlock-matching": "mpi"})
    with pytest.raises(ValueError):
        options_of({"z3-timeout-ms": "soon"})
    with pytest.raises(ConfigError, match="deadlock-matching.*'mpi'"):
        Config(options={"deadlock-matching": "mpi"})
    with pytest.raises(ConfigError, match="did you mean `deadlock-matching`"):
        Config().merged(options={"deadlock-matchng": "spec"})


def test_scheduler_order_is_named():
    v = verdict_of(CORPUS / "deadlock" / "jax_cond_async_starts_scheduler_order.mlir")
    assert v.schedule is not None and "XLA's scheduler may issue the all_gather" in v.reason
    assert v.schedule.first.op.name == v.schedule.second.op.name == "stablehlo.async_start"
    written = verdict_of(CORPUS / "deadlock" / "jax_cond_async_starts_scheduler_order.mlir",
                         **{"deadlock-matching": "spec"})
    assert written.schedule is None


def test_one_schedule_per_computation():
    """The scheduler's order applies to every run of a block, and only inside
    branches (where processes run different computations)."""
    from shlo_lint.checker.analysis.process_model.model import Facts
    from shlo_lint.checker.analysis.process_model.schedule import candidates, variant
    from shlo_lint.checker.analysis.tracer.structure import structure
    from shlo_lint.checker.analysis.tracer.tracer import trace

    m = scan(SourceFile("t.mlir", (CORPUS / "deadlock" / "sync_collectives_scheduler_order.mlir").read_text()),
             parser())
    s = structure(m)
    tr = trace(m, grid_of(m), s)
    r, = candidates(tr, Facts(tr.grid, s))
    assert (r.first.op.name, r.second.op.name) == ("stablehlo.all_reduce", "stablehlo.all_gather")
    vt = variant(tr, r)
    assert [st.op.name for st in vt.steps_of((0, 0))] == ["stablehlo.all_gather", "stablehlo.all_reduce"]
    assert [st.op.name for st in vt.steps_of((0, 2))] == ["stablehlo.all_reduce", "stablehlo.all_gather"]
    # the same two collectives in a body every process runs: one schedule for all, no candidate
    m = scan(SourceFile("t.mlir", (CORPUS / "real" / "async_two_overlapping.mlir").read_text()), parser())
    s = structure(m)
    tr = trace(m, grid_of(m), s)
    assert candidates(tr, Facts(tr.grid, s)) == []


def _xla_outcome(path):
    from shlo_lint.checker.execute.run import RunOptions, run_path

    opts = RunOptions(engine="xla", xla_stuck_warn_s=1, xla_stuck_terminate_s=2, xla_timeout_s=90)
    return run_path(str(path), opts).reports["xla"]


def _jax():
    from shlo_lint.checker.execute.availability import jax_available

    return jax_available()


@pytest.mark.slow  # XLA runs each program in a subprocess
@pytest.mark.skipif(not _jax(), reason="needs jax for the XLA engine")
@pytest.mark.parametrize("name", ["async_starts_crossed_through_calls.mlir", "jax_cond_async_starts_crossed.mlir",
                                  "jax_cond_async_starts_scheduler_order.mlir"])
def test_issue_order_deadlocks_abort_on_xla_cpu(name):
    """Ground truth for the issue-order model: XLA:CPU aborts these."""
    r = _xla_outcome(CORPUS / "deadlock" / name)
    assert r.outcome == "aborted", (r.outcome, r.message)


@pytest.mark.skipif(not _jax(), reason="needs jax for the XLA engine")
@pytest.mark.parametrize("name", sorted(n for n, (s, _k, _b) in EXPECTED.items()
                                        if s == "deadlock-free" and "both_branches" in n))
def test_completes_on_xla_claims_hold_on_xla_cpu(name):
    """Every SHLO502 ("completes on XLA only because ...") must be true on XLA:CPU; so
    must SHLO506 / SHLO507, which say the same with what the meeting ops compute."""
    codes = [d.code for d in lint_text((CORPUS / "deadlock" / name).read_text(), "t.mlir")]
    assert {"SHLO502", "SHLO506", "SHLO507"} & set(codes)
    r = _xla_outcome(CORPUS / "deadlock" / name)
    assert r.outcome == "completed", (r.outcome, r.message)


# ----------------------------------------------------------------------------- peers inside the program
def test_external_channels_option_both_forms():
    from shlo_lint.checker.analysis.process_model.decide import external_channels

    assert external_channels("1,3") == {1, 3} == external_channels([1, 3]) == external_channels(" 3 , 1 ")
    assert external_channels("") == frozenset() == external_channels([])
    assert external_channels(2) == {2}
    for bad in ("1,x", ["a"], [1.5], [True], "-1"):
        with pytest.raises(ValueError, match="external-channels"):
            external_channels(bad)
    assert options_of({"external-channels": "2"})["external-channels"] == {2}


@pytest.mark.parametrize("name, channels", [("send_recv_different_channels.mlir", "1,2"),
                                            ("jax_psend_without_precv.mlir", "1"),
                                            ("jax_precv_without_psend.mlir", [1])])
def test_declared_external_channels_are_not_matched(name, channels):
    path = CORPUS / "deadlock" / name
    assert verdict_of(path, **{"external-channels": channels}).status == "deadlock-free"
    codes = [d.code for d in lint_text(path.read_text(), "t.mlir", Config(options={"external-channels": channels}))
             if d.category == "deadlock"]
    assert codes == []


def test_one_external_channel_leaves_the_other_matched():
    path = CORPUS / "deadlock" / "send_recv_different_channels.mlir"
    v = verdict_of(path, **{"external-channels": "2"})  # the recv talks to another program; the send still hangs
    d, = v.deadlocks
    b, = d.blocked
    assert b.at_end and b.process == (0, 0) and b.waits_for[0].process == (0, 1)


def test_unmatched_device_send_names_waiting_process_and_missing_peer():
    diags = lint_text((CORPUS / "deadlock" / "jax_psend_without_precv.mlir").read_text(), "t.mlir")
    d, = [d for d in diags if d.code == "SHLO501"]
    assert d.message.startswith("deadlock: process (0, 0) cannot finish: (0, 1) never receives from it on channel 1")
    diags = lint_text((CORPUS / "deadlock" / "jax_precv_without_psend.mlir").read_text(), "t.mlir")
    d, = [d for d in diags if d.code == "SHLO501"]
    assert d.message.startswith("deadlock: process (0, 1) hangs at this recv: (0, 0) never sends to it on channel 1")


def test_one_send_too_few_is_counted_not_a_placeholder():
    """The recv that has no send says how many sends there are (not "the n-th send")."""
    d, = [d for d in lint_text((CORPUS / "deadlock" / "recv_without_send.mlir").read_text(), "t.mlir")
          if d.code == "SHLO501"]
    assert d.message == "deadlock: process (0, 1) hangs at this recv: (0, 0) sends to it on channel 1 only once"
    d, = [d for d in lint_text((CORPUS / "deadlock" / "send_without_recv.mlir").read_text(), "t.mlir")
          if d.code == "SHLO501"]
    assert d.message == "deadlock: process (0, 0) cannot finish: (0, 1) receives from it on channel 1 only once"


# ----------------------------------------------------------------------------- messages
def test_a_self_wait_says_so():
    d, = [d for d in lint_text((CORPUS / "deadlock" / "self_wait.mlir").read_text(), "t.mlir") if d.code == "SHLO500"]
    assert "processes (0, 0), (0, 1) each wait at this recv for an op later in their own program" in d.message
    assert "cycle" not in d.message
    one = (CORPUS / "deadlock" / "self_wait.mlir").read_text().replace("[[0, 0], [1, 1]]> : tensor<2x2xi64>",
                                                                     "[[0, 0]]> : tensor<1x2xi64>")
    d, = [d for d in lint_text(one, "t.mlir") if d.code == "SHLO500"]
    assert d.message.startswith("deadlock: process (0, 0) waits at this recv for an op later in its own program")


def test_a_cycle_names_every_process_up_to_a_limit():
    """The headline says how many and where; the chain of waits is a note."""
    d, = [d for d in lint_text(sendrecv(8, recv_first=True), "t.mlir") if d.code == "SHLO500"]
    assert d.message == "deadlock: 8 processes wait for each other in a cycle; process (0, 0) waits at this recv " \
                        "from (0, 7)"
    assert d.notes[0].message.endswith("(0, 0) → (0, 7) → (0, 6) → (0, 5) → (0, 4) → (0, 3) → (0, 2) → (0, 1) → "
                                       "(0, 0)")
    d, = [d for d in lint_text(sendrecv(40, recv_first=True), "t.mlir") if d.code == "SHLO500"]
    assert d.message.startswith("deadlock: 40 processes wait for each other in a cycle")
    assert "(0, 25) → … and 24 more → (0, 0)" in d.notes[0].message


def test_processes_caught_in_a_group_cycle_are_all_named():
    d, = [d for d in lint_text((CORPUS / "deadlock" / "collectives_different_order.mlir").read_text(), "t.mlir")
          if d.code == "SHLO500"]
    assert d.message.startswith("deadlock: 4 processes issue collectives in different orders")
    assert sorted(tuple(t.process) for t in d.trace) == [(0, 0), (0, 1), (0, 2), (0, 3)]


# ----------------------------------------------------------------------------- rules and output
def test_grid_unknown_is_noted_once():
    text = (CORPUS / "deadlock" / "recv_before_send_ring.mlir").read_text().replace(
        " attributes {mhlo.num_partitions = 4 : i32, mhlo.num_replicas = 1 : i32}", "")
    diags = lint_text(text, "t.mlir")
    grid = [d for d in diags if d.code == "SHLO190"]
    assert len(grid) == 1 and any("the deadlock analysis" in n.message for n in grid[0].notes)
    assert not [d for d in diags if d.category == "deadlock"]


def test_uniform_programs_need_no_grid():
    text = (CORPUS / "real" / "psum.mlir").read_text().replace(
        " attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32}", "")
    diags = lint_text(text, "t.mlir")
    assert not [d for d in diags if d.category == "deadlock"]
    assert not [d for d in diags if "deadlock" in d.message]  # the grid note does not list it


def test_python_line_from_loc_is_a_note():
    path = CORPUS / "real" / "cond_axis_index_psum.debug.buggy_deadlock.mlir"
    d, = [d for d in lint_text(path.read_text(), str(path)) if d.category == "deadlock"]
    assert d.code == "SHLO501" and d.severity.value == "error"
    assert any(n.location.path == "corpus/generate.py" and n.location.line for n in d.notes)
    assert any("(0, 0) to branch 1" in n.message for n in d.notes)


def test_json_and_sarif_carry_the_trace():
    path = CORPUS / "deadlock" / "recv_before_send_ring.mlir"
    proc = run_cli("--output-format", "json", str(path))
    assert proc.returncode == 1
    d, = json.loads(proc.stdout)["diagnostics"]
    assert d["code"] == "SHLO500" and d["category"] == "deadlock"
    assert [t["process"] for t in d["trace"]] == [[0, 0], [0, 3], [0, 2], [0, 1]]
    assert all(t["steps"][-1]["blocked"] and t["steps"][-1]["line"] == 7 for t in d["trace"])
    assert d["trace"][0]["waits_for"].startswith("waits for process (0, 3) to send on channel 1")
    proc = run_cli("--output-format", "sarif", str(path))
    result, = json.loads(proc.stdout)["runs"][0]["results"]
    flows = result["codeFlows"][0]["threadFlows"]
    assert len(flows) == 4 and flows[0]["locations"][-1]["kinds"] == ["blocked"]


def test_text_output_and_suppression():
    path = CORPUS / "deadlock" / "branch_on_partition_collective.mlir"
    proc = run_cli(str(path))
    assert "error[SHLO501] deadlock: process (0, 0) hangs at this all_reduce" in proc.stdout
    assert "= trace: process (0, 0): blocked at" in proc.stdout
    text = path.read_text().replace('      %s = "stablehlo.all_reduce"',
                                    '      // shlo-lint: ignore[SHLO501]\n      %s = "stablehlo.all_reduce"')
    diags = lint_text(text, "t.mlir")
    assert not [d for d in diags if d.category == "deadlock"]
    assert not [d for d in diags if "deadlock" in d.message]  # the grid note does not list it


# ----------------------------------------------------------------------------- property
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402


@st.composite
def uniform_p2p_programs(draw):
    """A uniform program (one process class) of random sends, recvs and permutes."""
    n = draw(st.integers(2, 5))
    ops = []
    for k in range(draw(st.integers(1, 6))):
        kind = draw(st.sampled_from(["send", "recv", "permute"]))
        perm = draw(st.permutations(range(n)))
        keep = draw(st.lists(st.booleans(), min_size=n, max_size=n))
        pairs = [(s, t) for s, t, kp in zip(range(n), perm, keep) if kp and s != t] or [(0, 1)]
        ch = draw(st.sampled_from([1, 2]))
        ops.append((kind, pairs, ch))
    return n, ops


def _render(n, ops):
    lines = ["    %t0 = stablehlo.create_token : !stablehlo.token"]
    tok = "%t0"
    for k, (kind, pairs, ch) in enumerate(ops):
        p = "dense<[" + ", ".join(f"[{s}, {t}]" for s, t in pairs) + f"]> : tensor<{len(pairs)}x2xi64>"
        attrs = f"channel_handle = #stablehlo.channel_handle<handle = {ch}, type = 1>, source_target_pairs = {p}"
        if kind == "send":
            lines.append(f'    %t{k + 1} = "stablehlo.send"(%x, {tok}) <{{{attrs}}}> : '
                         f'(tensor<4xf32>, !stablehlo.token) -> !stablehlo.token')
        elif kind == "recv":
            lines.append(f'    %r{k}:2 = "stablehlo.recv"({tok}) <{{{attrs}}}> : '
                         f'(!stablehlo.token) -> (tensor<4xf32>, !stablehlo.token)')
            lines.append(f"    %t{k + 1} = stablehlo.after_all %r{k}#1 : !stablehlo.token")
        else:
            lines.append(f'    %p{k} = "stablehlo.collective_permute"(%x) <{{{attrs}}}> : (tensor<4xf32>) -> tensor<4xf32>')
            lines.append(f"    %t{k + 1} = stablehlo.after_all {tok} : !stablehlo.token")
        tok = f"%t{k + 1}"
    return (f"module @m attributes {{mhlo.num_partitions = {n} : i32, mhlo.num_replicas = 1 : i32}} {{\n"
            f"  func.func public @main(%x: tensor<4xf32>) -> tensor<4xf32> {{\n" + "\n".join(lines)
            + "\n    return %x : tensor<4xf32>\n  }\n}\n")


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(uniform_p2p_programs())
def test_quotient_sound_on_random_uniform_programs(prog):
    from shlo_lint.checker.analysis.process_model import Model
    from shlo_lint.checker.analysis.process_model.model import Facts
    from shlo_lint.checker.analysis.process_model.quotient import z3_classes
    from shlo_lint.checker.analysis.tracer.structure import structure
    from shlo_lint.checker.analysis.tracer.tracer import trace

    m = scan(SourceFile("t.mlir", _render(*prog)), parser())
    s = structure(m)
    tr = trace(m, grid_of(m), s)
    facts = Facts(tr.grid, s)
    q = z3_classes(tr, facts, "xla", 5000, {})
    from shlo_lint.checker.analysis.process_model.quotient import linear_classes
    assert linear_classes(tr, facts, "xla", {}) == q
    model = Model(tr, facts, "xla", max_events=10 ** 6, deadline=None)
    final = model.propagate()
    complete = all(final[p] == len(model.events[p]) for p in range(tr.grid.size))
    if q == "sat":
        assert complete
    v = analyze(m, grid_of(m))
    assert v.status == ("deadlock-free" if complete else "deadlock")


def test_the_tracer_gives_up_on_process_masks_past_its_memory_budget(monkeypatch):
    """A loop whose trip count is the partition id makes one distinct set of
    processes per trip; over a million processes that filled gigabytes before the
    deadline (a fuzz finding). Past MAX_MASK_BYTES the verdict is unknown, saying why."""
    from shlo_lint.checker.analysis.tracer import tracer as spmd

    monkeypatch.setattr(spmd, "MAX_MASK_BYTES", 64 << 10)
    text = (CORPUS / "deadlock" / "while_partition_trip_count.mlir").read_text()
    text = text.replace("mhlo.num_partitions = 4 ", "mhlo.num_partitions = 4096 ")
    v = verdict_of(text)
    assert v.status == "unknown"
    assert "MB of per-process masks" in v.reason


def test_schedule_dependent_deadlocks_are_warnings():
    """A deadlock in some issue orders XLA's scheduler may choose but not in others
    is SHLO505 (a warning): XLA:CPU completed crossed_independent_by_use.mlir and
    sync_collectives_scheduler_order.mlir. A deadlock in every order stays an error."""
    v = verdict_of(CORPUS / "deadlock" / "crossed_independent_by_use.mlir")
    assert v.schedule_dependent and v.schedule is None
    assert (v.completes_with.first.op.name, v.completes_with.second.op.name) == \
        ("stablehlo.all_gather", "stablehlo.all_reduce")
    assert verdict_of(CORPUS / "deadlock" / "sync_collectives_scheduler_order.mlir").schedule_dependent
    for name, code in (("crossed_independent_by_use.mlir", "SHLO505"),
                       ("sync_collectives_scheduler_order.mlir", "SHLO505"),
                       ("collectives_different_order.mlir", "SHLO500")):
        diags = [d for d in lint_text((CORPUS / "deadlock" / name).read_text(), "t.mlir") if d.category == "deadlock"]
        assert [d.code for d in diags] == [code], (name, [d.code for d in diags])
        assert diags[0].severity.value == ("warning" if code == "SHLO505" else "error")
    assert not verdict_of(CORPUS / "deadlock" / "collectives_different_order.mlir").schedule_dependent


@pytest.mark.parametrize("name", ["recv_before_send_ring", "channel_mismatch", "self_wait", "send_without_recv",
                                  "permute_branch_partial_group", "recv_before_send_chain", "mismatched_pairs",
                                  "jax_precv_without_psend"])
def test_identical_replicas_decided_on_replica_0_say_what_every_replica_does(name, monkeypatch):
    """replicas.py: when no communication crosses replicas and every replica runs
    the same, the exact model is replica 0's. On 3 replicas of corpus programs that
    communicate between partitions, the verdict and every blocked process (what it
    is blocked at, shifted to each replica) are those of the model over the whole grid."""
    import re

    import shlo_lint.checker.analysis.process_model.decide as decide

    text = (CORPUS / "deadlock" / f"{name}.mlir").read_text()
    assert "mhlo.num_replicas = 1 : i32" in text
    text = text.replace("mhlo.num_replicas = 1 : i32", "mhlo.num_replicas = 3 : i32")
    folded = verdict_of(text)
    monkeypatch.setattr(decide, "replica_copies", lambda *a: 1)
    whole = verdict_of(text)
    assert folded.replicas == 3 and whole.replicas == 1
    assert folded.status == whole.status

    def blocked(v, copies):
        return sorted(((r, b.process[1]), re.sub(r"\((\d+), ", "(R, ", b.what))
                      for d in v.deadlocks for b in d.blocked
                      for r in (range(copies) if copies > 1 else [b.process[0]]))

    assert blocked(folded, 3) == blocked(whole, 1)
    assert all(b.process[0] == 0 for d in folded.deadlocks for b in d.blocked)
