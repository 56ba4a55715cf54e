"""Reporters: Diagnostic → text | concise | grouped | json | json-lines | sarif |
github | gitlab | junit | html.

Each format is a function
`render(diagnostics, sources, rules, *, summary=None, **opts) -> str`; reporters
read only Diagnostic/Note/Fix/Span/ProcessTrace values and SourceFile text, never
the IR. `sources` maps a Location's path to its SourceFile; `rules` maps a code
to its documentation (`shared.RuleDoc`: the registry's RuleSpec, or None for a
code the registry does not know).
"""
from __future__ import annotations

from typing import Callable

from ..source.diagnostics import Diagnostic
from ..source.text import SourceFile
from .shared import RuleLookup


def _lazy(module: str, attr: str) -> Callable[..., str]:
    """A reporter imported on first use: `shlo-lint FILE` loads only the text
    reporter, not SARIF's sarif_om (a slow import) or the HTML diagrams."""

    def reporter(*args, **opts) -> str:
        import importlib

        return getattr(importlib.import_module(f"{__name__}.{module}"), attr)(*args, **opts)

    reporter.__name__ = reporter.__qualname__ = f"{module}.{attr}"
    return reporter


FORMATS: dict[str, Callable[..., str]] = {
    "text": _lazy("text", "render"),
    "concise": _lazy("concise", "render"),
    "grouped": _lazy("concise", "render_grouped"),
    "json": _lazy("json_", "render"),
    "json-lines": _lazy("json_", "render_lines"),
    "sarif": _lazy("sarif", "render"),
    "github": _lazy("github", "render"),
    "gitlab": _lazy("gitlab", "render"),
    "junit": _lazy("junit", "render"),
    "html": _lazy("html", "render"),
}


def render(format: str, diagnostics: list[Diagnostic], sources: dict[str, SourceFile],
           rules: RuleLookup | None = None, **opts) -> str:
    """Render with the named format; opts (summary=, color=, ...) go to it, and a
    format ignores the options it does not know."""
    try:
        reporter = FORMATS[format]
    except KeyError:
        raise ValueError(f"unknown output format {format!r}; expected one of {', '.join(FORMATS)}") from None
    return reporter(diagnostics, sources, rules, **opts)


__all__ = ["FORMATS", "render"]
