"""Uniformity (checker/analysis/uniform.py, the tracer's uniform decisions, SHLO504): which
values are the same on every process of a group, branches and loops proven for
every value, per-device data guarding communication, constant tables indexed by
the process id. Verdicts on the real JAX exports follow what XLA:CPU did with
them (corpus/deadlock/generate_uniform.py --run; docs/uniformity.md)."""
from __future__ import annotations

import numpy as np
import pytest

from shlo_lint import Config, lint_text
from shlo_lint.checker.analysis.process_model import analyze
from shlo_lint.checker.frontend.read import header_parser as parser
from shlo_lint.checker.frontend.stablehlo.scan import scan
from shlo_lint.checker.analysis.semantics import grid_of
from shlo_lint.checker.source.text import SourceFile
from shlo_lint.checker.analysis.tracer.tracer import Tracer
from shlo_lint.checker.analysis.tracer.structure import structure
from shlo_lint.checker.analysis.uniform import Uni, combine, meet, per_process

from conftest import CORPUS

CH = "#stablehlo.channel_handle<handle = 1, type = 1>"
ADD = """({
      ^bb0(%a: tensor<f32>, %b: tensor<f32>):
        %t = stablehlo.add %a, %b : tensor<f32>
        stablehlo.return %t : tensor<f32>
      })"""
MAX = ADD.replace("stablehlo.add", "stablehlo.maximum")


def mod(text: str):
    return scan(SourceFile("t.mlir", text), parser())


def program(body: str, args: str = "%x: tensor<4xf32>", n: int = 8, ret: str = "%x") -> str:
    return (f"module @m attributes {{mhlo.num_partitions = {n} : i32, mhlo.num_replicas = 1 : i32}} {{\n"
            f"  func.func public @main({args}) -> tensor<4xf32> {{\n{body}\n"
            f"    return {ret} : tensor<4xf32>\n  }}\n}}\n")


def groups(rows: list[list[int]]) -> str:
    return f"dense<{rows}> : tensor<{len(rows)}x{len(rows[0])}xi64>"


def psum(arg: str = "%x", res: str = "%s", rows=None, reduce: str = ADD, ty: str = "tensor<4xf32>") -> str:
    rows = rows or [list(range(8))]
    return (f'{res} = "stablehlo.all_reduce"({arg}) <{{channel_handle = {CH}, replica_groups = {groups(rows)}, '
            f'use_global_device_ids}}> {reduce.replace("tensor<f32>", "tensor<f32>")} : ({ty}) -> {ty}')


def verdict(text: str):
    m = mod(text)
    return analyze(m, grid_of(m))


def codes(text: str) -> list[tuple[str, str]]:
    """(code, its words) of the deadlock findings: the one-line message, then its
    notes (where the per-device data comes from is a note under the headline)."""
    return [(d.code, " | ".join([d.message, *(n.message for n in d.notes)]))
            for d in lint_text(text, "t.mlir", Config()) if d.code.startswith("SHLO5")]


def case(pred: str, then: str, other: str = "", res: str = "%r") -> str:
    """`if` on `pred` with `then` (defining %s) in the first branch."""
    other = other or "      stablehlo.return %x : tensor<4xf32>"
    return (f'    {res} = "stablehlo.if"({pred}) ({{\n      {then}\n      stablehlo.return %s : tensor<4xf32>\n'
            f"    }}, {{\n{other}\n    }}) : (tensor<i1>) -> tensor<4xf32>")


# ----------------------------------------------------------------------------- the value algebra
def test_meet_and_combine():
    a = np.array([0, 0, 1, 1])
    b = np.array([0, 1, 0, 1])
    assert meet(None, a) is a and meet(a, None) is a
    assert sorted(set(meet(a, b).tolist())) == [0, 1, 2, 3]
    u = combine([Uni(a), 3, np.array([5, 5, 5, 5])])
    assert u.classes.tolist() == [0, 0, 1, 1]
    assert combine([1, 2]).classes is None
    p = per_process(4, "mine")
    assert combine([p, Uni(None)]).origins[0].text == "mine"


