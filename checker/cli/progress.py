"""Progress on long runs: one `shlo-lint: [12/340] path` line on stderr, redrawn in place.

Only for a terminal: when stderr is not a TTY (CI logs, pre-commit, pipes,
editors) nothing is written, so reports and logs stay clean. A run of one item
shows nothing; the line is redrawn at most every `interval` seconds and erased
when the run ends, before the report is printed. `SHLO_LINT_PROGRESS=0` turns it
off, `=1` on even without a terminal.

    with Progress(len(files), "checking") as progress:
        for path in files:
            progress.step(path)
            ...

Anything long (many files, a big process grid) can use it the same way.
"""
from __future__ import annotations

import os
import shutil
import sys
import time
from typing import TextIO


class Progress:
    def __init__(self, total: int, label: str = "", *, stream: TextIO | None = None,
                 enabled: bool | None = None, interval: float = 0.1):
        self.total = total
        self.label = label
        self.stream = stream if stream is not None else sys.stderr
        self.enabled = (total > 1 and _wanted(self.stream)) if enabled is None else enabled
        self.interval = interval
        self.done = 0
        self._last = float("-inf")
        self._drawn = False

    def step(self, item: str = "") -> None:
        """Mark the start of the next item (1-based count) and redraw if it is time."""
        self.done += 1
        if not self.enabled:
            return
        now = time.monotonic()
        if now - self._last < self.interval and self.done < self.total:
            return
        self._last = now
        self._draw(item)

    def _draw(self, item: str) -> None:
        head = f"shlo-lint: {self.label + ' ' if self.label else ''}[{self.done}/{self.total}] "
        width = shutil.get_terminal_size((80, 24)).columns - 1
        room = width - len(head)
        if len(item) > room:
            item = "..." + item[-max(room - 3, 0):] if room > 3 else ""
        self.stream.write("\r\x1b[K" + head + item)
        self.stream.flush()
        self._drawn = True

    def close(self) -> None:
        """Erase the line, so whatever is printed next starts clean."""
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
