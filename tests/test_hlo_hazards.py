"""The schedule hazards XLA's verifier does not see (rules/hlo_schedule.py): SHLO520 two
collectives in flight on different streams over shared devices, SHLO521
`_xla_send_recv_validation` against the executions an instruction has, SHLO522 sends
and recvs that wait for each other in one P2P stream's order. The corpus examples
(corpus/hlo/gpu/) and their sidecars are tests/test_corpus.py's; these are the edges."""
from __future__ import annotations

import time

import pytest

from shlo_lint import lint_text
from shlo_lint.checker.analysis.process_model import analyze
from shlo_lint.checker.analysis.semantics import grid_of
from shlo_lint.checker.frontend.read import read_module
from shlo_lint.checker.source.text import SourceFile

from conftest import CORPUS
from hlo_helpers import HLO

GPU = CORPUS / "hlo" / "gpu"
HAZARDS = ("SHLO520", "SHLO521", "SHLO522")

SUM = """%sum (a: f32[], b: f32[]) -> f32[] {
  %a = f32[] parameter(0)
  %b = f32[] parameter(1)
  ROOT %add = f32[] add(%a, %b)
}

"""


def module(*lines: str, partitions: int = 8, scheduled: bool = True, extra: str = "", root: str = "%x") -> str:
    body = "\n".join(f"  {line}" for line in lines)
    flag = "is_scheduled=true, " if scheduled else ""
    return (f"HloModule m, {flag}entry_computation_layout={{(f32[4]{{0}})->f32[4]{{0}}}}, "
            f"num_partitions={partitions}\n\n{SUM}{extra}ENTRY %main (x: f32[4]) -> f32[4] {{\n"
            f"  %x = f32[4]{{0}} parameter(0)\n  %tok = token[] after-all()\n{body}\n"
            f"  ROOT %out = f32[4]{{0}} copy({root})\n}}\n")


def found(text: str, codes=HAZARDS):
    diags = lint_text(text, "t.hlo")
    return [d for d in diags if d.code in codes]


def where(text: str, diags) -> list[tuple[str, int]]:
    return sorted((d.code, text.count("\n", 0, d.span.start) + 1) for d in diags)


def line_of(text: str, needle: str) -> int:
    return text[:text.index(needle)].count("\n") + 1


def fa(pairs: str, **more: str) -> str:
    items = [f'_xla_send_recv_source_target_pairs="{pairs}"'] + [f'{k}="{v}"' for k, v in more.items()]
    return "frontend_attributes={" + ",".join(items) + "}"


def chain(name: str, pairs: str, channel: int, **more: str) -> tuple[str, str, str, str]:
    """A send/recv chain: (recv, send, recv-done, send-done)."""
    p = dict(more)
    dones = ", frontend_attributes={_xla_send_recv_pipeline=\"%s\"}" % p["_xla_send_recv_pipeline"] \
        if "_xla_send_recv_pipeline" in p else ""
    return (f"%recv.{name} = (f32[4]{{0}}, u32[], token[]) recv(%tok), channel_id={channel}, {fa(pairs, **p)}",
            f"%send.{name} = (f32[4]{{0}}, u32[], token[]) send(%x, %tok), channel_id={channel}, {fa(pairs, **p)}",
            f"%recv-done.{name} = (f32[4]{{0}}, token[]) recv-done(%recv.{name}), channel_id={channel}{dones}",
            f"%send-done.{name} = token[] send-done(%send.{name}), channel_id={channel}{dones}")


def ag(name: str, groups: str = "[1,8]<=[8]", attrs: str = "", n: int = 8) -> tuple[str, str]:
    return (f"%ags.{name} = (f32[4]{{0}}, f32[{4 * n}]{{0}}) all-gather-start(%x), channel_id=20, "
            f"replica_groups={groups}, dimensions={{0}}, use_global_device_ids=true{attrs}",
            f"%agd.{name} = f32[{4 * n}]{{0}} all-gather-done(%ags.{name})")


def ar(name: str, groups: str, attrs: str = "", start: str = "all-reduce-start") -> tuple[str, str]:
    return (f"%ars.{name} = f32[4]{{0}} {start}(%x), channel_id=30, replica_groups={groups}, "
            f"use_global_device_ids=true, to_apply=%sum{attrs}",
            f"%ard.{name} = f32[4]{{0}} all-reduce-done(%ars.{name})")


