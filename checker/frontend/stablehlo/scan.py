"""The structural pass: finds every op's boundaries, name, results and regions.

MLIR as printers write it puts one op per line and opens regions at line ends,
so most lines are a whole op: those take a fast path (one regex match and a
look at the last character). Everything else — regions, ops written over
several lines, several ops or a whole module on one line, seed-style
hand-written forms — goes through a general walk that follows brackets (skipping
strings and comments) and knows where a statement ends (docs/parser.md). Op
headers (operands, types, attributes, loc) are NOT read here: the Lark grammar
parses them on demand (ir.Operation.header).

Syntax problems found here (unbalanced brackets, a `}` with nothing open, an
unterminated region at end of file) are recorded in module.syntax_errors and
scanning carries on, so the rest of the file is still checked.
"""
from __future__ import annotations

import re
from collections.abc import Mapping

from ...ir.core import Block, Module, OpHeader, Operation, Region
from ...ir.memory import gc_paused
from ...source.text import SourceFile, Span

_TOKENS = re.compile(r'"(?:[^"\\\n]|\\.)*"|[(){}\[\]]|//')
# After a `{`: does an attribute dictionary start here (rather than a region)?
_DICT_START = re.compile(r'(?:\s|//[^\n]*\n)*(?:\}|(?:"(?:[^"\\\n]|\\.)*"|[A-Za-z_][\w.$\-]*)[ \t]*(?:=|,|\}))')
_ALIAS = re.compile(r'([#!][\w$.\-]+)[ \t]*=[ \t]*')
# One line: indentation, then (when it starts an op) results and the op name.
OP_LINE = re.compile(
    r'([ \t]*)(?:(%[\w$.\-#]+(?::\d+)?(?:[ \t]*,[ \t]*%[\w$.\-#]+(?::\d+)?)*)[ \t]*=[ \t]*)?'
    r'(?:"([\w$.\-]+)"|([A-Za-z_][\w$.\-]*))?[^\n{}]*([{}]?)[^\n]*\n?')  # group 5: a brace on the line
BARE_NAMES = {"module": "builtin.module", "return": "func.return", "call": "func.call",
               "call_indirect": "func.call_indirect", "constant": "func.constant"}
_BLOCK_LABEL = re.compile(r'[ \t]*(\^[\w$.\-]+)')
_LABEL_COLON = re.compile(r'[ \t]*:')
# What begins the next op in a complete statement's text between brackets:
# results `%a, %b:2 = name`, an op name with a dot (not inside `#x.y` / `!x.y` /
# `@x.y`, and not after `applies`: the pretty reduce names its body so) or one
# of the inline ops MLIR prints bare; or a top-level `#alias =` / `!alias =`.
_NEXT_OP = re.compile(
    r'(?<![\w$.\-%#!@^"])(?:%[\w$.\-#]+(?::\d+)?(?:\s*,\s*%[\w$.\-#]+(?::\d+)?)*\s*=[ \t]*(?=["A-Za-z_])'
    r'|(?<!applies )[A-Za-z_][\w$\-]*\.[\w$.\-]*(?=[ \t(]|$)'
    r'|(?:return|call|call_indirect|br|cond_br|yield)(?=[ \t(]|$)'
    r'|[#!][\w$.\-]+[ \t]*=(?!=))')
# At a statement start: results `%a, %b:2 =`, then a quoted or bare op name.
_STMT_START = re.compile(
    r'(?:(%[\w$.\-#]+(?::\d+)?(?:[ \t]*,[ \t]*%[\w$.\-#]+(?::\d+)?)*)[ \t]*=[ \t]*)?'
    r'(?:"([\w$.\-]+)"|([A-Za-z_][\w$.\-]*))?')
# Inside a complete statement, these begin the next op.
_GENERIC_NAME = re.compile(r'"[\w$\-]+\.[\w$.\-]+"\(')
# After an alias definition, on its line: the next top-level item.
_NEXT_TOP = re.compile(r'[ \t]+(?=[#!][\w$.\-]+[ \t]*=[^=]|module\b|func\.func\b|"builtin\.module"|\{-#)')
# What a region can start with (a per-axis `{0.1:-30, ...}` inside a type cannot).
_REGION_BODY = re.compile(r'(?:\s|//[^\n]*\n)*(?:[%^"}]|[A-Za-z_]|\Z)')
_REGION_RETURN = re.compile(r'\s*(?:return|func\.return|stablehlo\.return)\b')
# A `{` the fast path must leave to the walk: one that opens a region (not an
# attribute dict `{key = ...}` / `{"x"}`), or an empty `{}` (either).
_REGION_BRACE = re.compile(
    r'\{(?!\s*(?:"(?:[^"\\\n]|\\.)*"|[A-Za-z_][\w.$\-]*)[ \t]*(?:=|,|\}))|\{\s*\}')
