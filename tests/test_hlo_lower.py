"""HLO text lowered into the IR (checker/frontend/hlo/lower.py): what each construct
becomes, read the way the stages read it."""
from __future__ import annotations

import pytest

from shlo_lint.checker.analysis.semantics import grid_of, known_trip_count, replica_groups
from shlo_lint.checker.analysis.tracer.structure import call_target, comm_role, func_name, structure
from shlo_lint.checker.frontend.hlo.lower import HloOperation
from shlo_lint.checker.frontend.read import read_module
from shlo_lint.checker.ir import attributes as A
from shlo_lint.checker.ir.core import FileLineColLoc, user_column
from shlo_lint.checker.ir.types import TensorType, TokenType
from shlo_lint.checker.source.text import SourceFile

from hlo_helpers import ALL, HLO


def lower(text: str, path: str = "t.hlo"):
    return read_module(SourceFile(path, text))


def ops_named(m, name: str) -> list:
    return [op for op in m.walk() if op.name == name]


def op_of(m, hlo_name: str) -> HloOperation:
    (op,) = [op for op in m.walk() if getattr(op, "instruction", None) is not None
             and op.instruction.name == hlo_name]
    return op


SUM = """%sum (x: f32[], y: f32[]) -> f32[] {
  %x = f32[] parameter(0)
  %y = f32[] parameter(1)
  ROOT %s = f32[] add(%x, %y)
}
"""

TUPLES = """HloModule tuples, is_scheduled=true, num_partitions=2

%inner (p: (s32[], (f32[4], f32[2]))) -> f32[2] {
  %p = (s32[], (f32[4]{0}, f32[2]{0})) parameter(0)
  %elem = (f32[4]{0}, f32[2]{0}) get-tuple-element(%p), index=1
  ROOT %second = f32[2]{0} get-tuple-element(%elem), index=1
}

%dead (d: f32[]) -> f32[] {
  ROOT %d = f32[] parameter(0)
}

ENTRY %main (a: f32[4], b: f32[2]) -> f32[2] {
  %a = f32[4]{0} parameter(0)
  %b = f32[2]{0} parameter(1)
  %i = s32[] constant(3)
  %pair = (f32[4]{0}, f32[2]{0}) tuple(%a, %b)
  %t = (s32[], (f32[4]{0}, f32[2]{0})) tuple(%i, %pair)
  ROOT %c = f32[2]{0} call(%t), to_apply=%inner
}
"""


def test_the_module_op_states_the_grid_and_the_schedule():
    m = lower(TUPLES)
    assert (m.front_end, m.schedule_fixed, m.per_device) == ("hlo", True, True)
    grid = grid_of(m)
    assert (grid.num_partitions, grid.num_replicas, grid.source) == (2, 1, "module")  # the other count: 1
    unscheduled = lower(TUPLES.replace("is_scheduled=true, num_partitions=2", "replica_count=4"))
    assert not unscheduled.schedule_fixed
    assert (grid_of(unscheduled).num_replicas, grid_of(unscheduled).num_partitions) == (4, 1)
    # `lower().as_text("hlo")` states no count: the grid is left to the command line
    bare = lower(TUPLES.replace(", is_scheduled=true, num_partitions=2", ""))
    assert not grid_of(bare).known and grid_of(bare, 1, 8).num_partitions == 8


def test_computations_are_functions_the_entry_public():
    m = lower(TUPLES)
    funcs = {f.symbol_name: f for f in ops_named(m, "func.func")}
    assert set(funcs) == {"inner", "dead", "main"}  # a computation nobody calls is code too
    assert func_name(funcs["main"]) == ("main", None) and func_name(funcs["inner"]) == ("inner", "private")
    assert m.entry_function() is funcs["main"]
    assert structure(m).entries == ["main"]
    # the header says the same as the cheap answers (sym_name, visibility, callee)
    assert funcs["inner"].header.attributes["sym_visibility"].value == "private"
    call = op_of(m, "c")
    assert call.name == "hlo.call" and call_target(call) == "inner" and call.attr("callee").root == "inner"


