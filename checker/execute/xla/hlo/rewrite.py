"""Rewrites of HLO text that let jaxlib compile and run it as XLA would (no jax).

jaxlib 0.10.2 compiles MLIR only, so HLO text goes through XLA's own HLO parser
and its HLO -> StableHLO importer, and is then compiled by the whole pipeline
again (hlo/compiler.py). An *unscheduled* module (a `before_optimizations`
dump) survives that round trip as it is. A *scheduled* one (`is_scheduled=true`:
`compile().as_text()`, `after_optimizations` dumps) is already partitioned,
optimized and ordered, and the round trip loses what it relies on; each rewrite
below fixes one failure measured on corpus/hlo with jaxlib 0.10.2 (the message
is in its docstring). None changes what a device computes or which collectives
it issues in which order: the engine checks the compiled module kept the text's
collectives, in the text's order, per computation (communicating.py).

`label_collectives` is the engine's own: it names each collective in its
metadata so that the progress markers inserted into the imported MLIR know which
HLO instruction they surround, and the compiled module can be checked against
the text instruction by instruction.

Each rewrite reads the text with the front end's syntax model and edits it at
the spans the model gives (an attribute's value, an operand, an instruction),
so what is not rewritten stays byte for byte as written.
"""
from __future__ import annotations

import math
import re

from ....frontend.hlo import HloText, Instruction, MeshAxesGroups, read_hlo
from ....frontend.hlo.shapes import Shape
from ..markers import CALLBACK_TARGET
from .communicating import ISSUE, FINISH, communicating_instructions, halves, talking_computations
from .reading import is_array, minor_to_major

__all__ = ["LABEL", "ORDER", "prepare", "label_collectives", "label_of", "label_of_instruction", "explicit_groups",
           "unfuse", "logical_bitcasts", "impose_order", "single_operand_all_reduces", "host_callbacks"]

LABEL = "shlo-lint:"
"""Prefix of the metadata op_name `label_collectives` gives each collective; the
importer turns op_name into the MLIR location, where the markers read it."""


def prepare(text: str, scheduled: bool, platform: str = "cpu") -> str:
    """The text handed to XLA's parser: collectives labelled, and for a scheduled
    module every rewrite below, in this order: the groups first (the later
    rewrites copy attributes), the order before the combined all-reduce is split
    (an edge into or out of it then reaches the whole op)."""
    text = label_collectives(text)
    if not scheduled:
        return text
    return single_operand_all_reduces(impose_order(logical_bitcasts(unfuse(explicit_groups(text))), platform))


# ----------------------------------------------------------------------------- editing at spans
def _edited(text: str, edits: list[tuple[int, int, str]]) -> str:
    """`text` with each (start, end, replacement) applied; the edits do not overlap
    (an insertion is start == end)."""
    out, pos = [], 0
    for start, end, new in sorted(edits, key=lambda e: (e[0], e[1])):
        out += [text[pos:start], new]
        pos = end
    out.append(text[pos:])
    return "".join(out)


def _indent(ins: Instruction) -> str:
    """The blanks before the instruction on its line."""
    before = ins.module.source.text[ins.offsets[0][0]:ins.span.start]
    return before[:len(before) - len(before.lstrip())]


def _operands_text(ins: Instruction) -> str:
    """What is written between the parentheses after the opcode."""
    text = ins.module.source.text
    body = ins.body_span
    attrs = ins.body.attributes
    close = text.rfind(")", body.start - 1, attrs[0].start if attrs else body.end)
    return text[body.start:close]


def _attrs_text(ins: Instruction, drop: tuple[str, ...] = ()) -> str:
    """`, name=value, ...` as written, without the attributes named in `drop`."""
    m = ins.module
    return "".join(f", {a.name}={m.snippet(a.value_span)}" for a in ins.body.attributes if a.name not in drop)


