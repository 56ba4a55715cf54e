"""The editor's text as the language server holds it: pygls' TextDocument with
incremental changes applied through a line index (server.py).

pygls applies each didChange by splitting the whole text into lines and writing
every line back (per keystroke, on the event loop, in front of the lint:
docs/performance.md, "Editor latency"). `LineIndexedDocument` keeps the offsets where lines start
(a numpy array, moved by each change in C) and splices the text at the change's
offsets instead, giving exactly pygls' result: the positions are converted by
pygls' own codec on the one line they name, and a text whose line breaks are
not all `\\n` (str.splitlines, which pygls splits on, also breaks at `\\r`,
`\\v`, `\\f`, `\\x1c`-`\\x1e`, `\\x85`, `\\u2028`, `\\u2029`), an empty text or a
backwards range goes through pygls' own code. tests/test_lsp_text.py compares
the two on random texts and changes.
"""
from __future__ import annotations

import logging

import numpy as np
from lsprotocol import types as t
from pygls.workspace import TextDocument, Workspace

log = logging.getLogger(__name__)
_OTHER_BREAKS = ("\r", "\v", "\f", "\x1c", "\x1d", "\x1e", "\x85", "\u2028", "\u2029")


def _plain(text: str) -> bool:
    """Does str.splitlines break `text` only at `\\n`?"""
    return not any(c in text for c in _OTHER_BREAKS)


def _line_starts(text: str) -> np.ndarray:
    """Offset of each line's start: 0, and one after every `\\n` (len(text) included
    when the text ends with one)."""
    ends = np.frombuffer(text.encode("utf-32-le"), dtype=np.uint32)
    return np.concatenate(([0], np.flatnonzero(ends == 10) + 1)).astype(np.int64)


class LineIndexedDocument(TextDocument):
    """A TextDocument whose incremental changes cost a splice, not a rewrite."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._starts: np.ndarray | None = None
        self._plain: bool | None = None

    def _apply_incremental_change(self, change: t.TextDocumentContentChangePartial) -> None:
        try:
            spliced = self._splice(change)
        except Exception:  # noqa: BLE001 - a bug of ours: pygls' own path (the text is untouched so far)
            log.exception("shlo-lint: applying a change through the line index failed")
            spliced = None
        if spliced is None:
            self._starts, self._plain = None, None
            super()._apply_incremental_change(change)
            return
        self._source, self._starts = spliced

    def _splice(self, change: t.TextDocumentContentChangePartial) -> tuple[str, np.ndarray] | None:
        """The new text and its line starts, or None where pygls' own path must apply it
        (other line breaks, an empty text, a backwards range)."""
        source = self.source
        if self._plain is None:
            self._plain = _plain(source)
        inserted = change.text
        if not source or not self._plain or not _plain(inserted):
            return None
        starts = self._starts
        if starts is None:
            starts = _line_starts(source)
        n = len(source)
        lines = len(starts) - (starts[-1] == n)  # pygls' line count (no empty last line)
        sl, sc, start = self._position(source, starts, lines, change.range.start)
        el, ec, end = self._position(source, starts, lines, change.range.end)
        if (el, ec) < (sl, sc):
            return None  # backwards: pygls' own (odd) splice
        # Line starts after the replaced range move; those inside it go; the
        # inserted text's own line breaks add theirs.
        keep = int(np.searchsorted(starts, start, "right"))
        after = int(np.searchsorted(starts, end, "right"))
        added = _line_starts(inserted)[1:] + start if "\n" in inserted else np.zeros(0, dtype=np.int64)
        return (source[:start] + inserted + source[end:],
                np.concatenate((starts[:keep], added, starts[after:] + (len(inserted) - (end - start)))))

    def _position(self, source: str, starts: np.ndarray, lines: int, pos: t.Position) -> tuple[int, int, int]:
        """(line, column in code points, offset) where pygls' splice puts `pos` (its
        codec, on that line)."""
        line = min(pos.line, lines - 1)
        begin = int(starts[line])
        stop = int(starts[line + 1]) if line + 1 < len(starts) else len(source)
        text = source[begin:stop]
        if pos.line >= lines:
            return line, len(text), stop  # past the last line: its end (pygls clamps so)
        col = self._position_codec.position_from_client_units([text], t.Position(0, pos.character)).character
        return line, col, begin + col

    def _apply_full_change(self, change) -> None:
        self._starts, self._plain = None, None
        super()._apply_full_change(change)


class LineIndexedWorkspace(Workspace):
    """pygls' workspace, creating LineIndexedDocuments."""

    def _create_text_document(self, doc_uri: str, source: str | None = None, version: int | None = None,
                              language_id: str | None = None) -> TextDocument:
        return LineIndexedDocument(doc_uri, source=source, version=version, language_id=language_id,
                                   sync_kind=self._sync_kind, position_codec=self._position_codec)


def index_lines(workspace: Workspace) -> None:
    """Make `workspace` (pygls creates it on `initialize`, before any document is
    open) create LineIndexedDocuments. It gains a method, no state."""
    if type(workspace) is Workspace:
        workspace.__class__ = LineIndexedWorkspace
