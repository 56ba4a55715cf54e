"""The `shlo-lint` command as users run it: a subprocess, real files, exit codes."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from conftest import CORPUS, run_cli, sarif_schema_validator, run_json

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


def test_a_binary_file_shows_a_notice_not_a_line_of_replacement_characters(write, tmp_path):
    """An ELF-like binary: the text and HTML excerpts say the line is not text instead of
    printing U+FFFD for every byte; one bad byte in a text line is still shown, caret on it."""
    import random

    rng = random.Random(24)
    binary = write("a.out.mlir", b"\x7fELF\x02\x01\x01" + bytes(rng.randrange(256) for _ in range(400)))
    proc = run_cli(str(binary))
    assert proc.returncode == 2 and "error[SHLO001] invalid UTF-8" in proc.stdout, proc.stdout
    assert "\ufffd" not in proc.stdout
    assert "undecodable bytes or control characters)" in proc.stdout.splitlines()[2], proc.stdout
    page = tmp_path / "r.html"
    run_cli("-f", "html", "-o", str(page), str(binary))
    assert "\ufffd" not in page.read_text(encoding="utf-8") and "undecodable bytes" in page.read_text(encoding="utf-8")
    latin1 = write("latin1.mlir", CLEAN.replace("@m", "@m_\xe9").encode("latin-1"))
    lines = run_cli(str(latin1)).stdout.splitlines()
    (row,) = [i for i, ln in enumerate(lines) if "@m_\ufffd" in ln]
    assert lines[row + 1].rstrip().endswith("^") and "not shown" not in "\n".join(lines)


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
    sarif_schema_validator().validate(log)
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
    from shlo_lint.checker.cli.settings import parse_options

    assert parse_options(("z3-timeout-ms=5000", "matching=xla", 'name="a b"', "flag=true")) == {
        "z3-timeout-ms": 5000, "matching": "xla", "name": "a b", "flag": True}
    assert run_cli("-O", "novalue", str(CORPUS / "real" / "psum.mlir")).returncode == 2


# --------------------------------------------------------------------------- failing loudly
RING = CORPUS / "deadlock" / "recv_before_send_ring.mlir"


def _pyproject(tmp_path, body: str):
    (tmp_path / "pyproject.toml").write_text(body, encoding="utf-8")
    shutil.copy(RING, tmp_path / "ring.mlir")
    return tmp_path


@pytest.mark.parametrize("body, place, words", [
    ('[tool.shlo-lint]\nignore = ["deadlock"]\nignore = ["SHLO1"]\n', "3:19", ["key `ignore`", "invalid TOML"]),
    # tomllib says "at end of document": the end of the last line, not no place at all
    ('[project]\nname = "x"\n[tool.shlo-lint]\nignore = ["deadlock"\n', "4:21", ["invalid TOML: Unclosed array"]),
    ('[tool.shlo-lint]\nselect = ["ALL"]\nignor = ["deadlock"]\n', "3:1",
     ["unknown setting `ignor`", "did you mean `ignore`?"]),
    ('[tool.shlo-lint]\nnum-partitons = 8\n', "2:1", ["unknown setting `num-partitons`",
                                                       "did you mean `num-partitions`?"]),
    ('[tool.shlo-lint.options]\nz3-timeout-ms = "abc"\n', "2:1", ["z3-timeout-ms", "integer"]),
    ('[tool.shlo-lint.options]\ndeadlock-matching = "foo"\n', "2:1", ["deadlock-matching", '"xla" | "spec"']),
    ('[tool.shlo-lint]\nfail-on = "never"\n', "2:1", ["fail-on"]),
    # a selector that matches no rule: the setting that carries it, at the entry itself
    ('[tool.shlo-lint]\nselect = [\n  "SHLO1",\n  "SHL0120",\n]\n', "4:3",
     ["`select`: `SHL0120` matches no rule", "did you mean `SHLO120`?"]),
    ('[tool.shlo-lint.per-file-ignores]\n"gen/*" = ["dedlock"]\n', "2:12",
     ["per-file-ignores `gen/*`: `dedlock` matches no rule", "did you mean `deadlock`?"]),
])
def test_a_config_that_cannot_be_read_or_validated_is_exit_2_with_file_line_and_column(tmp_path, body, place, words):
    repo = _pyproject(tmp_path, body)
    proc = run_cli("ring.mlir", cwd=repo)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert f"pyproject.toml:{place}: " in proc.stderr, proc.stderr
    for w in words:
        assert w in proc.stderr, proc.stderr
    assert "(at line" not in proc.stderr and "end of document" not in proc.stderr  # said once, as the place
    assert "Traceback" not in proc.stderr and proc.stdout == ""


@pytest.mark.parametrize("flag", ["--select", "--extend-select", "--ignore", "--extend-ignore"])
def test_a_bad_selector_on_the_command_line_names_its_flag(flag):
    proc = run_cli(flag, "SHLO1," + "SHL0120", str(RING))
    assert proc.returncode == 2 and proc.stdout == ""
    assert f"Invalid value for '{flag}': `SHL0120` matches no rule" in proc.stderr, proc.stderr
    assert "did you mean `SHLO120`?" in proc.stderr


def test_a_bad_selector_in_the_config_is_not_blamed_on_a_flag(tmp_path):
    repo = _pyproject(tmp_path, '[tool.shlo-lint]\nignore = ["SHL0120"]\n')
    proc = run_cli("--select", "SHLO1", "ring.mlir", cwd=repo)
    assert proc.returncode == 2 and "--select" not in proc.stderr and "--ignore" not in proc.stderr
    assert "pyproject.toml:2:11: `ignore`: `SHL0120`" in proc.stderr, proc.stderr


@pytest.mark.parametrize("option, words", [
    ("deadlock-matching=foo", ["deadlock-matching", "'foo'"]),
    ("z3-timeout-ms=abc", ["z3-timeout-ms", "integer"]),
    ("z3-timeout-ms=-5", ["z3-timeout-ms", ">= 0"]),
    ("deadlock-matchin=spec", ["unknown option `deadlock-matchin`", "did you mean `deadlock-matching`"]),
    ("external-channels=1,x", ["external-channels"]),
])
def test_a_bad_option_value_or_unknown_key_is_exit_2_never_a_skipped_analysis(option, words):
    proc = run_cli("-O", option, str(RING))
    assert proc.returncode == 2, proc.stdout + proc.stderr
    for w in words:
        assert w in proc.stderr
    assert proc.stdout == ""


def test_good_option_values_are_converted_and_still_find_the_deadlock():
    code, out = run_json("-O", "z3-timeout-ms=4000", "-O", "deadlock-matching=SPEC", "-O", "external-channels=7,9",
                         str(RING))
    assert code == 1 and [d["code"] for d in out["diagnostics"]] == ["SHLO500"]
    from shlo_lint.checker.lint import options

    assert options.validate({"external-channels": "1,3", "z3-timeout-ms": "5000"}) == {
        "external-channels": [1, 3], "z3-timeout-ms": 5000}


def test_every_option_a_rule_reads_is_declared():
    import re

    from shlo_lint.checker.analysis import process_model as deadlock
    from shlo_lint.checker.lint import options

    used = set(deadlock.DEFAULTS)
    for path in (CORPUS.parent / "rules").glob("*.py"):
        used |= set(re.findall(r"ctx\.option\(\s*\"([a-z0-9-]+)\"", path.read_text()))
    assert used and used <= {s.key for s in options.declared()}, used - {s.key for s in options.declared()}


@pytest.mark.parametrize("make", ["empty-dir", "no-mlir"])
def test_no_files_to_check_is_exit_2_with_a_message(tmp_path, make):
    target = tmp_path / "d"
    target.mkdir()
    if make == "no-mlir":
        (target / "notes.txt").write_text("x")
    proc = run_cli(str(target))
    assert proc.returncode == 2 and "no files to check" in proc.stderr, proc.stdout + proc.stderr
    assert "All checks passed" not in proc.stdout
    proc = run_cli(str(tmp_path / "typo"))  # a path that does not exist: located SHLO002, exit 2
    assert proc.returncode == 2 and "SHLO002" in proc.stdout


def test_force_exclude_applies_exclude_to_files_named_on_the_command_line(tmp_path):
    _pyproject(tmp_path, '[tool.shlo-lint]\nexclude = ["generated"]\n')
    (tmp_path / "generated").mkdir()
    shutil.copy(RING, tmp_path / "generated" / "gen.mlir")
    named = ["generated/gen.mlir"]
    assert run_cli(*named, cwd=tmp_path).returncode == 1          # named: checked, as before
    proc = run_cli("--force-exclude", *named, cwd=tmp_path)      # pre-commit's way
    assert proc.returncode == 0, proc.stdout + proc.stderr
    proc = run_cli("--force-exclude", "generated/gen.mlir", "ring.mlir", cwd=tmp_path)
    assert proc.returncode == 1 and "generated/gen.mlir" not in proc.stdout and "ring.mlir" in proc.stdout
    (tmp_path / "pyproject.toml").write_text('[tool.shlo-lint]\nexclude = ["generated"]\nforce-exclude = true\n')
    assert run_cli(*named, cwd=tmp_path).returncode == 0


def test_per_file_ignores_and_extend_ignore(tmp_path):
    _pyproject(tmp_path, '[tool.shlo-lint.per-file-ignores]\n"legacy/*.mlir" = ["SHLO500"]\n')
    (tmp_path / "legacy").mkdir()
    shutil.copy(RING, tmp_path / "legacy" / "old.mlir")
    code, out = run_json(".", cwd=tmp_path)
    assert code == 1 and [d["path"] for d in out["diagnostics"]] == ["ring.mlir"]
    assert out["summary"]["files"] == 2
    code, out = run_json(".", "--extend-ignore", "deadlock", cwd=tmp_path)
    assert code == 0 and out["diagnostics"] == []
    (tmp_path / "pyproject.toml").write_text('[tool.shlo-lint.per-file-ignores]\n"legacy/*" = ["SHLO9999"]\n')
    proc = run_cli(".", cwd=tmp_path)
    assert proc.returncode == 2 and "SHLO9999" in proc.stderr


def _project(tmp_path) -> Path:
    """proj/pyproject.toml whose globs name model/... paths; a deadlock in each of
    model/gen (excluded), model/legacy (SHLO500 ignored there) and model/ok."""
    proj = tmp_path / "proj"
    for sub in ("gen", "legacy", "ok"):
        (proj / "model" / sub).mkdir(parents=True)
        shutil.copy(RING, proj / "model" / sub / "ring.mlir")
    (proj / "pyproject.toml").write_text('[tool.shlo-lint]\nexclude = ["model/gen"]\n\n'
                                         '[tool.shlo-lint.per-file-ignores]\n"model/legacy/*.mlir" = ["SHLO500"]\n')
    return proj


@pytest.mark.parametrize("where", ["top", "model", "model/ok"])
def test_exclude_and_per_file_ignores_are_relative_to_the_pyproject_not_the_current_directory(tmp_path, where):
    """As ruff resolves them: the same files are skipped and the same codes ignored
    whichever folder of the project `shlo-lint .` runs from."""
    proj = _project(tmp_path)
    cwd = proj if where == "top" else proj / where
    target = "model" if where == "top" else "."
    code, out = run_json(target, cwd=cwd)
    assert code == 1 and [(d["path"], d["code"]) for d in out["diagnostics"]] == [
        (str(Path(os.path.relpath(proj / "model" / "ok" / "ring.mlir", cwd))), "SHLO500")]
    if where == "model":
        assert out["summary"]["files"] == 2  # gen/ring.mlir was not even read
        # named files: checked unless --force-exclude (pre-commit names them from the repository's top,
        # an editor's "lint this file" from anywhere)
        named = ["gen/ring.mlir", "legacy/ring.mlir"]
        code, out = run_json(*named, cwd=cwd)
        assert [d["path"] for d in out["diagnostics"]] == ["gen/ring.mlir"]  # legacy's SHLO500 still ignored
        proc = run_cli("--force-exclude", *named, cwd=cwd)
        assert proc.returncode == 0, proc.stdout + proc.stderr


def test_globs_of_a_config_named_by_config_are_relative_to_the_current_directory(tmp_path):
    """ruff: "If a configuration file is passed directly via --config ... relative paths
    ... are resolved relative to the current working directory"."""
    proj = _project(tmp_path)
    code, out = run_json(".", "--config", str(proj / "pyproject.toml"), cwd=proj / "model")
    assert sorted(d["path"] for d in out["diagnostics"]) == ["gen/ring.mlir", "legacy/ring.mlir", "ok/ring.mlir"]
    code, out = run_json("model", "--config", str(proj / "pyproject.toml"), cwd=proj)
    assert [d["path"] for d in out["diagnostics"]] == ["model/ok/ring.mlir"]


