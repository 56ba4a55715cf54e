"""Commas in pretty (custom-assembly) forms.

The grammar reads a pretty op as a loose sequence of items (any op's custom form
must parse), so it never asked where the commas are. MLIR's custom parsers do:
jaxlib rejects an empty element (`stablehlo.add %a, , %b`), a comma right after
the op name or right after `(`, a comma before `)`, before the signature's `:`
or at the end of the op (`%a, %b, : tensor<f32>`), and two values with no comma
between them (`%a %b`, `@f(%a %b)`). `comma_problems` finds these in one op's
header text. It looks only at known dialects (an unknown dialect's custom form
may be anything), only at the top level and inside `(...)` groups (the grammar
already checks the lists inside `<...>`, `[...]` and `{...}`), and never inside
strings or `loc(...)`. Most headers are ruled out by one regex search.
"""
from __future__ import annotations

import re

from ..dense_literals import malformed_literal

KNOWN_DIALECTS = ("stablehlo.", "chlo.", "func.", "sdy.")
_LAX = frozenset({"stablehlo.reduce"})
"""Ops whose MLIR parser takes commas loosely: jaxlib accepts `stablehlo.reduce,(%x
init: %z) ...` and `stablehlo.reduce(%x init: %z), applies ...` (checked)."""

# Every problem below contains one of these (C-speed prefilter; strings are
# looked at only when it matches).
_SUSPECT = re.compile(r",\s*(?:[,:)]|loc\(|«»|$)|\(\s*,|%[\w$.\-]+(?:#\d+)?\s+%"
                      r"|(?<!-)>\s+(?:tensor|memref|vector|complex|tuple|!)|![\w.]+\s+(?:tensor|!)")
_NAME = re.compile(r"\s*(?:%[\w$.\-]+(?::\d+)?\s*(?:,\s*%[\w$.\-]+(?::\d+)?\s*)*=\s*)?([\w$.]+)")
_VALUE = re.compile(r"%[\w$.\-]+(?:#\d+)?")
_OPEN = {"(": ")", "[": "]", "{": "}", "<": ">"}
_TYPE_WORD = re.compile(r"(?:!\S+|tensor|memref|vector|complex|tuple|index|none|[su]?i\d+|bf16|f16|f32|f64|f80"
                        r"|f128|tf32|f[4-8]E\w+)\Z")
_CLOSE = frozenset(")]}>")


def comma_problems(body: str, name: str) -> list[tuple[str, int, int]]:
    """(message, start, end) for each comma problem in an op header's text `body`
    (offsets into it): the pretty form's own commas, and the element lists of its
    `dense<...>` literals (generic form too). [] for unknown dialects."""
    if not name.startswith(KNOWN_DIALECTS):
        return []
    out: list[tuple[str, int, int]] = []
    literals = _dense_problems(body, out) if "dense<" in body else []
    if "#stablehlo." in body or "#sdy." in body:
        out += _attr_problems(body)
    if name in _LAX:
        return out
    m = _NAME.match(body)
    if m is None:
        return out
    at = m.end(1)
    if not _suspect(body, at, literals) and not body[at:at + 64].lstrip().startswith(","):
        return out
    return out + _check(body, at, dict(literals))


def _suspect(body: str, at: int, literals: list[tuple[int, int]]) -> bool:
    """The prefilter, on the text between dense literals (testdata's are 100 KB:
    searching them again with every alternative cost 20% of a small-file lint)."""
    for start, end in literals:
        if start > at and _SUSPECT.search(body, at, start):
            return True
        at = max(at, end)
    return _SUSPECT.search(body, at) is not None


