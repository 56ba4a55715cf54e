"""GitLab Code Quality report (the merge-request widget reads it from
`artifacts: reports: codequality`): a JSON array of issues

    {"description", "check_name", "fingerprint", "severity", "location": {"path", "lines": {"begin"}}}

severity: error → major, warning → minor, info → info (GitLab's scale is info,
minor, major, critical, blocker). The fingerprint is unique per issue and stable
across runs (the engine's fingerprint, numbered when it repeats). Paths are as
reported (relative to where shlo-lint ran: run it from the repository root).
"""
from __future__ import annotations

import hashlib
import json

from ..source.diagnostics import Diagnostic
from ..source.text import SourceFile
from .shared import RuleLookup, resolve, severity_of, sorted_diagnostics

SEVERITY = {"error": "major", "warning": "minor", "info": "info"}


def issues(diagnostics: list[Diagnostic], sources: dict[str, SourceFile]) -> list[dict]:
    out, seen = [], {}
    for d in sorted_diagnostics(diagnostics, sources):
        pos = resolve(d.location, sources)
        base = d.fingerprint or hashlib.sha256(f"{d.code}\0{d.path}\0{d.message}".encode()).hexdigest()
        seen[base] = seen.get(base, 0) + 1
        fp = hashlib.md5(f"{base}:{seen[base]}".encode()).hexdigest()
        out.append({
            "description": f"{d.code} {d.message}",
            "check_name": f"{d.code} {d.name}",
            "fingerprint": fp,
            "severity": SEVERITY[severity_of(d).value],
            "location": {"path": pos.path.removeprefix("./"), "lines": {"begin": pos.line or 1}},
        })
    return out


def render(diagnostics: list[Diagnostic], sources: dict[str, SourceFile],
           rules: RuleLookup | None = None, *, indent: int | None = 2, **_opts) -> str:
    return json.dumps(issues(diagnostics, sources), indent=indent, ensure_ascii=False) + "\n"