def test_counts_name_the_files_checked(tmp_path):
    shutil.copy(RING, tmp_path / "ring.mlir")
    (tmp_path / "ok.mlir").write_text(CLEAN)
    (tmp_path / "ok2.mlir").write_text(CLEAN)
    proc = run_cli(str(tmp_path))
    assert proc.stdout.splitlines()[-1] == "Found 1 diagnostic (1 error) in 1 of 3 files checked."


def test_statistics_with_json(write):
    code, out = run_json("--statistics", str(write("stale.mlir", STALE)), str(RING))
    assert code == 1
    assert out["statistics"] == [{"code": "SHLO004", "name": "unused-suppression", "count": 1, "fixable": False},
                                 {"code": "SHLO500", "name": "deadlock-wait-cycle", "count": 1, "fixable": False}]


def _fixable() -> str:
    """A program with one safe fix (the first corpus file whose JSON says so)."""
    _, out = run_json(str(CORPUS / "invalid"))
    fixable = sorted({d["path"] for d in out["diagnostics"] if d["fix"] and d["fix"]["applicability"] == "safe"})
    assert fixable, "no corpus file has a safe fix"
    return open(fixable[0], encoding="utf-8").read()  # (absolute: the CLI was given an absolute path)


def test_fix_summary_and_fix_to_stdout(write):
    text = _fixable()
    before = run_json(str(write("a.mlir", text)))[1]["diagnostics"]
    proc = run_cli("--fix", str(write("b.mlir", text)))
    fixed_line = next(line for line in proc.stdout.splitlines() if line.startswith("Fixed "))
    n = int(fixed_line.split()[1])
    assert n >= 1 and fixed_line.endswith(f"{len(before) - n} remaining."), proc.stdout
    proc = run_cli("--fix", "-", input=text)
    assert proc.stdout != text and "Fixed " in proc.stderr
    assert "stablehlo" in proc.stdout and not proc.stdout.startswith("Fixed")


