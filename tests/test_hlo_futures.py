"""Start/done pairing on XLA's HLO (checker/analysis/pairing.py through the catalog's
future flavor "hlo"; rules/futures.py SHLO401-405): `*-start` / `*-done`, the generic
`async-start` / `async-update` / `async-done`, and the send / recv halves with their
dones, whose tuple results are one future each."""
from __future__ import annotations

import pytest

from shlo_lint import lint_text
from shlo_lint.checker.analysis.pairing import FutureAnalysis, may_have_futures
from shlo_lint.checker.frontend.read import read_module
from shlo_lint.checker.source.text import SourceFile

from conftest import CORPUS
from hlo_helpers import HLO

HEAD = """HloModule m, is_scheduled=true, entry_computation_layout={(f32[8]{0})->f32[8]{0}}, num_partitions=8

%sum (a: f32[], b: f32[]) -> f32[] {
  %a = f32[] parameter(0)
  %b = f32[] parameter(1)
  ROOT %add = f32[] add(%a, %b)
}

%wrapped (p: f32[8]) -> f32[8] {
  %p = f32[8]{0} parameter(0)
  ROOT %cp = f32[8]{0} collective-permute(%p), channel_id=9, source_target_pairs={{0,1},{1,0}}
}

"""
AR = ("all-reduce-start({x}), channel_id=1, replica_groups=[1,8]<=[8], use_global_device_ids=true, "
      "to_apply=%sum")
AG = "all-gather-start({x}), channel_id=2, replica_groups=[1,8]<=[8], dimensions={{0}}, use_global_device_ids=true"
PAIRS = 'frontend_attributes={_xla_send_recv_source_target_pairs="{{0,1}}"}'


def entry(*lines: str, root: str = "%x") -> str:
    body = "\n".join(f"  {line}" for line in lines)
    return HEAD + f"ENTRY %main (x: f32[8]) -> f32[8] {{\n  %x = f32[8]{{0}} parameter(0)\n{body}\n" \
                  f"  ROOT %out = f32[8]{{0}} copy({root})\n}}\n"


def found(text: str) -> list[tuple[str, int, str]]:
    diags = lint_text(text, "t.hlo")
    return sorted((d.code, text.count("\n", 0, d.span.start) + 1, d.message) for d in diags
                  if d.code.startswith("SHLO4"))


def line_of(text: str, needle: str) -> int:
    return text[:text.index(needle)].count("\n") + 1


def test_a_start_and_its_done_pair_cleanly_in_every_hlo_form():
    text = entry(f"%ars = f32[8]{{0}} {AR.format(x='%x')}",
                 "%ard = f32[8]{0} all-reduce-done(%ars)",
                 f"%ags = (f32[8]{{0}}, f32[64]{{0}}) {AG.format(x='%ard')}",
                 "%agd = f32[64]{0} all-gather-done(%ags)",
                 "%as = ((f32[8]{0}), f32[8]{0}, s32[]) async-start(%ard), calls=%wrapped",
                 "%au = ((f32[8]{0}), f32[8]{0}, s32[]) async-update(%as)",
                 "%ad = f32[8]{0} async-done(%au)",
                 "%tok = token[] after-all()",
                 f"%r = (f32[8]{{0}}, u32[], token[]) recv(%tok), channel_id=3, {PAIRS}",
                 f"%s = (f32[8]{{0}}, u32[], token[]) send(%ad, %tok), channel_id=3, {PAIRS}",
                 "%rd = (f32[8]{0}, token[]) recv-done(%r), channel_id=3",
                 "%sd = token[] send-done(%s), channel_id=3",
                 "%got = f32[8]{0} get-tuple-element(%rd), index=0", root="%got")
    assert found(text) == []
    a = FutureAnalysis(read_module(SourceFile("t.hlo", text)))
    # one future per start (a tuple-shaped start's leaves are one future), each completed once
    assert sorted(r.start.name for r in a.roots) == ["hlo.all-gather-start", "hlo.all-reduce-start",
                                                     "hlo.async-start", "hlo.recv", "hlo.send"]
    assert all(set(r.outcomes) == {(1, frozenset())} for r in a.roots)
    assert {r.name for r in a.roots} == {"%ars", "%ags", "%as", "%r", "%s"}


