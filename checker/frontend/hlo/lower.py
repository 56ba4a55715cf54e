"""XLA's HLO text, lowered into the IR every stage reads (checker/ir/core.py).

`lower_hlo(source)` reads the text (checker/frontend/hlo/scan.py: the
structure now, each instruction's operands and attributes when first asked)
and builds an `ir.Module` whose ops the rules, the tracer, the deadlock model
and the reporters read as they read StableHLO's:

* the module: a `builtin.module` op spanning the file, whose attributes hold
  the grid (`mhlo.num_partitions` / `mhlo.num_replicas` from `num_partitions` /
  `replica_count` as the header writes them: one left out is 1, as in XLA's
  module config; both left out, as `lower().as_text("hlo")` prints a module,
  leave the grid to the command line); `Module.schedule_fixed` is the
  header's `is_scheduled` (each computation's order is the order XLA runs it
  in), `Module.per_device` too (a scheduled module is one device's program:
  SPMD partitioning is done);
* computations: the ENTRY computation is the public `func.func`, every other
  computation a private one, named as in the text, except the computations an
  op runs as its regions: a `while`'s condition and body
  (`stablehlo.while`), a `conditional`'s branches (`stablehlo.case` /
  `stablehlo.if`, whose regions take the branch operand as arguments), an
  `async-start`'s wrapped computation (`hlo.async-start`) and a collective's
  reducer (`to_apply`): those are lowered at each op that runs them, as its
  regions (a reducer shared by 40 all-reduces is three ops in each). A
  computation is never both;
* instructions: one op each (checker/frontend/hlo/opcodes.py says which), but
  `parameter`, which is an argument of the entry block of its function or
  region; a `call` or `fusion` is an `hlo.call` / `hlo.fusion` with a `callee`
  symbol reference, as `func.call`;
* values: a value of tuple shape is lowered to its leaves
  (checker/frontend/hlo/ir_types.py): `%t = (s32[], f32[4]) tuple(%i, %x)` is an
  op with results `%t#0`, `%t#1`, `get-tuple-element(%t), index=1` an op whose
  operand is `%t#1`, a tuple parameter as many block arguments; so a combined
  `all-reduce(%a, %b)` is a two-result `stablehlo.all_reduce`;
* terminators: a `func.return` (a function) or `stablehlo.return` (a region)
  of the ROOT's leaves ends every block, spanning nothing just after the ROOT;
* headers: an op's operands, result types, attributes (checker/frontend/hlo/ir_attrs.py)
  and location (its `metadata`, checker/frontend/hlo/locations.py) are built on first
  access (`HloHeaders`), so a rule that reads the collectives of a 30 MB module reads
  their bodies, not every fusion's.

Every op made from an instruction is an `HloOperation`: `op.instruction` is the
syntax-model instruction (checker/frontend/hlo/model.py: its typed attributes,
`frontend_attributes`, `backend_config`, `control_predecessors`, the compact
replica groups) and `module.hlo` the whole `HloText`.

Errors: the reader's syntax issues, and what XLA's parser would also refuse (an
operand or a computation that does not exist, a computation that calls
itself), are `module.syntax_errors` (SHLO001 at line:col); anything the
lowering itself raises on an op (a shlo-lint bug) is `module.internal_errors`
(SHLO003), and the op is read as an opaque `hlo.<opcode>` meanwhile.
"""
from __future__ import annotations

import re
from typing import Iterator

from ...ir.attributes import ArrayAttr, BoolAttr, DictAttr, IntegerAttr, StringAttr, SymbolRefAttr, TypeAttr
from ...ir.core import Block, Module, OpHeader, Operation, Region
from ...ir.memory import gc_paused
from ...ir.types import FunctionType, ScalarType
from ...source.text import SourceFile, Span
from .ir_attrs import attributes_of
from .ir_types import leaf_count, leaf_names, leaf_types, leaves_of
from .locations import Locations
from .model import Computation, HloText, Instruction
from .opcodes import CALLEE_ATTRS, REGION_ATTRS, callee_of, ir_name, region_computations
from .scan import read_hlo
from .shapes import ShapeError, parse_shape
from .values import FrontendAttributes, NameRef

__all__ = ["HloOperation", "HloModule", "HloHeaders", "lower_hlo"]

