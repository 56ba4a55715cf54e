"""The structural pass over an HLO text, and the readers it leaves behind.

XLA prints one statement per line: the `HloModule` header, the stack-frame
tables, a computation's first line ending in `{`, its instructions, and `}`.
One regex cuts each instruction line into ROOT, name, shape, opcode and the
rest; the rest (operands, attributes) is read when someone asks
(`Instruction.body`: checker/frontend/hlo/body.py, or the grammar). Everything else —
an instruction without a shape, a nested instruction, a statement spread over
several lines, a module on one line — is read by the grammar
(checker/frontend/hlo/grammar.py) where it stands; what the grammar cannot read either
is a SyntaxIssue, and reading goes on at the next line.
"""
from __future__ import annotations

import re

from ...ir.memory import gc_paused
from ...source.text import SourceFile, Span
from . import body as fast
from .frames import FileLocation, StackFrame, StackFrameTables
from .model import Attribute, Body, Computation, HloText, Instruction, Parameter, SyntaxIssue
from .shapes import SHAPE_PATTERN, ShapeError, parse_shape
from .values import unescape

__all__ = ["read_hlo", "Reader"]

_NAME = r"[A-Za-z_][\w.\-]*"
# Every line: an instruction's head when it is one (groups 1-4), then the rest
# of the line up to its last non-blank character (group 5).
_LINE = re.compile(r"^(?:[ \t]*(ROOT[ \t]+)?(%?" + _NAME + r")[ \t]*=[ \t]*(" + SHAPE_PATTERN + r")[ \t]+("
                   + _NAME + r")\(|)([^\n]*[^ \t\r\n]|)[ \t\r]*$", re.M)
_BLANK = re.compile(r"(?:[ \t\r]|//[^\n]*|/\*(?:[^*\n]|\*(?!/))*\*/)*\Z")
_COMP = re.compile(r"[ \t]*(ENTRY[ \t]+)?(%?" + _NAME + r")[ \t]*"
                   r"(\([^\n]*?\)[ \t]*->[ \t]*[^\n{]*?(?:\{[0-9:][^{}\n]*\})?)?[ \t]*\{[ \t\r]*\Z")
_CLOSE = re.compile(r"[ \t]*\}[ \t]*([^\n]*?)[ \t\r]*\Z")
_HEADER = re.compile(r"[ \t]*HloModule[ \t]+(%?" + _NAME + r")")
_TABLE_KEYS = ("FileNames", "FunctionNames", "FileLocations", "StackFrames")
_NAME_ROW = re.compile(r"[ \t]*([0-9]+)[ \t]+(\"[^\"\\\n]*(?:\\.[^\"\\\n]*)*\")[ \t\r]*\Z")
_FIELDS_ROW = re.compile(r"[ \t]*([0-9]+)[ \t]*\{((?:[ \t]*" + _NAME + r"=-?[0-9]+)*)[ \t]*\}[ \t\r]*\Z")
_FIELD = re.compile(r"(" + _NAME + r")=(-?[0-9]+)")
_STRINGS = re.compile(r'"[^"\\\n]*(?:\\.[^"\\\n]*)*"')
_PARAM = re.compile(r"(" + _NAME + r"):[ \t]*(" + SHAPE_PATTERN + r")")
_SIGNATURE_ALL = re.compile(r"\(((?:[ \t]*" + _NAME + r":[ \t]*" + SHAPE_PATTERN + r"[ \t]*,)*(?:[ \t]*" + _NAME
                            + r":[ \t]*" + SHAPE_PATTERN + r")?)[ \t]*\)[ \t]*->[ \t]*(" + SHAPE_PATTERN + r")[ \t]*\Z")
# A text in which the structural pass found no instruction at all (a module on one
# line) is handed whole to the grammar, up to this size (beyond, it would take minutes).
_WHOLE_MODULE_FALLBACK_LIMIT = 2_000_000


