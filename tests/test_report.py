"""Reporters: text layout, JSON shape, SARIF against the official schema, GitHub
escaping. Diagnostics are built by hand; no parser or rule is involved."""
from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest

from conftest import sarif_schema_validator
from shlo_lint.checker import report
from shlo_lint.checker.source.diagnostics import (Diagnostic, Edit, Fix, Location, Note, ProcessTrace, Severity,
                                                  TraceStep)
from shlo_lint.checker.lint.registry import RuleSpec
from shlo_lint.checker.report import github, json_, sarif, text
from shlo_lint.checker.source.text import SourceFile, Span

REPORT_DIR = Path(report.__file__).parent

# --------------------------------------------------------------------------- fixtures

PROG = "\n".join([
    "func.func @main(%x: tensor<2xf32>, %tok: !stablehlo.token) {",       # 1
    "  // ok",                                                           # 2
    '  %a = "stablehlo.send"(%x, %tok) {source_target_pairs = dense<[[0,1]]>}',           # 3
    '  %t = "stablehlo.send"(%x, %tok) {source_target_pairs = dense<[[0,1],[0,2]]>}',     # 4
    '\t%r = "stablehlo.recv"(%tok) // tab',                                # 5
    '  %s = "stablehlo.custom_call"() {name = "é中文"} : () -> tensor<f32>',  # 6
    '    "stablehlo.recv"(%tok)',                                          # 7
    "}",                                                                  # 8
]) + "\n"


PAIR_COL = PROG.splitlines()[3].index(",[0,2]") + 1  # 1-based column of the second pair's comma


def at(src: SourceFile, line: int, col: int, length: int) -> Span:
    start = src.offset(line, col)
    return Span(start, start + length)


@pytest.fixture
def src() -> SourceFile:
    return SourceFile("prog.mlir", PROG)


def send_duplicate_source():
    """Checks that no process is a source twice in `source_target_pairs`.

    ## Why is this bad?
    A process sending twice on one channel leaves a recv unmatched.
    """


def recv_deadlock():
    """Reports programs whose processes can wait on each other forever."""


RULES = {
    "SHLO103": RuleSpec(code="SHLO103", name="send-duplicate-source", category="constraint",
                        severity=Severity.ERROR, ops=("stablehlo.send",), spec="send C2",
                        func=send_duplicate_source),
    "SHLO501": RuleSpec(code="SHLO501", name="recv-deadlock", category="deadlock", severity=Severity.ERROR,
                        ops=(), spec=None, func=recv_deadlock),
}


def rules(code: str) -> RuleSpec | None:
    return RULES.get(code)


def dup_source(src: SourceFile, **kw) -> Diagnostic:
    return Diagnostic(
        "SHLO103", "send-duplicate-source", "constraint", Severity.ERROR,
        "send: source 0 appears twice in source_target_pairs (send C2)",
        Location("prog.mlir", at(src, 4, 8, 16)),
        notes=(Note(Location("prog.mlir", at(src, 3, 3, 2)), "first used here"),
               Note(Location("model.py", line=42, column=7), "this send was written here")),
        help="each process may send at most once per channel", **kw)


def deadlock(src: SourceFile) -> Diagnostic:
    recv5 = Location("prog.mlir", at(src, 5, 7, 16))
    recv7 = Location("prog.mlir", at(src, 7, 5, 16))
    send3 = Location("prog.mlir", at(src, 3, 8, 16))
    return Diagnostic(
        "SHLO501", "recv-deadlock", "deadlock", Severity.ERROR,
        "processes (0, 2) and (0, 3) wait on each other forever", recv7,
        trace=(ProcessTrace((0, 2), (TraceStep(send3, "stablehlo.send to process (0, 1)"),
                                     TraceStep(recv5, "stablehlo.recv", blocked=True)),
                            "waits for a send from process (0, 3) on channel 2"),
               ProcessTrace((0, 3), (TraceStep(recv7, "stablehlo.recv", blocked=True),),
                            "waits for a send from process (0, 2) on channel 1")))


def python_loc() -> Diagnostic:
    return Diagnostic("SHLO900", "python-source-problem", "tool", Severity.WARNING,
                      "loc() names a line past the end of the file", Location("model.py", line=42, column=7))


def whole_file(path: str = "prog.mlir") -> Diagnostic:
    return Diagnostic("SHLO001", "file-empty", "syntax", Severity.INFO, "file has no module", Location(path))


