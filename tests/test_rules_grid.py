"""The process grid: huge grids cost what small ones cost (process sets, not
lists), and grid attributes or ids that overflow their declared type are findings."""
from __future__ import annotations

import time
import tracemalloc

import pytest

from shlo_lint import Config, lint_text
from shlo_lint.checker.analysis.semantics import Grid, iter_process_groups, process_groups
from shlo_lint.rules.support.groups import first_missing

CH = "channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>"
ADD = """({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %s = stablehlo.add %a, %b : tensor<f32>
      stablehlo.return %s : tensor<f32>
    })"""

# The deadlock analyses (SHLO5xx) are another area's; these tests measure the
# rules and the semantics helpers they use.
RULES_ONLY = Config(ignore=("SHLO5",))


def program(partitions: int, ty: str = "i64") -> str:
    return f'''module @m attributes {{mhlo.num_partitions = {partitions} : {ty}, mhlo.num_replicas = 1 : i32}} {{
  func.func @main(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {{
    %0 = "stablehlo.all_reduce"(%x) {ADD} {{replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>, {CH}, use_global_device_ids}} : (tensor<4x8xf32>) -> tensor<4x8xf32>
    %1 = "stablehlo.all_gather"(%0) {{all_gather_dim = 0 : i64, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>, {CH}, use_global_device_ids}} : (tensor<4x8xf32>) -> tensor<8x8xf32>
    %2 = "stablehlo.reduce_scatter"(%1) {ADD} {{scatter_dimension = 0 : i64, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>, {CH}, use_global_device_ids}} : (tensor<8x8xf32>) -> tensor<4x8xf32>
    %3 = "stablehlo.all_to_all"(%2) {{split_dimension = 1 : i64, concat_dimension = 1 : i64, split_count = 2 : i64, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>, {CH}}} : (tensor<4x8xf32>) -> tensor<4x8xf32>
    %4 = "stablehlo.collective_permute"(%3) {{source_target_pairs = dense<[[0, 1], [1, 0]]> : tensor<2x2xi64>}} : (tensor<4x8xf32>) -> tensor<4x8xf32>
    return %4 : tensor<4x8xf32>
  }}
}}
'''


def _measure(text: str):
    tracemalloc.start()
    t0 = time.perf_counter()
    try:
        diags = lint_text(text, "grid.mlir", RULES_ONLY)
    finally:
        secs = time.perf_counter() - t0
        _cur, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
    return diags, secs, peak


@pytest.mark.parametrize("partitions", [2**31, 2**31 - 1, 2**40])
def test_a_huge_grid_costs_what_a_small_one_costs(partitions):
    _measure(program(8))  # warm up: first-use imports and parser tables are not the grid's cost
    diags, secs, peak = _measure(program(partitions))
    codes = sorted(d.code for d in diags)
    # Each coverage rule says the two ids do not cover the axis, with arithmetic;
    # the channel-less permute is read against the grid too (SHLO124, SHLO130).
    assert codes == ["SHLO124", "SHLO130", "SHLO203", "SHLO212", "SHLO224", "SHLO236"], [d.message for d in diags]
    d = next(d for d in diags if d.code == "SHLO212")
    assert d.message.endswith(f"needs all {partitions} (all_reduce C2)")
    assert any(n.message == "missing 2, 3, 4, 5, 6, 7, ..." for n in d.notes)
    assert "SHLO003" not in codes
    assert secs < 10, secs
    assert peak < 64 * 2**20, peak
    _small, _s, small_peak = _measure(program(8))
    assert peak < 4 * small_peak + 8 * 2**20


