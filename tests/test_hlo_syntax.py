"""Reading HLO text (checker/frontend/hlo): every fixture reads with no issue, and what is read —
header, computations, instructions, operands, attributes, spans — is what the text says.
Fixtures: tests/fixtures/hlo (generate.py made the JAX ones; the rest are written by hand)."""
from __future__ import annotations

import pytest

from shlo_lint.checker.frontend.hlo import (BackendConfig, ComputationLayout, ExplicitGroups, FrontendAttributes, IotaGroups,
                                   Literal, MeshAxesGroups, Metadata, NameRef, Opaque, Shape, SliceRanges,
                                   SourceTargetPairs, Word, read_hlo)
from shlo_lint.checker.frontend.read import looks_like_hlo

from hlo_helpers import ALL, HLO, by_opcode, instr, module


@pytest.mark.parametrize("path", ALL, ids=lambda p: p.name)
def test_every_fixture_reads_with_no_issue(path):
    m = read_hlo(path.read_text(encoding="utf-8"), str(path))
    assert m.parse_all() == []
    assert m.computations and m.entry is not None
    for comp in m.computations.values():
        assert comp.instructions and comp.root is not None
        for ins in comp.instructions:
            assert ins.issues == ()
            for op in ins.operands:  # every operand names an instruction of its computation
                assert op.nested is not None or comp.instruction(op.name) is not None, (ins, op)
            for callee in ins.called_computations:
                assert callee in m.computations, (ins, callee)


def test_header_of_a_compiled_module():
    m = module("tp_mlp.after.hlo")
    assert m.name == "jit_mlp"
    assert m.is_scheduled
    assert (m.num_partitions, m.replica_count) == (8, 1)  # replica_count is not written: XLA's default
    layout = m.header_attr("entry_computation_layout")
    assert isinstance(layout, ComputationLayout)
    assert [str(s) for s in layout.parameters] == ["f32[4,32]{1,0}", "f32[32,16]{1,0}", "f32[16,32]{1,0}"]
    assert str(layout.result) == "f32[4,32]{1,0}"
    assert m.header_attr("allow_spmd_sharding_propagation_to_parameters") == (False, False, False)
    assert m.snippet(m.name_span) == "jit_mlp"


def test_header_before_optimization_keeps_the_sdy_mesh_dictionary():
    m = module("dump/jit_mlp.before_optimizations.txt")
    assert not m.is_scheduled
    fa = m.header_attr("frontend_attributes")
    assert isinstance(fa, FrontendAttributes)
    assert fa.get("xla.sdy.meshes") == '{mesh = #sdy.mesh<["data"=2, "model"=4]>}'


def test_computations_entry_root_and_signatures():
    m = module("gpu_async.hlo")
    assert list(m.computations) == ["sum", "wrapped_reduce_scatter", "then", "else", "branch0", "branch1", "main"]
    assert m.entry.name == "main" and m.entry.is_entry
    assert m.entry.root.name == "r" and m.entry.root.is_root
    assert [(p.name, str(p.shape)) for p in m.entry.parameters] == [("a", "f32[8]"), ("p", "pred[]"), ("k", "s32[]")]
    assert str(m.entry.result_shape) == "f32[8]"
    assert m.computation("else").root.name == "e"  # ROOT on a parameter
    assert m.snippet(m.entry.name_span) == "%main"


def test_collectives_and_their_attributes():
    m = module("collectives.after.hlo")
    (ar,) = by_opcode(m, "all-reduce")
    assert ar.attr("replica_groups") == ExplicitGroups(((0, 1, 2, 3), (4, 5, 6, 7)))
    assert ar.attr("channel_id") == 1 and ar.attr("use_global_device_ids") is True
    reducer = m.computation(ar.attr("to_apply").name)
    assert reducer.root.opcode == "add"
    (cp,) = by_opcode(m, "collective-permute")
    assert cp.attr("source_target_pairs") == SourceTargetPairs(
        ((0, 1), (1, 2), (2, 3), (3, 0), (4, 5), (5, 6), (6, 7), (7, 4)))
    (ag,) = by_opcode(m, "all-gather")
    assert ag.attr("dimensions") == (0,) and ag.attr("replica_groups").group_of(5) == (1, 5)
    (a2a,) = by_opcode(m, "all-to-all")  # the tuple form: one operand per peer, no dimensions
    assert len(a2a.operands) == 4 and a2a.attr("dimensions") is None
    assert a2a.shape.is_tuple and len(a2a.shape.tuple_shapes) == 4
    (rs,) = by_opcode(m, "reduce-scatter")
    assert rs.attr("dimensions") == (0,) and str(rs.shape) == "f32[1,2]{1,0}"


