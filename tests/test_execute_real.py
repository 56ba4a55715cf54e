"""The execution checker's interpreter on every real JAX export of corpus/real/:
the outcome each one must have, and what the runs compute."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import shlo_lint
from shlo_lint.checker.execute.run import run_path
from shlo_lint.checker.execute.values import Inputs

from conftest import CORPUS

REAL = sorted((CORPUS / "real").glob("*.mlir"))


# ----------------------------------------------------------------------------- real exports
EXPECTED_REAL = {
    "cond_axis_index_psum": "deadlock",       # only partition 0 enters the all_reduce
    "mesh_cond_ppermute": "deadlock",         # 4 of the permute's 8-device group enter it (XLA:CPU aborts)
    "fori_trip_axis_index": "deadlock",       # partition 0 leaves the loop after one psum, 7 wait at the 2nd
    "mesh_cond_y_psum_y": "deadlock",         # one member of each psum group of 4 enters it
    # a partially manual shard_map (manual over "x" of a 2x4 mesh) is not run by the
    # interpreter (axes that stay automatic); XLA:CPU aborts the buggy one and runs _ok.
    # Only the GSPMD form of _ok has no partially manual value to convert.
    "partial_manual_cond_psum_ok.gspmd": "completed",
    "partial_manual_cond_psum": "error",
    "buggy_type_mismatch": "error",           # recv declares 8 floats, the send sends 4
    "buggy_done_twice": "error",              # one future completed twice
    "ragged_all_to_all": "unsupported",       # custom_call @ragged_all_to_all: not run (no kernel here,
                                              # nor in XLA:CPU; lowered for CUDA): exit 2, naming it
}


def _expected(path: Path) -> str:
    return next((v for k, v in EXPECTED_REAL.items() if k in path.name), "completed")


@pytest.mark.parametrize("path", REAL, ids=lambda p: p.name)
def test_real_exports_run(path):
    report = run_path(str(path))
    assert report.outcome == _expected(path), (report.primary.message, report.primary.blocked)
    if report.outcome == "completed":
        assert report.primary.outputs and all(a is not None for vals in report.primary.outputs.values()
                                               for a in vals)


def test_forms_of_one_program_agree():
    """pretty, generic, debug-info and GSPMD forms compute the same outputs."""
    for base in ("psum", "fori_pipeline", "ppermute_ring", "tp_mlp_grad", "async_two_overlapping"):
        forms = sorted((CORPUS / "real").glob(f"{base}.*mlir"))
        results = [run_path(str(p)).primary.outputs[None] for p in forms]
        for p, r in zip(forms[1:], results[1:]):
            for a, b in zip(results[0], r):
                assert a.shape == b.shape and np.allclose(a, b, rtol=1e-5, atol=1e-5), p.name


def test_psum_is_the_sum_of_the_shards():
    path = CORPUS / "real" / "psum.mlir"
    x = Inputs().make([shlo_lint.parse(path.read_text()).entry_function().header.region_args[0][0][1]], None)[0]
    res = run_path(str(path)).primary
    np.testing.assert_allclose(res.outputs[None][0], x.reshape(8, 2, 4).sum(0), rtol=1e-6)


def test_ppermute_ring_rotates_shards():
    path = CORPUS / "real" / "ppermute_ring.mlir"
    x = Inputs().make([shlo_lint.parse(path.read_text()).entry_function().header.region_args[0][0][1]], None)[0]
    res = run_path(str(path)).primary
    np.testing.assert_array_equal(res.outputs[None][0], np.roll(x.reshape(8, 4, 4), 1, axis=0).reshape(32, 4))


def test_real_deadlock_report():
    res = run_path(str(CORPUS / "real" / "cond_axis_index_psum.buggy_deadlock.mlir")).primary
    assert res.outcome == "deadlock"
    [b] = res.blocked
    assert b.process == (0, 0) and b.op == "stablehlo.all_reduce" and b.line == 17
    assert "processes (0, 1)\u2013(0, 7) (finished)" in b.waits_for
    assert any("stablehlo.case" in s for s in b.stack)
    assert {p for p, s in res.states.items() if s == "finished"} == {(0, p) for p in range(1, 8)}


def test_type_mismatch_is_located():
    res = run_path(str(CORPUS / "real" / "sendrecv_pair.buggy_type_mismatch.mlir")).primary
    assert "recv declares (tensor<8xf32>)" in res.message and "sendrecv_pair.buggy_type_mismatch.mlir:7:" in \
        res.message