OPEN_ENDS = frozenset("{}([,<")  # `}`: a region may close on an op's line
BARE_OPS = frozenset({"return", "call", "module", "call_indirect", "constant", "yield", "br", "cond_br"})


class LazyLocations(Mapping):
    """`#locN` alias → Location, parsed on first lookup (debug-info files define thousands)."""

    def __init__(self, module: Module):
        self._module = module
        self._parsed: dict = {}

    def _texts(self) -> dict[str, tuple[str, int]]:
        return self._module.alias_texts

    def __getitem__(self, key: str):
        if key not in self._parsed:
            text, offset = self._texts()[key]
            self._parsed[key] = self._module.parser.parse_location_alias(self._module, text, offset)
        return self._parsed[key]

    def __iter__(self):
        return (k for k in self._texts() if k.startswith("#loc"))

    def __len__(self) -> int:
        return sum(1 for _ in self)


class _Stmt:
    """An op whose text is still open: its bracket stack across lines."""

    __slots__ = ("op", "stack", "generic")

    def __init__(self, op: Operation, generic: bool):
        self.op = op
        self.stack: list[str] = []  # "(", "[", "{" (dict) or "R" (region)
        self.generic = generic


def scan(source: SourceFile, parser) -> Module:
    """Build the op/region/block skeleton of a file."""
    # The scan allocates one object per op and frees nothing: the cyclic GC would
    # only re-walk the growing heap (30-50% of the time on big modules), so pause it.
    with gc_paused():
        return _Scanner(source, parser).run()


# MLIR's lexer takes non-ASCII characters only inside string literals and `//`
# comments; anywhere else (a no-break space pasted from a document, a Unicode
# minus, a control character such as a vertical tab) it stops with "unexpected
# character": its whitespace is space, tab, newline and carriage return.
# Python's `\s` and our regexes would read such a space as whitespace and the
# file would pass here and fail in the compiler. String literals end at the line's end (MLIR's lexer rejects
# a newline inside one), so each line is checked on its own.
_STRING_OR_COMMENT = re.compile(r'"(?:[^"\\\n]|\\.)*"?|//[^\n]*')
# (NUL is whitespace to MLIR's lexer; jaxlib parses `%a,\x00%a`.)
_NON_ASCII = re.compile(r"[^\x00\t\n\r\x20-\x7e]")  # also control characters: `\s` takes \v \f \x1c-\x1f
CONTROL_CHARS = re.compile(r"[\x01-\x08\x0b\x0c\x0e-\x1f\x7f]")
_CONTROL_NAMES = {0x0B: "vertical tab", 0x0C: "form feed", 0x7F: "delete"}
_MAX_CHARACTER_ERRORS = 20


def stray_characters(text: str) -> list[tuple[str, Span]]:
    """One syntax error per line for the first non-ASCII or control character
    outside string literals and comments (at most _MAX_CHARACTER_ERRORS)."""
    import unicodedata

    out: list[tuple[str, Span]] = []
    line_end = -1
    for m in _NON_ASCII.finditer(text):
        at = m.start()
        if at < line_end:
            continue  # this line was checked already
        line_start = text.rfind("\n", 0, at) + 1
        line_end = text.find("\n", at)
        if line_end < 0:
            line_end = len(text)
        covered = [c.span() for c in _STRING_OR_COMMENT.finditer(text, line_start, line_end)]
        for c in _NON_ASCII.finditer(text, line_start, line_end):
            i = c.start()
            if any(a <= i < b for a, b in covered):
                continue
            ch = text[i]
            if ch.isascii():
                name = _CONTROL_NAMES.get(ord(ch), "a control character")
                message = (f"unexpected character U+{ord(ch):04X} ({name}); MLIR's whitespace is space, "
                           "tab, newline and carriage return")
            else:
                name = unicodedata.name(ch, "")
                # a space-like character says so (that is the why); any other one says where ASCII is needed
                hint = (": it looks like a space but is not one" if unicodedata.category(ch) == "Zs" else
                        "; MLIR reads only ASCII outside string literals and comments")
                message = f"unexpected character U+{ord(ch):04X}" + (f" ({name})" if name else "") + hint
            out.append((message, Span(i, i + 1)))
            break
        if len(out) >= _MAX_CHARACTER_ERRORS:
            break
    return out