def test_an_overflowing_grid_attribute_is_a_finding():
    diags = lint_text(program(2**31, "i32"), "grid.mlir", RULES_ONLY)
    d = next(d for d in diags if d.code == "SHLO191")
    assert d.message.startswith("mhlo.num_partitions = 2147483648 does not fit its type i32 (at most 2147483647)")
    # 2^31 fits an i64: no finding there.
    assert "SHLO191" not in [d.code for d in lint_text(program(2**31, "i64"), "g.mlir", RULES_ONLY)]
    assert "SHLO191" in [d.code for d in lint_text(program(2**64, "i64"), "g.mlir", RULES_ONLY)]
    assert "SHLO191" in [d.code for d in lint_text(program(0, "i32"), "g.mlir", RULES_ONLY)]


def test_ids_that_overflow_their_element_type_are_named():
    text = program(8).replace("dense<[[0, 1]]> : tensor<1x2xi64>, {CH}, use_global_device_ids".replace("{CH}", CH),
                              f"dense<[[0, 9223372036854775808]]> : tensor<1x2xi64>, {CH}, use_global_device_ids", 1)
    text = text.replace("dense<[[0, 1], [1, 0]]> : tensor<2x2xi64>", "dense<[[0, 1], [1, 18446744073709551617]]> : "
                        "tensor<2x2xi64>")
    msgs = {d.code: d.message for d in lint_text(text, "g.mlir", RULES_ONLY)}
    assert "replica id 9223372036854775808 does not fit the element type i64" in msgs["SHLO200"]
    assert "holds 18446744073709551617, which does not fit its element type i64" in msgs["SHLO121"]


def test_first_missing_is_arithmetic():
    assert first_missing({0, 1, 5}, 2**62, 3) == [2, 3, 4]
    assert first_missing({0, 1}, 2, 3) == []
    assert first_missing(set(), 2**62, 2) == [0, 1]


def test_process_sets_are_lazy():
    g = Grid(1, 2**31)
    procs = g.processes()
    assert len(procs) == 2**31 and procs[-1] == (0, 2**31 - 1) and (0, 5) in procs and (1, 0) not in procs
    first = next(iter(iter_process_groups(g, "cross_partition", [[0, 1]])))
    assert first == [(0, 0), (0, 1)]
    small = Grid(2, 2)
    assert list(small.processes()) == [(0, 0), (0, 1), (1, 0), (1, 1)]
    assert process_groups(small, "cross_replica", [[0, 1]]) == [[(0, 0), (1, 0)], [(0, 1), (1, 1)]]


GRID_NOTE = ("the grid, 1 replica x 4 partitions, comes from --num-partitions / --num-replicas or the "
             "configuration; the module declares mhlo.num_partitions = 8")


def test_a_finding_from_a_grid_given_on_the_command_line_says_the_module_declares_another():
    """`--num-partitions 4` on a module that declares 8: the out-of-range ids (send C4,
    all_gather C3/C4) are the flag's doing, and each finding that read the grid says so
    at the module's attribute; a finding that does not depend on the grid (a payload
    type) has no such note, nor does a grid that agrees with the module."""
    from conftest import CORPUS

    path = CORPUS / "real" / "sendrecv_pair.buggy_type_mismatch.mlir"
    text = path.read_text(encoding="utf-8")
    diags = lint_text(text, str(path), Config(num_partitions=4))
    by_code = {d.code: d for d in diags}
    assert set(by_code) == {"SHLO104", "SHLO114", "SHLO120"}
    attr = text.index("mhlo.num_partitions = 8") + len("mhlo.num_partitions = ")
    for code in ("SHLO104", "SHLO114"):
        (note,) = [n for n in by_code[code].notes if n.message == GRID_NOTE]
        assert note.location.path == str(path) and note.location.span.start == attr
    assert not any(n.message == GRID_NOTE for n in by_code["SHLO120"].notes)
    gather = CORPUS / "real" / "all_gather.mlir"
    found = lint_text(gather.read_text(encoding="utf-8"), str(gather), Config(num_partitions=4))
    assert found and all(any(n.message == GRID_NOTE for n in d.notes) for d in found), found
    assert lint_text(text, str(path), Config(num_partitions=8)) == lint_text(text, str(path))