def with_fix(src: SourceFile, applicability: str = "unsafe") -> Diagnostic:
    pair = at(src, 4, PAIR_COL, 6)
    assert src.snippet(pair) == ",[0,2]"
    return dup_source(src).with_fix(Fix("Remove pair 1", (Edit.delete(pair),), applicability))


# --------------------------------------------------------------------------- text


def test_text_example_layout(src):
    d = dup_source(src).with_trace([ProcessTrace(
        (0, 3), (TraceStep(Location("prog.mlir", at(src, 7, 5, 16)), "stablehlo.recv", blocked=True),),
        "waits for a send from process (0, 2) on channel 1")])
    assert text.render([d], {"prog.mlir": src}, rules) == (
        "prog.mlir:4:8: error[SHLO103] send: source 0 appears twice in source_target_pairs (send C2)\n"
        "  |\n"
        '4 |   %t = "stablehlo.send"(%x, %tok) {source_target_pairs = dense<[[0,1],[0,2]]>}\n'
        "  |        ^^^^^^^^^^^^^^^^\n"
        "  = note: prog.mlir:3:3: first used here\n"
        "  = note: model.py:42:7: this send was written here\n"
        "  = help: each process may send at most once per channel\n"
        "  = trace: process (0, 3): blocked at prog.mlir:7:5 stablehlo.recv"
        " \u2014 waits for a send from process (0, 2) on channel 1\n"
        "\n"
        "note: processes are written (replica, partition)\n"  # once, for every finding that names processes
    )


def test_text_two_digit_gutter_fix_and_summary():
    lines = [f"// {i}" for i in range(1, 15)]
    lines[13] = '  %t = "stablehlo.send"(%x, %tok) {source_target_pairs = dense<[[0,1],[0,2]]>}'
    big = SourceFile("prog.mlir", "\n".join(lines) + "\n")
    d = dup_source(big).with_fix(Fix.unsafe("Remove pair 1", [Edit.delete(at(big, 14, PAIR_COL, 6))]))
    d = Diagnostic(d.code, d.name, d.category, d.severity, d.message, Location("prog.mlir", at(big, 14, 8, 16)),
                   notes=(Note(Location("prog.mlir", at(big, 12, 3, 2)), "first used here"),), help=d.help, fix=d.fix)
    out = text.render([d, whole_file("b.mlir"), python_loc()], {"prog.mlir": big}, rules, summary={})
    assert out == (
        "b.mlir: info[SHLO001] file has no module\n"
        "\n"
        "model.py:42:7: warning[SHLO900] loc() names a line past the end of the file\n"
        "\n"
        "prog.mlir:14:8: error[SHLO103] send: source 0 appears twice in source_target_pairs (send C2)\n"
        "   |\n"
        '14 |   %t = "stablehlo.send"(%x, %tok) {source_target_pairs = dense<[[0,1],[0,2]]>}\n'
        "   |        ^^^^^^^^^^^^^^^^\n"
        "   = note: prog.mlir:12:3: first used here\n"
        "   = help: each process may send at most once per channel\n"
        "   = fix: Remove pair 1 (unsafe)\n"
        "\n"
        "Found 3 diagnostics (1 error, 1 warning, 1 info) in 3 files.\n"
        "(1 hidden fix can be enabled with the `--unsafe-fixes` option.)\n"
    )


def test_text_multi_process_trace_block(src):
    out = text.render([deadlock(src)], {"prog.mlir": src}, rules, show_source=False)
    assert out == (
        "prog.mlir:7:5: error[SHLO501] processes (0, 2) and (0, 3) wait on each other forever\n"
        "  = trace: process (0, 2): blocked at prog.mlir:5:7 stablehlo.recv"
        " \u2014 waits for a send from process (0, 3) on channel 2\n"
        "           prog.mlir:3:8 stablehlo.send to process (0, 1)\n"
        "         > prog.mlir:5:7 stablehlo.recv\n"
        "  = trace: process (0, 3): blocked at prog.mlir:7:5 stablehlo.recv"
        " \u2014 waits for a send from process (0, 2) on channel 1\n"
        "note: processes are written (replica, partition)\n"
    )


