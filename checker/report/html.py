"""One self-contained HTML page: every finding with its source excerpt, for
each deadlock finding a swimlane diagram of its trace, and each file's
communication per step (a table per file, report/comm_report.py).

The page has no external resource (styles, script and SVG inline), so it can be
attached to a CI job, mailed, or opened by the language server. Source lines are
highlighted with the `mlir-pygments` lexer when it is installed (the `html`
extra), else shown plain.

The swimlane diagram (inline SVG) draws one lane per trace: a process, or a
class of processes with the same story (the deadlock rules group processes so
beyond 8, see ProcessTrace.others and .label), labelled as the trace says: its
words hold for every member ("1024 processes (0, p), p = 0–1023", a box "recv
from (0, p-1 mod 1024)"). Every label is shown in full, wrapped over as many
lines as it takes (the lane grows; nothing is left to a tooltip). Along a lane,
left to right, the communication ops the process completed, then the op it is
blocked at (red) or where it finished (grey). An arrow goes from a blocked op to
each lane holding a process it waits for (ProcessTrace.waits_on); a class waiting
on its own members (a ring) gets a loop. Where the processes split (a branch or
loop whose outcome depends on the process id) each box names its branch or
iteration underneath, and the note saying how the processes split is printed
above the diagram. 1,024 processes draw as their few classes.

The page's own script counts the lanes it finds and writes the number into the
title and `<body data-lanes=...>` (what a headless-browser test reads back).
"""
from __future__ import annotations

import html
import re
from typing import Callable

from ..source.diagnostics import Diagnostic, ProcessTrace
from ..source.text import SourceFile
from .comm_report import html_section
from .shared import (RuleLookup, binary_notice, counts, plural, resolve, severity_of, sorted_diagnostics,
                     trace_label)

