"""The execution checker's reference interpreter: op semantics, communication,
deadlock reports, inputs, limits and safety.

Every real JAX export: test_execute_real.py. XLA and GPU tests live in
test_execute_xla.py / test_execute_gpu.py.
"""
from __future__ import annotations

import json

import numpy as np
import pytest

import shlo_lint
from shlo_lint.checker.execute.interpreter import Interpreter, Limits
from shlo_lint.checker.execute.run import RunOptions, run_path
from shlo_lint.checker.execute.values import Inputs

from conftest import CORPUS, run_cli


def run_text(text: str, inputs: Inputs | None = None, limits: Limits | None = None, path: str = "prog.mlir"):
    module = shlo_lint.parse(text, path)
    return Interpreter(module, limits=limits).run(inputs or Inputs())


def per_device(body: str, args: str = "%x: tensor<4xf32>", result: str = "tensor<4xf32>", partitions: int = 8,
               replicas: int = 1) -> str:
    return (f"module @m attributes {{mhlo.num_partitions = {partitions} : i32, mhlo.num_replicas = {replicas} : i32}} {{\n"
            f"  func.func public @main({args}) -> {result} {{\n{body}\n  }}\n}}\n")


def out(res, process=(0, 0), i=0):
    key = None if None in res.outputs else process
    return res.outputs[key][i]


# ----------------------------------------------------------------------------- op semantics
def test_integer_division_truncates_and_remainder_follows_the_dividend():
    text = per_device("""
    %a = stablehlo.constant dense<[7, -7, 7, -7, 5]> : tensor<5xi32>
    %b = stablehlo.constant dense<[2, 2, -2, -2, 0]> : tensor<5xi32>
    %q = stablehlo.divide %a, %b : tensor<5xi32>
    %r = stablehlo.remainder %a, %b : tensor<5xi32>
    return %q, %r : tensor<5xi32>, tensor<5xi32>""", args="", result="(tensor<5xi32>, tensor<5xi32>)", partitions=1)
    res = run_text(text)
    assert out(res).tolist() == [3, -3, -3, 3, -1]
    assert out(res, i=1).tolist() == [1, -1, 1, -1, 5]


def test_shapes_and_slices():
    text = per_device("""
    %i = stablehlo.iota dim = 1 : tensor<2x3xi32>
    %t = stablehlo.transpose %i, dims = [1, 0] : (tensor<2x3xi32>) -> tensor<3x2xi32>
    %b = stablehlo.broadcast_in_dim %t, dims = [2, 0] : (tensor<3x2xi32>) -> tensor<2x4x3xi32>
    %c = stablehlo.constant dense<9> : tensor<i32>
    %one = stablehlo.constant dense<1> : tensor<i32>
    %big = stablehlo.constant dense<100> : tensor<i32>
    %d = stablehlo.dynamic_slice %b, %one, %big, %one, sizes = [1, 2, 2] : (tensor<2x4x3xi32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<1x2x2xi32>
    %u = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<1x1x3xi32>
    %w = stablehlo.dynamic_update_slice %b, %u, %big, %big, %big : (tensor<2x4x3xi32>, tensor<1x1x3xi32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<2x4x3xi32>
    %p = "stablehlo.pad"(%t, %c) {edge_padding_low = array<i64: 1, -1>, edge_padding_high = array<i64: 0, 2>, interior_padding = array<i64: 1, 0>} : (tensor<3x2xi32>, tensor<i32>) -> tensor<6x3xi32>
    %s = stablehlo.slice %p [1:6:2, 0:3] : (tensor<6x3xi32>) -> tensor<3x3xi32>
    %k = stablehlo.concatenate %s, %s, dim = 0 : (tensor<3x3xi32>, tensor<3x3xi32>) -> tensor<6x3xi32>
    %rv = stablehlo.reverse %k, dims = [0] : tensor<6x3xi32>
    return %d, %w, %p, %rv : tensor<1x2x2xi32>, tensor<2x4x3xi32>, tensor<6x3xi32>, tensor<6x3xi32>""", args="",
                      result="(tensor<1x2x2xi32>, tensor<2x4x3xi32>, tensor<6x3xi32>, tensor<6x3xi32>)", partitions=1)
    res = run_text(text)
    assert res.outcome == "completed", res.message
    i = np.broadcast_to(np.arange(3), (2, 3))
    t = i.T
    b = np.broadcast_to(t.T[:, None, :], (2, 4, 3))
    assert out(res, i=0).tolist() == b[1:2, 2:4, 1:3].tolist()  # starts clamped to dim - size
    w = b.copy()
    w[1, 3, :] = 9
    assert out(res, i=1).tolist() == w.tolist()
    p = np.full((6, 3), 9)
    p[1::2, 0] = t[:, 1]  # low -1 on dim 1 drops column 0
    assert out(res, i=2).tolist() == p.tolist()
    s = p[1:6:2]
    assert out(res, i=3).tolist() == np.concatenate([s, s])[::-1].tolist()


