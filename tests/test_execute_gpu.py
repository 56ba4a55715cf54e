"""The GPU array backend (jax arrays on a GPU) and XLA on N GPUs.

The GPU tests run only where jax sees a GPU and skip with the reason otherwise.
The same backend on jax's CPU platform runs everywhere (in a subprocess, since
it enables 64-bit types in jax), so its code path is tested without a GPU."""
from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

from shlo_lint.checker.execute.availability import gpu_available
from shlo_lint.checker.execute.run import RunOptions, run_path
from shlo_lint.checker.execute.availability import jax_available

from conftest import CORPUS, ROOT

HAS_GPU, GPU_REASON = gpu_available()
needs_gpu = pytest.mark.skipif(not HAS_GPU, reason=f"no GPU here: {GPU_REASON}")
PROGRAMS = ["psum", "fori_pipeline", "collective_matmul_scan", "tp_mlp_grad", "async_two_overlapping",
            "sendrecv_ring", "switch_axis_index"]


JAX_CPU_PROGRAMS = ["psum", "switch_axis_index", "async_two_overlapping", "sendrecv_pair",
                    "cond_axis_index_psum.buggy_deadlock"]


def _same(a: dict, b: dict) -> None:
    assert a.keys() == b.keys()
    for k in a:
        for x, y in zip(a[k], b[k]):
            np.testing.assert_allclose(np.asarray(x, np.float64), np.asarray(y, np.float64), rtol=1e-4, atol=1e-4)


@needs_gpu
@pytest.mark.parametrize("name", PROGRAMS)
def test_gpu_backend_matches_numpy(name):
    path = str(CORPUS / "real" / f"{name}.mlir")
    cpu = run_path(path).primary
    gpu = run_path(path, RunOptions(device="gpu")).primary
    assert gpu.outcome == cpu.outcome == "completed", gpu.message
    assert "gpu" in gpu.device or "cuda" in gpu.device
    _same(cpu.outputs, gpu.outputs)


@needs_gpu
def test_gpu_backend_reports_the_same_deadlock():
    path = str(CORPUS / "real" / "cond_axis_index_psum.buggy_deadlock.mlir")
    gpu = run_path(path, RunOptions(device="gpu")).primary
    assert gpu.outcome == "deadlock" and [b.process for b in gpu.blocked] == [(0, 0)]


def _gpu_count() -> int:
    if not HAS_GPU:
        return 0
    import jax

    return len(jax.devices("gpu"))


@pytest.mark.skipif(_gpu_count() < 8, reason=f"XLA on GPUs needs 8 GPUs for these 8-process programs "
                                             f"(found {_gpu_count()}; {GPU_REASON})")
@pytest.mark.parametrize("name", ["psum", "sendrecv_pair", "fori_pipeline"])
def test_xla_on_gpus_matches_the_interpreter(name):
    report = run_path(str(CORPUS / "real" / f"{name}.mlir"), RunOptions(engine="both", device="gpu"))
    assert report.reports["xla"].outcome == "completed", report.reports["xla"].message
    assert report.cross_check["status"] == "match", report.cross_check


@pytest.mark.skipif(_gpu_count() < 4, reason=f"the distributed engine on GPUs needs 4 GPUs for these 4-process "
                                             f"programs (found {_gpu_count()}; {GPU_REASON})")
def test_xla_distributed_on_gpus():
    """Two processes of two GPUs each (jax.distributed, NCCL): one program that
    completes, one that deadlocks with the right process blocked."""
    ok = run_path(str(CORPUS / "deadlock" / "permute_both_branches.mlir"),
                  RunOptions(engine="xla-distributed", device="gpu", num_processes=2, dist_stuck_s=5)).primary
    assert ok.outcome == "completed", (ok.message, ok.notes)
    hang = run_path(str(CORPUS / "deadlock" / "branch_on_partition_collective.mlir"),
                    RunOptions(engine="xla-distributed", device="gpu", num_processes=2, dist_stuck_s=5)).primary
    assert hang.outcome in ("deadlock", "aborted") and [b.process for b in hang.blocked] == [(0, 0)], hang.notes