def test_loops_branches_and_trip_counts():
    m = module("control.after.hlo")
    (w,) = by_opcode(m, "while")
    assert m.computation(w.attr("condition").name).root.shape.element_type == "pred"
    assert m.computation(w.attr("body").name) is not None
    config = w.attr("backend_config")
    assert isinstance(config, BackendConfig) and config.is_json
    assert config.known_trip_count == 5  # fori_loop(0, 5, ...)
    branches = sorted(len(c.attr("branch_computations")) for c in by_opcode(m, "conditional"))
    assert branches == [2, 3]  # cond, and switch over three branches
    gte = by_opcode(m, "get-tuple-element")[0]
    assert isinstance(gte.attr("index"), int)


def test_async_pairs_in_both_spellings():
    m = module("gpu_async.hlo")
    start = instr(m, "ars")
    assert start.opcode == "all-reduce-start" and instr(m, "ard").operand_names == ("ars",)
    config = start.attr("backend_config")
    assert config.data()["collective_backend_config"]["is_sync"] is False
    assert instr(m, "ags").attr("replica_groups") == IotaGroups(1, 8, (8,), (0,))
    assert instr(m, "as").attr("calls") == NameRef("wrapped_reduce_scatter")
    assert instr(m, "au").operand_names == ("as",) and instr(m, "ad").operand_names == ("au",)
    assert instr(m, "as").shape.tuple_shapes[0].is_tuple  # ((operands), output, state)
    # As XLA prints it back: the wrapped op's spelling, its attributes on the start.
    sugar = module("gpu_async.xla.hlo")
    start = instr(sugar, "as")
    assert start.opcode == "reduce-scatter-start"
    assert start.attr("replica_groups") == IotaGroups(2, 4, (4, 2), (1, 0))
    assert start.attr("dimensions") == (0,) and start.attr("to_apply") == NameRef("sum")
    assert [instr(sugar, n).opcode for n in ("au", "ad")] == ["reduce-scatter-update", "reduce-scatter-done"]
    assert "wrapped_reduce_scatter" not in sugar.computations


def test_conditional_in_both_spellings_and_control_predecessors():
    m = module("gpu_async.hlo")
    c = instr(m, "c")
    assert (c.attr("true_computation"), c.attr("false_computation")) == (NameRef("then"), NameRef("else"))
    assert c.called_computations == ("then", "else")
    s = instr(m, "s")
    assert s.attr("branch_computations") == (NameRef("branch0"), NameRef("branch1"))
    assert instr(m, "cpd").control_predecessors == ("agd",)
    assert instr(m, "r").control_predecessors == ("ad", "agd")
    assert "agd" not in instr(m, "r").called_computations


def test_send_recv_frontend_attributes():
    m = module("gpu_p2p.hlo")
    send = instr(m, "send")
    fa = send.attr("frontend_attributes")
    assert fa.send_recv_pairs == SourceTargetPairs(((0, 1), (1, 2), (2, 3)))
    assert fa.send_recv_validation.ranges == ((0, 4), (1, 5), (2, 5))
    assert fa.send_recv_pipeline == 0 and send.attr("channel_id") == 7
    back = instr(m, "back.recv").attr("frontend_attributes")
    assert back.send_recv_validation.is_invalid and back.send_recv_validation.ranges is None
    assert back.send_recv_validation.problem is None and back.send_recv_pipeline == 1
    assert instr(m, "hs").attr("is_host_transfer") is True and instr(m, "hs").attr("frontend_attributes") is None
    recv = instr(m, "recv")
    assert [s.element_type for s in recv.shape.tuple_shapes] == ["f32", "u32", "token"]
    assert instr(m, "send-done").shape.is_token
    assert instr(m, "w").attr("backend_config").known_trip_count == 6


def test_send_recv_strings_that_do_not_read():
    fa = FrontendAttributes((("_xla_send_recv_validation", "{{0,1},{2}}"),
                             ("_xla_send_recv_source_target_pairs", "{{0,1,2}}"), ("_xla_send_recv_pipeline", "x")))
    assert fa.send_recv_validation.ranges is None and "expected" in fa.send_recv_validation.problem
    assert fa.send_recv_pairs is None and fa.send_recv_pipeline is None


