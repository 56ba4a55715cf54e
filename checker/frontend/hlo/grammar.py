"""The Lark reader of HLO text (grammar/hlo.lark): the reference the regex fast
path is tested against, and the fallback for everything the fast path leaves.

`parse(text, start, base)` reads `text` (a piece of the file starting at
offset `base`) from one of the grammar's start rules and returns the syntax
model's objects with spans in file offsets, or a SyntaxIssue. Values are typed
from the parse tree here, independently of checker/frontend/hlo/body.py (which types
them from regex matches); the forms with no grammar rule of their own go
through values.typed_text in both.
"""
from __future__ import annotations

from dataclasses import dataclass

from lark import Lark, Token, Transformer, v_args
from lark.exceptions import UnexpectedInput, VisitError

from ...source.text import Span
from ..lark_grammar import build_lark, terminal_names, unexpected
from .frames import FileLocation, StackFrame, StackFrameTables
from .groups import ExplicitGroups, iota_from, mesh_from
from .model import Attribute, Body, OperandRef, Parameter, SyntaxIssue
from .shapes import UNBOUNDED, Shape
from .values import (COMPUTATION_ATTRS, BackendConfig, ComputationLayout, FrontendAttributes, Literal, Metadata,
                     NameRef, Opaque, SourceTargetPairs, Word, typed_text, unescape)

__all__ = ["STARTS", "ParsedInstruction", "ParsedHeader", "ParsedComputation", "ParsedModule", "parse",
           "lark_instance"]

STARTS = ["module", "instruction", "comp_header", "body", "constant_body", "parameter_body",
          "header_attrs", "attr_only", "shape_only"]

_DISPLAY_NAMES = {
    "PCT_NAME": "a name (%name)", "IDENT": "an identifier", "ATTR_NAME": "an attribute (name=)",
    "LABEL_NAME": "a parameter (name:)", "INT": "an integer", "FLOAT": "a number", "STRING": "a string",
    "ELEM_TYPE": "a shape", "LAYOUT_OPEN": "a layout", "JSON_BLOB": "a {...} dictionary",
    "DIM_LABELS": "dim labels", "DXD": "NxM", "PAD": "a padding", "MESH_OPEN": "mesh[",
    "TRANSPOSE": "'T('", "BUF_OPEN": "'b('", "DEVICE_IDS": "', device_ids=('", "COMP_ATTR": "an attribute",
    "COMP_LIST_ATTR": "an attribute", "CONSTANT": "'constant'", "PARAMETER": "'parameter'",
    "$END": "end of input",
}
_LARK: Lark | None = None
_DISPLAY: dict[str, str] = {}


def lark_instance() -> Lark:
    """The one Lark instance (LALR, contextual lexer), built on first use."""
    global _LARK
    if _LARK is None:
        lark = build_lark("hlo.lark", parser="lalr", lexer="contextual", start=STARTS, propagate_positions=True,
                          maybe_placeholders=True)
        _DISPLAY.update(terminal_names(lark, _DISPLAY_NAMES))
        _LARK = lark
    return _LARK


# --------------------------------------------------------------------------- results
@dataclass(frozen=True, slots=True)
class ParsedInstruction:
    """An instruction as the grammar reads it."""

    name: str
    """Name without `%`."""
    is_root: bool
    """Marked ROOT."""
    span: Span
    """The whole instruction."""
    name_span: Span
    """The name (`%` included)."""
    shape: Shape | None
    """The result shape (None when left out)."""
    shape_span: Span | None
    """Where the shape is."""
    opcode: str
    """The opcode."""
    opcode_span: Span
    """Where it is."""
    body: Body
    """Operands and attributes."""
    body_start: int
    """Offset just after `opcode(`."""


