"""`shlo-lint lsp` against a client that writes bad bytes: a raw stdio client (a
subprocess and bytes, no LSP library) sends a malformed message, then a request,
and the server must answer that request (or exit with a logged reason); every
wait is bounded."""
from __future__ import annotations

import io
import json
import sys
import time

import pytest

from lsp_client import RawClient, frame, hover
from shlo_lint.checker.editor.framing import FramedStdin


@pytest.fixture
def client():
    c = RawClient()
    c.initialize()
    yield c
    if c.proc.poll() is None:
        c.close()


# Each: the malformed bytes, what the log says about them.
MALFORMED = {
    "content_length_longer_than_body": (frame(hover(50), extra=37), "longer than the message"),
    "content_length_not_a_number": (frame(hover(50), length=b"forty-two"), "is not a number"),
    "content_length_negative": (frame(hover(50), length=b"-12"), "out of range"),
    "content_length_huge": (frame(hover(50), length=b"99999999999999"), "out of range"),
    "content_length_shorter_than_body": (frame(hover(50), extra=-9), "not JSON"),
    "garbage_between_messages": (b"garbage!\r\n\x00\xff\xfe{]]\r\n\r\n\r\n", "skipped"),
    "garbage_without_newline": (b"\x1b[2J{not json", "skipped"),
    "header_line_not_name_value": (b"Content-Length: 20\r\nthis is not a header\r\n\r\n{}", "not `Name: value`"),
    "body_not_json": (frame(b"{this is not json at all}"), "not JSON"),
    "json_but_not_an_object": (frame(b"[1, 2, 3]"), ""),
}


@pytest.mark.parametrize("name", list(MALFORMED))
def test_server_answers_the_next_request_after_a_malformed_message(client, name):
    data, logged = MALFORMED[name]
    client.send(data)
    client.send(frame(hover(7)))
    assert client.response(7)["result"] is None
    client.send(frame(hover(8)))  # and keeps answering
    assert client.response(8)["result"] is None
    assert client.shutdown_and_exit() == 0  # and ends the session as the protocol says
    if logged:
        assert logged in client.stderr.decode(), client.stderr.decode()


def test_every_malformed_message_in_one_stream(client):
    for k, (data, _) in enumerate(MALFORMED.values()):
        client.send(data)
        client.send(frame(hover(100 + k)))
        assert client.response(100 + k)["result"] is None


def test_a_too_long_content_length_with_nothing_after_is_answered_once_the_client_waits(client):
    client.send(frame(hover(9), extra=25))  # the client now waits for the answer
    assert client.response(9, timeout=15)["result"] is None
    assert "only" in client.stderr.decode() and "handling it" in client.stderr.decode()


def test_the_framing_problem_is_also_in_the_clients_log(client):
    client.send(frame(hover(50), length=b"x"))
    client.send(frame(hover(10)))
    client.response(10)
    params = client.notification("window/logMessage", lambda p: "not a number" in p["message"])
    assert params["type"] == 2  # Warning


def test_end_of_input_exits_with_a_logged_reason(client):
    client.send(b"Content-Length: 100\r\n\r\n{\"jsonrpc\"")  # and then the client dies
    assert client.close() == 1  # no shutdown came: LSP's exit code for that (tests/test_lsp_lifecycle.py)
    err = client.stderr.decode()
    assert "end of input" in err and "exiting" in err


def test_an_internal_error_while_linting_is_a_published_shlo003_not_silence(tmp_path):
    sabotage = ("import shlo_lint.checker.editor.server as m\n"
                "def boom(*a, **k): raise RuntimeError('sabotaged linter')\n"
                "m.lint = boom\n"
                "m.serve()\n")
    c = RawClient([sys.executable, "-c", sabotage])
    try:
        c.initialize()
        uri = (tmp_path / "x.mlir").as_uri()
        c.send(frame({"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {"textDocument": {
            "uri": uri, "languageId": "mlir", "version": 1, "text": "func.func @f() {\n  return\n}\n"}}}))
        params = c.notification("textDocument/publishDiagnostics", lambda p: p["uri"] == uri)
        (d,) = params["diagnostics"]
        assert d["code"] == "SHLO003" and "sabotaged linter" in d["message"] and "please report" in d["message"]
    finally:
        c.close()


# ----------------------------------------------------------------------------- the reader alone
def _frames(data: bytes, chunks: int = 1) -> tuple[list[bytes], list[str]]:
    logs: list[str] = []
    reader = FramedStdin(io.BytesIO(data), logs.append, body_wait_s=0.01)
    out = []
    while True:
        line = reader.readline()
        if not line:
            return out, logs
        assert line.startswith(b"Content-Length: ")
        assert reader.readline() == b"\r\n"
        out.append(reader.read(int(line.split(b":")[1])))


def test_reader_passes_well_formed_messages_through_unchanged():
    msgs = [json.dumps(hover(k)).encode() for k in range(3)]
    data = b"".join(b"Content-Length: %d\r\nContent-Type: application/vscode-jsonrpc; charset=utf-8\r\n\r\n%s"
                    % (len(m), m) for m in msgs)
    out, logs = _frames(data)
    assert out == msgs and logs == ["the client closed standard input: exiting"]


def test_reader_resynchronises_on_each_kind_of_bad_input():
    good = json.dumps(hover(1)).encode()
    data = b"".join(d for d, _ in MALFORMED.values()) + frame(good)
    out, logs = _frames(data)
    assert out[-1] == good
    assert all(json.loads(b) for b in out)
    assert len(logs) >= len(MALFORMED) - 2  # each problem said (some in one line)


def test_reader_memory_stays_bounded_on_endless_garbage():
    logs: list[str] = []
    garbage = b"x" * (5 << 20) + frame(hover(1))
    reader = FramedStdin(io.BytesIO(garbage), logs.append, body_wait_s=0.01)
    assert reader.readline().startswith(b"Content-Length:")
    assert len(reader.buf) <= (1 << 16) + 64
    assert any("skipped 5242880 bytes" in m for m in logs), logs


def test_reader_is_linear_in_a_big_document():
    """A 20 MB didOpen arrives in 64 KiB reads; the body is searched once, not once per read."""
    body = json.dumps({"jsonrpc": "2.0", "method": "textDocument/didOpen",
                       "params": {"text": "%0 = stablehlo.add %a, %b\n" * 800_000}}).encode()
    start = time.perf_counter()
    out, _ = _frames(frame(body) + frame(hover(2)))
    assert [len(b) for b in out] == [len(body), len(json.dumps(hover(2)))]
    assert time.perf_counter() - start < 20