def test_text_tab_expands_and_caret_follows(src):
    d = dup_source(src)
    d = Diagnostic(d.code, d.name, d.category, d.severity, "recv here", Location("prog.mlir", at(src, 5, 7, 16)))
    out = text.render([d], {"prog.mlir": src}, rules).splitlines()
    assert out[0] == "prog.mlir:5:7: error[SHLO103] recv here"
    assert out[2] == '5 |     %r = "stablehlo.recv"(%tok) // tab'
    assert out[3] == "  |          ^^^^^^^^^^^^^^^^"


def test_text_non_ascii_columns_are_characters_and_wide_chars_take_two_cells(src):
    line = src.line_text(6)
    col = line.index("中文") + 1
    after = line.index("}") + 1  # the caret under `}` sits after two wide characters
    d = Diagnostic("SHLO103", "x", "constraint", Severity.ERROR, "here",
                   Location("prog.mlir", at(src, 6, col, 2)))
    d2 = Diagnostic("SHLO103", "x", "constraint", Severity.ERROR, "brace",
                    Location("prog.mlir", at(src, 6, after, 1)))
    out = text.render([d, d2], {"prog.mlir": src}, rules).splitlines()
    assert out[0] == f"prog.mlir:6:{col}: error[SHLO103] here"
    assert out[3] == "  | " + " " * (col - 1) + "^^^^"
    assert out[8] == "  | " + " " * (after - 1 + 2) + "^"


def test_text_multiline_span_underlines_to_end_of_first_line(src):
    start = src.offset(3, 35)
    d = Diagnostic("SHLO103", "x", "constraint", Severity.ERROR, "m",
                   Location("prog.mlir", Span(start, src.offset(4, 5))))
    out = text.render([d], {"prog.mlir": src}, rules).splitlines()
    assert out[3] == "  | " + " " * 34 + "^" * (len(src.line_text(3)) - 34)


def test_text_empty_span_and_end_of_line_get_one_caret(src):
    eol = src.offset(2, len(src.line_text(2)) + 1)
    for span in (Span(src.offset(2, 3), src.offset(2, 3)), Span(eol, eol + 1)):
        d = Diagnostic("SHLO103", "x", "constraint", Severity.ERROR, "m", Location("prog.mlir", span))
        carets = text.render([d], {"prog.mlir": src}, rules).splitlines()[3]
        assert carets.count("^") == 1


def test_text_location_without_span_renders_header_only(src):
    out = text.render([python_loc(), whole_file()], {"prog.mlir": src}, rules)
    assert out == ("model.py:42:7: warning[SHLO900] loc() names a line past the end of the file\n"
                   "\n"
                   "prog.mlir: info[SHLO001] file has no module\n")


def test_text_span_in_unknown_source_falls_back_to_header():
    d = Diagnostic("SHLO103", "x", "constraint", Severity.ERROR, "m", Location("gone.mlir", Span(3, 5)))
    assert text.render([d], {}, rules) == "gone.mlir: error[SHLO103] m\n"


def test_text_long_line_is_elided_around_the_caret():
    line = "x" * 300 + "TARGET" + "y" * 300
    s = SourceFile("long.mlir", line + "\n")
    d = Diagnostic("SHLO103", "x", "constraint", Severity.ERROR, "m", Location("long.mlir", Span(300, 306)))
    out = text.render([d], {"long.mlir": s}, rules, max_width=80).splitlines()
    shown, carets = out[2][4:], out[3][4:]
    assert shown.startswith("...") and shown.endswith("...") and len(shown) <= 80
    assert shown[carets.index("^"):carets.index("^") + 6] == "TARGET"
    assert carets.strip() == "^^^^^^"


def test_text_color_is_opt_in(src):
    plain = text.render([dup_source(src)], {"prog.mlir": src}, rules)
    colored = text.render([dup_source(src)], {"prog.mlir": src}, rules, color=True)
    assert "\x1b[" not in plain
    assert "\x1b[1;31merror[SHLO103]\x1b[0m" in colored
    assert "\x1b" not in colored.replace("\x1b[", "")