def test_tuples_are_lowered_to_their_leaves():
    m = lower(TUPLES)
    t = op_of(m, "t")
    assert t.name == "hlo.tuple" and [r.name for r in t.results] == ["%t#0", "%t#1", "%t#2"]
    assert [str(x) for x in t.result_types] == ["tensor<i32>", "tensor<4xf32>", "tensor<2xf32>"]
    assert [v.name for v in t.operands] == ["%i", "%pair#0", "%pair#1"]
    inner = [f for f in ops_named(m, "func.func") if f.symbol_name == "inner"][0]
    args = inner.regions[0].blocks[0].arguments
    assert [a.name for a in args] == ["%p#0", "%p#1", "%p#2"]  # a tuple parameter: one argument per leaf
    elem, second = op_of(m, "elem"), op_of(m, "second")
    assert [v.name for v in elem.operands] == ["%p#1", "%p#2"]  # element 1 of (s32[], (f32[4], f32[2]))
    assert [v.name for v in second.operands] == ["%elem#1"]
    assert second.operands[0].defining_op is elem  # values resolve through the IR's scopes
    ret = inner.regions[0].blocks[0].operations[-1]
    assert ret.name == "func.return" and [v.name for v in ret.operands] == ["%second"]
    assert ret.span.start == ret.span.end == second.span.end  # spans nothing, just after the ROOT
    call = op_of(m, "c")
    assert [v.name for v in call.operands] == ["%t#0", "%t#1", "%t#2"]


def test_control_flow_computations_are_the_regions_of_their_op():
    text = (HLO / "gpu_p2p.hlo").read_text()
    m = lower(text)
    assert {f.symbol_name for f in ops_named(m, "func.func")} == {"main"}  # cond and body are regions
    (w,) = ops_named(m, "stablehlo.while")
    cond, body = w.regions
    assert [a.name for a in cond.blocks[0].arguments] == ["%c#0", "%c#1"]
    assert [v.name for v in w.operands] == ["%init#0", "%init#1"] and len(w.results) == 2
    assert cond.blocks[0].operations[-1].name == "stablehlo.return"
    assert [v.name for v in body.blocks[0].operations[-1].operands] == ["%t#0", "%t#1"]
    assert known_trip_count(w) == 6


def test_a_conditional_is_case_or_if_and_its_branches_take_their_operand():
    m = lower((HLO / "gpu_async.hlo").read_text())
    if_op, case = op_of(m, "c"), op_of(m, "s")
    assert (if_op.name, case.name) == ("stablehlo.if", "stablehlo.case")
    assert [[a.name for a in r.blocks[0].arguments] for r in case.regions] == [["%b0"], ["%b1"]]
    assert [v.name for v in case.operands] == ["%k", "%c", "%bc"]
    # a reducer shared by two collectives is lowered at each, as its region
    assert {f.symbol_name for f in ops_named(m, "func.func")} == {"main"}
    ar = op_of(m, "ar.b")
    assert ar.name == "stablehlo.all_reduce" and ar.regions[0].blocks[0].operations[0].name == "stablehlo.add"


def test_collectives_get_stablehlo_attributes():
    m = lower((HLO / "gpu_async.hlo").read_text())
    ars = op_of(m, "ars")
    assert ars.name == "hlo.all-reduce-start" and comm_role(ars) == "start"
    assert replica_groups(ars) == [[0, 1, 2, 3], [4, 5, 6, 7]]
    ch = ars.attr("channel_handle")
    assert (ch.int_param("handle"), ch.int_param("type")) == (1, 1)
    assert isinstance(ars.attr("use_global_device_ids"), A.UnitAttr)
    assert ars.attr("replica_groups").span == ars.instruction.attributes["replica_groups"].value_span
    ags = op_of(m, "ags")
    assert ags.attr("all_gather_dim").value == 0 and len(ags.results) == 2
    cps = op_of(m, "cps")
    assert cps.attr("source_target_pairs").array.tolist() == [[0, 1], [1, 2], [2, 3], [3, 0]]
    assert op_of(m, "cpd").attr("hlo.control_predecessors").elements[0].value == "%agd"
    start = op_of(m, "as")
    assert start.name == "hlo.async-start" and comm_role(start) == "start"
    assert start.regions[0].blocks[0].operations[0].name == "stablehlo.reduce_scatter"
    assert op_of(m, "au").name == "hlo.async-update" and comm_role(op_of(m, "ad")) == "done"


