"""The language server's standard input and output, as pygls uses them.

`FramedStdin` makes standard input well-framed before pygls reads it;
`ClientOutput` is standard output as pygls writes to it (at the end).

pygls 2.x (pygls/io_.py `run_async`) reads `Content-Length: N` header lines with
`readline()` and then exactly N body bytes with `read(N)`, trusting both: a
Content-Length longer than the body makes that read swallow the next messages,
one that is not a number is skipped and its body then read as header lines, and
bytes between messages can leave the loop waiting for a blank line that never
comes. Any of these leaves the server alive and deaf.

`FramedStdin` sits between the real stdin and pygls (`start_io(stdin=...)`): it
finds each `Content-Length:` header itself and hands pygls only well-formed
frames, so pygls' own loop never goes wrong. What it does about bad input, each
time logged (stderr and, through `log`, window/logMessage):

* bytes before a header (garbage, a second blank line): skipped up to the next
  `Content-Length:`;
* a Content-Length that is not a number, negative or over `max_body`: that header
  is dropped; its body is then skipped as garbage up to the next header;
* a body that holds the next message's header (raw `Content-Length: N` + CRLF,
  which cannot occur inside JSON): the declared length was too long; the body is
  cut there, handled if it is valid JSON, and reading goes on from that header;
* a body still incomplete after `body_wait_s` with no more bytes coming, whose
  bytes so far are a complete JSON message: handled (the client is probably
  waiting for its answer); otherwise the wait is logged and goes on;
* a body that is not JSON: dropped (pygls would only log a traceback);
* end of input: pygls sees end of file and the server exits (logged);
* `stop()` (the client closed our output: nobody reads what we say) ends the input
  too, even while a read waits for the client: pygls sees end of file.

The buffer never holds more than one message plus a read chunk: skipped bytes are
dropped as they are scanned.
"""
from __future__ import annotations

import json
import os
import re
import select
from typing import BinaryIO, Callable

_HEADER = re.compile(rb"content-length[ \t]*:", re.I)
_NEXT_HEADER = re.compile(rb"Content-Length[ \t]*:[ \t]*[0-9]+[ \t]*\r?\n", re.I)
_LINE = re.compile(rb"([A-Za-z][A-Za-z0-9\-]*)[ \t]*:[ \t]*([^\r\n]*?)[ \t]*\r?\n")
CHUNK = 1 << 16
MAX_HEADER_BLOCK = 8192


def _fileno(raw: BinaryIO) -> int | None:
    """The stream's file descriptor; None for one without (a test's BytesIO, a closed stream)."""
    try:
        return raw.fileno()
    except (AttributeError, OSError, ValueError):
        return None


