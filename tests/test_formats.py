"""The formats people plug into other tools, run through the CLI: concise,
grouped, json-lines, gitlab (Code Quality), junit (read back by a JUnit reader),
SARIF as GitHub code scanning ingests it."""
from __future__ import annotations

import json
import shutil
import subprocess

import pytest
from junitparser import Failure, JUnitXml

from conftest import CORPUS, run_cli, sarif_schema_validator

RING = CORPUS / "deadlock" / "recv_before_send_ring.mlir"
CLEAN = CORPUS / "real" / "psum.mlir"
C2 = CORPUS / "invalid" / "send_c2_duplicate_source.mlir"


@pytest.fixture
def repo(tmp_path):
    """A git repository: model/ring.mlir (a deadlock), model/ok.mlir (clean), model/c2.mlir."""
    (tmp_path / "model").mkdir()
    shutil.copy(RING, tmp_path / "model" / "ring.mlir")
    shutil.copy(CLEAN, tmp_path / "model" / "ok.mlir")
    shutil.copy(C2, tmp_path / "model" / "c2.mlir")
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    return tmp_path


def test_concise_and_grouped(repo):
    proc = run_cli("-f", "concise", "model", cwd=repo)
    lines = proc.stdout.splitlines()
    assert proc.returncode == 1
    assert lines[0].startswith("model/c2.mlir:") and all(": error[SHLO" in x or ": warning[SHLO" in x
                                                          for x in lines[:-1])
    assert lines[-1].endswith("in 2 of 3 files checked.")
    proc = run_cli("-f", "grouped", "model", cwd=repo)
    out = proc.stdout.splitlines()
    assert "model/ring.mlir:" in out and out[out.index("model/ring.mlir:") + 1].startswith("  7:12 error[SHLO500]")


def test_json_lines_one_object_per_finding(repo):
    full = json.loads(run_cli("-f", "json", "model", cwd=repo).stdout)
    proc = run_cli("-f", "json-lines", "model", cwd=repo)
    objs = [json.loads(line) for line in proc.stdout.splitlines()]
    assert objs == full["diagnostics"] and len(objs) >= 2


def test_gitlab_code_quality(repo):
    proc = run_cli("-f", "gitlab", "model", cwd=repo)
    issues = json.loads(proc.stdout)
    assert proc.returncode == 1 and isinstance(issues, list) and issues
    for issue in issues:
        assert set(issue) == {"description", "check_name", "fingerprint", "severity", "location"}
        assert issue["severity"] in ("info", "minor", "major", "critical", "blocker")
        assert isinstance(issue["location"]["path"], str) and not issue["location"]["path"].startswith("/")
        assert isinstance(issue["location"]["lines"]["begin"], int) and issue["location"]["lines"]["begin"] >= 1
        assert issue["description"] and issue["check_name"].startswith("SHLO")
    assert len({i["fingerprint"] for i in issues}) == len(issues)
    ring = next(i for i in issues if i["location"]["path"] == "model/ring.mlir")
    assert ring["location"]["lines"]["begin"] == 7 and ring["severity"] == "major"
    again = json.loads(run_cli("-f", "gitlab", "model", cwd=repo).stdout)
    assert [i["fingerprint"] for i in again] == [i["fingerprint"] for i in issues]  # stable across runs


def test_junit_read_back_by_a_junit_reader(repo, tmp_path):
    out = tmp_path / "junit.xml"
    proc = run_cli("-f", "junit", "-o", str(out), "model", cwd=repo)
    assert proc.returncode == 1
    xml = JUnitXml.fromfile(str(out))
    suites = {s.name: s for s in xml}
    assert set(suites) == {"model/c2.mlir", "model/ok.mlir", "model/ring.mlir"}
    ok = list(suites["model/ok.mlir"])
    assert len(ok) == 1 and ok[0].is_passed
    (case,) = list(suites["model/ring.mlir"])
    assert not case.is_passed and case.name.startswith("SHLO500 deadlock-wait-cycle at 7:12")
    (failure,) = case.result
    assert isinstance(failure, Failure) and failure.type == "error" and "trace: process (0, 0)" in failure.text
    assert xml.tests == sum(s.tests for s in xml) and xml.failures == sum(s.failures for s in xml) >= 2


