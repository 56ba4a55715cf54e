"""`shlo-lint run` on programs that assert their own results with the `check`
dialect and start processes with `interpreter.run_parallel` (the form of
StableHLO's interpreter tests), and modules that run as one process."""
from __future__ import annotations

import json

import numpy as np
import pytest

import shlo_lint
from shlo_lint.checker.execute.interpreter import Interpreter
from shlo_lint.checker.execute.values import Inputs

from conftest import CORPUS, run_cli

EXE = CORPUS / "execute"


def run_text(text: str):
    return Interpreter(shlo_lint.parse(text, "t.mlir")).run(Inputs("zeros"))


def prog(body: str) -> str:
    return "func.func @main() {\n" + body + "\n  func.return\n}\n"


def test_checks_hold_exit_0():
    proc = run_cli("run", str(EXE / "checks.mlir"))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "completed" in proc.stdout and "3 checks passed" in proc.stdout


def test_a_wrong_expected_value_exits_1_at_the_check():
    proc = run_cli("run", str(EXE / "checks.buggy_expect.mlir"))
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "checks.buggy_expect.mlir:15:3: check.expect_eq failed" in proc.stdout
    assert "first at [1, 2]: 10 (actual) vs 11 (expected)" in proc.stdout


def test_failed_checks_in_json():
    proc = run_cli("run", "-f", "json", str(EXE / "checks.buggy_expect.mlir"))
    data = json.loads(proc.stdout)
    assert data["outcome"] == "failed"
    assert data["checks"]["passed"] == 2
    (failed,) = data["checks"]["failed"]
    assert (failed["op"], failed["line"], failed["column"]) == ("check.expect_eq", 15, 3)


@pytest.mark.parametrize("flip", [
    # custom form, generic form, almost-equal with tolerance, bool
    ('check.expect_eq_const %x, dense<[1, 2]> : tensor<2xi64>', 'check.expect_eq_const %x, dense<[1, 3]> : tensor<2xi64>'),
    ('"check.expect_eq_const"(%x) {value = dense<[1, 2]> : tensor<2xi64>} : (tensor<2xi64>) -> ()',
     '"check.expect_eq_const"(%x) {value = dense<[0, 2]> : tensor<2xi64>} : (tensor<2xi64>) -> ()'),
    ('check.expect_almost_eq_const %f, dense<[0.5, 1.0]> : tensor<2xf32>',
     'check.expect_almost_eq_const %f, dense<[0.5, 1.01]> : tensor<2xf32>'),
    ('"check.expect_eq"(%x, %y) : (tensor<2xi64>, tensor<2xi64>) -> ()',
     '"check.expect_eq"(%x, %x2) : (tensor<2xi64>, tensor<2xi64>) -> ()'),
])
def test_flipping_an_expected_value_fails_that_check(flip):
    good, bad = flip
    body = """  %x = stablehlo.constant dense<[1, 2]> : tensor<2xi64>
  %y = stablehlo.constant dense<[1, 2]> : tensor<2xi64>
  %x2 = stablehlo.add %x, %x : tensor<2xi64>
  %f0 = stablehlo.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %h = stablehlo.constant dense<0.5> : tensor<2xf32>
  %f = stablehlo.multiply %f0, %h : tensor<2xf32>
  CHECK"""
    ok = run_text(prog(body.replace("CHECK", good)))
    assert ok.outcome == "completed" and ok.checks == {"passed": 1, "failed": []}, ok.message
    ko = run_text(prog(body.replace("CHECK", bad)))
    assert ko.outcome == "failed" and ko.error_at == ("t.mlir", 8, 3), ko.message