LANE_COLORS = ("#dbeafe", "#dcfce7", "#fef3c7", "#f3e8ff", "#ffe4e6", "#ccfbf1", "#e0e7ff", "#fae8ff")
"""Lane backgrounds, in turn (a test looks for them in a screenshot)."""
BLOCKED, DONE, FINISHED = "#dc2626", "#2563eb", "#6b7280"
LABEL_W, BOX_W, GAP, TOP = 310, 250, 26, 30
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
form.filter{margin:0 0 12px;padding:8px 12px;background:#f8fafc;border:1px solid #e2e8f0;border-radius:6px}
form.filter label{margin-right:14px}form.filter input[name=code]{width:16em}
#shown{color:#444;margin-left:8px}
table.files{border-collapse:collapse;margin:0 0 18px}table.files td,table.files th{padding:2px 10px;text-align:right}
table.files td:first-child,table.files th:first-child{text-align:left}table.files tr:hover{background:#f1f5f9}
h2.file{font-size:16px;margin:22px 0 10px;font-family:ui-monospace,Menlo,Consolas,monospace}
h2.comm{font-size:16px;margin:26px 0 10px}div.comm{margin:0 0 14px}
span.notice{color:#6b7280;font-style:italic}
"""

_SCRIPT = """
(function(){var n=document.querySelectorAll('svg.swimlanes g.lane').length;
document.body.setAttribute('data-lanes',String(n));
document.title=document.title+' \\u2014 '+n+' lanes drawn';})();
""" + """
(function(){
var form=document.getElementById('filter');if(!form)return;
var all=document.querySelectorAll('section.finding');
function apply(){
  var sev={};form.querySelectorAll('input[name=sev]').forEach(function(c){sev[c.value]=c.checked;});
  var want=form.elements.code.value.split(/[\\s,]+/).filter(Boolean).map(function(w){return w.toUpperCase();});
  var shown=0,per={};
  all.forEach(function(s){
    var code=s.getAttribute('data-code'),name=s.getAttribute('data-name').toUpperCase();
    var ok=sev[s.getAttribute('data-severity')]&&(!want.length||want.some(function(w){
      return code.indexOf(w)===0||name===w;}));
    s.hidden=!ok;if(ok){shown++;per[s.getAttribute('data-file')]=(per[s.getAttribute('data-file')]||0)+1;}
  });
  document.querySelectorAll('h2.file').forEach(function(h){h.hidden=!per[h.getAttribute('data-file')];});
  document.querySelectorAll('table.files tr[data-file]').forEach(function(r){
    r.querySelector('td.shown').textContent=String(per[r.getAttribute('data-file')]||0);});
  document.getElementById('shown').textContent=shown+' of '+all.length+' findings shown';
  document.body.setAttribute('data-shown',String(shown));
}
// a filter in the address, to link to: report.html#severity=error,warning&code=SHLO5
location.hash.slice(1).split('&').forEach(function(kv){
  var p=kv.split('='),v=decodeURIComponent(p[1]||'');
  if(p[0]==='code')form.elements.code.value=v.replace(/,/g,' ');
  if(p[0]==='severity')form.querySelectorAll('input[name=sev]').forEach(function(c){
    c.checked=v.split(',').indexOf(c.value)>=0;});
});
form.addEventListener('input',apply);form.addEventListener('change',apply);
form.addEventListener('submit',function(e){e.preventDefault();});
apply();
})();
"""
"""The page's scripts: the lane count, then the filter (by severity and by code,
prefix or rule name; also read from the address's #severity=...&code=...), which
hides the findings it leaves out, empties the files' headings and writes how
many are shown into the index and `<body data-shown=...>`. Plain JavaScript,
nothing fetched: the page works offline."""


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
        notice = binary_notice(text)
        shown = f'<span class="notice">{html.escape(notice)}</span>' if notice else hl(text) if text else ""
        rows.append(f'<div{cls}><span class="ln">{n}</span>{shown}</div>')
    return '<pre class="src">' + "".join(rows) + "</pre>"


# ----------------------------------------------------------------------------- the diagram
CHAR_W, LINE_H = 7.3, 15
"""Width of a character of the diagram's 12px monospace font, and a line's height."""
LABEL_CHARS = int((LABEL_W - 16) / CHAR_W)
BOX_CHARS = int((BOX_W - 12) / CHAR_W)


def _members(t: ProcessTrace) -> list[tuple[int, int]]:
    return [tuple(t.process), *map(tuple, t.others)]


def _wrap(text: str, width: int) -> list[str]:
    """Lines of at most `width` characters, broken at spaces (a longer word is cut)."""
    lines: list[str] = []
    cur = ""
    text = re.sub(r"\((line|group of) (\d+)\)", "(\\1\u00a0\\2)", text)  # "(line 11)" stays on one line
    for word in text.split(" "):
        while len(word) > width:
            if cur:
                lines.append(cur)
                cur = ""
            lines.append(word[:width])
            word = word[width:]
        if not cur:
            cur = word
        elif len(cur) + 1 + len(word) <= width:
            cur += " " + word
        else:
            lines.append(cur)
            cur = word
    if cur:
        lines.append(cur)
    return lines or [""]


_WHERE = re.compile(r"\s*\(((?:branch|iteration) \d+ of the \w+ at line \d+(?:, (?:branch|iteration) \d+ of the "
                    r"\w+ at line \d+)*)\)$")


def _split_where(message: str) -> tuple[str, str]:
    """`all_reduce (channel 1, group of 4) (branch 0 of the case at line 12)` →
    (`all_reduce (channel 1, group of 4)`, `branch 0 of case :12`): where the
    processes split is written under the box."""
    m = _WHERE.search(message)
    if m is None:
        return message, ""
    where = re.sub(r" of the (\w+) at line (\d+)", r" of \1 :\2", m.group(1))
    return message[:m.start()], where


def _tspans(lines: list[str], x: float, y: float, **attrs: str) -> str:
    extra = "".join(f' {k.replace("_", "-")}="{v}"' for k, v in attrs.items())
    spans = "".join(f'<tspan x="{x}" dy="{0 if i == 0 else LINE_H}">{html.escape(line)}</tspan>'
                    for i, line in enumerate(lines))
    return f'<text x="{x}" y="{y}"{extra}>{spans}</text>'


_CAPTION = ("time \u2192 (communication ops each completed, in order; red: where it is blocked; "
            "arrows: waits for)")


def swimlanes(d: Diagnostic, sources: dict[str, SourceFile]) -> str:
    """The SVG of one deadlock's trace: every label in full (wrapped, never cut),
    a class of processes labelled as its trace says (its boxes speak of each member)."""
    lanes = list(d.trace)
    cols = max((len(t.steps) for t in lanes), default=0) + 1
    width = max(LABEL_W + int(len(_CAPTION) * CHAR_W) + 40, LABEL_W + cols * (BOX_W + GAP) + 60)
    layout = []
    for t in lanes:
        left = [(line, True) for line in _wrap(trace_label(t), LABEL_CHARS)]
        left += [(line, False) for line in _wrap(t.waits_for, LABEL_CHARS)] if t.waits_for else []
        boxes = []
        for step in t.steps:
            pos = resolve(step.location, sources)
            text, where = _split_where(step.message)
            line = f" (line {pos.line})" if pos.line is not None else ""
            boxes.append((step, pos, _wrap(text + line, BOX_CHARS), _wrap(where, BOX_CHARS + 4) if where else []))
        end = [] if any(s.blocked for s in t.steps) else _wrap(t.waits_for or "finished", BOX_CHARS)
        box_lines = max([len(b[2]) for b in boxes] + [len(end), 1])
        where_lines = max([len(b[3]) for b in boxes] + [0])
        box_h = box_lines * LINE_H + 14
        lane_h = max(len(left) * LINE_H + 18, 5 + box_h + where_lines * 13 + 12)
        layout.append((t, left, boxes, end, box_h, lane_h))
    height = TOP + sum(item[5] + 6 for item in layout) + 20
    out = [f'<svg class="swimlanes" xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
           f'viewBox="0 0 {width} {height}" role="img" aria-label="swimlane diagram of the deadlock">',
           '<defs><marker id="arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" '
           f'orient="auto-start-reverse"><path d="M0,0L10,5L0,10z" fill="{BLOCKED}"/></marker></defs>',
           f'<text x="{LABEL_W}" y="18" fill="#555">{html.escape(_CAPTION)}</text>']
    ends: list[tuple[float, float, float] | None] = []
    y = TOP
    for i, (t, left, boxes, end_lines, box_h, lane_h) in enumerate(layout):
        color = LANE_COLORS[i % len(LANE_COLORS)]
        out.append(f'<g class="lane" data-processes="{1 + len(t.others)}">')
        out.append(f'<rect x="0" y="{y}" width="{width}" height="{lane_h}" fill="{color}" rx="4"/>')
        ty = y + 18
        for line, bold in left:
            weight = ' style="font-weight:bold"' if bold else ' fill="#444"'
            out.append(f'<text x="8" y="{ty}"{weight}>{html.escape(line)}</text>')
            ty += LINE_H
        end = None
        for j, (step, pos, lines, where) in enumerate(boxes):
            x = LABEL_W + j * (BOX_W + GAP)
            stroke = BLOCKED if step.blocked else DONE
            fill = "#fee2e2" if step.blocked else "#ffffff"
            tip = f"{pos.label()} {step.message}" + (" \u2014 blocked here" if step.blocked else "")
            out.append(f'<g class="{"step blocked" if step.blocked else "step"}"><title>{html.escape(tip)}</title>'
                       f'<rect x="{x}" y="{y + 5}" width="{BOX_W}" height="{box_h}" rx="5" fill="{fill}" '
                       f'stroke="{stroke}" stroke-width="{3 if step.blocked else 1.5}"/>'
                       + _tspans(lines, x + 6, y + 23)
                       + (_tspans(where, x + 4, y + 5 + box_h + 13, font_size="10", fill="#7c2d12",
                                  **{"class": "where"}) if where else "")
                       + "</g>")
            if j + 1 < len(boxes):
                out.append(f'<line x1="{x + BOX_W}" y1="{y + 22}" x2="{x + BOX_W + GAP}" y2="{y + 22}" '
                           f'stroke="{DONE}" stroke-width="1.5"/>')
            if step.blocked:
                end = (x + BOX_W / 2, y + 5 + box_h / 2, box_h)
        if end_lines:  # finished (or stopped): a grey end marker saying so
            x = LABEL_W + len(boxes) * (BOX_W + GAP)
            out.append(f'<g class="step finished"><title>{html.escape(t.waits_for or "finished")}</title>'
                       f'<rect x="{x}" y="{y + 5}" width="{BOX_W}" height="{box_h}" rx="14" fill="#f3f4f6" '
                       f'stroke="{FINISHED}" stroke-dasharray="4 3"/>'
                       + _tspans(end_lines, x + 10, y + 23, fill=FINISHED) + "</g>")
            end = (x + BOX_W / 2, y + 5 + box_h / 2, box_h)
        out.append("</g>")
        ends.append(end)
        y += lane_h + 6
    for i, t in enumerate(lanes):
        for k, target in enumerate(t.waits_on):
            if target >= len(lanes) or ends[i] is None or ends[target] is None:
                continue
            (x1, y1, h1), (x2, y2, h2) = ends[i], ends[target]
            if target == i:  # waits for another member of its own class (a ring): a loop
                out.append(f'<path class="waits" d="M{x1 + BOX_W / 2},{y1 - 6} c 34,-22 34,26 2,14" fill="none" '
                           f'stroke="{BLOCKED}" stroke-width="2" marker-end="url(#arrow)"><title>'
                           f'{html.escape(t.waits_for)}</title></path>')
                continue
            bend = BOX_W / 2 + 24 + 10 * ((i + k) % 4)
            sy, ty = (y1 + h1 / 2, y2 - h2 / 2) if y2 > y1 else (y1 - h1 / 2, y2 + h2 / 2)
            out.append(f'<path class="waits" d="M{x1},{sy} C{x1 + bend},{sy} {x2 + bend},{ty} {x2 + 8},{ty}" '
                       f'fill="none" stroke="{BLOCKED}" stroke-width="1.6" marker-end="url(#arrow)">'
                       f'<title>{html.escape(t.waits_for)}</title></path>')
    out.append("</svg>")
    return "".join(out)


# ----------------------------------------------------------------------------- the page
def _finding(d: Diagnostic, sources: dict[str, SourceFile], rules, hl, file: int = 1) -> str:
    pos = resolve(d.location, sources)
    sev = severity_of(d).value
    spec = rules(d.code) if rules is not None else None
    code = (f'<a href="{html.escape(spec.help_uri)}">{d.code}</a>' if spec is not None else d.code)
    parts = [f'<section class="finding" id="f{file}-{html.escape(d.code)}-{pos.line or 0}" data-file="{file}" '
             f'data-severity="{sev}" data-code="{html.escape(d.code)}" data-name="{html.escape(d.name)}">',
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
        parts.append(f'<div class="caption">{plural(len(d.trace), "lane")}: {plural(blocked, "blocked process", "blocked processes")} '
                     "and the peers they wait for (processes with the same story share a lane; in a lane of "
                     "processes (0, p), what a box says holds for each member p)</div>")
        parts.append(f'<div class="diagram">{swimlanes(d, sources)}</div>')
    parts.append("</section>")
    return "".join(parts)


def render(diagnostics: list[Diagnostic], sources: dict[str, SourceFile],
           rules: RuleLookup | None = None, *, summary: dict | None = None,
           title: str = "shlo-lint report", communication=None, **_opts) -> str:
    diags = sorted_diagnostics(diagnostics, sources)
    c = counts(diags, summary)
    hl = _highlighter()
    files = c.get("files")
    checked = f" in {plural(files, 'file')} checked" if isinstance(files, int) else ""
    kinds = ", ".join(plural(c[k], word, many) for k, word, many in
                      (("errors", "error", None), ("warnings", "warning", None), ("infos", "info", "infos")))
    head = (f"{plural(len(diags), 'finding')} ({kinds}){checked}" if diags else f"All checks passed{checked}.")
    paths = list(dict.fromkeys(d.path for d in diags))  # files with findings, in report order
    number = {p: i for i, p in enumerate(paths, 1)}
    body: list[str] = []
    body_path = None
    for d in diags:
        if len(paths) > 1 and d.path != body_path:
            body.append(f'<h2 class="file" id="file-{number[d.path]}" data-file="{number[d.path]}">'
                        f"{html.escape(d.path)}</h2>")
        body_path = d.path
        body.append(_finding(d, sources, rules, hl, number[d.path]))
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            f"<title>{html.escape(title)}</title><style>{_CSS}{_pygments_css()}</style></head>"
            f"<body><h1>{html.escape(title)}</h1><div class=\"summary\">{html.escape(head)}</div>"
            f"{_filter_form(diags) if diags else ''}{_index(diags, paths, files)}{''.join(body)}"
            f"{html_section(communication) if communication else ''}"
            f"<script>{_SCRIPT}</script></body></html>\n")


def _filter_form(diags: list[Diagnostic]) -> str:
    """Severity checkboxes (with their counts) and a code/prefix/name box."""
    c = counts(diags)
    boxes = "".join(f'<label><input type="checkbox" name="sev" value="{s}" checked> {s}s ({c[s + "s"]})</label>'
                    for s in ("error", "warning", "info"))
    codes = "".join(f'<option value="{html.escape(c)}">' for c in sorted({d.code for d in diags}))
    return (f'<form class="filter" id="filter">Show: {boxes}<label>code <input name="code" list="codes" '
            f'placeholder="SHLO5, SHLO120 or a rule name"></label><datalist id="codes">{codes}</datalist>'
            f'<span id="shown">{plural(len(diags), "finding")}</span></form>')


def _index(diags: list[Diagnostic], paths: list[str], files_checked) -> str:
    """Files with findings, their counts per severity, each a link to its findings
    (a page of one file needs none)."""
    if len(paths) < 2:
        return ""
    rows = []
    for i, path in enumerate(paths, 1):
        c = counts([d for d in diags if d.path == path])
        rows.append(f'<tr data-file="{i}"><td><a href="#file-{i}">{html.escape(path)}</a></td>'
                    f'<td>{c["errors"]}</td><td>{c["warnings"]}</td><td>{c["infos"]}</td>'
                    f'<td class="shown">{c["errors"] + c["warnings"] + c["infos"]}</td></tr>')
    clean = files_checked - len(paths) if isinstance(files_checked, int) else 0
    tail = f'<tr><td colspan="5">{plural(clean, "other file")} checked: no findings</td></tr>' if clean > 0 else ""
    return ('<table class="files"><tr><th>file</th><th>errors</th><th>warnings</th><th>infos</th>'
            f'<th>shown</th></tr>{"".join(rows)}{tail}</table>')
