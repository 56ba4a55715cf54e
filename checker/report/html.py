"""One self-contained HTML page: every finding with its source excerpt, and for
each deadlock finding a swimlane diagram of its trace.

The page has no external resource (styles, script and SVG inline), so it can be
attached to a CI job, mailed, or opened by the language server. Source lines are
highlighted with the `mlir-pygments` lexer when it is installed (the `html`
extra), else shown plain.

The swimlane diagram (inline SVG) draws one lane per trace: a process, or a
class of processes with the same story (the deadlock rules group processes so
beyond 8, see ProcessTrace.others), labelled with its ids. Along a lane, left to
right, the communication ops the process completed, then the op it is blocked at
(red) or where it finished (grey). An arrow goes from a blocked op to the lane of
the process it waits for ("waits for"); a class waiting on its own members (a
ring) gets a loop. Where the processes split (a branch or loop whose outcome
depends on the process id) each box names its branch or iteration underneath, and
the note saying how the processes split is printed above the diagram. 1,024 processes draw as their few classes.

The page's own script counts the lanes it finds and writes the number into the
title and `<body data-lanes=...>` (what a headless-browser test reads back).
"""
from __future__ import annotations

import html
import re
from typing import Callable

from ..source.diagnostics import Diagnostic, ProcessTrace
from ..source.text import SourceFile
from .shared import RuleLookup, counts, plural, process_label, process_ranges, resolve, severity_of, sorted_diagnostics

LANE_COLORS = ("#dbeafe", "#dcfce7", "#fef3c7", "#f3e8ff", "#ffe4e6", "#ccfbf1", "#e0e7ff", "#fae8ff")
"""Lane backgrounds, in turn (a test looks for them in a screenshot)."""
BLOCKED, DONE, FINISHED = "#dc2626", "#2563eb", "#6b7280"
LABEL_W, BOX_W, BOX_H, GAP, LANE_H, TOP = 260, 220, 34, 26, 58, 30
CONTEXT_LINES = 2

_CSS = """
body{font:14px/1.45 system-ui,-apple-system,Segoe UI,sans-serif;margin:24px;color:#111;background:#fff}
h1{font-size:20px;margin:0 0 4px}.summary{color:#444;margin-bottom:18px}
.finding{border:1px solid #ddd;border-radius:6px;margin:0 0 18px;padding:10px 14px}
.head{font-weight:600}.sev-error{color:#b91c1c}.sev-warning{color:#b45309}.sev-info{color:#0e7490}
.loc{font-family:ui-monospace,Menlo,Consolas,monospace;color:#333}
pre.src{background:#f8f8f8;border:1px solid #eee;padding:6px 0;overflow-x:auto;margin:8px 0}
pre.src span.ln{display:inline-block;width:4em;text-align:right;color:#999;padding-right:1em;user-select:none}
pre.src div.hit{background:#fee2e2}
ul.notes{margin:4px 0;padding-left:20px}.help{color:#065f46}
.diagram{overflow-x:auto;margin-top:8px}.diagram svg text{font:12px ui-monospace,Menlo,Consolas,monospace}
.caption{color:#444;font-size:13px}
"""

_SCRIPT = """
(function(){var n=document.querySelectorAll('svg.swimlanes g.lane').length;
document.body.setAttribute('data-lanes',String(n));
document.title=document.title+' \\u2014 '+n+' lanes drawn';})();
"""


# ----------------------------------------------------------------------------- source excerpts
def _highlighter() -> Callable[[str], str]:
    """One line of MLIR → HTML: Pygments with the MLIR lexer, or escaped text."""
    try:
        from mlir_pygments import MLIRLexer
        from pygments import highlight
        from pygments.formatters import HtmlFormatter
    except ImportError:
        return html.escape
    lexer, fmt = MLIRLexer(), HtmlFormatter(nowrap=True, classprefix="hl-")
    return lambda line: highlight(line, lexer, fmt).rstrip("\n")


def _pygments_css() -> str:
    try:
        import mlir_pygments  # noqa: F401
        from pygments.formatters import HtmlFormatter
    except ImportError:
        return ""
    # the lexer marks `#` of `%r#1` as an error; no red box around it
    return HtmlFormatter(classprefix="hl-").get_style_defs("pre.src") + "\npre.src .hl-err{border:none;color:inherit}"


def _excerpt(d: Diagnostic, sources: dict[str, SourceFile], hl: Callable[[str], str]) -> str:
    pos = resolve(d.location, sources)
    source = sources.get(d.path)
    if source is None or pos.line is None or not 1 <= pos.line <= source.num_lines:
        return ""
    last = min(pos.end_line or pos.line, pos.line + 6)
    rows = []
    for n in range(max(1, pos.line - CONTEXT_LINES), min(source.num_lines, last + CONTEXT_LINES) + 1):
        text = source.line_text(n).rstrip("\r\n")
        cls = ' class="hit"' if pos.line <= n <= last else ""
        rows.append(f'<div{cls}><span class="ln">{n}</span>{hl(text) if text else ""}</div>')
    return '<pre class="src">' + "".join(rows) + "</pre>"


