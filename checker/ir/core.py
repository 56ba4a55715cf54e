"""The IR: Module / Operation / Region / Block / Value / Location, every node spanned.

Operations are generic, like MLIR's generic form: a name, operands, results,
attributes and regions. The structural scanner (scan.py) creates every op with
its name, span, result names and regions at C speed; the op's *header* (operand
names and types, attributes, location) is parsed by the Lark grammar on first
access (parse/), so a rule that looks at five collectives in a 30 MB module
parses five headers, not 300,000.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Iterator

from .attributes import Attribute, DictAttr, IntegerAttr, StringAttr, SymbolRefAttr, TypeAttr
from ..source.text import SourceFile, Span
from .types import FunctionType, Type

if TYPE_CHECKING:  # pragma: no cover
    pass


# --------------------------------------------------------------------------- locations
class Location:
    """Base of debug locations (MLIR `loc(...)`)."""

    __slots__ = ()


@dataclass(frozen=True, slots=True)
class FileLineColLoc(Location):
    """`loc("model.py":42:7)`: where in the user's (Python) source the op came from."""

    file: str
    line: int
    col: int
    end_line: int | None = None
    end_col: int | None = None


@dataclass(frozen=True, slots=True)
class NameLoc(Location):
    """`loc("jit(f)/psum"(child))`."""

    name: str
    child: Location | None = None


@dataclass(frozen=True, slots=True)
class CallSiteLoc(Location):
    """`loc(callsite(callee at caller))`: callee is the innermost frame."""

    callee: Location
    caller: Location


@dataclass(frozen=True, slots=True)
class FusedLoc(Location):
    """`loc(fused<meta>[a, b])`."""

    locations: tuple[Location, ...]
    metadata: str | None = None


@dataclass(frozen=True, slots=True)
class UnknownLoc(Location):
    """`loc(unknown)`."""


@dataclass(frozen=True, slots=True)
class LocAlias(Location):
    """`loc(#loc12)`: resolved through the `#loc12 = loc(...)` definitions at the file's end."""

    name: str


def user_column(frame: FileLineColLoc) -> int:
    """The 1-based column to show for a frame. MLIR columns are 1-based, but JAX
    writes Python's 0-based column offsets into loc() for .py frames (checked on
    real exports: `loc("x.py":81:28)` points at the character after 28 others)."""
    return frame.col + 1 if frame.file.endswith(".py") else frame.col


def python_frames(loc: Location | None, aliases: dict[str, Location] | None = None,
                  _depth: int = 0) -> list[FileLineColLoc]:
    """The file:line:col frames of a location, innermost (the op's own line) first."""
    if loc is None or _depth > 64:
        return []
    if isinstance(loc, FileLineColLoc):
        return [loc]
    if isinstance(loc, LocAlias):
        return python_frames((aliases or {}).get(loc.name), aliases, _depth + 1)
    if isinstance(loc, NameLoc):
        return python_frames(loc.child, aliases, _depth + 1)
    if isinstance(loc, CallSiteLoc):
        return python_frames(loc.callee, aliases, _depth + 1) + python_frames(loc.caller, aliases, _depth + 1)
    if isinstance(loc, FusedLoc):
        out: list[FileLineColLoc] = []
        for sub in loc.locations:
            out += python_frames(sub, aliases, _depth + 1)
        return out
    return []


# --------------------------------------------------------------------------- op header
@dataclass(slots=True)
class OpHeader:
    """What the Lark parse of one op's text yields (its regions are parsed separately)."""

    name: str
    """Op name with dialect, e.g. "stablehlo.send" (pretty `stablehlo.add` and generic "stablehlo.add" alike)."""
    name_span: Span
    """Where the op name is written."""
    generic: bool = False
    """True for the generic form `"d.op"(...)`."""
    operands: list[tuple[str, Span]] = field(default_factory=list)
    """SSA operand names in order (`%x`, `%0#1`) with their spans."""
    operand_types: list[Type] | None = None
    """Operand types when the syntax states them (functional type or a single trailing type)."""
    result_types: list[Type] = field(default_factory=list)
    attributes: dict[str, Attribute] = field(default_factory=dict)
    """Properties `<{...}>`, attributes `{...}` and pretty-form attributes, merged by name."""
    properties: frozenset[str] = frozenset()
    """Which names in `attributes` were written as properties `<{...}>`."""
    region_args: list[list[tuple[str, Type | None, Span]]] = field(default_factory=list)
    """Entry-block arguments declared in the header, one list per region
    (func.func's signature, while's iterArgs, manual_computation's body args)."""
    successors: list[str] = field(default_factory=list)
    loc: Location | None = None


