"""Per-process communication traces (checker/analysis/tracer/): the name-only structure
pass, value folding per process (what JAX emits for axis_index), branches and
loops resolved per process, process classes, what stays unresolved."""
from __future__ import annotations

import numpy as np
import pytest

from shlo_lint.checker.frontend.read import header_parser as parser
from shlo_lint.checker.frontend.stablehlo.scan import scan
from shlo_lint.checker.analysis.semantics import Grid, grid_of
from shlo_lint.checker.source.text import SourceFile
from shlo_lint.checker.analysis.tracer.tracer import Tracer, trace
from shlo_lint.checker.analysis.tracer.structure import comm_role, structure

from conftest import CORPUS

CH = "#stablehlo.channel_handle<handle = 1, type = 1>"
ADD = """({
      ^bb0(%a: tensor<f32>, %b: tensor<f32>):
        %t = stablehlo.add %a, %b : tensor<f32>
        stablehlo.return %t : tensor<f32>
      })"""


def mod(text: str):
    return scan(SourceFile("t.mlir", text), parser())


def program(body: str, n: int = 8, args: str = "%x: tensor<4xf32>", replicas: int = 1) -> str:
    return (f"module @m attributes {{mhlo.num_partitions = {n} : i32, mhlo.num_replicas = {replicas} : i32}} {{\n"
            f"  func.func public @main({args}) -> tensor<4xf32> {{\n{body}\n  }}\n}}\n")


def psum(arg: str = "%x", res: str = "%s", n: int = 8) -> str:
    ids = ", ".join(map(str, range(n)))
    return (f'{res} = "stablehlo.all_reduce"({arg}) <{{channel_handle = {CH}, replica_groups = dense<[[{ids}]]> : '
            f'tensor<1x{n}xi64>, use_global_device_ids}}> {ADD} : (tensor<4xf32>) -> tensor<4xf32>')


def value_of(body: str, result: str, n: int = 8, replicas: int = 1):
    """Evaluate %result per process with the tracer's folding."""
    m = mod(program(body + "\n    return %x : tensor<4xf32>", n, replicas=replicas))
    grid = grid_of(m)
    t = Tracer(m, grid, structure(m))
    func = m.funcs["main"]
    t.enter(func)
    from shlo_lint.checker.analysis.tracer.process_values import Frame as _Frame

    frame = _Frame(func.regions[0], None)
    op = next(o for o in func.walk() if o.result_names and o.result_names[0][0] == result)
    v = t.value(op.results[0], frame)
    return np.broadcast_to(np.asarray(v), (grid.size,)).tolist() if isinstance(v, (int, np.ndarray)) else v


# ----------------------------------------------------------------------------- structure
def test_structure_reads_names_only_and_finds_the_uniform_case():
    m = mod(program(psum() + "\n    return %s : tensor<4xf32>"))
    s = structure(m)
    assert s.uniform and len(s.comm_ops) == 1 and s.entries == ["main"]
    assert all(op._header is None for op in m.walk())  # nothing was parsed


def test_structure_sees_communication_under_control_flow_and_through_calls():
    text = (CORPUS / "real" / "fori_pipeline.mlir").read_text()
    s = structure(mod(text))
    assert not s.uniform
    assert [op.name for op in s.comm_ops] == ["stablehlo.collective_permute"]
    assert "closed_call" in s.comm_funcs and "main" in s.comm_funcs
    assert [op.name for op in s.conditional] == ["func.call"]  # the call inside the while


def test_structure_p2p_is_not_uniform():
    s = structure(mod((CORPUS / "real" / "sendrecv_ring.mlir").read_text()))
    assert not s.uniform and len(s.p2p) == 2


def test_comm_roles():
    text = (CORPUS / "real" / "async_fori_loop.mlir").read_text()
    roles = {op.name: comm_role(op) for op in mod(text).walk() if comm_role(op)}
    # the collective_permute inside async_start's body is the start's, not an event of its own
    assert roles == {"stablehlo.async_start": "start", "stablehlo.async_done": "done",
                     "stablehlo.collective_permute": "permute"}
    s = structure(mod(text))
    assert sorted(op.name for op in s.comm_ops) == ["stablehlo.async_done", "stablehlo.async_start"]