RING = "{{0,1},{1,2},{2,3},{3,4},{4,5},{5,6},{6,7}}"


# =========================================================================== SHLO520
def test_an_all_gather_started_inside_a_send_recv_chain_is_reported_at_the_all_gather():
    r, s, rd, sd = chain("a", RING, 1)
    g, gd = ag("a")
    text = module(r, s, g, rd, sd, gd)
    [d] = found(text)
    assert (d.code, line_of(text, "%ags.a =")) == ("SHLO520", text.count("\n", 0, d.span.start) + 1)
    assert d.severity.value == "warning"
    assert "P2P stream 0" in d.message and "the collective stream" in d.message and "devices 0 and 1" in d.message
    notes = [n.message for n in d.notes]
    assert any("recv %recv.a starts here" in m and "recv-done %recv-done.a" in m for m in notes), notes
    assert any("send %send.a" in m and "in flight too" in m for m in notes), notes


def test_the_same_collectives_one_after_the_other_are_clean():
    r, s, rd, sd = chain("a", RING, 1)
    g, gd = ag("a")
    assert found(module(r, s, rd, sd, g, gd)) == []


def test_groups_that_share_one_device_only_do_not_clash():
    """XLA's scheduler overlaps two collectives whose groups share at most one device
    (gpu_latency_hiding_scheduler.cc CountOverlappingRanks > 1)."""
    r, s, rd, sd = chain("a", "{{0,1},{2,3},{4,5},{6,7}}", 1)
    g, gd = ar("a", "{{0,2,4,6},{1,3,5,7}}")
    assert found(module(r, s, g, gd, rd, sd)) == []
    g2, gd2 = ar("b", "{{0,1,2,3},{4,5,6,7}}")
    assert [d.code for d in found(module(r, s, g2, gd2, rd, sd))] == ["SHLO520"]


def test_two_async_collectives_on_the_one_collective_stream_run_in_order():
    """Unannotated async collectives share XLA:GPU's collective stream (one by default):
    in issue order on every device."""
    g, gd = ag("a")
    a, ad = ar("a", "{{0,1,2,3,4,5,6,7}}")
    assert found(module(g, a, gd, ad)) == []
    # two send/recv chains on P2P stream 0 likewise
    r1, s1, rd1, sd1 = chain("a", RING, 1)
    r2, s2, rd2, sd2 = chain("b", RING, 2)
    assert found(module(r1, s1, r2, s2, rd1, sd1, rd2, sd2), ("SHLO520",)) == []


def test_collectives_xla_puts_on_named_streams_clash_there():
    g, gd = ag("a", attrs=', frontend_attributes={_xla_stream_annotation="5"}')
    a, ad = ar("a", "{{0,1,2,3,4,5,6,7}}", attrs=', frontend_attributes={_xla_stream_annotation="6"}')
    [d] = found(module(g, a, gd, ad))
    assert "stream 6" in d.message and "stream 5" in d.message
    same, same_d = ar("b", "{{0,1,2,3,4,5,6,7}}", attrs=', frontend_attributes={_xla_stream_annotation="5"}')
    assert found(module(g, same, gd, same_d)) == []


def test_the_two_p2p_streams_run_side_by_side_as_xla_pipelines_them():
    """XLA's decomposer pipelines a cycle's back edge on P2P stream 0 and its forward edges on
    stream 1 at once (collective_permute_decomposer.cc), on two devices {1,0} and {0,1}: not a
    SHLO520 finding (and no cycle: each stream holds one direction)."""
    r1, s1, rd1, sd1 = chain("f", "{{0,1}}", 1, _xla_send_recv_pipeline="1")
    r2, s2, rd2, sd2 = chain("b", "{{1,0}}", 2, _xla_send_recv_pipeline="0")
    assert found(module(r2, s2, r1, s1, rd2, sd2, rd1, sd1, partitions=2)) == []
    assert found((GPU / "p2p_ring_split_streams.hlo").read_text()) == []