def test_mesh_groups_read_as_xla_prints_them():
    m = module("mesh_groups.hlo")
    over_x = instr(m, "over_x").attr("replica_groups")
    assert isinstance(over_x, MeshAxesGroups)
    assert over_x.mesh.axis_names == ("x", "y") and over_x.mesh.axis_sizes == (2, 4)
    assert over_x.same_as(instr(m, "over_x.iota").attr("replica_groups"))
    assert over_x.same_as(instr(m, "over_x.list").attr("replica_groups"))
    assert instr(m, "over_y_major").attr("replica_groups").axes[0].pre_size == 1
    assert instr(m, "transposed").attr("replica_groups").mesh.device_order is not None
    assert instr(m, "listed").attr("replica_groups").mesh.device_order == (0, 2, 4, 6, 1, 3, 5, 7)
    assert instr(m, "gathered").attr("dimensions") == (0,)


def test_constants_parameters_and_other_values():
    m = module("control.after.hlo")
    consts = by_opcode(m, "constant")
    assert consts and all(isinstance(c.body.literal, Literal) for c in consts)
    assert any(c.body.literal.scalar == 5 for c in consts)  # the loop bound
    params = by_opcode(m, "parameter")
    assert all(isinstance(p.body.parameter_number, int) for p in params)
    fusion = by_opcode(m, "fusion")[0]
    assert fusion.attr("kind") == Word("kLoop")
    slices = by_opcode(module("collectives.after.hlo"), "slice")
    assert slices and all(isinstance(s.attr("slice"), SliceRanges) for s in slices)
    assert slices[0].attr("slice").ranges[1] == (0, 2, 1)
    sharded = [p for p in by_opcode(module("tp_mlp.after.hlo"), "parameter") if p.attr("sharding")]
    assert sharded and all(isinstance(p.attr("sharding"), Opaque) for p in sharded)
    assert isinstance(sharded[0].metadata, Metadata)


def test_spans_point_at_the_text():
    m = module("collectives.after.hlo")
    (ar,) = by_opcode(m, "all-reduce")
    text = m.source.text
    line = text[ar.span.start:ar.span.end]
    assert "\n" not in line and line.startswith("%") and line.endswith("}")
    assert m.snippet(ar.name_span) == "%" + ar.name
    assert m.snippet(ar.opcode_span) == "all-reduce"
    assert m.snippet(ar.shape_span) == "f32[4,2]{1,0}"
    rg = ar.attributes["replica_groups"]
    assert m.snippet(rg.span) == "replica_groups={{0,1,2,3},{4,5,6,7}}"
    assert m.snippet(rg.value_span) == "{{0,1,2,3},{4,5,6,7}}" and m.snippet(rg.name_span) == "replica_groups"
    assert m.snippet(ar.operands[0].span) == "%param.1"
    lineno, col = m.source.line_col(rg.span.start)
    assert m.source.line_text(lineno)[col - 1:].startswith("replica_groups=")
    # operands written with their shapes
    add = instr(module("gpu_async.hlo"), "add")
    assert [module("gpu_async.hlo").snippet(o.span) for o in add.operands] == ["f32[] %x", "f32[] %y"]
    assert [str(o.shape) for o in add.operands] == ["f32[]", "f32[]"]


def test_short_form_without_percent_signs_or_signatures():
    m = module("lowered.hlo")
    assert all(not c.name.startswith("%") for c in m.computations.values())
    assert all(c.parameters == () and c.result_shape is None for c in m.computations.values())
    ar = by_opcode(m, "all-reduce")[0]
    assert isinstance(ar.attr("to_apply"), NameRef) and ar.attr("to_apply").name in m.computations
    call = by_opcode(m, "call")[0]
    assert all(call.computation.instruction(n) is not None for n in call.operand_names)


def test_forms_nobody_told_the_reader_about():
    m = module("unknown_forms.hlo")
    future = instr(m, "future")
    assert future.opcode == "quantum-all-reduce"
    assert isinstance(future.attr("entanglement"), Opaque)
    assert future.attr("schedule_hint") == Word("EARLY")
    assert future.attr("backend_config") == BackendConfig('{"quantum":"yes",\n"fidelity":0.99}', False)
    nested = instr(m, "nested")
    assert nested.operands[0].name is None and nested.operands[0].nested == "multiply(%a, %b)"
    assert instr(m, "inferred").shape_span is None and instr(m, "inferred").shape is None
    assert instr(m, "cc").attr("backend_config").data()["unknown_key"]["deep"]["deeper"][2] == {"deepest": True}
    assert instr(m, "r").attr("mode") == Word("kCrossReplicaAndPartition")
    assert instr(m, "b").attr("parameter_replication") == (True,)


