"""`shlo-lint lsp`: the language server (pygls, stdio).

Handlers are a few lines each: get the document → lint → publish. Linting is
`lint_source` on the editor's text (the file's `[tool.shlo-lint]` settings apply),
run on one worker thread so the server keeps reading messages meanwhile.

* open / save lint at once; change re-lints after `debounce_ms` of quiet, and a
  result is published only if the document is still at the version linted.
* each open document keeps its last version (incremental/document.py): a re-lint
  reuses the header parses and per-op findings an edit cannot have changed, and
  gives exactly what a full lint of the new text gives.
* `to_lsp` is the one place a (1-based, code-point) Diagnostic becomes an LSP one:
  0-based lines, columns in the negotiated position encoding (UTF-16 code units
  unless the client asked for UTF-8/UTF-32), severity, code, codeDescription
  (the rule's docs), related information (the matching op, the Python line from
  loc()), and in `data` the code actions: the rule's fix and the suppression
  comments, as ready-made edits (as ruff-lsp carries its fix).
* hover on a diagnostic shows its rule's documentation.
* a deadlock's per-process story: each process (or class of processes) of its
  trace is a related-information entry at the op it is blocked at, and the code
  action "Show the deadlock as a picture" (command SHOW_REPORT) writes the HTML
  report of the document to a temporary file and asks the client to open it
  (window/showDocument, external: the browser).
* Bad text is the linter's business (it becomes SHLO001 diagnostics); an
  exception in here is logged to the client (window/logMessage) and the server
  carries on with the next message.
* a broken `[tool.shlo-lint]` (settings.py) is a diagnostic on its line of the
  pyproject.toml and a warning message, and linting goes on with that file's last
  good settings (or the defaults); when the file is saved fixed (the client's file
  watcher, registered here, or a didSave of it) every open document is re-linted
  and the diagnostic goes.
"""
from __future__ import annotations

import asyncio
import gc
import logging
import re
import traceback
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from lsprotocol import types as t
from pygls.lsp.server import LanguageServer
from pygls.uris import from_fs_path, to_fs_path

from ..lint import registry
from ..lint.config import ConfigError
from ..source.diagnostics import Diagnostic, Location, Severity
from ..frontend.read import header_parser, looks_like_hlo
from ..ir.memory import gc_paused
from ..lint.engine import internal_error, lint_source
from ..lint.fixes import apply_fixes
from ..lint.paths import program_file
from .incremental.document import Document
from .settings import Resolved, Settings
from .text_document import index_lines
from ..source.text import SourceFile, Span

SOURCE = "shlo-lint"
FIX_ALL = f"{t.CodeActionKind.SourceFixAll.value}.shlo-lint"
SHOW_REPORT = "shlo-lint.showReport"
"""Command: write the document's HTML report (swimlane diagrams) and show it."""
DEFAULT_DEBOUNCE_MS = 150
SETTLE_DELAY_S = 1.0
"""Quiet time after a full lint before the server's one collection (settle)."""
UTF8, UTF16, UTF32 = "utf-8", "utf-16", "utf-32"
log = logging.getLogger(__name__)

_SEVERITY = {Severity.ERROR: t.DiagnosticSeverity.Error, Severity.WARNING: t.DiagnosticSeverity.Warning,
             Severity.INFO: t.DiagnosticSeverity.Information}
# `// shlo-lint: ignore[A, B]` (and ignore-file); group 2 ends where a new code goes.
_DIRECTIVE = re.compile(r"//[ \t]*shlo-lint:[ \t]*(ignore-file|ignore)[ \t]*\[([^\]\n]*)\]")


@dataclass
class Linted:
    """The last published result for one document (hover and fix-all read it)."""

    version: int | None
    source: SourceFile
    diagnostics: list[Diagnostic]
    settings: Resolved | None = None
    """The settings it was linted with, and what was wrong with its pyproject.toml."""
    full: bool = False
    """A full lint (the document's first, or nothing could be reused)."""


