"""The one Lark instance (LALR, contextual lexer, IR built in the callbacks of
`builder.Builder`, no parse tree), `parse_rule` (parse a text from a start rule in
a `ParseCtx`), and `syntax_problem` (Lark's error -> a located "expected ..., got ..."
SyntaxProblem, in words: expected.py)."""
from __future__ import annotations

from lark import Lark, Token
from lark.exceptions import UnexpectedInput

from ....source.text import Span
from ...lark_grammar import build_lark, shown_token, terminal_names, unexpected
from .builder import Builder
from .ctx import SyntaxProblem, ParseCtx
from .expected import describe


_STARTS = ["op", "type_only", "attr_only", "loc_only", "sig_only", "type_list_only",
           "block_label", "alias_def", "dialect_body"]


# --------------------------------------------------------------------------- Lark instance
_LARK: Lark | None = None
_BUILDER: "Builder | None" = None
_DISPLAY: dict[str, str] = {}

_TYPE_TERMINALS = {"TENSOR_SIMPLE", "TENSOR_OPEN", "ELEMTYPE", "COMPLEX_OPEN", "TUPLE_OPEN",
                   "FUTURE_OPEN", "ASYNC_OPEN", "BANG", "MEMREF"}
_NAMED_DISPLAY = {
    "VALUE_ID": "a value (%name)", "BLOCK_ID": "a block (^bb)", "SYMBOL": "a symbol (@name)",
    "HASH": "an attribute (#...)", "STRING": "a string", "FLOAT": "a float", "HEX": "a hex number",
    "INT": "an integer", "DENSE": "dense<...>", "DENSE_RESOURCE": "dense_resource<...>",
    "ARRAY": "array<...>", "OPAQUE_ANGLE": "an attribute", "ANGLE": "'<...>'", "DIM": "a dimension",
    "LOC_OPEN": "loc(...)", "REGION": "a region", "BARE_ID": "an identifier", "$END": "end of input",
}


def lark_parser() -> Lark:
    """The one Lark instance (built on first use, analysis cached on disk by Lark)."""
    global _LARK, _BUILDER
    if _LARK is None:
        _BUILDER = Builder(parse_rule)
        lark = build_lark("stablehlo.lark", parser="lalr", lexer="contextual", start=_STARTS,
                          transformer=_BUILDER, maybe_placeholders=True)
        _DISPLAY.update(terminal_names(lark, {**{t: "a type" for t in _TYPE_TERMINALS}, **_NAMED_DISPLAY}))
        _LARK = lark
    return _LARK


def shared_builder() -> "Builder":
    lark_parser()
    assert _BUILDER is not None
    return _BUILDER


def parse_rule(start: str, ctx: ParseCtx):
    """Parse ctx.text from `start` with ctx as the builder's context (re-entrant)."""
    lark = lark_parser()
    b = _BUILDER
    saved = (b.ctx, b._ts, b._te)
    b.ctx = ctx
    try:
        return lark.parse(ctx.text, start=start)
    finally:
        b.ctx, b._ts, b._te = saved


def syntax_problem(err: UnexpectedInput, ctx: ParseCtx) -> SyntaxProblem:
    b = shared_builder()
    text = ctx.text
    expected, got, start, end = unexpected(err, text, _show_token)
    msg = describe({_DISPLAY.get(name, name.lower()) for name in expected}, got, text[:start])
    saved = b.ctx
    b.ctx = ctx
    try:
        span = Span(b._abs(start), b._abs(max(start, end)))
    finally:
        b.ctx = saved
    return SyntaxProblem(msg, span)


def _show_token(tok: Token) -> str:
    return "a region" if tok.type == "REGION" else shown_token(tok)