def test_dot_general_with_batch_and_reduce_region():
    text = per_device("""
    %0 = stablehlo.dot_general %x, %y, batching_dims = [0] x [0], contracting_dims = [2] x [1], precision = [DEFAULT, DEFAULT] : (tensor<2x3x4xf32>, tensor<2x4x5xf32>) -> tensor<2x3x5xf32>
    %z = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %m = stablehlo.reduce(%0 init: %z) applies stablehlo.maximum across dimensions = [1] : (tensor<2x3x5xf32>, tensor<f32>) -> tensor<2x5xf32>
    %c = stablehlo.constant dense<0.0> : tensor<f32>
    %s = "stablehlo.reduce"(%0, %c) ({
      ^bb0(%a: tensor<f32>, %b: tensor<f32>):
        %t = stablehlo.multiply %b, %b : tensor<f32>
        %u = stablehlo.add %a, %t : tensor<f32>
        stablehlo.return %u : tensor<f32>
    }) {dimensions = array<i64: 2>} : (tensor<2x3x5xf32>, tensor<f32>) -> tensor<2x3xf32>
    return %0, %m, %s : tensor<2x3x5xf32>, tensor<2x5xf32>, tensor<2x3xf32>""",
                      args="%x: tensor<2x3x4xf32>, %y: tensor<2x4x5xf32>",
                      result="(tensor<2x3x5xf32>, tensor<2x5xf32>, tensor<2x3xf32>)", partitions=1)
    res = run_text(text)
    assert res.outcome == "completed", res.message
    x, y = res.inputs[(0, 0)]
    d = np.einsum("bij,bjk->bik", x, y)
    np.testing.assert_allclose(out(res), d, rtol=1e-5)
    np.testing.assert_allclose(out(res, i=1), d.max(1), rtol=1e-5)  # init -inf from the hex bit pattern
    np.testing.assert_allclose(out(res, i=2), (d ** 2).sum(2), rtol=1e-4)


def test_while_case_and_call():
    text = """module @m attributes {mhlo.num_partitions = 4 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main() -> tensor<i32> {
    %p = stablehlo.partition_id : tensor<ui32>
    %pi = stablehlo.convert %p : (tensor<ui32>) -> tensor<i32>
    %zero = stablehlo.constant dense<0> : tensor<i32>
    %r:2 = stablehlo.while(%i = %zero, %acc = %zero) : tensor<i32>, tensor<i32>
    cond {
      %c = stablehlo.compare LT, %i, %pi, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %c : tensor<i1>
    } do {
      %one = stablehlo.constant dense<1> : tensor<i32>
      %n = stablehlo.add %i, %one : tensor<i32>
      %a = func.call @twice(%acc) : (tensor<i32>) -> tensor<i32>
      %a1 = stablehlo.add %a, %one : tensor<i32>
      stablehlo.return %n, %a1 : tensor<i32>, tensor<i32>
    }
    %k = "stablehlo.case"(%pi) ({
      stablehlo.return %r#1 : tensor<i32>
    }, {
      %t = stablehlo.constant dense<100> : tensor<i32>
      stablehlo.return %t : tensor<i32>
    }) : (tensor<i32>) -> tensor<i32>
    return %k : tensor<i32>
  }
  func.func private @twice(%a: tensor<i32>) -> tensor<i32> {
    %b = stablehlo.add %a, %a : tensor<i32>
    return %b : tensor<i32>
  }
}
"""
    res = run_text(text)
    # partition 0: zero trips, branch 0 -> 0; partition 1: branch 1 -> 100; 2, 3: out of range -> last branch
    assert [int(out(res, (0, p))) for p in range(4)] == [0, 100, 100, 100]


# ----------------------------------------------------------------------------- communication
RING_RECV_FIRST = per_device("""
    %t = stablehlo.create_token : !stablehlo.token
    %r:2 = "stablehlo.recv"(%t) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, source_target_pairs = dense<[[0, 1], [1, 2], [2, 3], [3, 0]]> : tensor<4x2xi64>}> : (!stablehlo.token) -> (tensor<4xf32>, !stablehlo.token)
    %s = "stablehlo.send"(%x, %r#1) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, source_target_pairs = dense<[[0, 1], [1, 2], [2, 3], [3, 0]]> : tensor<4x2xi64>}> : (tensor<4xf32>, !stablehlo.token) -> !stablehlo.token
    return %r#0 : tensor<4xf32>""", partitions=4)


