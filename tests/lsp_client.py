"""A raw LSP client for the tests: `shlo-lint lsp` as a subprocess, JSON-RPC frames
written as bytes to its stdin and read back from its stdout (no LSP library, so a
test can send anything and see exactly how the process ends)."""
from __future__ import annotations

import json
import queue
import subprocess
import sys
import threading
import time

SERVER = [sys.executable, "-m", "shlo_lint", "lsp", "--debounce-ms", "50"]
TIMEOUT = 30


def frame(obj: dict | bytes, extra: int = 0, length: bytes | None = None) -> bytes:
    body = obj if isinstance(obj, bytes) else json.dumps(obj).encode()
    n = length if length is not None else str(len(body) + extra).encode()
    return b"Content-Length: " + n + b"\r\n\r\n" + body


def hover(id_: int) -> dict:
    return {"jsonrpc": "2.0", "id": id_, "method": "textDocument/hover",
            "params": {"textDocument": {"uri": "file:///nowhere/x.mlir"}, "position": {"line": 0, "character": 0}}}


class RawClient:
    """Writes bytes to the server's stdin; reads its (well-formed) stdout frames."""

    def __init__(self, command=SERVER, read_stdout: bool = True):
        """read_stdout=False: nothing reads the server's output (a test closes it)."""
        self.proc = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        self.messages: queue.Queue = queue.Queue()
        self.stderr = bytearray()
        if read_stdout:
            threading.Thread(target=self._read_stdout, daemon=True).start()
        threading.Thread(target=self._read_stderr, daemon=True).start()
        self.seen: list[dict] = []

    def _read_stdout(self) -> None:
        out = self.proc.stdout
        while True:
            length = None
            while True:
                line = out.readline()
                if not line:
                    return
                if line.lower().startswith(b"content-length:"):
                    length = int(line.split(b":")[1])
                if line in (b"\r\n", b"\n"):
                    break
            self.messages.put(json.loads(out.read(length)))

    def _read_stderr(self) -> None:
        for line in iter(self.proc.stderr.readline, b""):
            self.stderr += line

    def send(self, data: bytes) -> None:
        self.proc.stdin.write(data)
        self.proc.stdin.flush()

    def response(self, id_: int, timeout: float = TIMEOUT) -> dict:
        deadline = time.monotonic() + timeout
        while True:
            for m in self.seen:
                if m.get("id") == id_ and "method" not in m:
                    return m
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError(f"no answer to request {id_} in {timeout} s; stderr:\n{self.stderr.decode()}")
            try:
                self.seen.append(self.messages.get(timeout=left))
            except queue.Empty:
                pass

    def notification(self, method: str, cond=lambda p: True, timeout: float = TIMEOUT) -> dict:
        deadline = time.monotonic() + timeout
        while True:
            for m in self.seen:
                if m.get("method") == method and cond(m["params"]):
                    return m["params"]
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError(f"no {method} in {timeout} s; stderr:\n{self.stderr.decode()}")
            try:
                self.seen.append(self.messages.get(timeout=left))
            except queue.Empty:
                pass

    def initialize(self) -> None:
        self.send(frame({"jsonrpc": "2.0", "id": 1, "method": "initialize",
                         "params": {"processId": None, "rootUri": None, "capabilities": {}}}))
        self.response(1)
        self.send(frame({"jsonrpc": "2.0", "method": "initialized", "params": {}}))

    def initialize_blind(self) -> None:
        """initialize and initialized without reading the answer (nothing reads stdout)."""
        self.send(frame({"jsonrpc": "2.0", "id": 1, "method": "initialize",
                         "params": {"processId": None, "rootUri": None, "capabilities": {}}}))
        self.notify("initialized", {})

    def notify(self, method: str, params: dict | None = None) -> None:
        self.send(frame({"jsonrpc": "2.0", "method": method, **({"params": params} if params is not None else {})}))

    def shutdown(self, id_: int = 9000) -> dict:
        """The `shutdown` request and its answer."""
        self.send(frame({"jsonrpc": "2.0", "id": id_, "method": "shutdown"}))
        return self.response(id_)

    def exit_code(self, timeout: float = TIMEOUT) -> int:
        """Wait for the process to end on its own, standard input still open (as an
        editor waits after `exit`); killed and AssertionError if it does not."""
        try:
            return self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            raise AssertionError(f"the server did not exit in {timeout} s; stderr:\n{self.stderr.decode()}") from None

    def shutdown_and_exit(self) -> int:
        """The orderly end of a session (shutdown, exit); the exit code."""
        assert self.shutdown()["result"] is None
        self.notify("exit")
        return self.exit_code()

    def close(self, timeout: float = TIMEOUT) -> int:
        try:
            self.proc.stdin.close()
        except OSError:
            pass
        try:
            return self.proc.wait(timeout)
        finally:
            if self.proc.poll() is None:
                self.proc.kill()
                self.proc.wait()
