"""Rewrites of HLO text that let jaxlib compile and run it as XLA would.

jaxlib 0.10.2 compiles MLIR only, so HLO text goes through XLA's own HLO parser
and its HLO -> StableHLO importer, and is then compiled by the whole pipeline
again (hlo_compile.py). An *unscheduled* module (a `before_optimizations`
dump) survives that round trip as it is. A *scheduled* one (`is_scheduled=true`:
`compile().as_text()`, `after_optimizations` dumps) is already partitioned,
optimized and ordered, and the round trip loses what it relies on; each rewrite
below fixes one failure measured on corpus/hlo with jaxlib 0.10.2 (the message
is in its docstring). None changes what a device computes or which collectives
it issues in which order: the engine checks the compiled module kept the text's
collectives, in the text's order, per computation.

`label_collectives` is the engine's own: it names each collective in its
metadata so that the progress markers inserted into the imported MLIR know which
HLO instruction they surround, and the compiled module can be checked against
the text instruction by instruction.

Everything here is text to text; no jax.
"""
from __future__ import annotations

import math
import re

import numpy as np

from .markers import CALLBACK_TARGET
from .hlo_text import (ASYNC_OPCODES, array_shape, attr_items, closing, communicating, communicating_instrs,
                       computations, COLLECTIVE_OPCODES, join_attrs, render, split_top)

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


def _lines_replaced(text: str, new: dict[int, str]) -> str:
    lines = text.split("\n")
    for i, line in new.items():
        lines[i] = line
    return "\n".join(lines)


# ----------------------------------------------------------------------------- labels
def label_collectives(text: str) -> str:
    """Every collective's metadata becomes `{op_name="shlo-lint:<its name>"}`. The
    metadata of the user's file (Python lines) is for the user's reports, which
    read the original text; the compiled copy only needs to say which instruction
    each MLIR op came from, and the importer keeps nothing else of a name."""
    new = {}
    for comp in computations(text).values():
        for ins in comp.instrs:
            if ins.opcode not in COLLECTIVE_OPCODES:
                continue
            items = [(k, v) for k, v in attr_items(ins.attrs) if k != "metadata"]
            items.append(("metadata", f'{{op_name="{LABEL}{ins.name}"}}'))
            new[ins.line] = render(ins, attrs=join_attrs(items))
    return _lines_replaced(text, new)


def label_of(location: str) -> str | None:
    """The instruction name `label_collectives` put into an MLIR location's text."""
    m = re.search(re.escape(LABEL) + r"([\w.\-]+)", location)
    return m.group(1) if m else None


# ----------------------------------------------------------------------------- groups
def iota_ids(spec: str) -> np.ndarray | None:
    """Device ids of an iota tile assignment `[d..](<=[r..])?(T(p..))?`, shaped [d..]."""
    m = re.fullmatch(r"\[([\d,]+)\](?:<=\[([\d,]+)\])?(?:T\(([\d,]+)\))?", spec.strip())
    if not m:
        return None
    dims = [int(x) for x in m.group(1).split(",")]
    reshape = [int(x) for x in m.group(2).split(",")] if m.group(2) else dims
    if math.prod(reshape) != math.prod(dims):
        return None
    ids = np.arange(math.prod(reshape)).reshape(reshape)
    if m.group(3):
        perm = [int(x) for x in m.group(3).split(",")]
        if sorted(perm) != list(range(len(reshape))):
            return None
        ids = ids.transpose(perm)
    return ids.reshape(dims)


def mesh_groups(mesh: str, device_ids: str | None, axes: str) -> str | None:
    """Explicit groups `{{..},{..}}` of `mesh[a=2,b=4] {a}` (with `device_ids=` when
    given): one group per value of the axes not listed, its members ordered by the
    listed axes; None for forms this does not know (sub-axes)."""
    names, sizes = [], []
    for part in mesh.split(","):
        name, _, size = part.partition("=")
        if not size.strip().isdigit():
            return None
        names.append(name.strip().strip("'\""))
        sizes.append(int(size))
    listed = [a.strip().strip("'\"") for a in axes.split(",") if a.strip()]
    if any(a not in names for a in listed):
        return None
    ids = iota_ids(device_ids) if device_ids else np.arange(math.prod(sizes)).reshape(sizes)
    if ids is None or list(ids.shape) != sizes:
        return None
    order = [names.index(a) for a in listed]
    rest = [i for i in range(len(names)) if i not in order]
    groups = ids.transpose(rest + order).reshape(-1, math.prod(sizes[i] for i in order))
    return "{" + ",".join("{" + ",".join(str(int(d)) for d in g) + "}" for g in groups) + "}"


