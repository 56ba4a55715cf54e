"""What the scanner already tells about communication, before anything is traced:
which ops communicate and how (`comm_role`, `collective_kind`), which functions
communicate, which communication sits under control flow, whether there is
point-to-point traffic (`structure(module)`, `Structure.uniform`). The facts
of each op name are the op catalog's (ir/catalog.py); the per-process tracer
(tracer.py) and the process model read what this module derives from them.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from ...ir.attributes import DictAttr, StringAttr
from ...ir.core import Module, Operation, callee
from ...ir.catalog import (BRANCHES, CALL, COLLECTIVE, COMMUNICATING, CUSTOM_CALL_KINDS, LOOP, MODULE, ONCE, PERMUTE,
                           RECV, SEND, TERMINATORS, base_kind, info, names)

# --------------------------------------------------------------------------- op names
# What each op does is the op catalog's (ir/catalog.py); these are the sets the walk asks.
CASE_OPS = names(regions=BRANCHES)
WHILE_OPS = names(regions=LOOP)
CALL_OPS = names(regions=CALL)
INLINE_OPS = names(regions=ONCE)
"""Ops that run their one region once, in place."""
TRANSPARENT_OPS = names(regions=MODULE)
RETURN_OPS = TERMINATORS
_COMM_NAMES = COMMUNICATING | {"stablehlo.custom_call"}
"""Every op name comm_role() can say yes to (a set test before the string work)."""


def async_inner(op: Operation) -> Operation | None:
    """The collective an `async_start` runs (the first collective in its body), else None."""
    for region in op.regions:
        for block in region.blocks:
            for inner in block.operations:
                if info(inner.name).role in (COLLECTIVE, PERMUTE):
                    return inner
    return None


def comm_role(op: Operation) -> str | None:
    """What a communication op does to its process (ir/catalog.py's roles):
    "collective" (rendezvous of its group), "permute" (collective_permute), "send",
    "recv", "start" (an async collective starts), "done" (waits for a started one);
    None for other ops. Reads only the op name (and an async_start's body, a
    custom_call's target)."""
    name = op.name
    if name == "stablehlo.custom_call":
        return COLLECTIVE if custom_collective(op) is not None else None
    facts = info(name)
    if facts.body_kind:
        return facts.role if async_inner(op) is not None else None
    return facts.role


class CustomCollective:
    """A collective `custom_call` seen as the collective it runs: `attr()` reads the
    `backend_config` dictionary, where JAX writes `replica_groups` and `channel_id`
    (read as the channel handle); everything else is the op's own (name, span,
    module), so messages point at the custom_call the user wrote."""

    __slots__ = ("op", "kind", "_config")

    def __init__(self, op: Operation, kind: str, config: DictAttr):
        self.op, self.kind, self._config = op, kind, config

    def attr(self, name: str):
        return self._config.get("channel_id" if name == "channel_handle" else name)

    def __getattr__(self, name: str):
        return getattr(self.op, name)


def custom_collective(op: Operation) -> CustomCollective | None:
    """The collective a `stablehlo.custom_call` runs (a custom_call kind of the catalog), else None.
    The header is parsed only when its text names such a target (JAX exports hold
    many `@Sharding` custom_calls that must stay unparsed)."""
    if op.name != "stablehlo.custom_call":
        return None
    head = _text_head(op)
    if not any(k in head for k in CUSTOM_CALL_KINDS):
        return None
    target = op.attr("call_target_name")
    config = op.attr("backend_config")
    if not (isinstance(target, StringAttr) and target.value in CUSTOM_CALL_KINDS):
        return None
    # A backend_config that is no dictionary (a string, from an older JAX) names
    # no groups: the view then reads none, i.e. every process of the axis.
    return CustomCollective(op, target.value, config if isinstance(config, DictAttr) else DictAttr(()))


def collective_op(op: Operation) -> Operation:
    """The op whose attributes describe the communication: an async_start's inner
    collective, a collective custom_call's view, else the op itself."""
    if info(op.name).body_kind:  # (stablehlo.async_start: what it runs is read from its body)
        return async_inner(op) or op
    if op.name == "stablehlo.custom_call":
        return custom_collective(op) or op  # type: ignore[return-value]
    return op


def collective_kind(op: Operation) -> str:
    """`all_reduce`, `collective_permute`, `send`, ... for any communication op."""
    op = collective_op(op)
    if isinstance(op, CustomCollective):
        return op.kind
    return base_kind(op.name)


def op_label(op: Operation) -> str:
    """How messages, traces and pictures name an op: the name after its dialect
    (`all_reduce`, `send`), but a collective custom_call by the collective it runs
    (`ragged_all_to_all`), and an op read from XLA's HLO text by the opcode the
    line shows (`all-reduce`, `conditional`, `while`, `recv-done`). A label is for
    the reader; what an op does is asked of the catalog by its name (base_kind)."""
    if op.module.front_end == "hlo":
        ins = getattr(op, "instruction", None)
        if ins is not None:
            return ins.opcode
    if op.name == "stablehlo.custom_call":
        return collective_kind(op)
    return op.name.rsplit(".", 1)[-1]


# --------------------------------------------------------------------------- structure
_FUNC_NAME = re.compile(r'func\.func\s+(?:(public|private|nested)\s+)?@("[^"]*"|[\w$.\-]+)')
_CALLEE = re.compile(r'callee\s*=\s*@("[^"]*"|[\w$.\-]+)|\bcall\s+@("[^"]*"|[\w$.\-]+)')


def _text_head(op: Operation, limit: int = 600) -> str:
    src = op.module.source.text
    end = op.span.end if op.header_end < 0 else op.header_end
    return src[op.span.start:min(end, op.span.start + limit)]


def func_name(op: Operation) -> tuple[str | None, str | None]:
    """(name, visibility) of a func.func, read from its text (no header parse:
    JAX's @main header can hold thousands of arguments); from its header when the
    text is not MLIR's (a function lowered from an HLO computation)."""
    m = _FUNC_NAME.search(_text_head(op, 400)) if op.module.front_end == "stablehlo" else None
    if m is None:
        vis = op.attr("sym_visibility")
        return op.symbol_name, vis.value if isinstance(vis, StringAttr) else None
    return m.group(2).strip('"'), m.group(1)


def call_target(op: Operation) -> str | None:
    """The callee of a call, read from its text (MLIR's `callee = @f` / `call @f`),
    else from its header's `callee` (a call lowered from HLO's `call` or `fusion`)."""
    m = _CALLEE.search(_text_head(op)) if op.module.front_end == "stablehlo" else None
    if m is None:
        return callee(op)
    return (m.group(1) or m.group(2)).strip('"')


@dataclass
class Structure:
    """What op names alone say about a module's communication."""

    funcs: dict[str, Operation]
    entries: list[str]
    """Functions a run starts in: `main`, else the only public function, else every
    function no other function calls."""
    comm_ops: list[Operation]
    """Communication ops in functions reachable from the entries (inner ops of
    async_start excluded)."""
    comm_funcs: set[str]
    """Functions that communicate, directly or through calls."""
    callees: dict[int, str]
    """id(func.call op) → callee name."""
    relevant: set[int]
    """id() of every op the tracer must execute rather than skip: control flow,
    calls and inline regions that contain communication."""
    conditional: list[Operation]
    """Communication ops (or calls to communicating functions) under control flow."""
    opaque: list[Operation]
    """Communication ops inside regions the analysis does not model (reduce bodies, ...)."""
    p2p: list[Operation]
    """send / recv ops this program matches itself: every one that is not a host
    transfer (a channel declared external is the deadlock model's business)."""
    external: list[Operation] = field(default_factory=list)
    """send / recv ops that talk to the host (host transfers)."""
    outline: dict[int, list[Operation]] = field(default_factory=dict)
    """id(block) → the block's communication ops, calls and ops with regions, in
    order (blocks with none are absent): what a walk of the program's
    communication visits, without stepping over the block's other ops (a
    training step's block has 300k of them, a few thousand of these)."""

    @property
    def uniform(self) -> bool:
        """Every process runs the same communication ops in the same order and there
        is no point-to-point traffic: deadlock-free by construction (each collective's
        group arrives together, and every start precedes its done on every process)."""
        return not self.conditional and not self.opaque and not self.p2p

    @property
    def communicates(self) -> bool:
        return bool(self.comm_ops)


_PLAIN, _COND, _OPAQUE = 0, 1, 2


def structure(module: Module) -> Structure:
    """One name-only walk of the module (no header is parsed)."""
    funcs: dict[str, Operation] = {}
    visibility: dict[str, str | None] = {}
    comm: list[tuple[Operation, str | None, int]] = []
    calls: list[tuple[Operation, str | None, int]] = []
    outline: dict[int, list[Operation]] = {}
    if module.root is None:
        return Structure({}, [], [], set(), {}, set(), [], [], [], [])
    # Only ops with regions are pushed; leaf ops are checked by name in place
    # (a 30 MB module is ~300k ops, a few thousand of them with regions).
    names = _COMM_NAMES
    stack: list[tuple[Operation, str | None, int]] = [(module.root, None, _PLAIN)]
    while stack:
        op, fn, flag = stack.pop()
        name = op.name
        if name == "func.func":
            fname, vis = func_name(op)
            if fname is not None:
                funcs.setdefault(fname, op)
                visibility.setdefault(fname, vis)
            fn, flag = fname, _PLAIN
        elif name in CASE_OPS or name in WHILE_OPS:
            flag = max(flag, _COND)
        elif name in INLINE_OPS or name in TRANSPARENT_OPS or op is module.root:
            pass
        else:
            flag = _OPAQUE
        for region in op.regions:
            for block in region.blocks:
                kept: list[Operation] | None = None
                for child in block.operations:
                    cname = child.name
                    if cname in names and comm_role(child) is not None:
                        comm.append((child, fn, flag))
                    elif cname in CALL_OPS:
                        calls.append((child, fn, flag))
                    elif child.regions:
                        stack.append((child, fn, flag))
                    else:
                        continue
                    if kept is None:
                        kept = outline[id(block)] = []
                    kept.append(child)

    callees: dict[int, str] = {}
    edges: dict[str | None, list[str]] = {}
    for op, fn, _flag in calls:
        target = call_target(op)
        if target is not None:
            callees[id(op)] = target
            edges.setdefault(fn, []).append(target)
    called = {t for ts in edges.values() for t in ts}
    if "main" in funcs:
        entries = ["main"]
    else:
        public = [n for n in funcs if visibility.get(n) != "private"]
        entries = public if len(public) == 1 else [n for n in funcs if n not in called]
    reachable: set[str] = set()
    todo = list(entries)
    while todo:
        n = todo.pop()
        if n in reachable or n not in funcs:
            continue
        reachable.add(n)
        todo.extend(edges.get(n, ()))

    comm_funcs = {fn for op, fn, _ in comm if fn in reachable}
    changed = True
    while changed:  # callers of communicating functions communicate
        changed = False
        for op, fn, _flag in calls:
            if fn in reachable and fn not in comm_funcs and callees.get(id(op)) in comm_funcs:
                comm_funcs.add(fn)  # type: ignore[arg-type]
                changed = True

    relevant: set[int] = set()
    conditional: list[Operation] = []
    opaque: list[Operation] = []
    comm_ops: list[Operation] = []
    p2p: list[Operation] = []
    marks: list[tuple[Operation, int]] = []
    for op, fn, flag in comm:
        if fn in reachable:
            comm_ops.append(op)
            marks.append((op, flag))
            if info(op.name).role in (SEND, RECV):
                p2p.append(op)
    p2p, external = _split_external(p2p)
    for op, fn, flag in calls:
        if fn in reachable and callees.get(id(op)) in comm_funcs:
            relevant.add(id(op))
            marks.append((op, flag))
    for op, flag in marks:
        if flag == _COND:
            conditional.append(op)
        elif flag == _OPAQUE:
            opaque.append(op)
        for anc in op.ancestors():
            if anc.name == "func.func" or id(anc) in relevant:
                break
            relevant.add(id(anc))
    return Structure(funcs, entries, comm_ops, comm_funcs, callees, relevant, conditional, opaque, p2p, external,
                     outline)


def structure_of(module: Module, cache: dict | None = None, key: object = None) -> Structure:
    """`structure(module)`, computed once per lint when `cache` (the lint's
    Context.cache) and its `key` are given: the deadlock verdict and the
    communication table both read it, and on a 40 MB module the walk takes a few
    tenths of a second."""
    if cache is None or key is None:
        return structure(module)
    got = cache.get(key)
    if got is None or got[0] is not module:
        got = cache[key] = (module, structure(module))
    return got[1]


def _split_external(p2p: list[Operation]) -> tuple[list[Operation], list[Operation]]:
    """(matched, external) send/recv ops: host transfers are external (their peer
    is the host). Every other send/recv names devices of this program in its
    source_target_pairs and is matched here (SPEC-NOTES §5); channels that talk to
    another program are declared with the `external-channels` option, which the
    deadlock model applies (process_model/model.py)."""
    from ..semantics import flag

    matched, external = [], []
    for op in p2p:
        (external if flag(op, "is_host_transfer") else matched).append(op)
    return matched, external
