"""`run` computes the narrow float types (f8*, f6*, f4E2M1FN) on a plain install:
ml_dtypes, their numpy dtypes, is a dependency, not something jax happens to bring."""
from __future__ import annotations

import os
import subprocess
import sys
import tomllib

import numpy as np

from conftest import ROOT

PROGRAM = """module @narrow {
  func.func public @main() -> (tensor<4xf32>, tensor<3xf32>, tensor<3xf32>) {
    %c = stablehlo.constant dense<[0.3, 1.0, 100.0, -2.7]> : tensor<4xf32>
    %f8 = stablehlo.convert %c : (tensor<4xf32>) -> tensor<4xf8E4M3FN>
    %sum = stablehlo.add %f8, %f8 : tensor<4xf8E4M3FN>
    %r8 = stablehlo.convert %sum : (tensor<4xf8E4M3FN>) -> tensor<4xf32>
    %d = stablehlo.constant dense<[0.3, 1.0, -2.7]> : tensor<3xf32>
    %f4 = stablehlo.convert %d : (tensor<3xf32>) -> tensor<3xf4E2M1FN>
    %r4 = stablehlo.convert %f4 : (tensor<3xf4E2M1FN>) -> tensor<3xf32>
    %f6 = stablehlo.convert %d : (tensor<3xf32>) -> tensor<3xf6E2M3FN>
    %r6 = stablehlo.convert %f6 : (tensor<3xf6E2M3FN>) -> tensor<3xf32>
    return %r8, %r4, %r6 : tensor<4xf32>, tensor<3xf32>, tensor<3xf32>
  }
}
"""

# Rounded to nearest (ties to even) in each format: e4m3fn keeps 3 mantissa bits (0.3 -> 0.3125,
# 100 -> 96, -2.7 -> -2.75), e2m1fn is one of 0, 0.5, 1, 1.5, 2, 3, 4, 6, e2m3fn has steps of 0.25 here.
# (A module without a grid is one process, (0, 0): outputs are saved per process.)
EXPECTED = {"out0_0_0": [0.625, 2.0, 192.0, -5.5], "out1_0_0": [0.5, 1.0, -3.0], "out2_0_0": [0.25, 1.0, -2.75]}

WITHOUT_JAX = ("import sys\n"
               "sys.modules['jax'] = sys.modules['jaxlib'] = None  # a plain install: no jax\n"
               "from shlo_lint.checker.cli.commands import main\n"
               "main()\n")


def test_ml_dtypes_is_a_dependency_of_a_plain_install():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert any(d.replace("-", "_").startswith("ml_dtypes") for d in project["dependencies"]), project["dependencies"]


def test_run_computes_narrow_floats_without_jax(tmp_path):
    prog = tmp_path / "narrow.mlir"
    prog.write_text(PROGRAM, encoding="utf-8")
    saved = tmp_path / "out.npz"
    proc = subprocess.run([sys.executable, "-c", WITHOUT_JAX, "run", "--save-outputs", str(saved), str(prog)],
                          capture_output=True, text=True, timeout=300, env={**os.environ, "NO_COLOR": "1"})
    assert proc.returncode == 0 and "completed" in proc.stdout, proc.stdout + proc.stderr
    with np.load(saved) as data:
        assert {k: data[k].tolist() for k in data.files} == EXPECTED