class ShloLintServer(LanguageServer):
    def __init__(self, debounce_ms: int = DEFAULT_DEBOUNCE_MS):
        super().__init__("shlo-lint", _version())
        self.debounce = debounce_ms / 1000
        self.worker = ThreadPoolExecutor(max_workers=1, thread_name_prefix="shlo-lint")
        self.pending: dict[str, asyncio.Task] = {}
        self.linted: dict[str, Linted] = {}
        self.documents: dict[str, Document] = {}
        """Per open document, what its next re-lint may reuse (used on the worker thread only)."""
        self.settings = Settings()
        """The last good settings of each pyproject.toml (used on the worker thread only)."""
        self.config_problems: dict[str, str] = {}
        """pyproject.toml path (or "" for a problem without a file) -> the error shown for it."""
        self.loop: asyncio.AbstractEventLoop | None = None
        """The event loop, once the client has initialized (for log_framing)."""
        self.linting = 0
        """Lints submitted to the worker and not finished."""
        self.settle_handle: asyncio.TimerHandle | None = None
        self.shut_down = False
        """The client sent `shutdown`: leaving after it is a clean exit (0), without it 1 (the LSP rule)."""

    # -- the one lint path ---------------------------------------------------------
    async def lint_now(self, uri: str) -> None:
        """Lint the document as it is now and publish, unless it changed meanwhile."""
        self.cancel_pending(uri)
        doc = self.workspace.text_documents.get(uri)
        if doc is None or not _wanted(doc):
            return
        version, text, path = doc.version, doc.source, doc.path or uri
        try:
            document = self.documents.setdefault(uri, Document())
            self.linting += 1
            try:
                linted = await asyncio.get_running_loop().run_in_executor(self.worker, lint, text, path, version,
                                                                          document, self.settings)
            finally:
                self.linting -= 1
            current = self.workspace.text_documents.get(uri)
            if current is None or current.version != version:
                return  # a newer version is on its way (debounced) or the document closed
            self.linted[uri] = linted
            if linted.settings is not None:
                self.show_settings(linted.settings, path)
            self.publish(uri, version, [_to_lsp_guarded(d, linted, uri, self.encoding) for d in linted.diagnostics])
            if linted.full:
                self.settle_later()
        except Exception as e:  # a bug of ours must not take the editor's linter down, nor go unseen
            self.log(t.MessageType.Error, f"shlo-lint: internal error while linting {uri}:\n{traceback.format_exc()}")
            try:
                self.publish(uri, version, [_internal_lsp(internal_error(SourceFile(path, ""), e, "linting"))])
            except Exception:  # noqa: BLE001 - the log above is all that is left
                pass

    def show_settings(self, resolved: Resolved, path: str) -> None:
        """A pyproject.toml error: once per distinct error, a diagnostic at its line of
        that file, a warning message and the log. No error for `path`: the problems
        of the pyproject.toml files above it are gone (fixed, or the table removed)."""
        error = resolved.error
        if error is None:
            doc = Path(path)
            for where in [w for w in self.config_problems if w and doc.is_relative_to(Path(w).parent)]:
                del self.config_problems[where]
                self.publish(from_fs_path(where) or where, None, [])
                self.log(t.MessageType.Info, f"shlo-lint: the settings of {where} apply again")
            return
        where = error.path or ""
        if self.config_problems.get(where) == str(error):
            return
        self.config_problems[where] = str(error)
        if error.path:
            self.publish(from_fs_path(error.path) or error.path, None, [config_diagnostic(error, self.encoding)])
        text = f"shlo-lint: {error}; linting with {resolved.fallback}"
        self.log(t.MessageType.Warning, text)
        self.window_show_message(t.ShowMessageParams(t.MessageType.Warning, text))

    def relint_all(self) -> None:
        """The settings may have changed: lint every open StableHLO document again."""
        for uri, doc in list(self.workspace.text_documents.items()):
            if _wanted(doc):
                self.lint_soon(uri)

    async def watch_settings(self) -> None:
        """Ask the client to tell us when a pyproject.toml changes on disk (the
        settings are read from disk), where it can (dynamic registration)."""
        workspace = self.client_capabilities.workspace
        watched = workspace.did_change_watched_files if workspace else None
        if watched is None or not watched.dynamic_registration:
            return  # a save of the pyproject.toml in this editor still re-lints (did_save)
        options = t.DidChangeWatchedFilesRegistrationOptions([t.FileSystemWatcher(glob_pattern="**/pyproject.toml")])
        try:
            await self.client_register_capability_async(t.RegistrationParams([t.Registration(
                "shlo-lint-pyproject", t.WORKSPACE_DID_CHANGE_WATCHED_FILES, options)]))
        except Exception as e:  # noqa: BLE001 - a client may refuse: settings are then re-read on the next lint
            self.log(t.MessageType.Info, f"shlo-lint: the client did not watch pyproject.toml files ({e})")

    def settle_later(self, delay: float = SETTLE_DELAY_S) -> None:
        """Run `settle` on the worker once no lint is waiting or running for `delay`
        seconds (a collection over a big document's objects: not in front of an edit)."""
        if self.settle_handle is not None:
            self.settle_handle.cancel()

        def fire() -> None:
            self.settle_handle = None
            if self.linting or self.pending:
                self.settle_later(delay)
            else:
                self.worker.submit(settle)

        self.settle_handle = asyncio.get_running_loop().call_later(delay, fire)

    def lint_soon(self, uri: str) -> None:
        """lint_now in a task of ours, the handler returning at once: a handler coroutine
        pygls awaits, cancelled by the server's exit mid-lint, is logged by pygls as an
        error with a traceback."""
        self.cancel_pending(uri)
        self.pending[uri] = asyncio.ensure_future(self.lint_now(uri))

    def lint_later(self, uri: str) -> None:
        self.cancel_pending(uri)
        self.pending[uri] = asyncio.ensure_future(self._debounced(uri))

    async def _debounced(self, uri: str) -> None:
        await asyncio.sleep(self.debounce)
        self.pending.pop(uri, None)
        await self.lint_now(uri)

    def cancel_pending(self, uri: str) -> None:
        task = self.pending.pop(uri, None)
        if task is not None and task is not asyncio.current_task():
            task.cancel()

    def forget(self, uri: str) -> None:
        self.cancel_pending(uri)
        self.linted.pop(uri, None)
        document = self.documents.pop(uri, None)
        if document is not None:  # on the worker: a lint of it may be running
            self.worker.submit(document.close)
        self.publish(uri, None, [])

    # -- sending -------------------------------------------------------------------
    @property
    def encoding(self) -> str:
        """The negotiated position encoding: "utf-16" (the default), "utf-8" or "utf-32"."""
        enc = self.workspace.position_encoding
        return str(getattr(enc, "value", enc) or UTF16)

    def publish(self, uri: str, version: int | None, diagnostics: list[t.Diagnostic]) -> None:
        self.text_document_publish_diagnostics(t.PublishDiagnosticsParams(uri, diagnostics, version))

    def log(self, kind: t.MessageType, message: str) -> None:
        log.log(logging.ERROR if kind == t.MessageType.Error else logging.INFO, message)
        self.window_log_message(t.LogMessageParams(kind, message))

    def log_framing(self, message: str) -> None:
        """From the stdin reader's thread (framing.py): stderr now, and the
        client's log from the event loop (writes to stdout stay on one thread)."""
        log.warning("%s", message)
        loop = self.loop
        if loop is not None and not loop.is_closed():
            try:
                loop.call_soon_threadsafe(self.window_log_message,
                                          t.LogMessageParams(t.MessageType.Warning, f"shlo-lint: {message}"))
            except RuntimeError:  # the loop closed meanwhile (the server is exiting): stderr has it
                pass