def read_hlo(text: str, path: str = "<hlo>") -> HloText:
    """Read an HLO module's text (structure now, bodies on demand). Never raises on bad
    input: syntax problems are in the result's `issues`."""
    source = SourceFile(path, text)
    module = HloText(source)
    reader = Reader(module)
    module.reader = reader
    # The pass allocates an object per instruction and frees nothing: the cyclic GC
    # would only re-walk the growing heap (half the time on big modules), so pause it.
    with gc_paused():
        reader.scan()
    if module.issues and len(text) <= _WHOLE_MODULE_FALLBACK_LIMIT \
            and not any(c.instructions for c in module.computations.values()):
        reader.whole_module_fallback()
    return module


_CODE_TOKENS = re.compile(r'"[^"\\\n]*(?:\\.[^"\\\n]*)*"|//[^\n]*|/\*(?:[^*]|\*(?!/))*\*/|[ \t\r\n]+|[^"/ \t\r\n]+|/')


def _code_end(text: str, start: int, end: int) -> int:
    """Where the code in text[start:end] ends, comments and blanks after it left out."""
    last = start
    for m in _CODE_TOKENS.finditer(text, start, end):
        tok = m.group()
        if not (tok.startswith("//") or tok.startswith("/*") or tok.isspace()):
            last = m.end()
    return last


def _depth(s: str) -> int:
    """Open brackets minus closed ones in `s`, strings skipped."""
    if '"' in s:
        s = _STRINGS.sub("", s)
    return s.count("(") + s.count("{") + s.count("[") - s.count(")") - s.count("}") - s.count("]")


