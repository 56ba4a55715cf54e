"""What a long step is starting — "parsing 30 MB", "deadlock analysis",
"compiling and running with XLA on 8 CPU devices" — told to whoever listens:
the command line's progress line on a terminal (checker/cli/progress.py).

The lint engine and the execution checker announce; they do not know who
listens. With no listener (the library, the language server, CI) an
announcement is a check of an empty list.

    with listening(progress.stage):
        lint_source(...)
"""
from __future__ import annotations

from contextlib import contextmanager
from typing import Callable, Iterator

_LISTENERS: list[Callable[[str], None]] = []


def announce(text: str) -> None:
    """Say what starts now (until the next announcement)."""
    for listener in _LISTENERS:
        listener(text)


@contextmanager
def listening(listener: Callable[[str], None]) -> Iterator[None]:
    """Call `listener` with every announcement made inside the block."""
    _LISTENERS.append(listener)
    try:
        yield
    finally:
        _LISTENERS.remove(listener)


def size(n_chars: int) -> str:
    """A file's size in words: 850 B, 12 KB, 30 MB."""
    if n_chars < 1000:
        return f"{n_chars} B"
    if n_chars < 1_000_000:
        return f"{n_chars / 1000:.0f} KB"
    return f"{n_chars / 1_000_000:.0f} MB"