class FramedStdin:
    """A blocking reader (readline/read, as pygls' StdinAsyncReader calls them in its
    thread pool) that yields only `Content-Length: N\\r\\n\\r\\n<N bytes of JSON>`."""

    def __init__(self, raw: BinaryIO, log: Callable[[str], None], body_wait_s: float = 1.0,
                 max_body: int = 1 << 30):
        self.raw = raw
        self.fd = _fileno(raw)
        self.log = log
        self.body_wait_s = body_wait_s
        self.max_body = max_body
        self.buf = bytearray()
        self.out = bytearray()
        self.eof = False
        self.stopped = False
        self.skipped = 0
        """Bytes skipped since the last good header (logged when the header is found)."""
        # stop() writes a byte here: it wakes a read blocked on a client that says nothing.
        self.wake_r, self.wake_w = os.pipe() if self.fd is not None else (None, None)

    def stop(self) -> None:
        """End the input now (from any thread): the next read, or the one waiting, sees end of file."""
        self.stopped = True
        if self.wake_w is not None:
            try:
                os.write(self.wake_w, b"x")
            except OSError:  # already woken (the pipe is full): nothing to do
                pass

    # -- what pygls calls ----------------------------------------------------------
    def readline(self) -> bytes:
        while b"\n" not in self.out:
            if not self._next_message():
                return self._take(len(self.out))
        return self._take(self.out.index(b"\n") + 1)

    def read(self, n: int = -1) -> bytes:
        while n < 0 or len(self.out) < n:
            if not self._next_message():
                break
        return self._take(len(self.out) if n < 0 else min(n, len(self.out)))

    def _take(self, n: int) -> bytes:
        data = bytes(self.out[:n])
        del self.out[:n]
        return data

    # -- the raw stream ------------------------------------------------------------
    def _fill(self, timeout: float | None = None) -> bool:
        """Read what is there (waiting at most `timeout` s; None: until something
        comes). False on timeout or end of input."""
        if self.stopped:
            self.eof = True
        if self.eof:
            return False
        if self.fd is not None:
            ready, _, _ = select.select([self.fd, self.wake_r], [], [], timeout)
            if self.stopped:
                self.eof = True
                return False
            if not ready:
                return False
            chunk = os.read(self.fd, CHUNK)
        else:
            reader = getattr(self.raw, "read1", self.raw.read)
            chunk = reader(CHUNK)
        if not chunk:
            self.eof = True
            return False
        self.buf += chunk
        return True

    # -- framing -------------------------------------------------------------------
    def _next_message(self) -> bool:
        """Append one well-formed frame to `out`; False at the end of input."""
        while True:
            length = self._header()
            if length is None:
                if self.stopped:
                    return False  # whoever stopped us said why
                if self.buf.strip() or self.skipped:
                    self.log(f"end of input inside a message ({len(self.buf) + self.skipped} bytes unread)")
                self.log("the client closed standard input: exiting")
                return False
            body = self._body(length)
            if body is None:
                continue
            self.out += b"Content-Length: %d\r\n\r\n" % len(body) + body
            return True

    def _header(self) -> int | None:
        """Skip to the next header block and read it; the body length, or None at EOF."""
        while True:
            m = _HEADER.search(self.buf)
            if m is None:
                keep = 32  # a header split across two reads
                drop = max(0, len(self.buf) - keep)
                self.skipped += drop
                del self.buf[:drop]
                if not self._fill():
                    self.skipped += len(self.buf)
                    self.buf.clear()
                    return None
                continue
            if m.start():
                self.skipped += m.start()
                del self.buf[:m.start()]
            end = self._block_end()
            if end is None:
                if len(self.buf) > MAX_HEADER_BLOCK:
                    self._garbage("a header block over 8 KiB")
                    continue
                if self._fill(self.body_wait_s):
                    continue
                if self.eof:
                    self.skipped += len(self.buf)
                    self.buf.clear()
                    return None
                self.log(f"waiting for the end of a header block ({_preview(bytes(self.buf))}): "
                         f"a header must end with an empty line")
                self._fill()
                continue
            block = bytes(self.buf[:end])
            length = self._parse_block(block)
            if length is None:
                continue  # _parse_block said why and dropped what it had to
            del self.buf[:end]
            if self.skipped:
                self.log(f"skipped {self.skipped} bytes that were not a message before this header")
                self.skipped = 0
            return length

    def _block_end(self) -> int | None:
        """Offset just past the blank line ending the header block at buf[0], if there."""
        pos = 0
        while True:
            nl = self.buf.find(b"\n", pos)
            if nl < 0:
                return None
            line = self.buf[pos:nl + 1]
            if line in (b"\r\n", b"\n"):
                return nl + 1
            if not _LINE.fullmatch(line):
                return nl + 1  # not a header line: _parse_block rejects the block
            pos = nl + 1

    def _parse_block(self, block: bytes) -> int | None:
        headers = {}
        for line in block.splitlines(keepends=True):
            if line in (b"\r\n", b"\n"):
                break
            m = _LINE.fullmatch(line)
            if m is None:
                self._garbage(f"a header line that is not `Name: value` ({_preview(line)})")
                return None
            headers[m.group(1).lower()] = m.group(2)
        value = headers.get(b"content-length", b"")
        try:
            length = int(value)
        except ValueError:
            self._garbage(f"Content-Length {_preview(value)} is not a number")
            return None
        if length < 0 or length > self.max_body:
            self._garbage(f"Content-Length {length} is out of range (0..{self.max_body})")
            return None
        return length

    def _garbage(self, why: str) -> None:
        """Drop the header at buf[0] (and so everything up to the next one)."""
        self.log(f"malformed message header: {why}; skipping to the next header")
        self.skipped += 1
        del self.buf[:1]

    def _body(self, length: int) -> bytes | None:
        """The body of `length` bytes at buf[0], resynchronising when it is shorter."""
        waited_logged = False
        scanned = 0  # the body is searched once, chunk by chunk (a 100 MB document stays linear)
        while True:
            end = min(len(self.buf), length)
            m = _NEXT_HEADER.search(self.buf, max(0, scanned - 64), end)
            scanned = end
            if m is not None:
                body = bytes(self.buf[:m.start()])
                del self.buf[:m.start()]
                self.log(f"Content-Length {length} is longer than the message ({m.start()} bytes before the next "
                         f"header): resynchronising on that header")
                return self._json_or_none(body)
            if len(self.buf) >= length:
                body = bytes(self.buf[:length])
                del self.buf[:length]
                return self._json_or_none(body)
            if self._fill(self.body_wait_s):
                continue
            if self.eof:
                self.log(f"end of input {length - len(self.buf)} bytes short of a {length}-byte message")
                self.buf.clear()
                return None
            # Nothing more is coming for now: a complete JSON message is the client's
            # whole message with a wrong length (it waits for our answer).
            so_far = bytes(self.buf)
            if so_far.strip() and _is_json(so_far):
                self.buf.clear()
                self.log(f"Content-Length {length} but only {len(so_far)} bytes came, which are a whole message: "
                         f"handling it")
                return so_far
            if not waited_logged:
                waited_logged = True
                self.log(f"waiting for {length - len(self.buf)} more bytes of a {length}-byte message")

    def _json_or_none(self, body: bytes) -> bytes | None:
        if _is_json(body):
            return body
        self.log(f"dropped a {len(body)}-byte message that is not JSON ({_preview(body)})")
        return None


