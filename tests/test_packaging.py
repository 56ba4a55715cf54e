"""`python -m build` makes a wheel and an sdist that install into a fresh venv and
run: the grammar and every package ship, nothing is read from the source tree."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tarfile
import venv
import zipfile
from pathlib import Path

import pytest

from conftest import CORPUS, ROOT

pytestmark = pytest.mark.slow  # builds a wheel and an sdist, installs them in fresh venvs (`-m "not slow"` skips it)

pytest.importorskip("build")


def _run(*args, cwd=None, timeout=300, env=None) -> subprocess.CompletedProcess:
    proc = subprocess.run(list(map(str, args)), capture_output=True, text=True, cwd=cwd, timeout=timeout, env=env)
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
    # (PYTHONDONTWRITEBYTECODE, set in some shells, makes setuptools warn that it skips byte-compiling:
    # the log below is to hold what the project itself makes the build say)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    proc = _run(sys.executable, "-m", "build", "--no-isolation", "--sdist", "--wheel", "--outdir", out, src, env=env)
    (out / "build.log").write_text(proc.stdout + proc.stderr, encoding="utf-8")
    return out


def test_the_build_does_not_warn(dist):
    """`python -m build` says nothing deprecated about pyproject.toml (a `license` table:
    setuptools >= 77 wants an SPDX expression, PEP 639)."""
    log = (dist / "build.log").read_text(encoding="utf-8")
    warnings = [line for line in log.splitlines() if "warning" in line.lower() or "deprecat" in line.lower()]
    assert not warnings, "\n".join(warnings)
    import tomllib

    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert project["project"]["license"] == "Apache-2.0"
    assert "setuptools>=77" in project["build-system"]["requires"]


def test_virtual_environments_in_the_checkout_are_ignored():
    """README's `python -m venv .venv` and .ci/run's .venv-ci stay out of `git status`."""
    if not (ROOT / ".git").exists():
        pytest.skip("not a git checkout (an unpacked sdist)")
    for path in (".venv/bin/python", ".venv-ci/lib/site.py"):
        proc = subprocess.run(["git", "check-ignore", "--no-index", "-q", path], cwd=ROOT, timeout=60)
        assert proc.returncode == 0, f"{path} is not ignored by .gitignore"


def test_wheel_and_sdist_hold_the_package(dist):
    (wheel,) = dist.glob("*.whl")
    (sdist,) = dist.glob("*.tar.gz")
    names = zipfile.ZipFile(wheel).namelist()
    for needed in ("shlo_lint/__main__.py", "shlo_lint/checker/cli/commands.py", "shlo_lint/checker/report/html.py",
                   "shlo_lint/rules/deadlock.py"):
        assert needed in names
    assert any(n.startswith("shlo_lint/grammar/") and n.endswith(".lark") for n in names)
    assert not any(n.startswith("tests/") for n in names)
    with tarfile.open(sdist) as tar:
        members = tar.getnames()
    assert any(m.endswith("/pyproject.toml") for m in members) and any(m.endswith("/checker/cli/commands.py")
                                                                          for m in members)


def _install(artifact: Path, tmp_path: Path) -> Path:
    """A fresh venv with `artifact` installed; its python. It sees this venv's
    site-packages for the dependencies (no network needed); shlo-lint itself
    comes only from the artifact."""
    env_dir = tmp_path / "venv"
    venv.EnvBuilder(with_pip=False, system_site_packages=False).create(env_dir)
    py = env_dir / "bin" / "python"
    sites = [p for p in sys.path if p.endswith(("site-packages", "dist-packages"))]
    pth = next((env_dir / "lib").glob("python*/site-packages"))
    (pth / "deps.pth").write_text("".join(p + "\n" for p in sites))  # (their own .pth files are not run)
    _run(sys.executable, "-m", "pip", "--python", py, "install", "--no-deps", "--no-build-isolation", "--quiet",
         artifact, timeout=300)
    return py


@pytest.mark.parametrize("kind", ["whl", "tar.gz"])
def test_installs_and_runs_in_a_fresh_venv(dist, tmp_path, kind):
    (artifact,) = dist.glob(f"*.{kind}")
    py = _install(artifact, tmp_path)
    env_dir = py.parent.parent
    where = _run(py, "-c", "import shlo_lint, sys; print(shlo_lint.__file__)", cwd=tmp_path).stdout
    assert str(env_dir) in where, where  # the installed copy, not the source tree
    proc = subprocess.run([env_dir / "bin" / "shlo-lint", str(CORPUS / "deadlock" / "recv_before_send_ring.mlir")],
                          capture_output=True, text=True, cwd=tmp_path, timeout=120)
    assert proc.returncode == 1 and "error[SHLO500]" in proc.stdout, proc.stdout + proc.stderr


# The source folders and where the wheel puts them (pyproject.toml's package-dir).
FOLDERS = {"shlo_lint": "shlo_lint", "checker": "shlo_lint/checker", "rules": "shlo_lint/rules",
           "grammar": "shlo_lint/grammar"}


def _tree_modules() -> set[str]:
    """Every Python file of the product in the source tree, named as in the wheel."""
    return {f"{inside}/{path.relative_to(ROOT / top).as_posix()}"
            for top, inside in FOLDERS.items() for path in (ROOT / top).rglob("*.py")
            if "__pycache__" not in path.parts}


def test_the_wheel_holds_every_module_of_the_tree(dist):
    """Packages are found, not listed: a new folder under checker/ ships (a hand
    list of packages would leave it out of the wheel while the editable install,
    which maps only the four roots, still imported it)."""
    (wheel,) = dist.glob("*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    tree = _tree_modules()
    assert len(tree) > 100
    assert not tree - names, sorted(tree - names)
    assert not {n for n in names if n.endswith(".py")} - tree, "the wheel holds a module the tree does not"


def test_every_module_imports_from_the_installed_wheel(dist, tmp_path):
    """Import each module of the installed wheel (a relative import that reaches
    a module the wheel lacks, or data read from the source tree, fails here)."""
    (wheel,) = dist.glob("*.whl")
    modules = sorted(n[:-3].replace("/", ".").removesuffix(".__init__") for n in zipfile.ZipFile(wheel).namelist()
                     if n.endswith(".py") and n != "shlo_lint/__main__.py")  # (__main__ runs the command line)
    py = _install(wheel, tmp_path)
    script = ("import importlib, sys\n"
              "bad = []\n"
              "for name in sys.argv[1:]:\n"
              "    try:\n"
              "        module = importlib.import_module(name)\n"
              "        assert sys.prefix in module.__file__, module.__file__\n"
              "    except BaseException as e:\n"
              "        bad.append(f'{name}: {type(e).__name__}: {e}')\n"
              "print('\\n'.join(bad) or 'ok', len(sys.argv) - 1)\n")
    out = _run(py, "-c", script, *modules, cwd=tmp_path).stdout
    assert out.startswith("ok "), out
    assert int(out.split()[1]) == len(modules) > 100
    version = _run(py, "-m", "shlo_lint", "--version", cwd=tmp_path).stdout
    assert "shlo-lint" in version or "0." in version, version
