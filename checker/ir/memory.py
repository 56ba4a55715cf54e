"""The cyclic garbage collector paused while a program's objects are built or
taken apart.

Reading, lowering, linting or signing a big module makes hundreds of thousands
of objects and frees none until it is done; every collection those allocations
trigger re-walks all of them (measured: 30-50% of the StableHLO scan, half the
HLO scan, a third of a signature, on corpus/big's modules). Reference counting
still frees what it can meanwhile.
"""
from __future__ import annotations

import gc
from contextlib import contextmanager
from typing import Iterator


@contextmanager
def gc_paused() -> Iterator[None]:
    """The cyclic GC off for the block, and back on after it if it was on before
    (nested pauses leave it to the outermost)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()