def test_recv_before_send_ring_deadlocks_every_process():
    res = run_text(RING_RECV_FIRST)
    assert res.outcome == "deadlock"
    assert sorted(b.process for b in res.blocked) == [(0, p) for p in range(4)]
    b0 = next(b for b in res.blocked if b.process == (0, 0))
    assert b0.op == "stablehlo.recv" and b0.line == 5
    assert "a send on channel 1 from process (0, 3) (blocked at stablehlo.recv" in b0.waits_for


def test_send_before_recv_ring_completes_and_delivers():
    text = RING_RECV_FIRST.replace('%r:2 = "stablehlo.recv"(%t)', '%r:2 = "stablehlo.recv"(%s)').replace(
        '%s = "stablehlo.send"(%x, %r#1)', '%s = "stablehlo.send"(%x, %t)')
    # put the send first, textually
    lines = text.splitlines()
    i_recv = next(i for i, ln in enumerate(lines) if "stablehlo.recv" in ln)
    lines[i_recv], lines[i_recv + 1] = lines[i_recv + 1], lines[i_recv]
    res = run_text("\n".join(lines))
    assert res.outcome == "completed", res.message
    for p in range(4):
        np.testing.assert_array_equal(out(res, (0, p)), res.inputs[(0, (p - 1) % 4)][0])


def test_collectives_in_different_orders_deadlock():
    ar = ('"stablehlo.all_reduce"(%x) <{{channel_handle = #stablehlo.channel_handle<handle = {h}, type = 1>, '
          'replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>, use_global_device_ids}}> ({{\n'
          '      ^bb0(%a: tensor<f32>, %b: tensor<f32>):\n'
          '        %s = stablehlo.add %a, %b : tensor<f32>\n        stablehlo.return %s : tensor<f32>\n'
          '      }}) : (tensor<4xf32>) -> tensor<4xf32>')
    text = per_device(f"""
    %p = stablehlo.partition_id : tensor<ui32>
    %i = stablehlo.convert %p : (tensor<ui32>) -> tensor<i32>
    %r = "stablehlo.case"(%i) ({{
      %a1 = {ar.format(h=1)}
      %a2 = {ar.format(h=2)}
      stablehlo.return %a2 : tensor<4xf32>
    }}, {{
      %b2 = {ar.format(h=2)}
      %b1 = {ar.format(h=1)}
      stablehlo.return %b1 : tensor<4xf32>
    }}) : (tensor<i32>) -> tensor<4xf32>
    return %r : tensor<4xf32>""", partitions=2)
    res = run_text(text)
    assert res.outcome == "deadlock"
    assert sorted(b.process for b in res.blocked) == [(0, 0), (0, 1)]
    assert all("blocked at stablehlo.all_reduce" in b.waits_for for b in res.blocked)


def test_collective_permute_gives_zeros_to_non_targets():
    res = run_path(str(CORPUS / "valid" / "permute_partial.mlir")).primary
    assert res.outcome == "completed"
    text = (CORPUS / "valid" / "permute_partial.mlir").read_text()
    module = shlo_lint.parse(text)
    from shlo_lint.checker.analysis.semantics import source_target_pairs

    pairs = next(source_target_pairs(op) for op in module.walk() if op.name.endswith("collective_permute"))
    targets = {t for _s, t in pairs}
    for (r, p), vals in res.outputs.items():
        if p not in targets:
            assert not np.any(vals[0]), (r, p)


DATA_BRANCH = per_device("""
    %r = "stablehlo.if"(%b) ({
      %f = "stablehlo.async_start"(%x) ({
      ^bb0(%a: tensor<4xf32>):
        %p = "stablehlo.all_gather"(%a) <{all_gather_dim = 0 : i64, channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1, 2, 3, 4, 5, 6, 7]]> : tensor<1x8xi64>, use_global_device_ids}> : (tensor<4xf32>) -> tensor<32xf32>
        stablehlo.return %p : tensor<32xf32>
      }) : (tensor<4xf32>) -> !stablehlo.future<tensor<32xf32>>
      %t = stablehlo.tanh %x : tensor<4xf32>
      %d = "stablehlo.async_done"(%f) : (!stablehlo.future<tensor<32xf32>>) -> tensor<32xf32>
      %s = stablehlo.slice %d [0:4] : (tensor<32xf32>) -> tensor<4xf32>
      stablehlo.return %s : tensor<4xf32>
    }, {
      stablehlo.return %x : tensor<4xf32>
    }) : (tensor<i1>) -> tensor<4xf32>
    return %r : tensor<4xf32>""", args="%x: tensor<4xf32>, %b: tensor<i1>")