def _version() -> str:
    from ..report.shared import tool_version

    return tool_version()


def _wanted(doc) -> bool:
    """StableHLO and HLO documents only (by language id, else by a name a directory walk
    takes: lint/paths.py program_file): editors that send every file get no SHLO001 on
    Python."""
    return ((doc.language_id or "").lower() in ("mlir", "stablehlo", "hlo")
            or program_file(doc.uri.rsplit("/", 1)[-1]))


def lint(text: str, path: str, version: int | None = None, document: Document | None = None,
         settings: Settings | None = None) -> Linted:
    """Lint the editor's text with the settings of the file's pyproject.toml
    (incrementally from the document's previous version when one is given;
    `settings`: the server's, which remember each file's last good settings)."""
    resolved = (settings or Settings()).resolve(path)
    config = resolved.config
    source = SourceFile(path, text)
    if document is None or looks_like_hlo(text):
        # (The re-lint from the previous version matches StableHLO's ops: HLO text is
        # linted whole, as it is lowered whole.)
        result = lint_source(source, config)
    else:
        # A re-lint makes ~30,000 objects on a 10k-line file (the copied skeleton, the
        # tables for the next version) and frees the previous ones by reference
        # counting (it makes no reference cycle: tests/test_lsp_text.py). Left young,
        # the cyclic GC walks them again and again after each edit (~10 ms of a 25 ms
        # keystroke, and a full collection every few edits): moved to the permanent
        # generation instead (gc.freeze), they are still freed by reference counting.
        with gc_paused():
            try:
                result = document.lint(source, config)
            finally:
                gc.freeze()
    full = document is not None and document.last is not None and document.last.prev is None
    return Linted(version, source, result.diagnostics, resolved, full)


