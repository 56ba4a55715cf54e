"""An engine that was asked for and cannot run is exit 2 with the reason, and its
hint names an install that works (shlo-lint is not on PyPI).

jax is installed where the suite runs, so "no jax" is made in a subprocess whose
`import jax` fails (sys.modules["jax"] = None, what Python does for a blocked import)."""
from __future__ import annotations

import os
import subprocess
import sys

import pytest

from shlo_lint.checker.execute.availability import gpu_available, install_hint, unavailable

from conftest import CORPUS

WITHOUT_JAX = ("import sys\n"
               "sys.modules['jax'] = sys.modules['jaxlib'] = None  # `import jax` raises ImportError\n"
               "from shlo_lint.checker.cli.commands import main\n"
               "main()\n")

PSUM = str(CORPUS / "real" / "psum.mlir")
DEADLOCK = str(CORPUS / "real" / "cond_axis_index_psum.buggy_deadlock.mlir")


def without_jax(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", WITHOUT_JAX, *args], capture_output=True, text=True,
                          timeout=300, env={**os.environ, "NO_COLOR": "1"})


def test_the_blocked_import_leaves_the_interpreter_running():
    """The harness itself: jax cannot be imported, the interpreter runs as usual."""
    proc = without_jax("run", PSUM)
    assert proc.returncode == 0 and "completed [interp" in proc.stdout, proc.stdout + proc.stderr
    probe = subprocess.run([sys.executable, "-c", WITHOUT_JAX.split("from shlo_lint")[0] + "import jax\n"],
                           capture_output=True, text=True, timeout=120)
    assert probe.returncode == 1 and "import of jax halted" in probe.stderr, probe.stderr


@pytest.mark.parametrize("args, who", [
    (["run", "--engine", "both", PSUM], "--engine both"),
    (["run", "--engine", "xla", PSUM], "the XLA engine"),
    (["run", "--engine", "xla-distributed", "-n", "2", PSUM], "the distributed XLA engine"),
    (["check", "--confirm", "--confirm-engine", "xla", DEADLOCK], "--confirm-engine xla"),
    (["check", "--confirm", "--confirm-engine", "both", DEADLOCK], "--confirm-engine both"),
])
def test_an_engine_that_needs_jax_without_jax_is_exit_2_with_a_working_install(args, who):
    proc = without_jax(*args)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert who in proc.stderr and "needs jax" in proc.stderr, proc.stderr
    assert "pip install '.[jax]'" in proc.stderr, proc.stderr
    assert 'pip install "shlo-lint[jax] @ git+https://github.com/shlo-lint/shlo-lint"' in proc.stderr
    assert "pip install 'shlo-lint[jax]'" not in proc.stderr  # not on PyPI: that install fails
    assert "skipped" not in proc.stdout + proc.stderr
    assert "Traceback" not in proc.stderr


def test_the_interpreter_alone_needs_no_jax():
    assert unavailable("interp") is None


@pytest.mark.skipif(gpu_available()[0], reason="a GPU is present: --device gpu can run here")
@pytest.mark.parametrize("engine", ["interp", "xla"])
def test_device_gpu_without_a_gpu_is_exit_2_with_the_reason(engine):
    from conftest import run_cli

    proc = run_cli("run", "--engine", engine, "--device", "gpu", PSUM)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert proc.stderr.startswith("shlo-lint: error: --device gpu: ") and gpu_available()[1] in proc.stderr


def test_one_hint_names_both_working_installs():
    assert install_hint("gpu") == ("pip install '.[gpu]' in a clone of shlo-lint, or "
                                   'pip install "shlo-lint[gpu] @ git+https://github.com/shlo-lint/shlo-lint"')