class Reader:
    """Builds an HloText's structure, then reads its pieces on demand."""

    def __init__(self, module: HloText):
        self.module = module
        self.text = module.source.text
        self.header: dict[str, Attribute] | None = None

    # ------------------------------------------------------------------ structure
    def scan(self) -> None:
        text, module = self.text, self.module
        issues = module.issues
        comp: Computation | None = None
        names: set[str] = set()
        instrs: list[Instruction] = []
        root_seen = False
        last: Instruction | None = None  # the last instruction of the open computation
        table_rows: dict[str, list] | None = None
        table_key: str | None = None
        table_start = table_end = 0
        seen_header = seen_comp = False
        outside_reported = False
        skip_to = 0
        for m in _LINE.finditer(text):
            if skip_to and m.start() < skip_to:
                continue
            root, name, opcode = m.group(1, 2, 4)
            if opcode is not None:  # an instruction line
                if comp is None:
                    if not outside_reported:
                        issues.append(SyntaxIssue("expected a computation (`%name (params) -> shape {`) "
                                                  "before this instruction", Span(m.start(2), m.end(2))))
                        outside_reported = True
                    continue
                if name[0] == "%":
                    name = name[1:]
                regs = m.regs
                bs, be = regs[5]
                if text.find("//", bs, be) >= 0 or text.find("*/", be - 2, be) >= 0:
                    regs = regs[:5] + ((bs, _code_end(text, bs, be)),)
                if root is not None:
                    ins = Instruction(name, opcode, True, comp, regs)
                    if root_seen:
                        issues.append(SyntaxIssue("a computation has only one ROOT", ins.span))
                    elif comp.root is None:
                        comp.root = ins
                    root_seen = True
                else:
                    ins = Instruction(name, opcode, False, comp, regs)
                if name in names:
                    issues.append(SyntaxIssue(f"instruction %{name} already exists in %{comp.name}", ins.name_span))
                names.add(name)
                instrs.append(ins)
                last = ins
                continue
            start = m.start()
            line = m.group()
            if _BLANK.match(line):
                continue
            # A line of a statement the line before left open (a bracket, a trailing comma).
            if last is not None and (text[last.offsets[5][1] - 1] == "," or line.lstrip().startswith(",")
                                     or _depth(text[last.span.start:start]) > 0):
                r = last.offsets
                last.offsets = r[:5] + ((r[5][0], m.end(5)),)
                continue
            if comp is not None:
                c = _CLOSE.match(line)
                if c is not None:
                    self._close(comp, instrs, start + len(line.rstrip()), c, start)
                    comp, last, root_seen = None, None, False
                    continue
                # Something the line regex does not take: the grammar reads the statement.
                stmt_end = self._statement_end(start)
                got = _parse("instruction", text[start:stmt_end], start)
                if isinstance(got, SyntaxIssue):
                    issues.append(got)
                    skip_to = stmt_end
                    continue
                ins = Instruction(got.name, got.opcode, got.is_root, comp, _offsets_of(got), got.body)
                if got.body.issues:
                    issues.extend(got.body.issues)
                self._add(ins, comp, names, instrs, got.is_root and root_seen)
                root_seen = root_seen or got.is_root
                last = ins
                skip_to = stmt_end
                continue
            stripped = line.strip()
            # Top level: the header, the tables, a computation's first line.
            if not seen_header and not seen_comp and table_rows is None and _HEADER.match(line):
                self._header(m)
                seen_header = True
                continue
            if stripped in _TABLE_KEYS and not seen_comp:
                if table_rows is None:
                    table_rows = {k: [] for k in _TABLE_KEYS}
                    table_start = start + line.index(stripped)
                table_key = stripped
                table_end = start + len(line.rstrip())
                continue
            if table_key is not None and not seen_comp:
                row = _NAME_ROW.match(line) if table_key in ("FileNames", "FunctionNames") \
                    else _FIELDS_ROW.match(line)
                if row is not None:
                    table_rows[table_key].append((int(row.group(1)), row.group(2), start))
                    table_end = start + len(line.rstrip())
                    continue
            cm = _COMP.match(line)
            if cm is not None:
                comp = self._open(cm, start, line)
            else:
                got = _parse("comp_header", line.rstrip(), start)
                if isinstance(got, SyntaxIssue):
                    issues.append(got)
                    if not stripped.endswith("{"):
                        continue
                    comp = Computation("<error>", False, Span(start, start), Span(start, start), None, module)
                else:
                    comp = Computation(got.name, got.is_entry, Span(start, start), got.name_span,
                                       got.signature_span, module, (got.parameters, got.result))
                    self._register(comp)
            seen_comp = True
            table_key = None
            names, instrs, root_seen, last = set(), comp.instructions, False, None
        if comp is not None:
            end = len(text.rstrip())
            issues.append(SyntaxIssue(f"expected '}}' at the end of computation %{comp.name}", Span(end, end)))
            self._close(comp, instrs, end, None, end)
        if table_rows is not None:
            module.tables = self._tables(table_rows, Span(table_start, table_end))
        if not module.computations and not any(i.message.startswith("expected") for i in issues):
            end = len(text.rstrip())
            issues.append(SyntaxIssue("expected a computation (`ENTRY %main (...) -> shape {`)", Span(end, end)))
        if module.computations and module.entry is None:
            module.entry = list(module.computations.values())[-1]

    def _add(self, ins: Instruction, comp: Computation, names: set, instrs: list, second_root: bool) -> None:
        """Add an instruction the grammar read (the regex-read ones are added inline)."""
        if ins.name in names:
            self.module.issues.append(SyntaxIssue(f"instruction %{ins.name} already exists in %{comp.name}",
                                                  ins.name_span))
        names.add(ins.name)
        if second_root:
            self.module.issues.append(SyntaxIssue("a computation has only one ROOT", ins.span))
        instrs.append(ins)
        if ins.is_root and comp.root is None:
            comp.root = ins

    def _header(self, m: re.Match) -> None:
        module = self.module
        line_start = m.start()
        h = _HEADER.match(self.text, line_start)
        name = h.group(1)
        module.name = name[1:] if name.startswith("%") else name
        module.name_span = Span(h.start(1), h.end(1))
        end = m.end()
        while end > h.end() and self.text[end - 1] in " \t\r":
            end -= 1
        module.header_span = Span(line_start + len(m.group()) - len(m.group().lstrip()), end)
        module.header_attrs_span = Span(h.end(), end)

    def _open(self, cm: re.Match, start: int, line: str) -> Computation:
        name = cm.group(2)
        nstart = start + cm.start(2)
        sig = None
        if cm.group(3) is not None:
            sig = Span(start + cm.start(3), start + cm.start(3) + len(cm.group(3).rstrip()))
        comp = Computation(name[1:] if name.startswith("%") else name, cm.group(1) is not None,
                           Span(start + (cm.start(1) if cm.group(1) else cm.start(2)), start),
                           Span(nstart, nstart + len(name)), sig, self.module)
        self._register(comp)
        return comp

    def _register(self, comp: Computation) -> None:
        module = self.module
        if comp.name in module.computations:
            module.issues.append(SyntaxIssue(f"computation %{comp.name} already exists", comp.name_span))
        else:
            module.computations[comp.name] = comp
        if comp.is_entry:
            if module.entry is not None:
                module.issues.append(SyntaxIssue("a module has only one ENTRY computation", comp.name_span))
            else:
                module.entry = comp

    def _close(self, comp: Computation, instrs: list, end: int, close: re.Match | None, line_start: int) -> None:
        comp.span = Span(comp.span.start, end)
        if close is not None and close.group(1):
            trail = line_start + close.start(1)
            comp.attributes_span = Span(trail, trail + len(close.group(1)))
        if comp.root is None and instrs:
            comp.root = instrs[-1]
        if not instrs:
            self.module.issues.append(SyntaxIssue(f"computation %{comp.name} has no instructions",
                                                  comp.name_span))

    def _statement_end(self, start: int) -> int:
        """The end of the statement starting at `start`: its line, and the lines after it
        while brackets stay open or a comma joins them."""
        text = self.text
        end = text.find("\n", start)
        end = len(text) if end < 0 else end
        depth = _depth(text[start:end])
        while end < len(text):
            nxt = text.find("\n", end + 1)
            nxt = len(text) if nxt < 0 else nxt
            if depth <= 0 and not text[start:end].rstrip().endswith(",") \
                    and not text[end:nxt].lstrip().startswith(","):
                break
            depth += _depth(text[end:nxt])
            end = nxt
        while end > start and text[end - 1] in " \t\r\n":
            end -= 1
        return end

    def _tables(self, rows: dict[str, list], span: Span) -> StackFrameTables:
        def ordered(key: str) -> list:
            # XLA's parser takes the rows in order and does not read their numbers.
            return [value for _, value, _ in rows[key]]
        files = tuple(unescape(v[1:-1]) for v in ordered("FileNames"))
        funcs = tuple(unescape(v[1:-1]) for v in ordered("FunctionNames"))
        locs = []
        for v in ordered("FileLocations"):
            f = dict((k, int(x)) for k, x in _FIELD.findall(v))
            locs.append(FileLocation(f.get("file_name_id", 0), f.get("function_name_id", 0), f.get("line", 0),
                                     f.get("end_line", 0), f.get("column", 0), f.get("end_column", 0)))
        frames = []
        for v in ordered("StackFrames"):
            f = dict((k, int(x)) for k, x in _FIELD.findall(v))
            # Printed one higher than the parent's id (XLA's printer adds 1, its parser takes it off).
            frames.append(StackFrame(f.get("file_location_id", 0), max(0, f.get("parent_frame_id", 1) - 1)))
        return StackFrameTables(files, funcs, tuple(locs), tuple(frames), span)

    def whole_module_fallback(self) -> None:
        """When the structural pass found no instruction, read the whole text with the grammar:
        if it reads (a module on one line), its reading replaces the structural one; else the
        structural issues stand."""
        from .grammar import ParsedModule
        got = _parse("module", self.text, 0)
        if not isinstance(got, ParsedModule):
            return
        module = self.module
        module.issues.clear()
        module.computations.clear()
        module.entry = None
        module.name = got.name
        self.header = {}
        for a in got.header_attributes:
            self.header.setdefault(a.name, a)
        module.tables = got.tables
        for pc in got.computations:
            h = pc.header
            comp = Computation(h.name, h.is_entry, pc.span, h.name_span, h.signature_span, module,
                               (h.parameters, h.result), {a.name: a for a in pc.attributes})
            self._register(comp)
            names: set[str] = set()
            root_seen = False
            for pi in pc.instructions:
                ins = Instruction(pi.name, pi.opcode, pi.is_root, comp, _offsets_of(pi), pi.body)
                module.issues.extend(pi.body.issues)
                self._add(ins, comp, names, comp.instructions, pi.is_root and root_seen)
                root_seen = root_seen or pi.is_root
            if comp.root is None and comp.instructions:
                comp.root = comp.instructions[-1]
        if module.entry is None and module.computations:
            module.entry = list(module.computations.values())[-1]

    # ------------------------------------------------------------------ on demand
    def read_body(self, ins: Instruction) -> Body:
        text = self.text
        body_start, end = ins.offsets[5]
        body = fast.read_body(text, body_start, end, ins.opcode)
        if body is None:
            start = {"constant": "constant_body", "parameter": "parameter_body"}.get(ins.opcode, "body")
            got = _parse(start, text[body_start:end], body_start)
            body = got if isinstance(got, Body) else Body((), (), (got,), by_fast_path=False)
        extra: list[SyntaxIssue] = []
        shape_start, shape_end = ins.offsets[3]
        if shape_start >= 0:
            try:
                parse_shape(text[shape_start:shape_end])
            except ShapeError as err:
                at = shape_start + err.offset
                extra.append(SyntaxIssue(err.message, Span(at, at + 1)))
        for op in body.operands:
            if op.shape_text is not None and op.shape is None:
                extra.append(SyntaxIssue(f"'{op.shape_text}' is not a shape", op.span))
        if not extra:
            return body
        return body._replace(issues=tuple(extra) + body.issues)

    def read_header(self, module: HloText) -> dict[str, Attribute]:
        if self.header is not None:  # read by the grammar with the whole module
            return self.header
        out: dict[str, Attribute] = {}
        for a in self._attributes(module.header_attrs_span, module.issues):
            out.setdefault(a.name, a)
        return out

    def _attributes(self, span: Span | None, issues: list) -> tuple[Attribute, ...]:
        """The `name=value` list at `span` (the fast path, else the grammar); its syntax
        issues go to `issues`."""
        if span is None:
            return ()
        got = fast.read_attributes(self.text, span.start, span.end, 0)
        if got is None:
            parsed = _parse("header_attrs", self.text[span.start:span.end], span.start)
            got = ((), (parsed,)) if isinstance(parsed, SyntaxIssue) else parsed
        issues.extend(got[1])
        return got[0]

    def read_signature(self, comp: Computation):
        span = comp.signature_span
        if span is None:
            return (), None
        text = self.text[span.start:span.end]
        got = _fast_signature(text, span.start)
        if got is None:
            header = _parse("comp_header", self.text[comp.span.start:span.end] + " {", comp.span.start)
            if isinstance(header, SyntaxIssue):
                self.module.issues.append(header)
                return (), None
            got = (header.parameters, header.result)
        return got

    def read_trailing(self, comp: Computation) -> dict[str, Attribute]:
        return {a.name: a for a in self._attributes(comp.attributes_span, self.module.issues)}


def _offsets_of(p) -> tuple:
    """An Instruction's offsets from the grammar's ParsedInstruction."""
    root = (p.span.start, p.name_span.start) if p.is_root else (-1, -1)
    shape = tuple(p.shape_span) if p.shape_span is not None else (-1, -1)
    return ((p.span.start, p.span.end), root, tuple(p.name_span), shape, tuple(p.opcode_span),
            (p.body_start, p.span.end))


def _fast_signature(text: str, base: int):
    """`(p: f32[2], q: s32[]) -> f32[2]` -> (parameters, result); None to leave it to the grammar."""
    m = _SIGNATURE_ALL.match(text)
    if m is None:
        return None
    params = []
    try:
        for p in _PARAM.finditer(text, 1, m.end(1)):
            params.append(Parameter(p.group(1), parse_shape(p.group(2)), Span(base + p.start(1), base + p.end(2))))
        result = parse_shape(m.group(2))
    except ShapeError:
        return None
    return tuple(params), result


def _parse(start: str, text: str, base: int):
    from .grammar import parse  # loaded when the fast path needs it, not before
    return parse(text, start, base)
