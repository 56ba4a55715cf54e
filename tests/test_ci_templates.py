"""The CI templates in ci/ as CI runs them: the shlo-lint command lines are taken
from the workflow files and run on a small repository; the SARIF they write must
be valid against the SARIF 2.1.0 schema and be the file the upload step names.

Also here: progress reporting, which CI logs must never see (stderr is not a
terminal there) and terminals do."""
from __future__ import annotations

import json
import os
import pty
import select
import shlex
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml

from conftest import CORPUS, ROOT, run_cli, sarif_schema_validator

GITHUB = ROOT / "ci" / "github" / "shlo-lint.yml"
GITLAB = ROOT / "ci" / "gitlab" / "shlo-lint.gitlab-ci.yml"
BUGGY = CORPUS / "real" / "sendrecv_pair.buggy_type_mismatch.mlir"
CLEAN = CORPUS / "real" / "sendrecv_pair.mlir"


def sarif_validator():
    return sarif_schema_validator()


def shlo_lint_commands(script: list[str]) -> list[list[str]]:
    """The `shlo-lint ...` lines of a job's script, as argv lists."""
    return [shlex.split(line, comments=True) for line in script if line.lstrip().startswith("shlo-lint ")]


def run_as_ci(argv: list[str], cwd: Path) -> subprocess.CompletedProcess:
    """Run a template's command line with this checkout's shlo-lint, stderr not a terminal."""
    assert argv[0] == "shlo-lint"
    return run_cli(*argv[1:], cwd=cwd)


@pytest.fixture
def repo(tmp_path) -> Path:
    """A user repository: one program with a finding, one clean, one in a dot-directory."""
    (tmp_path / "model").mkdir()
    shutil.copy(BUGGY, tmp_path / "model" / "step.mlir")
    shutil.copy(CLEAN, tmp_path / "model" / "ok.mlir")
    (tmp_path / ".venv").mkdir()
    shutil.copy(BUGGY, tmp_path / ".venv" / "vendored.mlir")  # never walked
    return tmp_path


def check_sarif(path: Path) -> dict:
    log = json.loads(path.read_text())
    sarif_validator().validate(log)
    (run,) = log["runs"]
    assert run["tool"]["driver"]["name"] == "shlo-lint"
    (result,) = run["results"]
    assert result["ruleId"] == "SHLO120" and result["level"] == "error"
    loc = result["locations"][0]["physicalLocation"]
    assert loc["artifactLocation"]["uri"] == "model/step.mlir" and loc["region"]["startLine"] == 7
    rules = {r["id"]: r for r in run["tool"]["driver"]["rules"]}
    assert rules["SHLO120"]["helpUri"]
    return log


# ----------------------------------------------------------------------------- GitHub Actions
def output_file(argv: list[str], fmt: str) -> str:
    """The file a `--output-format FORMAT:FILE` of the command line writes."""
    (path,) = [v.split(":", 1)[1] for flag, v in zip(argv, argv[1:])
               if flag in ("--output-format", "-f") and v.startswith(fmt + ":")]
    return path


def test_github_workflow_lints_once_uploads_valid_sarif_and_annotates(repo):
    wf = yaml.safe_load(GITHUB.read_text())
    assert wf["permissions"]["security-events"] == "write"
    (job,) = wf["jobs"].values()
    steps = job["steps"]
    upload = next(s for s in steps if s.get("uses", "").startswith("github/codeql-action/upload-sarif@"))
    assert "!cancelled()" in upload["if"]  # uploaded even when shlo-lint failed the step on findings
    (cmd,) = shlo_lint_commands([s["run"] for s in steps if "run" in s])  # the repository is linted once
    assert steps.index(upload) > next(i for i, s in enumerate(steps) if s.get("run", "").startswith("shlo-lint"))

    proc = run_as_ci(cmd, repo)
    assert proc.returncode == 1 and proc.stderr == ""  # findings fail the job
    out_file = output_file(cmd, "sarif")
    assert upload["with"]["sarif_file"] == out_file
    check_sarif(repo / out_file)
    # (`.` is walked as ./model/..., which the github format passes on as is)
    assert proc.stdout.replace("file=./", "file=").startswith("::error file=model/step.mlir,line=7,")
    (repo / "model" / "step.mlir").unlink()
    (repo / out_file).unlink()
    assert run_as_ci(cmd, repo).returncode == 0  # a clean tree passes, and still writes its SARIF
    assert json.loads((repo / out_file).read_text())["runs"][0]["results"] == []


