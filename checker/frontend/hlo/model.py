"""The syntax model of an HLO text: the module, its computations, their
instructions, each with spans into the file.

Reading is in two steps (checker/frontend/hlo/scan.py): a structural pass makes every
computation and instruction from one regex match per line (name, shape text,
opcode, where the rest starts); an instruction's operands and attributes are
read the first time someone asks (`Instruction.body`), by the regex fast path
(checker/frontend/hlo/body.py) or the Lark grammar (checker/frontend/hlo/grammar.py). A rule that
looks at the collectives of a 30 MB module reads their attributes, not the
attributes of 300,000 fusions.

Syntax errors are SyntaxIssue records (message, span), never exceptions: the
ones the structural pass finds are in `HloText.issues`; an instruction's own
are in its body (and joined to `HloText.issues` once read). `HloText.parse_all()`
reads everything and returns every issue.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Iterator, NamedTuple

from ...ir.memory import gc_paused
from ...source.text import SourceFile, Span
from .frames import PythonFrame, StackFrameTables, frames_of
from .shapes import Shape, ShapeError, parse_shape
from .values import Literal, Metadata, NameRef

__all__ = ["SyntaxIssue", "OperandRef", "Attribute", "Body", "Parameter", "Instruction", "Computation",
           "HloText"]


@dataclass(frozen=True, slots=True)
class SyntaxIssue:
    """A place where the text is not HLO: a diagnostic-ready message and span."""

    message: str
    """What was expected and what was found (`expected ')', got ','`)."""
    span: Span
    """Where, in the file's offsets."""


class OperandRef(NamedTuple):
    """One operand as written: `%x`, `f32[8]{0} %x`, or a nested instruction.
    (A tuple, as Span is: the fast path makes a million of these.)"""

    name: str | None
    """The operand instruction's name without `%`; None for a nested instruction."""
    start: int
    """Offset of the operand (its written shape, if any, included)."""
    end: int
    """Offset just past it."""
    shape_text: str | None = None
    """The shape written before the name, if any."""
    nested: str | None = None
    """A nested instruction's text (`multiply(%a, %b)`), which XLA's parser accepts as an operand."""

    @property
    def span(self) -> Span:
        return Span(self.start, self.end)

    @property
    def shape(self) -> Shape | None:
        """The written shape, read (None when not written or not readable)."""
        if self.shape_text is None:
            return None
        try:
            return parse_shape(self.shape_text)
        except ShapeError:
            return None


class Attribute(NamedTuple):
    """One `name=value` after the operands (or in the module header, or after a computation).
    (A tuple, as Span is: the fast path makes a million of these.)"""

    name: str
    """The attribute's name (`replica_groups`, `control-predecessors`)."""
    value: object
    """The typed value (checker/frontend/hlo/values.py says which type for which attribute)."""
    start: int
    """Offset of the name in the file."""
    value_start: int
    """Offset of the value."""
    end: int
    """Offset just past the value."""

    @property
    def span(self) -> Span:
        """From the name to the end of the value."""
        return Span(self.start, self.end)

    @property
    def value_span(self) -> Span:
        """The value alone (where a diagnostic about `replica_groups=` points)."""
        return Span(self.value_start, self.end)

    @property
    def name_span(self) -> Span:
        return Span(self.start, self.start + len(self.name))


class Body(NamedTuple):
    """What follows `opcode(`: operands, and attributes. (A tuple: one per instruction.)"""

    operands: tuple[OperandRef, ...]
    """The operands in order (empty for `constant` and `parameter`)."""
    attributes: tuple[Attribute, ...]
    """The attributes in written order."""
    issues: tuple[SyntaxIssue, ...] = ()
    """Syntax errors found in it (then operands/attributes hold what read before the error)."""
    literal: Literal | None = None
    """A `constant`'s literal."""
    parameter_number: int | None = None
    """A `parameter`'s number."""
    by_fast_path: bool = True
    """Read by the regex fast path (False: by the Lark grammar)."""


@dataclass(frozen=True, slots=True)
class Parameter:
    """One `name: shape` of a computation's signature."""

    name: str
    """The parameter's name (as in `%name = ... parameter(i)`)."""
    shape: Shape | None
    """Its shape (None when the text does not read)."""
    span: Span
    """`name: shape`."""


