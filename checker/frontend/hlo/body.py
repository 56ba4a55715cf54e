"""The fast path: an instruction's operands and attributes, and the module
header's attributes, read with regexes.

What XLA prints is a handful of forms: operands `%a` or `f32[8]{0} %a`, and
attributes that are a number, a string, a name, a `{...}` of numbers or names
or of lists of numbers, replica groups in three spellings, pairs, metadata,
frontend attributes, a backend config. Each is one regex match, and its value
is typed the way checker/frontend/hlo/grammar.py types the grammar's parse of it
(tests/test_hlo_fast.py checks every fixture and a generated module read both
ways). An attribute in any other form (`sharding`, `output_to_operand_aliasing`,
tomorrow's) is handed to the grammar alone; anything unusual in the operands
or between the attributes (comments, nested instructions, an attribute
spread over lines) makes `read_body` return None: the caller reads the body
with the grammar.
"""
from __future__ import annotations

import re
from functools import lru_cache

from ...source.text import Span
from .groups import ExplicitGroups, iota_from, mesh_from
from .model import Attribute, Body, OperandRef, SyntaxIssue
from .shapes import SHAPE_PATTERN, ShapeError, shape_at
from .values import (COMPUTATION_ATTRS, COMPUTATION_LIST_ATTRS, BackendConfig, ComputationLayout,
                     FrontendAttributes, Literal, Metadata, NameRef, Opaque, SourceTargetPairs, Word,
                     int_list_list, typed_text, unescape)

__all__ = ["read_body", "read_attributes", "FALLBACK"]

FALLBACK = object()
"""What a typed reader returns for a value it leaves to the grammar."""

# --------------------------------------------------------------------------- lexical pieces
_STR = r'"[^"\\\n]*(?:\\.[^"\\\n]*)*"'
_NAME = r'[A-Za-z_][\w.\-]*'


def _run(chars: str) -> str:
    """A maximal run of `chars` (a class body): the run may not stop before a char of its class,
    so a failing match cannot retry every way of cutting it (no exponential backtracking)."""
    return f"[{chars}]+(?![{chars}])"


def _nested(open_: str, close: str, chars: str, depth: int) -> str:
    """A regex for text between balanced `open_`/`close` (nested `depth` deep), strings skipped;
    `chars` is the class of everything else."""
    pat = f"{open_}(?:{_run(chars)}|{_STR})*{close}"
    for _ in range(depth):
        pat = f"{open_}(?:{_run(chars)}|{_STR}|{pat})*{close}"
    return pat


_BRACED = _nested(r"\{", r"\}", r'^{}"\n', 8)
_PARENS = _nested(r"\(", r"\)", r'^()"\n', 3)
_SQUARE = _nested(r"\[", r"\]", r'^\[\]"\n', 2)
# One operand and what follows it.
# (XLA writes `/*index=5*/` before every fifth operand of a long list.)
_OPERAND = re.compile(r"[ \t]*(?:/\*[^*\n]*\*/[ \t]*)?(?:(" + SHAPE_PATTERN + r")[ \t]+)?(%?)(" + _NAME
                      + r")[ \t]*([,)])")
_EMPTY_OPERANDS = re.compile(r"[ \t]*\)")
_NAMES_ONLY = re.compile(r"[ \t]*((?:%" + _NAME + r"[ \t]*,[ \t]*)*%" + _NAME + r")[ \t]*\)")
_OPERAND_PARTS = re.compile(r"([^%]*)%(" + _NAME + r")")
_LITERAL = re.compile(r'((?:[^()"\n]|' + _PARENS + r')*)\)')
_PARAM_NUMBER = re.compile(r"[ \t]*(-?[0-9]+)[ \t]*\)")
# An attribute's value: a string, a braced group, or a run of other characters
# with bracketed groups in it (`[2,4]<=[8]`, `f32[2]{0}`); then `, name=value`.
_VALUE = re.compile(r"(?:" + _STR + "|" + _BRACED + "|" + _PARENS + "|" + _SQUARE + "|" + _run(r'^\s,{}()\[\]"') + ")+")
_ATTR_VALUE = re.compile(r"[ \t]*,[ \t]*(" + _NAME + r")=[ \t]*(" + _VALUE.pattern + r")(?=[ \t\r]*(?:,|\Z))")
# The pieces of an attribute list in the usual form: (separator, name, `=`, value).
_ATTR_PARTS = re.compile(r"([ \t]*,[ \t]*)(" + _NAME + r")(=[ \t]*)(" + _VALUE.pattern
                         + r")(?=[ \t\r]*(?:,|\Z))")
