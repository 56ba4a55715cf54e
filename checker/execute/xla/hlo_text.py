"""What the XLA engine reads of XLA's HLO text itself: the module header, each
computation's instructions in text order, their callees, the entry's parameters.

Just enough to run a module (its grid, its inputs), to rewrite it for jaxlib's
compiler (hlo_rewrite.py) and to name the instruction, line and column a device
was blocked at. It is not the HLO front end (that one lowers HLO to the
project's IR for the rules): it reads the long form XLA prints
(`compile().as_text()`, `HloModule.to_string()`, `--xla_dump_to` files), one
instruction per line, `%name = shape opcode(operands), attributes`, and refuses
anything else with a located HloTextError. No jax here: the parent process
reads the text too.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from ...ir.types import ComplexType, ScalarType, Type

COLLECTIVE_OPCODES = frozenset((
    "all-reduce", "all-reduce-start", "all-reduce-done", "all-gather", "all-gather-start", "all-gather-done",
    "reduce-scatter", "all-to-all", "ragged-all-to-all", "collective-broadcast", "collective-permute",
    "collective-permute-start", "collective-permute-done", "send", "send-done", "recv", "recv-done",
    "async-start", "async-update", "async-done"))
"""Opcodes that communicate (or start / finish communication) with other devices."""

ASYNC_OPCODES = frozenset((
    "all-reduce-start", "all-reduce-done", "all-gather-start", "all-gather-done", "collective-permute-start",
    "collective-permute-done", "send", "send-done", "recv", "recv-done", "async-start", "async-update",
    "async-done"))
"""The halves of asynchronous communication (GPU forms; XLA:CPU prints none): a
start's result may only be read by its done."""

DONE_OPCODES = frozenset(("all-reduce-done", "all-gather-done", "collective-permute-done", "send-done",
                          "recv-done", "async-update", "async-done"))
"""The halves that finish (or update) what a start issued."""

CALLERS = frozenset(("while", "conditional", "call", "async-start"))
"""Opcodes that run other computations in place: a communicating callee makes them
communicate too."""

_FIRST_WORD = re.compile(r"\s*(?://[^\n]*\n\s*|/\*.*?\*/\s*)*([\w]+)", re.S)
_HEADER_NUM = {"replica_count": 1, "num_partitions": 1}
_COMPUTATION = re.compile(r"^(ENTRY )?%([\w.\-]+) \(.*\{\s*$")
_INSTRUCTION = re.compile(r"^(\s*)(ROOT )?%([\w.\-]+) = ")
_SHORT_INSTRUCTION = re.compile(r"^\s*(ROOT )?[A-Za-z_][\w.\-]* = \S")
_OPCODE = re.compile(r"([\w\-]+)\(")
_OPERAND = re.compile(r"%([\w.\-]+)$")
_CALLEE = re.compile(r"\b(?:to_apply|calls|condition|body|true_computation|false_computation)=%([\w.\-]+)"
                     r"|branch_computations=\{([^}]*)\}")
_ARRAY = re.compile(r"^(\w+)\[([\d,]*)\](?:\{([\d,]*)[^}]*\})?$")


class HloTextError(Exception):
    """HLO text this reader cannot take, at a 1-based line and column."""

    def __init__(self, message: str, line: int = 1, column: int = 1):
        super().__init__(message)
        self.message = message
        self.line = line
        self.column = column


def looks_like_hlo(text: str) -> bool:
    """A file is HLO text when its first token (after blank lines and comments) is
    `HloModule`, as XLA prints every module; a StableHLO file starts otherwise
    (`module`, `func.func`, a comment, an attribute alias)."""
    m = _FIRST_WORD.match(text)
    return bool(m) and m.group(1) == "HloModule"


@dataclass(frozen=True)
class Header:
    name: str
    is_scheduled: bool
    replica_count: int
    num_partitions: int
    sdy: bool
    """Shardy meshes or calls in the text (a before_optimizations dump of a Shardy
    program): compile with the Shardy partitioner."""


def read_header(text: str) -> Header:
    first = text.lstrip().split("\n", 1)[0]
    if not looks_like_hlo(text):
        raise HloTextError("not HLO text: the first token is not `HloModule`")
    words = first.split()
    if len(words) < 2:
        raise HloTextError("the `HloModule` line has no module name")
    nums = {}
    for key, default in _HEADER_NUM.items():
        m = re.search(rf"\b{key}=(\d+)", first)
        nums[key] = int(m.group(1)) if m else default
    return Header(words[1].rstrip(","), bool(re.search(r"\bis_scheduled=true\b", first)),
                  nums["replica_count"], nums["num_partitions"], "xla.sdy." in text)


