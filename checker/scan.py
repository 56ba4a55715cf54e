"""The structural pass: finds every op's boundaries, name, results and regions.

MLIR as printers write it puts one op per line and opens regions at line ends,
so most lines are a whole op: those take a fast path (one regex match and a
look at the last character). Everything else — regions, ops written over
several lines, seed-style hand-written forms — goes through a bracket walker
that skips strings. Op headers (operands, types, attributes, loc) are NOT read
here: the Lark grammar parses them on demand (ir.Operation.header).

Syntax problems found here (unbalanced brackets, a `}` with nothing open, an
unterminated region at end of file) are recorded in module.syntax_errors and
scanning carries on, so the rest of the file is still checked.
"""
from __future__ import annotations

import gc
import re
from collections.abc import Mapping

from .ir import Block, Module, OpHeader, Operation, Region
from .source import SourceFile, Span

_TOKENS = re.compile(r'"(?:[^"\\\n]|\\.)*"|[(){}\[\]]|//')
# After a `{`: does an attribute dictionary start here (rather than a region)?
_DICT_START = re.compile(r'\s*(?:\}|(?:"(?:[^"\\\n]|\\.)*"|[A-Za-z_][\w.$\-]*)[ \t]*(?:=|,|\}))')
_ALIAS = re.compile(r'([#!][\w$.\-]+)[ \t]*=[ \t]*')
# One line: indentation, then (when it starts an op) results and the op name.
_LINE = re.compile(
    r'([ \t]*)(?:(%[\w$.\-#]+(?::\d+)?(?:[ \t]*,[ \t]*%[\w$.\-#]+(?::\d+)?)*)[ \t]*=[ \t]*)?'
    r'(?:"([\w$.\-]+)"|([A-Za-z_][\w$.\-]*))?[^\n]*\n?')
_BARE_NAMES = {"module": "builtin.module", "return": "func.return", "call": "func.call",
               "call_indirect": "func.call_indirect", "constant": "func.constant"}
_BLOCK_LABEL = re.compile(r'[ \t]*(\^[\w$.\-]+)')
_OPEN_ENDS = frozenset("{([,<")
_BARE_OPS = frozenset({"return", "call", "module", "call_indirect", "constant", "yield", "br", "cond_br"})


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
    enabled = gc.isenabled()
    gc.disable()
    try:
        return _Scanner(source, parser).run()
    finally:
        if enabled:
            gc.enable()