def test_tolerance_and_ulps():
    body = """  %a = stablehlo.constant dense<5.0> : tensor<f64>
  %b = stablehlo.constant dense<5.0001> : tensor<f64>
  "check.expect_almost_eq"(%a, %b) : (tensor<f64>, tensor<f64>) -> ()
  "check.expect_almost_eq"(%a, %b) {tolerance = 1.0e-5 : f64} : (tensor<f64>, tensor<f64>) -> ()
  %c = stablehlo.constant dense<1.0> : tensor<f32>
  %d = stablehlo.constant dense<1.00000012> : tensor<f32>
  "check.expect_close"(%c, %d) {max_ulp_difference = 1 : ui64} : (tensor<f32>, tensor<f32>) -> ()
  "check.expect_close"(%c, %d) {max_ulp_difference = 0 : ui64} : (tensor<f32>, tensor<f32>) -> ()"""
    res = run_text(prog(body))
    assert res.outcome == "failed"
    assert res.checks["passed"] == 2
    assert [f["line"] for f in res.checks["failed"]] == [5, 9]


def test_probe_and_serialized_eq():
    body = """  %a = stablehlo.constant dense<[1, 2]> : tensor<2xi32>
  %p = "interpreter.probe"(%a) {probe_id = "a"} : (tensor<2xi32>) -> tensor<2xi32>
  "check.expect_serialized_eq"(%a) {probe_id = "a"} : (tensor<2xi32>) -> ()
  "check.expect_serialized_eq"(%a) {probe_id = "b"} : (tensor<2xi32>) -> ()"""
    res = run_text(prog(body))
    assert res.checks["passed"] == 1 and "no value was probed as 'b'" in res.checks["failed"][0]["message"]


def test_run_parallel_grid_and_flattening():
    proc = run_cli("run", "-f", "json", str(EXE / "run_parallel.mlir"))
    data = json.loads(proc.stdout)
    assert proc.returncode == 0, proc.stdout
    assert data["checks"] == {"passed": 4, "failed": []}


def test_run_parallel_deadlock_names_the_blocked_process():
    proc = run_cli("run", "-f", "json", str(EXE / "run_parallel.buggy_deadlock.mlir"))
    assert proc.returncode == 1
    data = json.loads(proc.stdout)
    assert data["outcome"] == "deadlock"
    (blocked,) = data["blocked"]
    assert blocked["process"] == [0, 0] and blocked["op"] == "stablehlo.all_reduce" and blocked["line"] == 13


def test_module_without_grid_runs_as_one_process():
    text = """func.func @main(%x: tensor<3xf32>) -> tensor<3xf32> {
  %p = stablehlo.partition_id : tensor<ui32>
  %y = stablehlo.exponential %x : tensor<3xf32>
  func.return %y : tensor<3xf32>
}"""
    res = run_text(text)
    assert res.outcome == "completed" and res.grid.size == 1


def test_unsupported_op_is_named_not_a_traceback():
    res = run_text(prog('  %q = "stablehlo.frobnicate"() : () -> tensor<2xf32>'))
    assert res.outcome == "unsupported" and res.message.startswith("cannot execute: op stablehlo.frobnicate at t.mlir:2:")


def test_bad_scatter_dimension_numbers_are_located():
    body = """  %x = stablehlo.constant dense<[[1, 2], [3, 4]]> : tensor<2x2xi64>
  %i = stablehlo.constant dense<[[1]]> : tensor<1x1xi64>
  %v = stablehlo.constant dense<[9]> : tensor<1xi64>
  %s = "stablehlo.scatter"(%x, %i, %v) ({
  ^bb0(%a: tensor<i64>, %b: tensor<i64>):
    stablehlo.return %b : tensor<i64>
  }) {scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>} : (tensor<2x2xi64>, tensor<1x1xi64>, tensor<1xi64>) -> tensor<2x2xi64>"""
    res = run_text(prog(body))
    assert res.outcome == "error" and "window dimensions" in res.message and "t.mlir:5:" in res.message


