"""`shlo-lint lsp` as an editor drives it: pytest-lsp starts `python -m shlo_lint lsp`
as a subprocess and speaks LSP to it over stdio, with VS Code's (and Neovim's)
client capabilities."""
from __future__ import annotations

import asyncio
import contextlib
import sys
from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types as t
from pygls.protocol import default_converter
from pygls.uris import from_fs_path
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities
from pytest_lsp.client import DEFAULT_CLIENT_FEATURES, register_lsp_features

from conftest import CORPUS, run_cli, run_json
from shlo_lint.checker.lint import registry

pytestmark = pytest.mark.asyncio(loop_scope="module")

SERVER = [sys.executable, "-m", "shlo_lint", "lsp", "--debounce-ms", "100"]
BUGGY = (CORPUS / "real" / "sendrecv_pair.buggy_type_mismatch.mlir").read_text()
FIXABLE = (CORPUS / "invalid" / "send_c5_device_transfer_host_type.mlir").read_text()
CLEAN = """module @m attributes {mhlo.num_partitions = 2 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<4xf32>) -> tensor<4xf32> {
    %0 = stablehlo.add %arg0, %arg0 : tensor<4xf32>
    return %0 : tensor<4xf32>
  }
}
"""


# ----------------------------------------------------------------------------- client
def recording_client() -> LanguageClient:
    """pytest-lsp's client, also keeping every publishDiagnostics (to see debouncing)
    and the capabilities the server registers (as VS Code accepts them)."""
    client = LanguageClient(converter_factory=default_converter)
    client.published = []  # type: ignore[attr-defined]
    client.registered = []  # type: ignore[attr-defined]

    def publish(c: LanguageClient, params: t.PublishDiagnosticsParams) -> None:
        c.diagnostics[params.uri] = params.diagnostics
        c.published.append(params)  # type: ignore[attr-defined]

    def register(c: LanguageClient, params: t.RegistrationParams) -> None:
        c.registered.extend(params.registrations)  # type: ignore[attr-defined]

    register_lsp_features(client, {**DEFAULT_CLIENT_FEATURES, t.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS: publish,
                                   t.CLIENT_REGISTER_CAPABILITY: register})
    return client


def _init(caps: str = "visual-studio-code") -> t.InitializeParams:
    return t.InitializeParams(capabilities=client_capabilities(caps), root_uri=from_fs_path(str(Path.cwd())))


@pytest_lsp.fixture(scope="module", config=ClientServerConfig(server_command=SERVER, client_factory=recording_client))
async def client(lsp_client: LanguageClient):
    await lsp_client.initialize_session(_init())
    yield
    await lsp_client.shutdown_session()


@contextlib.asynccontextmanager
async def session(command: list[str], caps: str = "visual-studio-code"):
    """A second server for one test (other capabilities, a sabotaged linter)."""
    c = await ClientServerConfig(server_command=command, client_factory=recording_client).start()
    try:
        await c.initialize_session(_init(caps))
        yield c
        await c.shutdown_session()
    finally:
        await c.stop()


async def published(client: LanguageClient, uri: str, version: int | None = None, timeout: float = 60):
    """The first diagnostics published for `uri` (at `version`, if given) from now on or already received."""
    async def wait():
        while True:
            for p in client.published:
                if p.uri == uri and (version is None or p.version == version):
                    return p
            await client.wait_for_notification(t.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)

    return await asyncio.wait_for(wait(), timeout)


async def published_after(client: LanguageClient, seen: int, uri: str, cond=lambda p: True, timeout: float = 60):
    """The first diagnostics published for `uri` after the first `seen` publications that satisfy `cond`."""
    async def wait():
        while True:
            for p in client.published[seen:]:
                if p.uri == uri and cond(p):
                    return p
            await client.wait_for_notification(t.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)

    return await asyncio.wait_for(wait(), timeout)


def open_doc(client: LanguageClient, path: Path, text: str, version: int = 1) -> str:
    path.write_text(text, encoding="utf-8")
    uri = from_fs_path(str(path))
    client.text_document_did_open(t.DidOpenTextDocumentParams(t.TextDocumentItem(uri, "mlir", version, text)))
    return uri


def change(client: LanguageClient, uri: str, version: int, text: str) -> None:
    client.text_document_did_change(t.DidChangeTextDocumentParams(
        t.VersionedTextDocumentIdentifier(version, uri), [t.TextDocumentContentChangeWholeDocument(text)]))


