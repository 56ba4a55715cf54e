"""SARIF 2.1.0 through sarif-om's objects, serialized by walking their attrs fields.

One run; `tool.driver.rules` holds a descriptor for every code used (the rule's
summary, its doc as markdown, helpUri, default level, category); each result has
its primary location, related locations (the notes, with ids), a partial
fingerprint that survives line moves, a fix when there is one, and for deadlocks
one codeFlow holding one threadFlow per process (the blocked step marked
`kinds: ["blocked"]`, importance "essential").

Options: root (a directory: absolute paths under it are made relative and all
URIs get uriBaseId %SRCROOT%), execution_successful (default True), indent.
"""
from __future__ import annotations

import hashlib
import json
from pathlib import Path, PurePosixPath
from urllib.parse import quote

import attr
import sarif_om as om

from ..source.diagnostics import Diagnostic, Location
from ..source.text import SourceFile
from .shared import (INFORMATION_URI, TOOL_NAME, Position, RuleDoc, RuleLookup, resolve, resolve_span, severity_of,
                     sorted_diagnostics, tool_version, trace_label)

SCHEMA_URI = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
SRCROOT = "%SRCROOT%"
FINGERPRINT_KEY = "shloLint/v1"
LEVELS = {"error": "error", "warning": "warning", "info": "note"}

# Properties kept even when they equal sarif-om's default: a result's level must
# not fall back to the rule's default level (a severity override would be lost),
# and an empty `results` says "ran, found nothing" where a missing one does not.
_KEEP = frozenset({"level", "results"})


def to_json(obj):
    """sarif-om object → JSON value: schema property names, None and default or
    empty values dropped (except _KEEP)."""
    if attr.has(type(obj)):
        out = {}
        for f in attr.fields(type(obj)):
            value = getattr(obj, f.name)
            name = f.metadata.get("schema_property_name", f.name)
            if value is None:
                continue
            if name not in _KEEP:
                default = f.default
                if isinstance(default, attr.Factory) and not default.takes_self:
                    default = default.factory()
                if default is not attr.NOTHING and type(value) is type(default) and value == default:
                    continue
                if isinstance(value, (list, tuple, dict)) and not value:
                    continue
            out[name] = to_json(value)
        return out
    if isinstance(obj, (list, tuple)):
        return [to_json(v) for v in obj]
    if isinstance(obj, dict):
        return {k: to_json(v) for k, v in obj.items() if v is not None}
    return obj


class _Uris:
    def __init__(self, root: str | None):
        self.root = Path(root).resolve() if root else None

    def location(self, path: str) -> om.ArtifactLocation:
        p = Path(path)
        if self.root is not None and not path.startswith("<"):
            # relative to where shlo-lint ran, which may be below the root
            p = (p if p.is_absolute() else Path.cwd() / p).resolve()
            try:
                p = p.relative_to(self.root)
            except ValueError:
                return om.ArtifactLocation(uri=p.as_uri())
        elif p.is_absolute():
            return om.ArtifactLocation(uri=p.as_uri())
        uri = quote(PurePosixPath(p.as_posix()).as_posix(), safe="/")
        return om.ArtifactLocation(uri=uri, uri_base_id=SRCROOT if self.root is not None else None)

    def base_ids(self) -> dict | None:
        if self.root is None:
            return None
        return {SRCROOT: om.ArtifactLocation(uri=self.root.as_uri() + "/")}


def _region(pos: Position, whole_file: bool = False) -> om.Region | None:
    """The region of a position; a position without a line has none, except a
    result's primary location (`whole_file`): code scanning needs a region on every
    result, and line 1 is where a whole-file problem (an unreadable file) shows."""
    if pos.line is None:
        return om.Region(start_line=1) if whole_file else None
    return om.Region(start_line=pos.line, start_column=pos.column,
                     end_line=pos.end_line, end_column=pos.end_column)


def _physical(pos: Position, uris: _Uris, whole_file: bool = False) -> om.PhysicalLocation:
    return om.PhysicalLocation(artifact_location=uris.location(pos.path), region=_region(pos, whole_file))


def _location(loc: Location, sources: dict[str, SourceFile], uris: _Uris, *, message: str | None = None,
              id: int | None = None, primary: bool = False) -> om.Location:
    return om.Location(physical_location=_physical(resolve(loc, sources), uris, primary),
                       message=om.Message(text=message) if message else None,
                       id=id if id is not None else -1)