class _Scanner:
    def __init__(self, source: SourceFile, parser):
        self.text = source.text
        self.module = Module(source, parser)
        self.module.alias_texts = {}
        self.module.loc_aliases = LazyLocations(self.module)
        root = Operation("builtin.module", Span(0, len(self.text)), (), self.module)
        root.set_header(OpHeader(name="builtin.module", name_span=Span(0, 0)))
        self.implicit_root = root
        region = Region(root, Span(0, len(self.text)), self.module)
        region.blocks.append(Block(region))
        root.regions = [region]
        root.region_spans = [region.span]
        # Frames: (region, owning statement) — the statement resumes when the region closes.
        self.frames: list[tuple[Region, _Stmt | None]] = [(region, None)]
        self.stmt: _Stmt | None = None
        self.last_op: Operation | None = None
        self.last_generic = False

    def error(self, message: str, start: int, end: int | None = None) -> None:
        if "unbalanced" in message:
            self.module.structurally_broken = True
        self.module.syntax_errors.append((message, Span(start, start + 1 if end is None else end)))

    # ------------------------------------------------------------------ main loop
    def run(self) -> Module:
        text = self.text
        if not text.isascii() or CONTROL_CHARS.search(text):  # (C-speed tests: almost every file is plain)
            self.module.syntax_errors.extend(stray_characters(text))
        skip_to = -1
        ops_fast = OPEN_ENDS
        bare = BARE_OPS
        module = self.module
        new_span = tuple.__new__  # Span(a, b) without the namedtuple's Python-level __new__
        block = None  # the innermost open block: changes only in walk()
        for m in OP_LINE.finditer(text):
            pos, end = m.span()
            if pos < skip_to:
                continue
            if end > pos and text[end - 1] == "\n":
                end -= 1
            if end > pos and text[end - 1] in " \t\r":
                while end > pos and text[end - 1] in " \t\r":
                    end -= 1
            if end <= pos:
                continue
            indent, results, qname, bname, brace = m.groups()
            if self.stmt is None:
                name = qname or bname
                if name is not None and (qname is not None or "." in name or name in bare) \
                        and text[end - 1] not in ops_fast and (
                            not brace or no_region_brace(text, pos, end)):
                    # Fast path: a whole op on one line (no region brace, no second op).
                    if bname is not None and "." not in name:
                        name = BARE_NAMES.get(name, name)
                    if block is None:
                        block = self.frames[-1][0].blocks[-1]
                    start = pos + len(indent)
                    op = Operation(name, new_span(Span, (start, end)),
                                   ((results, 1),) if results is not None and "," not in results and ":" not in results
                                   else (self.result_names(results, start) if results else ()), module, block)
                    block.operations.append(op)
                    self.last_op = op
                    self.last_generic = qname is not None
                    continue
            block = None
            resume = self.walk(pos + len(indent), end)
            if resume is not None:
                skip_to = resume
        self.finish()
        return self.module

    # ------------------------------------------------------------------ the general walk
    def walk(self, pos: int, end: int) -> int | None:
        """Read text[pos:end] (the rest of one line) whatever its layout: several ops,
        regions opened and closed, block labels. Returns where to resume when a
        construct (an alias, a resource block) runs past the line."""
        text = self.text
        resume = None
        reopened = -1  # where the previous op was last taken up again
        while True:
            while pos < end and text[pos] in " \t\r":
                pos += 1
            if pos >= end:
                break
            if self.stmt is not None:
                was = pos
                pos = self.stmt_tokens(pos, end)
                if pos == was and self.stmt is None and reopened == was:
                    # Taken up as the previous op's continuation, yet what is here
                    # would start another statement (`#x = ...` inside a region):
                    # neither, so say so and go on with the next line.
                    self.error(f"expected an operation, got {text[pos:min(end, pos + 20)]!r}", pos, end)
                    break
                continue
            c = text[pos]
            if c == "/" and text.startswith("//", pos):
                break
            if c == "}":
                if len(self.frames) == 1:
                    self.error("unbalanced '}': no region is open", pos)
                    pos += 1
                    continue
                _region, stmt = self.frames.pop()
                self.stmt = stmt
                pos = self.stmt_tokens(pos, end)  # pops the region's "R", then the op goes on
                continue
            if c == "^":
                pos = self.block_label(pos, end)
                if pos > end:  # the label ran over lines: go on after it, on its last line
                    nl = text.find("\n", pos)
                    end = len(text) if nl < 0 else nl
                    while end > pos and text[end - 1] in " \t\r":
                        end -= 1
                    resume = end
                continue
            if c in "#!" and len(self.frames) == 1:
                stop = self.alias(pos, end)
                if stop is None:
                    break
                if stop > end:
                    return stop  # ran over lines: the scan resumes after it
                pos = stop
                continue
            if c == "{" and text.startswith("{-#", pos):
                close = text.find("#-}", pos)
                if close < 0:
                    self.error("unterminated dialect resources block `{-# ... #-}`", pos, end)
                    return len(text)
                return close + 3
            m = _STMT_START.match(text, pos, end)
            results, qname, bname = m.group(1, 2, 3)
            name = qname or bname
            if name is not None and (qname is not None or "." in name or name in BARE_OPS):
                generic = qname is not None
                name_end = m.end(2) + 1 if generic else m.end(3)
                if not generic and "." not in name:
                    name = BARE_NAMES.get(name, name)
                block = self.frames[-1][0].blocks[-1]
                op = Operation(name, Span(pos, name_end), self.result_names(results, pos) if results else (),
                               self.module, block)
                block.operations.append(op)
                self.last_op = op
                self.last_generic = generic
                self.stmt = _Stmt(op, generic)
                pos = name_end
                continue
            if self.last_op is not None and results is None:
                # Not an op of its own: the previous op goes on (`cond {`, `} do {`,
                # `reducer(...) {`, `: (T) -> T` or an attr dict on the next line).
                stmt = self.stmt = _Stmt(self.last_op, self.last_generic)
                reopened = pos
                if not stmt.op.regions:
                    # A one-line op may have ended its line inside brackets
                    # (`func.func @f(%a: T` then `) -> T {`): take up its open ones.
                    stmt.stack = _open_brackets(text, stmt.op.span.start, stmt.op.span.end)
                continue
            if name is None:
                self.error(f"expected an operation, got {text[pos:min(end, pos + 20)]!r}", pos, end)
            else:
                self.error(f"expected an operation, got {name!r}", pos, m.end(3))
            break
        stmt = self.stmt
        if stmt is not None and not stmt.stack:
            self.stmt = None
            self.last_op = stmt.op
        return resume

    def stmt_tokens(self, pos: int, end: int) -> int:
        """Walk the open statement's brackets from `pos`; returns where it stopped:
        `end`, just after a region's `{` (the region's ops follow), or where a new
        op or a closing `}` begins after the statement is complete. Only brackets,
        strings and comments are tokens; the text between them at bracket depth 0
        is searched (in C) for what can begin the next op, so a 150 kB signature
        line costs a few regex calls, not a Python step per `%arg`."""
        stmt = self.stmt
        assert stmt is not None
        text = self.text
        stack = stmt.stack
        op = stmt.op
        seg = pos  # start of the text not yet looked at for an op start
        for m in _TOKENS.finditer(text, pos, end):
            tok = m.group(0)
            t0 = tok[0]
            if not stack:
                start = m.start()
                nxt = _NEXT_OP.search(text, seg, start + 1) if start > seg else None  # +1: see a `"name"` after `=`
                if nxt is not None:
                    return self.end_stmt(op, nxt.start())
                if t0 == "}" or (t0 == '"' and _GENERIC_NAME.match(text, start, end)):
                    return self.end_stmt(op, start)
            seg = m.end()
            if t0 == '"':
                continue
            if tok == "//":
                seg = end
                break
            if t0 in "([":
                stack.append(t0)
            elif t0 == ")" or t0 == "]":
                want = "(" if t0 == ")" else "["
                if stack and stack[-1] == want:
                    stack.pop()
                else:
                    self.error(f"unbalanced {t0!r}: no matching {want!r}", m.start())
            elif t0 == "{":
                top = stack[-1] if stack else ""
                after = m.end()
                is_region = ((top == "(" and stmt.generic) or (
                    top in ("", "(") and (not _DICT_START.match(text, after) or _REGION_RETURN.match(text, after)))) \
                    and _REGION_BODY.match(text, after) is not None
                if is_region:
                    self.open_region(stmt, m.start())
                    return after  # the region's ops follow; the op resumes at its `}`
                stack.append("{")
            else:  # "}"
                if stack and stack[-1] == "{":
                    stack.pop()
                elif stack and stack[-1] == "R":
                    stack.pop()
                    op.region_spans[-1] = Span(op.region_spans[-1].start, m.end())
                    op.regions[-1].span = op.region_spans[-1]
        if not stack and seg < end:
            nxt = _NEXT_OP.search(text, seg, end)
            if nxt is not None:
                return self.end_stmt(op, nxt.start())
        op.span = Span(op.span.start, max(end, op.span.start))
        return end

    def result_names(self, results: str, pos: int) -> tuple[tuple[str, int], ...]:
        """`%a, %b:3` as ((name, count), ...). A count the file is too short to give
        types to (each result needs one) is an error and counts as 1: `%r:2147483647`
        must not make every rule that reads the results build 2^31 values."""
        names = parse_result_names(results)
        if any(c > len(self.text) for _, c in names):
            self.error(f"{results.strip()} declares more results than this file could give types to", pos,
                       pos + len(results))
            names = tuple((n, min(c, 1)) for n, c in names)
        return names

    def end_stmt(self, op: Operation, at: int) -> int:
        """The open statement is complete; the next op (or a `}`) begins at `at`."""
        stop = at
        text = self.text
        while stop > op.span.start and text[stop - 1] in " \t\r\n":
            stop -= 1
        op.span = Span(op.span.start, stop)
        self.stmt = None
        self.last_op = op
        return at

    def open_region(self, stmt: _Stmt, brace: int) -> None:
        op = stmt.op
        if not op.regions:
            op.header_end = brace
            op.regions = []
            op.region_spans = []
        region = Region(op, Span(brace, brace + 1), self.module)
        region.blocks.append(Block(region))
        op.regions.append(region)
        op.region_spans.append(Span(brace, brace + 1))
        stmt.stack.append("R")
        self.frames.append((region, stmt))
        self.stmt = None
        self.last_op = None

    def block_label(self, start: int, end: int) -> int:
        """`^bb0(%a: T, ...):` at `start`; returns where the label ends (its `:`)."""
        region = self.frames[-1][0]
        text = self.text
        m = _BLOCK_LABEL.match(text, start, end)
        label = m.group(1) if m else text[start:end]
        stop = m.end() if m else end
        if stop < end and text[stop] == "(":
            # The arguments may run over several lines: up to the matching `)`.
            depth = 0
            for t in _TOKENS.finditer(text, stop):
                tok = t.group(0)
                if tok == "//":
                    continue
                if tok in "([":
                    depth += 1
                elif tok in ")]":
                    depth -= 1
                    if depth == 0:
                        stop = t.end()
                        break
            else:
                stop = end
        colon = _LABEL_COLON.match(text, stop)
        stop = colon.end() if colon else stop
        block = region.blocks[-1]
        if block.label is not None or block.operations:
            block = Block(region)
            region.blocks.append(block)
        block.label = label
        block.label_span = Span(start, stop)
        self.last_op = None
        return stop

    def alias(self, start: int, end: int) -> int | None:
        """`#name = ...` / `!name = ...` at top level. Returns where it ends: on this
        line, before the next top-level item when several share the line; past the
        line when its brackets run over several lines (a written-out
        `#sparse_tensor.encoding<{...}>`); None after an error."""
        text = self.text
        m = _ALIAS.match(text, start, end)
        if m is None:
            self.error(f"expected an alias definition `#name = ...`, got {text[start:end][:20]!r}", start, end)
            return None
        nxt = _NEXT_TOP.search(text, m.end(), end)
        stop = nxt.start() if nxt is not None else end
        if not _balanced(text, m.end(), stop):
            stop = _balanced_end(text, m.end(), end)
        value_end = stop
        while value_end > m.end() and text[value_end - 1] in " \t\r\n":
            value_end -= 1
        self.module.alias_texts[m.group(1)] = (text[m.end():value_end], m.end())
        self.module.loc_alias_spans[m.group(1)] = Span(start, value_end)
        return stop

    # ------------------------------------------------------------------ end
    def finish(self) -> None:
        n = len(self.text)
        unclosed = [region for region, _stmt in self.frames[1:]]
        if unclosed or self.stmt is not None:
            # One error at the end of the file naming the innermost opener, as a
            # truncated file has one cause however many regions it leaves open.
            src = self.module.source
            if unclosed:
                inner = unclosed[-1]
                line, col = src.line_col(inner.span.start)
                what = f"`}}` closing the region of {inner.parent.name} opened at {line}:{col}"
                more = len(unclosed) - 1
                if more:
                    what += f" (and {more} enclosing region{'s' if more > 1 else ''})"
            else:
                line, col = src.line_col(self.stmt.op.span.start)
                what = f"the rest of {self.stmt.op.name} begun at {line}:{col}"
            self.error(f"unexpected end of file: expected {what}", n, n)
            for region in unclosed:  # extend to EOF so header parses blank the bodies
                op = region.parent
                region.span = Span(region.span.start, n)
                op.region_spans[op.regions.index(region)] = region.span
                op.span = Span(op.span.start, n)
            self.module.structurally_broken = True
            self.stmt = None
            del self.frames[1:]
        top = self.implicit_root.regions[0].blocks[0]
        modules = [op for op in top.operations if op.name == "builtin.module"]
        if len(modules) == 1 and len(top.operations) == 1:
            root = modules[0]
            root.parent = None
            # The unused implicit op and its region point at each other: unlinked, they
            # go by reference counting (the language server freezes the GC between edits).
            self.implicit_root.regions[0].blocks = []
            self.implicit_root.regions = ()  # type: ignore[assignment]
        else:
            root = self.implicit_root
        self.module.root = root