# ----------------------------------------------------------------------------- the diagram
_PROC = re.compile(r"\((\d+), (\d+)\)")


def _members(t: ProcessTrace) -> list[tuple[int, int]]:
    return [tuple(t.process), *map(tuple, t.others)]


def _lane_label(t: ProcessTrace) -> str:
    if not t.others:
        return process_label(t.process)
    return f"{1 + len(t.others)} processes {process_ranges(_members(t), limit=2)}"


_DETAIL = re.compile(r"\s*\((?:channel|group|branch|iteration|line|async)[^()]*(?:\([^()]*\)[^()]*)*\)")


def _step_label(message: str) -> str:
    """`all_reduce (channel 1, group of 8)` → `all_reduce`: the details are in the tooltip."""
    return _short(_DETAIL.sub("", message).replace(" on channel ", " ch "), 24)


_WHERE = re.compile(r"\((?:branch|iteration) \d+ of the \w+ at line \d+\)")


def _where(message: str) -> str:
    """`(branch 0 of the case at line 12)` → `branch 0 of case :12`: where the
    processes split, shown under the box."""
    m = _WHERE.search(message)
    return re.sub(r" of the (\w+) at line (\d+)", r" of \1 :\2", m.group(0)[1:-1]) if m else ""


def _short(text: str, n: int) -> str:
    return text if len(text) <= n else text[: n - 1] + "\u2026"


def _waits_target(t: ProcessTrace, lanes: list[ProcessTrace]) -> int | None:
    """The lane holding the first process this one waits for (None: none named)."""
    m = _PROC.search(t.waits_for or "")
    if m is None:
        return None
    who = (int(m.group(1)), int(m.group(2)))
    for i, lane in enumerate(lanes):
        if who in _members(lane):
            return i
    return None


def swimlanes(d: Diagnostic, sources: dict[str, SourceFile]) -> str:
    """The SVG of one deadlock's trace."""
    lanes = list(d.trace)
    cols = max((len(t.steps) for t in lanes), default=0) + 1
    width = max(1000, LABEL_W + cols * (BOX_W + GAP) + 60)
    height = TOP + len(lanes) * LANE_H + 20
    out = [f'<svg class="swimlanes" xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
           f'viewBox="0 0 {width} {height}" role="img" aria-label="swimlane diagram of the deadlock">',
           '<defs><marker id="arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" '
           f'orient="auto-start-reverse"><path d="M0,0L10,5L0,10z" fill="{BLOCKED}"/></marker></defs>',
           f'<text x="{LABEL_W}" y="18" fill="#555">time \u2192 (communication ops each completed, in order; '
           'red: where it is blocked; arrows: waits for)</text>']
    ends: list[tuple[float, float] | None] = []
    for i, t in enumerate(lanes):
        y = TOP + i * LANE_H
        color = LANE_COLORS[i % len(LANE_COLORS)]
        label = _lane_label(t)
        out.append(f'<g class="lane" data-processes="{1 + len(t.others)}">')
        out.append(f'<rect x="0" y="{y}" width="{width}" height="{LANE_H - 6}" fill="{color}" rx="4"/>')
        out.append(f'<text x="8" y="{y + 20}" font-weight="bold"><title>{html.escape(label)}</title>'
                   f'{html.escape(_short(label, 32))}</text>')
        if t.waits_for:
            out.append(f'<text x="8" y="{y + 38}" fill="#444"><title>{html.escape(t.waits_for)}</title>'
                       f'{html.escape(_short(t.waits_for, 32))}</text>')
        end = None
        for j, step in enumerate(t.steps):
            x = LABEL_W + j * (BOX_W + GAP)
            pos = resolve(step.location, sources)
            line = f" :{pos.line}" if pos.line is not None else ""
            stroke = BLOCKED if step.blocked else DONE
            fill = "#fee2e2" if step.blocked else "#ffffff"
            tip = f"{pos.label()} {step.message}" + (" \u2014 blocked here" if step.blocked else "")
            out.append(f'<g class="{"step blocked" if step.blocked else "step"}"><title>{html.escape(tip)}</title>'
                       f'<rect x="{x}" y="{y + 5}" width="{BOX_W}" height="{BOX_H}" rx="5" fill="{fill}" '
                       f'stroke="{stroke}" stroke-width="{3 if step.blocked else 1.5}"/>'
                       f'<text x="{x + 6}" y="{y + 26}">{html.escape(_step_label(step.message) + line)}</text>'
                       + (f'<text class="where" x="{x + 4}" y="{y + 50}" font-size="10" fill="#7c2d12">'
                          f'{html.escape(_short(_where(step.message), 34))}</text>' if _where(step.message) else "")
                       + "</g>")
            if j + 1 < len(t.steps):
                out.append(f'<line x1="{x + BOX_W}" y1="{y + 22}" x2="{x + BOX_W + GAP}" y2="{y + 22}" '
                           f'stroke="{DONE}" stroke-width="1.5"/>')
            if step.blocked:
                end = (x + BOX_W / 2, y + 5 + BOX_H / 2)
        if not any(s.blocked for s in t.steps):  # finished (or stopped): a grey end marker
            x = LABEL_W + len(t.steps) * (BOX_W + GAP)
            out.append(f'<g class="step finished"><title>{html.escape(t.waits_for or "finished")}</title>'
                       f'<rect x="{x}" y="{y + 5}" width="{BOX_W}" height="{BOX_H}" rx="17" fill="#f3f4f6" '
                       f'stroke="{FINISHED}" stroke-dasharray="4 3"/><text x="{x + 10}" y="{y + 26}" '
                       f'fill="{FINISHED}">{html.escape(_short(t.waits_for or "finished", 20))}</text></g>')
            end = (x + BOX_W / 2, y + 5 + BOX_H / 2)
        out.append("</g>")
        ends.append(end)
    for i, t in enumerate(lanes):
        target = _waits_target(t, lanes)
        if target is None or ends[i] is None or ends[target] is None:
            continue
        (x1, y1), (x2, y2) = ends[i], ends[target]
        if target == i:  # waits for another member of its own class (a ring): a loop
            out.append(f'<path class="waits" d="M{x1 + BOX_W / 2},{y1 - 6} c 34,-22 34,26 2,14" fill="none" '
                       f'stroke="{BLOCKED}" stroke-width="2" marker-end="url(#arrow)"><title>'
                       f'{html.escape(t.waits_for)}</title></path>')
            continue
        bend = BOX_W / 2 + 24 + 10 * (i % 4)
        sy, ty = (y1 + BOX_H / 2, y2 - BOX_H / 2) if y2 > y1 else (y1 - BOX_H / 2, y2 + BOX_H / 2)
        out.append(f'<path class="waits" d="M{x1},{sy} C{x1 + bend},{sy} {x2 + bend},{ty} {x2 + 8},{ty}" '
                   f'fill="none" stroke="{BLOCKED}" stroke-width="1.6" marker-end="url(#arrow)">'
                   f'<title>{html.escape(t.waits_for)}</title></path>')
    out.append("</svg>")
    return "".join(out)


