"""Shared by tests/test_parse.py and tests/test_parse_ops.py: parse one op built
by hand, the way the scanner would (`op_header`), and compare the fast path with
the full grammar (`parse_ok`)."""
from __future__ import annotations

import re
from pathlib import Path


from shlo_lint.checker.ir.core import Module, OpHeader, Operation
from shlo_lint.checker.frontend.stablehlo.parse import LarkParser, parse_attribute, parse_type
from shlo_lint.checker.source.text import SourceFile, Span
from shlo_lint.checker.ir.types import ScalarType

from conftest import deep

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "tests" / "fixtures" / "parse"
PARSER = LarkParser()
SLOW = LarkParser(fast=False)

F32 = ScalarType("f32")
I32 = ScalarType("i32")
I64 = ScalarType("i64")


def T(text: str):
    return parse_type(text)


def A(text: str):
    return parse_attribute(text)


# --------------------------------------------------------------------------- helpers
_RESULTS = re.compile(r"\s*((?:%[\w$.\-]+(?::\d+)?\s*,?\s*)+)=")


def op_header(text: str, *regions: str, name: str | None = None, parser: LarkParser = PARSER,
              aliases: dict[str, str] | None = None):
    """Parse `text` as one op whose regions are the given substrings of it.

    Returns (header, module); `module.syntax_errors` has what the parse recorded."""
    source = SourceFile("t.mlir", text)
    module = Module(source, parser)
    for key, value in (aliases or {}).items():
        (module.type_aliases if key.startswith("!") else module.attr_aliases)[key] = value
    spans = []
    at = 0
    for r in regions:
        i = text.index(r, at)
        spans.append(Span(i, i + len(r)))
        at = i + len(r)
    results: tuple = ()
    m = _RESULTS.match(text)
    if m:
        groups = []
        for part in m.group(1).split(","):
            part = part.strip()
            if part:
                n, _, k = part.partition(":")
                groups.append((n, int(k) if k else 1))
        results = tuple(groups)
    if name is None:
        nm = re.search(r'"([\w.$\-]+)"|([A-Za-z_][\w.$]*)', text[m.end() if m else 0:])
        name = nm.group(1) or nm.group(2)
    op = Operation(name, Span(0, len(text)), results, module)
    op.region_spans = spans
    return parser.parse_header(module, op), module


def parse_ok(text: str, *regions: str, **kw) -> OpHeader:
    """Parse without syntax errors; the fast path and the full grammar must agree."""
    h, module = op_header(text, *regions, **kw)
    assert module.syntax_errors == [], module.syntax_errors
    slow, _ = op_header(text, *regions, parser=SLOW, **kw)
    assert deep(h) == deep(slow)
    return h


def at(text: str, span: Span) -> str:
    return text[span.start:span.end]


def line_col(text: str, span: Span) -> tuple[int, int]:
    return SourceFile("t", text).line_col(span.start)