def settle() -> None:
    """After a document's full lint (on the worker, once published and the editor
    idle): a full collection, the frozen objects included, then every live object
    to the GC's permanent generation again (gc.freeze, as after each re-lint:
    `lint`). Frozen objects are freed by reference counting; a reference cycle
    frozen (none is made per edit) waits for this collection."""
    gc.unfreeze()
    gc.collect()
    gc.freeze()


def config_diagnostic(error: ConfigError, encoding: str) -> t.Diagnostic:
    """The error as a diagnostic of its pyproject.toml: from its column (or the
    line's first character) to the end of that line; the message is the command
    line's, less the place the diagnostic already is."""
    line = max((error.line or 1) - 1, 0)
    text = ""
    if error.path and error.line:
        try:
            lines = Path(error.path).read_text(encoding="utf-8").splitlines()
            text = lines[line] if line < len(lines) else ""
        except (OSError, UnicodeDecodeError):
            pass
    first = len(text) - len(text.lstrip())
    start = min(error.column - 1, len(text)) if error.column else first
    end = max(len(text.rstrip()), start)
    return t.Diagnostic(range=t.Range(t.Position(line, _units(text[:start], encoding)),
                                      t.Position(line, _units(text[:end], encoding))),
                        message=error.message, severity=t.DiagnosticSeverity.Error, source=SOURCE)


# ----------------------------------------------------------------------------- positions
def _units(text: str, encoding: str) -> int:
    """Length of `text` in the client's position units."""
    if encoding == UTF32 or text.isascii():
        return len(text)
    if encoding == UTF8:
        return len(text.encode("utf-8", "surrogatepass"))
    return len(text) + sum(1 for ch in text if ord(ch) > 0xFFFF)  # UTF-16: astral chars are two units


def position(source: SourceFile, offset: int, encoding: str) -> t.Position:
    line, col = source.line_col(offset)
    return t.Position(line - 1, _units(source.line_text(line)[: col - 1], encoding))


def lsp_range(source: SourceFile, span: Span | None, encoding: str) -> t.Range:
    if span is None:
        return t.Range(t.Position(0, 0), t.Position(0, 0))
    return t.Range(position(source, span.start, encoding), position(source, max(span.start, span.end), encoding))