_REGION_OPCODES = frozenset(REGION_ATTRS) | {"conditional"}
_TERMINATOR_OF_FUNC = "func.return"
_TERMINATOR_OF_REGION = "stablehlo.return"
_I32 = ScalarType("i32")


class HloOperation(Operation):
    """An op lowered from HLO: `instruction` is the instruction it was made from (None for
    the module, a function and a terminator), `computation` the computation it lowers or
    lies in (None for the module)."""

    __slots__ = ("instruction", "computation")

    def attr(self, name: str):
        # A call's callee and a function's name and visibility are what the
        # structural walk asks of every call and function (analysis/tracer/structure.py):
        # answered without building the whole header (operands, types, location).
        if name in _CHEAP_ATTRS and self.parsed_header is None:
            got = _cheap_attr(self, name)
            if got is not _NOT_CHEAP:
                return got
        return self.header.attributes.get(name)

    @property
    def result_types(self):
        # What a rule asks of an operand's definition (its type): the instruction's
        # shape says it, the rest of the header is not needed.
        ins = self.instruction
        if ins is not None and self.parsed_header is None:
            return list(leaf_types(ins.shape_text)) if self.result_names else []
        return self.header.result_types

    @property
    def symbol_name(self) -> str | None:
        if self.name == "func.func" and self.computation is not None:
            return self.computation.name
        return super().symbol_name


_CHEAP_ATTRS = frozenset({"callee", "sym_name", "sym_visibility"})
_NOT_CHEAP = object()
_CALLEE_TEXT = re.compile(r",[ \t]*(?:calls|to_apply)=[ \t]*%?([A-Za-z_][\w.\-]*)[ \t]*(?=,|$)")


def _cheap_attr(op: HloOperation, name: str):
    """`callee` of an hlo.call / hlo.fusion, `sym_name` / `sym_visibility` of a function, as
    the header would have them (without their spans); _NOT_CHEAP for anything else."""
    comp = op.computation
    if op.name == "func.func" and comp is not None:
        if name == "sym_name":
            return StringAttr(comp.name)
        if name == "sym_visibility":
            return None if comp is comp.module.entry else StringAttr("private")
        return None
    ins = op.instruction
    if name == "callee" and ins is not None and ins.opcode in CALLEE_ATTRS:
        start, end = ins.offsets[5]
        m = _CALLEE_TEXT.search(ins.module.source.text, start, end)
        if m is not None:
            return SymbolRefAttr(m.group(1))
    return _NOT_CHEAP


class HloModule(Module):
    """An `ir.Module` lowered from HLO text: `hlo` is the syntax model it was lowered from.
    `syntax_errors` holds the reader's issues (those found as bodies are read later too)
    and the lowering's own."""

    def __init__(self, source: SourceFile, hlo: HloText, headers: "HloHeaders"):
        self.hlo = hlo
        self._mirrored = 0
        self._errors: list[tuple[str, Span]] = []
        super().__init__(source, headers)

    @property
    def syntax_errors(self) -> list[tuple[str, Span]]:  # type: ignore[override]
        issues = self.hlo.issues
        while self._mirrored < len(issues):
            issue = issues[self._mirrored]
            self._mirrored += 1
            self._errors.append((issue.message, issue.span))
        return self._errors

    @syntax_errors.setter
    def syntax_errors(self, value) -> None:
        self._errors = list(value)


class HloHeaders:
    """The `Module.parser` of a lowered module: builds an op's header from its instruction
    (or its computation) on first access; `unchecked` (the engine's whole-file check) reads
    every instruction and checks every name it uses."""

    def __init__(self, lowering: "_Lowering"):
        self.lowering = lowering

    def parse_header(self, module: Module, op: Operation) -> OpHeader:
        return self.lowering.header(op)

    def parse_block_label(self, module: Module, block: Block) -> list:
        return []  # HLO has no block labels: arguments come from the owner's header

    def unchecked(self, module: Module, ops) -> Iterator[Operation]:
        self.lowering.check_all()
        return iter(())


def lower_hlo(source: SourceFile) -> HloModule:
    """The IR of an HLO module's text. Never raises on bad input: see the module docstring."""
    hlo = read_hlo(source.text, source.path)
    lowering = _Lowering(hlo, source)
    with gc_paused():  # an object per instruction and none freed: the cyclic GC would only re-walk them
        lowering.run()
    return lowering.module


