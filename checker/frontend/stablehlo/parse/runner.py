"""The one Lark instance (LALR, contextual lexer, IR built in the callbacks of
`builder._Builder`, no parse tree), `parse_rule` (parse a text from a start rule in
a `ParseCtx`), and `syntax_problem` (Lark's error -> a located "expected ..., got ..."
SyntaxProblem)."""
from __future__ import annotations

from importlib import resources

from lark import Lark, Token
from lark.exceptions import UnexpectedCharacters, UnexpectedInput, UnexpectedToken

from ....source.text import Span
from .builder import Builder
from .ctx import SyntaxProblem, ParseCtx


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
        text = resources.files("shlo_lint.grammar").joinpath("stablehlo.lark").read_text("utf-8")
        _BUILDER = Builder(parse_rule)
        try:
            lark = Lark(text, parser="lalr", lexer="contextual", start=_STARTS,
                        transformer=_BUILDER, maybe_placeholders=True, cache=True)
        except Exception:  # pragma: no cover - unwritable cache directory and the like
            lark = Lark(text, parser="lalr", lexer="contextual", start=_STARTS,
                        transformer=_BUILDER, maybe_placeholders=True)
        for term in lark.terminals:
            pattern = term.pattern
            if term.name in _TYPE_TERMINALS:
                _DISPLAY[term.name] = "a type"
            elif term.name in _NAMED_DISPLAY:
                _DISPLAY[term.name] = _NAMED_DISPLAY[term.name]
            elif pattern.type == "str":
                _DISPLAY[term.name] = f"'{pattern.value}'"
            else:
                _DISPLAY[term.name] = term.name.lower()
        _DISPLAY["$END"] = "end of input"
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
    if isinstance(err, UnexpectedToken):
        tok = err.token
        try:  # `accepts` replays the parser: exact, where `expected` is LALR's merged lookahead
            expected = set(err.accepts or err.expected or ())
        except Exception:  # pragma: no cover - defensive
            expected = set(err.expected or ())
        if tok.type == "$END":
            got = "end of input"
            pos = len(text.rstrip())
            start = end = pos
        else:
            got = _show_token(tok)
            start, end = tok.start_pos, tok.end_pos
            if start is None:
                start = end = len(text)
    elif isinstance(err, UnexpectedCharacters):
        start = err.pos_in_stream
        end = start + 1
        got = f"'{text[start]}'" if start < len(text) else "end of input"
        expected = set(err.allowed or ())
    else:  # pragma: no cover - UnexpectedEOF (not raised by LALR in practice)
        start = end = len(text)
        got = "end of input"
        expected = set(getattr(err, "expected", ()) or ())
    shown = sorted({_DISPLAY.get(name, name.lower()) for name in expected},
                   key=lambda s: (not s.startswith("'"), s))
    if len(shown) > 10:
        shown = shown[:10] + ["..."]
    if not shown:
        msg = f"unexpected {got}"
    elif len(shown) == 1:
        msg = f"expected {shown[0]}, got {got}"
    else:
        msg = f"expected one of: {', '.join(shown)}, got {got}"
    saved = b.ctx
    b.ctx = ctx
    try:
        span = Span(b._abs(start), b._abs(max(start, end)))
    finally:
        b.ctx = saved
    return SyntaxProblem(msg, span)


def _show_token(tok: Token) -> str:
    if tok.type == "REGION":
        return "a region"
    v = str(tok.value)
    if len(v) > 40:
        v = v[:37] + "..."
    return f"'{v}'"