def offset_at(source: SourceFile, pos: t.Position, encoding: str) -> int:
    """Character offset of an LSP position (clamped to the line)."""
    line = min(pos.line + 1, source.num_lines)
    text = source.line_text(line)
    col = units = 0
    while col < len(text) and units < pos.character:
        units += _units(text[col], encoding)
        col += 1
    return source.offset(line, col + 1)


# ----------------------------------------------------------------------------- conversion
def to_lsp(d: Diagnostic, linted: Linted, uri: str, encoding: str) -> t.Diagnostic:
    """The one mapping from a shlo-lint Diagnostic (1-based, code points) to LSP (0-based, client units)."""
    src = linted.source
    spec = registry.get(d.code)
    message = d.message + (f"\nhelp: {d.help}" if d.help else "")
    related = [t.DiagnosticRelatedInformation(_lsp_location(n.location, linted, uri, encoding), n.message)
               for n in d.notes]
    related += _trace_related(d, linted, uri, encoding)
    actions = [a for a in (_fix_action(d, src, encoding), *_suppress_actions(d, src, encoding)) if a]
    return t.Diagnostic(
        range=lsp_range(src, d.span, encoding),
        message=message,
        severity=_SEVERITY[Severity(d.severity)],
        code=d.code,
        code_description=t.CodeDescription(href=spec.help_uri) if spec else None,
        source=SOURCE,
        related_information=related or None,
        tags=[t.DiagnosticTag.Unnecessary] if d.code == "SHLO004" else None,
        data={"name": d.name, "version": linted.version, "actions": actions, "deadlock": bool(d.trace)},
    )


def _to_lsp_guarded(d: Diagnostic, linted: Linted, uri: str, encoding: str) -> t.Diagnostic:
    """to_lsp, or (a bug of ours converting this one) an SHLO003 in its place."""
    try:
        return to_lsp(d, linted, uri, encoding)
    except Exception as e:  # noqa: BLE001 - the one guard per file, reporter stage
        return _internal_lsp(internal_error(linted.source, e, f"converting a {d.code} diagnostic for the editor",
                                            span=Span(0, 0)))


def _internal_lsp(d: Diagnostic) -> t.Diagnostic:
    """An internal-error diagnostic at the top of the document (nothing here can fail)."""
    return t.Diagnostic(range=t.Range(t.Position(0, 0), t.Position(0, 0)), message=d.message,
                        severity=t.DiagnosticSeverity.Error, code=d.code, source=SOURCE,
                        data={"name": d.name, "actions": []})


def _trace_related(d: Diagnostic, linted: Linted, uri: str, encoding: str) -> list[t.DiagnosticRelatedInformation]:
    """One entry per process (or class of processes) of a deadlock's trace, at the op
    it is blocked at (or its last step): what it did and what it waits for."""
    from ..report.shared import trace_label

    out = []
    for trace in d.trace:
        if not trace.steps:
            continue
        step = next((s for s in reversed(trace.steps) if s.blocked), trace.steps[-1])
        done = [s.message for s in trace.steps if not s.blocked]
        story = (f"completed {', '.join(done)}; " if done else "") + (
            f"blocked at {step.message}" if step.blocked else "")
        text = f"{trace_label(trace)}: {story}" + (f" \u2014 {trace.waits_for}" if trace.waits_for else "")
        out.append(t.DiagnosticRelatedInformation(_lsp_location(step.location, linted, uri, encoding),
                                                  text.rstrip("; ")))
    return out


def _lsp_location(loc: Location, linted: Linted, uri: str, encoding: str) -> t.Location:
    if loc.path == linted.source.path and loc.span is not None:
        return t.Location(uri, lsp_range(linted.source, loc.span, encoding))
    path = Path(loc.path)
    if not path.is_absolute():  # a loc() file name: relative to the document's directory
        base = to_fs_path(uri)
        path = (Path(base).parent if base else Path.cwd()) / path
    line = max((loc.line or 1) - 1, 0)
    col = max((loc.column or 1) - 1, 0)
    return t.Location(from_fs_path(str(path)) or str(path), t.Range(t.Position(line, col), t.Position(line, col)))


