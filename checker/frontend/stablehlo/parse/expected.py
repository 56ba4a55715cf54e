"""What a syntax error says was expected, in words.

At an error, Lark gives the set of terminals its LALR state accepts. Listed as
they are, that set is the parser's state, not the writer's: a half-typed op in the
editor (`%1 = stablehlo.add %0, %`) got "expected one of: '(', ')', '*', ',', '->',
':', '<', '<...>', '=', '?', ..., got '%'". `describe` turns the set (already in
display form: `'('`, `a type`, ...) into what may come next at that place of an
op, says after what, and never lists more than a few things:

* a sigil with no name (`%`, `^`, `@`): what must follow it;
* the known places of the grammar (grammar/stablehlo.lark), recognised by their
  set: after a generic op's operands (`:` and the op's type, or first its
  successors, properties, regions, attributes), at the start of a signature, in a
  type list, in a `tensor<...>` shape, in an operand list, after `name =` in
  an attribute dictionary;
* anywhere else, a short set is listed with plain words ("',' or '>'"); a long one
  is the parser's whole state, and only the unexpected token is named.
"""
from __future__ import annotations

import re

MAX_LISTED = 4
"""Sets with more members than this are not listed (they are LALR state dumps)."""

_SIGILS = {"'%'": "a value name (as in %0 or %arg0)", "'^'": "a block name (as in ^bb0)",
           "'@'": "a symbol name (as in @main)"}
_HIDDEN = {"'as'", "'<...>'"}
"""Terminals of rare forms (`%a as %b : T` operands, opaque `<...>`) that only confuse a list."""
_REGION = "a region"
_TYPE = "a type"
_DIM = "a dimension"


def describe(expected: set[str], got: str, before: str) -> str:
    """The message: `expected <words> after `<before>`, got <got>` (or `unexpected ...`)."""
    after = _after(before)
    if got in _SIGILS:
        return f"{got} must be followed by {_SIGILS[got]}"
    words = _place(expected, before.rstrip())
    if words is None:
        shown = sorted(expected - _HIDDEN, key=lambda s: (not s.startswith("'"), s))
        if not shown or len(shown) > MAX_LISTED:
            return f"unexpected {got}{after}"
        words = _or(shown)
    return f"expected {words}{after}, got {got}"


def _place(e: set[str], before: str) -> str | None:
    """Words for the places of an op that are recognised by their set."""
    optional = [(("'['",), "successors [^bb]"), (("'<'",), "properties <{...}>"),
                (("'('", _REGION), "regions ({...})"), (("'{'",), "attributes {...}")]
    if "':'" in e and any(t in e for t in ("'['", "'<'", _REGION, "'{'")) and e <= {
            "':'", "'['", "'<'", "'('", _REGION, "'{'"}:
        first = [w for tokens, w in optional if any(t in e for t in tokens)]
        return "':' and the op's type" + (f" (or first its {_or(first)})" if first else "")
    if e == {"'('", _TYPE}:
        if before.endswith("->"):
            return "the result type (as in tensor<4xf32>) or a list of them (...)"
        return "the type: a function type (...) -> ... or a type (as in tensor<4xf32>)"
    if _TYPE in e and "')'" in e and e <= {"'('", "')'", "','", _TYPE}:
        return _or(["a type (as in tensor<4xf32>)", *(["','"] if "','" in e else []), "')'"])
    if _DIM in e:
        return _or(["a dimension (as in 4x or ?x)", *(["'*x' (unranked)"] if "'*x'" in e else []),
                    *(["the element type (as in f32)"] if _TYPE in e else [])])
    if "a value (%name)" in e and "')'" in e:
        return "an operand (%name) or ')'"
    if before.endswith("=") and {"an integer", "a string", "dense<...>"} <= e:
        return "an attribute value (as in 1, \"x\", [1, 2] or dense<...>)"
    return None


def _or(words: list[str]) -> str:
    return words[0] if len(words) == 1 else f"{', '.join(words[:-1])} or {words[-1]}"


def _after(before: str) -> str:
    """` after `tensor<4x`` : the last word written before the error (at most ~24
    characters of it); "" at the start of the text. A collapsed region reads {...}."""
    m = re.search(r"(\S+)\s*$", before.replace("\u00ab\u00bb", "{...}"))
    if m is None:
        return ""
    word = m.group(1)
    if len(word) > 24:
        word = "\u2026" + word[-23:]
    return f" after `{word}`"
