"""The XLA engine's reading (through the front end's syntax model) and rewriting
of HLO text (no jax needed): the content check, the header and instructions,
each rewrite that lets jaxlib
compile a scheduled module as XLA ran it, the inputs a module's devices get,
the notes made of XLA:CPU's abort lines, and what `shlo-lint run` says on HLO
when the engine asked for cannot run it."""
from __future__ import annotations

import json

import numpy as np
import pytest

from shlo_lint.checker.analysis.semantics import Grid
from shlo_lint.checker.execute.values import Inputs
from shlo_lint.checker.execute.xla.hlo import rewrite as rw
from shlo_lint.checker.execute.xla.hlo.blocked import abort_notes, call_stack
from shlo_lint.checker.execute.xla.hlo.communicating import order_kept
from shlo_lint.checker.execute.device_inputs import device_inputs
from shlo_lint.checker.execute.xla.hlo.engine import callback_notes, worker_arrays
from shlo_lint.checker.execute.xla.hlo.reading import (HloModuleError, callers_of, entry_parameters, position,
                                                       read_module)
from shlo_lint.checker.frontend.hlo import read_hlo
from shlo_lint.checker.frontend.read import looks_like_hlo

from conftest import CORPUS, run_cli

HLO = CORPUS / "hlo"

CROSSED = """HloModule crossed, is_scheduled=true, entry_computation_layout={(f32[4]{0})->(f32[4]{0}, f32[16]{0})}, num_partitions=4

%sum (a: f32[], b: f32[]) -> f32[] {
  %a = f32[] parameter(0)
  %b = f32[] parameter(1)
  ROOT %add = f32[] add(%a, %b)
}

ENTRY %main (x: f32[4]) -> (f32[4], f32[16]) {
  %x = f32[4]{0} parameter(0), sharding={devices=[4]<=[4]}
  %ag = f32[16]{0} all-gather(%x), channel_id=1, replica_groups={{0,1,2,3}}, dimensions={0}, use_global_device_ids=true, metadata={op_name="gather" stack_frame_id=2}
  %ar = f32[4]{0} all-reduce(%x), channel_id=2, replica_groups={{0,1,2,3}}, use_global_device_ids=true, to_apply=%sum
  ROOT %t = (f32[4]{0}, f32[16]{0}) tuple(%ar, %ag)
}
"""


# ----------------------------------------------------------------------------- reading
def test_a_file_is_hlo_by_its_first_token():
    assert looks_like_hlo("HloModule m, is_scheduled=true\n")
    assert looks_like_hlo("\n  // dumped by XLA\n/* a note */ HloModule m\n")
    assert not looks_like_hlo("module @m {\n  func.func @main() {\n  }\n}\n")
    assert not looks_like_hlo("// HloModule in a comment only\nfunc.func @f() {}\n")
    assert not looks_like_hlo("")


def _index(text: str) -> dict:
    """Instruction name -> the front end's Instruction."""
    return {i.name: i for i in read_hlo(text).instructions()}


def _value(ins, name: str) -> str:
    """An attribute's value as written."""
    return ins.module.snippet(ins.attributes[name].value_span)


def test_the_engine_reads_the_grid_and_the_schedule_from_the_front_ends_header():
    m = read_module(CROSSED)
    assert (m.name, m.is_scheduled, m.replica_count, m.num_partitions) == ("crossed", True, 1, 4)
    dump = read_module((HLO / "dumps" / "psum" / "module_0000.jit__lambda.before_optimizations.txt").read_text())
    assert (dump.is_scheduled, dump.num_partitions) == (False, 8)