def _render(ins: Instruction, shape: str | None = None, opcode: str | None = None, operands: str | None = None,
            attrs: str | None = None) -> str:
    """The instruction (from ROOT or its name to its end), the parts given replaced."""
    return (f"{'ROOT ' if ins.is_root else ''}%{ins.name} = {ins.shape_text if shape is None else shape} "
            f"{ins.opcode if opcode is None else opcode}({_operands_text(ins) if operands is None else operands})"
            f"{_attrs_text(ins) if attrs is None else attrs}")


def _replace_instruction(ins: Instruction, new: str, before: list[str] = ()) -> list[tuple[int, int, str]]:
    """Edits that put `new` where the instruction is, and the lines `before` (each
    indented as the instruction) on lines of their own ahead of it."""
    indent = _indent(ins)
    edits = [(ins.span.start, ins.span.end, new)]
    if before:
        line_start = ins.offsets[0][0]
        edits.append((line_start, line_start, "".join(f"{indent}{line}\n" for line in before)))
    return edits


def _array_text(element: str, dims) -> str:
    return f"{element}[{','.join(map(str, dims))}]"


def _major_to_minor_text(shape: Shape) -> str:
    """An array shape with its layout made major-to-minor (`f32[2,4]{1,0}`)."""
    if not shape.dims:  # XLA's parser takes no layout on a scalar
        return _array_text(shape.element_type, shape.dims)
    return f"{_array_text(shape.element_type, shape.dims)}{{{','.join(map(str, range(shape.rank - 1, -1, -1)))}}}"


# ----------------------------------------------------------------------------- labels
def label_collectives(text: str) -> str:
    """Every collective's metadata becomes `{op_name="shlo-lint:<its name>"}`. The
    metadata of the user's file (Python lines) is for the user's reports, which
    read the original text; the compiled copy only needs to say which instruction
    each MLIR op came from, and the importer keeps nothing else of a name."""
    module = read_hlo(text)
    edits = []
    for comp in module.computations.values():
        for name in halves(comp):
            ins = comp.instruction(name)
            label = f'metadata={{op_name="{LABEL}{ins.name}"}}'
            meta = ins.attributes.get("metadata")
            edits.append((meta.start, meta.end, label) if meta is not None else
                         (ins.span.end, ins.span.end, f", {label}"))
    return _edited(text, edits)


def label_of(location: str) -> str | None:
    """The instruction name `label_collectives` put into a text (an MLIR location's,
    a compiled instruction's metadata)."""
    m = re.search(re.escape(LABEL) + r"([\w.\-]+)", location)
    return m.group(1) if m else None


def label_of_instruction(ins: Instruction) -> str | None:
    """The label of a compiled module's instruction (its metadata's op_name)."""
    meta = ins.attributes.get("metadata")
    return label_of(ins.module.snippet(meta.value_span)) if meta is not None else None


# ----------------------------------------------------------------------------- groups
def explicit_groups(text: str) -> str:
    """Mesh-axes replica groups (`replica_groups=mesh['axis_0'=8,'axis_1'=1]
    {'axis_0'}`, what the partitioner writes, `device_ids=` included) written out
    as explicit groups, as the front end expands them. The importer gives an
    all-to-all with mesh groups an attribute MHLO's verifier refuses
    ("'mhlo.all_to_all' op attribute 'replica_groups' failed to satisfy
    constraint")."""
    module = read_hlo(text)
    edits = []
    for ins in module.instructions():
        if "replica_groups=mesh" not in module.snippet(ins.body_span):
            continue  # (without reading the body of every instruction)
        attr = ins.attributes.get("replica_groups")
        if attr is None or not isinstance(attr.value, MeshAxesGroups):
            continue
        try:
            groups = attr.value.expand()
        except (ValueError, KeyError, IndexError):
            continue  # a form the front end cannot expand: left to XLA's parser
        edits.append((attr.value_start, attr.end, "{" + ",".join("{" + ",".join(map(str, g)) + "}"
                                                                  for g in groups) + "}"))
    return _edited(text, edits)


