"""What MLIR's parser says of a plain `dense<...> : tensor<...>` literal it
rejects: a shape that is not the type's, a float where integers are expected,
an integer out of its type's range, a decimal integer for a float type,
`true`/`false` outside i1. Each answer was taken from jaxlib's parser
(`ir.Module.parse`, jaxlib 0.10; docs/conformance.md lists the cases):

    dense<1.5> : tensor<i32>        expected integer elements, but parsed floating-point
    dense<[1, 2, 3]> : tensor<2xi32> inferred shape of elements literal ([3]) does not match type ([2])
    dense<300> : tensor<i8>         integer constant out of range for type   (i8 takes -128..255)
    dense<-1> : tensor<ui8>         expected unsigned integer elements, but parsed negative value
    dense<1> : tensor<f32>          unexpected decimal integer literal for a floating point value
    dense<1e40> : tensor<f32>       expected '>'   (a float literal needs a '.')

Only plain literals (numbers, true/false, nested lists, complex pairs) of static
tensors of builtin integer, float and complex element types are judged; hex
blobs, strings, other element types and anything this reader does not
understand are left alone (None), never guessed at.
"""
from __future__ import annotations

import re

from ...ir.attributes import DenseDecodeError, nested_lists
from ...ir.types import ComplexType, ScalarType, TensorType, Type

_TOKEN = re.compile(r"\s*(?:(\[)|(\])|(,)|\(\s*([^()\s,]+)\s*,\s*([^()\s,]+)\s*\)|([^\s,\[\]()]+))")
_DEC_INT = re.compile(r"[-+]?[0-9]+\Z")
_HEX_INT = re.compile(r"[-+]?0x[0-9A-Fa-f]+\Z")
_FLOAT = re.compile(r"[-+]?[0-9]+\.[0-9]*(?:[eE][-+]?[0-9]+)?\Z")
_NO_DOT_EXPONENT = re.compile(r"[-+]?[0-9]+[eE][-+]?[0-9]+\Z")
_INT_TYPE = re.compile(r"(s|u)?i([0-9]+)\Z")
_FLOAT_TYPE = re.compile(r"(?:bf16|tf32|f16|f32|f64|f80|f128|f[4-8]E[0-9A-Za-z]+)\Z")


_FLOAT_WIDTH = {"bf16": 16, "f16": 16, "f32": 32, "f64": 64}


def _kind(t: Type) -> tuple | None:
    if isinstance(t, ScalarType):
        m = _INT_TYPE.match(t.name)
        if m:
            return ("int", m.group(1) or "", int(m.group(2)))
        if _FLOAT_TYPE.match(t.name):
            width = _FLOAT_WIDTH.get(t.name, 8 if t.name.startswith("f8") else None)
            return ("float", width)
    return None


def _element(tok: str, kind: tuple) -> str | None:
    if tok[0] == "+" or tok.lower().lstrip("-") in ("inf", "nan"):
        return "expected element literal of primitive type"  # MLIR reads no '+', no inf/nan words
    if kind[0] == "int":
        sign, width = kind[1], kind[2]
        if tok in ("true", "false"):
            return None if width == 1 and not sign else "expected i1 type for 'true' or 'false' values"
        if _FLOAT.match(tok) or _NO_DOT_EXPONENT.match(tok):
            return "expected integer elements, but parsed floating-point"
        if _HEX_INT.match(tok):  # a bit pattern: it must fit the width
            if tok[0] == "-" and sign == "u":
                return "expected unsigned integer elements, but parsed negative value"
            v = int(tok, 16)
            return "integer constant out of range for type" if v >= 1 << width else None
        if not _DEC_INT.match(tok):
            return None  # something else: not judged
        v = int(tok)
        if sign == "u" and v < 0:
            return "expected unsigned integer elements, but parsed negative value"
        low = 0 if sign == "u" else -(1 << (width - 1))
        high = (1 << (width - 1)) - 1 if sign == "s" else (1 << width) - 1
        return None if low <= v <= high else "integer constant out of range for type"
    if tok in ("true", "false"):
        return "expected floating point literal"
    if _HEX_INT.match(tok):
        if tok[0] == "-":
            return "hexadecimal float literal should not have a leading minus"
        width = kind[1]
        return ("hexadecimal float constant out of range for type"
                if width is not None and int(tok, 16) >= 1 << width else None)
    if _DEC_INT.match(tok):
        return (f"unexpected decimal integer literal for a floating point value (write `{tok}.0`: "
                "MLIR reads a float literal only with a '.')")
    if _NO_DOT_EXPONENT.match(tok):
        mant, _, exp = tok.replace("E", "e").partition("e")
        return f"`{tok}` is not a float literal MLIR reads: it needs a '.' (`{mant}.0e{exp}`)"
    return None