def test_iota_and_mesh_groups_stay_compact():
    m = lower((HLO / "gpu_async.hlo").read_text())
    rs = op_of(m, "rs")
    groups = rs.attr("replica_groups")
    assert isinstance(groups, A.ReplicaGroupsAttr) and groups.text == "[2,4]<=[4,2]T(1,0)"
    assert replica_groups(rs) == [[0, 2, 4, 6], [1, 3, 5, 7]]  # as XLA's iota: arange(8).reshape(4,2).T
    mesh = lower((HLO / "mesh_groups.hlo").read_text())
    compact = [op.attr("replica_groups") for op in mesh.walk()
               if isinstance(op.attr("replica_groups") if op.name.startswith("stablehlo.") else None,
                             A.ReplicaGroupsAttr)]
    assert compact and all(g.rows() == g.groups.expand() for g in compact)


def test_point_to_point_reads_its_pairs_from_the_frontend_attributes():
    m = lower((HLO / "gpu_p2p.hlo").read_text())
    send, done = op_of(m, "send"), op_of(m, "recv-done")
    assert (comm_role(send), comm_role(done), comm_role(op_of(m, "recv")), comm_role(op_of(m, "send-done"))) == \
        ("send", "recv", None, None)
    pairs = [[0, 1], [1, 2], [2, 3]]
    assert send.attr("source_target_pairs").array.tolist() == pairs
    assert done.attr("source_target_pairs").array.tolist() == pairs  # from the recv it completes
    assert done.attr("channel_handle").int_param("handle") == 7
    host = op_of(m, "hs")
    assert host.attr("is_host_transfer").value and host.attr("channel_handle").int_param("type") == 2
    assert [s for s in structure(m).external] == [host]


def test_shapes_become_tensor_and_token_types():
    m = lower((HLO / "gpu_p2p.hlo").read_text())
    recv = op_of(m, "recv")
    assert recv.result_types == [TensorType((4,), A.ScalarType("f32")), TensorType((), A.ScalarType("ui32")),
                                 TokenType()]
    dyn = lower("HloModule d\nENTRY %e (a: f32[<=8,?]) -> pred[] {\n  %a = f32[<=8,?]{1,0} parameter(0)\n"
                "  ROOT %c = pred[] constant(true)\n}\n")
    (func,) = ops_named(dyn, "func.func")
    assert str(func.regions[0].blocks[0].arguments[0].type) == "tensor<?x?xf32>"
    assert str(op_of(dyn, "c").attr("value").array) == "True"


def test_metadata_is_the_location_the_python_line_comes_from():
    text = (HLO.parent.parent.parent / "corpus" / "hlo" / "cond_axis_index_psum.buggy_deadlock.hlo").read_text()
    m = lower(text)
    psum = op_of(m, "psum_invariant.6")
    frames = psum.python_frames
    assert isinstance(frames[0], FileLineColLoc)
    assert (frames[0].file, frames[0].line, frames[0].col) == ("corpus/generate.py", 199, 42)
    assert user_column(frames[0]) == 43  # JAX's 0-based column, shown 1-based as for StableHLO's loc()
    # the StackFrames chain, innermost first: the lambda, the shard_map body, the jit in generate.lower
    assert [(f.file, f.line) for f in frames] == [("corpus/generate.py", 199), ("corpus/generate.py", 198),
                                                  ("corpus/generate.py", 415)]
    assert psum.loc.name == "jit(body)/shard_map/cond/branch_1_fun/psum_invariant"
    old = lower("HloModule o\nENTRY %e () -> f32[] {\n  ROOT %c = f32[] constant(1), "
                'metadata={op_name="f/c" source_file="x.py" source_line=7 source_column=4}\n}\n')
    assert [(f.file, f.line, f.col) for f in op_of(old, "c").python_frames] == [("x.py", 7, 4)]


