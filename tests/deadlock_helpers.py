"""Shared by tests/test_deadlock.py and tests/test_deadlock_limits.py: the deadlock
analysis's verdict on a file or a text, with options."""
from __future__ import annotations

from shlo_lint.checker.analysis.process_model import analyze
from shlo_lint.checker.frontend.read import header_parser as parser
from shlo_lint.checker.frontend.stablehlo.scan import scan
from shlo_lint.checker.analysis.semantics import grid_of
from shlo_lint.checker.source.text import SourceFile


def verdict_of(path_or_text, **options):
    text = path_or_text.read_text() if hasattr(path_or_text, "read_text") else path_or_text
    m = scan(SourceFile("t.mlir", text), parser())
    return analyze(m, grid_of(m), options)