class Instruction:
    """`[ROOT] %name = shape opcode(operands), attr=value, ...`.

    The structural pass fills the fields; `body` (operands, attributes) is read
    on first access. The spans are properties over the offsets the pass's regex
    match recorded (the pass makes 300,000 of these). Treat as read-only."""

    __slots__ = ("name", "opcode", "is_root", "computation", "offsets", "_body", "_attrs")

    def __init__(self, name: str, opcode: str, is_root: bool, computation: "Computation", offsets: tuple,
                 body: "Body | None" = None):
        self.name = name
        """The instruction's name without `%`."""
        self.opcode = opcode
        """The opcode as written (`all-reduce`, `all-reduce-start`, `async-start`, `fusion`)."""
        self.is_root = is_root
        """Marked ROOT."""
        self.computation = computation
        """The computation the instruction is in."""
        self.offsets = offsets
        """(start, end) of: the line, ROOT ((-1, -1) when not written), the name (`%` included),
        the shape ((-1, -1) when left out), the opcode, and the body (from just after `(` to the
        instruction's end). The spans below read them; the structural pass records its regex
        match's offsets as they are."""
        self._body = body
        self._attrs: dict[str, Attribute] | None = None

    @property
    def span(self) -> Span:
        """The whole instruction, from ROOT or the name to the end of its last attribute."""
        r = self.offsets
        return Span(r[1][0] if self.is_root else r[2][0], r[5][1])

    @property
    def name_span(self) -> Span:
        """The name, `%` included."""
        return Span(*self.offsets[2])

    @property
    def opcode_span(self) -> Span:
        return Span(*self.offsets[4])

    @property
    def shape_span(self) -> Span | None:
        """The result shape (None when left out, as XLA allows for some opcodes)."""
        s = self.offsets[3]
        return None if s[0] < 0 else Span(*s)

    @property
    def body_span(self) -> Span:
        """From just after `opcode(` to the end of the instruction."""
        return Span(*self.offsets[5])

    @property
    def module(self) -> "HloText":
        return self.computation.module

    @property
    def shape_text(self) -> str | None:
        s = self.offsets[3]
        return None if s[0] < 0 else self.module.source.text[s[0]:s[1]]

    @property
    def shape(self) -> Shape | None:
        """The result shape, read (None when left out or not readable: see the body's issues)."""
        text = self.shape_text
        if text is None:
            return None
        try:
            return parse_shape(text)
        except ShapeError:
            return None

    @property
    def body(self) -> Body:
        """Operands and attributes, read on first access (never raises: see `issues`)."""
        if self._body is None:
            self._body = self.module._read_body(self)
        return self._body

    @property
    def operands(self) -> tuple[OperandRef, ...]:
        return self.body.operands

    @property
    def operand_names(self) -> tuple[str | None, ...]:
        return tuple(o.name for o in self.body.operands)

    @property
    def attributes(self) -> dict[str, Attribute]:
        """name -> Attribute (the first, if an attribute is written twice)."""
        if self._attrs is None:
            attrs: dict[str, Attribute] = {}
            for a in self.body.attributes:
                attrs.setdefault(a.name, a)
            self._attrs = attrs
        return self._attrs

    def attr(self, name: str, default=None):
        """The typed value of attribute `name`, or `default`."""
        a = self.attributes.get(name)
        return default if a is None else a.value

    @property
    def issues(self) -> tuple[SyntaxIssue, ...]:
        return self.body.issues

    @property
    def metadata(self) -> Metadata | None:
        value = self.attr("metadata")
        return value if isinstance(value, Metadata) else None

    @property
    def called_computations(self) -> tuple[str, ...]:
        """Names of the computations this instruction calls (to_apply, calls, body, branches, ...)."""
        out = []
        for a in self.body.attributes:
            v = a.value
            if isinstance(v, NameRef) and a.name != "control-predecessors":
                out.append(v.name)
            elif isinstance(v, tuple) and v and all(isinstance(x, NameRef) for x in v) \
                    and a.name != "control-predecessors":
                out.extend(x.name for x in v)
        return tuple(out)

    @property
    def control_predecessors(self) -> tuple[str, ...]:
        v = self.attr("control-predecessors", ())
        return tuple(x.name for x in v if isinstance(x, NameRef))

    def python_frames(self) -> tuple[PythonFrame, ...]:
        """The user's Python frames this instruction came from, innermost first."""
        return self.module.python_frames(self.metadata)

    def __repr__(self) -> str:
        return f"<Instruction %{self.name} = {self.opcode}>"


