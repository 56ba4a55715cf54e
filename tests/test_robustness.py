"""Property tests: whatever the text, linting returns diagnostics and never raises."""
from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from shlo_lint import Config, lint_text
from shlo_lint.checker.diagnostics import Diagnostic

from conftest import CORPUS

SAMPLES = [p.read_text() for p in sorted((CORPUS / "real").glob("*.mlir"))[:12]]
JUNK = st.sampled_from(list("{}()[]<>\"%#^@:=,;\n \\") + ["loc(", "dense<", "tensor<", "({", "})", "!stablehlo.token",
                                                           "\u00e9", "\x00", "// shlo-lint: ignore[SHLO1"])


def check(text: str) -> list[Diagnostic]:
    diags = lint_text(text, "fuzz.mlir", Config())
    n = len(text)
    for d in diags:
        assert isinstance(d, Diagnostic)
        assert d.code != "SHLO003", d.message  # no rule crashed
        if d.span is not None:
            assert 0 <= d.span.start <= d.span.end <= n, (d.code, d.span, n)
    return diags


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(sample=st.sampled_from(SAMPLES), cut=st.floats(0, 1))
def test_truncated_programs(sample, cut):
    text = sample[: int(len(sample) * cut)]
    diags = check(text)
    if text.strip() and text.count("{") != text.count("}"):
        assert any(d.category == "syntax" for d in diags)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(sample=st.sampled_from(SAMPLES), where=st.floats(0, 1), junk=st.lists(JUNK, min_size=1, max_size=4))
def test_programs_with_junk_spliced_in(sample, where, junk):
    i = int(len(sample) * where)
    check(sample[:i] + "".join(junk) + sample[i:])


@settings(max_examples=100, deadline=None)
@given(text=st.text(alphabet=st.characters(codec="utf-8"), max_size=300))
def test_arbitrary_text(text):
    check(text)
