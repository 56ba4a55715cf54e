"""Short human formats.

concise — one line per finding (ruff's `concise`):

    prog.mlir:14:8: error[SHLO103] send: source 0 appears twice in source_target_pairs

grouped — findings under their file, one line each, then the summary:

    prog.mlir:
      14:8 error[SHLO103] send: source 0 appears twice in source_target_pairs
      20:5 error[SHLO500] deadlock: ...

Both end with the text format's summary line unless summary is None.
"""
from __future__ import annotations

from itertools import groupby

from ..source.diagnostics import Diagnostic
from ..source.text import SourceFile
from .shared import RuleLookup, resolve, severity_of, sorted_diagnostics
from .text import summary_lines


def line(d: Diagnostic, sources: dict[str, SourceFile]) -> str:
    pos = resolve(d.location, sources)
    return f"{pos.label()}: {severity_of(d).value}[{d.code}] {d.message}"


def render(diagnostics: list[Diagnostic], sources: dict[str, SourceFile],
           rules: RuleLookup | None = None, *, summary: dict | None = None,
           **_opts) -> str:
    diags = sorted_diagnostics(diagnostics, sources)
    lines = [line(d, sources) for d in diags]
    if summary is not None:
        lines += summary_lines(diags, summary)
    return "".join(x + "\n" for x in lines)


def render_grouped(diagnostics: list[Diagnostic], sources: dict[str, SourceFile],
                   rules: RuleLookup | None = None, *, summary: dict | None = None,
                   **_opts) -> str:
    diags = sorted_diagnostics(diagnostics, sources)
    lines: list[str] = []
    for path, group in groupby(diags, key=lambda d: d.path):
        lines.append(f"{path}:")
        for d in group:
            pos = resolve(d.location, sources)
            where = f"{pos.line}:{pos.column or 1}" if pos.line is not None else "-"
            lines.append(f"  {where} {severity_of(d).value}[{d.code}] {d.message}")
        lines.append("")
    if summary is not None:
        lines += summary_lines(diags, summary)
    while lines and lines[-1] == "":
        lines.pop()
    return "".join(x + "\n" for x in lines)