# ----------------------------------------------------------------------------- GitLab CI
def test_gitlab_job_lints_once_writes_code_quality_and_junit_and_fails_on_findings(repo):
    (job,) = yaml.safe_load(GITLAB.read_text()).values()
    (cmd,) = shlo_lint_commands(job["script"])  # the repository is linted once
    proc = run_as_ci(cmd, repo)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    out_file = output_file(cmd, "gitlab")
    assert job["artifacts"]["reports"]["codequality"] == out_file and job["artifacts"]["when"] == "always"
    (issue,) = json.loads((repo / out_file).read_text())
    assert issue["location"] == {"path": "model/step.mlir", "lines": {"begin": 7}}
    assert issue["check_name"].startswith("SHLO120") and issue["severity"] == "major"
    junit_file = output_file(cmd, "junit")
    assert job["artifacts"]["reports"]["junit"] == junit_file
    assert 'failures="1"' in (repo / junit_file).read_text()
    assert proc.stdout.startswith("model/step.mlir:7:14: error[SHLO120]") and "Found 1 diagnostic" in proc.stdout
    (repo / "model" / "step.mlir").unlink()
    assert run_as_ci(cmd, repo).returncode == 0
    assert json.loads((repo / out_file).read_text()) == [] and 'failures="0"' in (repo / junit_file).read_text()


def test_several_output_formats_come_from_one_lint(repo, tmp_path):
    """`-f json:a.json -f sarif:b.sarif -f concise` writes what three runs with one
    format each write; a format without a file goes to -o or standard output, and two
    reports cannot share one."""
    one = run_cli("-f", f"json:{tmp_path / 'a.json'}", "-f", f"sarif:{tmp_path / 'b.sarif'}", "-f", "concise",
                  "model", cwd=repo)
    assert one.returncode == 1
    assert one.stdout == run_cli("-f", "concise", "model", cwd=repo).stdout
    for fmt, name in (("json", "a.json"), ("sarif", "b.sarif")):
        alone = run_cli("-f", fmt, "model", cwd=repo).stdout
        assert (tmp_path / name).read_text() == alone.removesuffix("\n") or (tmp_path / name).read_text() == alone
    run_cli("-f", "github", "-f", f"json:{tmp_path / 'c.json'}", "-o", str(tmp_path / "d.txt"), "model", cwd=repo)
    assert (tmp_path / "d.txt").read_text().startswith("::error ") and (tmp_path / "c.json").is_file()
    for args, words in ((["-f", "json", "-f", "github"], "both write to standard output"),
                        (["-f", "yaml:x"], "`yaml` is not one of"), (["-f", "json:"], "no file after")):
        proc = run_cli(*args, "model", cwd=repo)
        assert proc.returncode == 2 and words in proc.stderr, proc.stderr


@pytest.mark.parametrize("template", [GITHUB, GITLAB])
def test_templates_install_from_the_repository_not_an_index(template):
    text = template.read_text()
    assert "pip install shlo-lint" not in text  # no index has it
    assert "git+https://github.com/shlo-lint/shlo-lint" in text and "SHLO_LINT_SOURCE" in text


# ----------------------------------------------------------------------------- progress
def _many(tmp_path: Path, n: int = 40) -> Path:
    for i in range(n):
        shutil.copy(CLEAN, tmp_path / f"p{i:02}.mlir")
    return tmp_path


def test_no_progress_when_stderr_is_not_a_terminal(tmp_path):
    proc = run_cli(str(_many(tmp_path)))
    assert proc.returncode == 0 and proc.stderr == ""
    assert "[1/40]" not in proc.stdout