# ----------------------------------------------------------------------------- folding
def test_axis_index_as_jax_writes_it():
    body = """    %c = stablehlo.constant dense<2> : tensor<ui32>
    %c_0 = stablehlo.constant dense<4> : tensor<ui32>
    %0 = stablehlo.partition_id : tensor<ui32>
    %1 = stablehlo.divide %0, %c : tensor<ui32>
    %2 = stablehlo.remainder %1, %c_0 : tensor<ui32>
    %3 = stablehlo.convert %2 : (tensor<ui32>) -> tensor<i32>
    %c_1 = stablehlo.constant dense<0> : tensor<i32>
    %4 = stablehlo.compare EQ, %3, %c_1, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %5 = stablehlo.convert %4 : (tensor<i1>) -> tensor<i32>"""
    assert value_of(body, "%3") == [0, 0, 1, 1, 2, 2, 3, 3]
    assert value_of(body, "%5") == [1, 1, 0, 0, 0, 0, 0, 0]


def test_signed_division_truncates_and_remainder_follows_the_dividend():
    body = """    %0 = stablehlo.partition_id : tensor<ui32>
    %1 = stablehlo.convert %0 : (tensor<ui32>) -> tensor<i32>
    %c = stablehlo.constant dense<3> : tensor<i32>
    %2 = stablehlo.subtract %1, %c : tensor<i32>
    %d = stablehlo.constant dense<2> : tensor<i32>
    %3 = stablehlo.divide %2, %d : tensor<i32>
    %4 = stablehlo.remainder %2, %d : tensor<i32>"""
    assert value_of(body, "%3") == [-1, -1, 0, 0, 0, 1, 1, 2]  # -3/2 = -1, -1/2 = 0
    assert value_of(body, "%4") == [-1, 0, -1, 0, 1, 0, 1, 0]


def test_select_minmax_and_or_unsigned_wrap():
    body = """    %0 = stablehlo.partition_id : tensor<ui32>
    %c = stablehlo.constant dense<4> : tensor<ui32>
    %lt = stablehlo.compare LT, %0, %c, UNSIGNED : (tensor<ui32>, tensor<ui32>) -> tensor<i1>
    %one = stablehlo.constant dense<1> : tensor<ui32>
    %odd = stablehlo.and %0, %one : tensor<ui32>
    %s = stablehlo.select %lt, %0, %odd : tensor<i1>, tensor<ui32>
    %m = stablehlo.maximum %s, %one : tensor<ui32>
    %z = stablehlo.constant dense<0> : tensor<ui32>
    %w = stablehlo.subtract %z, %one : tensor<ui32>
    %n = stablehlo.not %lt : tensor<i1>
    %o = stablehlo.or %n, %lt : tensor<i1>"""
    assert value_of(body, "%s") == [0, 1, 2, 3, 0, 1, 0, 1]
    assert value_of(body, "%m") == [1, 1, 2, 3, 1, 1, 1, 1]
    assert value_of(body, "%w") == [2 ** 32 - 1] * 8
    assert value_of(body, "%o") == [1] * 8


def test_replica_id_and_data_are_per_process():
    assert value_of("    %r = stablehlo.replica_id : tensor<ui32>", "%r", n=2, replicas=2) == [0, 0, 1, 1]
    v = value_of("    %y = stablehlo.tanh %x : tensor<4xf32>", "%y")
    # an unsharded argument of a per-device program: each process has its own
    assert v.classes.tolist() == list(range(8)) and "the block argument %x" in v.origins[0].text


# ----------------------------------------------------------------------------- traces
def test_branch_on_partition_id_gives_two_classes():
    text = (CORPUS / "real" / "cond_axis_index_psum.buggy_deadlock.mlir").read_text()
    m = mod(text)
    tr = trace(m, grid_of(m))
    assert len(tr.classes) == 2
    assert [s.op.name for s in tr.steps_of((0, 0))] == ["stablehlo.all_reduce"]
    assert tr.steps_of((0, 5)) == []
    (case, split), = [(v[0], tr.branch_of(v[0])) for v in tr.branches.values()]
    assert split == {1: [0], 0: [1, 2, 3, 4, 5, 6, 7]}