# ----------------------------------------------------------------------------- the page
def _finding(d: Diagnostic, sources: dict[str, SourceFile], rules, hl) -> str:
    pos = resolve(d.location, sources)
    sev = severity_of(d).value
    spec = rules(d.code) if rules is not None else None
    code = (f'<a href="{html.escape(spec.help_uri)}">{d.code}</a>' if spec is not None else d.code)
    parts = [f'<section class="finding" id="{html.escape(d.code)}-{pos.line or 0}">',
             f'<div class="head"><span class="loc">{html.escape(pos.label())}</span> '
             f'<span class="sev-{sev}">{sev}[{code}]</span> {html.escape(d.message)}</div>',
             _excerpt(d, sources, hl)]
    if d.notes:
        items = "".join(f'<li><span class="loc">{html.escape(resolve(n.location, sources).label())}</span>: '
                        f"{html.escape(n.message)}</li>" for n in d.notes)
        parts.append(f'<ul class="notes">{items}</ul>')
    if d.help:
        parts.append(f'<div class="help">help: {html.escape(d.help)}</div>')
    if d.trace:
        blocked = sum(1 + len(t.others) for t in d.trace if any(s.blocked for s in t.steps))
        parts.append(f'<div class="caption">{plural(len(d.trace), "lane")}: {blocked} blocked '
                     f'process{"es" if blocked != 1 else ""}, and the peers they wait for '
                     "(processes with the same story share a lane; hover a box for its details)</div>")
        parts.append(f'<div class="diagram">{swimlanes(d, sources)}</div>')
    parts.append("</section>")
    return "".join(parts)


def render(diagnostics: list[Diagnostic], sources: dict[str, SourceFile],
           rules: RuleLookup | None = None, *, summary: dict | None = None,
           title: str = "shlo-lint report", **_opts) -> str:
    diags = sorted_diagnostics(diagnostics, sources)
    c = counts(diags, summary)
    hl = _highlighter()
    files = c.get("files")
    checked = f" in {plural(files, 'file')} checked" if isinstance(files, int) else ""
    head = (f"{plural(len(diags), 'finding')} ({c['errors']} errors, {c['warnings']} warnings, {c['infos']} infos)"
            f"{checked}" if diags else f"All checks passed{checked}.")
    body = "".join(_finding(d, sources, rules, hl) for d in diags)
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            f"<title>{html.escape(title)}</title><style>{_CSS}{_pygments_css()}</style></head>"
            f"<body><h1>{html.escape(title)}</h1><div class=\"summary\">{html.escape(head)}</div>{body}"
            f"<script>{_SCRIPT}</script></body></html>\n")
