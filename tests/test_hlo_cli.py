"""`shlo-lint` on HLO text as users have it: `compile().as_text()` files, `--xla_dump_to`
directories, stdin; the user's Python line in every output format; a bad file is a
syntax error at file:line:col and the run goes on; suppressions; no fixes; the rules
whose reading does not hold for HLO say so where they are registered."""
from __future__ import annotations

import json
import re
import shutil
from dataclasses import replace

from shlo_lint import lint_text
from shlo_lint.checker.lint import engine, registry
from shlo_lint.checker.lint.config import Config
from shlo_lint.checker.source.diagnostics import Edit, Fix

from conftest import CORPUS, ROOT, run_cli, sarif_schema_validator

FORI = CORPUS / "hlo" / "fori_trip_axis_index.buggy_deadlock.hlo"
PATTERNS = (CORPUS / "patterns.py").read_text(encoding="utf-8").splitlines()


def python_line_of_the_psum() -> tuple[int, int]:
    """Where b_fori_trip_axis_index writes its psum: (line, 1-based column)."""
    (n,) = [i for i, t in enumerate(PATTERNS, 1) if "lax.fori_loop(0, lax.axis_index(\"x\") + 1" in t]
    return n, PATTERNS[n - 1].index("lax.psum(") + 1


def test_text_json_and_sarif_name_the_python_line():
    line, col = python_line_of_the_psum()
    proc = run_cli("check", "--isolated", str(FORI), cwd=ROOT)
    assert proc.returncode == 1
    assert f"corpus/patterns.py:{line}:{col}: this op was written here" in proc.stdout
    proc = run_cli("check", "--isolated", "-f", "json", str(FORI), cwd=ROOT)
    (d,) = json.loads(proc.stdout)["diagnostics"]
    assert d["code"] == "SHLO501"
    assert {"path": "corpus/patterns.py", "line": line, "column": col} in \
        [{k: r.get(k) for k in ("path", "line", "column")} for r in d["related"]]
    proc = run_cli("check", "--isolated", "-f", "sarif", str(FORI), cwd=ROOT)
    log = json.loads(proc.stdout)
    sarif_schema_validator().validate(log)
    (result,) = log["runs"][0]["results"]
    regions = [(r["physicalLocation"]["artifactLocation"]["uri"], r["physicalLocation"]["region"].get("startLine"),
                r["physicalLocation"]["region"].get("startColumn")) for r in result["relatedLocations"]]
    assert ("corpus/patterns.py", line, col) in regions


def test_an_xla_dump_directory_is_walked_for_its_modules(tmp_path):
    """What --xla_dump_to writes: the before / after modules are read; buffer assignments and
    other side files are not HLO and are not read."""
    dump = tmp_path / "dump"
    shutil.copytree(CORPUS / "hlo" / "dumps" / "auto_tp_mlp", dump)
    (dump / "module_0000.jit__lambda.cpu_after_optimizations-buffer-assignment.txt").write_text("BufferAssignment:\n")
    (dump / "module_0000.jit__lambda.debug_options").write_text("xla_dump_to: x\n")
    (dump / "notes.txt").write_text("not a module\n")
    shutil.copy(CORPUS / "hlo" / "psum.hlo", dump / "psum.hlo")
    (dump / "psum.hlo.txt").write_text((CORPUS / "hlo" / "psum.hlo").read_text())
    proc = run_cli("check", "--isolated", "-f", "json", str(dump))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert json.loads(proc.stdout)["summary"]["files"] == 4  # before, after, *.hlo, *.hlo.txt


def test_compile_as_text_on_stdin():
    text = (CORPUS / "hlo" / "cond_axis_index_psum.buggy_deadlock.hlo").read_text()
    proc = run_cli("check", "--isolated", "-", input=text)
    assert proc.returncode == 1 and "<stdin>:41:37: error[SHLO501]" in proc.stdout


def test_a_bad_file_is_a_syntax_error_and_the_run_goes_on(tmp_path):
    bad = tmp_path / "bad.hlo"
    bad.write_text("HloModule m, num_partitions=2\n\nENTRY %main (a: f32[4]) -> f32[4] {\n"
                   "  %a = f32[4]{0} parameter(0)\n  ROOT %b = f32[4]{0} add(%a, %a\n}\n")
    proc = run_cli("check", "--isolated", "-f", "json", str(bad), str(FORI))
    assert proc.returncode == 2
    diags = json.loads(proc.stdout)["diagnostics"]
    syntax = [(d["line"], d["column"]) for d in diags if d["code"] == "SHLO001"]
    assert syntax and all(d["path"] == str(bad) for d in diags if d["code"] == "SHLO001")
    assert (6, 1) in syntax  # the `}` where `)` was expected
    assert any(d["code"] == "SHLO501" and d["path"].endswith(FORI.name) for d in diags)


def test_a_finding_on_hlo_is_suppressed_by_a_comment():
    """XLA's lexer skips `//` comments to the end of the line, so the directive is HLO too."""
    text = FORI.read_text()
    target = [t for t in text.splitlines() if "%psum.6 = " in t][0]
    indent = re.match(r"\s*", target).group()
    quiet = text.replace(target, f"{indent}// shlo-lint: ignore[SHLO501]\n{target}")
    assert not [d for d in lint_text(quiet, "q.hlo") if d.code == "SHLO501"]
    assert [d.code for d in lint_text(text, "q.hlo")] == ["SHLO501"]


def test_no_fix_is_offered_on_hlo(monkeypatch):
    """A fix is an edit of MLIR text: on HLO text the finding stays, its fix goes."""
    registry.load()

    def flag(op, ctx):
        yield ctx.warning(op, "flagged").with_fix(Fix.safe("rewrite", [Edit(op.name_span, "x")]))
    spec = replace(registry.get("SHLO201"), code="SHLO201", func=flag, ops=("stablehlo.all_reduce",))
    real = registry.rules_for_op
    monkeypatch.setattr(engine.registry, "rules_for_op",
                        lambda name: [spec] if name == "stablehlo.all_reduce" else real(name))
    hlo = [d for d in lint_text((CORPUS / "hlo" / "psum.hlo").read_text(), "p.hlo") if d.message.startswith("flagged")]
    mlir = [d for d in lint_text((CORPUS / "real" / "psum.mlir").read_text(), "p.mlir")
            if d.message.startswith("flagged")]
    assert hlo and all(d.fix is None for d in hlo)
    assert mlir and all(d.fix is not None for d in mlir)


def test_rules_whose_reading_does_not_hold_for_hlo_say_so_where_registered():
    registry.load()
    stablehlo_only = {r.code for r in registry.all_rules() if r.front_ends == ("stablehlo",)}
    assert stablehlo_only == {"SHLO150", "SHLO502", "SHLO631", "SHLO632", "SHLO633"}
    for code in stablehlo_only:
        assert "HLO" in registry.get(code).doc  # and why, in the rule's documentation
    # an HLO constant is XLA's literal syntax, not MLIR's: SHLO150 does not read it
    text = "HloModule c\nENTRY %e () -> f32[] {\n  ROOT %c = f32[] constant(0)\n}\n"
    assert not lint_text(text, "c.hlo", Config(select=("SHLO150",)))
    try:
        registry.rule("SHLO999", "nope", on="x", front_ends=("fortran",))
    except ValueError as e:
        assert "front_ends" in str(e)
    else:
        raise AssertionError("an unknown front end was accepted")
