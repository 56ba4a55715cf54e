"""Machine output: one JSON document, keys in a fixed order, 1-based lines and
columns with exclusive ends, diagnostics sorted by path, line, column, code.

    {"version": "0.1.0",
     "diagnostics": [{"code", "name", "category", "severity", "message", "path",
                      "line", "column", "end_line", "end_column",
                      "related": [{"path", "line", "column", "end_line", "end_column", "message"}],
                      "fix": null | {"title", "applicability",
                                     "edits": [{"line", "column", "end_line", "end_column", "text"}]},
                      "trace": null | [{"process": [r, p], "others": [[r, p], ...], "label" (a lane that
                                        stands for a class: "1024 processes (0, p), ...", "host 1 (devices 4-7)"), "waits_for",
                                        "steps": [{"path", "line", "column", "message", "blocked"}]}],
                      "help": null | str, "url": null | str}],
     "summary": {"diagnostics", "errors", "warnings", "infos", "files_with_diagnostics",
                 "fixable", "unsafe_fixable", ...caller's keys}}

Positions the sources cannot give are null. Options: indent (default 2).
"""
from __future__ import annotations

import json
from collections import Counter

from ..source.diagnostics import Diagnostic
from ..source.text import SourceFile
from .shared import Position, RuleLookup, counts, resolve, resolve_span, severity_of, sorted_diagnostics, tool_version


def _pos(pos: Position) -> dict:
    return {"path": pos.path, "line": pos.line, "column": pos.column,
            "end_line": pos.end_line, "end_column": pos.end_column}


def diagnostic_dict(d: Diagnostic, sources: dict[str, SourceFile],
                    rules: RuleLookup | None = None) -> dict:
    pos = resolve(d.location, sources)
    fix = None
    if d.fix is not None:
        edits = []
        for e in d.fix.edits:
            ep = resolve_span(d.path, e.span, sources)
            edits.append({"line": ep.line, "column": ep.column, "end_line": ep.end_line,
                          "end_column": ep.end_column, "text": e.text})
        fix = {"title": d.fix.title, "applicability": d.fix.applicability, "edits": edits}
    trace = None
    if d.trace:
        trace = []
        for t in d.trace:
            steps = []
            for s in t.steps:
                sp = resolve(s.location, sources)
                steps.append({"path": sp.path, "line": sp.line, "column": sp.column,
                              "message": s.message, "blocked": bool(s.blocked)})
            trace.append({"process": list(t.process), "others": [list(o) for o in t.others],
                          **({"label": t.label} if t.label else {}), "waits_for": t.waits_for, "steps": steps})
    spec = rules(d.code) if rules is not None else None
    return {
        "code": d.code,
        "name": d.name,
        "category": d.category,
        "severity": severity_of(d).value,
        "message": d.message,
        **_pos(pos),
        "related": [{**_pos(resolve(n.location, sources)), "message": n.message} for n in d.notes],
        "fix": fix,
        "trace": trace,
        "help": d.help,
        "url": spec.help_uri if spec is not None else None,
    }


def statistics_of(diagnostics: list[Diagnostic]) -> list[dict]:
    """--statistics: one entry per code, most frequent first (ruff's JSON statistics)."""
    by_code = Counter(d.code for d in diagnostics)
    names = {d.code: d.name for d in diagnostics}
    fixable = {d.code for d in diagnostics if d.fix is not None and d.fix.applicability == "safe"}
    return [{"code": code, "name": names[code], "count": n, "fixable": code in fixable}
            for code, n in sorted(by_code.items(), key=lambda kv: (-kv[1], kv[0]))]


def to_dict(diagnostics: list[Diagnostic], sources: dict[str, SourceFile],
            rules: RuleLookup | None = None, *, summary: dict | None = None,
            statistics: bool = False) -> dict:
    diags = sorted_diagnostics(diagnostics, sources)
    out = {
        "version": tool_version(),
        "diagnostics": [diagnostic_dict(d, sources, rules) for d in diags],
        "summary": counts(diags, summary),
    }
    if statistics:
        out["statistics"] = statistics_of(diags)
    return out


def render(diagnostics: list[Diagnostic], sources: dict[str, SourceFile],
           rules: RuleLookup | None = None, *, summary: dict | None = None,
           indent: int | None = 2, statistics: bool = False, **_opts) -> str:
    return json.dumps(to_dict(diagnostics, sources, rules, summary=summary, statistics=statistics),
                      indent=indent, ensure_ascii=False) + "\n"


def render_lines(diagnostics: list[Diagnostic], sources: dict[str, SourceFile],
                 rules: RuleLookup | None = None, **_opts) -> str:
    """json-lines: one diagnostic object (as in `diagnostics` above) per line, no summary."""
    return "".join(json.dumps(diagnostic_dict(d, sources, rules), ensure_ascii=False) + "\n"
                   for d in sorted_diagnostics(diagnostics, sources))