# ----------------------------------------------------------------------------- proofs: uniform decisions
def test_replicated_argument_branch_is_proven_for_every_value():
    text = program(case("%flag", psum()), args='%x: tensor<4xf32>, %flag: tensor<i1> {mhlo.sharding = "{replicated}"}')
    v = verdict(text)
    assert v.status == "deadlock-free", v.reason
    assert [d.what for d in v.trace.uniform] == ["branch index"]
    assert codes(text) == []


def test_unsharded_argument_of_a_per_device_program_may_deadlock():
    text = program(case("%flag", psum()), args="%x: tensor<4xf32>, %flag: tensor<i1>")
    v = verdict(text)
    assert v.status == "unknown"
    (d,) = v.trace.divergent
    assert "the block argument %flag" in d.text() and d.guarded.name == "stablehlo.all_reduce"
    got = codes(text)
    assert [c for c, _ in got] == ["SHLO504"]  # SHLO503 ("undecided") is superseded at the same op
    assert "may deadlock" in got[0][1] and "%flag" in got[0][1]
    # ... and speaks again when SHLO504 is not enabled: the cause is never silent
    alone = [(d.code, d.message) for d in lint_text(text, "t.mlir", Config(ignore=("SHLO504",)))
             if d.code.startswith("SHLO5")]
    assert got[0][1].startswith("this if may deadlock: its branch index depends on per-device data, around the "
                                "all_reduce at line ")
    assert [c for c, _ in alone] == ["SHLO503"] and "%flag" in alone[0][1]
    # suppressing the warning at its line silences the cause, not only one of its two findings
    line = text.splitlines().index(next(ln for ln in text.splitlines() if '"stablehlo.if"' in ln))
    lines = text.splitlines()
    lines[line] += "  // shlo-lint: ignore[SHLO504]"
    assert codes("\n".join(lines) + "\n") == []


def test_only_the_annotated_argument_is_replicated():
    # %x is declared replicated; %flag, in a per-device program, is not
    text = program(case("%flag", psum()), args='%x: tensor<4xf32> {mhlo.sharding = "{replicated}"}, %flag: tensor<i1>')
    assert [c for c, _ in codes(text)] == ["SHLO504"]
    manual = program(case("%flag", psum()), args='%x: tensor<4xf32>, %flag: tensor<i1> {mhlo.sharding = "{manual}"}')
    assert [c for c, _ in codes(manual)] == ["SHLO504"]


def test_each_branch_of_a_uniform_decision_is_checked():
    # every process takes the same branch, but branch 0 itself runs a psum on
    # partition 0 only: a deadlock whichever value the flag has... when it is true
    pid = ("      %p = stablehlo.partition_id : tensor<ui32>\n"
           "      %z = stablehlo.constant dense<0> : tensor<ui32>\n"
           "      %is0 = stablehlo.compare EQ, %p, %z, UNSIGNED : (tensor<ui32>, tensor<ui32>) -> tensor<i1>\n")
    inner = pid + case("%is0", psum(), res="%s").replace("\n", "\n  ")
    text = program(case("%flag", inner.strip()), args='%x: tensor<4xf32>, %flag: tensor<i1> {mhlo.sharding = "{replicated}"}')
    v = verdict(text)
    assert v.status == "deadlock"
    assert "branch 0 (if taken" in v.deadlocks[0].blocked[0].step.where()


def test_send_and_recv_in_different_branches_of_a_uniform_branch_are_not_matched():
    # every process takes the same branch: the send of branch 0 is never
    # received, the recv of branch 1 never gets a send; neither is "proven"
    ch = "#stablehlo.channel_handle<handle = 2, type = 1>"
    send = (f'%t = stablehlo.after_all : !stablehlo.token\n      %k = "stablehlo.send"(%x, %t) <{{channel_handle = {ch}, '
            f'source_target_pairs = dense<[[0, 1]]> : tensor<1x2xi64>}}> : (tensor<4xf32>, !stablehlo.token) -> '
            f'!stablehlo.token\n      %s = stablehlo.add %x, %x : tensor<4xf32>')
    recv = (f'      %t = stablehlo.after_all : !stablehlo.token\n      %s, %k = "stablehlo.recv"(%t) <{{channel_handle = '
            f'{ch}, source_target_pairs = dense<[[0, 1]]> : tensor<1x2xi64>}}> : (!stablehlo.token) -> '
            f'(tensor<4xf32>, !stablehlo.token)\n      stablehlo.return %s : tensor<4xf32>')
    text = program(case("%flag", send, recv), n=2,
                   args='%x: tensor<4xf32>, %flag: tensor<i1> {mhlo.sharding = "{replicated}"}')
    v = verdict(text)
    assert v.status == "unknown" and "send/recv under such a branch" in v.reason