def test_async_futures_and_data_dependent_branch():
    """A start/done inside an `if` on a per-process input: with random inputs some
    processes skip the branch and the others wait forever at the start (XLA's
    issue order: the start waits for its peers; under the spec's matching, at the
    done); with zeros every process skips it."""
    rand = run_text(DATA_BRANCH)
    assert rand.outcome == "deadlock"
    takers = {p for p, args in rand.inputs.items() if bool(args[1])}
    assert {b.process for b in rand.blocked} == takers and 0 < len(takers) < 8
    assert all(b.op == "stablehlo.async_start" and "to start this all_gather" in b.waits_for for b in rand.blocked)
    spec = Interpreter(shlo_lint.parse(DATA_BRANCH, "prog.mlir"), matching="spec").run(Inputs())
    assert spec.outcome == "deadlock" and {b.process for b in spec.blocked} == takers
    assert all(b.op == "stablehlo.async_done" for b in spec.blocked)
    assert run_text(DATA_BRANCH, Inputs("zeros")).outcome == "completed"


def test_seed_forms_run():
    # Two seed-004 forms are invalid in StableHLO 1.20 (corpus/invalid/: outer
    # values in async_start's body, one done for two futures); they still run.
    for name in ("valid/seed004_all_gather_start_done", "invalid/async_start_c3_outer_values",
                 "valid/seed004_collective_permute_start_done", "invalid/async_done_c1_two_futures",
                 "valid/collective_broadcast_valid_dynamic_root", "valid/all_reduce_valid_promoted_bf16_to_f32"):
        res = run_path(str(CORPUS / f"{name}.mlir")).primary
        assert res.outcome == "completed", (name, res.message)


# ----------------------------------------------------------------------------- errors, safety, limits
def test_unknown_custom_call_is_refused_before_running():
    text = per_device("""
    %0 = stablehlo.custom_call @my_kernel(%x) : (tensor<4xf32>) -> tensor<4xf32>
    return %0 : tensor<4xf32>""")
    res = run_text(text)
    assert res.outcome == "unsupported"
    assert res.message.startswith("refused: custom_call @my_kernel at prog.mlir:4:")
    assert res.steps == 0


def test_unimplemented_op_is_located_not_a_traceback():
    text = per_device("""
    %0 = "mydialect.frobnicate"(%x) : (tensor<4xf32>) -> tensor<4xf32>
    return %0 : tensor<4xf32>""")
    res = run_text(text)
    assert res.outcome == "unsupported" and res.message == "cannot execute: op mydialect.frobnicate at prog.mlir:4:10"


def test_unknown_grid_and_dynamic_shapes_are_errors():
    # no grid attributes and no communication: one process, as the reference interpreter runs it
    alone = per_device("    return %x : tensor<4xf32>").replace(
        "attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32}", "")
    res = run_text(alone)
    assert res.outcome == "completed" and list(res.outputs) == [(0, 0)]
    # communication without a grid: which processes take part is unknown
    text = per_device("""
    %0 = "stablehlo.all_reduce"(%x) ({
      ^bb0(%a: tensor<f32>, %b: tensor<f32>):
        %s = stablehlo.add %a, %b : tensor<f32>
        stablehlo.return %s : tensor<f32>
    }) {replica_groups = dense<[[0]]> : tensor<1x1xi64>} : (tensor<4xf32>) -> tensor<4xf32>
    return %0 : tensor<4xf32>""").replace(
        "attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32}", "")
    assert "grid is unknown" in run_text(text).message
    assert "statically shaped" in run_path(str(CORPUS / "valid" / "permute_dynamic.mlir")).primary.message


def test_time_and_memory_limits():
    loop = per_device("""
    %z = stablehlo.constant dense<0> : tensor<i32>
    %r = stablehlo.while(%i = %z) : tensor<i32>
    cond {
      %t = stablehlo.constant dense<true> : tensor<i1>
      stablehlo.return %t : tensor<i1>
    } do {
      stablehlo.return %i : tensor<i32>
    }
    return %x : tensor<4xf32>""", partitions=1)
    res = run_text(loop, limits=Limits(time_s=0.3))
    assert res.outcome == "timeout" and "time limit" in res.message
    big = per_device("""
    %c = stablehlo.constant dense<1.0> : tensor<f32>
    %b = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<f32>) -> tensor<4096x4096xf32>
    return %x : tensor<4xf32>""", partitions=1)
    res = run_text(big, limits=Limits(memory_bytes=32 << 20))
    assert res.outcome == "error" and "memory limit of 32 MiB" in res.message and "prog.mlir:5:" in res.message


def _grid_module(replicas: int, partitions: int) -> str:
    return (f"module @m attributes {{mhlo.num_partitions = {partitions} : i32, mhlo.num_replicas = {replicas} : i32}} {{\n"
            "  func.func public @main(%x: tensor<4xf32>) -> tensor<4xf32> {\n"
            "    %0 = \"stablehlo.all_reduce\"(%x) ({\n"
            "    ^bb0(%a: tensor<f32>, %b: tensor<f32>):\n"
            "      %s = stablehlo.add %a, %b : tensor<f32>\n"
            "      stablehlo.return %s : tensor<f32>\n"
            "    }) {replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<4xf32>) -> tensor<4xf32>\n"
            "    return %0 : tensor<4xf32>\n  }\n}\n")


