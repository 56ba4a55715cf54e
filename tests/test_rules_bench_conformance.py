"""bench/conformance.py scores a checkout the way docs/conformance.md says: a tiny
checkout written here (our own text, not upstream's) stands in for openxla/stablehlo."""
from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _bench():
    spec = importlib.util.spec_from_file_location("conformance_bench", ROOT / "bench" / "conformance.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod  # dataclasses look their module up
    spec.loader.exec_module(mod)  # type: ignore[union-attr]
    return mod


VERIFY = """// RUN: stablehlo-opt %s -verify-diagnostics -split-input-file
func.func @ok(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = "stablehlo.collective_permute"(%x) {source_target_pairs = dense<[[0, 1], [1, 0]]> : tensor<2x2xi64>} : (tensor<4xf32>) -> tensor<4xf32>
  func.return %0 : tensor<4xf32>
}

// -----

func.func @dup(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error@+1 {{duplicate sources}}
  %0 = "stablehlo.collective_permute"(%x) {
    source_target_pairs = dense<[[0, 1], [0, 2]]> : tensor<2x2xi64>
  } : (tensor<4xf32>) -> tensor<4xf32>
  func.return %0 : tensor<4xf32>
}

// -----

func.func @unrelated(%x: tensor<4xf32>) -> tensor<4xf32> {
  func.return %x : tensor<4xf32>
}
"""

PASS_TEST = """// RUN: stablehlo-opt --stablehlo-some-pass -split-input-file -verify-diagnostics %s
func.func @p(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error@+1 {{the pass refused it}}
  %0 = "stablehlo.collective_permute"(%x) {source_target_pairs = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<4xf32>) -> tensor<4xf32>
  func.return %0 : tensor<4xf32>
}
"""


def _checkout(tmp_path: Path) -> Path:
    tests = tmp_path / "stablehlo" / "tests"
    (tests / "transforms").mkdir(parents=True)
    (tests / "verify_permute.mlir").write_text(VERIFY)
    (tests / "transforms" / "some_pass.mlir").write_text(PASS_TEST)
    data = tmp_path / "stablehlo" / "testdata" / "sub"
    data.mkdir(parents=True)
    (data / "prog.mlir").write_text(VERIFY.split("// -----")[0])
    return tmp_path


def test_verifier_chunks_are_scored_per_family(tmp_path):
    bench = _bench()
    tallies = bench.verifier_tests(_checkout(tmp_path), None)
    t = tallies["collective_permute"]
    # The pass test's expected-error is the pass's, not the verifier's: left out.
    assert (t.invalid, t.detected, t.located, t.valid, t.false_rule, t.crash) == (1, 1, 1, 1, 0, 0)
    assert "all_gather" not in tallies  # chunks of other families are not counted
    assert tallies[bench.TOTAL].invalid == 1


def test_testdata_is_walked_recursively(tmp_path):
    bench = _bench()
    td = bench.testdata(_checkout(tmp_path), None)
    assert (td["files"], td["parsed"], td["rule_error_files"], td["parse_error_files"]) == (1, 1, 0, 0)


def test_the_command_line_refuses_a_directory_that_is_no_checkout(tmp_path):
    out = subprocess.run([sys.executable, str(ROOT / "bench" / "conformance.py"), "--stablehlo", str(tmp_path)],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 2 and "not a stablehlo checkout" in out.stderr