def test_text_summary_lines(src):
    assert text.render([], {}, rules, summary={}) == "All checks passed.\n"
    assert text.render([], {}, rules) == ""
    assert text.render([], {}, rules, summary={"fixed": 2}) == "Fixed 2 diagnostics, 0 remaining.\nAll checks passed.\n"
    ds = [dup_source(src), deadlock(src), python_loc()]
    last = text.render(ds, {"prog.mlir": src}, rules, summary={}).splitlines()[-1]
    assert last == "Found 3 diagnostics (2 errors, 1 warning) in 2 files."
    # with the number of files checked (the CLI always passes it), that number is reported
    last = text.render(ds, {"prog.mlir": src}, rules, summary={"files": 7}).splitlines()[-1]
    assert last == "Found 3 diagnostics (2 errors, 1 warning) in 2 of 7 files checked."
    out = text.render(ds[:1], {"prog.mlir": src}, rules, summary={"files": 1, "fixed": 3})
    assert out.splitlines()[-2:] == ["Fixed 3 diagnostics, 1 remaining.",
                                     "Found 1 diagnostic (1 error) in 1 of 1 file checked."]


def test_text_statistics(src):
    ds = [dup_source(src), with_fix(src, "safe"), deadlock(src)]
    out = text.render(ds, {"prog.mlir": src}, rules, statistics=True, summary={})
    assert out == (
        "2  SHLO103  [*] send-duplicate-source\n"
        "1  SHLO501      recv-deadlock\n"
        "\n"
        "Found 3 diagnostics (3 errors) in 1 file.\n"
        "[*] 1 fixable with the `--fix` option.\n"
    )


# --------------------------------------------------------------------------- json


def test_json_structure_positions_and_order(src):
    ds = [with_fix(src), deadlock(src), python_loc(), whole_file()]
    doc = json.loads(json_.render(ds, {"prog.mlir": src}, rules, summary={"files": 2}))
    assert list(doc) == ["version", "diagnostics", "summary"]
    assert isinstance(doc["version"], str) and doc["version"]
    assert [(d["path"], d["line"], d["code"]) for d in doc["diagnostics"]] == [
        ("model.py", 42, "SHLO900"), ("prog.mlir", None, "SHLO001"),
        ("prog.mlir", 4, "SHLO103"), ("prog.mlir", 7, "SHLO501")]
    loc_only, file_only, dup, dl = doc["diagnostics"]
    assert list(dup) == ["code", "name", "category", "severity", "message", "path", "line", "column",
                         "end_line", "end_column", "related", "fix", "trace", "help", "url"]
    assert (dup["line"], dup["column"], dup["end_line"], dup["end_column"]) == (4, 8, 4, 24)
    assert dup["severity"] == "error" and dup["category"] == "constraint"
    assert dup["related"] == [
        {"path": "prog.mlir", "line": 3, "column": 3, "end_line": 3, "end_column": 5, "message": "first used here"},
        {"path": "model.py", "line": 42, "column": 7, "end_line": None, "end_column": None,
         "message": "this send was written here"}]
    assert dup["fix"] == {"title": "Remove pair 1", "applicability": "unsafe",
                          "edits": [{"line": 4, "column": PAIR_COL, "end_line": 4, "end_column": PAIR_COL + 6,
                                     "text": ""}]}
    assert dup["trace"] is None
    assert dup["help"] == "each process may send at most once per channel"
    assert dup["url"] == RULES["SHLO103"].help_uri
    assert (loc_only["line"], loc_only["column"], loc_only["end_line"]) == (42, 7, None)
    assert loc_only["url"] is None and loc_only["fix"] is None
    assert (file_only["line"], file_only["column"], file_only["severity"]) == (None, None, "info")
    assert dl["trace"] == [
        {"process": [0, 2], "others": [], "waits_for": "waits for a send from process (0, 3) on channel 2", "steps": [
            {"path": "prog.mlir", "line": 3, "column": 8, "message": "stablehlo.send to process (0, 1)",
             "blocked": False},
            {"path": "prog.mlir", "line": 5, "column": 7, "message": "stablehlo.recv", "blocked": True}]},
        {"process": [0, 3], "others": [], "waits_for": "waits for a send from process (0, 2) on channel 1", "steps": [
            {"path": "prog.mlir", "line": 7, "column": 5, "message": "stablehlo.recv", "blocked": True}]}]
    assert doc["summary"]["diagnostics"] == 4 and doc["summary"]["errors"] == 2
    assert doc["summary"]["files"] == 2 and doc["summary"]["unsafe_fixable"] == 1


