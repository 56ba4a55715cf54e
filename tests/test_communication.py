"""The communication table (analysis/comm_counts.py): per kind and group size, the
collectives one step runs and the bytes they move, as `--statistics`, the JSON and the
HTML reports show it. The expected numbers are computed here from the shapes written in
the modules (elements x bytes per element)."""
from __future__ import annotations

import json
import re

import pytest
from click.testing import CliRunner

from shlo_lint import Config, lint_paths
from shlo_lint.checker.cli.commands import main
from shlo_lint.checker.lint.engine import lint_source
from shlo_lint.checker.source.text import SourceFile

from conftest import CORPUS
from hlo_helpers import HLO

F32, BF16, S32 = 4, 2, 4


def table(text: str, path: str = "m.hlo"):
    result = lint_source(SourceFile(path, text), Config(communication=True))
    assert result.communication is not None
    return result.communication


def rows(t) -> dict:
    return {(r.kind, r.group_size): r for r in t.rows}


def test_the_table_counts_what_the_shapes_say():
    """tests/fixtures/hlo/comm_table.hlo, row by row."""
    t = table((HLO / "comm_table.hlo").read_text(), "comm_table.hlo")
    got = rows(t)
    # two all-reduces of f32[16,32] over groups of 4, one after the other
    ar = got[("all_reduce", 4)]
    assert (ar.ops, ar.executions, ar.bytes) == (2, 2, 2 * 16 * 32 * F32)
    # an all-gather bf16[8,4] -> bf16[8,16] over iota groups [2,4]<=[8]: the gathered result
    ag = got[("all_gather", 4)]
    assert (ag.ops, ag.executions, ag.bytes) == (1, 1, 8 * 16 * BF16)
    # a reduce-scatter f32[32] -> f32[4], replica_groups={} with a channel: every replica
    # (1) in every partition (8); the buffer reduced is the operand, f32[32]
    rs = got[("reduce_scatter", 8)]
    assert (rs.ops, rs.executions, rs.bytes) == (1, 1, 32 * F32)
    # a permute of f32[10] in a while with known_trip_count 5
    cp = got[("collective_permute", None)]
    assert (cp.ops, cp.executions, cp.bytes, cp.unknown_trips) == (1, 5, 5 * 10 * F32, 0)
    # an all-reduce of s32[3] over pairs, in a computation called twice
    called = got[("all_reduce", 2)]
    assert (called.ops, called.executions, called.bytes) == (1, 2, 2 * 3 * S32)
    # branches: one all-reduce on the left, two on the right: the right one counts
    br = got[("all_reduce", 8)]
    assert (br.ops, br.executions, br.bytes, br.in_branches) == (3, 2, 2 * 16 * 32 * F32, 3)
    assert len(got) == 6
    assert t.ops == 9 and t.executions == 2 + 1 + 1 + 5 + 2 + 2
    assert t.bytes == sum(r.bytes for r in t.rows)
    assert not t.exact and any("branch" in n for n in t.notes)
    assert t.entry == "main" and t.front_end == "hlo"
    assert [r.bytes for r in t.rows] == sorted((r.bytes for r in t.rows), reverse=True)


STABLEHLO_LOOP = """
module @m attributes {mhlo.num_partitions = 4 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<8xf32>) -> tensor<8xf32> {
    %c0 = stablehlo.constant dense<0> : tensor<i32>
    %r:2 = stablehlo.while(%i = %c0, %x = %arg0) : tensor<i32>, tensor<8xf32>
      cond {
        %n = stablehlo.constant dense<6> : tensor<i32>
        %p = stablehlo.compare LT, %i, %n, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
        stablehlo.return %p : tensor<i1>
      } do {
        %one = stablehlo.constant dense<1> : tensor<i32>
        %j = stablehlo.add %i, %one : tensor<i32>
        %y = "stablehlo.all_reduce"(%x) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1], [2, 3]]> : tensor<2x2xi64>, use_global_device_ids}> ({
          ^bb0(%a: tensor<f32>, %b: tensor<f32>):
            %s = stablehlo.add %a, %b : tensor<f32>
            stablehlo.return %s : tensor<f32>
        }) : (tensor<8xf32>) -> tensor<8xf32>
        stablehlo.return %j, %y : tensor<i32>, tensor<8xf32>
      }
    return %r#1 : tensor<8xf32>
  }
}
"""