def test_instructions_read_with_tuple_shapes_index_comments_and_columns():
    module = read_module((HLO / "auto_fsdp_step.hlo").read_text())
    index = {i.name: i for i in module.instructions()}
    a2a = index["all-to-all.5"]
    assert a2a.opcode == "all-to-all" and a2a.shape.is_tuple and len(a2a.shape.tuple_shapes) == 8
    assert "/*index=5*/" in a2a.shape_text
    assert len(a2a.operands) == 8 and a2a.attr("channel_id") == 8
    root = module.entry.root
    line, column = position(root)
    written = module.source.text.split("\n")[line - 1]
    assert written[column - 1:].startswith(f"%{root.name} ") and written[:column - 1].strip() == "ROOT"
    params = entry_parameters(module)
    assert [p.number for p in params] == list(range(len(params))) and params[0].sharding == "{devices=[8,1]<=[8]}"


def test_short_form_text_is_refused_at_its_first_instruction():
    short = ("HloModule m, entry_computation_layout={(f32[])->f32[]}\n\nENTRY main {\n"
             "  p = f32[] parameter(0)\n  ROOT n = f32[] negate(p)\n}\n")
    with pytest.raises(HloModuleError) as e:
        read_module(short)
    assert (e.value.line, e.value.column) == (4, 3)
    assert "short-form" in e.value.message and "as_text()" in e.value.message


def test_a_module_without_entry_runs_its_last_computation_as_xlas_parser_does():
    """XLA's parser makes the last computation the entry when none is marked
    (measured: `hlo_module_from_text` prints it back as `ENTRY %f`); the front
    end reads it so, and the engine runs what the front end reads."""
    m = read_module("HloModule m\n\n%g (a: f32[]) -> f32[] {\n  ROOT %a = f32[] parameter(0)\n}\n\n"
                    "%f (b: f32[2]) -> f32[2] {\n  ROOT %b = f32[2]{0} parameter(0)\n}\n")
    assert m.entry.name == "f" and [p.dims for p in entry_parameters(m)] == [(2,)]
    with pytest.raises(HloModuleError, match="no computation"):
        read_module("HloModule m\n")


def test_a_tuple_entry_parameter_is_refused_at_its_line():
    text = ("HloModule m\n\nENTRY %main (p: (f32[], f32[])) -> f32[] {\n"
            "  %p = (f32[], f32[]) parameter(0)\n  ROOT %x = f32[] get-tuple-element(%p), index=0\n}\n")
    with pytest.raises(HloModuleError, match="only array parameters") as e:
        entry_parameters(read_module(text))
    assert (e.value.line, e.value.column) == (4, 3)


def test_call_stack_names_the_conditional_a_branch_runs_in():
    module = read_module((HLO / "cond_axis_index_psum.buggy_deadlock.hlo").read_text())
    ins = next(i for i in module.instructions() if i.name == "psum_invariant.6")
    stack = call_stack(ins.computation, callers_of(module), "f.hlo")
    assert stack == ["conditional %conditional.1.clone at f.hlo:62:3"]


# ----------------------------------------------------------------------------- rewrites
MESH = """HloModule m, is_scheduled=true, num_partitions=8

%sum (a: f32[], b: f32[]) -> f32[] {
  %a = f32[] parameter(0)
  %b = f32[] parameter(1)
  ROOT %add = f32[] add(%a, %b)
}

ENTRY %main (x: f32[4]) -> f32[4] {
  %x = f32[4]{0} parameter(0)
  %p = f32[4]{0} all-reduce(%x), channel_id=1, replica_groups=mesh['axis_0'=2,'axis_1'=4] {'axis_1'}, to_apply=%sum
  %q = f32[4]{0} all-reduce(%p), channel_id=2, replica_groups=mesh['axis_0'=2,'axis_1'=4] {'axis_0'}, to_apply=%sum
  ROOT %r = f32[4]{0} all-reduce(%q), channel_id=3, replica_groups=mesh[a=2,b=2,c=2], device_ids=([2,2,2]T(1,0,2)) {a}, to_apply=%sum
}
"""