def test_a_synchronous_collective_clashes_with_a_send_recv_chain_only():
    """XLA keeps every collective out of a send/recv chain (p2p_schedule_preparation.h); its
    latency-hiding scheduler lets a synchronous one run while an async collective is in flight."""
    r, s, rd, sd = chain("a", RING, 1)
    sync = "%sync = f32[4]{0} all-reduce(%x), channel_id=40, replica_groups=[1,8]<=[8], use_global_device_ids=true, " \
           "to_apply=%sum"
    [d] = found(module(r, s, sync, rd, sd))
    assert "the compute stream" in d.message and d.span.start == module(r, s, sync, rd, sd).index("all-reduce(")
    g, gd = ag("a")
    assert found(module(g, sync, gd)) == []
    # an async pair XLA runs synchronously ("is_sync":true) is such a collective too
    cfg = ', backend_config={"collective_backend_config":{"is_sync":true}}'
    a, ad = ar("s", "[1,8]<=[8]", attrs=cfg)
    assert [d.code for d in found(module(r, s, a, ad, rd, sd))] == ["SHLO520"]
    assert found(module(g, a, ad, gd)) == []


BODY_WITH_CHAIN = """%cond (c: (s32[], f32[4])) -> pred[] {
  %c = (s32[], f32[4]{0}) parameter(0)
  %i = s32[] get-tuple-element(%c), index=0
  %n = s32[] constant(3)
  ROOT %lt = pred[] compare(%i, %n), direction=LT
}

%body (p: (s32[], f32[4])) -> (s32[], f32[4]) {
  %p = (s32[], f32[4]{0}) parameter(0)
  %i.1 = s32[] get-tuple-element(%p), index=0
  %y = f32[4]{0} get-tuple-element(%p), index=1
  %t = token[] after-all()
  %r = (f32[4]{0}, u32[], token[]) recv(%t), channel_id=1, frontend_attributes={_xla_send_recv_source_target_pairs="{{0,1},{1,2}}"}
  %s = (f32[4]{0}, u32[], token[]) send(%y, %t), channel_id=1, frontend_attributes={_xla_send_recv_source_target_pairs="{{0,1},{1,2}}"}
  %rd = (f32[4]{0}, token[]) recv-done(%r), channel_id=1
  %sd = token[] send-done(%s), channel_id=1
  %z = f32[4]{0} get-tuple-element(%rd), index=0
  %one = s32[] constant(1)
  %next = s32[] add(%i.1, %one)
  ROOT %tp = (s32[], f32[4]{0}) tuple(%next, %z)
}

"""
LOOP = ["%zero = s32[] constant(0)", "%init = (s32[], f32[4]{0}) tuple(%zero, %x)",
        '%w = (s32[], f32[4]{0}) while(%init), condition=%cond, body=%body, backend_config={"known_trip_count":{"n":"3"}}',
        "%wx = f32[4]{0} get-tuple-element(%w), index=1"]


def test_a_collective_in_flight_over_a_while_clashes_with_the_send_recv_in_its_body():
    g, gd = ag("a")
    text = module(g, *LOOP, gd, extra=BODY_WITH_CHAIN, root="%wx")
    ds = found(text)
    assert [d.code for d in ds] == ["SHLO520"]
    [d] = ds
    assert text.count("\n", 0, d.span.start) + 1 == line_of(text, "%r = ")  # at the recv, in the body
    assert any("runs inside this while %w" in n.message for n in d.notes)
    # done before the loop: nothing in flight over it
    assert found(module(g, gd, *LOOP, extra=BODY_WITH_CHAIN, root="%wx")) == []


def test_a_call_runs_its_callees_collectives_where_it_is_issued():
    inner = ("%inner (y: f32[4]) -> f32[4] {\n  %y = f32[4]{0} parameter(0)\n  %t = token[] after-all()\n"
             "  %r = (f32[4]{0}, u32[], token[]) recv(%t), channel_id=1, " + fa("{{0,1}}") + "\n"
             "  %rd = (f32[4]{0}, token[]) recv-done(%r), channel_id=1\n"
             "  ROOT %z = f32[4]{0} get-tuple-element(%rd), index=0\n}\n\n")
    g, gd = ag("a")
    [d] = found(module(g, "%c = f32[4]{0} call(%x), to_apply=%inner", gd, extra=inner, root="%c"))
    assert "recv %r" in d.message and any("runs inside this call %c" in n.message for n in d.notes)