# --------------------------------------------------------------------------- values
class Value:
    """An SSA value: an op result or a block argument. Its type is read lazily."""

    __slots__ = ("name", "owner", "index", "_type")

    def __init__(self, name: str, owner: "Operation | Block", index: int, type_: Type | None = None):
        self.name = name
        """The name as written (`%0#1`, `%arg0`)."""
        self.owner = owner
        """The defining Operation, or the Block whose argument this is."""
        self.index = index
        """Result or argument position."""
        self._type = type_

    @property
    def type(self) -> Type | None:
        if self._type is None and isinstance(self.owner, Operation):
            types = self.owner.result_types
            if self.index < len(types):
                self._type = types[self.index]
        elif self._type is None and isinstance(self.owner, Block):
            self.owner.arguments  # noqa: B018 - materialises argument types
        return self._type

    @property
    def defining_op(self) -> "Operation | None":
        return self.owner if isinstance(self.owner, Operation) else None

    def __repr__(self) -> str:
        return f"Value({self.name})"


# --------------------------------------------------------------------------- structure
_NO_REGIONS: tuple = ()


class Operation:
    """One operation. Structural fields are set by the scanner; header fields are
    parsed on first access through the owning Module."""

    __slots__ = ("name", "span", "result_names", "regions", "parent", "module",
                 "_header", "_results", "header_end", "region_spans")

    def __init__(self, name: str, span: Span, result_names: tuple[tuple[str, int], ...],
                 module: "Module", parent: "Block | None" = None):
        # Set as few fields as possible: the scanner makes one of these per op
        # (300k in a 30 MB module). Region lists are shared empty tuples until used.
        self.name = name
        """Op name with dialect (`stablehlo.all_reduce`); from the scanner."""
        self.span = span
        """The whole op, regions included."""
        self.result_names = result_names
        """Result groups as written: (("%0", 2),) for `%0:2 =`, (("%a",1),("%b",1)) for `%a, %b =`."""
        self.parent = parent
        """The enclosing Block (None for the module op)."""
        self.module = module
        self._header = None
        self._results = None
        self.regions: list[Region] = _NO_REGIONS  # type: ignore[assignment]
        self.region_spans: list[Span] = _NO_REGIONS  # type: ignore[assignment]
        """Each region's braces `{...}` (inclusive), for blanking when parsing the header."""
        self.header_end = -1
        """Offset where the op's first region starts (-1: no region, the header is the whole op)."""

    # -- header (lazy) --------------------------------------------------------
    @property
    def header(self) -> OpHeader:
        if self._header is None:
            self._header = self.module.parse_header(self)
        return self._header

    @property
    def parsed_header(self) -> OpHeader | None:
        """The header if it was parsed (or set) already; None, and nothing parsed, if not."""
        return self._header

    def set_header(self, header: OpHeader) -> None:
        """Give the op its header without parsing it (a front end that built it
        already, e.g. the implicit module op; the editor's recording view of it)."""
        self._header = header

    @property
    def attributes(self) -> dict[str, Attribute]:
        return self.header.attributes

    def attr(self, name: str) -> Attribute | None:
        return self.header.attributes.get(name)

    @property
    def loc(self) -> Location | None:
        return self.header.loc

    @property
    def name_span(self) -> Span:
        return self.header.name_span

    @property
    def result_types(self) -> list[Type]:
        return self.header.result_types

    @property
    def operand_types(self) -> list[Type | None]:
        """Operand types as written, else the defining values' types."""
        h = self.header
        if h.operand_types is not None and len(h.operand_types) == len(h.operands):
            return list(h.operand_types)
        return [v.type if v is not None else None for v in self.operands]

    @property
    def num_results(self) -> int:
        return sum(n for _, n in self.result_names)

    # -- values -----------------------------------------------------------------
    @property
    def results(self) -> list[Value]:
        if self._results is None:
            out: list[Value] = []
            for group, count in self.result_names:
                for k in range(count):
                    out.append(Value(group if count == 1 else f"{group}#{k}", self, len(out)))
            self._results = out
        return self._results

    @property
    def operands(self) -> list[Value | None]:
        """Operand Values resolved by name in the enclosing scopes (None if undefined)."""
        block = self.parent
        return [block.lookup(n) if block is not None else None for n, _ in self.header.operands]

    @property
    def python_frames(self) -> list[FileLineColLoc]:
        return python_frames(self.loc, self.module.loc_aliases)

    # -- traversal --------------------------------------------------------------
    def walk(self) -> Iterator["Operation"]:
        """This op and every op nested in its regions, in pre-order."""
        stack = [self]
        while stack:
            op = stack.pop()
            yield op
            for region in reversed(op.regions):
                for block in reversed(region.blocks):
                    stack.extend(reversed(block.operations))

    @property
    def parent_op(self) -> "Operation | None":
        if self.parent is None or self.parent.parent is None:
            return None
        return self.parent.parent.parent

    def ancestors(self) -> Iterator["Operation"]:
        op = self.parent_op
        while op is not None:
            yield op
            op = op.parent_op

    @property
    def symbol_name(self) -> str | None:
        a = self.attr("sym_name")
        return a.value if isinstance(a, StringAttr) else None

    def __repr__(self) -> str:
        return f"<Operation {self.name} @{self.span.start}>"


