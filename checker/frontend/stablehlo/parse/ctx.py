"""Where the text being parsed sits in the file (`ParseCtx`: base offset, the
offset map of collapsed regions, the module whose aliases apply) and the
parser's error types: `SyntaxProblem` (bad text, SHLO001) and
`InternalParseError` (our bug, SHLO003), with `record_internal` recording the latter."""
from __future__ import annotations

from ....source.text import Span


class SyntaxProblem(Exception):
    """A syntax error: a human-readable `message` ("expected one of: ..., got ...")
    and the absolute `span` it is about."""

    def __init__(self, message: str, span: Span):
        super().__init__(message)
        self.message = message
        self.span = span


class InternalParseError(SyntaxProblem):
    """The parser itself failed (an exception in our code, not bad text): report it
    as SHLO003. A SyntaxProblem subclass so that callers catching SyntaxProblem
    still never see a traceback."""


BARE_LOCATION = ("a location must be written loc(...); MLIR's pretty_debug_info printing "
                 "leaves it bare, and no parser reads that back (jaxlib neither)")
"""Added to the syntax error of a string where an op's `loc(...)` or its end belongs."""


# --------------------------------------------------------------------------- parse context
class ParseCtx:
    """Where the text being parsed sits in the file, and which module's aliases apply."""

    __slots__ = ("text", "base", "gap_pos", "gap_delta", "module", "source")

    def __init__(self, text: str, base: int, module=None, gap_pos=None, gap_delta=None):
        self.text = text
        self.base = base
        self.module = module
        self.source = module.source.text if module is not None else None
        self.gap_pos: list[int] = gap_pos or []
        self.gap_delta: list[int] = gap_delta or []


def internal_message(what: str, err: BaseException) -> str:
    """An exception inside the parser is our bug: name the exception type (never its
    text, which reads like a verdict on the user's file) and ask for a report."""
    return (f"internal error in the parser reading {what} ({type(err).__name__}); "
            "the op was read without its details; please report it with this file")


def record_internal(module, what: str, err: BaseException, span: Span) -> None:
    errors = getattr(module, "internal_errors", None)
    if errors is None:  # pragma: no cover - a Module from before internal_errors
        errors = module.__dict__.setdefault("internal_errors", [])
    errors.append((internal_message(what, err), span))