@dataclass(frozen=True, slots=True)
class ParsedHeader:
    """A computation's first line as the grammar reads it."""

    name: str
    """Name without `%`."""
    is_entry: bool
    """Marked ENTRY."""
    name_span: Span
    """The name."""
    parameters: tuple[Parameter, ...]
    """The signature's parameters."""
    result: Shape | None
    """The signature's result (None when there is no signature)."""
    signature_span: Span | None
    """`(...) -> shape`."""


@dataclass(frozen=True, slots=True)
class ParsedComputation:
    """A whole computation."""

    header: ParsedHeader
    """Its first line."""
    instructions: tuple[ParsedInstruction, ...]
    """Its instructions."""
    attributes: tuple[Attribute, ...]
    """After its closing brace."""
    span: Span
    """All of it."""


@dataclass(frozen=True, slots=True)
class ParsedModule:
    """A whole file."""

    name: str | None
    """The module's name."""
    header_attributes: tuple[Attribute, ...]
    """The header's attributes."""
    tables: StackFrameTables | None
    """The stack-frame tables."""
    computations: tuple[ParsedComputation, ...]
    """The computations in order."""


# --------------------------------------------------------------------------- the transformer
def _ints(tokens) -> tuple[int, ...]:
    return tuple(int(t) for t in tokens if isinstance(t, Token) and t.type == "INT")


class _Group:
    """A bracket group of a generic value: its opener's kind and its items."""

    __slots__ = ("opener", "items")

    def __init__(self, opener: str, items: list):
        self.opener = opener
        self.items = items