def test_a_pipelined_chain_is_in_flight_across_the_loops_back_edge():
    bad = (GPU / "pipelined_p2p_overlap.buggy_hazard.hlo").read_text()
    [d] = found(bad)
    assert d.code == "SHLO520" and "all-reduce-start %ars" in d.message
    assert any("in the previous iteration" in n.message for n in d.notes)
    assert found((GPU / "pipelined_p2p.hlo").read_text()) == []


def test_only_a_scheduled_module_has_an_order_to_check():
    r, s, rd, sd = chain("a", RING, 1)
    g, gd = ag("a")
    assert found(module(r, s, g, rd, sd, gd, scheduled=False)) == []


def test_the_python_line_of_both_collectives_is_noted():
    text = (GPU / "p2p_overlaps_all_gather.buggy_hazard.hlo").read_text()
    [d] = found(text)
    py = [(n.location.path, n.location.line) for n in d.notes if n.location.path.endswith(".py")]
    assert py == [("pipeline.py", 44), ("pipeline.py", 41)]  # the all-gather's, then the recv's


def test_16384_devices_with_iota_groups_are_checked_from_their_structure():
    """Groups of 8 consecutive devices against groups of 4 consecutive (subgroups: clash)
    and against groups strided by 2048 (one device in common: no clash), 16,384 devices,
    200 collectives of each spelling: each spelling is expanded once."""
    n = 16384
    eights, fours, strided = "[2048,8]<=[16384]", "[4096,4]<=[16384]", "[2048,8]<=[8,2048]T(1,0)"
    lines = []
    for k in range(200):
        lines += [f"%a{k} = f32[4]{{0}} all-reduce-start(%x), channel_id={3 * k + 1}, replica_groups={eights}, "
                  f"use_global_device_ids=true, to_apply=%sum, frontend_attributes={{_xla_stream_annotation=\"5\"}}",
                  f"%b{k} = f32[4]{{0}} all-reduce-start(%x), channel_id={3 * k + 2}, replica_groups={strided}, "
                  f"use_global_device_ids=true, to_apply=%sum, frontend_attributes={{_xla_stream_annotation=\"6\"}}",
                  f"%ad{k} = f32[4]{{0}} all-reduce-done(%a{k})", f"%bd{k} = f32[4]{{0}} all-reduce-done(%b{k})"]
    text = module(*lines, partitions=n)
    t0 = time.perf_counter()
    assert found(text) == []
    clash = module(lines[0], lines[1].replace(strided, fours), lines[2], lines[3], partitions=n)
    [d] = found(clash)
    assert "devices 0 and 1" in d.message
    assert time.perf_counter() - t0 < 30


def test_thousands_of_chains_beside_async_collectives_are_checked_quickly():
    """Every chain of a 2,000-channel module against every other was quadratic (SHLO521's
    send/recv comparison took a minute at 3,000); each is compared with its channel's now."""
    lines = []
    for k in range(2000):
        c = 5000 + k
        pairs = fa("{{0,2},{2,4}}", _xla_send_recv_validation="{{0,0},{0,0}}")
        lines += [f"%g{k} = (f32[4]{{0}}, f32[32]{{0}}) all-gather-start(%x), channel_id={k + 1}, "
                  f"replica_groups=[1,8]<=[8], dimensions={{0}}, use_global_device_ids=true",
                  f"%r{k} = (f32[4]{{0}}, u32[], token[]) recv(%tok), channel_id={c}, {pairs}",
                  f"%s{k} = (f32[4]{{0}}, u32[], token[]) send(%x, %tok), channel_id={c}, {pairs}",
                  f"%gd{k} = f32[32]{{0}} all-gather-done(%g{k})",
                  f"%rd{k} = (f32[4]{{0}}, token[]) recv-done(%r{k}), channel_id={c}",
                  f"%sd{k} = token[] send-done(%s{k}), channel_id={c}"]
    text = module(*lines)
    t0 = time.perf_counter()
    got = found(text)
    assert len(got) == 2000 and {d.code for d in got} == {"SHLO520"}  # each chain inside its all-gather
    assert time.perf_counter() - t0 < 15  # (quadratic: about 25 s here)