class ClientOutput:
    """Standard output as pygls writes to it (pygls wraps it: `write`, `flush`, `close`).

    * `close()`, which pygls calls on the `exit` notification, leaves the stream
      open: the process goes on to exit through the command line, which flushes
      standard output (a closed one made that an internal error, exit 2).
    * bytes go straight to the file descriptor (no buffer left behind to fail at
      exit) and, when the client has closed its end (it died, or killed the pipe),
      the first failed write is logged and `on_lost` called (the input is stopped,
      so the server exits); later writes are dropped without a word, where pygls
      would log a traceback for each.
    """

    def __init__(self, raw: BinaryIO, log: Callable[[str], None], on_lost: Callable[[], None]):
        self.raw = raw
        self.fd = _fileno(raw)
        self.log = log
        self.on_lost = on_lost
        self.lost = False

    def write(self, data: bytes) -> None:
        if self.lost:
            return
        try:
            if self.fd is None:
                self.raw.write(data)
                self.raw.flush()
                return
            view = memoryview(data)
            while view:
                view = view[os.write(self.fd, view):]
        except (OSError, ValueError) as e:  # EPIPE, ECONNRESET, a closed stream
            self.lost = True
            self.log(f"the client closed the server's output ({getattr(e, 'strerror', None) or e}): exiting")
            self.on_lost()

    def flush(self) -> None:
        """Nothing is buffered here (see write)."""

    def close(self) -> None:
        """Left open: see the class docstring."""


def _is_json(data: bytes) -> bool:
    try:
        return isinstance(json.loads(data), (dict, list))
    except (ValueError, UnicodeDecodeError, RecursionError):
        return False


def _preview(data: bytes, limit: int = 40) -> str:
    text = data[:limit].decode("utf-8", "replace")
    return repr(text) + ("..." if len(data) > limit else "")