def test_json_non_ascii_kept_and_columns_are_characters(src):
    col = src.line_text(6).index("中") + 1
    d = Diagnostic("SHLO103", "x", "constraint", Severity.ERROR, "bad name “中”",
                   Location("prog.mlir", at(src, 6, col, 1)))
    out = json_.render([d], {"prog.mlir": src}, rules)
    assert "“中”" in out
    got = json.loads(out)["diagnostics"][0]
    assert (got["column"], got["end_column"]) == (col, col + 1)


# --------------------------------------------------------------------------- sarif


@pytest.fixture(scope="module")
def validator():
    return sarif_schema_validator()


def sarif_doc(validator, diagnostics, sources, **opts) -> dict:
    doc = json.loads(sarif.render(diagnostics, sources, rules, **opts))
    errors = sorted(validator.iter_errors(doc), key=lambda e: list(e.path))
    assert not errors, "\n".join(f"{list(e.path)}: {e.message}" for e in errors)
    return doc


def test_sarif_empty_run_validates(validator):
    doc = sarif_doc(validator, [], {})
    assert doc["version"] == "2.1.0"
    (run,) = doc["runs"]
    assert run["results"] == []
    assert run["tool"]["driver"]["name"] == "shlo-lint"
    assert run["invocations"] == [{"executionSuccessful": True}]
    assert run["columnKind"] == "unicodeCodePoints"


def test_sarif_rules_results_and_related_locations(validator, src):
    ds = [dup_source(src), python_loc(), whole_file()]
    run = sarif_doc(validator, ds, {"prog.mlir": src})["runs"][0]
    descriptors = run["tool"]["driver"]["rules"]
    assert [r["id"] for r in descriptors] == ["SHLO001", "SHLO103", "SHLO900"]
    r103 = descriptors[1]
    assert r103["name"] == "send-duplicate-source"
    assert r103["shortDescription"]["text"] == "Checks that no process is a source twice in `source_target_pairs`."
    assert r103["fullDescription"]["text"].startswith(r103["shortDescription"]["text"])
    assert "## Why is this bad?" not in r103["fullDescription"]["markdown"]
    assert r103["help"]["markdown"] == RULES["SHLO103"].doc
    assert r103["helpUri"] == RULES["SHLO103"].help_uri
    assert r103["defaultConfiguration"]["level"] == "error"
    assert r103["properties"]["category"] == "constraint"
    assert descriptors[0]["defaultConfiguration"]["level"] == "note"  # unknown code: from the diagnostic

    by_rule = {r["ruleId"]: r for r in run["results"]}
    for res in run["results"]:
        assert descriptors[res["ruleIndex"]]["id"] == res["ruleId"]
    res = by_rule["SHLO103"]
    assert res["level"] == "error"
    assert res["locations"][0]["physicalLocation"] == {
        "artifactLocation": {"uri": "prog.mlir"},
        "region": {"startLine": 4, "startColumn": 8, "endLine": 4, "endColumn": 24}}
    rel = res["relatedLocations"]
    assert [r["id"] for r in rel] == [1, 2]
    assert rel[0]["message"]["text"] == "first used here"
    assert rel[0]["physicalLocation"]["region"] == {"startLine": 3, "startColumn": 3, "endLine": 3, "endColumn": 5}
    assert rel[1]["physicalLocation"] == {"artifactLocation": {"uri": "model.py"},
                                          "region": {"startLine": 42, "startColumn": 7}}
    assert by_rule["SHLO900"]["level"] == "warning"
    assert by_rule["SHLO001"]["level"] == "note"
    # code scanning needs a region on every result: a whole-file problem shows at line 1
    assert by_rule["SHLO001"]["locations"][0]["physicalLocation"] == {"artifactLocation": {"uri": "prog.mlir"},
                                                                      "region": {"startLine": 1}}
    # related locations are linked from the message text (GitHub shows them only so)
    assert res["message"]["text"] == (
        f"{sarif.escape_text(ds[0].message)}. Related: [first used here](1), "
        f"[{sarif.escape_text(ds[0].notes[1].message)}](2).")
    assert res["partialFingerprints"]["primaryLocationLineHash"].endswith(":1")