@pytest.mark.parametrize("engine", ["interp", "xla", "both", "xla-distributed"])
def test_a_grid_no_engine_can_run_is_refused_at_once_with_the_limit(tmp_path, engine):
    """Issue 24: `run` on 2^31 - 1 replicas x 4 partitions made an input and a
    coroutine per process (past 200 s and 1.6 GB before it was killed). Every engine
    refuses it before building anything per process: exit 2, the reason, the limit."""
    import time

    path = tmp_path / "huge.mlir"
    path.write_text(_grid_module(2**31 - 1, 4))
    t0 = time.monotonic()
    proc = run_cli("run", "--engine", engine, "-f", "json", str(path))
    assert time.monotonic() - t0 < 5, "not refused at once"
    assert proc.returncode == 2 and "Traceback" not in proc.stderr, proc.stderr
    data = json.loads(proc.stdout)
    reports = data["engines"].values() if engine == "both" else [data]
    for r in reports:
        assert r["outcome"] == "unsupported"
        assert "8,589,934,588 processes" in r["message"] and "run-max-processes = 65,536" in r["message"]


def test_run_max_processes_is_an_option_that_moves_the_limit(tmp_path):
    path = tmp_path / "two.mlir"
    path.write_text(_grid_module(2, 1))
    proc = run_cli("run", "-O", "run-max-processes=1", str(path))
    assert proc.returncode == 2 and "more than run-max-processes = 1 " in proc.stdout, proc.stdout
    assert run_cli("run", "-O", "run-max-processes=2", str(path)).returncode == 0
    (tmp_path / "pyproject.toml").write_text("[tool.shlo-lint.options]\nrun-max-processes = 1\n")
    assert run_cli("run", str(path), cwd=tmp_path).returncode == 2
    proc = run_cli("run", "-O", "run-max-proceses=2", str(path))
    assert proc.returncode == 2 and "did you mean `run-max-processes`" in proc.stderr
    listed = json.loads(run_cli("options", "-f", "json").stdout)
    (spec,) = [o for o in listed if o["key"] == "run-max-processes"]
    assert spec["default"] == 65536 and "refused" in spec["doc"]
    # the library's interpreter holds the same limit
    res = run_text(_grid_module(2, 1), limits=Limits(max_processes=1))
    assert res.outcome == "error" and "more than run-max-processes = 1 " in res.message


# ----------------------------------------------------------------------------- inputs
def test_inputs_random_zeros_npz(tmp_path):
    path = CORPUS / "real" / "psum.mlir"
    a = run_path(str(path), RunOptions(inputs=Inputs("random", 1))).primary.outputs[None][0]
    b = run_path(str(path), RunOptions(inputs=Inputs("random", 1))).primary.outputs[None][0]
    c = run_path(str(path), RunOptions(inputs=Inputs("random", 2))).primary.outputs[None][0]
    assert np.array_equal(a, b) and not np.array_equal(a, c)
    assert not np.any(run_path(str(path), RunOptions(inputs=Inputs("zeros"))).primary.outputs[None][0])
    x = np.arange(64, dtype=np.float32).reshape(16, 4)
    np.savez(tmp_path / "in.npz", arg0=x)
    r = run_path(str(path), RunOptions(inputs=Inputs.parse(str(tmp_path / "in.npz")))).primary
    np.testing.assert_array_equal(r.outputs[None][0], x.reshape(8, 2, 4).sum(0))
    np.savez(tmp_path / "bad.npz", arg0=np.zeros((3,), np.float32))
    bad = run_path(str(path), RunOptions(inputs=Inputs.parse(str(tmp_path / "bad.npz")))).primary
    assert bad.outcome == "error" and "has shape [3]" in bad.message


def test_per_device_inputs_differ_per_process_and_npz_overrides(tmp_path):
    path = CORPUS / "valid" / "permute_ring.mlir"
    r = run_path(str(path)).primary
    assert not np.array_equal(r.outputs[(0, 0)][0], r.outputs[(0, 1)][0])
    np.savez(tmp_path / "in.npz", arg0=np.ones((4, 4), np.float32), arg0_0_3=np.full((4, 4), 3, np.float32))
    r = run_path(str(path), RunOptions(inputs=Inputs.parse(str(tmp_path / "in.npz")))).primary
    assert r.outputs[(0, 4)][0][0, 0] == 3 and r.outputs[(0, 5)][0][0, 0] == 1


# ----------------------------------------------------------------------------- corpus/deadlock
DEADLOCK_CASES = sorted((CORPUS / "deadlock").glob("*.mlir"))
CONFIRMABLE = [p for p in DEADLOCK_CASES if not p.name.startswith("grid_") and p.with_suffix(".expect").exists()
               and any(c in p.with_suffix(".expect").read_text() for c in ("SHLO500", "SHLO501"))]