# The separators of a plain literal's element list, which MLIR's parser checks
# (jaxlib: "expected ']'", "expected element literal of primitive type"): each
# alternative is one way to get them wrong.
_MALFORMED = re.compile(
    r"(?P<double>,\s*[,\])])"               # `1, , 2`, `1, ]`, `(1.0, )`
    r"|(?P<lead>[\[(]\s*,)"                 # `[, 1]`, `(, 2.0)`
    r"|(?P<after>[)\]]\s*[^\s,\])])"        # `] [`, `]1`, `) (`: no comma after a list or pair
    r"|(?P<gap>[\w.][ \t\r\n]+[\w.+\-\[(])"  # `1 2`, `1 [2]`, `true false`
    r"|(?P<glued>[\w.][\[(])")                # `1[2]`, `1(2.0, 3.0)`


def malformed_literal(text: str, start: int = 0, end: int | None = None) -> tuple[str, int] | None:
    """(MLIR's complaint, offset in `text`) when the plain `dense<...>` literal
    text[start:end] has its commas and brackets out of place; None otherwise (hex
    and string blobs are not read)."""
    end = len(text) if end is None else end
    i = start
    while i < end and text[i] in " \t\r\n":
        i += 1
    if i >= end or text[i] == '"':
        return None
    m = _MALFORMED.search(text, i, end)
    if m is None:
        return None
    kind = m.lastgroup
    at = m.end() - 1 if kind in ("double", "after", "gap") else m.start() + (m.group().index(",") if kind == "lead" else 1)
    if kind in ("double", "lead"):
        return "expected element literal of primitive type, got ','", at
    return "expected ',' or ']' between elements", at


def dense_literal_problem(literal: str, type_: Type | None) -> str | None:
    """MLIR's complaint about `dense<literal> : type_`, or None (valid, or not judged)."""
    if not isinstance(type_, TensorType) or type_.shape is None:
        return None
    text = literal.strip()
    if not text or text.startswith('"'):
        return None
    problem = syntax_problem(text, type_)
    if problem is not None and malformed_literal(text) is not None:
        return None  # a syntax error, reported as such where the op is parsed (parse/commas.py)
    return problem


def syntax_problem(text: str, type_: TensorType) -> str | None:
    element = type_.element
    inner = _kind(element.element) if isinstance(element, ComplexType) else None
    kind = _kind(element)
    if kind is None and inner is None:
        return None
    if not type_.is_static:
        return "elements literal type must have static shape"
    for m in _TOKEN.finditer(text):
        if m.group(4) is not None:  # (re, im)
            if inner is None:
                return None  # (jaxlib crashes on a pair for a real type; not judged)
            for part in (m.group(4), m.group(5)):
                problem = _element(part, inner)
                if problem:
                    return problem
        elif m.group(6) is not None:
            if inner is not None and not m.group(6).startswith("0x") and type_.num_elements:
                # (jaxlib takes any splat for a complex tensor without elements)
                return f"an element of {element} needs a (real, imaginary) pair, got `{m.group(6)}`"
            if kind is not None:
                problem = _element(m.group(6), kind)
                if problem:
                    return problem
    if text.startswith("["):
        try:
            _flat, dims = nested_lists(text)
        except DenseDecodeError as e:
            if "ragged" in str(e) or "rows of" in str(e):
                return "tensor literal is invalid; ranks are not consistent between elements"
            return None  # not a literal this reader understands
        except (ValueError, OverflowError):
            return None
        if tuple(dims) != tuple(type_.shape):
            return (f"inferred shape of elements literal ([{', '.join(map(str, dims))}]) does not match "
                    f"type ([{', '.join(map(str, type_.shape))}])")
    return None