def test_pmax_predicate_loop_is_proven_and_local_predicate_is_not():
    def loop(pred_from: str) -> str:
        return f"""    %e0 = stablehlo.constant dense<1.0> : tensor<f32>
    %w:2 = stablehlo.while(%it = %x, %err = %e0) : tensor<4xf32>, tensor<f32>
    cond {{
      {pred_from}
      %tol = stablehlo.constant dense<1.0e-3> : tensor<f32>
      %go = stablehlo.compare GT, %m, %tol, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      stablehlo.return %go : tensor<i1>
    }} do {{
      {psum("%it")}
      %h = stablehlo.constant dense<0.5> : tensor<4xf32>
      %y = stablehlo.multiply %s, %h : tensor<4xf32>
      %z = stablehlo.constant dense<0xFF800000> : tensor<f32>
      %e = stablehlo.reduce(%y init: %z) applies stablehlo.maximum across dimensions = [0] : (tensor<4xf32>, tensor<f32>) -> tensor<f32>
      stablehlo.return %y, %e : tensor<4xf32>, tensor<f32>
    }}"""
    pmax = psum("%err", "%m", reduce=MAX, ty="tensor<f32>")
    good = program(loop(pmax), ret="%w#0")
    v = verdict(good)
    assert v.status == "deadlock-free", v.reason
    assert [d.what for d in v.trace.uniform] == ["trip count"]
    # the representative trip count: cond, body, cond, body, cond
    assert [s.op.name.rsplit(".", 1)[-1] for s in v.trace.steps] == ["all_reduce"] * 5
    # the loop's error is per-device data (from %x): may deadlock
    bad = program(loop("%m = stablehlo.add %err, %err : tensor<f32>"), ret="%w#0")
    bad = bad.replace("%e0 = stablehlo.constant dense<1.0> : tensor<f32>",
                      "%z0 = stablehlo.constant dense<0.0> : tensor<f32>\n"
                      "    %e0 = stablehlo.reduce(%x init: %z0) applies stablehlo.maximum across dimensions = [0] : "
                      "(tensor<4xf32>, tensor<f32>) -> tensor<f32>")
    v = verdict(bad)
    assert v.status == "unknown" and v.trace.divergent
    assert [c for c, _ in codes(bad)] == ["SHLO504"]


HALVES = [[0, 1, 2, 3], [4, 5, 6, 7]]
HALF_MAX = ("    " + psum("%x", "%m", rows=HALVES, reduce=MAX) + "\n"
            "    %z0 = stablehlo.constant dense<0.0> : tensor<f32>\n"
            "    %mm = stablehlo.reduce(%m init: %z0) applies stablehlo.maximum across dimensions = [0] : "
            "(tensor<4xf32>, tensor<f32>) -> tensor<f32>\n"
            "    %go = stablehlo.compare GT, %mm, %z0, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>\n")
"""%go: a predicate that is the same within each half of the 8 processes (a pmax
over the half), not over all of them."""


def test_uniform_within_subgroups_is_enough_for_a_collective_in_the_same_subgroups():
    same = program(HALF_MAX + case("%go", psum(rows=HALVES)))
    v = verdict(same)
    assert v.status == "deadlock-free", v.reason
    # the same predicate guarding a psum over all 8 processes splits its group
    wide = program(HALF_MAX + case("%go", psum()))
    v = verdict(wide)
    assert v.status == "unknown"
    (d,) = v.trace.divergent
    assert "the all_reduce at line 3 (the same only within each of its process groups)" in d.text()
    assert [c for c, _ in codes(wide)] == ["SHLO504"]