def test_mesh_axes_groups_are_written_out_as_the_front_end_expands_them():
    text = rw.explicit_groups(MESH)
    index = _index(text)
    assert _value(index["p"], "replica_groups") == "{{0,1,2,3},{4,5,6,7}}"
    assert _value(index["q"], "replica_groups") == "{{0,4},{1,5},{2,6},{3,7}}"
    # device_ids reorder the mesh: [2,2,2]T(1,0,2) puts device 2 at (0,1,0)
    assert _value(index["r"], "replica_groups") == "{{0,2},{1,3},{4,6},{5,7}}"
    # the rest of each line as written
    assert text.replace("{{0,1,2,3},{4,5,6,7}}", "mesh['axis_0'=2,'axis_1'=4] {'axis_1'}", 1) \
        .split("\n")[10] == MESH.split("\n")[10]


def test_fusions_become_calls_without_their_backend_config():
    text = rw.unfuse((HLO / "cond_axis_index_psum.buggy_deadlock.hlo").read_text())
    line = next(ln for ln in text.split("\n") if "%compare_convert_fusion =" in ln)
    assert " call(%axis_index.12), to_apply=%fused_computation" in line
    assert "kind=" not in line and "fusion(" not in line and "backend_config" not in line


@pytest.mark.parametrize("src, dst", [
    ("f32[4,6]{0,1}", "f32[24]{0}"),            # column-major source
    ("f32[2,3,4]{1,2,0}", "f32[6,4]{0,1}"),     # both permuted
    ("f32[4,6]{1,0}", "f32[2,12]{1,0}"),        # both major-to-minor: a reshape
    ("f32[2,3,4]{1,0,2}", "f32[2,3,4]{0,2,1}"),  # permutations that are not their own inverse
])
def test_a_bitcast_becomes_the_logical_ops_that_reinterpret_the_buffer(src, dst):
    text = (f"HloModule m, is_scheduled=true\n\nENTRY %main (p: {src.split('{')[0]}) -> {dst.split('{')[0]} {{\n"
            f"  %p = {src} parameter(0)\n  ROOT %b = {dst} bitcast(%p)\n}}\n")
    rewritten = rw.logical_bitcasts(text)
    ops = [i for i in read_hlo(rewritten).computations["main"].instructions if i.opcode != "parameter"]
    assert "bitcast" not in {i.opcode for i in ops}
    sdims = [int(d) for d in src.split("[")[1].split("]")[0].split(",")]
    slay = [int(d) for d in src.split("{")[1].rstrip("}").split(",")]
    ddims = [int(d) for d in dst.split("[")[1].split("]")[0].split(",")]
    dlay = [int(d) for d in dst.split("{")[1].rstrip("}").split(",")]
    x = np.arange(np.prod(sdims)).reshape(sdims)
    # the buffer: elements in physical (major-to-minor) order; the result reads it with its own layout
    buffer = x.transpose(slay[::-1]).reshape(-1)
    expected = buffer.reshape([ddims[d] for d in dlay[::-1]]).transpose(np.argsort(dlay[::-1]))
    values = {"p": x}
    for ins in ops:
        v = values[ins.operand_names[0]]
        dims = list(ins.shape.dims)
        if ins.opcode == "transpose":
            v = v.transpose(list(ins.attr("dimensions")))
        else:
            assert ins.opcode == "reshape"
            v = v.reshape(dims)
        assert list(v.shape) == dims
        values[ins.name] = v
    assert np.array_equal(values["b"], expected)


def test_order_edges_make_each_collective_wait_for_the_one_before():
    text = rw.impose_order(CROSSED)
    index = _index(text)
    ar = index["ar"]
    edge = index[ar.operand_names[0]]  # the all-reduce now reads %x through the edge
    assert edge.opcode == "custom-call" and edge.name.startswith(rw.ORDER)
    assert edge.operand_names == ("x", "ag")  # passes %x, waits for the all-gather
    assert _value(edge, "custom_call_target") == '"xla_ffi_python_cpu_callback"'
    assert "{index = 0 : ui64}" in _value(edge, "backend_config")
    assert index["ag"].operand_names == ("x",)  # the first collective is left alone
    assert rw.host_callbacks(text) == {0: (edge.name, [("f32", (4,))])}