def apply_edit(text: str, edit: t.WorkspaceEdit, uri: str) -> str:
    """Apply a WorkspaceEdit to one document's text, as the editor would (UTF-16 positions)."""
    if edit.document_changes:
        edits = [e for dc in edit.document_changes for e in dc.edits if dc.text_document.uri == uri]
    else:
        edits = list((edit.changes or {}).get(uri, []))
    lines = text.splitlines(keepends=True)

    def offset(pos: t.Position) -> int:
        line = lines[pos.line] if pos.line < len(lines) else ""
        units = chars = 0
        while chars < len(line) and units < pos.character:
            units += 2 if ord(line[chars]) > 0xFFFF else 1
            chars += 1
        return sum(len(x) for x in lines[: pos.line]) + chars

    for e in sorted(edits, key=lambda e: (e.range.start.line, e.range.start.character), reverse=True):
        text = text[: offset(e.range.start)] + e.new_text + text[offset(e.range.end):]
    return text


async def actions_for(client: LanguageClient, uri: str, diag: t.Diagnostic) -> list[t.CodeAction]:
    return await client.text_document_code_action_async(t.CodeActionParams(
        t.TextDocumentIdentifier(uri), diag.range, t.CodeActionContext([diag])))


# ----------------------------------------------------------------------------- diagnostics
async def test_open_publishes_the_real_finding_with_range_code_link_and_related_send(client, tmp_path):
    uri = open_doc(client, tmp_path / "pair.mlir", BUGGY)
    (d,) = (await published(client, uri, 1)).diagnostics
    recv_line = BUGGY.splitlines()[6]
    col = recv_line.index('"stablehlo.recv"')
    assert d.range == t.Range(t.Position(6, col), t.Position(6, col + len('"stablehlo.recv"')))
    assert (d.code, d.source, d.severity) == ("SHLO120", "shlo-lint", t.DiagnosticSeverity.Error)
    assert d.message.startswith("recv: payload type (tensor<8xf32>) differs from the matching send's (tensor<4xf32>)")
    assert "\nhelp: declare the recv's results" in d.message
    assert d.code_description.href == registry.get("SHLO120").help_uri
    (rel,) = d.related_information
    send_col = BUGGY.splitlines()[5].index('"stablehlo.send"')
    assert rel.location.uri == uri and rel.location.range.start == t.Position(5, send_col)
    assert rel.message.startswith("matching send is here")


async def test_columns_are_utf16_code_units_after_non_ascii_text(client, tmp_path):
    # An unused suppression (SHLO004) after a comment with an astral and a BMP character.
    prefix = "  // 𝛼é "
    text = CLEAN.replace("    %0 =", f"{prefix}// shlo-lint: ignore[SHLO120]\n    %0 =")
    uri = open_doc(client, tmp_path / "unicode.mlir", text)
    (d,) = (await published(client, uri, 1)).diagnostics
    assert d.code == "SHLO004" and list(d.tags) == [t.DiagnosticTag.Unnecessary]
    assert d.range.start == t.Position(2, len(prefix) + 1)  # 𝛼 is two UTF-16 units, é one


async def test_utf8_position_encoding_when_the_client_asks_for_it(tmp_path):
    prefix = "  // 𝛼é "
    text = CLEAN.replace("    %0 =", f"{prefix}// shlo-lint: ignore[SHLO120]\n    %0 =")
    async with session(SERVER, "neovim@v0.11.0") as c:
        uri = open_doc(c, tmp_path / "unicode8.mlir", text)
        (d,) = (await published(c, uri, 1)).diagnostics
        assert d.range.start == t.Position(2, len(prefix.encode("utf-8")))


async def test_change_relints_once_after_a_burst_of_edits_and_save_relints(client, tmp_path):
    uri = open_doc(client, tmp_path / "edit.mlir", CLEAN)
    assert (await published(client, uri, 1)).diagnostics == ()
    for v in range(2, 7):  # five quick edits: only the last one is linted
        change(client, uri, v, BUGGY if v == 6 else CLEAN + f"// edit {v}\n")
    (d,) = (await published(client, uri, 6)).diagnostics
    assert d.code == "SHLO120"
    assert [p.version for p in client.published if p.uri == uri] == [1, 6]
    # an incremental edit fixing the recv's type clears it
    line = BUGGY.splitlines()[6]
    col = line.index("(tensor<8xf32>")
    client.text_document_did_change(t.DidChangeTextDocumentParams(
        t.VersionedTextDocumentIdentifier(7, uri),
        [t.TextDocumentContentChangePartial(t.Range(t.Position(6, col + 8), t.Position(6, col + 9)), "4")]))
    assert (await published(client, uri, 7)).diagnostics == ()
    before = len(client.published)
    client.text_document_did_save(t.DidSaveTextDocumentParams(t.TextDocumentIdentifier(uri)))
    await asyncio.wait_for(_until(lambda: len(client.published) > before), 30)  # save lints at once
    assert (client.published[-1].uri, client.published[-1].version) == (uri, 7)
    client.text_document_did_close(t.DidCloseTextDocumentParams(t.TextDocumentIdentifier(uri)))
    await asyncio.wait_for(_until(lambda: client.published[-1].uri == uri and client.published[-1].version is None), 30)


