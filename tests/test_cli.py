"""The `shlo-lint` command as users run it: a subprocess, real files, exit codes."""
from __future__ import annotations

import json
import shutil
import subprocess

import jsonschema
import pytest

from conftest import CORPUS, SHARED, run_cli, run_json

CLEAN = """module @m attributes {mhlo.num_partitions = 2 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<4xf32>) -> tensor<4xf32> {
    %0 = stablehlo.add %arg0, %arg0 : tensor<4xf32>
    return %0 : tensor<4xf32>
  }
}
"""
# A stale suppression is a finding of the engine itself (SHLO004, warning).
STALE = CLEAN.replace("    %0 = stablehlo.add", "    // shlo-lint: ignore[SHLO001]\n    %0 = stablehlo.add")


def test_console_script_is_installed():
    exe = shutil.which("shlo-lint")
    assert exe, "the shlo-lint console script is not on PATH"
    proc = subprocess.run([exe, "--version"], capture_output=True, text=True)
    assert proc.returncode == 0 and "shlo-lint" in proc.stdout


def test_clean_file_exits_0(write):
    proc = run_cli(str(write("ok.mlir", CLEAN)))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "All checks passed" in proc.stdout


def test_finding_exits_1_with_located_text_output(write):
    path = write("stale.mlir", STALE)
    proc = run_cli(str(path))
    assert proc.returncode == 1
    first = proc.stdout.splitlines()[0]
    assert first == f"{path}:3:5: warning[SHLO004] unused suppression: no SHLO001 diagnostic is reported here"
    assert "// shlo-lint: ignore[SHLO001]" in proc.stdout and "^" in proc.stdout


def test_fail_on_and_exit_zero(write):
    path = str(write("stale.mlir", STALE))
    assert run_cli("--fail-on", "error", path).returncode == 0
    assert run_cli("--exit-zero", path).returncode == 0


@pytest.mark.parametrize("name, data, expect", [
    ("truncated.mlir", CLEAN[: CLEAN.index("return")], "unexpected end of file"),
    ("braces.mlir", CLEAN + "}\n", "unbalanced '}'"),
    ("badtype.mlir", CLEAN.replace("tensor<4xf32> {", "tensor<4xf3q> {"), "expected"),
    ("bytecode.mlirbc", b"ML\xefR\x00\x01\x02garbage", "bytecode"),
    ("latin1.mlir", CLEAN.replace("@m", "@m_\xe9").encode("latin-1"), "UTF-8"),
    ("empty.mlir", "", "empty file"),
])
def test_malformed_input_is_one_located_syntax_error_and_exit_2(write, name, data, expect):
    bad = write(name, data)
    good = write("stale.mlir", STALE)
    code, out = run_json(str(bad), str(good))
    assert code == 2
    bad_diags = [d for d in out["diagnostics"] if d["path"] == str(bad)]
    assert len(bad_diags) == 1, bad_diags
    (d,) = bad_diags
    assert d["code"] == "SHLO001" and d["category"] == "syntax" and expect in d["message"]
    assert d["line"] >= 1 and d["column"] >= 1
    # the other file of the run was still checked
    assert [x["code"] for x in out["diagnostics"] if x["path"] == str(good)] == ["SHLO004"]


def test_malformed_input_never_prints_a_traceback(write):
    for i, junk in enumerate(["}}}}", "%0 = = =", '"unterminated', "module {\n  func.func @f(", "\x00\x01"]):
        proc = run_cli(str(write(f"junk{i}.mlir", junk)))
        assert proc.returncode == 2, (junk, proc.stdout, proc.stderr)
        assert "Traceback" not in proc.stderr + proc.stdout


def test_unreadable_path_exits_2_and_others_are_checked(write, tmp_path):
    good = write("stale.mlir", STALE)
    code, out = run_json(str(tmp_path / "missing.mlir"), str(good))
    assert code == 2
    codes = {(d["path"].rsplit("/", 1)[-1], d["code"]) for d in out["diagnostics"]}
    assert codes == {("missing.mlir", "SHLO002"), ("stale.mlir", "SHLO004")}


def test_bad_option_exits_2():
    assert run_cli("--output-format", "yaml", "x.mlir").returncode == 2
    assert run_cli("--select", "NOPE999", str(CORPUS / "real" / "psum.mlir")).returncode == 2


def test_stdin_with_filename():
    proc = run_cli("-", "--stdin-filename", "from_stdin.mlir", input=STALE)
    assert proc.returncode == 1
    assert proc.stdout.startswith("from_stdin.mlir:3:5: warning[SHLO004]")


def test_directories_are_walked_for_mlir_files_and_exclude_works(write, tmp_path):
    write("a/one.mlir", STALE)
    write("a/b/two.mlir", STALE)
    write("a/b/notes.txt", "not mlir")
    code, out = run_json(str(tmp_path / "a"))
    assert code == 1
    assert sorted(d["path"].rsplit("/", 1)[-1] for d in out["diagnostics"]) == ["one.mlir", "two.mlir"]
    code, out = run_json(str(tmp_path / "a"), "--config", str(write("cfg.toml", '[tool.shlo-lint]\nexclude = ["b"]\n')))
    assert [d["path"].rsplit("/", 1)[-1] for d in out["diagnostics"]] == ["one.mlir"]


@pytest.mark.parametrize("args, exit_code", [
    (["--ignore", "SHLO004"], 0), (["--ignore", "SHLO0"], 0), (["--ignore", "tool"], 0),
    (["--ignore", "unused-suppression"], 0), (["--select", "SHLO1"], 0), (["--select", "SHLO004"], 1),
    (["--select", "ALL", "--ignore", "SHLO004"], 0),
])
def test_select_and_ignore_by_code_prefix_category_and_name(write, args, exit_code):
    assert run_cli(*args, str(write("stale.mlir", STALE))).returncode == exit_code