class Block:
    """A basic block: optional label, arguments, operations."""

    __slots__ = ("label", "label_span", "operations", "parent", "_args", "_symbols")

    def __init__(self, parent: "Region", label: str | None = None, label_span: Span | None = None):
        self.parent = parent
        self.label = label
        """`^bb0` when written, else None (an entry block whose args the parent op declares)."""
        self.label_span = label_span
        """Span of the `^bb0(%a: T, ...):` line, parsed lazily for argument types."""
        self.operations: list[Operation] = []
        self._args: list[Value] | None = None
        self._symbols: dict[str, Value] | None = None

    @property
    def arguments(self) -> list[Value]:
        if self._args is None:
            region = self.parent
            decls: list[tuple[str, Type | None, Span]] = []
            if self.label_span is not None:
                decls = region.module.parse_block_label(self)
            elif region.blocks and region.blocks[0] is self and region.parent is not None:
                owner = region.parent
                args = owner.header.region_args
                idx = owner.regions.index(region)
                if idx < len(args):
                    decls = args[idx]
                elif len(args) == 1 and idx > 0:  # while: cond and body share iterArgs
                    decls = args[0]
            self._args = [Value(n, self, i, t) for i, (n, t, _s) in enumerate(decls)]
        return self._args

    def lookup(self, name: str) -> Value | None:
        """Resolve an SSA name visible from this block (its region, then enclosing ones)."""
        block: Block | None = self
        while block is not None:
            table = block.parent.symbols()
            if name in table:
                return table[name]
            if "#" not in name and f"{name}#0" in table:
                return table[f"{name}#0"]
            owner = block.parent.parent
            if owner is None or owner.name in _ISOLATED:
                return None
            block = owner.parent
        return None


_ISOLATED = frozenset({"func.func", "builtin.module", "module"})


class Region:
    """A list of blocks owned by an op."""

    __slots__ = ("blocks", "parent", "span", "module", "_symbols")

    def __init__(self, parent: Operation | None, span: Span, module: "Module"):
        self.parent = parent
        self.span = span
        self.module = module
        self.blocks: list[Block] = []
        self._symbols: dict[str, Value] | None = None

    def symbols(self) -> dict[str, Value]:
        if self._symbols is None:
            table: dict[str, Value] = {}
            for block in self.blocks:
                for v in block.arguments:
                    table[v.name] = v
                for op in block.operations:
                    for v in op.results:
                        table[v.name] = v
            self._symbols = table
        return self._symbols

    @property
    def operations(self) -> list[Operation]:
        return [op for b in self.blocks for op in b.operations]