async def _until(cond) -> None:
    while not cond():
        await asyncio.sleep(0.02)


# ----------------------------------------------------------------------------- hover
async def test_hover_on_a_diagnostic_shows_the_rule_docs(client, tmp_path):
    uri = open_doc(client, tmp_path / "hover.mlir", BUGGY)
    (d,) = (await published(client, uri, 1)).diagnostics
    hover = await client.text_document_hover_async(t.HoverParams(t.TextDocumentIdentifier(uri), d.range.start))
    spec = registry.get("SHLO120")
    assert hover.contents.kind == t.MarkupKind.Markdown
    text = hover.contents.value
    assert "**SHLO120** `send-recv-payload-mismatch`" in text
    assert spec.summary in text and spec.help_uri in text and "payload type (tensor<8xf32>)" in text
    elsewhere = await client.text_document_hover_async(t.HoverParams(t.TextDocumentIdentifier(uri), t.Position(0, 0)))
    assert elsewhere is None


# ----------------------------------------------------------------------------- code actions
async def test_code_action_applies_the_rules_fix(client, tmp_path):
    uri = open_doc(client, tmp_path / "fix.mlir", FIXABLE)
    (d,) = (await published(client, uri, 1)).diagnostics
    assert d.code == "SHLO105"
    actions = await actions_for(client, uri, d)
    fix = next(a for a in actions if a.title.startswith("Set the channel type to DEVICE_TO_DEVICE"))
    assert fix.kind == t.CodeActionKind.QuickFix and list(fix.diagnostics) == [d]
    assert fix.edit.document_changes[0].text_document.version == 1  # refused by the editor if stale
    new = apply_edit(FIXABLE, fix.edit, uri)
    assert "channel_handle<handle = 1, type = 1>, source_target_pairs = dense<[[0, 1], [1, 2]]> : tensor<2x2xi64>}> : (" \
           "tensor<4xf32>, !stablehlo.token)" in new
    change(client, uri, 2, new)
    assert (await published(client, uri, 2)).diagnostics == ()


@pytest.mark.parametrize("which", ["on this line", "in this file"])
async def test_code_action_adds_a_suppression_comment(client, tmp_path, which):
    uri = open_doc(client, tmp_path / f"suppress_{which.split()[1]}.mlir", BUGGY)
    (d,) = (await published(client, uri, 1)).diagnostics
    actions = await actions_for(client, uri, d)
    action = next(a for a in actions if a.title == f"Suppress SHLO120 {which}")
    new = apply_edit(BUGGY, action.edit, uri)
    expected = ("      // shlo-lint: ignore[SHLO120]\n" if which == "on this line"
                else "// shlo-lint: ignore-file[SHLO120]\n")
    assert expected in new and len(new.splitlines()) == len(BUGGY.splitlines()) + 1
    change(client, uri, 2, new)
    assert (await published(client, uri, 2)).diagnostics == ()  # suppressed, and the comment is used


async def test_suppression_extends_an_existing_directive(client, tmp_path):
    text = BUGGY.replace('      %3:2 = "stablehlo.recv"', '      // shlo-lint: ignore[SHLO106]\n      %3:2 = "stablehlo.recv"')
    uri = open_doc(client, tmp_path / "extend.mlir", text)
    diags = (await published(client, uri, 1)).diagnostics
    d = next(x for x in diags if x.code == "SHLO120")
    action = next(a for a in await actions_for(client, uri, d) if a.title == "Suppress SHLO120 on this line")
    new = apply_edit(text, action.edit, uri)
    assert "// shlo-lint: ignore[SHLO106, SHLO120]\n" in new


