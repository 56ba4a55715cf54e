"""Every corpus program against its expected diagnostics.

corpus/invalid/NAME.mlir has a sidecar NAME.expect listing what must be
reported, one `CODE LINE` per line (optionally `| text the message contains`,
read to the end of the line: messages quote `#1`, `#loc`, `#stablehlo...`);
blank lines and lines starting with `#` (comments) are ignored. The set of (code, line) reported must
equal the set expected. corpus/valid/ and corpus/seeds/ use the same sidecars;
a valid program without one must produce no diagnostic at all.
corpus/real/ (JAX exports) must raise no error, except `*.buggy_*` files, which
must raise at least one. corpus/deadlock/ cases (same sidecars) are whole
programs with expected deadlock verdicts; elsewhere deadlock findings are only
compared when the sidecar lists one (SHLO5xx). corpus/hlo/gpu/ holds HLO modules
written by hand in XLA:GPU's forms, each a whole module with the same sidecars
beside its `.hlo` (every finding compared; a `buggy_*` one must have one, a module
without one must be clean).
"""
from __future__ import annotations

from pathlib import Path

import pytest

from shlo_lint import Config, lint_text
from shlo_lint.checker.source.diagnostics import Severity

from conftest import CORPUS


def read_expect(path: Path) -> list[tuple[str, int, str | None]]:
    out = []
    if not path.exists():
        return out
    for raw in path.read_text().splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        head, _, text = line.partition("|")
        code, lineno = head.split()
        out.append((code, int(lineno), text.strip() or None))
    return out


def test_the_expect_reader_keeps_the_whole_text_after_the_bar(tmp_path):
    """Messages quote `#1`, `#loc3`, `#stablehlo.channel_handle<...>`: only a line
    that starts with `#` is a comment (the reader cut the text at the first `#`,
    so `result #1 is a token` checked only "result")."""
    sidecar = tmp_path / "x.expect"
    sidecar.write_text("# a comment line\n\nSHLO118 6 | result #1 is a token\n  # indented comment\n"
                       "SHLO105 3 | #stablehlo.channel_handle<handle = 1, type = 0>\nSHLO001 2\n")
    assert read_expect(sidecar) == [("SHLO118", 6, "result #1 is a token"),
                                    ("SHLO105", 3, "#stablehlo.channel_handle<handle = 1, type = 0>"),
                                    ("SHLO001", 2, None)]


def cases(*dirs: str) -> list[Path]:
    return sorted(p for d in dirs for p in (CORPUS / d).glob("*.mlir"))


def show(path: Path, diags) -> str:
    listing = "\n".join(f"  {d.code} {d.location.path}:{d.span and d.span.start} {d.message}" for d in diags)
    return f"\n--- {path} ---\n{path.read_text()}\n--- reported ---\n{listing}"


def _lint(path: Path):
    text = path.read_text()
    diags = lint_text(text, str(path), Config())
    src_lines = None

    def line_of(d):
        nonlocal src_lines
        if d.span is None:
            return 0
        return text.count("\n", 0, d.span.start) + 1

    return diags, line_of


@pytest.mark.parametrize("path", cases("invalid", "valid", "seeds", "deadlock"), ids=lambda p: f"{p.parent.name}/{p.name}")
def test_expected_diagnostics(path: Path):
    expected = read_expect(path.with_suffix(".expect"))
    if path.parent.name == "invalid":
        assert expected, f"{path} has no .expect sidecar"
    diags, line_of = _lint(path)
    if path.parent.name != "deadlock" and not any(c.startswith("SHLO5") for c, _, _ in expected):
        # Constraint snippets are often not whole programs (a send whose recv is
        # elsewhere): their deadlock findings are corpus/deadlock's business.
        diags = [d for d in diags if d.category != "deadlock"]
    got = {(d.code, line_of(d)) for d in diags}
    want = {(c, ln) for c, ln, _ in expected}
    assert got == want, show(path, diags)
    for code, ln, text in expected:
        if text:
            msgs = [d.message for d in diags if d.code == code and line_of(d) == ln]
            assert any(text in m for m in msgs), (text, msgs)


@pytest.mark.parametrize("path", sorted((CORPUS / "hlo" / "gpu").glob("*.hlo")), ids=lambda p: p.name)
def test_expected_diagnostics_on_hlo(path: Path):
    expected = read_expect(path.with_suffix(".expect"))
    if ".buggy_" in path.name:
        assert expected, f"{path} has no .expect sidecar"
    diags, line_of = _lint(path)
    got = {(d.code, line_of(d)) for d in diags}
    assert got == {(c, ln) for c, ln, _ in expected}, show(path, diags)
    for code, ln, text in expected:
        if text:
            msgs = [d.message for d in diags if d.code == code and line_of(d) == ln]
            assert any(text in m for m in msgs), (text, msgs)


# Which category of finding must flag each deliberately buggy JAX export
# (`*.buggy_<kind>.mlir`); a kind joins this table when its analysis lands.
BUG_CATEGORY = {
    "type_mismatch": "constraint",
    "done_twice": "future",
    "deadlock": "deadlock",
    "gpu_deadlock": "deadlock",  # a collective custom_call (ragged_all_to_all) only device 0 reaches
}


@pytest.mark.parametrize("path", cases("real"), ids=lambda p: p.name)
def test_real_jax_exports(path: Path):
    diags, _ = _lint(path)
    assert not [d for d in diags if d.category == "syntax"], show(path, diags)
    errors = [d for d in diags if d.severity == Severity.ERROR]
    bug = path.name.split(".buggy_", 1)[1].removesuffix(".mlir") if ".buggy_" in path.name else None
    if bug is None:
        assert not errors, show(path, diags)
    elif bug in BUG_CATEGORY:
        assert [d for d in errors if d.category == BUG_CATEGORY[bug]], show(path, diags)