class _Scanner:
    def __init__(self, source: SourceFile, parser):
        self.text = source.text
        self.module = Module(source, parser)
        self.module.alias_texts = {}
        self.module.loc_aliases = LazyLocations(self.module)
        root = Operation("builtin.module", Span(0, len(self.text)), (), self.module)
        root._header = OpHeader(name="builtin.module", name_span=Span(0, 0))
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
        skip_to = -1
        ops_fast = _OPEN_ENDS
        bare = _BARE_OPS
        for m in _LINE.finditer(text):
            pos = m.start()
            if pos < skip_to:
                continue
            end = m.end()
            if end > pos and text[end - 1] == "\n":
                end -= 1
            if end > pos and text[end - 1] in " \t\r":
                while end > pos and text[end - 1] in " \t\r":
                    end -= 1
            if end <= pos:
                continue
            if self.stmt is not None:
                self.continue_stmt(m.end(1), end)
                continue
            results, qname, bname = m.group(2, 3, 4)
            name = qname or bname
            if name is not None and (qname is not None or "." in name or name in bare) \
                    and text[end - 1] not in ops_fast:
                # Fast path: a whole op on one line.
                if bname is not None and "." not in name:
                    name = _BARE_NAMES.get(name, name)
                block = self.frames[-1][0].blocks[-1]
                op = Operation(name, Span(m.end(1), end),
                               ((results, 1),) if results is not None and "," not in results and ":" not in results
                               else (_result_names(results) if results else ()), self.module, block)
                block.operations.append(op)
                self.last_op = op
                self.last_generic = qname is not None
                continue
            resume = self.line(m, end)
            if resume is not None:
                skip_to = resume
        self.finish()
        return self.module

    def line(self, m: re.Match, end: int) -> int | None:
        """Handle a line at op level (`m`: its _LINE match, already read for the fast
        path); returns where to resume when it skips ahead."""
        text = self.text
        start = m.end(1)
        c = text[start]
        if c == "/" and text.startswith("//", start):
            return None
        if c == "}":
            self.close_region(start, end)
            return None
        if c == "^":
            self.block_label(start, end)
            return None
        if c in "#!" and len(self.frames) == 1:
            self.alias(start, end)
            return None
        if c == "{" and text.startswith("{-#", start):
            close = text.find("#-}", start)
            if close < 0:
                self.error("unterminated dialect resources block `{-# ... #-}`", start, end)
                return len(text)
            return close + 3
        results, qname, bname = m.group(2, 3, 4)
        if self.last_op is not None and (c == "{" or (c.isalpha() and self.is_continuation(bname, m.end(4), end))):
            # `cond {`, `} do {`, `reducer(...) {`, or an attr dict on its own line.
            self.stmt = _Stmt(self.last_op, self.last_generic)
            self.continue_stmt(start, end)
            return None
        name = qname or bname
        if name is None:
            self.error(f"expected an operation, got {text[start:min(end, start + 20)]!r}", start, end)
            return None
        generic = qname is not None
        name_end = m.end(3) + 1 if generic else m.end(4)  # after a quoted name's closing quote
        if not generic and "." not in name and name not in _BARE_OPS:
            self.error(f"expected an operation, got {name!r}", start, name_end)
        if not generic and "." not in name:
            name = _BARE_NAMES.get(name, name)
        block = self.frames[-1][0].blocks[-1]
        op = Operation(name, Span(start, end), _result_names(results) if results else (), self.module, block)
        block.operations.append(op)
        self.last_op = op
        self.last_generic = generic
        if text[end - 1] not in _OPEN_ENDS:
            return None
        self.stmt = _Stmt(op, generic)
        self.continue_stmt(name_end, end)
        return None

    def is_continuation(self, word: str | None, word_end: int, end: int) -> bool:
        """A bare keyword line that continues the previous op (pretty `cond {`, `reducer(...) {`):
        a dot-free word that is not an op of its own."""
        if word is None or "." in word or word in _BARE_OPS:
            return False
        rest = self.text[word_end:word_end + 1]
        return self.text[end - 1] == "{" or rest in ("(", " ")

    # ------------------------------------------------------------------ statements
    def continue_stmt(self, pos: int, end: int) -> None:
        """Walk brackets of the open statement over [pos, end); close it if balanced at `end`."""
        stmt = self.stmt
        assert stmt is not None
        text = self.text
        stack = stmt.stack
        for m in _TOKENS.finditer(text, pos, end):
            tok = m.group(0)
            t0 = tok[0]
            if t0 == '"':
                continue
            if tok == "//":
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
                is_region = (top == "(" and stmt.generic) or (
                    top in ("", "(") and not _DICT_START.match(text, m.end()))
                if is_region:
                    if m.end() < end and text[m.end():end].strip() and not text[m.end():end].strip().startswith("//"):
                        # A region with content on its own line (`({ ^bb0 ... })` inline):
                        # uncommon; treat as opaque brace text.
                        stack.append("{")
                        continue
                    self.open_region(stmt, m.start())
                    return  # the rest of the op resumes when the region closes
                stack.append("{")
            else:  # "}"
                if stack and stack[-1] == "{":
                    stack.pop()
                elif stack and stack[-1] == "R":
                    stack.pop()
                    stmt.op.region_spans[-1] = Span(stmt.op.region_spans[-1].start, m.end())
                    stmt.op.regions[-1].span = stmt.op.region_spans[-1]
                else:
                    self.error("unbalanced '}': nothing is open here", m.start())
        op = stmt.op
        op.span = Span(op.span.start, max(end, op.span.start))
        if not stack:
            self.stmt = None
            self.last_op = op

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

    def close_region(self, start: int, end: int) -> None:
        if len(self.frames) == 1:
            self.error("unbalanced '}': no region is open", start)
            return
        _region, stmt = self.frames.pop()
        self.stmt = stmt
        self.continue_stmt(start, end)

    def block_label(self, start: int, end: int) -> None:
        region = self.frames[-1][0]
        m = _BLOCK_LABEL.match(self.text, start, end)
        label = m.group(1) if m else self.text[start:end]
        block = region.blocks[-1]
        if block.label is not None or block.operations:
            block = Block(region)
            region.blocks.append(block)
        block.label = label
        block.label_span = Span(start, end)
        self.last_op = None

    def alias(self, start: int, end: int) -> None:
        m = _ALIAS.match(self.text, start, end)
        if m is None:
            self.error(f"expected an alias definition `#name = ...`, got {self.text[start:end][:20]!r}", start, end)
            return
        self.module.alias_texts[m.group(1)] = (self.text[m.end():end], m.end())
        self.module.loc_alias_spans[m.group(1)] = Span(start, end)

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
        else:
            root = self.implicit_root
        self.module.root = root


def _result_names(text: str) -> tuple[tuple[str, int], ...]:
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