@pytest.mark.parametrize("opcode,start,done", [
    ("all-reduce-start", f"%ars = f32[8]{{0}} {AR.format(x='%x')}", None),
    ("async-start", "%as = ((f32[8]{0}), f32[8]{0}, s32[]) async-start(%x), calls=%wrapped",
     "%au = ((f32[8]{0}), f32[8]{0}, s32[]) async-update(%as)"),  # an update is no done
    ("send", f"%s = (f32[8]{{0}}, u32[], token[]) send(%x, %tok), channel_id=3, {PAIRS}", None),
    ("recv", f"%r = (f32[8]{{0}}, u32[], token[]) recv(%tok), channel_id=3, {PAIRS}", None),
])
def test_a_start_no_done_takes_is_never_completed(opcode, start, done):
    text = entry("%tok = token[] after-all()", start, *([done] if done else []))
    name = start.split(" = ")[0]
    assert found(text) == [("SHLO401", line_of(text, start),
                            f"{opcode}: the future {name} is never completed: no done or await takes it on any "
                            f"path (async pairing)")]


def test_a_future_completed_twice_is_reported_at_the_second_done():
    text = entry(f"%ags = (f32[8]{{0}}, f32[64]{{0}}) {AG.format(x='%x')}",
                 "%agd = f32[64]{0} all-gather-done(%ags)",
                 "%agd.2 = f32[64]{0} all-gather-done(%ags)")
    [(code, line, msg)] = found(text)
    assert (code, line) == ("SHLO402", line_of(text, "%agd.2"))
    assert msg.startswith("all-gather-done: completes the future %ags a second time")


def test_a_recv_done_and_a_send_done_each_complete_their_half():
    text = entry("%tok = token[] after-all()",
                 f"%r = (f32[8]{{0}}, u32[], token[]) recv(%tok), channel_id=3, {PAIRS}",
                 f"%s = (f32[8]{{0}}, u32[], token[]) send(%x, %tok), channel_id=3, {PAIRS}",
                 "%rd = (f32[8]{0}, token[]) recv-done(%r), channel_id=3",
                 "%rd.2 = (f32[8]{0}, token[]) recv-done(%r), channel_id=3",
                 "%sd = token[] send-done(%s), channel_id=3")
    assert [(c, line) for c, line, _m in found(text)] == [("SHLO402", line_of(text, "%rd.2"))]


def test_a_start_read_by_an_op_that_is_no_done_is_a_misuse():
    text = entry(f"%ars = f32[8]{{0}} {AR.format(x='%x')}",
                 "%y = f32[8]{0} add(%ars, %x)",
                 "%ard = f32[8]{0} all-reduce-done(%ars)", root="%y")
    assert [(c, line) for c, line, _m in found(text)] == [("SHLO403", line_of(text, "%y = "))]


def test_the_entry_computation_returning_a_future_lets_it_escape():
    text = HEAD + ("ENTRY %main.0_spmd (x: f32[8]) -> f32[8] {\n  %x = f32[8]{0} parameter(0)\n"
                   f"  ROOT %ars = f32[8]{{0}} {AR.format(x='%x')}\n}}\n")
    assert [c for c, _l, _m in found(text)] == ["SHLO404"]


def test_operands_written_without_percent_are_followed_too():
    """XLA's parser takes names without `%`: uses are read from the instructions, not the text."""
    text = entry(f"ars = f32[8]{{0}} {AR.format(x='x')}", "ard = f32[8]{0} all-reduce-done(ars)", root="ard")
    assert found(text) == []
    leaking = entry(f"ars = f32[8]{{0}} {AR.format(x='x')}")
    assert [c for c, _l, _m in found(leaking)] == ["SHLO401"]


def test_futures_carried_through_a_pipelined_loop_are_not_followed_into_it():
    """XLA's pipelined send/recv carries its futures through the loop's tuple: pairing stops
    there (as at a StableHLO while carry) and reports nothing."""
    text = (CORPUS / "hlo" / "gpu" / "pipelined_p2p.hlo").read_text()
    assert found(text) == []


@pytest.mark.parametrize("name", ["gpu_async.hlo", "gpu_p2p.hlo", "gpu_async.xla.hlo"])
def test_the_gpu_fixtures_pair_cleanly(name):
    assert found((HLO / name).read_text()) == []


def test_hlo_starts_are_seen_by_the_fast_path():
    assert may_have_futures("%a = f32[8]{0} all-reduce-start(%x)")
    assert may_have_futures("%s = (f32[8]{0}, u32[], token[]) send(%x, %t)")
    assert may_have_futures("%r = (f32[8]{0}, u32[], token[]) recv(%t)")
    assert not may_have_futures("%a = f32[8]{0} all-reduce(%x), to_apply=%sum")


def test_compiled_cpu_modules_have_no_futures_to_pair():
    """XLA:CPU makes async collectives synchronous: corpus/hlo has none, and no finding."""
    for path in sorted((CORPUS / "hlo").glob("*.hlo"))[:20]:
        assert found(path.read_text()) == [], path.name