_MESH_ATTR = re.compile(r"[ \t]*,[ \t]*(replica_groups)=[ \t]*(mesh\[[^\]\n]*\]"
                        r"(?:[ \t]*,[ \t]*device_ids=\((?:[^()\n]|\([^()\n]*\))*\))?[ \t]*\{[^{}\n]*\})")
_WS = re.compile(r"[ \t]*")
_END = re.compile(r"[ \t\r]*\Z")

# --------------------------------------------------------------------------- typed forms
_INT = re.compile(r"-?[0-9]+\Z")
_FLOAT = re.compile(r"-?(?:(?:[0-9]+|[0-9]+\.[0-9]*|[0-9]*\.[0-9]+)[eE][+-]?[0-9]+|[0-9]+\.[0-9]*|[0-9]*\.[0-9]+)\Z"
                    r"|-?inf\Z|-?nan(?:\(0x[0-9a-fA-F]+\))?\Z")
_STRING = re.compile(_STR + r"\Z")
_PCT = re.compile(r"%(" + _NAME + r")\Z")
_IDENT = re.compile(_NAME + r"\Z")
_WORD = re.compile(r"(?:[0-9bf?]{2,}_[0-9io?]{2,}->[0-9bf?]{2,}|[0-9]+(?:x[0-9]+)+"
                   r"|-?[0-9]+_-?[0-9]+(?:_[0-9]+)?(?:x-?[0-9]+_-?[0-9]+(?:_[0-9]+)?)*)\Z")
_INTS = re.compile(r"\{[ \t]*(-?[0-9]+(?:[ \t]*,[ \t]*-?[0-9]+)*)?[ \t]*\}\Z")
_NAMES = re.compile(r"\{[ \t]*(%?" + _NAME + r"(?:[ \t]*,[ \t]*%?" + _NAME + r")*)?[ \t]*\}\Z")
_PCT_NAMES = re.compile(r"\{[ \t]*(%" + _NAME + r"(?:[ \t]*,[ \t]*%" + _NAME + r")*)[ \t]*\}\Z")
_IDENTS = re.compile(r"\{[ \t]*(" + _NAME + r"(?:[ \t]*,[ \t]*" + _NAME + r")*)[ \t]*\}\Z")
_IOTA = re.compile(r"\[[ \t]*([0-9][0-9, \t]*)\][ \t]*<=[ \t]*\[[ \t]*([0-9][0-9, \t]*)\]"
                   r"(?:[ \t]*T\([ \t]*([0-9][0-9, \t]*)\))?\Z")
_MESH_HEAD = re.compile(r"mesh\[[ \t]*")
_MESH_AXIS = re.compile(r"(?:(" + _NAME + r")=|('[^'\\\n]*'|\"[^\"\\\n]*\")[ \t]*=)[ \t]*([0-9]+)[ \t]*([,\]])[ \t]*")
_MESH_IDS = re.compile(r",[ \t]*device_ids=\([ \t]*(?:\[[ \t]*([0-9][0-9, \t]*)\]"
                       r"(?:[ \t]*T\([ \t]*([0-9][0-9, \t]*)\))?|([0-9][0-9, \t]*)?)[ \t]*\)[ \t]*")
_MESH_REFS = re.compile(r"\{[ \t]*")
_AXIS_REF = re.compile(r"(?:(" + _NAME + r")(?::[ \t]*\([ \t]*([0-9]+)[ \t]*\)[ \t]*([0-9]+))?"
                       r"|('[^'\\\n]*'|\"[^\"\\\n]*\")(?:[ \t]*:[ \t]*\([ \t]*([0-9]+)[ \t]*\)[ \t]*([0-9]+))?"
                       r"|([0-9]+))[ \t]*([,}])[ \t]*")
