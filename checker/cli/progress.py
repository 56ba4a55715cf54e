"""Progress on long runs: one `shlo-lint: [12/340] path` line on stderr, redrawn in
place, and what a long step is doing (`shlo-lint: deadlock analysis (14 s)`).

Only for a terminal: when stderr is not a TTY (CI logs, pre-commit, pipes,
editors) nothing is written, so reports and logs stay clean. A run of one item
shows no count; the line is redrawn at most every `interval` seconds and erased
when the run ends, before the report is printed. `SHLO_LINT_PROGRESS=0` turns it
off, `=1` on even without a terminal.

    with Progress(len(files), "checking") as progress:
        for path in files:
            progress.step(path)
            ...

Stages come from checker/lint/stages.py announcements (`with
listening(progress.stage)`): a stage is drawn once it has lasted `delay`
seconds, with its elapsed time ticking, so quick steps never flash by.
"""
from __future__ import annotations

import os
import shutil
import sys
import threading
import time
from typing import TextIO


class Progress:
    def __init__(self, total: int = 0, label: str = "", *, stream: TextIO | None = None,
                 enabled: bool | None = None, interval: float = 0.1, delay: float = 0.5):
        self.total = total
        self.label = label
        self.stream = stream if stream is not None else sys.stderr
        self.enabled = _wanted(self.stream) if enabled is None else enabled
        self.counting = total > 1
        """Whether [n/total] is shown (a run of one item has no count)."""
        self.interval = interval
        self.delay = delay
        self.done = 0
        self._item = ""
        self._stage: str | None = None
        self._stage_since = 0.0
        self._last = float("-inf")
        self._drawn = False
        self._shown = ""
        self._lock = threading.Lock()
        self._ticker: threading.Thread | None = None
        self._stop = threading.Event()

    def step(self, item: str = "") -> None:
        """Mark the start of the next item (1-based count) and redraw if it is time."""
        self.done += 1
        if not self.enabled:
            return
        with self._lock:
            self._item, self._stage = item, None
            now = time.monotonic()
            if not self.counting or (now - self._last < self.interval and self.done < self.total):
                return
            self._last = now
            self._draw()

    def stage(self, text: str) -> None:
        """What runs now, until the next stage or item: drawn after `delay` seconds."""
        if not self.enabled:
            return
        with self._lock:
            self._stage, self._stage_since = text, time.monotonic()
        if self._ticker is None:
            self._ticker = threading.Thread(target=self._tick, name="shlo-lint-progress", daemon=True)
            self._ticker.start()

    def _tick(self) -> None:
        """Redraw a stage that has lasted `delay` seconds, every quarter second (the
        main thread is busy in the step itself: an analysis, a subprocess)."""
        while not self._stop.wait(0.25):
            with self._lock:
                if self._stage is not None and time.monotonic() - self._stage_since >= self.delay:
                    self._draw()

    def _draw(self) -> None:
        head = "shlo-lint: "
        if self.counting:
            head += f"{self.label + ' ' if self.label else ''}[{self.done}/{self.total}] "
        tail = ""
        if self._stage is not None and time.monotonic() - self._stage_since >= self.delay:
            tail = f"{self._stage} ({time.monotonic() - self._stage_since:.0f} s)"
        item = self._item if self.counting else ""
        width = shutil.get_terminal_size((80, 24)).columns - 1
        room = width - len(head) - (len(tail) + 2 if tail and item else len(tail))
        if len(item) > room:
            item = "..." + item[-max(room - 3, 0):] if room > 3 else ""
        line = (head + item + (": " if tail and item else "") + tail)[:width]
        if self._drawn and line == self._shown:
            return  # (the ticker redraws only what changed: the seconds)
        self.stream.write("\r\x1b[K" + line)
        self.stream.flush()
        self._drawn, self._shown = True, line

    def close(self) -> None:
        """Stop the stage ticker and erase the line, so whatever is printed next starts clean."""
        self._stop.set()
        if self._ticker is not None:
            self._ticker.join(timeout=1)
        with self._lock:
            self._stage = None
            if self._drawn:
                self.stream.write("\r\x1b[K")
                self.stream.flush()
                self._drawn = False

    def __enter__(self) -> "Progress":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def _wanted(stream: TextIO) -> bool:
    forced = os.environ.get("SHLO_LINT_PROGRESS", "").strip().lower()
    if forced in ("0", "false", "no", "off"):
        return False
    if forced in ("1", "true", "yes", "on"):
        return True
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False