def test_the_same_program_points_at_the_same_python_line_from_stablehlo_and_hlo():
    """cond_axis_index_psum's all_reduce: the StableHLO JAX lowered (with locations) and the HLO
    XLA compiled from the same builder name one Python position, with one column convention."""
    corpus = HLO.parent.parent.parent / "corpus"
    mlir = read_module(SourceFile("a.mlir", (corpus / "real" / "cond_axis_index_psum.debug.buggy_deadlock.mlir")
                                  .read_text()))
    hlo = lower((corpus / "hlo" / "cond_axis_index_psum.buggy_deadlock.hlo").read_text())
    (a,) = [op for op in mlir.walk() if op.name == "stablehlo.all_reduce"]
    (b,) = [op for op in hlo.walk() if op.name == "stablehlo.all_reduce"]
    fa, fb = a.python_frames[0], b.python_frames[0]
    assert (fa.file, fa.line, user_column(fa)) == (fb.file, fb.line, user_column(fb))


@pytest.mark.parametrize("opcode,name", [("fusion", "hlo.fusion"), ("bitcast", "hlo.bitcast"),
                                         ("frobnicate", "hlo.frobnicate")])
def test_other_opcodes_are_hlo_ops(opcode, name):
    body = {"fusion": "fusion(%a), kind=kLoop, calls=%f", "bitcast": "bitcast(%a)",
            "frobnicate": "frobnicate(%a), weird={x y z}"}[opcode]
    m = lower("HloModule o\n%f (p: f32[4]) -> f32[4] {\n  ROOT %p = f32[4]{0} parameter(0)\n}\n"
              f"ENTRY %e (a: f32[4]) -> f32[4] {{\n  %a = f32[4]{{0}} parameter(0)\n  ROOT %r = f32[4]{{0}} {body}\n}}\n")
    op = op_of(m, "r")
    assert op.name == name and [v.name for v in op.operands] == ["%a"]
    if opcode == "frobnicate":
        assert op.attr("weird").text == "{x y z}"  # kept, opaque
    assert not m.syntax_errors and not m.internal_errors


def test_names_xla_would_refuse_are_syntax_errors_at_their_place():
    text = ("HloModule m, num_partitions=2\n\nENTRY %main (a: f32[4]) -> f32[4] {\n  %a = f32[4]{0} parameter(0)\n"
            "  %b = f32[4]{0} add(%a, %nope)\n"
            "  ROOT %c = f32[4]{0} all-reduce(%b), channel_id=1, replica_groups={{0,1}}, to_apply=%missing\n}\n")
    m = lower(text)
    m.parser.unchecked(m, list(m.walk()))  # what the engine's whole-file check runs
    src = m.source
    found = {(msg, src.line_col(span.start)) for msg, span in m.syntax_errors}
    assert ("instruction %nope does not exist in computation %main", (5, 26)) in found
    assert ("computation %missing does not exist", (6, 86)) in found


def test_a_computation_that_calls_itself_is_an_error_not_a_recursion():
    text = ("HloModule m\n%b (p: s32[]) -> s32[] {\n  %p = s32[] parameter(0)\n"
            "  ROOT %w = s32[] while(%p), condition=%c, body=%b\n}\n"
            "%c (q: s32[]) -> pred[] {\n  %q = s32[] parameter(0)\n  ROOT %t = pred[] constant(true)\n}\n"
            "ENTRY %e (x: s32[]) -> s32[] {\n  %x = s32[] parameter(0)\n"
            "  ROOT %w0 = s32[] while(%x), condition=%c, body=%b\n}\n")
    m = lower(text)
    assert any("calls itself" in msg for msg, _span in m.syntax_errors)


