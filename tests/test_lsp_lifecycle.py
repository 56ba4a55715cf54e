"""How `shlo-lint lsp` ends, seen from a real client process: the server runs as
a subprocess (the command line, as an editor starts it) and the test speaks
JSON-RPC to it over its stdin/stdout (tests/lsp_client.py). LSP's rule: after
`shutdown` the exit code is 0, without one it is 1; whichever way the client
goes, the server says nothing on stderr that looks like a bug of ours."""
from __future__ import annotations

import pytest

from conftest import CORPUS
from lsp_client import RawClient, frame, hover

BUGGY = (CORPUS / "real" / "sendrecv_pair.buggy_type_mismatch.mlir").read_text()


def open_buggy(client: RawClient, tmp_path) -> str:
    path = tmp_path / "pair.mlir"
    path.write_text(BUGGY, encoding="utf-8")
    uri = path.as_uri()
    client.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "mlir", "version": 1,
                                                             "text": BUGGY}})
    return uri


def assert_no_bug_on_stderr(client: RawClient) -> None:
    err = client.stderr.decode()
    assert "internal error" not in err and "Traceback" not in err and "Exception ignored" not in err, err


def test_a_whole_session_initialize_to_exit_ends_with_code_0(tmp_path):
    c = RawClient()
    try:
        c.initialize()
        uri = open_buggy(c, tmp_path)
        published = c.notification("textDocument/publishDiagnostics", lambda p: p["uri"] == uri)
        assert [d["code"] for d in published["diagnostics"]] == ["SHLO120"]
        assert c.shutdown_and_exit() == 0  # stdin still open: the server leaves on `exit` alone
    finally:
        c.close()
    assert_no_bug_on_stderr(c)


def test_exit_without_shutdown_is_code_1():
    c = RawClient()
    try:
        c.initialize()
        c.notify("exit")
        assert c.exit_code() == 1
    finally:
        c.close()
    assert_no_bug_on_stderr(c)


@pytest.mark.parametrize("shut_down", [True, False])
def test_end_of_input_exits_0_after_shutdown_else_1(shut_down):
    c = RawClient()
    c.initialize()
    if shut_down:
        c.shutdown()
    assert c.close() == (0 if shut_down else 1)  # close: the client closes the server's stdin
    assert "the client closed standard input: exiting" in c.stderr.decode()
    assert_no_bug_on_stderr(c)


def test_a_client_that_stops_reading_ends_the_server_without_a_traceback(tmp_path):
    """The client closes its end of the server's stdout but keeps stdin open (it hung,
    or a wrapper died): the server's next write fails; it says so once and exits."""
    c = RawClient(read_stdout=False)
    try:
        c.initialize_blind()
        c.proc.stdout.close()
        open_buggy(c, tmp_path)  # a publishDiagnostics to write
        c.send(frame(hover(5)))  # and an answer
        assert c.exit_code() == 1
    finally:
        c.close()
    assert "the client closed the server's output" in c.stderr.decode()
    assert c.stderr.decode().count("closed the server's output") == 1
    assert_no_bug_on_stderr(c)


def test_a_killed_client_mid_lint_ends_the_server_without_a_traceback(tmp_path):
    """Both pipes close at once while a document is being linted (the editor was killed)."""
    c = RawClient(read_stdout=False)
    try:
        c.initialize_blind()
        open_buggy(c, tmp_path)
        c.proc.stdout.close()
        assert c.close() == 1
    finally:
        c.close()
    assert_no_bug_on_stderr(c)