class _Lowering:
    def __init__(self, hlo: HloText, source: SourceFile):
        self.hlo = hlo
        self.source = source
        self.module = HloModule(source, hlo, HloHeaders(self))
        self.module.front_end = "hlo"
        self.module.schedule_fixed = hlo.is_scheduled
        self.module.per_device = hlo.is_scheduled
        self.regions: set[str] = set()
        self._params: dict[str, list] = {}
        self._bodies: frozenset[str] | None = None
        self.locations = Locations(hlo.tables)

    # ------------------------------------------------------------------ structure
    def run(self) -> None:
        hlo, module = self.hlo, self.module
        root = HloOperation("builtin.module", Span(0, len(self.source.text)), (), module, None)
        root.instruction = root.computation = None
        module.root = root
        region = Region(root, root.span, module)
        root.regions = [region]
        block = Block(region)
        region.blocks.append(block)
        self.regions = self._region_computations()
        for comp in hlo.computations.values():
            if comp.name in self.regions and comp is not hlo.entry:
                continue
            func = HloOperation("func.func", comp.span, (), module, block)
            func.instruction, func.computation = None, comp
            body = Region(func, comp.span, module)
            func.regions = [body]
            func.header_end = comp.signature_span.end if comp.signature_span is not None else comp.span.start
            block.operations.append(func)
            self._block(comp, body, _TERMINATOR_OF_FUNC, {comp.name})

    def _region_computations(self) -> set[str]:
        """The names of the computations some op runs as its region."""
        out: set[str] = set()
        for comp in self.hlo.computations.values():
            for ins in comp.instructions:
                if ins.opcode in _REGION_OPCODES:
                    for _attr, value in region_computations(ins):
                        if isinstance(value, NameRef):
                            out.add(value.name)
        return out

    def _block(self, comp: Computation, region: Region, terminator: str, stack: set[str]) -> None:
        module = self.module
        block = Block(region)
        region.blocks.append(block)
        ops = block.operations
        text = self.source.text
        for ins in comp.instructions:
            opcode = ins.opcode
            if opcode == "parameter":
                continue
            try:
                name = ir_name(ins)
            except Exception as e:  # noqa: BLE001 - our bug: the op is read as opaque
                self._internal(ins, e)
                name = f"hlo.{opcode}"
            # (Instruction.span and .shape_text, inlined: this loop runs once per instruction.)
            r = ins.offsets
            shape_start = r[3][0]
            count = 1 if shape_start < 0 or text[shape_start] != "(" else leaf_count(text[shape_start:r[3][1]])
            span = Span(r[1][0] if ins.is_root else r[2][0], r[5][1])
            op = HloOperation(name, span, ((f"%{ins.name}", count),) if count else (), module, block)
            op.instruction, op.computation = ins, comp
            if opcode in _REGION_OPCODES:
                self._regions(op, ins, stack)
            ops.append(op)
        end = comp.root.span.end if comp.root is not None else comp.span.end
        ret = HloOperation(terminator, Span(end, end), (), module, block)
        ret.instruction, ret.computation = None, comp
        ops.append(ret)

    def _regions(self, op: HloOperation, ins: Instruction, stack: set[str]) -> None:
        """Lower the computations `ins` runs as the regions of `op` (each at this op)."""
        regions = []
        for attr, value in region_computations(ins):
            if not isinstance(value, NameRef):
                continue
            callee = self.hlo.computation(value.name)
            where = ins.attributes[attr].value_span
            if callee is None:
                self._error(f"computation %{value.name} does not exist", where)
                continue
            if callee.name in stack:
                self._error(f"computation %{callee.name} calls itself (through %{ins.name})", where)
                continue
            region = Region(op, callee.span, self.module)
            regions.append(region)
            stack.add(callee.name)
            try:
                self._block(callee, region, _TERMINATOR_OF_REGION, stack)
            finally:
                stack.discard(callee.name)
        if regions:
            op.regions = regions
            op.header_end = op.span.end

    # ------------------------------------------------------------------ errors
    def _error(self, message: str, span: Span) -> None:
        errors = self.module.syntax_errors
        if (message, span) not in errors[-8:]:
            errors.append((message, span))

    def _internal(self, ins: Instruction | None, error: Exception) -> None:
        span = ins.opcode_span if ins is not None else Span(0, 0)
        what = f"{type(error).__name__}: {error}"
        self.module.internal_errors.append(
            (f"internal error while lowering HLO (instruction %{ins.name if ins is not None else '?'}): {what}; "
             f"this is a shlo-lint bug, not a problem of this file: the instruction was read as opaque", span))

    # ------------------------------------------------------------------ headers
    def header(self, op: Operation) -> OpHeader:
        ins = getattr(op, "instruction", None)
        comp = getattr(op, "computation", None)
        if ins is not None:
            try:
                return self._instruction_header(op, ins, comp)
            except Exception as e:  # noqa: BLE001 - our bug: SHLO003, and the op is opaque from now on
                self._internal(ins, e)
                op.name = f"hlo.{ins.opcode}"
                return OpHeader(op.name, ins.opcode_span,
                                result_types=list(leaf_types(ins.shape_text)) if op.result_names else [])
        if op.name == "func.func":
            return self._func_header(comp)
        if comp is not None:
            return self._return_header(op, comp)
        return self._module_header()

    def _module_header(self) -> OpHeader:
        hlo = self.hlo
        span = hlo.name_span or Span(0, 0)
        attrs = {"hlo.is_scheduled": BoolAttr(hlo.is_scheduled, self._header_span("is_scheduled"))}
        # The grid as the header states it. XLA runs a module whose header names
        # neither count on one device, but `lower().as_text("hlo")` prints none
        # (the compile options carry them): the grid is then unknown, as for a
        # StableHLO module without mhlo.num_partitions (--num-partitions gives it);
        # one count written means 1 for the other (analysis/semantics.py grid_of).
        if "num_partitions" in hlo.header:
            attrs["mhlo.num_partitions"] = IntegerAttr(hlo.num_partitions, _I32, self._header_span("num_partitions"))
        if "replica_count" in hlo.header:
            attrs["mhlo.num_replicas"] = IntegerAttr(hlo.replica_count, _I32, self._header_span("replica_count"))
        if hlo.name is not None:
            attrs["sym_name"] = StringAttr(hlo.name, None, span)
        return OpHeader("builtin.module", span, attributes=attrs)

    def _header_span(self, name: str) -> Span | None:
        a = self.hlo.header.get(name)
        return a.value_span if a is not None else None

    def _func_header(self, comp: Computation) -> OpHeader:
        params = self.parameters(comp)
        results = self._root_types(comp)
        attrs = {"sym_name": StringAttr(comp.name, None, comp.name_span),
                 "function_type": TypeAttr(FunctionType(tuple(t for _n, t, _s in params), tuple(results)),
                                           comp.signature_span)}
        if comp is not self.hlo.entry:
            attrs["sym_visibility"] = StringAttr("private")
        else:
            arg_attrs = self._entry_arg_attrs(comp)
            if arg_attrs is not None:
                attrs["arg_attrs"] = arg_attrs
        return OpHeader("func.func", comp.name_span, attributes=attrs, region_args=[params])

    def _entry_arg_attrs(self, comp: Computation) -> ArrayAttr | None:
        """`mhlo.sharding` of each entry argument whose parameter is written with one."""
        out = []
        found = False
        for ins in self._parameter_instructions(comp):
            n = leaf_count(ins.shape_text)
            a = ins.attributes.get("sharding")
            if a is not None and n == 1:
                text = self.source.text[a.value_start:a.end]
                out.append(DictAttr((("mhlo.sharding", StringAttr(text, None, a.value_span)),)))
                found = True
            else:
                out.extend(DictAttr(()) for _ in range(n))
        return ArrayAttr(tuple(out)) if found else None

    def _root_types(self, comp: Computation) -> list:
        root = comp.root
        if root is None:
            return []
        return [t for t in leaf_types(root.shape_text)]

    def _return_header(self, op: Operation, comp: Computation) -> OpHeader:
        root = comp.root
        operands = []
        if root is not None:
            operands = [(n, root.name_span) for n in leaf_names(root.name, leaf_count(root.shape_text))]
        return OpHeader(op.name, op.span, operands=operands)

    def _instruction_header(self, op: Operation, ins: Instruction, comp: Computation) -> OpHeader:
        result_types = list(leaf_types(ins.shape_text)) if op.result_names else []
        send_recv = None
        if ins.opcode == "recv-done" and ins.operands and ins.operands[0].name is not None:
            recv = self._recv_of(comp.instruction(ins.operands[0].name), comp)
            fa = recv.attr("frontend_attributes") if recv is not None else None
            send_recv = fa if isinstance(fa, FrontendAttributes) else None
        calls_lowered = ins.opcode in _REGION_OPCODES or callee_of(ins) is not None
        attrs = attributes_of(ins, op.name, result_types, self.hlo.replica_count, self.hlo.num_partitions,
                              send_recv, calls_lowered)
        callee = callee_of(ins)
        if isinstance(callee, NameRef):
            a = ins.attributes.get("to_apply") or ins.attributes.get("calls")
            attrs["callee"] = SymbolRefAttr(callee.name, (), a.value_span if a is not None else None)
            if callee.name not in self.hlo.computations:
                self._error(f"computation %{callee.name} does not exist", a.value_span)
            elif callee.name in self.regions and self.hlo.computations[callee.name] is not self.hlo.entry:
                self._error(f"computation %{callee.name} is called here and run as a region elsewhere: "
                            f"shlo-lint lowers it as the region only, so this call is not followed", a.value_span)
        region_args = []
        for region in op.regions:
            region_args.append(self.parameters(self._computation_at(region)))
        return OpHeader(op.name, ins.opcode_span, operands=self._operands(ins, comp), result_types=result_types,
                        attributes=attrs, region_args=region_args, loc=self._locations(ins.metadata))

    def _recv_of(self, ins: Instruction | None, comp: Computation, index: int | None = None,
                 depth: int = 0) -> Instruction | None:
        """The `recv` a recv-done's operand `ins` is (element `index` of, for a tuple): the
        recv itself, or, in XLA's pipelined loops (service/p2p_schedule_preparation.h),
        one carried through a while: `get-tuple-element` of a while body's parameter is
        element k of the body's ROOT tuple (the previous iteration's recv, a clone of the
        one started before the loop), of a while's result the same element of its body's
        ROOT (the last iteration's)."""
        if ins is None or depth > 32:
            return None
        if ins.opcode == "recv" and index is None:
            return ins
        if ins.opcode == "get-tuple-element" and index is None and ins.operands and ins.operands[0].name:
            k = ins.attr("index")
            if not isinstance(k, int):
                return None
            return self._recv_of(comp.instruction(ins.operands[0].name), comp, k, depth + 1)
        if ins.opcode == "tuple" and index is not None and index < len(ins.operands) and ins.operands[index].name:
            return self._recv_of(comp.instruction(ins.operands[index].name), comp, None, depth + 1)
        if ins.opcode == "parameter" and index is not None and comp.name in self._while_bodies():
            root = comp.root
            if root is not None and root.opcode == "tuple":
                return self._recv_of(root, comp, index, depth + 1)
        if ins.opcode == "while" and index is not None:
            ref = ins.attr("body")
            body = self.hlo.computation(ref.name) if isinstance(ref, NameRef) else None
            if body is not None and body.root is not None:
                return self._recv_of(body.root, body, index, depth + 1)
        return None

    def _while_bodies(self) -> frozenset[str]:
        """The names of the computations a while runs as its body."""
        if self._bodies is None:
            out = set()
            for c in self.hlo.computations.values():
                for i in c.instructions:
                    if i.opcode == "while" and isinstance(i.attr("body"), NameRef):
                        out.add(i.attr("body").name)
            self._bodies = frozenset(out)
        return self._bodies

    def _locations(self, metadata):
        return self.locations.location(metadata)

    def _computation_at(self, region: Region) -> Computation:
        """The computation a region was lowered from (its terminator knows)."""
        return region.blocks[0].operations[-1].computation  # type: ignore[attr-defined]

    # ------------------------------------------------------------------ values
    def _operands(self, ins: Instruction, comp: Computation) -> list[tuple[str, Span]]:
        out: list[tuple[str, Span]] = []
        for o in ins.operands:
            if o.name is None:
                out.append(("%<nested>", o.span))  # a nested instruction: no value of this module
                continue
            define = comp.instruction(o.name)
            if define is None:
                self._error(f"instruction %{o.name} does not exist in computation %{comp.name}", o.span)
                out.append((f"%{o.name}", o.span))
                continue
            names = leaf_names(define.name, leaf_count(define.shape_text))
            if ins.opcode == "get-tuple-element":
                names = self._element(ins, define, names)
            out.extend((n, o.span) for n in names)
        return out

    def _element(self, ins: Instruction, tuple_ins: Instruction, names: list[str]) -> list[str]:
        """The leaves of element `index` of a tuple value (whose leaves are `names`)."""
        index = ins.attr("index")
        try:
            shape = parse_shape(tuple_ins.shape_text) if tuple_ins.shape_text is not None else None
        except ShapeError:
            shape = None
        if shape is None or not shape.is_tuple or not isinstance(index, int) \
                or not 0 <= index < len(shape.tuple_shapes):
            a = ins.attributes.get("index")
            self._error(f"get-tuple-element index {index} is not an element of %{tuple_ins.name}'s shape "
                        f"{tuple_ins.shape_text}", a.value_span if a is not None else ins.opcode_span)
            return []
        start = sum(len(leaves_of(s)) for s in shape.tuple_shapes[:index])
        return names[start:start + len(leaves_of(shape.tuple_shapes[index]))]

    def _parameter_instructions(self, comp: Computation) -> list[Instruction]:
        """The computation's `parameter` instructions in parameter-number order. XLA prints
        the signature `(p0: f32[], p1: s32[])` in that order with the same names: when
        it names exactly these instructions, it is the order (no instruction is read);
        else the numbers are read."""
        params = [i for i in comp.instructions if i.opcode == "parameter"]
        if comp.signature_span is not None and len(params) > 1:
            declared = [p.name for p in comp.parameters]
            if sorted(declared) == sorted(i.name for i in params):
                by_name = {i.name: i for i in params}
                return [by_name[n] for n in declared]
        numbers = [i.body.parameter_number for i in params]
        if all(isinstance(n, int) for n in numbers) and len(set(numbers)) == len(numbers):
            params = [i for _n, i in sorted(zip(numbers, params), key=lambda p: p[0])]
        return params

    def parameters(self, comp: Computation) -> list:
        """The entry-block arguments of a lowered computation: (name, type, span) per leaf of
        each parameter, in parameter order."""
        got = self._params.get(comp.name)
        if got is None:
            got = []
            for ins in self._parameter_instructions(comp):
                types = leaf_types(ins.shape_text)
                for name, t in zip(leaf_names(ins.name, len(types)), types):
                    got.append((name, t, ins.name_span))
            self._params[comp.name] = got
        return got

    # ------------------------------------------------------------------ the whole-file check
    def check_all(self) -> None:
        """Read every header, signature and body (the reader's syntax issues), and every
        name an instruction uses (an operand or a computation that does not exist)."""
        self.hlo.parse_all()
        computations = self.hlo.computations
        for comp in computations.values():
            for ins in comp.instructions:
                for o in ins.operands:
                    if o.name is not None and comp.instruction(o.name) is None:
                        self._error(f"instruction %{o.name} does not exist in computation %{comp.name}", o.span)
                if ins.opcode == "get-tuple-element" and ins.operands and ins.operands[0].name is not None:
                    tuple_ins = comp.instruction(ins.operands[0].name)
                    if tuple_ins is not None:  # (an index that is no element is an error there)
                        self._element(ins, tuple_ins, leaf_names(tuple_ins.name, leaf_count(tuple_ins.shape_text)))
                for a in ins.body.attributes:
                    v = a.value
                    refs = (v,) if isinstance(v, NameRef) else v if isinstance(v, tuple) else ()
                    if a.name == "control-predecessors":
                        for r in refs:
                            if isinstance(r, NameRef) and comp.instruction(r.name) is None:
                                self._error(f"instruction %{r.name} does not exist in computation %{comp.name}",
                                            a.value_span)
                        continue
                    for r in refs:
                        if isinstance(r, NameRef) and a.name in _COMPUTATION_REFS and r.name not in computations:
                            self._error(f"computation %{r.name} does not exist", a.value_span)


_COMPUTATION_REFS = frozenset({"to_apply", "calls", "condition", "body", "true_computation", "false_computation",
                               "branch_computations", "called_computations", "select", "scatter"})