def test_sarif_full_description_fits_github_for_every_rule(validator):
    from shlo_lint.checker.lint import registry

    for spec in registry.all_rules():
        d = Diagnostic(spec.code, spec.name, spec.category, spec.severity, "m", Location("prog.mlir"))
        doc = json.loads(sarif.render([d], {}, registry.get))
        validator.validate(doc)
        (desc,) = doc["runs"][0]["tool"]["driver"]["rules"]
        assert 0 < len(desc["fullDescription"]["text"]) <= 1000, spec.code
        if spec.doc:
            assert desc["help"]["markdown"] == spec.doc


def test_sarif_link_text_escapes_brackets(validator, src):
    d = dup_source(src)
    d = Diagnostic(d.code, d.name, d.category, d.severity, "deadlock [spec matching]", d.location, d.notes[:1])
    res = sarif_doc(validator, [d], {"prog.mlir": src})["runs"][0]["results"][0]
    assert res["message"]["text"] == "deadlock \\[spec matching\\]. Related: [first used here](1)."


def test_sarif_fix_validates_and_maps_edits(validator, src):
    d = with_fix(src).with_fix(Fix.safe("Rewrite", [Edit.delete(at(src, 4, PAIR_COL, 6)),
                                                    Edit.insert(src.offset(2, 1), "// x\n")]))
    res = sarif_doc(validator, [d], {"prog.mlir": src})["runs"][0]["results"][0]
    (fix,) = res["fixes"]
    assert fix["description"]["text"] == "Rewrite"
    (change,) = fix["artifactChanges"]
    assert change["artifactLocation"]["uri"] == "prog.mlir"
    assert change["replacements"] == [
        {"deletedRegion": {"startLine": 2, "startColumn": 1, "endLine": 2, "endColumn": 1},
         "insertedContent": {"text": "// x\n"}},
        {"deletedRegion": {"startLine": 4, "startColumn": PAIR_COL, "endLine": 4, "endColumn": PAIR_COL + 6},
         "insertedContent": {"text": ""}}]


def test_sarif_trace_has_one_thread_flow_per_process(validator, src):
    res = sarif_doc(validator, [deadlock(src)], {"prog.mlir": src})["runs"][0]["results"][0]
    (flow,) = res["codeFlows"]
    threads = flow["threadFlows"]
    assert [t["id"] for t in threads] == ["process (0, 2)", "process (0, 3)"]
    assert threads[0]["message"]["text"].startswith("process (0, 2): waits for a send")
    first, blocked = threads[0]["locations"]
    assert "kinds" not in first and first["location"]["message"]["text"] == "stablehlo.send to process (0, 1)"
    assert blocked["kinds"] == ["blocked"] and blocked["importance"] == "essential"
    assert blocked["location"]["physicalLocation"]["region"]["startLine"] == 5
    assert len(threads[1]["locations"]) == 1


def test_sarif_trace_process_without_steps_still_validates(validator, src):
    d = deadlock(src).with_trace([ProcessTrace((1, 0), (), "never started")])
    res = sarif_doc(validator, [d], {"prog.mlir": src})["runs"][0]["results"][0]
    (thread,) = res["codeFlows"][0]["threadFlows"]
    assert thread["locations"][0]["location"]["message"]["text"] == "never started"


def test_sarif_fingerprint_ignores_line_moves_and_counts_repeats(validator, src):
    moved = SourceFile("prog.mlir", "// a new first line\n" + PROG)
    fp = lambda s, d: sarif_doc(validator, [d], {"prog.mlir": s})["runs"][0]["results"][0]["partialFingerprints"]
    d_old = dup_source(src)
    d_new = Diagnostic(d_old.code, d_old.name, d_old.category, d_old.severity, d_old.message,
                       Location("prog.mlir", at(moved, 5, 8, 16)))
    assert fp(src, d_old) == fp(moved, d_new)
    other = Diagnostic(d_old.code, d_old.name, d_old.category, d_old.severity, "another message",
                       d_old.location)
    assert fp(src, d_old) != fp(src, other)
    twice = sarif_doc(validator, [d_old, d_old], {"prog.mlir": src})["runs"][0]["results"]
    keys = [r["partialFingerprints"]["shloLint/v1"] for r in twice]
    assert keys[0] != keys[1] and keys[0].split(":")[0] == keys[1].split(":")[0]


