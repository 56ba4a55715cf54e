"""What a rule read while it ran (document.py): module-wide state
(`TrackedContext`), header fields (`ReadHeader`). Which `ctx.cache` entries are
module-wide is said where each key is declared (lint/context.CacheKey)."""
from __future__ import annotations

from typing import Any

from ...ir.core import Module, OpHeader, Operation
from ...lint.context import PER_OP, CacheKey, Context


class ReadHeader:
    """A header handed to the module op's rules while they run: the fields they read
    (and, of `attributes`, which names) go to `reads`."""

    __slots__ = ("_h", "_reads", "_attrs")

    def __init__(self, header: OpHeader, reads: set[str]):
        self._h = header
        self._reads = reads
        self._attrs = None

    def __getattr__(self, name: str) -> Any:
        if name == "attributes":
            if self._attrs is None:
                self._attrs = ReadAttrs(self._h.attributes, self._reads)
            return self._attrs
        self._reads.add(name)
        return getattr(self._h, name)


class ReadAttrs(dict):
    """An attribute dict noting each name looked up ("attr:NAME"), or all ("attributes")."""

    __slots__ = ("_reads",)

    def __init__(self, attrs: dict, reads: set[str]):
        super().__init__(attrs)
        self._reads = reads

    def get(self, key, default=None):
        self._reads.add(f"attr:{key}")
        return super().get(key, default)

    def __getitem__(self, key):
        self._reads.add(f"attr:{key}")
        return super().__getitem__(key)

    def __contains__(self, key):
        self._reads.add(f"attr:{key}")
        return super().__contains__(key)

    def _all(self) -> None:
        self._reads.add("attributes")

    def keys(self):
        self._all()
        return super().keys()

    def values(self):
        self._all()
        return super().values()

    def items(self):
        self._all()
        return super().items()

    def __iter__(self):
        self._all()
        return super().__iter__()

    def __len__(self):
        self._all()
        return super().__len__()

    def __eq__(self, other):
        self._all()
        return super().__eq__(other)

    __hash__ = None  # type: ignore[assignment]

    def copy(self):
        self._all()
        return dict(self)


class TrackedContext(Context):
    """The rules' Context, noting whether a rule read module-wide state."""

    def __init__(self, module: Module, grid, options: dict[str, Any] | None):
        self._module = module
        self._cache = TrackedCache()
        super().__init__(module, grid, options)

    @property
    def tracked_cache(self) -> "TrackedCache":
        """The cache, which notes what the rules read and write."""
        return self._cache

    @property
    def wide(self) -> bool:
        """Whether the rule running read module-wide state (reset before each tracked rule)."""
        return self._cache.wide

    @wide.setter
    def wide(self, value: bool) -> None:
        self._cache.wide = value

    @property
    def module(self) -> Module:  # type: ignore[override]
        self._cache.wide = True
        return self._module

    @module.setter
    def module(self, value: Module) -> None:
        self._module = value

    @property
    def cache(self) -> dict[str, Any]:  # type: ignore[override]
        return self._cache

    @cache.setter
    def cache(self, value: dict[str, Any]) -> None:
        pass  # the tracked dict stays


class TrackedCache(dict):
    """ctx.cache, noting reads of module-wide entries (`wide`) and, while the module
    op's rules run, the keys written. (No reference back to the Context: a cycle
    would leave the whole IR to the cyclic GC.)"""

    def __init__(self) -> None:
        super().__init__()
        self.wide = False
        self.written: set | None = None

    def _touch(self, key: Any, write: bool = False) -> None:
        if not (isinstance(key, CacheKey) and key.scope == PER_OP):
            self.wide = True
        if write and self.written is not None:
            self.written.add(key)

    def __getitem__(self, key):
        self._touch(key)
        return super().__getitem__(key)

    def __setitem__(self, key, value):
        self._touch(key, True)
        super().__setitem__(key, value)

    def __contains__(self, key):
        self._touch(key)
        return super().__contains__(key)

    def get(self, key, default=None):
        self._touch(key)
        return super().get(key, default)

    def setdefault(self, key, default=None):
        self._touch(key, True)
        return super().setdefault(key, default)

    def pop(self, key, *default):
        self._touch(key, True)
        return super().pop(key, *default)

    def __delitem__(self, key):
        self._touch(key, True)
        super().__delitem__(key)

    def _whole(self) -> None:
        """The whole cache read or written at once: module-wide."""
        self.wide = True
        if self.written is not None:
            self.written.add(None)

    def update(self, *args, **kw):
        self._whole()
        super().update(*args, **kw)

    def keys(self):
        self._whole()
        return super().keys()

    def values(self):
        self._whole()
        return super().values()

    def items(self):
        self._whole()
        return super().items()

    def __iter__(self):
        self._whole()
        return super().__iter__()

    def clear(self):
        self._whole()
        super().clear()


def self_contained(op: Operation, parsed: dict[Operation, OpHeader], clean: dict[Operation, OpHeader]) -> bool:
    """Every op in `op` (itself included) whose header was read (`parsed`) parsed
    cleanly and states its operand types: reading them looked at no other op. (A
    header nobody read is not parsed here: past full_parse_limit that could report
    a syntax error a full lint does not.)"""
    for inner in op.walk():
        h = parsed.get(inner)
        if h is None:
            continue
        if inner not in clean or (h.operands and (h.operand_types is None or len(h.operand_types) != len(h.operands))):
            return False
    return True