def _dense_problems(body: str, out: list) -> list[tuple[int, int]]:
    """Each `dense<...>` literal's (start, end) in `body`; one problem for each
    whose element list MLIR rejects (dense_literals.py) appended to `out`. Literals
    inside strings are not literals. (Found with str.find and searched in place,
    no copy: testdata files carry 100 KB literals.)"""
    spans = []
    at = body.find("dense<")
    while at >= 0:
        start = at + 6
        end = body.find(">", start)
        if end < 0:
            break
        if not (at and (body[at - 1].isalnum() or body[at - 1] in "_.$")):
            spans.append((at, end))
            bad = malformed_literal(body, start, end)
            if bad is not None and not _in_string(body, at):
                out.append((f"dense<...>: {bad[0]}", bad[1], bad[1] + 1))
        at = body.find("dense<", end)
    return spans


_DIALECT_ATTR = re.compile(r"#(stablehlo|sdy)\.[\w.]+<")
# In the `<...>` body of a StableHLO or Shardy attribute (both print comma lists
# of `key = value` parameters and of list elements): each alternative is a comma
# MLIR's attribute parsers reject (checked with jaxlib), or a missing one. Not a
# trailing comma: `#stablehlo.gather<..., start_index_map = [0, 2],>` parses
# (StableHLO's own tests write it), `#stablehlo.channel_handle<..., type = 1,>`
# does not; each attribute's parser decides, so neither is reported.
_ATTR_BAD = re.compile(
    r"(?P<double>,\s*,)"
    r"|(?P<param>=\s*-?[\w.\"]+\s+[A-Za-z_]\w*\s*=)"      # `handle = 1 type = 1`
    r"|(?P<list>[\]}>]\s+[\[{<@])")                     # `[{} {}]`, `<...> <...>` (Shardy only)


def _attr_problems(body: str) -> list[tuple[str, int, int]]:
    """Commas in the `<...>` body of each `#stablehlo.*` / `#sdy.*` attribute."""
    out = []
    for m in _DIALECT_ATTR.finditer(body):
        if _in_string(body, m.start()):
            continue
        start = m.end()
        end = _closing_angle(body, start)
        if end < 0:
            break
        sdy = m.group(1) == "sdy"
        for bad in _ATTR_BAD.finditer(body, start, end):
            kind = bad.lastgroup
            if kind == "list" and not sdy:
                continue
            if _in_string(body, bad.start()):
                continue
            if kind in ("param", "list"):
                at = bad.end() - 1 if kind == "list" else bad.start() + len(bad.group().split()[0]) + 1
                message = "expected ',' between the attribute's parameters" if kind == "param" \
                    else "expected ',' between list elements"
                out.append((message, at, at + 1))
            else:
                at = bad.start() + bad.group().index(",") if kind != "double" else bad.end() - 1
                out.append(("unexpected ',' in the attribute", at, at + 1))
            break  # one per attribute: the parser stops at the first
    return out


def _closing_angle(text: str, i: int) -> int:
    """The index of the `>` closing the `<` just before `i` (strings and `->` skipped); -1 if none."""
    depth = 1
    n = len(text)
    while i < n:
        c = text[i]
        if c == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            i = j + 1
            continue
        if c == "<":
            depth += 1
        elif c == ">" and text[i - 1] != "-":
            depth -= 1
            if depth == 0:
                return i
        i += 1
    return -1


def _in_string(text: str, pos: int) -> bool:
    """Whether `pos` is inside a "..." string of `text` (escapes honoured)."""
    i = text.find('"')
    while 0 <= i < pos:
        j = i + 1
        while j < len(text) and text[j] != '"':
            j += 2 if text[j] == "\\" else 1
        if pos < j:
            return True
        i = text.find('"', j + 1)
    return False


