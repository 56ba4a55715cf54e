"""Source text into the IR: the front end a file is read with.

Every file is read as StableHLO (MLIR text, what JAX lowers to) today: `scan`
builds every op's structure at once and the header parser reads an op's header
when something first asks for it. A reader for another language (XLA's HLO text,
frontend/hlo/) is chosen here, by the file's content, and builds the same
`ir.core.Module`.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from ..ir.core import Module
from ..source.text import SourceFile
from .stablehlo.scan import scan

if TYPE_CHECKING:  # pragma: no cover
    from .stablehlo.parse import LarkParser

_parser: "LarkParser | None" = None


def header_parser() -> "LarkParser":
    """The StableHLO header parser, built once per process (imported then: a
    command that reads no file does not load Lark)."""
    global _parser
    if _parser is None:
        from .stablehlo import lark_lexer
        from .stablehlo.parse import LarkParser
        from .stablehlo.parse.runner import lark_parser

        _parser = LarkParser()
        # Union regexes compiled when hot (lark_lexer.py): off the start-up of a one-file run.
        lark_lexer.install(lark_parser())
    return _parser


def read_module(source: SourceFile, parser=None) -> Module:
    """The module of `source` (ops and regions now, each op's header on first
    access through `parser`, by default `header_parser()`)."""
    return scan(source, parser if parser is not None else header_parser())


__all__ = ["header_parser", "read_module"]
