"""Matching a version's ops with the previous version's (editor/incremental/document.py):
after a copied skeleton, `match_copied` builds in bulk exactly the tables that the
op-by-op `match_ops` builds; and a wrong bulk match is caught, both by that
comparison and by the full-lint comparison of tests/test_incremental.py."""
from __future__ import annotations

import random

import pytest

from shlo_lint.checker.lint.config import Config
from shlo_lint.checker.lint.engine import lint_source
from shlo_lint.checker.editor.incremental.document import Document, Memo
from shlo_lint.checker.source.text import SourceFile

from test_incremental import BENCH, DIGIT_PROGRAMS, edit, flips, same, text_of


def _tables(memo: Memo) -> dict:
    v, p = memo.version, memo.parser
    return {"ops": list(v.ops.items()), "old_span": dict(memo.old_span), "touched": set(memo.touched),
            "label_spans": sorted(v.label_spans), "headers": dict(v.headers), "labels": dict(v.labels),
            "seeds": dict(p.seeds), "label_seeds": dict(p.label_seeds)}


class _Compare:
    """match_copied, checked against match_ops on the same module after each call."""

    def __init__(self, real):
        self.real = real
        self.compared = self.vouched = 0
        self.differed = 0
        """(Counted, not raised: the engine reports an exception in its stages as SHLO003.)"""

    def __call__(self, memo: Memo, clone) -> bool:
        if not self.real(memo, clone):
            return False
        shadow = Memo(memo.prev, memo.source, memo.config)
        shadow.header_parser(memo.parser.inner)
        shadow.headers_ok = memo.headers_ok
        shadow.match_ops(clone.walked)
        self.compared += 1
        self.differed += _tables(memo) != _tables(shadow)
        # What the parse check may skip: the ops header_checked would vouch for
        # (matched, not seeded, checked clean in the previous version).
        seeds, checked = shadow.parser.seeds, memo.prev.checked
        vouched = {op for op in clone.walked if op not in seeds and shadow.old_span.get(op) in checked} \
            if memo.headers_ok else set()
        self.vouched += bool(vouched)
        self.differed += (memo.vouched or set()) != vouched
        self.differed += memo.version.checked != {op.span for op in vouched}
        return True


def _texts(name: str, seed: int, steps: int):
    """The program, its one-character changes, and random edits after them."""
    text = text_of(name)
    rng = random.Random(seed)
    for new in flips(text, rng, 15):
        yield text
        yield new
    history: list[str] = []
    for _ in range(steps):
        history.append(text)
        yield text
        text = edit(rng, text, history)


def _lint_all(name: str, seed: int, steps: int = 30, compare: _Compare | None = None) -> None:
    doc = Document()
    for text in _texts(name, seed, steps):
        got = doc.lint(SourceFile("prog.mlir", text), Config())
        assert compare is None or not compare.differed, f"{name}: the bulk match differs from the op by op match"
        want = lint_source(SourceFile("prog.mlir", text), Config())
        assert same(got, want), f"{name}: incremental differs from a full lint"


@pytest.mark.parametrize("name", [BENCH, *DIGIT_PROGRAMS])
def test_the_bulk_match_equals_the_op_by_op_match(name, monkeypatch):
    compare = _Compare(Memo.match_copied)
    monkeypatch.setattr(Memo, "match_copied", _method(compare))
    _lint_all(name, 3, compare=compare)
    assert compare.compared > 0, "the skeleton was never copied: nothing was compared"
    assert compare.vouched > 0 or name != BENCH, "no header check was ever skipped: nothing was compared"


def _method(f):
    """A callable object as a method (monkeypatched onto Memo: called with the memo first)."""
    def method(memo, clone):
        return f(memo, clone)
    return method


def _off_by_one(real):
    """match_copied pairing each op with the previous version's next op."""
    def wrong(memo: Memo, clone) -> bool:
        keys = list(memo.prev.ops.items())
        memo.prev.ops = dict(keys[1:] + keys[:1])
        try:
            return real(memo, clone)
        finally:
            memo.prev.ops = dict(keys)
    return wrong


def test_a_wrong_bulk_match_is_caught_by_the_comparison(monkeypatch):
    compare = _Compare(_off_by_one(Memo.match_copied))
    monkeypatch.setattr(Memo, "match_copied", _method(compare))
    with pytest.raises(AssertionError, match="bulk match differs"):
        _lint_all(BENCH, 3, compare=compare)


def test_a_wrong_bulk_match_is_caught_by_the_full_lint(monkeypatch):
    monkeypatch.setattr(Memo, "match_copied", _off_by_one(Memo.match_copied))
    with pytest.raises(AssertionError, match="differs from a full lint"):
        for name in [BENCH, *DIGIT_PROGRAMS]:
            _lint_all(name, 3)


def test_a_failing_bulk_match_falls_back_to_the_op_by_op_match(monkeypatch):
    """A bug of ours half way through the bulk match costs its speed, not the result."""
    real = Memo.match_copied
    calls = []

    def fails_late(memo, clone):
        calls.append(real(memo, clone))
        raise RuntimeError("injected")

    monkeypatch.setattr(Memo, "match_copied", fails_late)
    _lint_all(BENCH, 3, steps=15)
    assert any(calls), "the bulk match never ran: nothing was undone"