def explicit_groups(text: str) -> str:
    """Mesh-axes replica groups (`replica_groups=mesh['axis_0'=8,'axis_1'=1]
    {'axis_0'}`, what the partitioner writes) written out as explicit groups.
    The importer gives an all-to-all with mesh groups an attribute MHLO's verifier
    refuses ("'mhlo.all_to_all' op attribute 'replica_groups' failed to satisfy
    constraint")."""
    out, pos = [], 0
    key = "replica_groups=mesh["
    while (at := text.find(key, pos)) >= 0:
        close = closing(text, at + len(key) - 1, "[")
        mesh, rest, device_ids = text[at + len(key):close], close + 1, None
        if text.startswith(", device_ids=(", rest):  # `mesh[a=2,b=2], device_ids=([2,2]T(1,0)) {a}`
            start = rest + len(", device_ids=")
            end = closing(text, start)
            device_ids, rest = text[start + 1:end], end + 1
        if not text.startswith(" {", rest):
            break
        end = text.index("}", rest)
        groups = mesh_groups(mesh, device_ids, text[rest + 2:end])
        out.append(text[pos:at])
        out.append(f"replica_groups={groups}" if groups else text[at:end + 1])
        pos = end + 1
    return "".join(out) + text[pos:]


# ----------------------------------------------------------------------------- fusions
def unfuse(text: str) -> str:
    """`fusion(...), kind=k..., calls=%c` becomes `call(...), to_apply=%c`. The
    importer keeps `mhlo.fusion` but drops its backend_config, and XLA:CPU's thunk
    emitter requires one ("RET_CHECK ... Fusion must have backend config"); the
    pipeline fuses the calls again."""
    new = {}
    for comp in computations(text).values():
        for ins in comp.instrs:
            if ins.opcode != "fusion":
                continue
            items = []
            for k, v in attr_items(ins.attrs):
                if k == "calls":
                    items.append(("to_apply", v))
                elif k not in ("kind", "backend_config"):
                    items.append((k, v))
            new[ins.line] = render(ins, opcode="call", attrs=join_attrs(items))
    return _lines_replaced(text, new)


# ----------------------------------------------------------------------------- bitcasts
def _array_text(element: str, dims) -> str:
    return f"{element}[{','.join(map(str, dims))}]"


def logical_bitcasts(text: str) -> str:
    """A `bitcast` reinterprets the physical buffer, so what it means depends on
    its operand's and its result's layouts, which MLIR does not carry: after the
    round trip a bitcast between differently laid-out shapes computes something
    else. Each becomes the logical ops that compute it: transpose to the operand's
    physical (major-to-minor) order, reshape, transpose from the result's physical
    order; a plain reshape when both layouts are the default major-to-minor."""
    new = {}
    for comp in computations(text).values():
        shapes = {i.name: i.shape for i in comp.instrs}
        for ins in comp.instrs:
            if ins.opcode != "bitcast" or len(ins.operands) != 1:
                continue
            src, dst = array_shape(shapes.get(ins.operands[0], "")), array_shape(ins.shape)
            if src is None or dst is None or src[0] != dst[0]:
                continue  # a tuple or an element-type change: left to XLA's parser to refuse
            element, sdims, slay = src
            _, ddims, dlay = dst
            operand = f"%{ins.operands[0]}"
            if slay == list(range(len(sdims)))[::-1] and dlay == list(range(len(ddims)))[::-1]:
                new[ins.line] = render(ins, opcode="reshape", inside=operand)
                continue
            s_major, d_major = slay[::-1], dlay[::-1]
            base = f"%{ins.name}.physical"
            back = [d_major.index(i) for i in range(len(ddims))]
            new[ins.line] = "\n".join([
                f"{ins.indent}{base}.in = {_array_text(element, [sdims[d] for d in s_major])} "
                f"transpose({operand}), dimensions={{{','.join(map(str, s_major))}}}",
                f"{ins.indent}{base}.out = {_array_text(element, [ddims[d] for d in d_major])} reshape({base}.in)",
                render(ins, opcode="transpose", inside=f"{base}.out", shape=_array_text(element, ddims),
                       attrs=f", dimensions={{{','.join(map(str, back))}}}" + join_attrs(
                           [(k, v) for k, v in attr_items(ins.attrs) if k == "metadata"]))])
    return _lines_replaced(text, new)