def test_diff_prints_only_the_diff_and_exits_1_when_it_would_change_something(write):
    """ruff's --diff: standard output is the unified diff and nothing else (no findings,
    no summary), the file is untouched, exit 1 when the fixes would change it, 0 when
    not; a file that cannot be read is exit 2 with its error on stderr."""
    from shlo_lint.checker.lint.fixes import apply_fixes, unified_diff
    from shlo_lint import lint_text

    text = _fixable()
    path = write("f.mlir", text)
    proc = run_cli("--diff", str(path))
    new_text, applied = apply_fixes(text, lint_text(text, str(path)))
    assert proc.stdout == unified_diff(str(path), text, new_text) and proc.stdout.startswith("--- ")
    assert proc.returncode == 1 and path.read_text(encoding="utf-8") == text
    assert proc.stderr == f"Would fix {len(applied)} diagnostic{'s' if len(applied) != 1 else ''}.\n"
    assert run_cli("--diff", "--exit-zero", str(path)).returncode == 0
    clean = run_cli("--diff", "-q", str(CORPUS / "real" / "psum.mlir"), str(write("stale.mlir", STALE)))
    assert clean.returncode == 0 and clean.stdout == "" and clean.stderr == ""  # (findings, none fixable)
    broken = run_cli("--diff", str(write("broken.mlir", "}}}")), str(path))
    assert broken.returncode == 2 and "broken.mlir:1:1: error[SHLO001]" in broken.stderr
    assert broken.stdout == proc.stdout  # the other file's diff is still printed