@pytest.mark.parametrize("groups,n", [("[2,4]<=[4,2]T(1,0)", 8), ("[2048,8]<=[8,2048]T(1,0)", 16384),
                                      ("[4,2]<=[2,2,2]T(2,0,1)", 8), ("mesh[x=2,y=4] {x}", 8),
                                      ("mesh[a=2,b=2], device_ids=([2,2]T(1,0)) {a}", 4)])
def test_an_iota_spelling_gives_each_device_its_group_without_listing_the_groups(groups, n):
    """device_sets.py reads iota and mesh-axes groups with numpy alone: the same group of
    every device as the groups listed one by one."""
    import numpy as np

    from shlo_lint.checker.analysis.semantics import process_groups, replica_groups, strategy
    from shlo_lint.rules.support import device_sets

    text = module(f"%r = f32[4]{{0}} all-reduce(%x), channel_id=1, replica_groups={groups}, "
                  f"use_global_device_ids=true, to_apply=%sum", partitions=n)
    m = read_module(SourceFile("t.hlo", text))
    op = next(o for o in m.root.walk() if o.name == "stablehlo.all_reduce")
    grid = grid_of(m)
    got = device_sets.devices(op, grid, {}).labels
    listed = np.full(grid.size, -1)
    for k, g in enumerate(process_groups(grid, strategy(op), replica_groups(op))):
        listed[[grid.flat(r, p) for r, p in g]] = k
    assert (got == listed).all()


# =========================================================================== SHLO521
def test_the_executions_of_an_instruction_are_its_loops_trip_counts():
    from shlo_lint.rules.support.hlo_loops import executions

    m = read_module(SourceFile("v.hlo", (GPU / "p2p_validation_folded.hlo").read_text()))
    recv = next(op for op in m.root.walk() if op.name == "hlo.recv")
    ex = executions(recv)
    assert ex.count == 6 and [how for _l, _n, how in ex.loops] == ["folded"]  # no known_trip_count: folded
    m = read_module(SourceFile("v.hlo", (GPU / "p2p_validation_mismatch.buggy_hazard.hlo").read_text()))
    recvs = [op for op in m.root.walk() if op.name == "hlo.recv"]
    assert sorted(executions(op).count for op in recvs) == [1, 6, 6]


def test_validation_the_runtime_ignores_is_reported():
    r = ('%r = (f32[4]{0}, u32[], token[]) recv(%tok), channel_id=1, frontend_attributes='
         '{_xla_send_recv_source_target_pairs="{{0,1},{1,2}}",_xla_send_recv_validation="@V@"}')
    for v, why in (("{{0,0}}", "it has 1 range for 2 source-target pairs"), ("{0,0}", "expected")):
        text = module(r.replace("@V@", v), "%rd = (f32[4]{0}, token[]) recv-done(%r), channel_id=1")
        [d] = found(text)
        assert d.code == "SHLO521" and "XLA:GPU ignores its _xla_send_recv_validation" in d.message and why in d.message
        assert d.severity.value == "warning"
    ok = module(r.replace("@V@", "{{0,0},{0,0}}"), "%rd = (f32[4]{0}, token[]) recv-done(%r), channel_id=1")
    assert found(ok) == []  # outside any loop: it runs once, execution 0


def test_a_send_and_its_recv_that_disagree_on_a_pair_is_an_error():
    def pair(send_v: str, recv_v: str) -> str:
        r = (f'%r = (f32[4]{{0}}, u32[], token[]) recv(%tok), channel_id=1, frontend_attributes='
             f'{{_xla_send_recv_source_target_pairs="{{{{0,1}}}}"{recv_v}}}')
        s = (f'%s = (f32[4]{{0}}, u32[], token[]) send(%x, %tok), channel_id=1, frontend_attributes='
             f'{{_xla_send_recv_source_target_pairs="{{{{0,1}}}}"{send_v}}}')
        return module(r, s, "%rd = (f32[4]{0}, token[]) recv-done(%r), channel_id=1",
                      "%sd = token[] send-done(%s), channel_id=1")
    text = pair(',_xla_send_recv_validation="invalid"', "")
    [d] = found(text)
    assert d.code == "SHLO521" and d.severity.value == "error"
    assert "transfers pair 0->1 never and recv %r receives it in every execution" in d.message
    assert found(pair(',_xla_send_recv_validation="invalid"', ',_xla_send_recv_validation="invalid"')) == []
    # {0,3} and {0,0} agree on a loopless op: both transfer in its one execution
    assert found(pair(',_xla_send_recv_validation="{{0,3}}"', ',_xla_send_recv_validation="{{0,0}}"'),
                 ("SHLO521",))[0].message.startswith("send %s: pair 0->1 {0,3} promises")


