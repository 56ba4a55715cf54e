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


class gc_paused:  # noqa: N801 - used as a function: `with gc_paused():`, like contextlib.suppress
    """The cyclic GC off for the `with` block, and back on after it if it was on
    before (nested pauses leave it to the outermost).

    A class, not a @contextmanager generator: leaving a generator allocates after
    the collector is back on, and everything made while it was paused is still in
    the youngest generation, so that one allocation would start a collection over
    all of it (tests/test_release_ir.py)."""

    __slots__ = ("enabled",)

    def __enter__(self) -> None:
        self.enabled = gc.isenabled()
        gc.disable()

    def __exit__(self, *exc) -> None:
        if self.enabled:
            gc.enable()