def test_order_edges_go_into_a_while_state_and_out_of_a_tuple_result():
    text = rw.impose_order((HLO / "fori_psum_ppermute.hlo").read_text())
    index = _index(text)
    edges = [i for i in index.values() if i.name.startswith(rw.ORDER) and i.opcode == "custom-call"]
    assert edges, "no edge in a module with a psum and a ppermute in a loop"
    for e in edges:  # each edge's second operand is an array, reached through the tuple of a result if need be
        assert index[e.operand_names[1]].shape.is_array


SEND_RECV = """HloModule sr, is_scheduled=true, entry_computation_layout={(f32[4]{0})->f32[4]{0}}, num_partitions=2

ENTRY %main (x: f32[4]) -> f32[4] {
  %x = f32[4]{0} parameter(0)
  %tok = token[] after-all()
  %recv = (f32[4]{0}, u32[], token[]) recv(%tok), channel_id=1, frontend_attributes={_xla_send_recv_source_target_pairs={{0,1}}}
  %send = (f32[4]{0}, u32[], token[]) send(%x, %tok), channel_id=1, frontend_attributes={_xla_send_recv_source_target_pairs={{0,1}}}
  %recv-done = (f32[4]{0}, token[]) recv-done(%recv), channel_id=1
  %send-done = token[] send-done(%send), channel_id=1
  ROOT %r = f32[4]{0} get-tuple-element(%recv-done), index=0
}
"""


def test_no_order_edge_reads_an_asynchronous_start():
    """A start's result may be read by its done only (XLA's importer aborted the
    process on an edge reading a recv's tuple): send/recv and *-start/*-done
    pairs are left out of the chain."""
    assert rw.impose_order(SEND_RECV) == SEND_RECV


def test_a_combined_all_reduce_becomes_one_over_the_concatenation():
    text = rw.single_operand_all_reduces((HLO / "psum_tuple.hlo").read_text())
    index = _index(text)
    ar = index.get("all-reduce.sum")
    assert ar is not None and ar.opcode == "all-reduce" and ar.shape_text == "f32[8]"
    assert index["all-reduce.all"].opcode == "concatenate"
    tup = index["all-reduce"]
    assert tup.opcode == "tuple" and tup.shape_text == "(f32[1,4], f32[2,2])"


def test_collectives_are_labelled_and_the_label_is_read_back():
    text = rw.label_collectives(CROSSED)
    ag = _index(text)["ag"]
    assert _value(ag, "metadata") == '{op_name="shlo-lint:ag"}'
    assert rw.label_of_instruction(ag) == "ag"
    assert rw.label_of('loc("shlo-lint:all-gather.3"(#loc4))') == "all-gather.3"
    assert rw.label_of('loc("jit(f)/psum")') is None


def test_the_order_check_sees_two_collectives_swapped():
    compiled = rw.label_collectives(CROSSED)
    label = rw.label_of_instruction
    assert order_kept(CROSSED, compiled, label) is None
    lines = compiled.split("\n")
    i = next(k for k, ln in enumerate(lines) if "%ag =" in ln)
    lines[i], lines[i + 1] = lines[i + 1], lines[i]
    assert "another order" in order_kept(CROSSED, "\n".join(lines), label)
    dropped = "\n".join(ln for ln in compiled.split("\n") if "%ar =" not in ln)
    assert "does not have the text's collectives" in order_kept(CROSSED, dropped, label)
    # compiled instructions are known by their labels, not their names (compiling renames them)
    renamed = compiled.replace("%ag =", "%all-gather.7 =").replace("(%ar, %ag)", "(%ar, %all-gather.7)")
    assert order_kept(CROSSED, renamed, label) is None


