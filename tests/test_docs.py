"""Rule documentation: every rule documents itself, and docs/rules.md is in sync."""
from __future__ import annotations

import re

import pytest
from click.testing import CliRunner

from shlo_lint.checker.cli import rule_docs as docs
from shlo_lint.checker.lint import registry
from shlo_lint.checker.cli.commands import main

from conftest import ROOT, run_cli

RULES = registry.all_rules()


def test_rules_md_is_generated_from_the_docstrings():
    assert (ROOT / "docs" / "rules.md").read_text(encoding="utf-8") == docs.render(), \
        "docs/rules.md is stale: run `python -m shlo_lint.checker.cli.rule_docs`"


@pytest.mark.parametrize("spec", RULES, ids=lambda r: r.code)
def test_rule_docstring_has_the_sections(spec):
    doc = spec.doc
    assert doc and not doc.startswith("#"), f"{spec.code}: first line must be a one-line summary"
    assert "## Why is this bad?" in doc, spec.code
    if spec.status != "builtin":
        for section in ("## What it does", "## Example", "## Use instead"):
            assert section in doc, f"{spec.code} lacks {section}"
    assert re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", spec.name)


def test_codes_are_unique_and_sorted():
    codes = [r.code for r in RULES]
    assert codes == sorted(set(codes))


@pytest.mark.parametrize("spec", RULES, ids=lambda r: r.code)
def test_shlo_lint_rule_prints_the_docs(spec):
    result = CliRunner().invoke(main, ["rule", spec.code])
    assert result.exit_code == 0, result.output
    assert spec.code in result.output and spec.name in result.output
    assert spec.summary in result.output


def test_rule_command_in_a_subprocess_by_code_and_by_name():
    spec = RULES[0]
    for key in (spec.code, spec.name, spec.code.lower()):
        proc = run_cli("rule", key)
        assert proc.returncode == 0 and spec.summary in proc.stdout, proc.stderr
    listing = run_cli("rule", "--all")
    assert all(r.code in listing.stdout for r in RULES)


def test_rule_unknown_code_exits_2():
    proc = run_cli("rule", "SHLO999")
    assert proc.returncode == 2 and "unknown rule" in proc.stderr
