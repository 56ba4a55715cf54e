"""Reporters: Diagnostic → text | json | sarif | github.

Each format is a function
`render(diagnostics, sources, rules, *, summary=None, **opts) -> str`; reporters
read only Diagnostic/Note/Fix/Span/ProcessTrace values and SourceFile text, never
the IR. `sources` maps a Location's path to its SourceFile; `rules` maps a code
to its RuleSpec (or None for a code the registry does not know).
"""
from __future__ import annotations

from typing import Callable

from ..diagnostics import Diagnostic
from ..registry import RuleSpec
from ..source import SourceFile
from . import github, json_, sarif, text

FORMATS: dict[str, Callable[..., str]] = {
    "text": text.render,
    "json": json_.render,
    "sarif": sarif.render,
    "github": github.render,
}


def render(format: str, diagnostics: list[Diagnostic], sources: dict[str, SourceFile],
           rules: Callable[[str], RuleSpec | None] | None = None, **opts) -> str:
    """Render with the named format; opts (summary=, color=, ...) go to it, and a
    format ignores the options it does not know."""
    try:
        reporter = FORMATS[format]
    except KeyError:
        raise ValueError(f"unknown output format {format!r}; expected one of {', '.join(FORMATS)}") from None
    return reporter(diagnostics, sources, rules, **opts)


__all__ = ["FORMATS", "render"]
