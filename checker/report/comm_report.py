"""The communication table (source/comm_table.py's CommTable, one per file) as the
reporters show it: text lines for `--statistics`, JSON objects, an HTML table.

The tables are values computed by the lint (FileResult.communication); reporters
receive them as the `communication` option (a list, in file order) and read
nothing else of the program."""
from __future__ import annotations

import html
from typing import Iterable

from ..source.comm_table import CommTable, Row
from .shared import plural

HEADINGS = ("kind", "group", "ops", "async", "runs/step", "bytes/step")


def human_bytes(n: int) -> str:
    """1536 -> `1.5 KiB` (binary units, one decimal when it matters)."""
    for unit, div in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= div:
            return f"{n / div:.1f} {unit}".replace(".0 ", " ")
    return f"{n} B"


def kind_label(kind: str, front_end: str) -> str:
    """How a file's own language spells the kind: `all-reduce` in HLO, `all_reduce` in StableHLO."""
    return kind.replace("_", "-") if front_end == "hlo" else kind


def _runs(r: Row) -> str:
    """Runs per step, marked `>=` where a loop's trip count is unknown (counted once)
    and `<=` where branches were counted as the largest."""
    mark = ">=" if r.unknown_trips and not r.in_branches else "<=" if r.in_branches and not r.unknown_trips \
        else "~" if r.unknown_trips else ""
    return f"{mark}{r.executions:,}"


def _cells(t: CommTable) -> list[tuple[str, ...]]:
    rows = [(kind_label(r.kind, t.front_end), "-" if r.group_size is None else str(r.group_size), f"{r.ops:,}",
             f"{r.async_ops:,}" if r.async_ops else "-", _runs(r), human_bytes(r.bytes)) for r in t.rows]
    mark = "" if t.exact else "~"
    n_async = sum(r.async_ops for r in t.rows)
    rows.append(("total", "", f"{t.ops:,}", f"{n_async:,}" if n_async else "-",
                 f"{mark}{t.executions:,}", f"{mark}{human_bytes(t.bytes)}"))
    return rows


def text_lines(tables: Iterable[CommTable]) -> list[str]:
    """`--statistics`: per file with communication, a table; then how many files have none."""
    tables = list(tables)
    out: list[str] = []
    quiet = [t for t in tables if not t.rows]
    for t in tables:
        if not t.rows:
            continue
        if out:
            out.append("")
        entry = f" (one run of {t.entry}; bytes per device)" if t.entry else ""
        out.append(f"Communication per step in {t.path}{entry}:")
        cells = [HEADINGS, *_cells(t)]
        widths = [max(len(row[i]) for row in cells) for i in range(len(HEADINGS))]
        for row in cells:
            first = row[0].ljust(widths[0])
            rest = "  ".join(c.rjust(w) for c, w in zip(row[1:], widths[1:]))
            out.append(f"  {first}  {rest}".rstrip())
        for note in t.notes:
            out.append(f"  note: {note}")
    if quiet:
        if out:
            out.append("")
        out.append(f"No collectives in {plural(len(quiet), 'file')}"
                   + (f": {quiet[0].path}" if len(quiet) == 1 else "") + ".")
    return out


def json_list(tables: Iterable[CommTable]) -> list[dict]:
    """The JSON report's `communication` list (docs/hlo.md gives the schema)."""
    return [t.to_dict() for t in tables]


def html_section(tables: Iterable[CommTable]) -> str:
    """A `Communication per step` section: a table per file that communicates."""
    parts = []
    tables = list(tables)
    for i, t in enumerate(tables, 1):
        if not t.rows:
            continue
        head = "".join(f"<th>{h}</th>" for h in HEADINGS)
        body = "".join("<tr>" + "".join(f"<td>{html.escape(c)}</td>" for c in row) + "</tr>" for row in _cells(t))
        notes = "".join(f"<li>{html.escape(n)}</li>" for n in t.notes)
        entry = f" (one run of <code>{html.escape(t.entry)}</code>; bytes per device)" if t.entry else ""
        parts.append(f'<div class="comm" data-file="{html.escape(t.path)}"><div class="loc">'
                     f"{html.escape(t.path)}{entry}</div><table class=\"files comm\"><tr>{head}</tr>{body}</table>"
                     + (f'<ul class="notes">{notes}</ul>' if notes else "") + "</div>")
    if not tables:
        return ""
    quiet = sum(1 for t in tables if not t.rows)
    tail = f'<div class="caption">{plural(quiet, "file")} without collectives</div>' if quiet else ""
    return f'<h2 class="comm" id="communication">Communication per step</h2>{"".join(parts)}{tail}'