def no_region_brace(text: str, pos: int, end: int) -> bool:
    """For a line with a `{`: do its braces all open and close attribute dicts
    (`<{...}>`, `{key = ...}`) on this line, so that the line is still one whole
    op? Two ops on one line with no brace between them are not looked for (MLIR
    allows it, printers never write it: the header parse then reports a syntax
    error); a line ending inside brackets is taken up by the next line."""
    return _REGION_BRACE.search(text, pos, end) is None and text.count("{", pos, end) == text.count("}", pos, end)


def _open_brackets(text: str, start: int, end: int) -> list[str]:
    """The brackets text[start:end] leaves open (strings and comments skipped)."""
    stack: list[str] = []
    pos = start
    while True:
        m = _TOKENS.search(text, pos, end)
        if m is None:
            return stack
        pos = m.end()
        tok = m.group(0)
        t0 = tok[0]
        if tok == "//":
            nl = text.find("\n", pos, end)
            if nl < 0:
                return stack
            pos = nl
        elif t0 in "([{":
            stack.append(t0)
        elif t0 in ")]}" and stack:
            stack.pop()


def _balanced(text: str, start: int, end: int) -> bool:
    """Do text[start:end]'s brackets balance? (C-speed counts; `->` is no `>`;
    a bracket inside a string makes it say no, and the char walk decides.)"""
    c = text.count
    return (c("(", start, end) + c("[", start, end) + c("{", start, end) + c("<", start, end)
            == c(")", start, end) + c("]", start, end) + c("}", start, end) + c(">", start, end)
            - c("->", start, end))


def _balanced_end(text: str, pos: int, line_end: int) -> int:
    """End of an alias value starting at `pos`: the end of its line once `<{([`
    balance (`->` is not a closer); the file's end if they never do."""
    depth = 0
    n = len(text)
    i = pos
    while i < n:
        c = text[i]
        if c == '"':
            i += 1
            while i < n and text[i] != '"' and text[i] != "\n":
                i += 2 if text[i] == "\\" else 1
        elif c in "<{([":
            depth += 1
        elif c in ">})]":
            if not (c == ">" and i > pos and text[i - 1] == "-"):
                depth -= 1
        elif c == "\n" and depth <= 0:
            return i
        i += 1
    return n


def parse_result_names(text: str) -> tuple[tuple[str, int], ...]:
    if "," not in text and ":" not in text:
        return ((text.strip(), 1),)
    out = []
    for part in text.split(","):
        part = part.strip()
        if ":" in part:
            name, count = part.split(":", 1)
            out.append((name.strip(), int(count)))
        else:
            out.append((part, 1))
    return tuple(out)