def test_config_from_nearest_pyproject_and_flags_win(write, tmp_path):
    write("proj/pyproject.toml", '[project]\nname = "x"\n\n[tool.shlo-lint]\nignore = ["SHLO004"]\n')
    path = write("proj/src/stale.mlir", STALE)
    assert run_cli(str(path)).returncode == 0
    assert run_cli(str(path), cwd=tmp_path / "proj").returncode == 0
    assert run_cli("--isolated", str(path)).returncode == 1
    assert run_cli("--select", "SHLO004", str(path)).returncode == 0  # config ignore still applies
    assert run_cli("--config", str(write("other.toml", "[tool.shlo-lint]\n")), str(path)).returncode == 1


def test_bad_config_exits_2_with_a_message(write):
    write("proj/pyproject.toml", '[tool.shlo-lint]\nselectt = ["SHLO1"]\n')
    proc = run_cli(str(write("proj/ok.mlir", CLEAN)))
    assert proc.returncode == 2 and "unknown setting `selectt`" in proc.stderr


def test_suppression_comment_on_and_above_the_line(write):
    # An unused suppression can itself be suppressed file-wide.
    text = "// shlo-lint: ignore-file[SHLO004]\n" + STALE
    assert run_cli(str(write("s.mlir", text))).returncode == 0


def test_json_output_shape(write):
    code, out = run_json(str(write("stale.mlir", STALE)))
    assert code == 1 and set(out) >= {"version", "diagnostics", "summary"}
    (d,) = out["diagnostics"]
    assert {k: d[k] for k in ("code", "name", "category", "severity", "line", "column")} == {
        "code": "SHLO004", "name": "unused-suppression", "category": "tool", "severity": "warning",
        "line": 3, "column": 5}
    assert d["end_line"] == 3 and d["end_column"] > d["column"]


def test_sarif_output_validates_against_the_official_schema(write):
    proc = run_cli("--output-format", "sarif", str(write("stale.mlir", STALE)), str(CORPUS / "real" / "psum.mlir"))
    assert proc.returncode == 1
    log = json.loads(proc.stdout)
    schema = json.loads((SHARED / "schemas" / "sarif-schema-2.1.0.json").read_text())
    jsonschema.validators.validator_for(schema)(schema).validate(log)
    (result,) = log["runs"][0]["results"]
    assert result["ruleId"] == "SHLO004"
    assert result["locations"][0]["physicalLocation"]["region"]["startLine"] == 3


def test_github_annotations(write):
    proc = run_cli("--output-format", "github", str(write("stale.mlir", STALE)))
    assert proc.returncode == 1
    assert proc.stdout.startswith("::warning file=")
    assert ",line=3,col=5," in proc.stdout and "SHLO004" in proc.stdout


def test_output_file_and_statistics(write, tmp_path):
    out = tmp_path / "report.json"
    proc = run_cli("-f", "json", "-o", str(out), str(write("stale.mlir", STALE)))
    assert proc.returncode == 1 and json.loads(out.read_text())["diagnostics"][0]["code"] == "SHLO004"
    stats = run_cli("--statistics", str(write("stale.mlir", STALE)))
    assert "SHLO004" in stats.stdout and "unused-suppression" in stats.stdout


C2 = (CORPUS / "invalid" / "send_c2_duplicate_source.mlir").read_text()
SEND_LINE = '    %1 = "stablehlo.send"'
MULTILINE_SEND = C2.replace(
    SEND_LINE + '(%arg0, %0) <{',
    SEND_LINE + '(%arg0, %0) <{\n        ')


@pytest.mark.parametrize("text, exit_code", [
    (C2, 1),
    (C2.replace(SEND_LINE, "    // shlo-lint: ignore[SHLO102]\n" + SEND_LINE), 0),        # above the line
    (C2.replace(SEND_LINE, "    // shlo-lint: ignore[send-duplicate-source]\n" + SEND_LINE), 0),  # by name
    (C2.replace("(rows 0 and 1).", "").replace(" -> !stablehlo.token\n", " -> !stablehlo.token // shlo-lint: ignore[SHLO102]\n", 1), 0),
    (MULTILINE_SEND.replace(SEND_LINE, "    // shlo-lint: ignore[SHLO102]\n" + SEND_LINE), 0),  # covers the whole op
    (C2.replace(SEND_LINE, "    // shlo-lint: ignore[SHLO103]\n" + SEND_LINE), 1),        # wrong code: both reported
])
def test_suppressing_a_real_finding(write, text, exit_code):
    # (the send to process 2 is also never received: that deadlock is not this test's business)
    code, out = run_json(str(write("c2.mlir", text)), "--ignore", "deadlock")
    assert code == exit_code, out["diagnostics"]
    codes = sorted(d["code"] for d in out["diagnostics"])
    if exit_code == 0:
        assert codes == []
    elif "ignore[SHLO103]" in text:
        assert codes == ["SHLO004", "SHLO102"]


def test_option_flag_is_parsed_into_config_options():
    from shlo_lint.checker.cli import _parse_options

    assert _parse_options(("z3-timeout-ms=5000", "matching=xla", 'name="a b"', "flag=true")) == {
        "z3-timeout-ms": 5000, "matching": "xla", "name": "a b", "flag": True}
    assert run_cli("-O", "novalue", str(CORPUS / "real" / "psum.mlir")).returncode == 2