def test_index_vector_dim_defaults_to_zero():
    """`index_vector_dim` is printed only when it is not 0."""
    body = """  %x = stablehlo.constant dense<[[1, 2, 3], [4, 5, 6]]> : tensor<2x3xi64>
  %i = stablehlo.constant dense<[1, 2]> : tensor<2xi64>
  %g = "stablehlo.gather"(%x, %i) {dimension_numbers = #stablehlo.gather<collapsed_slice_dims = [0, 1], start_index_map = [0, 1]>, slice_sizes = array<i64: 1, 1>} : (tensor<2x3xi64>, tensor<2xi64>) -> tensor<i64>
  check.expect_eq_const %g, dense<6> : tensor<i64>
  %v = stablehlo.constant dense<[7, 8]> : tensor<2xi64>
  %j = stablehlo.constant dense<[0, 0]> : tensor<2xi64>
  %s = "stablehlo.scatter"(%x, %j, %v) ({
  ^bb0(%a: tensor<i64>, %b: tensor<i64>):
    %t = stablehlo.add %a, %b : tensor<i64>
    stablehlo.return %t : tensor<i64>
  }) {scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [0], inserted_window_dims = [1], scatter_dims_to_operand_dims = [0, 1]>} : (tensor<2x3xi64>, tensor<2xi64>, tensor<2xi64>) -> tensor<2x3xi64>
  check.expect_eq_const %s, dense<[[8, 2, 3], [12, 5, 6]]> : tensor<2x3xi64>"""
    res = run_text(prog(body))
    assert res.outcome == "completed" and res.checks == {"passed": 2, "failed": []}, (res.message, res.checks)


def test_replica_group_mesh_axes_groups():
    proc = run_cli("run", "-f", "json", str(EXE / "mesh_axes_groups.mlir"))
    data = json.loads(proc.stdout)
    assert proc.returncode == 0 and data["checks"] == {"passed": 6, "failed": []}, proc.stdout
    # the same program with a wrong expectation fails at that check
    text = (EXE / "mesh_axes_groups.mlir").read_text().replace("dense<1100>", "dense<1010>")
    res = run_text(text)
    assert res.outcome == "failed" and [f["line"] for f in res.checks["failed"]] == [34]


def test_mesh_axes_naming_an_unknown_axis_is_an_error():
    text = (EXE / "mesh_axes_groups.mlir").read_text().replace('axes = [#stablehlo.axis_ref<name = "x">]>} : (tensor<i64>) -> tensor<i64>\n    %b',
                                                               'axes = [#stablehlo.axis_ref<name = "z">]>} : (tensor<i64>) -> tensor<i64>\n    %b', 1)
    res = run_text(text)
    assert res.outcome == "error" and "axis 'z', which the mesh does not have" in res.message


def test_a_file_split_at_markers_runs_chunk_by_chunk(tmp_path):
    """StableHLO's test files hold many modules separated by `// -----` lines."""
    one = prog("  %x = stablehlo.constant dense<[1, 2]> : tensor<2xi64>\n"
               "  check.expect_eq_const %x, dense<[1, 2]> : tensor<2xi64>")
    two = one.replace("dense<[1, 2]> : tensor<2xi64>\n  func", "dense<[1, 5]> : tensor<2xi64>\n  func")
    path = tmp_path / "split.mlir"
    path.write_text(one + "\n// -----\n\n" + two)
    proc = run_cli("run", str(path))
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert f"{path} (chunk at line 1): completed" in proc.stdout
    assert f"{path}:11:3: check.expect_eq_const failed" in proc.stdout
    data = json.loads(run_cli("run", "-f", "json", str(path)).stdout)
    assert [d["chunk"] for d in data] == [1, 8] and [d["outcome"] for d in data] == ["completed", "failed"]


def test_op_modules_never_import_the_interpreter():
    """interpreter -> op modules -> registry / runtime: the op implementations
    register into registry.py and never import interpreter.py (no import circle)."""
    import ast
    from pathlib import Path

    import shlo_lint.checker.execute as ex

    root = Path(ex.__file__).parent
    modules = [root / "comm.py", root / "op_registry.py", root / "runtime.py", root / "mesh_groups.py",
               *sorted((root / "ops").glob("*.py"))]
    for path in modules:
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom):
                target = (node.module or "")
                assert not target.endswith("interpreter") and target != "run", (path.name, target)
                assert not (node.level and target == "" and any(a.name == "interpreter" for a in node.names)), path
    from shlo_lint.checker.execute import comm, ops  # noqa: F401 - importing them registers their classes
    from shlo_lint.checker.execute.op_registry import function_classes

    names = {c.__name__ for c in function_classes()}
    assert {"CommunicationFunctions", "IndexingFunctions", "CheckFunctions", "LapackFunctions"} <= names