def fingerprint(d: Diagnostic, sources: dict[str, SourceFile]) -> str:
    """A hash of code, path, the span's text with whitespace collapsed, and the
    message: no line numbers, so moving code does not make a finding new."""
    source = sources.get(d.path)
    text = source.snippet(d.span) if source is not None and d.span is not None else ""
    key = "\0".join((d.code, d.path, " ".join(text.split()), d.message))
    return hashlib.sha256(key.encode("utf-8")).hexdigest()[:32]


def line_hash(d: Diagnostic, sources: dict[str, SourceFile]) -> str:
    """A `primaryLocationLineHash`-style key: a hash of the text of the primary
    line with whitespace removed (GitHub's own is a rolling hash of the line and its
    context; this one follows the same idea: it survives the line moving)."""
    pos = resolve(d.location, sources)
    source = sources.get(d.path)
    line = source.line_text(pos.line) if source is not None and pos.line and pos.line <= source.num_lines else ""
    return hashlib.sha256("".join(line.split()).encode("utf-8")).hexdigest()[:16]


def escape_text(text: str) -> str:
    """Literal brackets in a message that has embedded links (SARIF §3.11.6)."""
    return text.replace("\\", "\\\\").replace("[", "\\[").replace("]", "\\]")


def linked_message(d: Diagnostic) -> str:
    """The message with every related location linked from its text, the only way
    GitHub code scanning shows them: `... Related: [first used here](1).`"""
    if not d.notes:
        return d.message
    links = ", ".join(f"[{escape_text(n.message)}]({i})" for i, n in enumerate(d.notes, 1))
    return f"{escape_text(d.message)}. Related: {links}."


MAX_FULL_DESCRIPTION = 1000
"""GitHub reads at most this many characters of fullDescription; the rest is in help."""


def short_description(doc: str) -> str:
    """The doc's first paragraphs that fit in MAX_FULL_DESCRIPTION characters
    (headings dropped), cut at a word with "…" when even the first does not."""
    out = ""
    for para in doc.split("\n\n"):
        para = "\n".join(line for line in para.splitlines() if not line.startswith("#")).strip()
        if not para:
            continue
        candidate = f"{out}\n\n{para}" if out else para
        if len(candidate) > MAX_FULL_DESCRIPTION:
            if not out:
                out = para[: MAX_FULL_DESCRIPTION - 1].rsplit(" ", 1)[0] + "\u2026"
            break
        out = candidate
    return out


def _descriptor(code: str, spec: RuleDoc | None, example: Diagnostic) -> om.ReportingDescriptor:
    if spec is None:
        return om.ReportingDescriptor(
            id=code, name=example.name,
            short_description=om.MultiformatMessageString(text=example.name),
            default_configuration=om.ReportingConfiguration(level=LEVELS[severity_of(example).value]),
            properties={"category": example.category, "tags": [example.category]})
    doc = spec.doc or spec.summary
    return om.ReportingDescriptor(
        id=spec.code, name=spec.name,
        short_description=om.MultiformatMessageString(text=spec.summary),
        full_description=om.MultiformatMessageString(text=short_description(doc), markdown=short_description(doc)),
        help=om.MultiformatMessageString(text=doc, markdown=doc),
        help_uri=spec.help_uri,
        default_configuration=om.ReportingConfiguration(level=LEVELS[spec.severity.value]),
        properties={"category": spec.category, "tags": [spec.category]})


def _fix(d: Diagnostic, sources: dict[str, SourceFile], uris: _Uris) -> om.Fix:
    source = sources.get(d.path)
    replacements = []
    for e in sorted(d.fix.edits, key=lambda e: (e.span.start, e.span.end)):
        if source is not None:
            region = _region(resolve_span(d.path, e.span, sources))
        else:
            region = om.Region(char_offset=e.span.start, char_length=max(0, e.span.end - e.span.start))
        replacements.append(om.Replacement(deleted_region=region,
                                           inserted_content=om.ArtifactContent(text=e.text)))
    return om.Fix(description=om.Message(text=d.fix.title),
                  artifact_changes=[om.ArtifactChange(artifact_location=uris.location(d.path),
                                                      replacements=replacements)],
                  properties={"applicability": d.fix.applicability})