def test_a_stablehlo_loop_counts_the_trips_the_tracer_folds():
    """StableHLO states no trip count: the tracer's fold of `i < 6` gives 6."""
    t = table(STABLEHLO_LOOP, "loop.mlir")
    (r,) = t.rows
    assert (r.kind, r.group_size, r.ops, r.executions, r.bytes) == ("all_reduce", 2, 1, 6, 6 * 8 * F32)
    assert t.exact and t.front_end == "stablehlo"
    assert any("tracer" in n for n in t.notes)


UNKNOWN_TRIPS = """HloModule unknown_trips, is_scheduled=true, num_partitions=4

%add (x: f32[], y: f32[]) -> f32[] {
  %x = f32[] parameter(0)
  %y = f32[] parameter(1)
  ROOT %sum = f32[] add(%x, %y)
}

%cond (t: (s32[], f32[8], s32[])) -> pred[] {
  %t = (s32[], f32[8]{0}, s32[]) parameter(0)
  %i = s32[] get-tuple-element(%t), index=0
  %n = s32[] get-tuple-element(%t), index=2
  ROOT %lt = pred[] compare(%i, %n), direction=LT
}

%body (u: (s32[], f32[8], s32[])) -> (s32[], f32[8], s32[]) {
  %u = (s32[], f32[8]{0}, s32[]) parameter(0)
  %j = s32[] get-tuple-element(%u), index=0
  %v = f32[8]{0} get-tuple-element(%u), index=1
  %m = s32[] get-tuple-element(%u), index=2
  %ar = f32[8]{0} all-reduce(%v), channel_id=1, replica_groups={{0,1,2,3}}, use_global_device_ids=true, to_apply=%add
  %one = s32[] constant(1)
  %j1 = s32[] add(%j, %one)
  ROOT %next = (s32[], f32[8]{0}, s32[]) tuple(%j1, %ar, %m)
}

ENTRY %main (p: f32[8], n: s32[]) -> f32[8] {
  %p = f32[8]{0} parameter(0)
  %n = s32[] parameter(1), sharding={replicated}
  %zero = s32[] constant(0)
  %init = (s32[], f32[8]{0}, s32[]) tuple(%zero, %p, %n)
  %loop = (s32[], f32[8]{0}, s32[]) while(%init), condition=%cond, body=%body
  ROOT %out = f32[8]{0} get-tuple-element(%loop), index=1
}
"""


def test_a_loop_whose_trip_count_is_data_is_counted_once_and_said_so():
    t = table(UNKNOWN_TRIPS)
    (r,) = t.rows
    assert (r.kind, r.ops, r.executions, r.bytes, r.unknown_trips) == ("all_reduce", 1, 1, 8 * F32, 1)
    assert not t.exact and any("lower bound" in n for n in t.notes)


def test_a_module_without_collectives_has_an_empty_table():
    text = (CORPUS / "valid" / "all_reduce_valid_max_i32.mlir").read_text()
    assert rows(table(text, "x.mlir"))  # (the sample has one)
    t = table("func.func @main(%a: tensor<4xf32>) -> tensor<4xf32> {\n  %b = stablehlo.add %a, %a : tensor<4xf32>\n"
              "  return %b : tensor<4xf32>\n}\n", "plain.mlir")
    assert t.rows == [] and (t.ops, t.executions, t.bytes, t.exact) == (0, 0, 0, True)
    hlo = table("HloModule plain\n\nENTRY %main (a: f32[4]) -> f32[4] {\n  %a = f32[4]{0} parameter(0)\n"
                "  ROOT %n = f32[4]{0} negate(%a)\n}\n")
    assert hlo.rows == [] and hlo.front_end == "hlo"