def test_uniform_within_each_pair_is_not_enough_for_a_permute():
    # a predicate the same within {0..3} and within {4..7} guards a permute whose
    # pairs stay inside those halves: every pair's ends take the same branch, but
    # XLA meets the permute as a rendezvous of all 8 partitions, which the
    # predicate can split (deadlock/model.py PERMUTE_RENDEZVOUS)
    permute = ('%s = "stablehlo.collective_permute"(%x) <{channel_handle = ' + CH + ', source_target_pairs = '
               'dense<[[0, 1], [1, 0], [4, 5], [5, 4]]> : tensor<4x2xi64>}> : (tensor<4xf32>) -> tensor<4xf32>')
    text = program(HALF_MAX + case("%go", permute))
    v = verdict(text)
    assert v.status == "unknown"
    (d,) = v.trace.divergent
    assert d.guarded.name == "stablehlo.collective_permute"
    assert [c for c, _ in codes(text)] == ["SHLO504"]
    # the same predicate around an all_reduce within the halves is proven
    assert verdict(program(HALF_MAX + case("%go", psum(rows=HALVES)))).status == "deadlock-free"


def test_loop_counter_after_a_uniform_loop_stays_uniform():
    # a counter carried through a loop with a uniform trip count: the same on
    # every process afterwards, whatever the count; a branch on it is proven
    pmax = psum("%err", "%m", reduce=MAX, ty="tensor<f32>")
    body = f"""    %one = stablehlo.constant dense<1> : tensor<i32>
    %i0 = stablehlo.constant dense<0> : tensor<i32>
    %e0 = stablehlo.constant dense<1.0> : tensor<f32>
    %w:2 = stablehlo.while(%i = %i0, %err = %e0) : tensor<i32>, tensor<f32>
    cond {{
      {pmax}
      %go = stablehlo.compare GT, %m, %e0, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      stablehlo.return %go : tensor<i1>
    }} do {{
      %j = stablehlo.add %i, %one : tensor<i32>
      %h = stablehlo.constant dense<0.5> : tensor<f32>
      %e = stablehlo.multiply %err, %h : tensor<f32>
      stablehlo.return %j, %e : tensor<i32>, tensor<f32>
    }}
    %five = stablehlo.constant dense<5> : tensor<i32>
    %odd = stablehlo.compare GT, %w#0, %five, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
"""
    text = program(body + case("%odd", psum()), ret="%r")
    v = verdict(text)
    assert v.status == "deadlock-free", v.reason
    assert [d.what for d in v.trace.uniform] == ["trip count", "branch index"]


def test_communication_that_depends_on_the_iteration_is_not_proven():
    # a uniform trip count, but in iteration 6 only partition 0 enters a psum:
    # the counter is widened after the first iteration, so this is never proven
    pmax = psum("%err", "%m", reduce=MAX, ty="tensor<f32>")
    inner = ("%p = stablehlo.partition_id : tensor<ui32>\n"
             "      %pi = stablehlo.convert %p : (tensor<ui32>) -> tensor<i32>\n"
             "      %five = stablehlo.constant dense<5> : tensor<i32>\n"
             "      %at5 = stablehlo.compare EQ, %i, %five, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>\n"
             "      %zero = stablehlo.constant dense<0> : tensor<i32>\n"
             "      %p0 = stablehlo.compare EQ, %pi, %zero, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>\n"
             "      %both = stablehlo.and %at5, %p0 : tensor<i1>\n")
    branch = case("%both", psum(), res="%r").replace("\n", "\n  ")
    body = f"""    %one = stablehlo.constant dense<1> : tensor<i32>
    %i0 = stablehlo.constant dense<0> : tensor<i32>
    %e0 = stablehlo.constant dense<1.0> : tensor<f32>
    %w:2 = stablehlo.while(%i = %i0, %err = %e0) : tensor<i32>, tensor<f32>
    cond {{
      {pmax}
      %go = stablehlo.compare GT, %m, %e0, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      stablehlo.return %go : tensor<i1>
    }} do {{
      {inner}  {branch.strip()}
      %j = stablehlo.add %i, %one : tensor<i32>
      %h = stablehlo.constant dense<0.5> : tensor<f32>
      %e = stablehlo.multiply %err, %h : tensor<f32>
      stablehlo.return %j, %e : tensor<i32>, tensor<f32>
    }}"""
    v = verdict(program(body))
    assert v.status != "deadlock-free"
    assert v.trace.divergent and "the process id" in v.trace.divergent[0].text()