@dataclass
class Instr:
    line: int
    """0-based index of its line in the text."""
    column: int
    """1-based column of its `%name`."""
    indent: str
    name: str
    shape: str
    opcode: str
    operands: list[str]
    attrs: str
    """Everything after the operand list (`, channel_id=1, ...`)."""
    root: bool = False
    inside: str = ""
    """The operand list's text as written (`f32[2]{0} %x, %y`, or `0` for `parameter(0)`)."""

    def attr(self, key: str) -> str | None:
        """The text of attribute `key=...` (braces balanced), or None."""
        m = re.search(rf"(?:^|, ){re.escape(key)}=", self.attrs)
        if not m:
            return None
        start = m.end()
        if start < len(self.attrs) and self.attrs[start] in "{[(":
            return self.attrs[start:closing(self.attrs, start, self.attrs[start]) + 1]
        end = self.attrs.find(", ", start)
        return self.attrs[start:end if end >= 0 else len(self.attrs)]


@dataclass
class Computation:
    name: str
    line: int
    entry: bool
    instrs: list[Instr] = field(default_factory=list)


_PAIRS = {"(": ")", "[": "]", "{": "}"}


def closing(text: str, start: int, opening: str = "(") -> int:
    """Index of the bracket closing the one at text[start] (nesting and quoted
    strings counted); ValueError when it never closes."""
    close = _PAIRS[opening]
    depth, quoted, i = 0, False, start
    while i < len(text):
        ch = text[i]
        if quoted:
            if ch == "\\":
                i += 1
            elif ch == '"':
                quoted = False
        elif ch == '"':
            quoted = True
        elif ch == opening:
            depth += 1
        elif ch == close:
            depth -= 1
            if depth == 0:
                return i
        i += 1
    raise ValueError(f"unbalanced {opening}{close} in {text[start:start + 80]!r}")


def split_top(text: str) -> list[str]:
    """Split on the commas outside brackets and quoted strings."""
    parts, depth, cur, quoted, escaped = [], 0, [], False, False
    for ch in text:
        if escaped:
            escaped = False
        elif quoted and ch == "\\":
            escaped = True
        elif ch == '"':
            quoted = not quoted
        elif not quoted and ch in "([{":
            depth += 1
        elif not quoted and ch in ")]}":
            depth -= 1
        if ch == "," and depth == 0 and not quoted:
            parts.append("".join(cur).strip())
            cur = []
        else:
            cur.append(ch)
    if "".join(cur).strip():
        parts.append("".join(cur).strip())
    return parts


def parse_instr(index: int, line: str) -> Instr | None:
    """The instruction on one line of long-form text, or None for other lines;
    HloTextError when it starts like one and cannot be read."""
    m = _INSTRUCTION.match(line)
    if not m:
        return None
    rest = line[m.end():]
    try:
        if rest.startswith("("):  # a tuple shape
            end = closing(rest, 0)
            shape, rest = rest[:end + 1], rest[end + 1:].lstrip()
        else:
            shape, _, rest = rest.partition(" ")
        op = _OPCODE.match(rest)
        if not op:
            raise ValueError("no `opcode(` after the shape")
        close = closing(rest, op.end() - 1)
    except ValueError as e:
        raise HloTextError(f"cannot read the instruction %{m.group(3)}: {e}", index + 1,
                           len(m.group(1)) + 1) from None
    operands = [o.group(1) for o in (_OPERAND.search(x) for x in split_top(rest[op.end():close])) if o]
    column = len(m.group(1)) + (len("ROOT ") if m.group(2) else 0) + 1
    return Instr(index, column, m.group(1), m.group(3), shape, op.group(1), operands, rest[close + 1:],
                 bool(m.group(2)), rest[op.end():close])


def computations(text: str) -> dict[str, Computation]:
    """Computation name -> its instructions in text order (on a scheduled module,
    the order XLA runs them)."""
    comps: dict[str, Computation] = {}
    current: Computation | None = None
    for i, line in enumerate(text.split("\n")):
        if current is None:
            h = _COMPUTATION.match(line)
            if h:
                current = comps.setdefault(h.group(2), Computation(h.group(2), i, bool(h.group(1))))
            continue
        if line.strip() == "}":
            current = None
            continue
        ins = parse_instr(i, line)
        if ins is not None:
            current.instrs.append(ins)
    return comps


def entry_of(comps: dict[str, Computation]) -> Computation | None:
    return next((c for c in comps.values() if c.entry), None)


def check_long_form(text: str) -> dict[str, Computation]:
    """The computations of text in the long form XLA prints; HloTextError (located)
    for short-form text (`name = opcode(...)`, no `%`), which carries no operand
    shapes to rewrite, and for a module without an ENTRY computation."""
    read_header(text)
    comps = computations(text)
    if entry_of(comps) is None:
        for i, line in enumerate(text.split("\n")):
            if _SHORT_INSTRUCTION.match(line) and not _INSTRUCTION.match(line):
                raise HloTextError(
                    "short-form HLO text (instruction names without `%`) is not run: give the long form XLA "
                    "prints with `compile().as_text()`, `HloModule.to_string()` or `--xla_dump_to`",
                    i + 1, len(line) - len(line.lstrip()) + 1)
        raise HloTextError("no `ENTRY %name (...) -> ... {` computation in the module")
    return comps


def callees(ins: Instr) -> list[str]:
    out = []
    for single, many in _CALLEE.findall(ins.attrs):
        out += [single] if single else [c.strip().lstrip("%") for c in many.split(",") if c.strip()]
    return out


