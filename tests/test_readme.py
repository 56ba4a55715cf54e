"""README.md's two commands, as a newcomer copies them: the one that installs the
tool and runs it on a bundled example, the one that installs what the tests need
and runs them. They are read from README.md (never copied here), and run verbatim
in a fresh virtual environment in a copy of this checkout (the README's clone).
.ci/run runs the README's test command, and so does CI."""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import venv
from pathlib import Path

import pytest

from conftest import ROOT, run_cli

README = ROOT / "README.md"


def _try_it() -> str:
    text = README.read_text(encoding="utf-8")
    start = text.index("## Try it")
    return text[start:text.index("\n## ", start + 1)]


def _sh_block(word: str) -> str:
    """The one ```sh block of "Try it" that holds `word`."""
    (block,) = [b for b in re.findall(r"```sh\n(.*?)```", _try_it(), re.S) if word in b]
    return block.strip()


EXAMPLE = _sh_block("shlo-lint corpus/")
TESTS = _sh_block("python -m pytest")


def _documented_output() -> str:
    """The plain ``` block right after the example command: what it prints."""
    section = _try_it()
    after = section[section.index("```", section.index(EXAMPLE)) + 3:]  # past the command's block
    return re.search(r"\n```\n(.*?)```", after, re.S).group(1)


def test_the_two_commands_are_one_line_each_and_ci_runs_the_test_command():
    for command in (EXAMPLE, TESTS):
        assert "\n" not in command and " && " in command, command  # one line to copy: install && run
    assert TESTS.split(" && ")[1] == "python -m pytest -q"  # the whole suite, no selection
    ci = [line for line in (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
          if line.strip() and not line.lstrip().startswith("#")]
    assert ci[-1] == TESTS


def test_the_example_prints_the_documented_finding():
    """The example's shlo-lint command, with this checkout's shlo-lint, prints the
    README's output exactly."""
    install, run = EXAMPLE.split(" && ")
    assert install.startswith("pip install ") and run.startswith("shlo-lint ")
    proc = run_cli(*run.split()[1:], cwd=ROOT)
    assert proc.returncode == 1 and proc.stdout == _documented_output(), proc.stdout


# ----------------------------------------------------------------------------- a fresh venv
def _checkout_copy(tmp_path: Path) -> Path:
    """The README's `git clone ... && cd shlo-lint`: this checkout's files, nothing built."""
    clone = tmp_path / "shlo-lint"
    shutil.copytree(ROOT, clone, ignore=shutil.ignore_patterns(
        ".git", "build", "dist", "*.egg-info", "__pycache__", ".venv*", "big", "many", ".pytest_cache",
        ".hypothesis", "fuzz_out"))
    return clone


def _activated(env_dir: Path) -> dict:
    """The environment `. .venv/bin/activate` gives: its bin/ first on PATH, no
    PYTHONPATH or another venv leaking in."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV", "PYTHONHOME")}
    env["VIRTUAL_ENV"] = str(env_dir)
    env["PATH"] = f"{env_dir / 'bin'}{os.pathsep}{env.get('PATH', '')}"
    env["NO_COLOR"] = "1"
    return env


def _sh(command: str, cwd: Path, env: dict, timeout: int = 1500) -> subprocess.CompletedProcess:
    return subprocess.run(["bash", "-c", command], cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=timeout)


NARROW = """func.func public @main() -> tensor<2xf32> {
  %c = stablehlo.constant dense<[0.3, -2.7]> : tensor<2xf32>
  %f = stablehlo.convert %c : (tensor<2xf32>) -> tensor<2xf8E4M3FN>
  %r = stablehlo.convert %f : (tensor<2xf8E4M3FN>) -> tensor<2xf32>
  return %r : tensor<2xf32>
}
"""


@pytest.mark.slow  # two installs from the package index into fresh venvs (minutes; needs the network)
def test_the_readme_commands_work_verbatim_in_a_fresh_venv(tmp_path):
    clone = _checkout_copy(tmp_path)
    env_dir = clone / ".venv"
    venv.EnvBuilder(with_pip=True).create(env_dir)
    env = _activated(env_dir)

    example = _sh(EXAMPLE, clone, env)
    assert example.returncode == 1, example.stdout[-3000:] + example.stderr[-3000:]  # 1: the finding
    assert example.stdout.endswith(_documented_output()), example.stdout[-3000:]
    # a plain install: no jax, and still the narrow float types run (ml_dtypes comes with it)
    assert _sh("python -c 'import jax'", clone, env).returncode != 0
    (tmp_path / "narrow.mlir").write_text(NARROW, encoding="utf-8")
    narrow = _sh(f"shlo-lint run -f json {tmp_path / 'narrow.mlir'}", clone, env)
    assert narrow.returncode == 0 and '"dtype": "float32"' in narrow.stdout, narrow.stdout + narrow.stderr

    # The test command, verbatim; PYTEST_ADDOPTS picks two test files (the whole suite
    # is what .ci/run runs with this same line; here it would run itself).
    env["PYTEST_ADDOPTS"] = "-p no:cacheprovider tests/test_execute_narrow_floats.py tests/test_readme.py -m 'not slow'"
    tests = _sh(TESTS, clone, env)
    assert tests.returncode == 0, tests.stdout[-3000:] + tests.stderr[-3000:]
    assert re.search(r"\b4 passed\b", tests.stdout), tests.stdout[-2000:]
    assert _sh("python -c 'import jax, pytest'", clone, env).returncode == 0  # what the tests need came with it