_MD_VALUE = _STR + r"|-?[0-9]+|\{[ \t]*(?:-?[0-9]+(?:[ \t]*,[ \t]*-?[0-9]+)*[ \t]*)?\}"
_MD_ITEM = re.compile(r"[ \t]*(?:,[ \t]*)?(" + _NAME + r")=(" + _MD_VALUE + ")")
_MD = re.compile(r"\{(?:[ \t]*(?:,[ \t]*)?" + _NAME + r"=(?:" + _MD_VALUE + r"))*[ \t]*\}\Z")
_FA_ITEM = re.compile(r"[ \t]*(" + _NAME + r")=(" + _STR + "|" + _BRACED + r")[ \t]*(,|\}\Z)")
_EMPTY_BRACES = re.compile(r"\{[ \t]*\}\Z")


def _ints(text: str | None) -> tuple[int, ...]:
    return tuple(int(x) for x in text.split(",")) if text and text.strip() else ()


def _replica_groups(text: str):
    if text.startswith("{"):
        try:
            return ExplicitGroups(int_list_list(text))
        except ValueError:
            return FALLBACK
    m = _IOTA.match(text)
    if m is not None:
        perm = _ints(m.group(3)) if m.group(3) is not None else None
        return iota_from(_ints(m.group(1)), _ints(m.group(2)), perm)
    if text.startswith("mesh["):
        return _mesh(text)
    return FALLBACK


def _mesh(text: str):
    """`mesh[...]` `, device_ids=(...)` `{...}` -> MeshAxesGroups (FALLBACK when it does not read)."""
    m = _MESH_HEAD.match(text)
    pos, axes = m.end(), []
    if text.startswith("]", pos):
        pos = _WS.match(text, pos + 1).end()
    else:
        while True:
            a = _MESH_AXIS.match(text, pos)
            if a is None:
                return FALLBACK
            axes.append((a.group(1) if a.group(1) is not None else unescape(a.group(2)[1:-1]), int(a.group(3))))
            pos = a.end()
            if a.group(4) == "]":
                break
    order = None
    ids = _MESH_IDS.match(text, pos)
    if ids is not None:
        if ids.group(1) is not None:
            order = ("iota", _ints(ids.group(1)), _ints(ids.group(2)) if ids.group(2) is not None else None)
        else:
            order = ("list", _ints(ids.group(3)))
        pos = ids.end()
    r = _MESH_REFS.match(text, pos)
    if r is None:
        return FALLBACK
    pos, refs = r.end(), []
    if text.startswith("}", pos):
        pos += 1
    else:
        while True:
            a = _AXIS_REF.match(text, pos)
            if a is None:
                return FALLBACK
            if a.group(1) is not None:
                refs.append((a.group(1), int(a.group(2)), int(a.group(3))) if a.group(2) else (a.group(1), None, None))
            elif a.group(4) is not None:
                name = unescape(a.group(4)[1:-1])
                refs.append((name, int(a.group(5)), int(a.group(6))) if a.group(5) else (name, None, None))
            else:
                refs.append((a.group(7), None, None))
            pos = a.end()
            if a.group(8) == "}":
                break
    if pos != len(text):
        return FALLBACK
    return mesh_from(tuple(axes), order, tuple(refs))


def _metadata(text: str):
    if _MD.match(text) is None:
        return FALLBACK
    items = []
    for m in _MD_ITEM.finditer(text, 1, len(text) - 1):
        v = m.group(2)
        if v.startswith('"'):
            items.append((m.group(1), unescape(v[1:-1])))
        elif v.startswith("{"):
            items.append((m.group(1), _ints(v[1:-1])))
        else:
            items.append((m.group(1), int(v)))
    return Metadata.from_items(items)


def _frontend(text: str):
    if _EMPTY_BRACES.match(text):
        return FrontendAttributes(())
    if not text.startswith("{"):
        return FALLBACK
    pos, items = 1, []
    while True:
        m = _FA_ITEM.match(text, pos)
        if m is None:
            return FALLBACK
        v = m.group(2)
        items.append((m.group(1), unescape(v[1:-1]) if v.startswith('"') else v))
        if m.group(3) != ",":
            return FrontendAttributes(tuple(items))
        pos = m.end()