def test_sarif_for_github_code_scanning(repo):
    sub = repo / "model"
    proc = run_cli("-f", "sarif", "ring.mlir", "c2.mlir", cwd=sub)  # run below the repository root
    log = json.loads(proc.stdout)
    sarif_schema_validator().validate(log)
    (run,) = log["runs"]
    assert run["originalUriBaseIds"]["%SRCROOT%"]["uri"] == repo.resolve().as_uri() + "/"
    assert run["invocations"][0]["executionSuccessful"] is True
    for res in run["results"]:
        art = res["locations"][0]["physicalLocation"]["artifactLocation"]
        assert art["uriBaseId"] == "%SRCROOT%" and art["uri"].startswith("model/")
        assert "region" in res["locations"][0]["physicalLocation"]
        assert "primaryLocationLineHash" in res["partialFingerprints"]
        for i, rel in enumerate(res.get("relatedLocations", []), 1):
            assert f"]({rel['id']})" in res["message"]["text"] and rel["id"] == i
    ring = next(r for r in run["results"] if r["ruleId"] == "SHLO500")
    assert "[process (0, 3) would have to reach this send](2)" in ring["message"]["text"]
    for rule in run["tool"]["driver"]["rules"]:
        assert len(rule["fullDescription"]["text"]) <= 1000

    proc = run_cli("-f", "sarif", "--sarif-root", str(sub), "ring.mlir", cwd=sub)
    art = json.loads(proc.stdout)["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]
    assert art == {"uri": "ring.mlir", "uriBaseId": "%SRCROOT%"}


def test_sarif_says_the_run_failed_and_locates_an_unreadable_file(repo):
    (repo / "model" / "broken.mlir").write_bytes(b"\xff\xfe not utf-8")
    proc = run_cli("-f", "sarif", "model/broken.mlir", "model/gone.mlir", cwd=repo)
    assert proc.returncode == 2
    log = json.loads(proc.stdout)
    sarif_schema_validator().validate(log)
    run = log["runs"][0]
    assert run["invocations"][0]["executionSuccessful"] is False
    assert {r["ruleId"] for r in run["results"]} == {"SHLO001", "SHLO002"}
    for res in run["results"]:
        assert res["locations"][0]["physicalLocation"]["region"]["startLine"] >= 1


def test_the_library_diagnostic_has_the_line_and_column_json_reports():
    """shlo_lint.lint_text / lint_paths: Diagnostic.line, column, end_line, end_column
    (1-based, end exclusive) and its notes' are the JSON report's, for every finding of
    the invalid and deadlock corpora (one computation: source.diagnostics.positioned)."""
    import shlo_lint

    paths = sorted((CORPUS / "invalid").glob("*.mlir"))[:40] + sorted((CORPUS / "deadlock").glob("*.mlir"))[:20]
    _, doc = run_json_paths(paths)
    by_path: dict = {}
    for d in doc["diagnostics"]:
        by_path.setdefault(d["path"], []).append(d)
    checked = 0
    for result in shlo_lint.lint_paths([str(p) for p in paths], jobs=1):
        want = by_path.get(result.source.path, [])
        got = sorted(result.diagnostics, key=lambda d: (d.line or 0, d.column or 0, d.code, d.message))
        want = sorted(want, key=lambda d: (d["line"] or 0, d["column"] or 0, d["code"], d["message"]))
        assert len(got) == len(want), result.source.path
        for g, w in zip(got, want):
            assert (g.code, g.line, g.column, g.end_line, g.end_column) == (
                w["code"], w["line"], w["column"], w["end_line"], w["end_column"])
            assert [(n.location.line, n.location.column) for n in g.notes] == [
                (r["line"], r["column"]) for r in w["related"]]
            checked += 1
    assert checked > 50
    (d,) = shlo_lint.lint_text("module {\n  func.func @f() {\n    %0 = = =\n  }\n}\n", "p.mlir")
    assert (d.code, d.line, d.column) == ("SHLO001", 3, d.column) and d.column >= 1 and d.end_line == 3


def run_json_paths(paths):
    from conftest import run_json

    return run_json("-j", "1", *map(str, paths))