def test_sarif_uris_relative_and_root(validator, src, tmp_path):
    absolute = str(tmp_path / "sub dir" / "prog.mlir")
    d = Diagnostic("SHLO001", "file-empty", "syntax", Severity.INFO, "m", Location(absolute))
    run = sarif_doc(validator, [d], {}, root=str(tmp_path))["runs"][0]
    loc = run["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]
    assert loc == {"uri": "sub%20dir/prog.mlir", "uriBaseId": "%SRCROOT%"}
    assert run["originalUriBaseIds"]["%SRCROOT%"]["uri"].startswith("file://")
    run = sarif_doc(validator, [d], {}, execution_successful=False)["runs"][0]
    assert run["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"].startswith("file:///")
    assert run["invocations"] == [{"executionSuccessful": False}]


def test_sarif_everything_together_validates(validator, src):
    ds = [with_fix(src), deadlock(src), python_loc(), whole_file(), whole_file("other.mlir")]
    run = sarif_doc(validator, ds, {"prog.mlir": src}, summary={"files": 2})["runs"][0]
    assert len(run["results"]) == 5


def test_sarif_serializer_drops_none_and_defaults():
    import sarif_om as om

    assert sarif.to_json(om.Region(start_line=3)) == {"startLine": 3}
    assert sarif.to_json(om.Location(id=-1)) == {}
    assert sarif.to_json(om.Result(message=om.Message(text="m"), level="warning")) == {
        "message": {"text": "m"}, "level": "warning"}


# --------------------------------------------------------------------------- github


def test_github_command(src):
    out = github.render([dup_source(src)], {"prog.mlir": src}, rules)
    assert out == (
        "::error file=prog.mlir,line=4,col=8,endLine=4,endColumn=24,title=SHLO103 send-duplicate-source::"
        "send: source 0 appears twice in source_target_pairs (send C2)"
        "%0Anote: prog.mlir:3:3: first used here"
        "%0Anote: model.py:42:7: this send was written here"
        "%0Ahelp: each process may send at most once per channel\n")


def test_github_levels_and_positionless(src):
    out = github.render([python_loc(), whole_file()], {"prog.mlir": src}, rules).splitlines()
    assert out == [
        "::warning file=model.py,line=42,col=7,title=SHLO900 python-source-problem::"
        "loc() names a line past the end of the file",
        "::notice file=prog.mlir,title=SHLO001 file-empty::file has no module",
    ]


def test_github_escaping():
    assert github.escape_data("100% done\r\nnext: a,b") == "100%25 done%0D%0Anext: a,b"
    assert github.escape_property("dir,x/a:b%c\n") == "dir%2Cx/a%3Ab%25c%0A"
    d = Diagnostic("SHLO001", "file-empty", "syntax", Severity.ERROR, "50% of lines\nare: empty, or not",
                   Location("we,ird:name.mlir"))
    assert github.render([d], {}, rules) == (
        "::error file=we%2Cird%3Aname.mlir,title=SHLO001 file-empty::50%25 of lines%0Aare: empty, or not\n")


# --------------------------------------------------------------------------- dispatch


def test_formats_and_dispatch(src):
    assert set(report.FORMATS) == {"text", "concise", "grouped", "json", "json-lines", "sarif", "github", "gitlab",
                                   "junit", "html"}
    from shlo_lint.checker.lint.config import Config, ConfigError

    for name in report.FORMATS:  # `output-format` accepts the formats there are, and only those
        assert Config(output_format=name).output_format == name
    with pytest.raises(ConfigError, match="output_format"):
        Config(output_format="xml")
    for name in report.FORMATS:
        out = report.render(name, [dup_source(src)], {"prog.mlir": src}, rules, summary={}, color=False)
        assert isinstance(out, str) and out.endswith("\n")
    with pytest.raises(ValueError, match="unknown output format"):
        report.render("xml", [], {}, rules)


def test_reporters_never_import_the_ir():
    """Reporters read Diagnostic values and source text only: no IR, parser, rules, registry
    (a rule's documentation comes through the `rules` lookup they are handed)."""
    allowed = {"diagnostics", "processes", "shared", "github", "json_", "sarif", "text", "concise", "gitlab", "junit",
               "html"}
    for path in REPORT_DIR.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and (node.level or (node.module or "").startswith("shlo_lint")):
                mods = {node.module.rsplit(".", 1)[-1]} if node.module else {a.name for a in node.names}
                assert mods <= allowed, f"{path.name} imports {mods - allowed}"
            if isinstance(node, ast.Import):
                assert not any(a.name.startswith("shlo_lint") for a in node.names), path.name