# ----------------------------------------------------------------------------- inputs
def test_a_sharded_parameter_gets_the_shards_of_one_global_value_and_a_replicated_one_the_same_value():
    module = read_module((HLO / "async_all_gather_in_cond.hlo").read_text())
    params = entry_parameters(module)
    assert [p.sharding for p in params] == ["{devices=[8,1]<=[8]}", "{replicated}"]
    arrays = device_inputs(module, Inputs("random", 3), Grid(1, 8), notes := [])
    assert notes == []
    shards = [arrays[f"arg0_0_{d}"] for d in range(8)]
    whole = Inputs("random", 3).make([_global(params[0], 8)], None)[0]
    assert np.array_equal(np.concatenate(shards), whole)
    flags = {arrays[f"arg1_0_{d}"].tobytes() for d in range(8)}
    assert len(flags) == 1  # a replicated flag is one value, as in the jitted program
    # the XLA worker takes them by flattened device id
    assert np.array_equal(worker_arrays(arrays, Grid(1, 8))["arg0_5"], arrays["arg0_0_5"])


def _global(p, n):
    from shlo_lint.checker.frontend.hlo.ir_types import element_type
    from shlo_lint.checker.ir.types import TensorType

    return TensorType((p.dims[0] * n, *p.dims[1:]), element_type(p.element))


def test_an_unscheduled_module_takes_global_arrays():
    text = (HLO / "dumps" / "psum" / "module_0000.jit__lambda.before_optimizations.txt").read_text()
    arrays = device_inputs(read_module(text), Inputs("zeros"), Grid(1, 8), [])
    assert list(arrays) == ["arg0"] and arrays["arg0"].shape == (16, 4)


def test_a_host_callback_whose_results_are_used_gets_a_note():
    printing = (HLO / "debug_print.hlo").read_text()
    assert callback_notes(read_module(printing)) == []  # jax.debug.print returns nothing
    returning = printing.replace("%debug_print.3 = () custom-call(", "%debug_print.3 = (f32[]) custom-call(")
    (note,) = callback_notes(read_module(returning))
    assert note.startswith("host callback %debug_print.3 (line ") and "returns zeros" in note
    assert rw.host_callbacks(returning)[0] == ("debug_print.3", [("f32", ())])


# ----------------------------------------------------------------------------- XLA:CPU's abort lines
def test_abort_lines_name_the_candidate_instructions():
    module = read_module((HLO / "schedule" / "crossed_independent_by_use_swapped.buggy_deadlock.hlo").read_text())
    log = "\n".join(
        f"F1128 08:00:00.000000   123 rendezvous.cc:161] [id=0] Termination timeout for `{kind} RendezvousKey"
        f"{{run_id=RunId: 7, global_devices=[0, 1, 2, 3], num_local_participants=4, collective_op_kind=cross_module, "
        f"op_id=1}}` of 2 seconds exceeded. Exiting to ensure a consistent program state. Expected 4 threads to "
        f"join the rendezvous, but only 2 of them arrived on time." for kind in ("all reduce", "all gather"))
    notes = abort_notes(log, module)
    assert len(notes) == 2
    assert notes[0].startswith("XLA:CPU gave up on the all-reduce with op_id 1 of devices 0..3: expected 4 "
                               "participants, only 2 arrived")
    assert "%all-reduce.0 (line 20), %all-reduce.2 (line 39)" in notes[0]
    assert "%all-gather.0 (line 19)" in notes[1]


# ----------------------------------------------------------------------------- `shlo-lint run` on HLO: what is refused
def test_the_distributed_engine_says_it_does_not_run_hlo_with_exit_2():
    proc = run_cli("run", "--engine", "xla-distributed", str(HLO / "psum.hlo"))
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert "unsupported" in proc.stdout and "distributed XLA engine does not run HLO text" in proc.stdout


def test_short_form_hlo_is_an_error_at_its_line(tmp_path):
    path = tmp_path / "short.hlo"
    path.write_text("HloModule m, entry_computation_layout={(f32[])->f32[]}\n\nENTRY main {\n"
                    "  p = f32[] parameter(0)\n  ROOT n = f32[] negate(p)\n}\n")
    proc = run_cli("run", "-f", "json", str(path))
    assert proc.returncode == 2
    data = json.loads(proc.stdout)
    assert data["outcome"] == "error" and data["engine"] == "xla"
    assert data["message"].startswith(f"{path}:4:3: short-form HLO text")