def test_uniform_quantization():
    body = """  %x = stablehlo.constant dense<[0.3, -1.2, 2.5]> : tensor<3xf32>
  %q = "stablehlo.uniform_quantize"(%x) : (tensor<3xf32>) -> tensor<3x!quant.uniform<i8:f32, 0.25:4>>
  %b = "stablehlo.bitcast_convert"(%q) : (tensor<3x!quant.uniform<i8:f32, 0.25:4>>) -> tensor<3xi8>
  check.expect_eq_const %b, dense<[5, -1, 14]> : tensor<3xi8>
  %d = "stablehlo.uniform_dequantize"(%q) : (tensor<3x!quant.uniform<i8:f32, 0.25:4>>) -> tensor<3xf32>
  check.expect_almost_eq_const %d, dense<[0.25, -1.25, 2.5]> : tensor<3xf32>
  %m = "stablehlo.multiply"(%q, %q) : (tensor<3x!quant.uniform<i8:f32, 0.25:4>>, tensor<3x!quant.uniform<i8:f32, 0.25:4>>) -> tensor<3x!quant.uniform<i8<-8:7>:f32, 1.0>>
  %mb = "stablehlo.bitcast_convert"(%m) : (tensor<3x!quant.uniform<i8<-8:7>:f32, 1.0>>) -> tensor<3xi8>
  check.expect_eq_const %mb, dense<[0, 2, 6]> : tensor<3xi8>"""
    res = run_text(prog(body))
    assert res.outcome == "completed" and res.checks == {"passed": 3, "failed": []}, (res.message, res.checks)


def test_mesh_name_spelling_and_sdy_meshes():
    """`mesh_name = @m` naming an `sdy.mesh @m = <["x"=2, "y"=4]>` reads the same way."""
    from shlo_lint.checker.execute.run import run_path

    report = run_path(str(CORPUS / "valid" / "all_gather_valid_mesh_axes.mlir"))
    assert report.outcome == "completed", report.primary.message