def test_an_async_all_reduce_result_is_uniform_too():
    start = ('%f = "stablehlo.async_start"(%x) ({\n    ^bb0(%y: tensor<4xf32>):\n      '
             + psum("%y", "%z", reduce=MAX).replace("\n", "\n  ")
             + '\n      stablehlo.return %z : tensor<4xf32>\n    }) : (tensor<4xf32>) -> !stablehlo.future<tensor<4xf32>>\n'
             '    %m = "stablehlo.async_done"(%f) : (!stablehlo.future<tensor<4xf32>>) -> tensor<4xf32>\n'
             "    %z0 = stablehlo.constant dense<0.0> : tensor<f32>\n"
             "    %mm = stablehlo.reduce(%m init: %z0) applies stablehlo.maximum across dimensions = [0] : "
             "(tensor<4xf32>, tensor<f32>) -> tensor<f32>\n"
             "    %go = stablehlo.compare GT, %mm, %z0, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>\n")
    text = program("    " + start + case("%go", psum()))
    v = verdict(text)
    assert v.status == "deadlock-free", v.reason
    assert [d.what for d in v.trace.uniform] == ["branch index"]


def test_a_uniform_branch_inside_a_loop_is_recorded_once():
    body = f"""    %i0 = stablehlo.constant dense<0> : tensor<i32>
    %one = stablehlo.constant dense<1> : tensor<i32>
    %n = stablehlo.constant dense<5> : tensor<i32>
    %w:2 = stablehlo.while(%i = %i0, %acc = %x) : tensor<i32>, tensor<4xf32>
    cond {{
      %go = stablehlo.compare LT, %i, %n, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %go : tensor<i1>
    }} do {{
  {case("%flag", psum("%acc")).replace(chr(10), chr(10) + "  ")}
      %j = stablehlo.add %i, %one : tensor<i32>
      stablehlo.return %j, %r : tensor<i32>, tensor<4xf32>
    }}"""
    v = verdict(program(body, args='%x: tensor<4xf32>, %flag: tensor<i1> {mhlo.sharding = "{replicated}"}',
                        ret="%w#1"))
    assert v.status == "deadlock-free", v.reason
    assert len(v.trace.uniform) == 1 and len(v.trace.steps) == 5  # 5 iterations, one psum each


# ----------------------------------------------------------------------------- constant tables
def value_of(body: str, result: str, n: int = 8):
    m = mod(program(body, n=n))
    t = Tracer(m, grid_of(m), structure(m))
    func = m.funcs["main"]
    t.enter(func)
    from shlo_lint.checker.analysis.tracer.process_values import Frame as _Frame

    frame = _Frame(func.regions[0], None)
    op = next(o for o in func.walk() if o.result_names and o.result_names[0][0] == result)
    v = t.value(op.results[0], frame)
    return np.broadcast_to(np.asarray(v), (n,)).tolist() if isinstance(v, (int, np.ndarray)) else v


def test_constant_table_indexed_by_partition_id_is_folded():
    body = """    %t = stablehlo.constant dense<[[5, 6], [7, 8], [9, 10], [11, 12]]> : tensor<4x2xi32>
    %p = stablehlo.partition_id : tensor<ui32>
    %i = stablehlo.convert %p : (tensor<ui32>) -> tensor<i32>
    %two = stablehlo.constant dense<2> : tensor<i32>
    %row = stablehlo.divide %i, %two : tensor<i32>
    %col = stablehlo.remainder %i, %two : tensor<i32>
    %s = stablehlo.dynamic_slice %t, %row, %col, sizes = [1, 1] : (tensor<4x2xi32>, tensor<i32>, tensor<i32>) -> tensor<1x1xi32>
    %v = stablehlo.reshape %s : (tensor<1x1xi32>) -> tensor<i32>
    %big = stablehlo.constant dense<9> : tensor<i32>
    %c = stablehlo.dynamic_slice %t, %big, %col, sizes = [1, 1] : (tensor<4x2xi32>, tensor<i32>, tensor<i32>) -> tensor<1x1xi32>"""
    assert value_of(body, "%v") == [5, 6, 7, 8, 9, 10, 11, 12]
    assert value_of(body, "%c") == [11, 12] * 4  # start indices are clamped into the table
    # a table read at a per-device index is per-device data
    body2 = body.replace("%p = stablehlo.partition_id : tensor<ui32>\n    %i = stablehlo.convert %p : (tensor<ui32>) -> tensor<i32>",
                         "%f = stablehlo.constant dense<0.0> : tensor<4xf32>\n    %g = stablehlo.add %x, %f : tensor<4xf32>\n"
                         "    %h = stablehlo.slice %g [0:1] : (tensor<4xf32>) -> tensor<1xf32>\n"
                         "    %k = stablehlo.reshape %h : (tensor<1xf32>) -> tensor<f32>\n"
                         "    %i = stablehlo.convert %k : (tensor<f32>) -> tensor<i32>")
    v = value_of(body2, "%v")
    assert isinstance(v, Uni) and v.classes is not None