def test_the_compiled_module_counts_what_xla_runs():
    """psum_scatter in a fori_loop of 4: the StableHLO runs it 4 times; XLA hoisted the
    loop-invariant reduce-scatter out of the loop, so the compiled module runs it once."""
    jax_text = (CORPUS / "real" / "psum_scatter_loop.mlir").read_text()
    compiled = (CORPUS / "hlo" / "psum_scatter_loop.hlo").read_text()
    (before,) = table(jax_text, "psum_scatter_loop.mlir").rows
    (after,) = table(compiled, "psum_scatter_loop.hlo").rows
    # reduce_scatter of f32[8] over 8 devices: the buffer reduced is the f32[8] operand
    assert (before.kind, before.group_size, before.executions, before.bytes) == ("reduce_scatter", 8, 4, 4 * 8 * F32)
    assert (after.kind, after.group_size, after.executions, after.bytes) == ("reduce_scatter", 8, 1, 8 * F32)


def test_async_pairs_count_once_with_their_payload():
    """tests/fixtures/hlo/gpu_async.hlo: an all-gather-start's payload is its result half
    (f32[64], not the f32[8] operand it carries too); a permute-start's u32[] context
    leaves are no payload; the async-start's reduce-scatter is read from its body."""
    got = rows(table((HLO / "gpu_async.hlo").read_text(), "gpu_async.hlo"))
    assert (got[("all_gather", 8)].bytes, got[("all_gather", 8)].async_ops) == (64 * F32, 1)
    assert (got[("collective_permute", None)].bytes, got[("collective_permute", None)].async_ops) == (8 * F32, 1)
    # async-start(f32[8]) -> f32[2] reduce-scatter over [2,4]<=[4,2]T(1,0): groups of 4
    assert (got[("reduce_scatter", 4)].bytes, got[("reduce_scatter", 4)].async_ops) == (2 * 4 * F32, 1)
    assert (got[("all_reduce", 4)].bytes, got[("all_reduce", 4)].async_ops) == (8 * F32, 1)
    assert sum(r.ops for r in got.values()) == 6  # the dones are not counted again


def test_the_table_is_not_counted_unless_asked():
    result = lint_source(SourceFile("p.hlo", (CORPUS / "hlo" / "psum.hlo").read_text()), Config())
    assert result.communication is None


# ----------------------------------------------------------------------------- reports
def _cli(*args: str) -> str:
    out = CliRunner().invoke(main, ["check", "--no-source", *args])
    assert out.exit_code in (0, 1), out.output
    return out.output


def test_statistics_prints_a_table_per_file():
    out = _cli("--statistics", str(HLO / "comm_table.hlo"), str(CORPUS / "hlo" / "fori_pipeline.hlo"),
               str(CORPUS / "valid" / "all_gather_valid_tiled.mlir"),
               str(CORPUS / "invalid" / "all_gather_c1_dim_out_of_range.mlir"))
    assert "Communication per step in " + str(HLO / "comm_table.hlo") in out
    lines = out.splitlines()
    permute = next(ln for ln in lines if ln.strip().startswith("collective-permute"))
    assert re.search(r"collective-permute\s+-\s+1\s+-\s+5\s+200 B$", permute), permute
    # corpus/hlo/fori_pipeline.hlo: one permute in a loop of 11 trips, its size read from the text
    text = (CORPUS / "hlo" / "fori_pipeline.hlo").read_text()
    shape = re.search(r"= f32\[(\d+),(\d+)\]\{1,0\} collective-permute\(", text)
    size = int(shape.group(1)) * int(shape.group(2)) * F32 * 11
    assert f"Communication per step in {CORPUS / 'hlo' / 'fori_pipeline.hlo'}" in out
    assert re.search(rf"collective-permute\s+-\s+1\s+-\s+11\s+{size / 1024:.1f} KiB".replace(".0 KiB", " KiB"), out)
    assert "all_gather" in out  # a StableHLO file's kinds are spelled as StableHLO spells them
    assert "note: 3 communication ops in branches" in out
    assert "No collectives" not in out