# ----------------------------------------------------------------------------- fusions
def unfuse(text: str) -> str:
    """`fusion(...), kind=k..., calls=%c` becomes `call(...), to_apply=%c`. The
    importer keeps `mhlo.fusion` but drops its backend_config, and XLA:CPU's thunk
    emitter requires one ("RET_CHECK ... Fusion must have backend config"); the
    pipeline fuses the calls again."""
    module = read_hlo(text)
    edits = []
    for ins in module.instructions():
        if ins.opcode != "fusion":
            continue
        attrs = "".join(f", {'to_apply' if a.name == 'calls' else a.name}={module.snippet(a.value_span)}"
                        for a in ins.body.attributes if a.name not in ("kind", "backend_config"))
        edits += _replace_instruction(ins, _render(ins, opcode="call", attrs=attrs))
    return _edited(text, edits)


# ----------------------------------------------------------------------------- bitcasts
def logical_bitcasts(text: str) -> str:
    """A `bitcast` reinterprets the physical buffer, so what it means depends on
    its operand's and its result's layouts, which MLIR does not carry: after the
    round trip a bitcast between differently laid-out shapes computes something
    else. Each becomes the logical ops that compute it: transpose to the operand's
    physical (major-to-minor) order, reshape, transpose from the result's physical
    order; a plain reshape when both layouts are the default major-to-minor."""
    module = read_hlo(text)
    edits = []
    for comp in module.computations.values():
        for ins in comp.instructions:
            if ins.opcode != "bitcast" or len(ins.operands) != 1:
                continue
            source = comp.instruction(ins.operands[0].name or "")
            src, dst = source.shape if source is not None else None, ins.shape
            if not (is_array(src) and is_array(dst)) or src.element_type != dst.element_type:
                continue  # a tuple or an element-type change: left to XLA's parser to refuse
            element = src.element_type
            operand = f"%{source.name}"
            slay, dlay = minor_to_major(src), minor_to_major(dst)
            if slay == list(range(src.rank))[::-1] and dlay == list(range(dst.rank))[::-1]:
                edits += _replace_instruction(ins, _render(ins, opcode="reshape", operands=operand))
                continue
            s_major, d_major = slay[::-1], dlay[::-1]
            base = f"%{ins.name}.physical"
            back = [d_major.index(i) for i in range(dst.rank)]
            meta = ins.attributes.get("metadata")
            edits += _replace_instruction(
                ins,
                _render(ins, opcode="transpose", operands=f"{base}.out", shape=_array_text(element, dst.dims),
                        attrs=f", dimensions={{{','.join(map(str, back))}}}"
                        + (f", metadata={module.snippet(meta.value_span)}" if meta is not None else "")),
                before=[f"{base}.in = {_array_text(element, [src.dims[d] for d in s_major])} "
                        f"transpose({operand}), dimensions={{{','.join(map(str, s_major))}}}",
                        f"{base}.out = {_array_text(element, [dst.dims[d] for d in d_major])} reshape({base}.in)"])
    return _edited(text, edits)


# ----------------------------------------------------------------------------- order
ORDER = "order."
"""Name prefix of the instructions impose_order adds; its custom-calls' indices
follow the text's own host callbacks, and the worker gives each a callable that
returns its first operand."""