def test_constant_table_gather_is_folded():
    # jnp.take(jnp.array([...]), axis_index("x")) lowers to a gather
    body = """    %t = stablehlo.constant dense<[3, 1, 2, 0, 3, 1, 2, 0]> : tensor<8xi32>
    %p = stablehlo.partition_id : tensor<ui32>
    %i = stablehlo.convert %p : (tensor<ui32>) -> tensor<i32>
    %iv = stablehlo.reshape %i : (tensor<i32>) -> tensor<1xi32>
    %g = "stablehlo.gather"(%t, %iv) <{dimension_numbers = #stablehlo.gather<collapsed_slice_dims = [0], start_index_map = [0]>, indices_are_sorted = false, slice_sizes = array<i64: 1>}> : (tensor<8xi32>, tensor<1xi32>) -> tensor<i32>"""
    assert value_of(body, "%g") == [3, 1, 2, 0, 3, 1, 2, 0]


@pytest.mark.parametrize("variant", ["", ".gspmd"])
def test_constant_table_branch_deadlock_is_found(variant):
    v = verdict((CORPUS / "deadlock" / f"uniform_table_switch{variant}.mlir").read_text())
    assert v.status == "deadlock"
    blocked = sorted(p for d in v.deadlocks for p in d.processes)
    assert blocked == [(0, p) for p in range(8)]  # XLA:CPU: every device stuck at its rendezvous
    tr = v.trace
    split = tr.branch_of(next(b[0] for b in tr.branches.values()))
    assert split == {0: [0, 2, 4, 6], 1: [1, 3, 5, 7]}


# ----------------------------------------------------------------------------- the real JAX exports
# (name, verdict, SHLO504 expected): what XLA:CPU did is in the comment
REAL = [
    ("pmax_loop", "deadlock-free", False),          # completed
    ("replicated_cond", "deadlock-free", False),    # completed
    ("table_switch_same", "deadlock-free", False),  # completed
    ("table_switch", "deadlock", False),            # aborted: rendezvous, 8 expected
    ("local_loop", "unknown", True),                # aborted: rendezvous, 8 expected
    ("row_loop_psum_row", "deadlock-free", False),  # completed (2x4 mesh: pmax over "y", psum over "y")
    ("row_loop_psum_all", "unknown", True),         # aborted: rendezvous, 8 expected (psum over both axes)
]


DEBUG = ("pmax_loop", "local_loop", "table_switch")  # also exported with debug info
CASES = [(n, s, w, v) for n, s, w in REAL for v in ("", ".gspmd", ".debug") if v != ".debug" or n in DEBUG]


@pytest.mark.parametrize("name,status,warns,variant", CASES, ids=[f"{c[0]}{c[3]}" for c in CASES])
def test_real_exports(name, status, warns, variant):
    path = CORPUS / "deadlock" / f"uniform_{name}{variant}.mlir"
    text = path.read_text()
    v = verdict(text)
    assert v.status == status, v.reason
    got = [c for c, _ in codes(text)]
    assert ("SHLO504" in got) == warns
    if status == "deadlock-free":
        assert got == [] and v.trace.uniform or name == "table_switch_same"


def test_local_loop_names_the_argument_and_its_sharding():
    text = (CORPUS / "deadlock" / "uniform_local_loop.gspmd.mlir").read_text()
    msg = next(m for c, m in codes(text) if c == "SHLO504")
    assert "the argument %arg0 sharded {devices=[8]<=[8]}" in msg
    text = (CORPUS / "deadlock" / "uniform_local_loop.mlir").read_text()
    msg = next(m for c, m in codes(text) if c == "SHLO504")
    assert 'the argument %arg0 sharded <@mesh, [{"x"}]> along the manual axes' in msg