def _edit(source: SourceFile, span: Span, text: str, encoding: str) -> dict:
    r = lsp_range(source, span, encoding)
    return {"range": {"start": {"line": r.start.line, "character": r.start.character},
                      "end": {"line": r.end.line, "character": r.end.character}}, "newText": text}


def _fix_action(d: Diagnostic, source: SourceFile, encoding: str) -> dict | None:
    fix = d.fix
    if fix is None or fix.applicability == "display" or not fix.edits:
        return None
    title = fix.title + (" (unsafe)" if fix.applicability == "unsafe" else "")
    return {"title": title, "preferred": fix.applicability == "safe",
            "edits": [_edit(source, e.span, e.text, encoding) for e in fix.edits]}


def _suppress_actions(d: Diagnostic, source: SourceFile, encoding: str) -> list[dict]:
    """`// shlo-lint: ignore[CODE]` above the line (or added to a directive already
    there), and `ignore-file[CODE]` at the top. Syntax errors cannot be suppressed."""
    if d.category == "syntax" or d.span is None:
        return []
    line = source.line_col(d.span.start)[0]
    here = _directive_edit(source, line, d.code, "ignore")
    if here is None and line > 1 and source.line_text(line - 1).lstrip().startswith("//"):
        here = _directive_edit(source, line - 1, d.code, "ignore")
    if here is None:
        text = source.line_text(line)
        indent = text[: len(text) - len(text.lstrip(" \t"))]
        start = source.offset(line, 1)
        here = (Span(start, start), f"{indent}// shlo-lint: ignore[{d.code}]\n")
    whole: tuple[Span, str] = (Span(0, 0), f"// shlo-lint: ignore-file[{d.code}]\n")
    if "ignore-file" in source.text:  # extend the file's directive rather than add a second
        for ln in range(1, source.num_lines + 1):
            if (found := _directive_edit(source, ln, d.code, "ignore-file")) is not None:
                whole = found
                break
    return [{"title": f"Suppress {d.code} on this line", "edits": [_edit(source, *here, encoding)]},
            {"title": f"Suppress {d.code} in this file", "edits": [_edit(source, *whole, encoding)]}]


def _directive_edit(source: SourceFile, line: int, code: str, kind: str) -> tuple[Span, str] | None:
    """Add `code` to the `kind` directive on `line`, if there is one."""
    text = source.line_text(line)
    m = next((m for m in _DIRECTIVE.finditer(text) if m.group(1) == kind), None)
    if m is None:
        return None
    at = source.offset(line, m.end(2) + 1)
    return Span(at, at), (f", {code}" if m.group(2).strip() else code)


# ----------------------------------------------------------------------------- hover, actions
def hover_text(linted: Linted, offset: int) -> str | None:
    """Markdown: for each diagnostic under the cursor, its message and its rule's docs."""
    parts = []
    for d in linted.diagnostics:
        if d.span is None or not d.span.start <= offset <= max(d.span.end, d.span.start + 1):
            continue
        spec = registry.get(d.code)
        head = f"**{d.code}** `{d.name}` ({d.severity.value})" + (f" — {spec.spec}" if spec and spec.spec else "")
        body = [head, "", d.message]
        if d.help:
            body += ["", f"*help:* {d.help}"]
        if spec is not None and spec.doc:
            body += ["", spec.doc, "", f"[{d.code} documentation]({spec.help_uri})"]
        parts.append("\n".join(body))
    return "\n\n---\n\n".join(parts) or None