def test_a_1024_process_trace_is_one_class_and_a_cut_trace_says_how_many_more(monkeypatch):
    ring = CORPUS / "deadlock" / "grid_1024_ring_recv_first.mlir"
    code, out = run_json(str(ring))
    (d,) = out["diagnostics"]
    (t,) = d["trace"]
    assert t["process"] == [0, 0] and len(t["others"]) == 1023
    assert "trace: 1024 processes (0, p), p = 0\u20131023: blocked at" in run_cli("--no-source", str(ring)).stdout

    from shlo_lint.checker.lint.engine import lint_text
    from shlo_lint.rules import deadlock as rules_deadlock

    monkeypatch.setattr(rules_deadlock, "MAX_TRACES", 0)
    (diag,) = lint_text(ring.read_text(), str(ring))
    assert diag.trace == () and any(n.message == "and 1024 more processes not shown in the trace" for n in diag.notes)


def test_rule_all_rows_are_aligned_columns():
    """Code, name, category and severity each start at the same column on every row,
    however long the longest rule name, and the summary follows."""
    import re

    from shlo_lint.checker.lint import registry

    lines = run_cli("rule", "--all").stdout.splitlines()
    rules = registry.all_rules()
    assert len(lines) == len(rules) > 100
    starts = set()
    for line, r in zip(lines, rules):
        fields = list(re.finditer(r"\S+", line))[:4]
        assert [f.group() for f in fields] == [r.code, r.name, r.category, r.severity.value], line
        assert line.endswith("  " + r.summary), line
        starts.add((tuple(f.start() for f in fields), line.index(r.summary, fields[3].end())))
    assert len(starts) == 1, sorted(starts)[:3]