class Computation:
    """`[ENTRY] %name (p: shape, ...) -> shape { instructions }`. Treat as read-only."""

    __slots__ = ("name", "is_entry", "span", "name_span", "signature_span", "instructions", "root",
                 "module", "attributes_span", "_by_name", "_signature", "_attrs")

    def __init__(self, name: str, is_entry: bool, span: Span, name_span: Span,
                 signature_span: Span | None, module: "HloText", signature: tuple | None = None,
                 attributes: "dict[str, Attribute] | None" = None):
        self.name = name
        """The computation's name without `%`."""
        self.is_entry = is_entry
        """Marked ENTRY."""
        self.span = span
        """From ENTRY or the name to the closing `}` (and its attributes)."""
        self.name_span = name_span
        """The name, `%` included."""
        self.signature_span = signature_span
        """`(p: f32[2], ...) -> f32[2]`, when written (the short form leaves it out)."""
        self.instructions: list[Instruction] = []
        """The instructions in written order: on a scheduled module, the execution order."""
        self.root: Instruction | None = None
        """The ROOT instruction (the last one when none is marked, as XLA does)."""
        self.module = module
        """The HloText it is in."""
        self.attributes_span: Span | None = None
        """`, execution_thread="..."` after the closing brace, when written."""
        self._by_name: dict[str, Instruction] | None = None
        self._signature = signature  # (parameters, result), when already read
        self._attrs = attributes

    def instruction(self, name: str) -> Instruction | None:
        """The instruction named `name` (without `%`) in this computation."""
        if self._by_name is None:
            self._by_name = {i.name: i for i in self.instructions}
        return self._by_name.get(name)

    def _read_signature(self):
        if self._signature is None:
            self._signature = self.module._read_signature(self)
        return self._signature

    @property
    def parameters(self) -> tuple[Parameter, ...]:
        """The signature's parameters (empty when not written)."""
        return self._read_signature()[0]

    @property
    def result_shape(self) -> Shape | None:
        """The signature's result shape (None when not written)."""
        return self._read_signature()[1]

    @property
    def attributes(self) -> dict[str, Attribute]:
        """`execution_thread=...` and any other attribute after the closing brace."""
        if self._attrs is None:
            self._attrs = self.module._read_trailing(self)
        return self._attrs

    @property
    def execution_thread(self) -> str:
        value = self.attributes.get("execution_thread")
        return value.value if value is not None and isinstance(value.value, str) else "main"

    def __repr__(self) -> str:
        return f"<Computation %{self.name}: {len(self.instructions)} instructions>"


class HloText:
    """One HLO module's text, read: header, stack-frame tables, computations."""

    def __init__(self, source: SourceFile):
        self.source = source
        """The file (path and text); spans index its text."""
        self.name: str | None = None
        """The module's name (`HloModule name`); None when the text has no header."""
        self.name_span: Span | None = None
        """Where the name is."""
        self.header_span: Span | None = None
        """The `HloModule ...` line."""
        self.header_attrs_span: Span | None = None
        """The `, attr=value, ...` part of the header."""
        self.tables: StackFrameTables | None = None
        """FileNames / FunctionNames / FileLocations / StackFrames, when written."""
        self.computations: dict[str, Computation] = {}
        """The computations by name, in written order."""
        self.entry: Computation | None = None
        """The ENTRY computation (the last one when none is marked, as XLA does)."""
        self.issues: list[SyntaxIssue] = []
        """Syntax errors found so far (the structural pass's, then each body's as it is read)."""
        self._header: dict[str, Attribute] | None = None
        self.reader = None
        """What reads headers, signatures and bodies on demand (checker/frontend/hlo/scan.py's Reader)."""

    # ------------------------------------------------------------------ header
    @property
    def header(self) -> dict[str, Attribute]:
        """The header's attributes by name, read on first access."""
        if self._header is None:
            self._header = self.reader.read_header(self) if self.reader is not None else {}
        return self._header

    def header_attr(self, name: str, default=None):
        a = self.header.get(name)
        return default if a is None else a.value

    @property
    def is_scheduled(self) -> bool:
        """`is_scheduled=true`: each computation's order is the order XLA runs it in."""
        return self.header_attr("is_scheduled") is True

    @property
    def replica_count(self) -> int:
        v = self.header_attr("replica_count", 1)
        return v if isinstance(v, int) and not isinstance(v, bool) else 1

    @property
    def num_partitions(self) -> int:
        v = self.header_attr("num_partitions", 1)
        return v if isinstance(v, int) and not isinstance(v, bool) else 1

    # ------------------------------------------------------------------ navigation
    def instructions(self) -> Iterator[Instruction]:
        for comp in self.computations.values():
            yield from comp.instructions

    def computation(self, name: str) -> Computation | None:
        return self.computations.get(name)

    def python_frames(self, metadata: Metadata | None) -> tuple[PythonFrame, ...]:
        """The Python frames `metadata` points at, innermost first: through the StackFrames
        table when it has a stack_frame_id, else its source_file / source_line."""
        return frames_of(metadata, self.tables)

    def parse_all(self) -> list[SyntaxIssue]:
        """Read every header, signature and instruction body; every syntax issue, in file order."""
        # As in the structural pass: a million objects made and none freed, so the
        # cyclic GC would only re-walk the heap.
        with gc_paused():
            self.header
            for comp in self.computations.values():
                comp.parameters
                comp.attributes
                for ins in comp.instructions:
                    if ins._body is None:
                        ins.body
        return sorted(set(self.issues), key=lambda i: (i.span.start, i.message))

    def snippet(self, span: Span) -> str:
        return self.source.text[span.start:span.end]

    # ------------------------------------------------------------------ lazy readers
    def _read_body(self, ins: Instruction) -> Body:
        body = self.reader.read_body(ins)
        if body.issues:
            self.issues.extend(body.issues)
        return body

    def _read_signature(self, comp: Computation):
        return self.reader.read_signature(comp)

    def _read_trailing(self, comp: Computation) -> dict[str, Attribute]:
        return self.reader.read_trailing(comp)