def code_actions(server: ShloLintServer, params: t.CodeActionParams) -> list[t.CodeAction]:
    uri = params.text_document.uri
    wanted = params.context.only
    out: list[t.CodeAction] = []
    if not wanted or any(t.CodeActionKind.QuickFix.value.startswith(k) for k in wanted):
        for diag in params.context.diagnostics:
            data = diag.data if diag.source == SOURCE and isinstance(diag.data, dict) else {}
            for a in data.get("actions", []):
                out.append(t.CodeAction(a["title"], kind=t.CodeActionKind.QuickFix, diagnostics=[diag],
                                        is_preferred=a.get("preferred") or None,
                                        edit=_workspace_edit(server, uri, data.get("version"), a["edits"])))
            if data.get("deadlock"):
                out.append(t.CodeAction("Show the deadlock as a picture (HTML report)",
                                        kind=t.CodeActionKind.QuickFix, diagnostics=[diag],
                                        command=t.Command("Show the deadlock as a picture", SHOW_REPORT,
                                                          arguments=[uri])))
    if wanted and any(FIX_ALL.startswith(k) for k in wanted) and (fix_all := _fix_all(server, uri)):
        out.append(fix_all)
    return out


def _fix_all(server: ShloLintServer, uri: str) -> t.CodeAction | None:
    linted = server.linted.get(uri)
    if linted is None:
        return None
    text = linted.source.text
    new, applied = apply_fixes(text, linted.diagnostics)
    if not applied or new == text:
        return None
    edit = _edit(linted.source, Span(0, len(text)), new, server.encoding)
    return t.CodeAction("Fix all safe shlo-lint problems", kind=FIX_ALL,
                        edit=_workspace_edit(server, uri, linted.version, [edit]))


def _workspace_edit(server: ShloLintServer, uri: str, version: int | None, edits: list[dict]) -> t.WorkspaceEdit:
    """Versioned when the client supports it, so edits made for an older text are refused."""
    text_edits = [t.TextEdit(t.Range(t.Position(**e["range"]["start"]), t.Position(**e["range"]["end"])),
                             e["newText"]) for e in edits]
    caps = server.client_capabilities.workspace
    if caps and caps.workspace_edit and caps.workspace_edit.document_changes:
        doc = t.OptionalVersionedTextDocumentIdentifier(uri=uri, version=version)
        return t.WorkspaceEdit(document_changes=[t.TextDocumentEdit(doc, text_edits)])
    return t.WorkspaceEdit(changes={uri: text_edits})


def write_report(linted: Linted) -> Path:
    """The document's HTML report, in a new temporary directory."""
    import tempfile

    from ..report import render

    page = render("html", linted.diagnostics, {linted.source.path: linted.source}, registry.get,
                  summary={"files": 1}, title=f"shlo-lint: {Path(linted.source.path).name}")
    out = Path(tempfile.mkdtemp(prefix="shlo-lint-")) / (Path(linted.source.path).stem + ".shlo-lint.html")
    out.write_text(page, encoding="utf-8")
    return out


async def show_report(server: ShloLintServer, uri: str) -> dict:
    """SHOW_REPORT: write the page and ask the client to open it in the browser; a
    client without window/showDocument is told the file's path instead."""
    linted = server.linted.get(uri)
    if linted is None:
        raise ValueError(f"{uri} has not been linted")
    path = write_report(linted)
    page_uri = from_fs_path(str(path)) or path.as_uri()
    window = server.client_capabilities.window
    shown = False
    if window is not None and window.show_document is not None and window.show_document.support:
        result = await server.window_show_document_async(t.ShowDocumentParams(uri=page_uri, external=True))
        shown = bool(result and result.success)
    if not shown:
        server.window_show_message(t.ShowMessageParams(t.MessageType.Info, f"shlo-lint: report written to {path}"))
    return {"uri": page_uri, "shown": shown}


