"""`python -m build` makes a wheel and an sdist that install into a fresh venv and
run: the grammar and every package ship, nothing is read from the source tree."""
from __future__ import annotations

import shutil
import subprocess
import sys
import tarfile
import venv
import zipfile
from pathlib import Path

import pytest

from conftest import CORPUS, ROOT

pytest.importorskip("build")


def _run(*args, cwd=None, timeout=300) -> subprocess.CompletedProcess:
    proc = subprocess.run(list(map(str, args)), capture_output=True, text=True, cwd=cwd, timeout=timeout)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    return proc


@pytest.fixture(scope="module")
def dist(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("dist")
    # A copy of the tree: setuptools' build/ directory of an earlier build must not
    # leak stale modules into this one, and the checkout stays untouched.
    src = tmp_path_factory.mktemp("src") / "shlo-lint"
    shutil.copytree(ROOT, src, ignore=shutil.ignore_patterns(
        ".git", "build", "dist", "*.egg-info", "__pycache__", ".venv*", "big", ".pytest_cache", ".hypothesis"))
    # --no-isolation: the build backend (setuptools) of this environment; no download
    _run(sys.executable, "-m", "build", "--no-isolation", "--sdist", "--wheel", "--outdir", out, src)
    return out


def test_wheel_and_sdist_hold_the_package(dist):
    (wheel,) = dist.glob("*.whl")
    (sdist,) = dist.glob("*.tar.gz")
    names = zipfile.ZipFile(wheel).namelist()
    for needed in ("shlo_lint/__main__.py", "shlo_lint/checker/cli.py", "shlo_lint/checker/report/html.py",
                   "shlo_lint/rules/deadlock.py"):
        assert needed in names
    assert any(n.startswith("shlo_lint/grammar/") and n.endswith(".lark") for n in names)
    assert not any(n.startswith("tests/") for n in names)
    with tarfile.open(sdist) as tar:
        members = tar.getnames()
    assert any(m.endswith("/pyproject.toml") for m in members) and any(m.endswith("/checker/cli.py")
                                                                          for m in members)


@pytest.mark.parametrize("kind", ["whl", "tar.gz"])
def test_installs_and_runs_in_a_fresh_venv(dist, tmp_path, kind):
    (artifact,) = dist.glob(f"*.{kind}")
    env_dir = tmp_path / "venv"
    # the fresh venv sees this one's site-packages for the dependencies (no network
    # needed); shlo-lint itself comes only from the artifact
    venv.EnvBuilder(with_pip=False, system_site_packages=False).create(env_dir)
    py = env_dir / "bin" / "python"
    sites = [p for p in sys.path if p.endswith(("site-packages", "dist-packages"))]
    pth = next((env_dir / "lib").glob("python*/site-packages"))
    (pth / "deps.pth").write_text("".join(p + "\n" for p in sites))  # (their own .pth files are not run)
    _run(sys.executable, "-m", "pip", "--python", py, "install", "--no-deps", "--no-build-isolation", "--quiet",
         artifact, timeout=300)
    where = _run(py, "-c", "import shlo_lint, sys; print(shlo_lint.__file__)", cwd=tmp_path).stdout
    assert str(env_dir) in where, where  # the installed copy, not the source tree
    proc = subprocess.run([env_dir / "bin" / "shlo-lint", str(CORPUS / "deadlock" / "recv_before_send_ring.mlir")],
                          capture_output=True, text=True, cwd=tmp_path, timeout=120)
    assert proc.returncode == 1 and "error[SHLO500]" in proc.stdout, proc.stdout + proc.stderr