def test_statistics_says_which_files_have_no_collectives(tmp_path):
    plain = tmp_path / "plain.mlir"
    plain.write_text("func.func @main(%a: tensor<4xf32>) -> tensor<4xf32> {\n  return %a : tensor<4xf32>\n}\n")
    out = _cli("--statistics", str(plain))
    assert f"No collectives in 1 file: {plain}." in out and "Communication per step" not in out


def test_no_table_without_statistics():
    out = _cli(str(CORPUS / "hlo" / "fori_pipeline.hlo"))
    assert "Communication per step" not in out


def test_json_statistics_has_a_communication_list(tmp_path):
    out = _cli("-f", "json", "--statistics", str(HLO / "comm_table.hlo"), str(CORPUS / "hlo" / "psum.hlo"))
    doc = json.loads(out)
    comm = doc["communication"]
    assert [c["path"] for c in comm] == [str(HLO / "comm_table.hlo"), str(CORPUS / "hlo" / "psum.hlo")]
    first = comm[0]
    assert set(first) == {"path", "front_end", "entry", "ops", "executions_per_step", "bytes_per_step", "exact",
                          "rows", "notes"}
    assert set(first["rows"][0]) == {"kind", "group_size", "ops", "executions", "bytes", "async", "unknown_trips",
                                     "in_branches"}
    assert first["ops"] == 9 and first["exact"] is False
    assert first["bytes_per_step"] == sum(r["bytes"] for r in first["rows"])
    permute = next(r for r in first["rows"] if r["kind"] == "collective_permute")
    assert permute == {"kind": "collective_permute", "group_size": None, "ops": 1, "executions": 5,
                       "bytes": 5 * 10 * F32, "async": 0, "unknown_trips": 0, "in_branches": 0}
    assert "communication" not in json.loads(_cli("-f", "json", str(HLO / "comm_table.hlo")))


def test_the_html_report_has_a_table_per_file(tmp_path):
    page = tmp_path / "r.html"
    _cli("-f", f"html:{page}", str(HLO / "comm_table.hlo"), str(CORPUS / "hlo" / "psum.hlo"),
         str(CORPUS / "valid" / "all_gather_valid_tiled.mlir"))
    html = page.read_text()
    assert 'id="communication"' in html
    assert html.count('<div class="comm"') == 3
    assert "<td>collective-permute</td><td>-</td><td>1</td><td>-</td><td>5</td><td>200 B</td>" in html


def test_parallel_workers_send_the_tables_back():
    files = [HLO / "comm_table.hlo", CORPUS / "hlo" / "fori_pipeline.hlo", CORPUS / "hlo" / "psum.hlo"]
    one = [r.communication.to_dict() for r in lint_paths([str(p) for p in files], Config(communication=True), jobs=1)]
    two = [r.communication.to_dict() for r in lint_paths([str(p) for p in files], Config(communication=True), jobs=2)]
    assert one == two and one[0]["ops"] == 9


@pytest.mark.parametrize("name,trips", [("auto_fsdp_step.hlo", 1), ("ring_attention.hlo", 8),
                                        ("collective_matmul_scan.hlo", 8), ("fsdp_scan.hlo", 3),
                                        ("auto_scan_layers.hlo", 3)])
def test_every_collective_of_a_compiled_module_is_in_its_table(name, trips):
    """The table's ops are the module's collectives (its text counted by opcode); those of
    the scanned programs all sit in the loop body, so each runs its stated trip count."""
    text = (CORPUS / "hlo" / name).read_text()
    t = table(text, name)
    written = len(re.findall(r" (?:all-reduce|all-gather|reduce-scatter|all-to-all|collective-permute)\(", text))
    assert t.ops == written > 0
    if trips > 1:
        assert re.findall(r'"known_trip_count":\{"n":"(\d+)"\}', text) == [str(trips)]
    assert t.executions == written * trips and t.exact