@v_args(meta=True)
class _Build(Transformer):
    """Builds the model's objects; spans are offsets in the file (`base` + position in `text`)."""

    def __init__(self, text: str, base: int):
        super().__init__(visit_tokens=False)
        self.text = text
        self.base = base

    # -- helpers
    def _span(self, meta) -> Span:
        if getattr(meta, "empty", True):
            return Span(self.base, self.base)
        return Span(self.base + meta.start_pos, self.base + meta.end_pos)

    def _tok_span(self, tok: Token) -> Span:
        return Span(self.base + tok.start_pos, self.base + tok.end_pos)

    def _text(self, span: Span) -> str:
        return self.text[span.start - self.base:span.end - self.base]

    def _attr(self, meta, name_tok: Token, value, make=None):
        """The Attribute; with `make`, its value is make(value), and a ValueError from it
        leaves an Opaque value and a SyntaxIssue at the value: (Attribute, SyntaxIssue)."""
        span = self._span(meta)
        start = name_tok.end_pos
        while start < len(self.text) and self.text[start] in " \t\r\n":
            start += 1
        vspan = Span(self.base + start, span.end)
        name = str(name_tok)[:-1]
        if make is not None:
            try:
                value = make(value)
            except ValueError as err:
                return (Attribute(name, Opaque(self._text(vspan)), span.start, vspan.start, span.end),
                        SyntaxIssue(str(err), vspan))
        return Attribute(name, value, span.start, vspan.start, span.end)

    # -- names
    def any_name(self, meta, children):
        tok = children[0]
        name = str(tok)
        return (name[1:] if name.startswith("%") else name), self._tok_span(tok)

    # -- shapes
    def shape_only(self, meta, children):
        return children[0]

    def array_shape(self, meta, children):
        elem = str(children[0])
        dims, dynamic, layout = [], [], None
        for c in children[1:]:
            if c is None:
                continue
            if isinstance(c, tuple):
                dims.append(c[0])
                dynamic.append(c[1])
            else:
                layout = c
        return Shape(elem, tuple(dims), tuple(dynamic), layout)

    def tuple_shape(self, meta, children):
        return Shape("tuple", tuple_shapes=tuple(c for c in children if c is not None))

    def buffer_shape(self, meta, children):
        return Shape("buffer", tuple_shapes=(children[1],))

    def dim_static(self, meta, children):
        return (int(children[0]), False)

    def dim_bounded(self, meta, children):
        return (int(children[1]), True)

    def dim_unbounded(self, meta, children):
        return (UNBOUNDED, True)

    def layout(self, meta, children):
        text = self._text(self._span(meta))
        return text[1:-1].strip()

    # -- generic values
    def simple_token(self, meta, children):
        return children[0] if children else Token("PUNCT", self._text(self._span(meta)))

    def g_brace(self, meta, children):
        return _Group("{", [c for c in children[1:] if c is not None])

    def g_square(self, meta, children):
        return _Group("[", [c for c in children if c is not None])

    def g_paren(self, meta, children):
        return _Group("(", [c for c in children if c is not None])

    def gatom(self, meta, children):
        return children[0]

    def gin(self, meta, children):
        return children[0] if children else Token("COMMA", ",")

    def lbrace(self, meta, children):
        return Token("LBRACE", "{")

    def gvalue(self, meta, children):
        return (children, self._span(meta))

    def literal(self, meta, children):
        return self._span(meta)

    # -- lists
    def int_list(self, meta, children):
        return _ints(children)

    def int_list_list(self, meta, children):
        return tuple(c for c in children if isinstance(c, tuple))

    def name_list(self, meta, children):
        return tuple(NameRef(c[0]) for c in children if isinstance(c, tuple))

    def comp_ref(self, meta, children):
        return NameRef(children[0][0])

    def nested_computation(self, meta, children):
        return Opaque(self._text(self._span(meta)))

    # -- replica groups (raw here: typed, and checked, where the attribute is made)
    def rg_explicit(self, meta, children):
        return ExplicitGroups(children[0])

    def iota_list(self, meta, children):
        parts: list[list[int]] = [[]]
        transposed = False
        for c in children:
            if isinstance(c, Token) and c.type in ("LEQ", "TRANSPOSE"):
                transposed = c.type == "TRANSPOSE"
                parts.append([])
            elif isinstance(c, Token) and c.type == "INT":
                parts[-1].append(int(c))
        return ("iota", tuple(parts[0]), tuple(parts[1]), tuple(parts[2]) if transposed else None)

    def mesh_axis(self, meta, children):
        return ("axis", _axis_name(children[0]), int(children[-1]))

    def ids_iota(self, meta, children):
        parts: list[list[int]] = [[]]
        transposed = False
        for c in children:
            if isinstance(c, Token) and c.type == "TRANSPOSE":
                transposed = True
                parts.append([])
            elif isinstance(c, Token) and c.type == "INT":
                parts[-1].append(int(c))
        return ("ids", ("iota", tuple(parts[0]), tuple(parts[1]) if transposed else None))

    def ids_list(self, meta, children):
        return ("ids", ("list", _ints(children)))

    def axis_full(self, meta, children):
        return ("ref", _axis_name(children[0]), None, None)

    def axis_sub(self, meta, children):
        return ("ref", _axis_name(children[0]), int(children[-2]), int(children[-1]))

    def rg_mesh(self, meta, children):
        axes, order, refs = [], None, []
        for c in children:
            if isinstance(c, tuple) and c[0] == "axis":
                axes.append(c[1:])
            elif isinstance(c, tuple) and c[0] == "ids":
                order = c[1]
            elif isinstance(c, tuple) and c[0] == "ref":
                refs.append(c[1:])
        return ("mesh", tuple(axes), order, tuple(refs))

    # -- metadata, frontend attributes, backend config
    def md_item(self, meta, children):
        key = str(children[0])[:-1]
        v = children[1]
        if isinstance(v, Token) and v.type == "STRING":
            return key, unescape(str(v)[1:-1])
        if isinstance(v, Token):
            return key, int(v)
        return key, v

    def metadata(self, meta, children):
        return Metadata.from_items(c for c in children if isinstance(c, tuple))

    def fa_item(self, meta, children):
        key = str(children[0])[:-1]
        v = children[1]
        if v.type == "STRING":
            return key, unescape(str(v)[1:-1])
        return key, str(v)

    def frontend(self, meta, children):
        return FrontendAttributes(tuple(c for c in children if isinstance(c, tuple)))

    def backend(self, meta, children):
        tok = children[0]
        if tok.type == "STRING":
            return BackendConfig(unescape(str(tok)[1:-1]), False)
        return BackendConfig(str(tok), True)

    # -- attributes
    def a_replica_groups(self, meta, children):
        return self._attr(meta, children[0], children[1], _groups)

    def a_pairs(self, meta, children):
        return self._attr(meta, children[0], children[1], SourceTargetPairs.from_lists)

    def a_metadata(self, meta, children):
        return self._attr(meta, children[0], children[1])

    def a_frontend(self, meta, children):
        return self._attr(meta, children[0], children[1])

    def a_backend(self, meta, children):
        return self._attr(meta, children[0], children[1])

    def a_control(self, meta, children):
        return self._attr(meta, children[0], children[1])

    def a_computation(self, meta, children):
        return self._attr(meta, children[0], children[1])

    def a_computations(self, meta, children):
        return self._attr(meta, children[0], tuple(c for c in children[1:] if c is not None))

    def a_entry_layout(self, meta, children):
        shapes = [c for c in children[1:] if isinstance(c, Shape)]
        return self._attr(meta, children[0], ComputationLayout(tuple(shapes[:-1]), shapes[-1]))

    def a_generic(self, meta, children):
        name_tok = children[0]
        atoms, vspan = children[1]
        name = str(name_tok)[:-1]
        return self._attr(meta, name_tok, _generic_value(name, atoms, self._text(vspan)))

    def attrs(self, meta, children):
        return _split_issues(children)

    def attr_only(self, meta, children):
        return children[0]

    def attribute(self, meta, children):  # pragma: no cover - every alternative is named
        return children[0]

    # -- operands and bodies
    def operand_ref(self, meta, children):
        name, nspan = children[-1]
        span = self._span(meta)
        shape_text = None
        if len(children) > 1:
            shape_text = self._text(Span(span.start, nspan.start)).strip()
        return OperandRef(name, span.start, span.end, shape_text)

    def operand_nested(self, meta, children):
        span = self._span(meta)
        shape_text = None
        op_tok = next(c for c in children if isinstance(c, Token) and c.type == "IDENT")
        if isinstance(children[0], Shape):
            shape_text = self._text(Span(span.start, self.base + op_tok.start_pos)).strip()
        nested = self._text(Span(self.base + op_tok.start_pos, span.end))
        return OperandRef(None, span.start, span.end, shape_text, nested)

    def nested_body(self, meta, children):
        return tuple(c for c in children if c is not None)

    def body(self, meta, children):
        operands = tuple(c for c in children[:-1] if c is not None)
        attrs, issues = children[-1]
        return Body(operands, attrs, issues, by_fast_path=False)

    def constant_body(self, meta, children):
        lit_span = children[0]
        attrs, issues = children[-1]
        return Body((), attrs, issues, literal=Literal(self._text(lit_span).strip()), by_fast_path=False)

    def parameter_body(self, meta, children):
        attrs, issues = children[-1]
        return Body((), attrs, issues, parameter_number=int(children[0]), by_fast_path=False)

    def rhs(self, meta, children):
        shape, shape_span = None, None
        rest = list(children)
        if isinstance(rest[0], Shape):
            shape = rest.pop(0)
            opcode_tok = rest[0]
            shape_span = Span(self._span(meta).start, self.base + opcode_tok.start_pos)
            shape_span = Span(shape_span.start, shape_span.start + len(self._text(shape_span).rstrip()))
        opcode_tok, body = rest[0], rest[1]
        paren = self.text.index("(", opcode_tok.end_pos)
        return shape, shape_span, str(opcode_tok), self._tok_span(opcode_tok), body, self.base + paren + 1

    def instruction(self, meta, children):
        is_root = isinstance(children[0], Token) and children[0].type == "ROOT"
        (name, nspan) = children[1] if is_root else children[0]
        shape, shape_span, opcode, ospan, body, body_start = children[-1]
        return ParsedInstruction(name, is_root, self._span(meta), nspan, shape, shape_span, opcode, ospan,
                                 body, body_start)

    # -- computations and the module
    def param(self, meta, children):
        return Parameter(str(children[0])[:-1], children[1], self._span(meta))

    def signature(self, meta, children):
        params = tuple(c for c in children if isinstance(c, Parameter))
        return params, children[-1], self._span(meta)

    def comp_header(self, meta, children):
        is_entry = isinstance(children[0], Token) and children[0].type == "ENTRY"
        rest = [c for c in (children[1:] if is_entry else children) if c is not None]
        name, nspan = rest[0]
        params, result, sspan = rest[1] if len(rest) > 1 else ((), None, None)
        return ParsedHeader(name, is_entry, nspan, params, result, sspan)

    def computation(self, meta, children):
        header = children[0]
        instrs = tuple(c for c in children if isinstance(c, ParsedInstruction))
        attrs, _ = _split_issues([c for c in children[1:] if not isinstance(c, ParsedInstruction)])
        return ParsedComputation(header, instrs, attrs, self._span(meta))

    def header_attrs(self, meta, children):
        return _split_issues(children)

    def header(self, meta, children):
        return children[1][0], children[2][0]

    def file_row(self, meta, children):
        return int(children[0]), unescape(str(children[1])[1:-1])

    def loc_row(self, meta, children):
        fields = {}
        toks = [c for c in children[1:] if isinstance(c, Token)]
        for k, v in zip(toks[::2], toks[1::2]):
            fields[str(k)[:-1]] = int(v)
        return int(children[0]), fields

    def tables(self, meta, children):
        sections: list[list] = []
        for c in children:
            if isinstance(c, Token):
                sections.append([])
            else:
                sections[-1].append(c)
        files = tuple(v for _, v in sections[0])
        funcs = tuple(v for _, v in sections[1])
        locs = tuple(FileLocation(f.get("file_name_id", 0), f.get("function_name_id", 0), f.get("line", 0),
                                  f.get("end_line", 0), f.get("column", 0), f.get("end_column", 0))
                     for _, f in sections[2])
        frames = tuple(StackFrame(f.get("file_location_id", 0), max(0, f.get("parent_frame_id", 1) - 1))
                       for _, f in sections[3])
        return StackFrameTables(files, funcs, locs, frames, self._span(meta))

    def module(self, meta, children):
        name, attrs, tables = None, (), None
        comps = []
        for c in children:
            if c is None:
                continue
            if isinstance(c, tuple) and len(c) == 2 and isinstance(c[0], str):
                name, attrs = c
            elif isinstance(c, StackFrameTables):
                tables = c
            elif isinstance(c, ParsedComputation):
                comps.append(c)
        return ParsedModule(name, attrs, tables, tuple(comps))


