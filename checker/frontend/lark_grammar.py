"""What both front ends' Lark readers share: building a grammar's one Lark instance,
the names their "expected ..." messages give its terminals, and where a Lark error
stands and what it met.

Each reader words its own message from these (StableHLO's parse/expected.py, HLO's
grammar.py): only the reading of Lark is common.
"""
from __future__ import annotations

from importlib import resources
from typing import Callable

from lark import Lark, Token
from lark.exceptions import UnexpectedCharacters, UnexpectedInput, UnexpectedToken


def build_lark(grammar_file: str, **kwargs) -> Lark:
    """The LALR parser of `grammar/<grammar_file>`, its analysis cached on disk by Lark
    where it can write one."""
    text = resources.files("shlo_lint.grammar").joinpath(grammar_file).read_text("utf-8")
    try:
        return Lark(text, cache=True, **kwargs)
    except Exception:  # pragma: no cover - an unwritable cache directory and the like
        return Lark(text, **kwargs)


def terminal_names(lark: Lark, named: dict[str, str]) -> dict[str, str]:
    """How a message names each terminal: as `named` says, a literal as itself in
    quotes, any other by its lower-cased name."""
    out: dict[str, str] = {}
    for term in lark.terminals:
        if term.name in named:
            out[term.name] = named[term.name]
        elif term.pattern.type == "str":
            out[term.name] = f"'{term.pattern.value}'"
        else:
            out[term.name] = term.name.lower()
    out["$END"] = "end of input"
    return out


def shown_token(tok: Token) -> str:
    """A token as a message shows what it got: quoted, cut at 40 characters."""
    v = str(tok.value)
    if len(v) > 40:
        v = v[:37] + "..."
    return f"'{v}'"


def unexpected(err: UnexpectedInput, text: str,
               show: Callable[[Token], str] = shown_token) -> tuple[set[str], str, int, int]:
    """(the terminals Lark would have taken, what it got instead, start, end) of an
    error reading `text`; offsets into `text`."""
    if isinstance(err, UnexpectedToken):
        tok = err.token
        try:  # `accepts` replays the parser: exact, where `expected` is LALR's merged look-ahead
            expected = set(err.accepts or err.expected or ())
        except Exception:  # pragma: no cover - defensive
            expected = set(err.expected or ())
        if tok.type == "$END":
            got = "end of input"
            start = end = len(text.rstrip())
        else:
            got = show(tok)
            start, end = tok.start_pos, tok.end_pos
            if start is None:
                start = end = len(text)
    elif isinstance(err, UnexpectedCharacters):
        start = err.pos_in_stream
        end = start + 1
        got = f"'{text[start]}'" if start < len(text) else "end of input"
        expected = set(err.allowed or ())
    else:  # pragma: no cover - UnexpectedEOF (not raised by LALR in practice)
        start = end = len(text)
        got = "end of input"
        expected = set(getattr(err, "expected", ()) or ())
    return expected, got, start, end