def on_a_terminal(*args: str, env: dict | None = None) -> tuple[int, str, str]:
    """Run `python -m shlo_lint ARGS` with stderr a pseudo-terminal: (exit code,
    stdout, what the terminal received)."""
    master, slave = pty.openpty()
    base = {k: v for k, v in os.environ.items() if k != "SHLO_LINT_PROGRESS"}
    proc = subprocess.Popen([sys.executable, "-m", "shlo_lint", *args], stdout=subprocess.PIPE,
                            stderr=slave, env={**base, "NO_COLOR": "1", **(env or {})})
    os.close(slave)
    err = b""
    deadline = time.monotonic() + 240
    while time.monotonic() < deadline:
        ready, _, _ = select.select([master], [], [], 0.5)
        if ready:
            try:
                chunk = os.read(master, 4096)
            except OSError:  # the child closed the terminal
                break
            if not chunk:
                break
            err += chunk
        elif proc.poll() is not None:
            break
    out = proc.stdout.read().decode()
    proc.wait(timeout=60)
    os.close(master)
    return proc.returncode, out, err.decode()


needs_pty = pytest.mark.skipif(not hasattr(pty, "openpty"), reason="needs a pseudo-terminal")


@needs_pty
def test_progress_on_a_terminal_is_drawn_on_stderr_and_erased(tmp_path):
    code, out, text = on_a_terminal(str(_many(tmp_path)))
    assert code == 0 and "All checks passed." in out and "shlo-lint:" not in out
    assert "shlo-lint: checking [1/40] " in text and "[40/40]" in text
    assert text.endswith("\r\x1b[K")  # erased before the report


DEADLOCK = CORPUS / "real" / "cond_axis_index_psum.buggy_deadlock.mlir"


@needs_pty
@pytest.mark.slow  # XLA and a jax.distributed job, each seconds long by design
@pytest.mark.parametrize("args, stage", [
    (["run", "--engine", "both", str(DEADLOCK)], "shlo-lint: compiling and running with XLA on 8 CPU devices ("),
    (["run", "--engine", "xla-distributed", "-n", "2", "--stuck-timeout", "2", str(DEADLOCK)],
     "shlo-lint: running 2 processes (jax.distributed, 8 devices) ("),
])
def test_a_long_run_says_what_it_is_doing_on_a_terminal_only(args, stage):
    """`run` with XLA waits seconds in a subprocess: a terminal sees the stage and
    its seconds, erased before the report; a pipe (CI) and SHLO_LINT_PROGRESS=0 see
    nothing."""
    pytest.importorskip("jax")
    code, out, text = on_a_terminal(*args)
    assert code == 1 and "deadlock" in out, out + text
    assert stage in text and text.endswith("\r\x1b[K") and "shlo-lint:" not in out, text
    assert "(1 s)" in text  # the seconds tick while the subprocess runs
    quiet = on_a_terminal(*args, env={"SHLO_LINT_PROGRESS": "0"})
    assert quiet[0] == 1 and quiet[2] == ""
    piped = run_cli(*args)
    assert piped.returncode == 1 and piped.stderr == ""


@needs_pty
def test_a_long_lint_of_one_file_says_what_it_is_doing(tmp_path):
    """One big file (no [n/total]): the engine's stage (parsing, with the file's size,
    or checking its ops), once it has lasted half a second. 70,000 constants of
    different types (5 MB): seconds of work, none of it a repeat the header cache saves."""
    import re

    body = "\n".join(f"    %v{i} = stablehlo.constant dense<{i}.0> : tensor<{i % 97 + 1}x{i // 97 + 1}xf32>"
                     for i in range(70_000))
    big = tmp_path / "big.mlir"
    big.write_text("module @big attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {\n"
                   f"  func.func public @main(%x: tensor<4xf32>) -> tensor<4xf32> {{\n{body}\n"
                   "    return %x : tensor<4xf32>\n  }\n}\n", encoding="utf-8")
    code, out, text = on_a_terminal(str(big))
    assert code == 0 and "All checks passed." in out, out
    assert re.search(r"shlo-lint: (parsing 5 MB|checking 70,003 ops) \(\d+ s\)", text), text
    assert text.endswith("\r\x1b[K") and "[1/1]" not in text
    piped = run_cli(str(big))
    assert piped.returncode == 0 and piped.stderr == ""