def test_without_a_gpu_the_device_is_unsupported_not_a_crash():
    if HAS_GPU:
        pytest.skip("a GPU is present")
    r = run_path(str(CORPUS / "real" / "psum.mlir"), RunOptions(device="gpu")).primary
    assert r.outcome == "unsupported" and ("GPU" in r.message or "jax" in r.message)


@pytest.mark.skipif(not jax_available(), reason="jax is not installed")
def test_gpu_backend_code_path_on_jax_cpu():
    """The GPU backend's code (jax.numpy arrays committed to one device, .at[].set
    updates, x64) on the CPU platform gives the numpy backend's results."""
    script = f"""
import sys, numpy as np
sys.path.insert(0, {str(ROOT)!r})
from shlo_lint.checker.execute.run import RunOptions, run_path
for name in {JAX_CPU_PROGRAMS!r}:
    path = {str(CORPUS / "real")!r} + "/" + name + ".mlir"
    a = run_path(path).primary
    b = run_path(path, RunOptions(device="jax-cpu")).primary
    assert a.outcome == b.outcome, (name, a.outcome, b.outcome, b.message)
    assert b.device.startswith("jax (cpu"), b.device
    assert [x.process for x in a.blocked] == [x.process for x in b.blocked]
    for k in a.outputs:
        for x, y in zip(a.outputs[k], b.outputs[k]):
            np.testing.assert_allclose(np.asarray(x, np.float64), np.asarray(y, np.float64), rtol=1e-4, atol=1e-4)
print("ok")
"""
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300,
                          env={"JAX_PLATFORMS": "cpu", "PATH": "/usr/bin:/bin"})
    assert proc.returncode == 0 and "ok" in proc.stdout, proc.stderr[-3000:]


def test_xla_on_gpus_gets_the_cpu_runs_stuck_and_terminate_timeouts():
    """A hang on GPUs costs the same seconds as on CPU devices, not XLA:GPU's defaults
    (10/30 s, 20/40 s for a first collective call) or the 120 s watchdog; a caller's
    own value for one of these flags is replaced, its other flags kept."""
    from shlo_lint.checker.execute.xla.local import worker_env

    for warn, terminate in ((2, 10), (1, 3)):
        cpu = worker_env("cpu", 8, warn, terminate)["XLA_FLAGS"].split()
        gpu = worker_env("gpu", 8, warn, terminate)["XLA_FLAGS"].split()
        assert f"--xla_cpu_collective_call_warn_stuck_timeout_seconds={warn}" in cpu
        assert f"--xla_cpu_collective_call_terminate_timeout_seconds={terminate}" in cpu
        assert {f"--xla_gpu_executable_warn_stuck_timeout={warn}",
                f"--xla_gpu_executable_terminate_timeout={terminate}",
                f"--xla_gpu_first_collective_call_warn_stuck_timeout_seconds={warn}",
                f"--xla_gpu_first_collective_call_terminate_timeout_seconds={terminate}"} <= set(gpu)
    import os

    old = os.environ.get("XLA_FLAGS")
    os.environ["XLA_FLAGS"] = "--xla_gpu_executable_terminate_timeout=300 --xla_dump_to=/tmp/x"
    try:
        gpu = worker_env("gpu", 8, 2, 10)["XLA_FLAGS"].split()
    finally:
        if old is None:
            del os.environ["XLA_FLAGS"]
        else:
            os.environ["XLA_FLAGS"] = old
    assert "--xla_gpu_executable_terminate_timeout=10" in gpu and "--xla_dump_to=/tmp/x" in gpu
    assert not any(f.endswith("=300") for f in gpu)


@pytest.mark.skipif(not jax_available(), reason="jax is not installed")
def test_this_jaxlib_knows_the_gpu_timeout_flags():
    """XLA aborts at start-up on a flag it does not know ("Unknown flag in XLA_FLAGS"):
    the GPU flags' names are checked against the jaxlib here (on its CPU platform)."""
    from shlo_lint.checker.execute.xla.local import worker_env

    env = {**worker_env("gpu", 8, 2, 10), "JAX_PLATFORMS": "cpu"}
    proc = subprocess.run([sys.executable, "-c", "import jax.numpy as jnp; print(int(jnp.arange(4).sum()))"],
                          capture_output=True, text=True, timeout=300, env=env)
    assert proc.returncode == 0 and proc.stdout.strip() == "6", proc.stderr[-2000:]
