"""The op registry of the interpreter.

Op implementations live in classes (one per op family, under `ops/` and in
`comm.py`) whose methods carry `@impl("stablehlo.x", ...)`; each class is
registered with `@register`. The interpreter imports the op modules (which
fills the registry) and asks `function_classes()` for them; op modules import
only this module and `runtime.py`, never the interpreter, so the imports run
one way: interpreter → op modules → registry / runtime.
"""
from __future__ import annotations

from typing import Callable

_CLASSES: list[type] = []


def impl(*names: str, blocking: bool = False):
    """Mark a method as the implementation of ops `names`. A blocking impl is a
    generator (it may `yield` Waits, or `yield from` regions that do)."""

    def mark(fn):
        fn._impl_names = names
        fn._impl_blocking = blocking
        return fn

    return mark


def register(cls: type) -> type:
    """Class decorator: the interpreter instantiates every registered class once
    per run and binds its `@impl` methods."""
    if cls not in _CLASSES:
        _CLASSES.append(cls)
    return cls


def function_classes() -> tuple[type, ...]:
    return tuple(_CLASSES)


def bind_impls(functions: "OpFunctions") -> dict[str, tuple[Callable, bool]]:
    """op name → (bound method, blocking) for one instance of a registered class."""
    out: dict[str, tuple[Callable, bool]] = {}
    for attr in dir(type(functions)):
        fn = getattr(type(functions), attr)
        names = getattr(fn, "_impl_names", None)
        if names:
            bound = getattr(functions, attr)
            for n in names:
                out[n] = (bound, fn._impl_blocking)
    return out


class OpFunctions:
    """Base of the op implementation classes. `interp` is the running
    interpreter (duck-typed: backend, world, grid, run_region, eval_region,
    result_type, where, ...)."""

    def __init__(self, interp):
        self.interp = interp

    @property
    def xp(self):
        return self.interp.backend.xp

    @property
    def backend(self):
        return self.interp.backend