def test_the_deadlock_corpus_the_replays_read_is_there():
    """The parametrized replays below read these lists: an empty one would run
    nothing (pytest skips an empty parameter set), so their size is checked."""
    assert len(DEADLOCK_CASES) >= 50 and len(CONFIRMABLE) >= 20


@pytest.mark.parametrize("path", DEADLOCK_CASES, ids=lambda p: p.name)
def test_deadlock_corpus_is_reproduced(path):
    """Every static deadlock verdict is reproduced by the interpreter (the same
    processes block), and programs without one complete."""
    from shlo_lint.checker.execute.replay import static_verdicts

    verdicts, undecided = static_verdicts(path)
    res = run_path(str(path)).primary
    if undecided and not verdicts:  # e.g. a branch on the data: the run shows one concrete outcome
        assert res.outcome in ("completed", "deadlock"), res.message
        return
    if not verdicts:
        assert res.outcome == "completed", (res.outcome, res.message, res.blocked)
        return
    assert res.outcome == "deadlock", res.message
    blocked = {b.process for b in res.blocked}
    assert any(v <= blocked for v in verdicts), (verdicts, blocked)


def test_async_starts_are_issue_points_under_xla_matching():
    """XLA's issue order: crossed async starts block at the starts (the static
    counterexample's lines); the spec's reading blocks at the dones."""
    path = CORPUS / "deadlock" / "async_cycle.mlir"
    xla = run_path(str(path)).primary
    assert xla.outcome == "deadlock"
    assert sorted((b.process, b.op, b.line) for b in xla.blocked) == [
        ((0, 0), "stablehlo.all_reduce_start", 13), ((0, 1), "stablehlo.all_gather_start", 24)]
    spec = run_path(str(path), RunOptions(matching="spec")).primary
    assert sorted((b.process, b.op) for b in spec.blocked) == [
        ((0, 0), "stablehlo.all_reduce_done"), ((0, 1), "stablehlo.all_gather_done")]


def test_the_scheduler_order_the_analysis_names_is_run():
    """Two independent collectives in a branch: the order written completes; the
    order XLA's scheduler may choose (Verdict.schedule) hangs, and `run` runs it
    unless asked for the order written."""
    path = CORPUS / "deadlock" / "sync_collectives_scheduler_order.mlir"
    r = run_path(str(path)).primary
    assert r.outcome == "deadlock" and r.notes[0].startswith("issue order: stablehlo.all_gather at ")
    assert {b.process: b.line for b in r.blocked} == {(0, 0): 18, (0, 1): 18, (0, 2): 23, (0, 3): 23}
    written = run_path(str(path), RunOptions(issue_order="written")).primary
    assert written.outcome == "completed" and not any(n.startswith("issue order") for n in written.notes)
    proc = run_cli("run", "--issue-order", "written", str(path))
    assert proc.returncode == 0 and "completed" in proc.stdout, proc.stdout


def test_a_reorder_that_breaks_a_dependence_is_refused():
    from shlo_lint.checker.execute.run import load, run_module

    path = CORPUS / "deadlock" / "sync_collectives_scheduler_order.mlir"
    module = load(str(path))
    case = next(o for o in module.walk() if o.name == "stablehlo.if")
    ar, ag = [o for o in case.regions[1].blocks[0].operations if o.name.startswith("stablehlo.all_")]
    r = run_module(module, RunOptions(reorder=(ar, ag))).primary  # the all_gather reads the all_reduce
    assert r.outcome == "error" and "cannot replay the issue order" in r.message
    r = run_module(module, RunOptions(reorder=(ag, ar))).primary  # not in this order in the block
    assert r.outcome == "error" and "cannot replay the issue order" in r.message


# ----------------------------------------------------------------------------- CLI
def test_cli_run_json_shapes():
    proc = run_cli("run", "--output-format", "json", str(CORPUS / "real" / "cond_axis_index_psum.buggy_deadlock.mlir"))
    assert proc.returncode == 1, proc.stderr
    data = json.loads(proc.stdout)
    assert data["outcome"] == "deadlock" and data["engine"] == "interp"
    assert data["blocked"] == [{"process": [0, 0], "op": "stablehlo.all_reduce",
                                "path": str(CORPUS / "real" / "cond_axis_index_psum.buggy_deadlock.mlir"),
                                "line": 17, "column": 14, "waits_for": data["blocked"][0]["waits_for"],
                                "stack": data["blocked"][0]["stack"]}]
    assert data["outputs"] == []
    proc = run_cli("run", "-f", "json", "--inputs", "zeros", str(CORPUS / "real" / "psum.mlir"))
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert data["outcome"] == "completed" and data["grid"] == [1, 8] and data["mode"] == "global"
    assert data["outputs"] == [{"index": 0, "name": "result", "process": None, "shape": [2, 4], "dtype": "float32",
                                "min": 0.0, "max": 0.0, "mean": 0.0, "sum": 0.0}]


