"""Source text into the IR: the front end a file is read with, chosen by its content.

XLA's HLO text (its first token `HloModule`: `looks_like_hlo`)
is lowered by frontend/hlo/lower.py; everything else is read as StableHLO (MLIR
text, what JAX lowers to): `scan` builds every op's structure at once and the
header parser reads an op's header when something first asks for it. Both build
the same `ir.core.Module` (`Module.front_end` says which read it).
"""
from __future__ import annotations

import re
from typing import TYPE_CHECKING

from ..ir.core import Module
from ..source.text import SourceFile
from .stablehlo.scan import scan

if TYPE_CHECKING:  # pragma: no cover
    from .stablehlo.parse import LarkParser

_parser: "LarkParser | None" = None

_FIRST_TOKEN = re.compile(r"(?:\s+|//[^\n]*|/\*.*?\*/)*", re.S)
"""Blanks and comments (XLA's lexer skips `//` and `/* */` ones) before a text's first token."""


def looks_like_hlo(text: str) -> bool:
    """Is `text` HLO text: is its first token (past blanks and comments) `HloModule`?"""
    pos = _FIRST_TOKEN.match(text).end()
    return text.startswith("HloModule", pos) and not re.match(r"[\w.\-]", text[pos + 9:pos + 10])


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
    access: through `parser`, by default `header_parser()`, for StableHLO; built
    from the instruction for HLO, which needs no parser)."""
    if looks_like_hlo(source.text):
        from .hlo.lower import lower_hlo  # on first use: a StableHLO run does not load the HLO reader

        return lower_hlo(source)
    return scan(source, parser if parser is not None else header_parser())


__all__ = ["header_parser", "looks_like_hlo", "read_module"]