def _axis_name(tok: Token) -> str:
    """A mesh axis as written: 'x' or "x" (quoted), x= / x: (bare, with its sign), 0 (an index)."""
    s = str(tok)
    if tok.type == "STRING":
        return unescape(s[1:-1])
    if tok.type in ("ATTR_NAME", "LABEL_NAME"):
        return s[:-1]
    return s


def _groups(raw):
    """A replica_groups value from its raw parse (checked by groups.iota_from / mesh_from)."""
    if isinstance(raw, ExplicitGroups):
        return raw
    if raw[0] == "iota":
        return iota_from(raw[1], raw[2], raw[3])
    return mesh_from(raw[1], raw[2], raw[3])


def _split_issues(children) -> tuple[tuple[Attribute, ...], tuple[SyntaxIssue, ...]]:
    attrs, issues = [], []
    for c in children:
        if isinstance(c, Attribute):
            attrs.append(c)
        elif c is not None:  # (Attribute, SyntaxIssue): a value that read but means nothing
            attrs.append(c[0])
            issues.append(c[1])
    return tuple(attrs), tuple(issues)


_WORDLIKE = frozenset({"IDENT", "ROOT", "ENTRY"})  # identifiers the grammar lexes as keywords too


def _generic_value(name: str, atoms: list, text: str):
    """The typed value of a generic (`gvalue`) attribute from its atoms: a single token,
    a `{...}` of ints, of `{ints}`, of names, of booleans or of words; else values.typed_text.
    A sharding stays an Opaque whatever its form."""
    if name == "sharding":
        return Opaque(text)
    if len(atoms) == 1:
        a = atoms[0]
        if isinstance(a, Token):
            t = a.type
            if t == "INT":
                return int(a)
            if t == "FLOAT":
                return float(a)
            if t == "STRING":
                return unescape(str(a)[1:-1])
            if t == "PCT_NAME":
                return NameRef(str(a)[1:])
            if t in _WORDLIKE:
                s = str(a)
                if s in ("true", "false"):
                    return s == "true"
                return NameRef(s) if name in COMPUTATION_ATTRS else Word(s)
            if t in ("DIM_LABELS", "DXD", "PAD"):
                return Word(str(a))
        elif isinstance(a, _Group) and a.opener == "{":
            items = [x for x in a.items if not (isinstance(x, Token) and x.type == "COMMA")]
            if all(isinstance(x, Token) and x.type == "INT" for x in items):
                return tuple(int(x) for x in items)
            if all(isinstance(x, Token) and x.type == "PCT_NAME" for x in items):
                return tuple(NameRef(str(x)[1:]) for x in items)
            if items and all(isinstance(x, Token) and x.type in _WORDLIKE for x in items):
                if all(str(x) in ("true", "false") for x in items):
                    return tuple(str(x) == "true" for x in items)
                return tuple(Word(str(x)) for x in items)
            if all(isinstance(x, _Group) and x.opener == "{" for x in items):
                rows = []
                for x in items:
                    inner = [y for y in x.items if not (isinstance(y, Token) and y.type == "COMMA")]
                    if not all(isinstance(y, Token) and y.type == "INT" for y in inner):
                        break
                    rows.append(tuple(int(y) for y in inner))
                else:
                    return tuple(rows)
    return typed_text(name, text)


