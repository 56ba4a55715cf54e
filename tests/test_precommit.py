"""The pre-commit hook as users meet it: the real `pre-commit` tool, a real git
repository whose .pre-commit-config.yaml names this checkout as the hook repo,
and `git commit` running the installed hook.

The hook repo is a snapshot of this working tree (tracked and untracked files,
not ignored ones) committed in a temporary repository, as `pre-commit try-repo`
does for uncommitted changes, so the hook definition and code under test are
the ones on disk. pre-commit builds the hook's environment (`pip install` of
the snapshot) once per test session, in a session-wide PRE_COMMIT_HOME.
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from conftest import CORPUS, ROOT

pytestmark = [pytest.mark.slow,  # the real pre-commit tool builds its hook environment (`-m "not slow"` skips it)
              pytest.mark.skipif(shutil.which("git") is None, reason="needs git")]

BUGGY = CORPUS / "real" / "sendrecv_pair.buggy_type_mismatch.mlir"
CLEAN = CORPUS / "real" / "sendrecv_pair.mlir"


def _env(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GIT_", "PRE_COMMIT"))}
    env.update(PRE_COMMIT_HOME=str(home), GIT_CONFIG_NOSYSTEM="1", GIT_CONFIG_GLOBAL=os.devnull,
               GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@example.com",
               GIT_COMMITTER_NAME="t", GIT_COMMITTER_EMAIL="t@example.com", NO_COLOR="1")
    return env


def _run(*args: str, cwd: Path, env: dict, check: bool = True) -> subprocess.CompletedProcess:
    proc = subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True, timeout=1200)
    if check and proc.returncode != 0:
        raise AssertionError(f"{' '.join(args)} failed ({proc.returncode}):\n{proc.stdout}\n{proc.stderr}")
    return proc


def _working_tree_files() -> list[str]:
    out = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                         cwd=ROOT, capture_output=True, text=True, check=True).stdout
    venvs = {p.parent.name for p in ROOT.glob("*/pyvenv.cfg")}  # e.g. .ci/run's .venv-ci, if not ignored
    return [f for f in out.split("\0") if f and f.split("/", 1)[0] not in venvs and (ROOT / f).is_file()]


@pytest.fixture(scope="session")
def hook_repo(tmp_path_factory) -> tuple[Path, str, dict]:
    """(snapshot repo, its commit, environment with a session-wide PRE_COMMIT_HOME)."""
    base = tmp_path_factory.mktemp("precommit")
    env = _env(base / "home")
    repo = base / "shlo-lint"
    for rel in _working_tree_files():
        (repo / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / rel, repo / rel)
    _run("git", "init", "-q", cwd=repo, env=env)
    _run("git", "add", "-A", cwd=repo, env=env)
    _run("git", "-c", "commit.gpgsign=false", "commit", "-q", "-m", "snapshot", cwd=repo, env=env)
    sha = _run("git", "rev-parse", "HEAD", cwd=repo, env=env).stdout.strip()
    return repo, sha, env


def test_hook_definition():
    (hook,) = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())
    assert hook["id"] == "shlo-lint" and hook["files"] == r"\.mlir$" and hook["language"] == "python"
    assert hook["entry"].split()[0] == "shlo-lint" and "--force-exclude" in hook["entry"].split()


def test_commit_with_a_finding_fails_and_a_clean_commit_passes(hook_repo, tmp_path):
    repo, sha, env = hook_repo
    user = tmp_path / "user"
    user.mkdir()
    (user / ".pre-commit-config.yaml").write_text(
        f"repos:\n  - repo: {repo}\n    rev: {sha}\n    hooks:\n      - id: shlo-lint\n")
    _run("git", "init", "-q", cwd=user, env=env)
    _run(sys.executable, "-m", "pre_commit", "install", cwd=user, env=env)
    commit = ("git", "-c", "commit.gpgsign=false", "commit", "-m", "add model")

    # A program with a real finding: the hook fails, so does the commit.
    (user / "model").mkdir()
    shutil.copy(BUGGY, user / "model" / "step.mlir")
    (user / "notes.txt").write_text("not StableHLO: the hook ignores it\n")
    _run("git", "add", ".", cwd=user, env=env)
    failed = _run(*commit, cwd=user, env=env, check=False)
    out = failed.stdout + failed.stderr
    assert failed.returncode != 0, out
    assert "shlo-lint" in out and "Failed" in out
    assert "model/step.mlir:7:14: error[SHLO120] recv: payload type (tensor<8xf32>) differs" in out
    assert _run("git", "rev-list", "--all", cwd=user, env=env).stdout == ""  # nothing was committed

    # The fixed program: the hook passes and the commit is made.
    shutil.copy(CLEAN, user / "model" / "step.mlir")
    _run("git", "add", ".", cwd=user, env=env)
    passed = _run(*commit, cwd=user, env=env, check=False)
    out = passed.stdout + passed.stderr
    assert passed.returncode == 0, out
    assert "shlo-lint" in out and "Passed" in out
    assert _run("git", "log", "--format=%s", cwd=user, env=env).stdout.strip() == "add model"

    # A generated file with a finding, excluded in pyproject.toml: pre-commit names it,
    # the hook's --force-exclude skips it.
    (user / "pyproject.toml").write_text('[tool.shlo-lint]\nexclude = ["generated"]\n')
    (user / "generated").mkdir()
    shutil.copy(BUGGY, user / "generated" / "dump.mlir")
    _run("git", "add", ".", cwd=user, env=env)
    excluded = _run("git", "-c", "commit.gpgsign=false", "commit", "-m", "dump", cwd=user, env=env, check=False)
    assert excluded.returncode == 0, excluded.stdout + excluded.stderr

    # A commit touching no .mlir file skips the hook.
    (user / "notes.txt").write_text("changed\n")
    _run("git", "add", ".", cwd=user, env=env)
    skipped = _run("git", "-c", "commit.gpgsign=false", "commit", "-m", "notes", cwd=user, env=env)
    assert "(no files to check)Skipped" in skipped.stdout + skipped.stderr


def test_repo_local_hook_from_the_readme(hook_repo, tmp_path):
    """The README's `repo: local` configuration, with shlo-lint installed (here: this
    venv, put on PATH as an activated venv would be)."""
    _, _, env = hook_repo
    env = {**env, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', os.environ['PATH'])}"}
    user = tmp_path / "user"
    user.mkdir()
    (user / ".pre-commit-config.yaml").write_text(
        "repos:\n  - repo: local\n    hooks:\n      - id: shlo-lint\n        name: shlo-lint\n"
        "        entry: shlo-lint check --force-exclude\n        language: system\n        files: \\.mlir$\n")
    _run("git", "init", "-q", cwd=user, env=env)
    _run(sys.executable, "-m", "pre_commit", "install", cwd=user, env=env)
    shutil.copy(BUGGY, user / "step.mlir")
    _run("git", "add", ".", cwd=user, env=env)
    failed = _run("git", "-c", "commit.gpgsign=false", "commit", "-m", "x", cwd=user, env=env, check=False)
    assert failed.returncode != 0 and "error[SHLO120]" in failed.stdout + failed.stderr