# ----------------------------------------------------------------------------- robustness
GARBAGE = ["}}}}", "%0 = = =", '"unterminated', "module {\n  func.func @f(", "\x00\x01\x02", "", "(" * 5000,
           BUGGY[: len(BUGGY) // 2], "module @é {\n  %0 = \"stablehlo.send\"(\n", "\ufeff" + CLEAN, "\r\n".join(
               BUGGY.splitlines())]


async def test_malformed_text_becomes_diagnostics_and_the_server_keeps_going(client, tmp_path):
    uri = open_doc(client, tmp_path / "junk.mlir", CLEAN)
    await published(client, uri, 1)
    for v, junk in enumerate(GARBAGE, start=2):
        change(client, uri, v, junk)
        diags = (await published(client, uri, v)).diagnostics
        assert all(d.source == "shlo-lint" for d in diags)
        if junk.strip() and junk not in (BUGGY[: len(BUGGY) // 2],) and "stablehlo.recv" not in junk:
            assert any(d.code == "SHLO001" for d in diags), (junk[:40], diags)
        # the server still answers requests
        await client.text_document_hover_async(t.HoverParams(t.TextDocumentIdentifier(uri), t.Position(0, 0)))
    assert client.error is None


async def test_a_broken_pyproject_is_logged_and_defaults_are_used(client, tmp_path):
    (tmp_path / "pyproject.toml").write_text("[tool.shlo-lint]\nselectt = ['SHLO1']\n")
    uri = open_doc(client, tmp_path / "cfg.mlir", BUGGY)
    assert [d.code for d in (await published(client, uri, 1)).diagnostics] == ["SHLO120"]
    await asyncio.wait_for(_until(lambda: any("selectt" in m.message for m in client.log_messages)), 30)
    shown = [m for m in client.messages if "selectt" in m.message]
    assert shown[0].type == t.MessageType.Warning and "did you mean `select`?" in shown[0].message
    assert "linting with the default settings" in shown[0].message


def watched_change(client: LanguageClient, path: Path) -> None:
    client.workspace_did_change_watched_files(t.DidChangeWatchedFilesParams(
        [t.FileEvent(from_fs_path(str(path)), t.FileChangeType.Changed)]))


async def test_a_config_typo_is_a_diagnostic_on_its_pyproject_line_and_the_last_good_settings_stay(client, tmp_path):
    """The command line exits 2 on `num-partitons`; the editor shows it where it is
    written, says so, and keeps the settings that were good (SHLO120 stays ignored)."""
    assert any(r.method == t.WORKSPACE_DID_CHANGE_WATCHED_FILES for r in client.registered)  # VS Code watches
    pyproject = tmp_path / "pyproject.toml"
    py_uri = from_fs_path(str(pyproject))
    pyproject.write_text("[tool.shlo-lint]\nignore = ['SHLO120']\n")
    uri = open_doc(client, tmp_path / "typo.mlir", BUGGY)
    assert (await published(client, uri, 1)).diagnostics == ()

    seen = len(client.published)
    pyproject.write_text("[tool.shlo-lint]\nignore = ['SHLO120']\nnum-partitons = 8\n")
    watched_change(client, pyproject)
    (d,) = (await published_after(client, seen, py_uri)).diagnostics
    assert (d.range.start.line, d.range.start.character, d.range.end.line, d.range.end.character) == (2, 0, 2, 17)
    assert d.severity == t.DiagnosticSeverity.Error and d.source == "shlo-lint"
    assert d.message.startswith("unknown setting `num-partitons` in [tool.shlo-lint]; did you mean `num-partitions`?")
    cli = run_cli("typo.mlir", cwd=tmp_path)  # the command line says the same
    assert cli.returncode == 2 and d.message in cli.stderr and f"{pyproject}:3:1: " in cli.stderr
    await asyncio.wait_for(_until(lambda: any("num-partitons" in m.message for m in client.messages)), 30)
    (shown,) = [m for m in client.messages if "num-partitons" in m.message]
    assert shown.type == t.MessageType.Warning and f"{pyproject}:3:1" in shown.message
    assert "linting with the settings this file had when it was last valid" in shown.message
    relinted = await published_after(client, seen, uri)
    assert relinted.diagnostics == ()  # still ignored: the last good settings

    seen = len(client.published)
    pyproject.write_text("[tool.shlo-lint]\nselect = ['ALL']\n")  # fixed, and SHLO120 no longer ignored
    watched_change(client, pyproject)
    assert (await published_after(client, seen, py_uri)).diagnostics == ()
    relinted = await published_after(client, seen, uri)
    assert [x.code for x in relinted.diagnostics] == ["SHLO120"]
    assert len([m for m in client.messages if "num-partitons" in m.message]) == 1  # said once


async def test_a_pyproject_broken_from_the_start_uses_the_defaults_and_a_save_of_it_relints(client, tmp_path):
    pyproject = tmp_path / "pyproject.toml"
    py_uri = from_fs_path(str(pyproject))
    pyproject.write_text("[tool.shlo-lint]\nignore = ['SHLO120', 'SHL0104']\n")  # a selector that matches no rule
    uri = open_doc(client, tmp_path / "fresh.mlir", BUGGY)
    assert [d.code for d in (await published(client, uri, 1)).diagnostics] == ["SHLO120"]  # the defaults
    (d,) = (await published(client, py_uri)).diagnostics
    assert (d.range.start.line, d.range.start.character) == (1, 21)  # at the entry
    assert d.message == ("`ignore`: `SHL0104` matches no rule code, prefix, category or name; "
                         "did you mean `SHLO104`?")
    await asyncio.wait_for(_until(lambda: any("SHL0104" in m.message for m in client.messages)), 30)
    assert "linting with the default settings" in [m for m in client.messages if "SHL0104" in m.message][0].message

    seen = len(client.published)
    pyproject.write_text("[tool.shlo-lint]\nignore = ['SHLO120', 'SHLO104']\n")
    client.text_document_did_save(t.DidSaveTextDocumentParams(t.TextDocumentIdentifier(py_uri)))
    assert (await published_after(client, seen, py_uri)).diagnostics == ()
    assert (await published_after(client, seen, uri)).diagnostics == ()  # the new settings apply


async def test_settings_from_pyproject_apply(client, tmp_path):
    (tmp_path / "pyproject.toml").write_text("[tool.shlo-lint]\nignore = ['SHLO120']\n")
    uri = open_doc(client, tmp_path / "ignored.mlir", BUGGY)
    assert (await published(client, uri, 1)).diagnostics == ()


async def test_an_internal_error_is_logged_and_the_server_survives(tmp_path):
    sabotage = ("import shlo_lint.checker.editor.server as m\n"
                "def boom(*a, **k): raise RuntimeError('sabotaged linter')\n"
                "m.lint = boom\n"
                "m.serve()\n")
    async with session([sys.executable, "-c", sabotage]) as c:
        uri = open_doc(c, tmp_path / "x.mlir", BUGGY)
        await asyncio.wait_for(_until(lambda: any("sabotaged linter" in m.message for m in c.log_messages)), 30)
        (msg,) = [m for m in c.log_messages if "sabotaged linter" in m.message]
        assert msg.type == t.MessageType.Error and "internal error while linting" in msg.message
        assert await c.text_document_hover_async(t.HoverParams(t.TextDocumentIdentifier(uri), t.Position(0, 0))) is None
        change(c, uri, 2, CLEAN)  # keeps taking edits
        await asyncio.wait_for(_until(lambda: sum("sabotaged" in m.message for m in c.log_messages) == 2), 30)


HALF_TYPED = [  # (the op as it is being typed, words its syntax error must say)
    ("%1 = stablehlo.add %0, %", "'%' must be followed by a value name (as in %0 or %arg0)"),
    ('%1 = "stablehlo.add"(%0, %0)', "expected ':' and the op's type (or first its"),
    ("%1 = stablehlo.add %0, %0 : tensor<4x", "expected a dimension (as in 4x or ?x) or the element type (as in f32) "
                                              "after `tensor<4x`, got end of input"),
    ("%1 = stablehlo.add %0, %0 : tensor<4xf32", "expected ',' or '>' after `tensor<4xf32`"),
    ('%1 = "stablehlo.add"(%0, %0) : (tensor<4xf32>, tensor<4xf32>) ->',
     "expected the result type (as in tensor<4xf32>) or a list of them (...) after `->`"),
]


@pytest.mark.parametrize("line, words", HALF_TYPED)
async def test_a_half_typed_op_gets_words_not_the_parsers_token_list(client, tmp_path, line, words):
    """As the editor re-lints a keystroke (incrementally) and as `shlo-lint` says it."""
    text = CLEAN.replace("    return", f"    {line}\n    return")
    uri = open_doc(client, tmp_path / "half.mlir", CLEAN)
    await published(client, uri, 1)
    change(client, uri, 2, text)
    editor = [d.message for d in (await published(client, uri, 2)).diagnostics if d.code == "SHLO001"]
    (tmp_path / "half.mlir").write_text(text)
    code, out = run_json(str(tmp_path / "half.mlir"))
    cli = [d["message"] for d in out["diagnostics"] if d["code"] == "SHLO001"]
    assert code == 2 and cli == editor and len(editor) == 1, (cli, editor)
    (message,) = editor
    assert words in message, message
    assert "one of" not in message and "'<...>'" not in message and "..., got" not in message
    assert len(message) < 160


# ----------------------------------------------------------------------------- deadlocks
RING8 = (CORPUS.parent / "tests" / "fixtures" / "html" / "ring8_after_all_reduce.mlir").read_text()


async def test_a_deadlock_shows_each_process_and_offers_its_picture(client, tmp_path):
    uri = open_doc(client, tmp_path / "ring8.mlir", RING8)
    (d,) = (await published(client, uri, 1)).diagnostics
    assert d.code == "SHLO500"
    stories = [r.message for r in d.related_information if r.message.startswith("process (") and ": " in r.message]
    assert len(stories) == 8  # one per process: what it completed, where it is blocked, whom it waits for
    assert stories[0].startswith("process (0, 0): completed all_reduce") and "waits for process (0, 7)" in stories[0]
    assert all(r.location.range.start.line == 10 for r in d.related_information if r.message in stories)

    action = next(a for a in await actions_for(client, uri, d) if a.title.startswith("Show the deadlock"))
    if isinstance(action, t.Command):
        # lsprotocol's converter reads a CodeAction that carries a command as a Command
        # (the union `Command | CodeAction`), with the command object as a string
        import ast

        command = ast.literal_eval(action.command)
        name, arguments = command["command"], command["arguments"]
    else:
        name, arguments = action.command.command, action.command.arguments
    assert name == "shlo-lint.showReport"
    result = await client.workspace_execute_command_async(t.ExecuteCommandParams(name, arguments))
    (shown,) = client.shown_documents
    assert shown.external and shown.uri == result["uri"] and result["shown"] is True
    from pygls.uris import to_fs_path

    page = Path(to_fs_path(shown.uri)).read_text()
    assert page.startswith("<!DOCTYPE html>") and page.count('<g class="lane"') == 8


# ----------------------------------------------------------------------------- re-lint as you type
async def test_incremental_relints_publish_what_a_full_lint_gives(client, tmp_path):
    """Partial edits through the server (reused header parses, local findings and
    the deadlock verdict, or not): each published set equals a full lint's."""
    from shlo_lint.checker.lint.config import Config
    from shlo_lint.checker.lint.engine import lint_source
    from shlo_lint.checker.editor.server import UTF16, lsp_range
    from shlo_lint.checker.source.text import SourceFile

    text = RING8
    uri = open_doc(client, tmp_path / "ring.mlir", text)
    await published(client, uri, 1)
    recv = next(i for i, ln in enumerate(text.splitlines()) if '"stablehlo.recv"' in ln)
    line = text.splitlines()[recv]
    handle = line.index("handle = ") + len("handle = ")
    dim = line.rindex("(tensor<") + len("(tensor<")
    edits = [  # (line, start col, end col, new text)
        (recv, dim, dim + 1, "7"),  # the recv's result type: the deadlock verdict is reused
        (recv, handle, handle + 1, "5"),  # its channel: the analysis runs again
        (0, 0, 0, "// a comment on top\n"),  # every line moves
        (0, 0, 0, "\n"),
        (1, 0, 20, ""),
        (recv + 1, handle, handle + 1, line[handle]),
    ]
    codes = set()
    for version, (ln, c0, c1, new) in enumerate(edits, start=2):
        lines = text.splitlines(keepends=True)
        start = sum(len(x) for x in lines[:ln]) + c0
        end = sum(len(x) for x in lines[:ln]) + c1
        text = text[:start] + new + text[end:]
        client.text_document_did_change(t.DidChangeTextDocumentParams(
            t.VersionedTextDocumentIdentifier(version, uri),
            [t.TextDocumentContentChangePartial(t.Range(t.Position(ln, c0), t.Position(ln, c1)), new)]))
        got = (await published(client, uri, version)).diagnostics
        source = SourceFile(str(tmp_path / "ring.mlir"), text)
        want = lint_source(source, Config()).diagnostics
        assert [(d.code, d.message.split("\nhelp:")[0], d.range) for d in got] == \
            [(d.code, d.message, lsp_range(source, d.span, UTF16)) for d in want], (version, text)
        codes.update(d.code for d in got)
    assert {"SHLO500", "SHLO501"} & codes, codes  # a deadlock was there to get right