def test_an_unknown_trip_count_checks_the_peers_only():
    text = (GPU / "p2p_validation_mismatch.buggy_hazard.hlo").read_text().replace(
        ', backend_config={"known_trip_count":{"n":"6"}}', "").replace("%n = s32[] constant(6)",
                                                                          "%n = s32[] get-tuple-element(%c), index=0")
    got = [(d.code, d.severity.value) for d in found(text)]
    assert ("SHLO521", "error") in got  # the send/recv disagreement needs no trip count
    assert not any("promises executions" in d.message for d in found(text))


# =========================================================================== SHLO522
def test_a_ring_on_one_stream_waits_in_a_cycle_that_the_deadlock_model_does_not_have():
    text = (GPU / "p2p_ring_one_stream.buggy_hazard.hlo").read_text()
    [d] = found(text)
    assert d.code == "SHLO522" and d.severity.value == "error" and "cycle of 4 transfers" in d.message
    steps = [n.message for n in d.notes if n.message.startswith("device ")]
    assert len(steps) == 4 and steps[0].startswith("device 1 runs the recv 0->1")
    m = read_module(SourceFile("r.hlo", text))
    assert analyze(m, grid_of(m)).status == "deadlock-free"  # a send never blocks there


def test_a_cycle_the_deadlock_model_finds_is_its_finding_only():
    text = (GPU / "p2p_ring_recv_done_first.buggy_deadlock.hlo").read_text()
    assert [d.code for d in lint_text(text, "t.hlo")] == ["SHLO500"]


def test_an_exchange_is_a_cycle_in_either_order_and_not_across_two_streams():
    for first, second in ((0, 1), (1, 0)):  # recv first or send first: both wait
        r, s, rd, sd = chain("a", "{{0,1},{1,0}}", 1)
        lines = [r, s] if first == 0 else [s, r]
        [d] = found(module(*lines, rd, sd, partitions=2))
        assert d.code == "SHLO522" and "cycle of 2 transfers" in d.message
    # XLA's split: the back edge on the other stream
    r1, s1, rd1, sd1 = chain("f", "{{0,1}}", 1, _xla_send_recv_pipeline="0")
    r2, s2, rd2, sd2 = chain("b", "{{1,0}}", 2, _xla_send_recv_pipeline="1")
    assert found(module(r1, s1, rd1, sd1, r2, s2, rd2, sd2, partitions=2), ("SHLO522",)) == []


def test_a_chain_is_no_cycle_and_pairs_that_never_run_are_left_out():
    r, s, rd, sd = chain("a", RING, 1)
    assert found(module(r, s, rd, sd)) == []
    r, s, rd, sd = chain("a", "{{0,1},{1,2},{2,3},{3,0}}", 1, _xla_send_recv_validation="invalid")
    assert found(module(r, s, rd, sd, partitions=4), ("SHLO522",)) == []


def test_a_send_whose_recv_is_on_the_other_stream_never_meets_it():
    text = (GPU / "p2p_streams_mismatch.buggy_hazard.hlo").read_text()
    [d] = found(text)
    assert d.code == "SHLO522" and "the two never meet" in d.message


@pytest.mark.parametrize("name", ["gpu_async.hlo", "gpu_p2p.hlo", "gpu_async.xla.hlo"])
def test_the_gpu_fixtures_carry_no_hazard(name):
    assert found((HLO / name).read_text()) == []


def test_compiled_cpu_modules_carry_no_hazard():
    """XLA:CPU makes every collective synchronous: nothing is in flight."""
    for path in sorted((CORPUS / "hlo").glob("*.hlo")):
        assert found(path.read_text()) == [], path.name