class Module:
    """A parsed file: the top-level op, `#loc` aliases, and the diagnostics the parse raised."""

    def __init__(self, source: SourceFile, parser):
        self.source = source
        self.parser = parser
        """Object with parse_header(module, op) and parse_block_label(module, block)."""
        self.root: Operation | None = None
        """The `builtin.module` op (implicit when the file has bare funcs)."""
        self.loc_aliases: dict[str, Location] = {}
        self.loc_alias_spans: dict[str, Span] = {}
        self.attr_aliases: dict[str, str] = {}
        """`#name` -> the text of its definition (attribute aliases; parse/ resolves them)."""
        self.type_aliases: dict[str, str] = {}
        """`!name` -> the text of its definition (type aliases; parse/ resolves them)."""
        self.syntax_errors: list[tuple[str, Span]] = []
        """(message, span) for every syntax error met so far, parsing lazily included."""
        self.internal_errors: list[tuple[str, Span]] = []
        """(message, span) for every exception the parser raised (our bug, not the
        file's: reported as SHLO003, the op read crudely meanwhile)."""
        self._funcs: dict[str, Operation] | None = None
        self.walked: list[Operation] | None = None
        """Every op in walk order, once the structure is final (engine: after the scan;
        nothing changes it afterwards): walk() goes through this list (rules walk the
        module too, and a list is a tenth of a walk's cost)."""
        self.structurally_broken = False
        """True when the scan could not match regions (truncated file, stray braces):
        the IR is then unreliable, so only syntax errors are reported."""
        self.front_end = "stablehlo"
        """The language the text was read from: "stablehlo" (MLIR text) or "hlo" (XLA's
        HLO text, lowered by frontend/hlo/lower.py). Rules whose reading holds for one
        of them only say so where they are registered (lint/registry.py `front_ends`)."""
        self.schedule_fixed = False
        """True when the text fixes the issue order of every computation (an HLO module
        XLA has scheduled, `is_scheduled=true`): the deadlock analysis then decides
        that order alone and considers no reordering by a scheduler
        (analysis/process_model/schedule.py). StableHLO fixes no schedule."""
        self.per_device = False
        """True when the module is one device's program of a partitioned computation
        (HLO after XLA's SPMD partitioner): an entry argument is this device's shard
        of its array (the sharding it is written with says which devices hold the
        same one), not the logical array a JAX export's arguments are."""

    # -- lazy parse hooks ---------------------------------------------------------
    def parse_header(self, op: Operation) -> OpHeader:
        return self.parser.parse_header(self, op)

    def parse_block_label(self, block: Block) -> list[tuple[str, Type | None, Span]]:
        return self.parser.parse_block_label(self, block)

    # -- queries --------------------------------------------------------------------
    def walk(self) -> Iterator[Operation]:
        """Every op, the module op first, in pre-order."""
        walked = self.walked
        if walked is not None:
            return iter(walked)
        return self.root.walk() if self.root is not None else iter(())

    @property
    def attributes(self) -> dict[str, Attribute]:
        return self.root.attributes if self.root is not None else {}

    @property
    def funcs(self) -> dict[str, Operation]:
        """Every func.func by symbol name (nested modules included)."""
        if self._funcs is None:
            self._funcs = {}
            for op in self.walk():
                if op.name == "func.func" and op.symbol_name:
                    self._funcs[op.symbol_name] = op
        return self._funcs

    def int_attr(self, name: str) -> int | None:
        a = self.attributes.get(name)
        return a.value if isinstance(a, IntegerAttr) else None

    @property
    def num_partitions(self) -> int | None:
        return self.int_attr("mhlo.num_partitions")

    @property
    def num_replicas(self) -> int | None:
        return self.int_attr("mhlo.num_replicas")

    def entry_function(self) -> Operation | None:
        """`main` if present, else the only public func."""
        funcs = self.funcs
        if "main" in funcs:
            return funcs["main"]
        public = [f for f in funcs.values() if not _is_private(f)]
        return public[0] if len(public) == 1 else None


def _is_private(func: Operation) -> bool:
    vis = func.attr("sym_visibility")
    return isinstance(vis, StringAttr) and vis.value == "private"


def func_type(func: Operation) -> FunctionType | None:
    a = func.attr("function_type")
    return a.type if isinstance(a, TypeAttr) and isinstance(a.type, FunctionType) else None


def callee(op: Operation) -> str | None:
    a = op.attr("callee")
    return a.root if isinstance(a, SymbolRefAttr) else None


def release(module: Module, ops: list | None = None) -> None:
    """Take a module's IR apart so that reference counting frees it at once: ops,
    regions, blocks and values point at each other (parent, owner, module), so
    without this only a cyclic collection, walking every live object, would.
    `ops`: every op of the module, when the caller has the list (no walk)."""
    for op in list(module.walk()) if ops is None else ops:
        for region in op.regions:
            for block in region.blocks:
                block.operations = []
                block.parent = None  # type: ignore[assignment]
                block._args = None
                block._symbols = None
            region.blocks = []
            region.parent = None
            region.module = None  # type: ignore[assignment]
            region._symbols = None
        op.regions = ()  # type: ignore[assignment]
        op.parent = None
        op.module = None  # type: ignore[assignment]
        op._results = None
    module.__dict__.clear()  # root, caches (the header cache's contexts point back at it), aliases


__all__ = [
    "Block", "CallSiteLoc", "DictAttr", "FileLineColLoc", "FusedLoc", "LocAlias", "Location", "Module",
    "NameLoc", "OpHeader", "Operation", "Region", "UnknownLoc", "Value", "callee", "func_type", "python_frames",
    "release", "user_column",
]