# ----------------------------------------------------------------------------- order
ORDER = "order."
"""Name prefix of the instructions impose_order adds; its custom-calls' indices
follow the text's own host callbacks, and the worker gives each a callable that
returns its first operand."""


def _default_layout(shape: str) -> str | None:
    """An array shape with its layout made major-to-minor (`f32[2,4]{1,0}`)."""
    arr = array_shape(shape)
    if arr is None:
        return None
    element, dims, _ = arr
    if not dims:  # XLA's parser takes no layout on a scalar
        return _array_text(element, dims)
    return f"{_array_text(element, dims)}{{{','.join(str(d) for d in range(len(dims) - 1, -1, -1))}}}"


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
    comps = computations(text)
    comm = communicating(comps)
    index = 1 + max(host_callbacks(text), default=-1)
    before: dict[int, list[str]] = {}
    new: dict[int, str] = {}
    n = 0
    for comp in comps.values():
        defs = {i.name: i for i in comp.instrs}
        # not the asynchronous halves: a start's result may be read by its done only
        # (XLA's verifier: "*-start requires *-done as input"; the importer crashed on a
        # recv's tuple read), so their order is left to XLA (and checked after compiling)
        chain = [i for i in communicating_instrs(comp, comm) if i.opcode not in ASYNC_OPCODES]
        for prev, cur in zip(chain, chain[1:]):
            target, x = _array_operand(prev, cur, defs)
            leaf, leaf_lines = _array_leaf(prev, f"%{ORDER}{n + 1}.prev", cur.indent)
            if target is None or leaf is None or target.line in new:
                continue
            n += 1
            x_shape = _default_layout(defs[x].shape)
            leaf_shape = _default_layout(leaf[1])
            before.setdefault(target.line, []).extend(leaf_lines + [
                f"{target.indent}%{ORDER}{n} = {x_shape} custom-call(%{x}, {leaf[0]}), "
                f'custom_call_target="{CALLBACK_TARGET[platform]}", operand_layout_constraints={{{x_shape}, {leaf_shape}}}, '
                f"custom_call_has_side_effect=true, api_version=API_VERSION_TYPED_FFI, "
                f"backend_config={{index = {index} : ui64}}"])
            index += 1
            inside = re.sub(rf"%{re.escape(x)}(?![\w.\-])", f"%{ORDER}{n}", target.inside, count=1)
            new[target.line] = render(target, inside=inside)
    lines = text.split("\n")
    out = []
    for i, line in enumerate(lines):
        out += before.get(i, [])
        out.append(new.get(i, line))
    return "\n".join(out)


def _array_operand(prev, cur, defs: dict):
    """(the instruction to rewrite, the array operand of it to route through the
    edge): cur and its first array operand, or, when cur's first operand is a
    tuple made by a `tuple` instruction of this computation (a while's state),
    that instruction and its first array operand; (None, None) otherwise."""
    for candidate in (cur, defs.get(cur.operands[0]) if cur.operands else None):
        if candidate is None or (candidate is not cur and (candidate.opcode != "tuple" or candidate.line < prev.line)):
            continue  # (the edge is inserted before the instruction rewritten, which must follow prev)
        for o in candidate.operands:
            if o in defs and array_shape(defs[o].shape) is not None:
                return candidate, o
            if candidate is cur:
                break  # cur's first operand is not an array: look through its tuple
    return None, None


