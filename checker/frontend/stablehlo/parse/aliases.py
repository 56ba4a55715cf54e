"""`#alias` / `!alias` definitions, parsed on first use and kept on the module
they belong to (nothing parsed for one file can answer another's lookup)."""
from __future__ import annotations

import re

from lark.exceptions import UnexpectedInput

from ....ir.attributes import Attribute
from ....ir.types import OpaqueType, Type
from .ctx import ParseCtx


# --------------------------------------------------------------------------- alias caches
class _AliasCache:
    """Parsed `#alias` / `!alias` definitions, kept on the module they belong to
    (so nothing parsed for one file can answer a lookup for another)."""

    def __init__(self):
        self._depth = 0  # nesting of alias definitions being resolved (cycle bound)

    def _table(self, module) -> dict:
        try:
            d = module.__dict__
        except AttributeError:  # pragma: no cover - a module without a __dict__
            return {}
        t = d.get("_alias_cache")
        if t is None:
            t = d["_alias_cache"] = {}
        return t

    def type_alias(self, module, name: str, run) -> Type | None:
        found = _alias_text(module, name)
        if found is None:
            return None
        return self._resolve(module, name, found, run, "type_only", OpaqueType(name))

    def attr_alias(self, module, name: str, run) -> Attribute | None:
        found = _alias_text(module, name)
        if found is None or found[0].lstrip().startswith("loc("):
            return None
        return self._resolve(module, name, found, run, "attr_only", None)

    def _resolve(self, module, name: str, found: tuple[str, int], run, rule: str, unreadable):
        """The definition `found` of alias `name` read from `rule` (`unreadable` where it
        does not parse), once per module; None inside a cycle or past 16 levels."""
        table = self._table(module)
        if name in table:
            return table[name]
        if self._depth > 16:
            return None
        self._depth += 1
        table[name] = None  # cycle guard
        try:
            got = run(rule, ParseCtx(found[0], found[1], module))
        except UnexpectedInput:
            got = unreadable
        finally:
            self._depth -= 1
        table[name] = got
        return got


def _alias_text(module, name: str) -> tuple[str, int] | None:
    """(definition text, its offset) of an alias: the scanner's `alias_texts`, else
    `attr_aliases` / `type_aliases` (text only; the offset is looked up in the source)."""
    texts = getattr(module, "alias_texts", None)
    if texts and name in texts:
        text, offset = texts[name]
        return text, offset
    table = getattr(module, "type_aliases" if name.startswith("!") else "attr_aliases", None) or {}
    if name in table:
        text = table[name]
        return text, _definition_offset(module, name, text)
    return None


def _definition_offset(module, name: str, text: str) -> int:
    """Where `name = text` is written in the module's source (so nested spans are right)."""
    src = module.source.text
    m = re.search(r"(?m)^[ \t]*" + re.escape(name) + r"[ \t]*=[ \t]*", src)
    if m is not None and src.startswith(text, m.end()):
        return m.end()
    return 0


ALIASES = _AliasCache()
