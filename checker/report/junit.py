"""JUnit XML, for CI test-report views (GitLab `reports: junit`, Jenkins, Azure):

    <testsuites name="shlo-lint" tests=N failures=F errors=0>
      <testsuite name="prog.mlir" tests=.. failures=..>
        <testcase classname="prog.mlir" name="SHLO103 send-duplicate-source at 14:8" file="prog.mlir" line="14">
          <failure type="error" message="...">prog.mlir:14:8: ...notes, help, trace...</failure>
        </testcase>
        <testcase classname="ok.mlir" name="shlo-lint"/>      (a file without findings passes)

One suite per file checked (`sources`), one failing test case per finding (ruff
does the same), one passing case for a file without findings.
"""
from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from itertools import groupby

from ..source.diagnostics import Diagnostic
from ..source.text import SourceFile
from .shared import RuleLookup, resolve, severity_of, sorted_diagnostics
from .text import render_one


_ILLEGAL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")


def _xml(text: str) -> str:
    """XML 1.0 cannot hold most control characters, even escaped."""
    return _ILLEGAL.sub("\ufffd", text)


def render(diagnostics: list[Diagnostic], sources: dict[str, SourceFile],
           rules: RuleLookup | None = None, **_opts) -> str:
    diags = sorted_diagnostics(diagnostics, sources)
    by_path = {path: list(g) for path, g in groupby(diags, key=lambda d: d.path)}
    paths = sorted(set(sources) | set(by_path))
    root = ET.Element("testsuites", name="shlo-lint")
    total = failures = 0
    for path in paths:
        found = by_path.get(path, [])
        suite = ET.SubElement(root, "testsuite", name=path, tests=str(max(1, len(found))),
                              failures=str(len(found)), errors="0", skipped="0")
        if not found:
            ET.SubElement(suite, "testcase", classname=path, name="shlo-lint", file=path)
        for d in found:
            pos = resolve(d.location, sources)
            where = f" at {pos.line}:{pos.column or 1}" if pos.line is not None else ""
            case = ET.SubElement(suite, "testcase", classname=path, name=f"{d.code} {d.name}{where}", file=path,
                                 **({"line": str(pos.line)} if pos.line is not None else {}))
            failure = ET.SubElement(case, "failure", type=severity_of(d).value, message=_xml(d.message))
            failure.text = _xml("\n".join(render_one(d, sources, show_source=True)))
        total += max(1, len(found))
        failures += len(found)
    root.set("tests", str(total))
    root.set("failures", str(failures))
    root.set("errors", "0")
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"