def communicating(comps: dict[str, Computation]) -> dict[str, bool]:
    """Computation -> whether it, or anything it calls, communicates."""
    memo: dict[str, bool] = {}

    def visit(name: str, stack: frozenset) -> bool:
        if name in memo:
            return memo[name]
        if name in stack or name not in comps:
            return False
        found = False
        for ins in comps[name].instrs:
            if ins.opcode in COLLECTIVE_OPCODES:
                found = True
            if ins.opcode in CALLERS and any(visit(c, stack | {name}) for c in callees(ins)):
                found = True
        memo[name] = found
        return found

    for name in comps:
        visit(name, frozenset())
    return memo


def communicating_instrs(comp: Computation, comm: dict[str, bool]) -> list[Instr]:
    """The instructions of one computation that communicate: collectives and the
    while / conditional / call that run one."""
    return [i for i in comp.instrs if i.opcode in COLLECTIVE_OPCODES or
            (i.opcode in CALLERS and any(comm.get(c) for c in callees(i)))]


def attr_items(attrs: str) -> list[tuple[str, str]]:
    """`, a=1, b={x, y}` -> [("a", "1"), ("b", "{x, y}")] (an item without `=` keeps
    an empty key)."""
    out = []
    for part in split_top(attrs.strip().lstrip(",")):
        key, eq, value = part.partition("=")
        out.append((key.strip(), value) if eq else ("", part))
    return out


def join_attrs(items: list[tuple[str, str]]) -> str:
    return "".join(f", {k}={v}" if k else f", {v}" for k, v in items)


def render(ins: Instr, opcode: str | None = None, inside: str | None = None, attrs: str | None = None,
           shape: str | None = None) -> str:
    """The instruction's line, with the parts given replaced."""
    return (f"{ins.indent}{'ROOT ' if ins.root else ''}%{ins.name} = {shape if shape is not None else ins.shape} "
            f"{opcode or ins.opcode}({ins.inside if inside is None else inside})"
            f"{ins.attrs if attrs is None else attrs}")


_ELEMENT_NAMES = {"pred": "i1", "bf16": "bf16", "f16": "f16", "f32": "f32", "f64": "f64"}


def element_type(hlo: str) -> Type | None:
    """The project IR's element type for an HLO one (pred -> i1, s32 -> i32,
    u8 -> ui8, c64 -> complex<f32>, f8e4m3fn -> f8E4M3FN); None for token and
    unknown ones."""
    if hlo in ("c64", "c128"):
        return ComplexType(ScalarType("f32" if hlo == "c64" else "f64"))
    if hlo in _ELEMENT_NAMES:
        return ScalarType(_ELEMENT_NAMES[hlo])
    m = re.fullmatch(r"([su])(\d+)", hlo)
    if m:
        return ScalarType(("i" if m.group(1) == "s" else "ui") + m.group(2))
    if re.fullmatch(r"f[468]e\w+", hlo):
        return ScalarType(hlo[:2] + hlo[2:].upper())
    return None


def array_shape(shape: str) -> tuple[str, list[int], list[int]] | None:
    """(element type, dims, minor-to-major layout) of an array shape text such as
    `f32[2,4]{0,1}`; None for tuples, tokens and anything else."""
    m = _ARRAY.match(shape.strip())
    if not m:
        return None
    dims = [int(d) for d in m.group(2).split(",") if d]
    layout = [int(d) for d in m.group(3).split(",") if d] if m.group(3) else list(range(len(dims)))[::-1]
    return m.group(1), dims, layout


@dataclass(frozen=True)
class Parameter:
    number: int
    instr: Instr
    element: str
    dims: tuple[int, ...]
    sharding: str | None
    """The `sharding={...}` text of the parameter instruction (the global array's
    sharding in a compiled module), or None."""


def entry_parameters(comps: dict[str, Computation]) -> list[Parameter]:
    """The entry computation's parameters in parameter-number order; HloTextError
    for one that is not an array (a tuple or a token parameter)."""
    entry = entry_of(comps)
    out = []
    for ins in entry.instrs if entry else []:
        if ins.opcode != "parameter":
            continue
        number = int(ins.inside) if ins.inside.strip().isdigit() else len(out)
        arr = array_shape(ins.shape)
        if arr is None:
            raise HloTextError(f"entry parameter %{ins.name} has shape {ins.shape}: only array parameters are run",
                               ins.line + 1, ins.column)
        out.append(Parameter(number, ins, arr[0], tuple(arr[1]), ins.attr("sharding")))
    return sorted(out, key=lambda p: p.number)


def instruction_index(comps: dict[str, Computation]) -> dict[str, tuple[Computation, Instr]]:
    """Instruction name -> (its computation, the instruction)."""
    return {i.name: (c, i) for c in comps.values() for i in c.instrs}


def callers_of(comps: dict[str, Computation]) -> dict[str, list[tuple[Computation, Instr]]]:
    """Computation name -> the (computation, instruction) pairs that call it."""
    out: dict[str, list] = {}
    for c in comps.values():
        for i in c.instrs:
            if i.opcode in CALLERS:
                for callee in callees(i):
                    out.setdefault(callee, []).append((c, i))
    return out