def _code_flow(d: Diagnostic, sources: dict[str, SourceFile], uris: _Uris) -> om.CodeFlow:
    flows = []
    for t in d.trace:
        label = trace_label(t)
        locations = [
            om.ThreadFlowLocation(
                location=_location(s.location, sources, uris, message=s.message),
                kinds=["blocked"] if s.blocked else None,
                importance="essential" if s.blocked else "important")
            for s in t.steps
        ]
        if not locations:  # the schema wants at least one; say why there is none
            locations = [om.ThreadFlowLocation(location=om.Location(
                message=om.Message(text=t.waits_for or "no recorded steps")))]
        text = f"{label}: {t.waits_for}" if t.waits_for else label
        flows.append(om.ThreadFlow(id=label, message=om.Message(text=text), locations=locations,
                                   properties={"process": list(t.process),
                                               **({"others": [list(o) for o in t.others]} if t.others else {})}))
    return om.CodeFlow(message=om.Message(text=d.message), thread_flows=flows)


def to_sarif(diagnostics: list[Diagnostic], sources: dict[str, SourceFile],
             rules: RuleLookup | None = None, *, summary: dict | None = None,
             root: str | None = None, execution_successful: bool = True) -> om.SarifLog:
    diags = sorted_diagnostics(diagnostics, sources)
    uris = _Uris(root)
    codes = sorted({d.code for d in diags})
    first = {}
    for d in diags:
        first.setdefault(d.code, d)
    descriptors = [_descriptor(c, rules(c) if rules is not None else None, first[c]) for c in codes]
    index = {c: i for i, c in enumerate(codes)}

    seen: dict[str, int] = {}
    results = []
    for d in diags:
        fp = fingerprint(d, sources)
        seen[fp] = seen.get(fp, 0) + 1
        lh = line_hash(d, sources)
        seen[lh + d.code] = seen.get(lh + d.code, 0) + 1
        partial = {FINGERPRINT_KEY: f"{fp}:{seen[fp]}", "primaryLocationLineHash": f"{lh}:{seen[lh + d.code]}"}
        if d.fingerprint:
            partial["shloLintEngine/v1"] = d.fingerprint
        props = {"category": d.category, "name": d.name}
        if d.help:
            props["help"] = d.help
        results.append(om.Result(
            rule_id=d.code,
            rule_index=index[d.code],
            level=LEVELS[severity_of(d).value],
            message=om.Message(text=linked_message(d)),
            locations=[_location(d.location, sources, uris, primary=True)],
            related_locations=[_location(n.location, sources, uris, message=n.message, id=i)
                               for i, n in enumerate(d.notes, 1)] or None,
            partial_fingerprints=partial,
            fixes=[_fix(d, sources, uris)] if d.fix is not None and d.fix.edits else None,
            code_flows=[_code_flow(d, sources, uris)] if d.trace else None,
            properties=props,
        ))

    success = execution_successful
    if summary is not None and "execution_successful" in summary:
        success = bool(summary["execution_successful"])
    version = tool_version()
    driver = om.ToolComponent(name=TOOL_NAME, version=version, semantic_version=version,
                              information_uri=INFORMATION_URI, rules=descriptors)
    run = om.Run(tool=om.Tool(driver=driver), results=results,
                 invocations=[om.Invocation(execution_successful=success)],
                 column_kind="unicodeCodePoints", original_uri_base_ids=uris.base_ids())
    return om.SarifLog(version="2.1.0", schema_uri=SCHEMA_URI, runs=[run])


def to_dict(diagnostics: list[Diagnostic], sources: dict[str, SourceFile],
            rules: RuleLookup | None = None, **opts) -> dict:
    log = to_json(to_sarif(diagnostics, sources, rules, **opts))
    return {"$schema": log.pop("$schema"), "version": log.pop("version"), **log}


def render(diagnostics: list[Diagnostic], sources: dict[str, SourceFile],
           rules: RuleLookup | None = None, *, summary: dict | None = None,
           root: str | None = None, execution_successful: bool = True, indent: int | None = 2,
           **_opts) -> str:
    log = to_dict(diagnostics, sources, rules, summary=summary, root=root,
                  execution_successful=execution_successful)
    return json.dumps(log, indent=indent, ensure_ascii=False) + "\n"