def test_no_false_warning_on_the_real_corpus():
    for path in sorted((CORPUS / "real").glob("*.mlir")):
        got = [c for c, _ in codes(path.read_text())]
        assert "SHLO504" not in got, path.name


@pytest.mark.parametrize("old,new", [
    ("{devices=[8]<=[8]}", "{devices=[3]0,1}"),
    ("{devices=[8]<=[8]}", "{maximal device=0}"),
    ("{devices=[8]<=[8]}", "garbage"),
])
def test_an_unreadable_gspmd_sharding_is_per_device_data_never_a_proof(old, new):
    text = (CORPUS / "deadlock" / "uniform_local_loop.gspmd.mlir").read_text().replace(old, new, 1)
    got = dict(codes(text))
    assert "SHLO504" in got and "taken as per-device data" in got["SHLO504"] and "SHLO003" not in got


@pytest.mark.parametrize("old,new", [
    ('<["x"=8]>', '<["x"=4]>'),                                  # mesh smaller than the grid
    ('<["x"=8]>', '<["x"=8], device_ids=[0,1]>'),                # device ids that do not fit
    ('[{"x"}]>] out', '[{"y"}]>] out'),                          # an axis the mesh does not have
    ("in_shardings=[", "in_shardings=[<@mesh, []>, "),           # not one sharding per operand
])
def test_an_unreadable_shardy_sharding_is_per_device_data_never_a_proof(old, new):
    text = (CORPUS / "deadlock" / "uniform_local_loop.mlir").read_text().replace(old, new, 1)
    got = dict(codes(text))
    assert "SHLO504" in got and "taken as per-device data" in got["SHLO504"] and "SHLO003" not in got


def test_hlo_sharding_classes():
    from shlo_lint.checker.analysis.semantics import Grid
    from shlo_lint.checker.analysis.uniform import hlo_sharding_classes

    grid = Grid(1, 8)
    assert hlo_sharding_classes("{replicated}", grid) is None
    assert hlo_sharding_classes("{devices=[8]<=[8]}", grid).tolist() == list(range(8))
    # split along the first mesh axis of a 2x4 mesh, replicated along the second:
    # each row of four devices holds the same shard
    assert hlo_sharding_classes("{devices=[2,4]<=[8] last_tile_dim_replicate}", grid).tolist() == [0] * 4 + [1] * 4
    # split along the second axis (transposed device order): columns share a shard
    assert hlo_sharding_classes("{devices=[4,2]<=[2,4]T(1,0) last_tile_dim_replicate}", grid).tolist() == \
        [0, 1, 2, 3] * 2
    assert hlo_sharding_classes("{manual}", grid) == "manual"


def _labels_reference(values: np.ndarray):
    """labels() as np.unique computes it (the path for more than 64 processes)."""
    _u, first, inv = np.unique(values, return_index=True, return_inverse=True)
    inv = np.asarray(inv, dtype=np.int64).reshape(-1)
    if inv.size == 0 or inv.max() == 0:
        return None
    rank = np.empty(first.size, dtype=np.int64)
    rank[np.argsort(first)] = np.arange(first.size, dtype=np.int64)
    return rank[inv]


@pytest.mark.parametrize("values", [
    [], [5], [3, 3, 3], [2, 0, 2, 1], [-1, 7, -1, 7, 0], [[4, 4], [1, 4]], [True, False, True],
    list(range(64)), [i % 3 for i in range(65)], [(i * 7) % 5 for i in range(200)],
])
@pytest.mark.parametrize("dtype", [np.int64, np.int32, np.uint8, bool])
def test_labels_numbers_classes_by_first_occurrence(values, dtype):
    """The dict path (up to 64 processes) and np.unique's give the same partition
    arrays: classes numbered by first occurrence, None when all are equal."""
    from shlo_lint.checker.analysis.uniform import labels

    a = np.array(values).astype(dtype) if values else np.zeros(0, dtype=dtype)
    got, want = labels(a), _labels_reference(a)
    if want is None:
        assert got is None
    else:
        assert got is not None and got.dtype == np.int64 and got.shape == want.shape
        assert got.tolist() == want.tolist()