def _backend(text: str):
    if _STRING.match(text):
        return BackendConfig(unescape(text[1:-1]), False)
    if text.startswith("{") and text.endswith("}"):
        return BackendConfig(text, True)
    return FALLBACK


def _entry_layout(text: str):
    if not text.startswith("{(") or not text.endswith("}"):
        return FALLBACK
    try:
        params = []
        pos = 2
        if text.startswith(")", pos):
            pos += 1
        else:
            while True:
                shape, pos = shape_at(text, pos)
                params.append(shape)
                if text.startswith(",", pos):
                    pos += 1
                elif text.startswith(")", pos):
                    pos += 1
                    break
                else:
                    return FALLBACK
        if not text.startswith("->", pos):
            return FALLBACK
        result, pos = shape_at(text, pos + 2)
    except ShapeError:
        return FALLBACK
    if pos != len(text) - 1:
        return FALLBACK
    return ComputationLayout(tuple(params), result)


def _generic(name: str, text: str):
    """A value with no rule of its own, typed by its form as grammar._generic_value does."""
    if name == "sharding":
        return Opaque(text)
    if _INT.match(text):
        return int(text)
    if _FLOAT.match(text):
        return float(text)
    if _STRING.match(text):
        return unescape(text[1:-1])
    m = _PCT.match(text)
    if m is not None:
        return NameRef(m.group(1))
    if _WORD.match(text):
        return Word(text)
    if _IDENT.match(text):
        if text in ("true", "false"):
            return text == "true"
        return NameRef(text) if name in COMPUTATION_ATTRS else Word(text)
    if text.startswith("{"):
        m = _INTS.match(text)
        if m is not None:
            return _ints(m.group(1))
        m = _PCT_NAMES.match(text)
        if m is not None:
            return tuple(NameRef(x.strip()[1:]) for x in m.group(1).split(","))
        m = _IDENTS.match(text)
        if m is not None:
            words = [x.strip() for x in m.group(1).split(",")]
            if all(w in ("true", "false") for w in words):
                return tuple(w == "true" for w in words)
            return tuple(Word(w) for w in words)
        try:
            return int_list_list(text)
        except ValueError:
            pass
        value = typed_text(name, text)
        if not isinstance(value, Opaque):
            return value
    return FALLBACK


@lru_cache(maxsize=16384)
def _typed(name: str, text: str):
    """The typed value of `name=text`, FALLBACK for the grammar; ValueError when the
    value reads but means nothing (iota groups that do not tile, pairs of three)."""
    if name == "metadata":
        return _metadata(text)
    if name == "replica_groups":
        return _replica_groups(text)
    if name == "source_target_pairs":
        try:
            lists = int_list_list(text)
        except ValueError:
            return FALLBACK
        return SourceTargetPairs.from_lists(lists)
    if name == "frontend_attributes":
        return _frontend(text)
    if name == "backend_config":
        return _backend(text)
    if name in COMPUTATION_ATTRS:
        if _PCT.match(text):
            return NameRef(text[1:])
        return NameRef(text) if _IDENT.match(text) else FALLBACK
    if name in COMPUTATION_LIST_ATTRS or name == "control-predecessors":
        m = _NAMES.match(text)
        if m is None:
            return FALLBACK
        return tuple(NameRef(x.strip().lstrip("%")) for x in m.group(1).split(",")) if m.group(1) else ()
    if name == "entry_computation_layout":
        return _entry_layout(text)
    return _generic(name, text)


# --------------------------------------------------------------------------- readers
def read_attributes(text: str, pos: int, end: int, base: int):
    """The `, name=value` list in text[pos:end] (file offsets = base + index):
    (attributes, issues), or None when the grammar must read it."""
    # The usual case: one findall cuts the list, offsets are counted from the pieces' lengths.
    # Were anything skipped between pieces, the count would fall short of the last value's
    # end, and what follows the count would not be blank: then one attribute at a time.
    parts = _ATTR_PARTS.findall(text, pos, end)
    total = sum(len(a) + len(b) + len(c) + len(d) for a, b, c, d in parts)
    if not _END.match(text, pos + total, end) or any(d.startswith("mesh[") for _, _, _, d in parts):
        return _read_attributes_one_by_one(text, pos, end, base)
    attrs: list[Attribute] = []
    issues: list[SyntaxIssue] = []
    pos += base
    for sep, name, eq, vtext in parts:
        start = pos + len(sep)
        vstart = start + len(name) + len(eq)
        pos = vstart + len(vtext)
        try:
            value = _typed(name, vtext)
        except ValueError as err:
            attrs.append(Attribute(name, Opaque(vtext), start, vstart, pos))
            issues.append(SyntaxIssue(str(err), Span(vstart, pos)))
            continue
        if value is FALLBACK:
            got = _grammar_attribute(text[start - base:pos - base], start)
            if got is None:
                return None
            attrs.append(got[0])
            issues.extend(got[1])
        else:
            attrs.append(Attribute(name, value, start, vstart, pos))
    return tuple(attrs), tuple(issues)