def impose_order(text: str, platform: str = "cpu") -> str:
    """Make each computation's communicating instructions (collectives, and the
    while / conditional / call that run some) depend on one another in text
    order. The order of a scheduled module is what decides whether it deadlocks,
    and the round trip loses it: the importer emits ops in a post-order and XLA
    schedules the module again (measured: an all-gather written before an
    independent all-reduce came out after it). An opt-barrier chain is not
    enough: XLA:CPU removes opt-barriers before layout assignment, long before
    it schedules (OptimizationBarrierExpander), so it only nudged the order
    (measured: with the progress markers in, auto_fsdp_step's all-to-all moved
    ahead of two all-gathers through the barriers). So each edge goes through an
    opaque op that no pass looks into, a host callback that returns its first
    operand:

        %order.N.prev = get-tuple-element(%prev), index=0   (to an array, when prev is a tuple)
        %order.N = shape of x custom-call(%x, %order.N.prev), custom_call_target="xla_ffi_python_cpu_callback", ...

    (xla_ffi_python_gpu_callback on GPUs, the target jax lowers a callback to there)

    and %order.N replaces %x, the next communicating instruction's first array
    operand (or the first array element of the tuple instruction that makes it,
    for a while's state). Values are unchanged; every device makes one Python
    call per edge."""
    module = read_hlo(text)
    talking = talking_computations(module)
    index = 1 + max(host_callbacks(text), default=-1)
    edits = []
    n = 0
    for comp in module.computations.values():
        # not the asynchronous halves: a start's result may be read by its done only
        # (XLA's verifier: "*-start requires *-done as input"; the importer crashed on a
        # recv's tuple read), so their order is left to XLA (and checked after compiling)
        chain = [i for i, kind in communicating_instructions(comp, talking) if kind not in (ISSUE, FINISH)]
        rewritten: set[str] = set()
        for prev, cur in zip(chain, chain[1:]):
            target, operand = _array_operand(prev, cur, comp)
            if target is None or target.name in rewritten:
                continue
            leaf, leaf_lines = _array_leaf(prev, f"%{ORDER}{n + 1}.prev")
            if leaf is None:
                continue
            n += 1
            rewritten.add(target.name)
            x = comp.instruction(operand.name)
            x_shape, leaf_shape = _major_to_minor_text(x.shape), _major_to_minor_text(leaf[1])
            indent = _indent(target)
            line_start = target.offsets[0][0]
            edits.append((line_start, line_start, "".join(f"{indent}{line}\n" for line in leaf_lines + [
                f"%{ORDER}{n} = {x_shape} custom-call(%{x.name}, {leaf[0]}), "
                f'custom_call_target="{CALLBACK_TARGET[platform]}", '
                f"operand_layout_constraints={{{x_shape}, {leaf_shape}}}, "
                f"custom_call_has_side_effect=true, api_version=API_VERSION_TYPED_FFI, "
                f"backend_config={{index = {index} : ui64}}"])))
            index += 1
            # the operand as written ends with its `%name` (a shape may come first)
            edits.append((operand.end - len(operand.name) - 1, operand.end, f"%{ORDER}{n}"))
    return _edited(text, edits)


def _array_operand(prev: Instruction, cur: Instruction, comp):
    """(the instruction to rewrite, its operand to route through the edge): cur and
    its first array operand, or, when cur's first operand is a tuple made by a
    `tuple` instruction of this computation after prev (a while's state), that
    instruction and its first array operand; (None, None) otherwise."""
    first = comp.instruction(cur.operands[0].name or "") if cur.operands else None
    for candidate in (cur, first):
        if candidate is None:
            continue
        if candidate is not cur and (candidate.opcode != "tuple" or candidate.span.start < prev.span.start):
            continue  # (the edge is inserted before the instruction rewritten, which must follow prev)
        for operand in candidate.operands:
            defined = comp.instruction(operand.name or "")
            if defined is not None and is_array(defined.shape):
                return candidate, operand
            if candidate is cur:
                break  # cur's first operand is not an array: look through its tuple
    return None, None


def _array_leaf(prev: Instruction, name: str):
    """((value, shape), lines defining it): prev's result, or the first array
    inside it when it is a tuple (get-tuple-element at index 0, repeated);
    (None, []) for a result with no array (a token, an empty tuple)."""
    shape, value, lines, depth = prev.shape, f"%{prev.name}", [], 0
    while shape is not None and shape.is_tuple:
        if not shape.tuple_shapes:
            return None, []
        depth += 1
        element = f"{name}.{depth}" if depth > 1 else name
        shape = shape.tuple_shapes[0]
        lines.append(f"{element} = {shape} get-tuple-element({value}), index=0")
        value = element
    if not is_array(shape):
        return None, []
    return (value, shape), lines