# ----------------------------------------------------------------------------- handlers
def create_server(debounce_ms: int = DEFAULT_DEBOUNCE_MS) -> ShloLintServer:
    server = ShloLintServer(debounce_ms)

    @server.feature(t.SHUTDOWN)
    def shutdown(ls: ShloLintServer, params: None) -> None:
        ls.shut_down = True
        for uri in list(ls.pending):  # nothing more is published
            ls.cancel_pending(uri)

    @server.feature(t.INITIALIZED)
    def initialized(ls: ShloLintServer, params: t.InitializedParams) -> None:
        ls.loop = asyncio.get_running_loop()
        index_lines(ls.workspace)  # a keystroke's change spliced in, not the text rewritten (text_document.py)
        ls.worker.submit(_warm_up)
        asyncio.ensure_future(ls.watch_settings())

    @server.feature(t.WORKSPACE_DID_CHANGE_WATCHED_FILES)
    def watched_files_changed(ls: ShloLintServer, params: t.DidChangeWatchedFilesParams) -> None:
        if any(change.uri.endswith("/pyproject.toml") for change in params.changes):
            ls.relint_all()

    @server.feature(t.TEXT_DOCUMENT_DID_OPEN)
    def did_open(ls: ShloLintServer, params: t.DidOpenTextDocumentParams) -> None:
        ls.lint_soon(params.text_document.uri)

    @server.feature(t.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(ls: ShloLintServer, params: t.DidChangeTextDocumentParams) -> None:
        ls.lint_later(params.text_document.uri)

    @server.feature(t.TEXT_DOCUMENT_DID_SAVE)
    def did_save(ls: ShloLintServer, params: t.DidSaveTextDocumentParams) -> None:
        if params.text_document.uri.endswith("/pyproject.toml"):  # a client that sends us every file's saves
            ls.relint_all()
        else:
            ls.lint_soon(params.text_document.uri)

    @server.feature(t.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls: ShloLintServer, params: t.DidCloseTextDocumentParams) -> None:
        ls.forget(params.text_document.uri)

    @server.feature(t.TEXT_DOCUMENT_HOVER)
    def hover(ls: ShloLintServer, params: t.HoverParams) -> t.Hover | None:
        linted = ls.linted.get(params.text_document.uri)
        text = linted and hover_text(linted, offset_at(linted.source, params.position, ls.encoding))
        return t.Hover(t.MarkupContent(t.MarkupKind.Markdown, text)) if text else None

    @server.feature(t.TEXT_DOCUMENT_CODE_ACTION,
                    t.CodeActionOptions(code_action_kinds=[t.CodeActionKind.QuickFix, FIX_ALL]))
    def code_action(ls: ShloLintServer, params: t.CodeActionParams) -> list[t.CodeAction]:
        return code_actions(ls, params)

    @server.command(SHOW_REPORT)
    async def show_report_command(ls: ShloLintServer, uri: str) -> dict:
        return await show_report(ls, uri)

    return server


def _warm_up() -> None:
    """Load the rules and build the parser before the first document arrives."""
    registry.load()
    header_parser()


def serve(debounce_ms: int = DEFAULT_DEBOUNCE_MS) -> int:
    """Run the server on stdin/stdout until the client says exit, closes stdin or
    stops reading stdout; the exit code: 0 after a `shutdown` request, else 1 (the
    LSP rule for `exit`, and for a client that went away without one).
    Standard input goes through FramedStdin: malformed framing is logged and
    skipped, never a deaf server; standard output through ClientOutput: it stays
    open for the process's exit, and a closed one ends the server (framing.py)."""
    import sys

    from .framing import ClientOutput, FramedStdin

    logging.basicConfig(level=logging.WARNING, format="shlo-lint lsp: %(levelname)s: %(message)s")
    server = create_server(debounce_ms)
    stdin = FramedStdin(sys.stdin.buffer, server.log_framing)
    # pygls catches the SystemExit its `exit` handler raises (its code is lost) and
    # returns here, whichever way the session ended.
    server.start_io(stdin=stdin, stdout=ClientOutput(sys.stdout.buffer, server.log_framing, stdin.stop))
    server.worker.shutdown(wait=False, cancel_futures=True)
    return 0 if server.shut_down else 1