def _grammar_attribute(text: str, start: int):
    """One `name=value` read by the grammar: ([Attribute], [issue...]), or None when it does not read."""
    from .grammar import parse  # the grammar is loaded only when needed
    got = parse(text, "attr_only", start)
    if isinstance(got, SyntaxIssue):
        return None
    if isinstance(got, Attribute):
        return got, ()
    return got[0], (got[1],)  # (Attribute, SyntaxIssue): a value that reads but means nothing


def _read_attributes_one_by_one(text: str, pos: int, end: int, base: int):
    """read_attributes for the lists one match cannot check (mesh-axes groups, odd blanks)."""
    attrs: list[Attribute] = []
    issues: list[SyntaxIssue] = []
    match = _ATTR_VALUE.match
    while True:
        m = match(text, pos, end)
        if m is None or text.startswith("mesh[", m.start(2)):
            # Mesh-axes replica groups have a blank (and maybe a comma) inside.
            mesh = _MESH_ATTR.match(text, pos, end)
            if mesh is not None:
                m = mesh
            elif m is None:
                if _END.match(text, pos, end):
                    return tuple(attrs), tuple(issues)
                return None
        name, vtext = m.group(1, 2)
        vstart, vend = m.span(2)
        try:
            value = _typed(name, vtext)
        except ValueError as err:
            attrs.append(Attribute(name, Opaque(vtext), base + m.start(1), base + vstart, base + vend))
            issues.append(SyntaxIssue(str(err), Span(base + vstart, base + vend)))
            pos = vend
            continue
        if value is FALLBACK:
            got = _grammar_attribute(text[m.start(1):vend], base + m.start(1))
            if got is None:
                return None
            attrs.append(got[0])
            issues.extend(got[1])
        else:
            attrs.append(Attribute(name, value, base + m.start(1), base + vstart, base + vend))
        pos = vend


def read_body(text: str, pos: int, end: int, opcode: str) -> Body | None:
    """Operands and attributes of the instruction whose body (after `opcode(`) is
    text[pos:end]; None when the grammar must read it. Spans are offsets in `text`."""
    literal = number = None
    operands: list[OperandRef] = []
    if opcode == "constant":
        m = _LITERAL.match(text, pos, end)
        if m is None:
            return None
        literal = Literal(m.group(1).strip())
        pos = m.end()
    elif opcode == "parameter":
        m = _PARAM_NUMBER.match(text, pos, end)
        if m is None:
            return None
        number = int(m.group(1))
        pos = m.end()
    else:
        m = _EMPTY_OPERANDS.match(text, pos, end)
        if m is not None:
            pos = m.end()
        elif (m := _NAMES_ONLY.match(text, pos, end)) is not None:  # what XLA prints: `%a, %b)`
            at = pos
            for gap, name in _OPERAND_PARTS.findall(text, pos, m.end(1)):
                at += len(gap)
                operands.append(OperandRef(name, at, at + 1 + len(name)))
                at += 1 + len(name)
            pos = m.end()
        else:
            while True:
                m = _OPERAND.match(text, pos, end)
                if m is None:
                    return None
                start = m.start(1) if m.group(1) is not None else m.start(2)
                operands.append(OperandRef(m.group(3), start, m.end(3), m.group(1)))
                pos = m.end()
                if m.group(4) == ")":
                    break
    got = read_attributes(text, pos, end, 0)
    if got is None:
        return None
    return Body(tuple(operands), got[0], got[1], literal, number)