# ----------------------------------------------------------------------------- combined all-reduce
def single_operand_all_reduces(text: str) -> str:
    """A combined all-reduce of k arrays of one element type (`(f32[], f32[16,32])
    all-reduce(%a, %b)`, what XLA's combiner makes) becomes one all-reduce of their
    flattened concatenation, sliced and reshaped back: the same single rendezvous
    of the same group over the same bytes. The SPMD partitioner refuses the tuple
    form in manual mode ("SPMD partitioner supports only single-operand allreduce
    in manual partitioning mode"), and a replica-mode compile fails in layout
    assignment ("LogicalBuffer ... does not have a layout")."""
    module = read_hlo(text)
    edits = []
    for comp in module.computations.values():
        for ins in comp.instructions:
            if ins.opcode != "all-reduce" or ins.shape is None or not ins.shape.is_tuple or len(ins.operands) < 2:
                continue
            defs = [comp.instruction(o.name or "") for o in ins.operands]
            shapes = [d.shape if d is not None else None for d in defs]
            if not all(is_array(s) for s in shapes) or len({s.element_type for s in shapes}) != 1:
                continue
            element = shapes[0].element_type
            sizes = [math.prod(s.dims) for s in shapes]
            base = f"%{ins.name}"
            lines = [f"{base}.flat.{k} = {element}[{n}] reshape(%{d.name})"
                     for k, (d, n) in enumerate(zip(defs, sizes))]
            lines.append(f"{base}.all = {element}[{sum(sizes)}] concatenate("
                         + ", ".join(f"{base}.flat.{k}" for k in range(len(sizes))) + "), dimensions={0}")
            lines.append(f"{base}.sum = {element}[{sum(sizes)}] all-reduce({base}.all){_attrs_text(ins)}")
            offset = 0
            for k, (s, n) in enumerate(zip(shapes, sizes)):
                lines.append(f"{base}.part.{k} = {element}[{n}] slice({base}.sum), slice={{[{offset}:{offset + n}]}}")
                lines.append(f"{base}.out.{k} = {_array_text(element, s.dims)} reshape({base}.part.{k})")
                offset += n
            shape = "(" + ", ".join(_array_text(element, s.dims) for s in shapes) + ")"
            edits += _replace_instruction(ins, _render(ins, opcode="tuple", shape=shape, attrs="", operands=", ".join(
                f"{base}.out.{k}" for k in range(len(shapes)))), before=lines)
    return _edited(text, edits)


# ----------------------------------------------------------------------------- host callbacks
_CALLBACK_TARGETS = (*CALLBACK_TARGET.values(), "xla_python_cpu_callback", "xla_python_gpu_callback")


def host_callbacks(text: str | HloText) -> dict[int, tuple[str, list[tuple[str, tuple[int, ...]]]]]:
    """Index -> (instruction name, result arrays (element type, dims)) of each
    host callback the module calls (`jax.debug.print`, `io_callback`:
    `custom-call`s to xla_ffi_python_cpu_callback with `backend_config={index = K
    : ui64}`). The index points into the callback list of the process that
    compiled the module, which is gone: without a callable at each index the run
    crashes (SIGSEGV, measured), so the worker supplies one per index."""
    module = read_hlo(text) if isinstance(text, str) else text
    out: dict[int, tuple] = {}
    for ins in module.instructions():
        if ins.opcode != "custom-call":
            continue
        target = ins.attr("custom_call_target")
        config = ins.attributes.get("backend_config")
        m = re.search(r"index\s*=\s*(\d+)", module.snippet(config.value_span)) if config is not None else None
        if target not in _CALLBACK_TARGETS or not m:
            continue
        results = ins.shape.leaves() if ins.shape is not None else ()
        out[int(m.group(1))] = (ins.name, [(s.element_type, tuple(s.dims)) for s in results if s.is_array])
    return out
