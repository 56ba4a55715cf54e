"""Lark's contextual lexer without its start-up bill: union regexes compiled when hot.

Lark's contextual lexer keeps one scanner per set of terminals a parser state
accepts, and a scanner compiles one big alternation of all its terminals
(`(?P<A>...)|(?P<B>...)|...`) the first time it is used. The grammar's states
need ~30 such unions for even a 1 kB file, and Python's `re` compiles them in
a third of a one-file run once the imports are lazy (docs/performance.md,
"Start-up"), while the ~45 distinct terminal patterns compile in a fraction of that.

`install(lark)` makes each of the Lark instance's scanners match terminal by
terminal, in the union's order, with the terminals' own (shared, compiled once)
patterns, and compile the union only after `HOT` matches, when the per-token
saving pays for it. Alternation in `re` takes the first alternative that
matches at the position, so trying the alternatives one by one in the same
order gives the same token, type and length: the tokens are identical, only
when the compile happens changes (tests/test_startup.py compares the two on the
corpus).

Only Lark's own pure-Python lexer classes are touched (a Cython front end, or a
newer Lark whose internals differ, is left as it is).
"""
from __future__ import annotations

from lark import Lark
from lark.lexer import BasicLexer, ContextualLexer, Scanner

try:  # the internals this mirrors (lark >= 1.2: scanners match a TextSlice)
    from lark.lexer import CallChain, TextSlice, _create_unless  # noqa: F401 - TextSlice: the version probe
    SUPPORTED = True
except ImportError:  # pragma: no cover - another lark: its lexer is left as it is
    SUPPORTED = False

HOT = 256
"""Matches on one scanner before its union regex is compiled."""

_PATTERNS: dict[tuple[str, int], object] = {}


class LazyScanner(Scanner):
    """A Scanner whose union regexes are built on the `HOT`-th match, not in __init__."""

    def __init__(self, terminals, g_regex_flags, re_, use_bytes):  # noqa: D107 - see Scanner
        self.terminals = terminals
        self.g_regex_flags = g_regex_flags
        self.re_ = re_
        self.use_bytes = use_bytes
        self.allowed_types = {t.name for t in terminals}
        self._mres = None
        self._uses = 0
        singles = []
        for t in terminals:
            key = (t.pattern.to_regexp(), g_regex_flags)
            pattern = _PATTERNS.get(key)
            if pattern is None:
                pattern = _PATTERNS[key] = re_.compile(key[0], g_regex_flags)
            singles.append((pattern.match, t.name))
        self._singles = singles

    def _hot(self) -> None:
        self._mres = self._build_mres(self.terminals, len(self.terminals))
        self._singles = None

    def match(self, text, pos):
        if self._mres is None:
            self._uses += 1
            if self._uses < HOT:
                end = text.end
                s = text.text
                for match, name in self._singles:
                    m = match(s, pos, end)
                    if m:
                        return m.group(0), name
                return None
            self._hot()
        return Scanner.match(self, text, pos)

    def fullmatch(self, text: str):
        if self._mres is None:
            self._hot()
        return Scanner.fullmatch(self, text)


class LazyBasicLexer(BasicLexer):
    """BasicLexer building a LazyScanner (same callbacks, same terminals)."""

    def _build_scanner(self) -> Scanner:
        # BasicLexer._build_scanner (lark 1.2-1.3) with LazyScanner for Scanner.
        terminals, self.callback = _create_unless(self.terminals, self.g_regex_flags, self.re, self.use_bytes)
        assert all(self.callback.values())
        for type_, f in self.user_callbacks.items():
            if type_ in self.callback:
                self.callback[type_] = CallChain(self.callback[type_], f, lambda t: t.type == type_)
            else:
                self.callback[type_] = f
        return LazyScanner(terminals, self.g_regex_flags, self.re, self.use_bytes)


def install(lark: Lark) -> Lark:
    """Make `lark`'s contextual lexer compile its union regexes lazily (see the module doc)."""
    lexer = getattr(getattr(lark, "parser", None), "lexer", None)
    if not SUPPORTED or type(lexer) is not ContextualLexer:
        return lark
    for basic in {id(b): b for b in (*lexer.lexers.values(), lexer.root_lexer)}.values():
        if type(basic) is BasicLexer and not basic.use_bytes:
            basic.__class__ = LazyBasicLexer  # (one whose scanner is already built keeps it)
    return lark