def test_constant_trip_count_unrolls_through_func_call():
    m = mod((CORPUS / "real" / "fori_pipeline.mlir").read_text())
    tr = trace(m, grid_of(m))
    assert len(tr.classes) == 1 and len(tr.steps) == 11
    assert tr.steps[3].where().startswith("iteration 4 of the while")


def test_trip_count_per_process():
    text = (CORPUS / "deadlock" / "while_partition_trip_count.mlir").read_text()
    m = mod(text)
    tr = trace(m, grid_of(m))
    assert [len(tr.steps_of((0, p))) for p in range(4)] == [1, 2, 3, 4]
    assert len(tr.classes) == 4
    (op, counts), = tr.loops.values()
    assert counts.tolist() == [1, 2, 3, 4]


def test_uniform_loop_at_4096_processes_is_one_class():
    import sys

    sys.path.insert(0, str(CORPUS / "deadlock"))
    from generate_grids import permute_loop

    m = mod(permute_loop(4096, trips=3))
    tr = trace(m, grid_of(m))
    assert len(tr.classes) == 1 and len(tr.steps) == 3


def test_unresolved_branch_and_trip_cap():
    m = mod((CORPUS / "deadlock" / "data_dependent_branch.mlir").read_text())
    tr = trace(m, grid_of(m))
    assert [s.role for s in tr.steps] == ["unresolved"]
    assert "block argument %flag" in tr.steps[0].reason
    m = mod((CORPUS / "real" / "fori_pipeline.mlir").read_text())
    tr = trace(m, grid_of(m), max_trips=5)
    assert tr.steps[-1].role == "unresolved" and "more than 5 iterations" in tr.steps[-1].reason
    assert len(tr.steps) == 6


def test_trace_needs_a_grid_and_an_entry():
    m = mod("module @m {\n}\n")
    with pytest.raises(KeyError):
        trace(m, Grid(1, 2))


# ----------------------------------------------------------------------------- issue order, classes, limits
def test_device_sends_and_recvs_are_matched_here_host_transfers_are_external():
    """A channel used on one side only is no longer taken to talk to another
    program (that is declared with the external-channels option)."""
    send = (f'%s = "stablehlo.send"(%x, %t) <{{channel_handle = {CH}, source_target_pairs = dense<[[0, 1]]> : '
            f'tensor<1x2xi64>}}> : (tensor<4xf32>, !stablehlo.token) -> !stablehlo.token')
    host = ('%h = "stablehlo.send"(%x, %t) <{channel_handle = #stablehlo.channel_handle<handle = 2, type = 2>, '
            'is_host_transfer = true}> : (tensor<4xf32>, !stablehlo.token) -> !stablehlo.token')
    m = mod(program(f"    %t = stablehlo.create_token : !stablehlo.token\n    {send}\n    {host}\n"
                    "    return %x : tensor<4xf32>", n=2))
    s = structure(m)
    assert [op.name for op in s.p2p] == ["stablehlo.send"] and len(s.external) == 1
    assert not s.uniform


def test_steps_record_the_block_run_they_were_issued_in():
    body = f"""    %p = stablehlo.partition_id : tensor<ui32>
    %i = stablehlo.convert %p : (tensor<ui32>) -> tensor<i32>
    %r = "stablehlo.case"(%i) ({{
      {psum("%x", "%a")}
      {psum("%a", "%b")}
      stablehlo.return %b : tensor<4xf32>
    }}, {{
      {psum("%x", "%c")}
      stablehlo.return %c : tensor<4xf32>
    }}) : (tensor<i32>) -> tensor<4xf32>
    {psum("%r", "%s")}
    return %s : tensor<4xf32>"""
    tr = trace(mod(program(body, n=2)), Grid(1, 2))
    a, b, c, s = tr.steps
    assert a.block == b.block != c.block  # one run of branch 0, one of branch 1
    assert s.block not in (a.block, c.block)  # the function body