def test_cli_run_text_and_errors(tmp_path):
    proc = run_cli("run", str(CORPUS / "real" / "sendrecv_pair.mlir"))
    assert proc.returncode == 0 and "completed [interp: numpy (cpu); grid 1x8" in proc.stdout
    bad = tmp_path / "bad.mlir"
    bad.write_text(per_device("""
    %0 = stablehlo.custom_call @evil(%x) : (tensor<4xf32>) -> tensor<4xf32>
    return %0 : tensor<4xf32>"""))
    before = bad.read_bytes()
    proc = run_cli("run", str(bad))
    assert proc.returncode == 2 and "refused: custom_call @evil" in proc.stdout and "Traceback" not in proc.stderr
    assert bad.read_bytes() == before
    proc = run_cli("run", "--inputs", "nonsense", str(bad))
    assert proc.returncode == 2 and "--inputs" in proc.stderr


# ----------------------------------------------------------------------------- matching, --confirm
def test_xla_matching_pairs_ops_the_spec_keeps_apart():
    path = CORPUS / "deadlock" / "same_channel_both_branches.mlir"
    xla = run_path(str(path)).primary
    assert xla.outcome == "completed" and "only because XLA matches" in xla.notes[0]
    spec = run_path(str(path), RunOptions(matching="spec")).primary
    assert spec.outcome == "deadlock" and len(spec.blocked) == 4


def test_xla_matching_pairs_channel_less_ops_and_equal_device_lists(tmp_path):
    """XLA's rendezvous key: kind, the positive channel or none (one key for every
    channel-less op of a module), the ordered device list (docs/deadlock.md)."""
    for name in ("no_channel_both_branches.mlir", "groups_written_differently.mlir"):
        r = run_path(str(CORPUS / "deadlock" / name)).primary
        assert r.outcome == "completed" and "only because XLA matches" in r.notes[0], (name, r.message)
    assert run_path(str(CORPUS / "deadlock" / "group_order_differs.mlir")).primary.outcome == "deadlock"
    # two ops XLA meets as one, operands of different shapes: a clear error, not a cast failure
    branch = (CORPUS / "deadlock" / "same_channel_both_branches.mlir").read_text()
    one, two = branch.index('%y = stablehlo.multiply'), branch.index('stablehlo.return %s : tensor<4xf32>\n    })')
    scalar = ('%c = stablehlo.constant dense<1.0> : tensor<f32>\n      %s0 = "stablehlo.all_reduce"(%c) '
              '<{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = '
              'dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>, use_global_device_ids}> ({\n      ^bb0(%a: tensor<f32>, '
              '%b: tensor<f32>):\n        %t = stablehlo.add %a, %b : tensor<f32>\n        stablehlo.return %t : '
              'tensor<f32>\n      }) : (tensor<f32>) -> tensor<f32>\n      %s = stablehlo.add %x, %x : tensor<4xf32>\n      ')
    path = tmp_path / "shapes.mlir"
    path.write_text(branch[:one] + scalar + branch[two:])
    r = run_path(str(path)).primary
    assert r.outcome == "error" and "operands differ in shape" in r.message, (r.outcome, r.message)


def test_unreceived_send_blocks_at_the_end():
    path = CORPUS / "deadlock" / "send_without_recv.mlir"
    r = run_path(str(path)).primary
    [b] = r.blocked
    expect = path.with_suffix(".expect").read_text().split()
    assert b.process == (0, 0) and b.op == "stablehlo.send" and b.line == int(expect[1])
    assert "is never received" in b.waits_for


def test_confirm_marks_deadlock_findings():
    files = [CORPUS / "real" / "cond_axis_index_psum.buggy_deadlock.mlir", CORPUS / "deadlock" /
             "recv_before_send_ring.mlir"]
    files = [str(f) for f in files if f.exists()]
    proc = run_cli("--confirm", "--output-format", "json", *files)
    data = json.loads(proc.stdout)
    deadlocks = [d for d in data["diagnostics"] if d["category"] == "deadlock"]
    assert len(deadlocks) == len(files), proc.stderr
    for d in deadlocks:
        notes = [n["message"] for n in d["related"]]
        assert any(m.startswith("confirmed by execution (interp): ") and "blocked as predicted" in m
                   for m in notes), notes