# --------------------------------------------------------------------------- entry point
def parse(text: str, start: str, base: int = 0):
    """Read `text` (the file's text from offset `base` on) from start rule `start`: the
    model's objects, or a SyntaxIssue."""
    lark = lark_instance()
    try:
        tree = lark.parse(text, start=start)
    except UnexpectedInput as err:
        return _issue(err, text, base)
    try:
        return _Build(text, base).transform(tree)
    except VisitError as err:
        cause = err.orig_exc
        if isinstance(cause, ValueError):
            span = Span(base, base + len(text.rstrip()))
            meta = getattr(err.obj, "meta", None)
            if meta is not None and not getattr(meta, "empty", True):
                span = Span(base + meta.start_pos, base + meta.end_pos)
            return SyntaxIssue(str(cause), span)
        raise


def _issue(err: UnexpectedInput, text: str, base: int) -> SyntaxIssue:
    expected, got, start, end = unexpected(err, text)
    shown = sorted({_DISPLAY.get(n, n.lower()) for n in expected}, key=lambda s: (not s.startswith("'"), s))
    if len(shown) > 8:
        shown = shown[:8] + ["..."]
    if not shown:
        msg = f"unexpected {got}"
    elif len(shown) == 1:
        msg = f"expected {shown[0]}, got {got}"
    else:
        msg = f"expected one of: {', '.join(shown)}, got {got}"
    return SyntaxIssue(msg, Span(base + start, base + max(start, end)))