def test_batch_norm_ops_follow_the_spec_formulas():
    rng = np.random.default_rng(0)
    x = rng.standard_normal((4, 3, 2)).astype(np.float32)
    scale, offset = np.array([1.0, 2.0, 0.5], np.float32), np.array([0.0, 1.0, -1.0], np.float32)
    dy = rng.standard_normal((4, 3, 2)).astype(np.float32)
    text = """func.func @main(%x: tensor<4x3x2xf32>, %s: tensor<3xf32>, %o: tensor<3xf32>, %dy: tensor<4x3x2xf32>) -> (tensor<4x3x2xf32>, tensor<3xf32>, tensor<3xf32>, tensor<4x3x2xf32>, tensor<4x3x2xf32>, tensor<3xf32>, tensor<3xf32>) {
  %y, %m, %v = "stablehlo.batch_norm_training"(%x, %s, %o) {epsilon = 1.0e-3 : f32, feature_index = 1 : i64} : (tensor<4x3x2xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<4x3x2xf32>, tensor<3xf32>, tensor<3xf32>)
  %i = "stablehlo.batch_norm_inference"(%x, %s, %o, %m, %v) {epsilon = 1.0e-3 : f32, feature_index = 1 : i64} : (tensor<4x3x2xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<4x3x2xf32>
  %gx, %gs, %go = "stablehlo.batch_norm_grad"(%x, %s, %m, %v, %dy) {epsilon = 1.0e-3 : f32, feature_index = 1 : i64} : (tensor<4x3x2xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<4x3x2xf32>) -> (tensor<4x3x2xf32>, tensor<3xf32>, tensor<3xf32>)
  return %y, %m, %v, %i, %gx, %gs, %go : tensor<4x3x2xf32>, tensor<3xf32>, tensor<3xf32>, tensor<4x3x2xf32>, tensor<4x3x2xf32>, tensor<3xf32>, tensor<3xf32>
}"""
    import tempfile

    with tempfile.TemporaryDirectory() as d:
        np.savez(f"{d}/in.npz", arg0=x, arg1=scale, arg2=offset, arg3=dy)
        res = Interpreter(shlo_lint.parse(text, "bn.mlir")).run(Inputs("npz", path=f"{d}/in.npz"))
    assert res.outcome == "completed", res.message
    y, m, v, inf, gx, gs, go = res.outputs[(0, 0)]
    mean, var = x.mean((0, 2)), x.var((0, 2))
    norm = (x - mean[None, :, None]) / np.sqrt(var[None, :, None] + 1e-3)
    np.testing.assert_allclose(m, mean, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(v, var, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(y, norm * scale[None, :, None] + offset[None, :, None], rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(inf, y, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(go, dy.sum((0, 2)), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(gs, (dy * norm).sum((0, 2)), rtol=1e-4, atol=1e-5)
    # the gradient of sum(dy * batch_norm_training(x)) with respect to x, by finite differences
    def loss(xx):
        mu, var_ = xx.mean((0, 2)), xx.var((0, 2))
        out = (xx - mu[None, :, None]) / np.sqrt(var_[None, :, None] + 1e-3) * scale[None, :, None]
        return float((out * dy).sum())
    x64, h, k = x.astype(np.float64), 1e-5, (1, 2, 0)
    bump = np.zeros_like(x64)
    bump[k] = h
    assert abs((loss(x64 + bump) - loss(x64 - bump)) / (2 * h) - gx[k]) < 1e-3


def test_engine_both_leaves_the_test_harness_to_the_interpreter():
    """XLA cannot run the interpreter's test harness: the interpreter's result is
    reported, and the run is exit 2 (XLA was asked for and did not run)."""
    proc = run_cli("run", "--engine", "both", "-f", "json", str(EXE / "checks.mlir"))
    data = json.loads(proc.stdout)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert data["engines"]["interp"]["outcome"] == "completed"
    assert data["engines"]["xla"]["outcome"] == "unsupported" and data["cross_check"]["status"] == "skipped"
    assert run_cli("run", str(EXE / "checks.mlir")).returncode == 0
    assert run_cli("run", str(EXE / "checks.buggy_expect.mlir")).returncode == 1


def test_custom_form_checks_read_from_their_text_when_the_parser_keeps_them_opaque():
    """The parser may keep a custom-form op of an unknown dialect opaque (name, operands,
    results, location): the expected literal, tolerance and probe id come from its text."""
    body = """  %x = stablehlo.constant dense<[1.0, 2.0]> : tensor<2xf32>
  check.expect_almost_eq_const %x, dense<[1.05, 2.0]> : tensor<2xf32> {tolerance = 0.1 : f64}
  check.expect_eq_const %x, dense<[1.0, 3.0]> : tensor<2xf32>
  %p = interpreter.probe %x, probe_id = "px" : tensor<2xf32>
  check.expect_serialized_eq %x, probe_id = "px", iter = 0 : tensor<2xf32>"""
    module = shlo_lint.parse(prog(body), "t.mlir")
    for op in module.walk():
        if op.name.startswith(("check.", "interpreter.")):
            op.header.attributes.clear()  # what an opaque op carries: no attributes
    res = Interpreter(module).run(Inputs("zeros"))
    assert res.outcome == "failed"
    assert res.checks["passed"] == 2 and [f["line"] for f in res.checks["failed"]] == [4]


def test_process_groups_follow_the_spec_order_and_dynamic_roots_per_operand():
    """cross_replica_and_partition groups are partition-major (all_gather concatenates
    in that order); has_dynamic_root gives each data operand its own root."""
    proc = run_cli("run", str(EXE / "run_parallel_group_order.mlir"))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "6 checks passed" in proc.stdout
