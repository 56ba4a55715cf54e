"""The language server's text documents (checker/editor/text_document.py) apply an editor's
incremental changes exactly as pygls' TextDocument does, for every position
encoding, on random texts (line breaks pygls splits on other than `\\n`, astral
characters, empty lines) and random, out of range and backwards ranges."""
from __future__ import annotations

import random

import pytest
from lsprotocol import types as t
from pygls.workspace import PositionCodec, TextDocument

from shlo_lint.checker.editor.text_document import LineIndexedDocument, _line_starts

PIECES = ["a", "bc", " ", "\n", "\n", "\n", "%x = op", "é", "😋", "\t", "\r\n", "\r", "\u2028", "\x0c", ""]


def _text(rng: random.Random, plain: bool) -> str:
    pieces = [p for p in PIECES if not plain or p not in ("\r\n", "\r", "\u2028", "\x0c")]
    return "".join(rng.choice(pieces) for _ in range(rng.randint(0, 30)))


def _position(rng: random.Random, lines: int) -> t.Position:
    return t.Position(rng.randint(0, lines + 1), rng.choice([0, 1, 2, 3, 5, 8, 40]))


@pytest.mark.parametrize("encoding", [t.PositionEncodingKind.Utf16, t.PositionEncodingKind.Utf8,
                                      t.PositionEncodingKind.Utf32])
def test_changes_apply_as_in_pygls(encoding):
    rng = random.Random(5)
    codec = PositionCodec(encoding)
    spliced = 0
    for _ in range(300):
        plain = rng.random() < 0.8
        text = _text(rng, plain)
        ours = LineIndexedDocument("file:///a.mlir", text, version=1, position_codec=codec)
        theirs = TextDocument("file:///a.mlir", text, version=1, position_codec=codec)
        for _ in range(8):
            lines = text.count("\n") + 1
            start, end = _position(rng, lines), _position(rng, lines)
            if rng.random() < 0.8 and (end.line, end.character) < (start.line, start.character):
                start, end = end, start
            new = _text(rng, plain or rng.random() < 0.5)[: rng.choice([0, 1, 3, 30])]
            for doc in (ours, theirs):
                doc.apply_change(t.TextDocumentContentChangePartial(
                    t.Range(t.Position(start.line, start.character), t.Position(end.line, end.character)), new))
            assert ours.source == theirs.source, (text, start, end, new)
            if ours._starts is not None:  # noqa: SLF001 - the index follows the text
                spliced += 1
                assert list(ours._starts) == list(_line_starts(ours.source))  # noqa: SLF001
            text = theirs.source
    assert spliced > 300, "the line index was hardly used: the test would not see a wrong splice"


def test_a_wrong_splice_is_caught(monkeypatch):
    monkeypatch.setattr("shlo_lint.checker.editor.text_document._line_starts", lambda text: _line_starts(text) + 1)
    with pytest.raises(AssertionError):
        test_changes_apply_as_in_pygls(t.PositionEncodingKind.Utf16)


def test_the_servers_workspace_indexes_lines():
    from pygls.workspace import Workspace

    from shlo_lint.checker.editor.text_document import index_lines

    ws = Workspace(None)
    index_lines(ws)
    ws.put_text_document(t.TextDocumentItem("file:///a.mlir", "mlir", 1, "a\nbc\n"))
    doc = ws.get_text_document("file:///a.mlir")
    assert isinstance(doc, LineIndexedDocument)
    ws.update_text_document(t.VersionedTextDocumentIdentifier(2, "file:///a.mlir"), t.TextDocumentContentChangePartial(
        t.Range(t.Position(1, 1), t.Position(1, 2)), "x\ny"))
    assert doc.source == "a\nbx\ny\n" and list(doc._starts) == [0, 2, 5, 7]  # noqa: SLF001


def test_a_re_lint_makes_no_reference_cycle():
    """The server freezes what each re-lint leaves (checker/editor/server.py, `lint`: the GC
    would walk it after every keystroke); that frees nothing less only because a
    re-lint makes no cyclic garbage: every object it drops goes by reference
    counting. (Checked with the GC off, then one collection of all, frozen included.)"""
    import gc
    import sys

    from conftest import ROOT

    from shlo_lint.checker.editor import server as lsp
    from shlo_lint.checker.editor.incremental.document import Document

    sys.path.insert(0, str(ROOT / "bench"))
    import lsp_latency

    text = lsp_latency.program(300)
    i = text.index("(tensor<8xf32>") + len("(tensor<")
    at = text.index("\n", len(text) // 2)
    versions = [text[:i] + "4" + text[i + 1:], text, text[:at] + "\n    " + text[at:], text,
                text[:at] + "\n    %q = stablehlo.add %arg0, %arg0 : tensor<4xf32>" + text[at:], "module {", text]
    doc = Document()
    initially = gc.get_freeze_count()  # (restored at the end: other tests collect as before)
    lsp.lint(text, "/tmp/p.mlir", 1, doc)
    gc.unfreeze()
    gc.collect()
    enabled = gc.isenabled()
    gc.disable()
    try:
        frozen = gc.get_freeze_count()
        for n, version in enumerate(versions * 3, 2):
            linted = lsp.lint(version, "/tmp/p.mlir", n, doc)
            [lsp._to_lsp_guarded(d, linted, "file:///tmp/p.mlir", "utf-16") for d in linted.diagnostics]
        assert gc.get_freeze_count() > frozen  # what the re-lints left is frozen
        gc.unfreeze()
        assert gc.collect() == 0
    finally:
        gc.unfreeze()
        if initially:
            gc.freeze()
        if enabled:
            gc.enable()


def test_a_failing_splice_falls_back_to_pygls(monkeypatch):
    """A bug of ours in the splice costs the fast path, never the document's text."""
    def broken(self, change):
        raise RuntimeError("injected")

    monkeypatch.setattr(LineIndexedDocument, "_splice", broken)
    doc = LineIndexedDocument("file:///a.mlir", "a\nbc\n", version=1)
    doc.apply_change(t.TextDocumentContentChangePartial(t.Range(t.Position(1, 1), t.Position(1, 2)), "x"))
    assert doc.source == "a\nbx\n"