def test_confirm_says_not_reproduced_when_the_run_completes():
    from shlo_lint.checker.source.diagnostics import Diagnostic, Location, ProcessTrace, Severity, TraceStep
    from shlo_lint.checker.execute.replay import confirm

    path = CORPUS / "real" / "psum.mlir"
    module = shlo_lint.parse(path.read_text(), str(path))
    fake = Diagnostic("SHLO501", "deadlock-peer-never-arrives", "deadlock", Severity.ERROR, "made up",
                      Location(str(path), None, 5, 7),
                      trace=(ProcessTrace((0, 3), (TraceStep(Location(str(path), None, 5, 7), "all_reduce",
                                                             blocked=True),), "waits for (0, 1)"),))
    [marked] = confirm([fake], module)
    assert marked.notes[-1].message == ("not reproduced by execution (interp): the run completed (with these "
                                        "inputs and this schedule)")


def test_hlo_and_sdy_shardings_index_the_same_devices():
    from shlo_lint.checker.analysis.sharding import Mesh, hlo_tiling, sdy_tiling

    x = np.arange(8 * 6).reshape(8, 6)
    t = hlo_tiling("{devices=[4,2]<=[8]}", 2, 8)
    assert t.shard(x, 0).tolist() == x[0:2, 0:3].tolist() and t.shard(x, 1).tolist() == x[0:2, 3:6].tolist()
    tt = hlo_tiling("{devices=[4,2]<=[2,4]T(1,0)}", 2, 8)  # device d at (d % 4, d // 4)
    assert tt.device_coords[1] == (1, 0) and tt.device_coords[4] == (0, 1)
    rep = hlo_tiling("{devices=[2,1,4]<=[8] last_tile_dim_replicate}", 2, 8)
    assert rep.device_coords[3] == (0, 0) and rep.device_coords[4] == (1, 0)
    assert hlo_tiling("{manual}", 2, 8) == "manual"
    assert hlo_tiling("{replicated}", 2, 8).shard(x, 5).tolist() == x.tolist()
    mesh = Mesh((("x", 2), ("y", 4)), tuple(range(8)))
    s = sdy_tiling([["x"], ["y"]], mesh)
    assert s.tiles == (2, 4) and s.device_coords[5] == (1, 1)
    y = np.arange(64).reshape(8, 8)
    assert s.shard(y, 5).tolist() == y[4:8, 2:4].tolist()
    assert s.assemble({d: s.shard(y, d) for d in range(8)}).tolist() == y.tolist()
    both = sdy_tiling([["y", "x"], []], mesh)  # y major, x minor
    assert both.tiles == (8, 1) and both.device_coords[1] == (2, 0)


@pytest.mark.parametrize("path", CONFIRMABLE, ids=lambda p: p.name)
def test_confirm_replays_each_counterexample(path):
    """--confirm's replay (the counterexample's processes scheduled first, the
    blocked processes and lines compared) confirms every static deadlock."""
    from shlo_lint.checker.lint.config import Config
    from shlo_lint.checker.lint.engine import lint_source
    from shlo_lint.checker.execute.replay import confirm
    from shlo_lint.checker.source.text import SourceFile

    result = lint_source(SourceFile(str(path), path.read_text()), Config().merged(select=("deadlock",)))
    marked = confirm(result.diagnostics, result.module)
    findings = [d for d in marked if d.code in ("SHLO500", "SHLO501")]
    assert findings
    for d in findings:
        assert d.notes[-1].message.startswith("confirmed by execution (interp): "), d.notes[-1].message


def test_a_token_passes_through_a_manual_computation():
    """JAX's ordered effects thread a token through shard_map: `<@mesh, []>` on a
    token shards nothing (was "AttributeError: 'Token' object has no attribute
    'shape'", an interpreter bug reported as the program's)."""
    text = """module @m attributes {mhlo.num_partitions = 4 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["x"=4]>
  func.func public @main(%t: !stablehlo.token, %x: tensor<4x2xf32>) -> (!stablehlo.token, tensor<1x2xf32>) {
    %0:2 = sdy.manual_computation(%t, %x) in_shardings=[<@mesh, []>, <@mesh, [{"x"}, {}]>] out_shardings=[<@mesh, []>, <@mesh, [{}, {}]>] manual_axes={"x"} (%a: !stablehlo.token, %b: tensor<1x2xf32>) {
      %s = "stablehlo.all_reduce"(%b) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>, use_global_device_ids}> ({
      ^bb0(%p: tensor<f32>, %q: tensor<f32>):
        %r = stablehlo.add %p, %q : tensor<f32>
        stablehlo.return %r : tensor<f32>
      }) : (tensor<1x2xf32>) -> tensor<1x2xf32>
      sdy.return %a, %s : !stablehlo.token, tensor<1x2xf32>
    } : (!stablehlo.token, tensor<4x2xf32>) -> (!stablehlo.token, tensor<1x2xf32>)
    return %0#0, %0#1 : !stablehlo.token, tensor<1x2xf32>
  }
}
"""
    res = run_text(text, Inputs("zeros"))
    assert res.outcome == "completed", res.message