def test_the_attributes_of_many_opcodes():
    m = module("opcode_zoo.hlo")
    a = lambda name, attr: instr(m, name).attr(attr)  # noqa: E731
    assert a("conv", "window").dims("size") == (3, 3) and a("conv", "window").dims("stride") is None
    assert a("conv", "dim_labels") == Word("b01f_01io->b01f") and a("pad", "padding") == Word("1_1x0_1_0")
    assert a("conv", "operand_precision") == (Word("highest"), Word("default"))
    assert a("sl", "slice") == SliceRanges(((0, 4, 2), (0, 8, 2)))
    assert a("ds", "dynamic_slice_sizes") == (2, 8) and a("iota", "iota_dimension") == 1
    assert (a("topk", "k"), a("topk", "largest")) == (2, True)
    assert a("bn", "epsilon") == 0.001 and a("rp", "exponent_bits") == 5
    assert (a("fft", "fft_type"), a("fft", "fft_length")) == (Word("FFT"), (8,))
    assert a("sas", "select") == NameRef("ge") and a("sas", "scatter") == NameRef("max")
    assert a("infeed", "infeed_config") == "feed" and str(a("outfeed", "outfeed_shape")) == "f32[4,8]{1,0}"
    assert [str(s) for s in a("cc", "operand_layout_constraints")] == ["f32[4,8]{1,0}"]
    assert a("cc", "custom_call_target") == "__cublas$gemm" and a("cc", "backend_config").text == "opaque string"
    assert isinstance(a("dom", "domain"), Opaque) and isinstance(a("tuple_sharded", "sharding"), Opaque)
    assert instr(m, "cd").shape.layout == "1,0:S(1)" and instr(m, "scalar").shape.layout == ":T(256)"
    assert instr(m, "dyn").shape.dynamic == (True, False)
    assert instr(m, "k").body.literal.text.startswith("{ { { {1} }")
    assert m.header_attr("alias_passthrough_params") is True
    assert isinstance(m.header_attr("input_output_alias"), Opaque)


def test_shapes():
    from shlo_lint.checker.frontend.hlo.shapes import ShapeError, parse_shape
    s = parse_shape("bf16[8,128]{1,0:T(8,128)(2,1)S(1)}")
    assert (s.element_type, s.dims, s.layout) == ("bf16", (8, 128), "1,0:T(8,128)(2,1)S(1)")
    assert s.byte_size() == 8 * 128 * 2
    d = parse_shape("f32[<=8,?,4]")
    assert d.dims == (8, -1, 4) and d.dynamic == (True, True, False) and d.num_elements is None
    t = parse_shape("(f32[2]{0}, /*index=1*/(s32[], token[]), u4[3])")
    assert t.is_tuple and [str(x) for x in t.leaves()] == ["f32[2]{0}", "s32[]", "token[]", "u4[3]"]
    assert t.byte_size() == 8 + 4 + 0 + 2  # u4 packs two to a byte
    assert parse_shape("b(f32[4])").tuple_shapes == (Shape("f32", (4,), (False,)),)
    assert parse_shape("f8e4m3fn[2]").element_bits == 8
    assert parse_shape("f99[2]").element_bits is None  # an element type XLA may add: read, size unknown
    with pytest.raises(ShapeError) as err:
        parse_shape("f32[2,x]")
    assert err.value.offset == 6


def test_looks_like_hlo():
    assert all(looks_like_hlo(p.read_text(encoding="utf-8")) for p in ALL)
    assert looks_like_hlo("  // made by XLA\n/* yes */ HloModule m\n")
    assert not looks_like_hlo('module @m {\n  func.func @main() {\n    return\n  }\n}\n')
    assert not looks_like_hlo("HloModuleX, foo\n")
    assert not looks_like_hlo("")
    assert not looks_like_hlo("ENTRY %main () -> f32[] {\n")
    # what else --xla_dump_to writes next to the modules
    assert not looks_like_hlo("BufferAssignment:\nallocation 0: size 64, maybe-live-out:\n")
    assert not looks_like_hlo("; ModuleID = '__compute_module'\nsource_filename = \"x\"\n")


def test_dump_directory_pair_reads_as_one_program_before_and_after():
    before = module("dump/jit_mlp.before_optimizations.txt")
    after = module("dump/jit_mlp.cpu_after_optimizations.txt")
    assert before.name == after.name == "jit_mlp"
    assert not by_opcode(before, "all-reduce")  # the partitioner has not run yet
    (ar,) = by_opcode(after, "all-reduce")
    assert ar.attr("replica_groups").expand() == ((0, 1, 2, 3), (4, 5, 6, 7))
    assert (HLO / "dump" / "jit_mlp.before_optimizations.txt").exists()