def test_options_command_lists_the_declared_options():
    proc = run_cli("options", "-f", "json")
    table = {o["key"]: o for o in json.loads(proc.stdout)}
    assert table["deadlock-matching"]["choices"] == ["xla", "spec"] and table["z3-timeout-ms"]["default"] == 5000
    assert "SHLO500" in table["deadlock-matching"]["rules"] and table["external-channels"]["default"] == []
    assert "z3-timeout-ms" in run_cli("options").stdout


@pytest.mark.parametrize("args", [
    ["rule", "SHLO120"], ["rule", "--all"], ["options"], ["check", "--output-format", "json", str(CORPUS / "real")],
    ["check", "--statistics", str(CORPUS / "invalid")], ["run", str(CORPUS / "execute" / "checks.buggy_expect.mlir")],
])
def test_a_closed_stdout_is_a_quiet_exit_not_an_internal_error(args):
    """`shlo-lint rule SHLO120 | head -2`: the reader went away; that is not our bug.
    The pipe's read end is closed before the child starts, so every write fails."""
    import os
    import sys

    read, write = os.pipe()
    os.close(read)
    try:
        proc = subprocess.run([sys.executable, "-m", "shlo_lint", *args], stdout=write, stderr=subprocess.PIPE,
                              text=True, timeout=120)
    finally:
        os.close(write)
    assert proc.stderr == ""
    assert proc.returncode == 141  # 128 + SIGPIPE, as a shell reports a tool killed by it
