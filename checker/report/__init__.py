"""Reporters: Diagnostic → text | concise | grouped | json | json-lines | sarif |
github | gitlab | junit | html.

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
from . import concise, github, gitlab, json_, junit, sarif, text


def _html(*args, **opts) -> str:
    from . import html  # its diagram code is loaded only for this format

    return html.render(*args, **opts)


FORMATS: dict[str, Callable[..., str]] = {
    "text": text.render,
    "concise": concise.render,
    "grouped": concise.render_grouped,
    "json": json_.render,
    "json-lines": json_.render_lines,
    "sarif": sarif.render,
    "github": github.render,
    "gitlab": gitlab.render,
    "junit": junit.render,
    "html": _html,
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
