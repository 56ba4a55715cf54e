"""GitHub Actions workflow commands, one per diagnostic:

    ::error file=prog.mlir,line=14,col=8,endLine=14,endColumn=24,title=SHLO103 send-duplicate-source::message

error → ::error, warning → ::warning, info → ::notice. Columns are 1-based and the
end is exclusive, as everywhere in shlo-lint. The message carries the notes and
the help on further lines (escaped as %0A), so the annotation is the whole story.
Escaping follows the runner (actions/toolkit command.ts): data escapes % \\r \\n,
property values additionally : and ,.
"""
from __future__ import annotations


from ..source.diagnostics import Diagnostic
from ..source.text import SourceFile
from .shared import RuleLookup, resolve, severity_of, sorted_diagnostics

COMMANDS = {"error": "error", "warning": "warning", "info": "notice"}


def escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def command(d: Diagnostic, sources: dict[str, SourceFile]) -> str:
    pos = resolve(d.location, sources)
    props = [("file", pos.path)]
    if pos.line is not None:
        props.append(("line", str(pos.line)))
        if pos.column is not None:
            props.append(("col", str(pos.column)))
        if pos.end_line is not None:
            props.append(("endLine", str(pos.end_line)))
            if pos.end_column is not None:
                props.append(("endColumn", str(pos.end_column)))
    props.append(("title", f"{d.code} {d.name}"))
    lines = [d.message]
    lines += [f"note: {resolve(n.location, sources).label()}: {n.message}" for n in d.notes]
    if d.help:
        lines.append(f"help: {d.help}")
    head = ",".join(f"{k}={escape_property(v)}" for k, v in props)
    return f"::{COMMANDS[severity_of(d).value]} {head}::{escape_data(chr(10).join(lines))}"


def render(diagnostics: list[Diagnostic], sources: dict[str, SourceFile],
           rules: RuleLookup | None = None, *, summary: dict | None = None,
           **_opts) -> str:
    out = [command(d, sources) for d in sorted_diagnostics(diagnostics, sources)]
    return "".join(line + "\n" for line in out)