def _array_leaf(prev, name: str, indent: str):
    """((value, shape), lines defining it): prev's result, or the first array
    inside it when it is a tuple (get-tuple-element at index 0, repeated);
    (None, []) for a result with no array (a token, an empty tuple)."""
    shape, value, lines, depth = prev.shape, f"%{prev.name}", [], 0
    while shape.startswith("("):
        parts = split_top(re.sub(r"/\*index=\d+\*/", "", shape[1:-1]))
        if not parts:
            return None, []
        depth += 1
        element = f"{name}.{depth}" if depth > 1 else name
        lines.append(f"{indent}{element} = {parts[0]} get-tuple-element({value}), index=0")
        shape, value = parts[0], element
    if array_shape(shape) is None:
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
    new = {}
    for comp in computations(text).values():
        shapes = {i.name: i.shape for i in comp.instrs}
        for ins in comp.instrs:
            if ins.opcode != "all-reduce" or not ins.shape.startswith("(") or len(ins.operands) < 2:
                continue
            parts = [array_shape(shapes.get(o, "")) for o in ins.operands]
            if any(p is None for p in parts) or len({p[0] for p in parts}) != 1:
                continue
            element = parts[0][0]
            sizes = [math.prod(p[1]) for p in parts]
            total = sum(sizes)
            base = f"%{ins.name}"
            lines = [f"{ins.indent}{base}.flat.{k} = {element}[{n}] reshape(%{o})"
                     for k, (o, n) in enumerate(zip(ins.operands, sizes))]
            lines.append(f"{ins.indent}{base}.all = {element}[{total}] concatenate("
                         + ", ".join(f"{base}.flat.{k}" for k in range(len(sizes))) + "), dimensions={0}")
            lines.append(f"{ins.indent}{base}.sum = {element}[{total}] all-reduce({base}.all){ins.attrs}")
            offset = 0
            for k, (p, n) in enumerate(zip(parts, sizes)):
                lines.append(f"{ins.indent}{base}.part.{k} = {element}[{n}] slice({base}.sum), "
                             f"slice={{[{offset}:{offset + n}]}}")
                lines.append(f"{ins.indent}{base}.out.{k} = {_array_text(element, p[1])} reshape({base}.part.{k})")
                offset += n
            shape = "(" + ", ".join(_array_text(element, p[1]) for p in parts) + ")"
            lines.append(render(ins, opcode="tuple", shape=shape, attrs="",
                                inside=", ".join(f"{base}.out.{k}" for k in range(len(parts)))))
            new[ins.line] = "\n".join(lines)
    return _lines_replaced(text, new)


# ----------------------------------------------------------------------------- host callbacks
_CALLBACK_TARGETS = (*CALLBACK_TARGET.values(), "xla_python_cpu_callback", "xla_python_gpu_callback")


def host_callbacks(text: str) -> dict[int, tuple[str, list[tuple[str, tuple[int, ...]]]]]:
    """Index -> (instruction name, result arrays (element type, dims)) of each
    host callback the module calls (`jax.debug.print`, `io_callback`:
    `custom-call`s to xla_ffi_python_cpu_callback with `backend_config={index = K
    : ui64}`). The index points into the callback list of the process that
    compiled the module, which is gone: without a callable at each index the run
    crashes (SIGSEGV, measured), so the worker supplies one per index."""
    out: dict[int, tuple] = {}
    for comp in computations(text).values():
        for ins in comp.instrs:
            if ins.opcode != "custom-call":
                continue
            target = ins.attr("custom_call_target") or ""
            config = ins.attr("backend_config") or ""
            m = re.search(r"index\s*=\s*(\d+)", config)
            if target.strip('"') not in _CALLBACK_TARGETS or not m:
                continue
            out[int(m.group(1))] = (ins.name, [(e, tuple(int(d) for d in dims.split(",") if d))
                                               for e, dims in re.findall(r"(\w+)\[([\d,]*)\]", ins.shape)])
    return out