def _check(text: str, i: int, literals: dict[int, int]) -> list[tuple[str, int, int]]:
    """The precise pass; `literals` maps each dense literal's start to its `>`
    (jumped over: their lists were checked by _dense_problems)."""
    out: list[tuple[str, int, int]] = []
    n = len(text)
    # One frame per open bracket: [opener, last, last_pos, last_value]. `last` is
    # what came last in a checked context: "open" (nothing yet), "comma", "value"
    # or "other"; the top level starts right after the op name.
    stack: list[list] = [["top", "open", i, ""]]
    skipped = 0  # depth inside <...>, [...], {...} or loc(...): not looked at

    def checked() -> bool:
        return skipped == 0

    while i < n:
        c = text[i]
        if c in " \t\r\n":
            i += 1
            continue
        if c == "d" and i in literals:  # a dense literal: one token
            i = literals[i] + 1
            if checked():
                stack[-1][1] = "other"
            continue
        if c == '"':  # a string: skip it, escapes included
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            i = j + 1
            if checked():
                stack[-1][1] = "other"
            continue
        if c == "/" and text.startswith("//", i):  # a comment runs to the line's end
            j = text.find("\n", i)
            i = n if j < 0 else j
            continue
        if c == "-" and text.startswith("->", i):
            i += 2
            if checked():
                stack[-1][1] = "other"
            continue
        frame = stack[-1]
        if not checked():
            if c in _OPEN:
                stack.append([c, "other", i, ""])
                skipped += 1
            elif c in _CLOSE and len(stack) > 1 and _OPEN[stack[-1][0][0]] == c:
                stack.pop()
                skipped -= 1
            i += 1
            continue
        if c == ",":
            if frame[1] == "open":
                where = "right after the op name" if frame[0] == "top" else f"right after '{frame[0]}'"
                out.append((f"unexpected ',' {where}: expected a value or attribute before it", i, i + 1))
            elif frame[1] == "comma":
                out.append(("unexpected ',': expected a value or attribute between the two commas", i, i + 1))
            frame[1], frame[2] = "comma", i
            i += 1
            continue
        if c == ":" and not text.startswith("::", i):
            if frame[1] == "comma":
                out.append(("unexpected ',' before ':'", frame[2], frame[2] + 1))
            frame[1] = "open" if frame[0] == "top" else "other"
            i += 1
            continue
        if c == "%":
            m = _VALUE.match(text, i)
            if m is not None:
                if frame[1] == "value":
                    out.append((f"expected ',' between {frame[3]} and {m.group()}", i, m.end()))
                frame[1], frame[3] = "value", m.group()
                i = m.end()
                continue
        if c == "l" and text.startswith("loc(", i) and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] in "_.$")):
            if frame[0] == "top" and frame[1] == "comma":
                out.append(("unexpected ',' at the end of the op", frame[2], frame[2] + 1))
            frame[1] = "other"
            stack.append(["(", "other", i, ""])
            skipped += 1
            i += 4
            continue
        if c == "(":
            frame[1] = "other"
            stack.append(["(", "open", i, ""])
            i += 1
            continue
        if c in "<[{":
            if not (c == "<" and frame[1] == "type" and text[i - 1].isalnum()):  # `tensor<...>` stays a type
                frame[1] = "other"
            stack.append([c, "other", i, ""])
            skipped += 1
            i += 1
            continue
        if c == ")":
            if frame[0] == "(":
                if frame[1] == "comma":
                    out.append(("unexpected ',' before ')'", frame[2], frame[2] + 1))
                stack.pop()
            i += 1
            continue
        if text.startswith("«»", i):  # a region (collapsed)
            if frame[0] == "top" and frame[1] == "comma":
                out.append(("unexpected ',' before a region", frame[2], frame[2] + 1))
            frame[1] = "other"
            i += 2
            continue
        # a word, number, symbol, `=`, ...: one token, whatever it is
        j = i + 1
        while j < n and (text[j].isalnum() or text[j] in "_.$#@-+"):
            if text[j] == "-" and text.startswith("->", j):
                break
            j += 1
        word = text[i:j]
        if _TYPE_WORD.match(word):  # `tensor<4xf32> tensor<f32>`: two types, no comma
            if frame[1] == "type":
                out.append(("expected ',' between two types", i, j))
            frame[1] = "type"
        else:
            frame[1] = "other"
        i = j
    top = stack[0]
    if len(stack) == 1 and top[1] == "comma":
        out.append(("unexpected ',' at the end of the op", top[2], top[2] + 1))
    return out