# What is true of each fixture beyond "no error": a branch index each device reads from its
# own buffer (the program is right only if every device passes the same value), and a
# module whose header states no grid (`lower().as_text("hlo")` prints none).
TRUE_OF_FIXTURE = {
    "control.after.hlo": {"SHLO504"},   # lax.cond on p[0], p sharded over the devices
    # a conditional on the entry argument %k; three async pairs with nothing between start and
    # done while a conditional after them could run there (SHLO642); a synchronous
    # collective-broadcast in a module XLA:GPU's async forms mark as GPU's (SHLO643)
    "gpu_async.hlo": {"SHLO504", "SHLO642", "SHLO643"},
    "gpu_async.xla.hlo": {"SHLO504", "SHLO642", "SHLO643"},   # (the same module printed by jaxlib)
    # XLA:CPU has no all-gather combiner: independent all-gathers of one key stay apart (SHLO641)
    "transformer_step.after.hlo": {"SHLO641"},
    "lowered.hlo": {"SHLO190"},
    "unknown_forms.hlo": {"SHLO190"},
}


@pytest.mark.parametrize("path", ALL, ids=lambda p: p.name)
def test_every_fixture_lowers_and_gets_only_what_is_true_of_it(path):
    from shlo_lint import lint_text

    diags = lint_text(path.read_text(encoding="utf-8"), str(path))
    assert {d.code for d in diags} == TRUE_OF_FIXTURE.get(path.name, set()), [(d.code, d.message) for d in diags]


def test_a_lowering_failure_is_shlo003_and_the_op_is_read_as_opaque(monkeypatch):
    from shlo_lint import lint_text
    from shlo_lint.checker.frontend.hlo import lower as lowering

    def boom(ins, *args, **kw):
        if ins.name == "psum.6":
            raise RuntimeError("boom")
        return real(ins, *args, **kw)
    real = lowering.attributes_of
    monkeypatch.setattr(lowering, "attributes_of", boom)
    path = HLO.parent.parent.parent / "corpus" / "hlo" / "fori_trip_axis_index.buggy_deadlock.hlo"
    diags = lint_text(path.read_text(), str(path))
    (internal,) = [d for d in diags if d.code == "SHLO003"]
    assert "psum.6" in internal.message and "boom" in internal.message
    assert path.read_text()[internal.span.start:internal.span.end] == "all-reduce"
    # the all-reduce is opaque from then on: no finding read from the header it does not have
    assert {d.code for d in diags} == {"SHLO003"}


def test_the_editor_lints_an_hlo_document():
    from shlo_lint.checker.editor.incremental.document import Document
    from shlo_lint.checker.editor.server import lint

    path = HLO.parent.parent.parent / "corpus" / "hlo" / "cond_axis_index_psum.buggy_deadlock.hlo"
    doc = Document()
    for _ in range(2):  # a first version and an edit of it
        linted = lint(path.read_text(), str(path), 1, doc)
        assert [d.code for d in linted.diagnostics] == ["SHLO501"]
        assert any(n.location.path == "corpus/generate.py" for n in linted.diagnostics[0].notes)


def test_a_tuple_index_that_is_no_element_is_a_syntax_error():
    from shlo_lint import lint_text

    text = ("HloModule m\nENTRY %e (a: (f32[], s32[])) -> s32[] {\n  %a = (f32[], s32[]) parameter(0)\n"
            "  ROOT %g = s32[] get-tuple-element(%a), index=5\n}\n")
    (d,) = lint_text(text, "g.hlo")
    assert d.code == "SHLO001" and "index 5 is not an element" in d.message
    assert text[d.span.start:d.span.end] == "5"