def test_skipped_collectives_are_not_traced():
    body = f"""    {psum()}
    %p = stablehlo.partition_id : tensor<ui32>
    %i = stablehlo.convert %p : (tensor<ui32>) -> tensor<i32>
    %r = "stablehlo.case"(%i) ({{
      stablehlo.return %s : tensor<4xf32>
    }}, {{
      {psum("%s", "%t")}
      stablehlo.return %t : tensor<4xf32>
    }}) : (tensor<i32>) -> tensor<4xf32>
    return %r : tensor<4xf32>"""
    m = mod(program(body, n=2))
    s = structure(m)
    assert len(trace(m, Grid(1, 2), s).steps) == 2
    tr = trace(m, Grid(1, 2), s, skip=lambda op: True)
    assert tr.steps == [] and len(tr.classes) == 1


@pytest.mark.parametrize("seed", range(5))
def test_classes_group_exactly_the_processes_with_the_same_steps(seed):
    """Classes from packed mask columns equal grouping by the step sets themselves."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 40))
    trips = rng.integers(0, 4, size=n)  # a loop whose trip count is a table lookup, written as selects
    body = ["    %p = stablehlo.partition_id : tensor<ui32>",
            "    %pi = stablehlo.convert %p : (tensor<ui32>) -> tensor<i32>",
            "    %n0 = stablehlo.constant dense<0> : tensor<i32>"]
    for k in range(n):
        body += [f"    %k{k} = stablehlo.constant dense<{k}> : tensor<i32>",
                 f"    %v{k} = stablehlo.constant dense<{int(trips[k])}> : tensor<i32>",
                 f"    %e{k} = stablehlo.compare EQ, %pi, %k{k}, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>",
                 f"    %n{k + 1} = stablehlo.select %e{k}, %v{k}, %n{k} : tensor<i1>, tensor<i32>"]
    ids = ", ".join(f"[{i}]" for i in range(n))
    body.append(f"""    %zero = stablehlo.constant dense<0> : tensor<i32>
    %r:2 = stablehlo.while(%i = %zero, %h = %x) : tensor<i32>, tensor<4xf32>
    cond {{
      %lt = stablehlo.compare LT, %i, %n{n}, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %lt : tensor<i1>
    }} do {{
      %s = "stablehlo.all_reduce"(%h) <{{channel_handle = {CH}, replica_groups = dense<[{ids}]> : tensor<{n}x1xi64>, use_global_device_ids}}> {ADD} : (tensor<4xf32>) -> tensor<4xf32>
      %one = stablehlo.constant dense<1> : tensor<i32>
      %i1 = stablehlo.add %i, %one : tensor<i32>
      stablehlo.return %i1, %s : tensor<i32>, tensor<4xf32>
    }}
    return %r#1 : tensor<4xf32>""")
    tr = trace(mod(program("\n".join(body), n=n)), Grid(1, n))
    by_steps: dict[tuple, set] = {}
    for p in range(n):
        by_steps.setdefault(tuple(s.index for s in tr.steps if s.mask[p]), set()).add(p)
    got = {tuple(c.steps): set(c.processes.tolist()) for c in tr.classes}
    assert got == by_steps
    assert all(len(tr.steps_of(p)) == trips[p] for p in range(n))
    assert int(tr.class_of[0]) == 0  # numbered by their first process


def test_class_events_over_the_limit_stop_the_trace():
    import sys

    from shlo_lint.checker.analysis.tracer.tracer import TraceLimit

    sys.path.insert(0, str(CORPUS / "deadlock"))
    from generate_grids import all_distinct

    m = mod(all_distinct(64, 2))
    with pytest.raises(TraceLimit, match="deadlock-max-events"):
        trace(m, grid_of(m), max_class_events=100)
    assert len(trace(m, grid_of(m), max_class_events=64 * 64).classes) == 64
