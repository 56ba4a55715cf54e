"""Which collective executions meet, and what each of them computes (issue 23).

XLA's runtime meets collectives by kind, channel and device list, and JAX gives
every collective channel 1: ops in the two branches of a `case`, executions in
different iterations of a loop, ops of the programs of different hosts meet
whenever they share that key, the k-th execution of the key on each member
with the k-th on the others (model.py). Where the executions that meet are
*different* (another op, or the same op at another iteration), what they
compute can differ:

* `computes(op)`: what the agreement check compares: the kind, the reduction
  computation, the operand and result types, the pairs, the dimensions;
* `operand_fingerprint(op)`: where its operands come from, as a digest of the
  ops that compute them (their names, constants' values, to a small depth; value
  names and locations left out), so that `psum(x)` and `psum(3 * x)` differ and
  the same expression in two branches (or two hosts' programs) does not;
* `meetings(tr, facts)`: the executions that meet although they are different
  steps, found on the class quotient (one entry per (key, rank), not per
  process), with the processes on each side.

What the runtimes then do (measured in corpus/meets and corpus/hosts, see
docs/hosts.md) is worded by the rules that read these (rules/meets.py, the
hosts decision in merge_hosts.py).
"""
from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field

from ..lazy_numpy import np  # imported on first use (lazy_numpy.py)

from ...ir.core import Block, Operation
from ..semantics import BlockFlow, int_attr, source_target_pairs
from ..tracer.structure import collective_kind, collective_op
from ..tracer.trace import Step, Trace
from .model import Facts, key_of, rendezvous

ISSUES = ("collective", "start", "permute")
"""The roles whose execution is a rendezvous under XLA's matching."""

DIMENSIONS = ("all_gather_dim", "scatter_dimension", "split_dimension", "concat_dimension", "split_count")
"""The integer attributes that say how a collective lays its data out."""

MAX_MEETINGS = 256
"""Meetings collected per trace (the rules report a few; a loop over all-distinct
classes could otherwise list one per iteration and class)."""
MAX_SIDES = 64
"""Sides kept per meeting (the classes at one (key, rank) slot)."""

FINGERPRINT_DEPTH = 2
"""How far back an operand's computation is read for its fingerprint (constants
are read whole wherever they are met: psum(2 x) and psum(3 x) differ)."""


@dataclass(frozen=True)
class Computes:
    """What a collective computes, as compared where executions meet."""

    kind: str
    reduce: str | None = None
    """The reduction: the one op of a simple body ("add", "maximum"), else a digest
    of the body ("region:1f2e..."); None for a kind without one."""
    operands: tuple[str, ...] = ()
    results: tuple[str, ...] = ()
    pairs: tuple[tuple[int, int], ...] | None = None
    dims: tuple[tuple[str, int], ...] = ()

    def element(self, k: int) -> "Computes":
        """The k-th operand of a variadic all_reduce as a collective of its own (gloo
        runs a tuple all-reduce as one all-reduce per element, in order)."""
        return Computes(self.kind, self.reduce, self.operands[k:k + 1], self.results[k:k + 1], self.pairs,
                        self.dims)

    def differences(self, other: "Computes") -> list[str]:
        """The fields that differ: "reduction", "operand types", "result types",
        "pairs", "dimensions" (the kind is part of the matching key)."""
        out = []
        if self.reduce != other.reduce:
            out.append("reduction")
        if self.operands != other.operands:
            out.append("operand types")
        if self.results != other.results and self.operands == other.operands:
            out.append("result types")
        if self.pairs != other.pairs:
            out.append("pairs")
        if self.dims != other.dims:
            out.append("dimensions")
        return out

    def to_json(self) -> dict:
        return {"kind": self.kind, "reduce": self.reduce, "operands": list(self.operands),
                "results": list(self.results), "pairs": [list(p) for p in self.pairs] if self.pairs is not None
                else None, "dims": [list(d) for d in self.dims]}

    @staticmethod
    def from_json(d: dict) -> "Computes":
        pairs = d.get("pairs")
        return Computes(str(d["kind"]), d.get("reduce"), tuple(d.get("operands") or ()), tuple(d.get("results") or ()),
                        tuple((int(s), int(t)) for s, t in pairs) if pairs is not None else None,
                        tuple((str(n), int(v)) for n, v in d.get("dims") or ()))


def reduction(op: Operation) -> str | None:
    """The reduction of a collective with a body: the name (after its dialect) of
    the body's one computing op on its two arguments, else a digest of the body's
    text (value names and locations left out); None without a body."""
    if not op.regions or not op.regions[0].blocks:
        return None
    block = op.regions[0].blocks[0]
    ops = block.operations
    if len(ops) == 2 and len(ops[0].operands) == 2 and ops[1].operands and ops[0].results and \
            ops[1].operands[0] is ops[0].results[0] and \
            {id(v) for v in ops[0].operands} == {id(a) for a in block.arguments}:
        return ops[0].name.rsplit(".", 1)[-1]
    text = op.module.source.text
    start = op.regions[0].blocks[0].operations[0].span.start if ops else op.span.start
    end = ops[-1].span.end if ops else op.span.end
    return "region:" + _digest(normalized(text[start:end]))


def computes(op: Operation) -> Computes:
    """What `op` (a communication op) computes, as the agreement check compares it."""
    inner = collective_op(op)
    kind = collective_kind(op)
    red = reduction(inner) if isinstance(inner, Operation) else None
    operands = tuple(str(t) for t in inner.operand_types)
    results = tuple(str(t) for t in inner.result_types)
    pairs = None
    if inner.attr("source_target_pairs") is not None:
        got = source_target_pairs(inner)
        pairs = tuple(got) if got is not None else ()
    dims = tuple((name, v) for name in DIMENSIONS if (v := int_attr(inner, name)) is not None)
    return Computes(kind, red, operands, results, pairs, dims)


# --------------------------------------------------------------------------- fingerprints
_SSA = re.compile(r"%[\w$.\-]+(?:#\d+)?")
_LOC = re.compile(r"\bloc\((?:[^()\"]|\"[^\"]*\"|\((?:[^()\"]|\"[^\"]*\")*\))*\)")
_METADATA = re.compile(r",?\s*metadata=\{[^{}]*\}")
_CONSTANTS = ("stablehlo.constant", "arith.constant", "hlo.constant", "stablehlo.iota")


def normalized(text: str) -> str:
    """Op text with value names, locations and HLO metadata left out (what two
    programs that compute the same thing write alike)."""
    if "loc(" in text:
        text = _LOC.sub("", text)
    if "metadata=" in text:
        text = _METADATA.sub("", text)
    return _SSA.sub("%", text)


def _digest(text: str) -> str:
    return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=8).hexdigest()


class _Scope:
    """One block as the fingerprints read it: its def-use (semantics.BlockFlow),
    the names its ops define, and what was read there, per depth."""

    __slots__ = ("block", "flow", "defs", "values", "ops", "places")

    def __init__(self, block: Block) -> None:
        self.block = block
        self.flow = BlockFlow(block)
        self.defs = self.flow.definers()
        self.values: list[dict[str, str]] = [{} for _ in range(FINGERPRINT_DEPTH + 1)]
        """Per depth: `%name` → where it comes from."""
        self.ops: list[dict[Operation, str]] = [{} for _ in range(FINGERPRINT_DEPTH + 1)]
        """Per depth: an op of the block → what it is, read that deep."""
        self.places: dict[str, int] | None = None
        """Each argument name → its place among the block's arguments (read once)."""


class Fingerprints:
    """Operand fingerprints of the ops of one module, read from the text (no header
    parse): each op's operands are the `%names` of its header, resolved in its
    block and the blocks around it (semantics.BlockFlow).

    `headers`: a constant met is also read through its header, so that what was
    read is on the record (the editor reuses a module rule's findings only when
    no header field it read changed: a rule must read a constant's value that
    way); a signature, which no editor reuses, reads the text alone."""

    def __init__(self, headers: bool = True) -> None:
        self.headers = headers
        self._scopes: dict[int, _Scope] = {}

    def _scope(self, block: Block) -> _Scope:
        got = self._scopes.get(id(block))
        if got is None:
            got = self._scopes[id(block)] = _Scope(block)
        return got

    def of(self, op: Operation) -> str:
        """The digest of where `op`'s operands come from."""
        inner = collective_op(op)
        target = inner if isinstance(inner, Operation) else op
        return self.join(self.operands(op, len(target.header.operands)))

    @staticmethod
    def join(parts: list[str]) -> str:
        """One digest of some operands' provenances (`operands`)."""
        return _digest("|".join(parts))

    def operands(self, op: Operation, count: int) -> list[str]:
        """Where each of the first `count` `%name`s of `op`'s header comes from (its
        operands, in order: HLO writes `to_apply=%f` after them), FINGERPRINT_DEPTH
        ops deep."""
        inner = collective_op(op)
        target = inner if isinstance(inner, Operation) else op
        block = target.parent
        if block is None:
            return [target.name]
        scope = self._scope(block)
        value = self._value
        return [value(n, scope, FINGERPRINT_DEPTH) for n in scope.flow.operand_names(target)[:count]]

    def _value(self, name: str, scope: _Scope, depth: int) -> str:
        """Where `name`, mentioned in `scope`'s block, comes from, read `depth` deep."""
        op = scope.defs.get(name)
        if op is not None:
            return self._op(scope, op, depth)
        memo = scope.values[depth]
        got = memo.get(name)
        if got is None:
            got = memo[name] = self._outside(name, scope, depth)
        return got

    def _outside(self, name: str, scope: _Scope, depth: int) -> str:
        """`_value` of a name the block's ops do not define: one result of several
        (`%0#1`), an argument of the block, or a value of a block around it."""
        base, _, index = name.partition("#")
        while True:
            op = scope.defs.get(base)
            if op is not None:
                got = self._op(scope, op, depth)
                return got + "#" + index if index else got
            region = scope.block.parent
            owner = region.parent if region is not None else None
            if not isinstance(owner, Operation):
                break
            if owner.name != "func.func":
                # an argument of a region's block: by its place (two branches, or two
                # hosts, name their arguments apart; a function's are %argN anyway)
                place = self._argument_place(scope, base)
                if place is not None:
                    return f"argument {place} of a {owner.name} region"
            if owner.parent is None:
                break
            scope = self._scope(owner.parent)
        return "outer " + name  # an argument of the function (or a name from outside)

    def _argument_place(self, scope: _Scope, name: str) -> int | None:
        """Where `name` is among the block's arguments. A signature reads the names where
        the op declares them (`_declared_arguments`): the header of an op with a
        sharding per argument for thousands of them is then not parsed for a
        position (docs/performance.md, "What check_hosts costs"). A lint reads the
        parsed arguments, on the record."""
        if scope.places is None:
            names = _declared_arguments(scope.block, scope.flow.text) if not self.headers else None
            if names is None:
                names = [a.name for a in scope.block.arguments]
            scope.places = {}
            for i, n in enumerate(names):
                scope.places.setdefault(n, i)
        return scope.places.get(name)

    def _op(self, scope: _Scope, op: Operation, depth: int) -> str:
        """An op of the block read `depth` deep: its name and, nested, what its
        operands are (digested once, by `join`, where a fingerprint is asked for)."""
        flow = scope.flow
        name = op.name
        if depth <= 0 and name not in _CONSTANTS:
            return name
        memo = scope.ops[depth]
        got = memo.get(op)
        if got is not None:
            return got
        if name in _CONSTANTS:
            if self.headers:
                op.attr("value")  # on the record (see the class docstring)
            got = memo[op] = "const " + _constant_digest(flow.text, op)
        else:
            d = depth - 1
            names = flow.operand_names(op)
            if d == 0:  # (what `_value` says at depth 0, without its memo: most of the lookups)
                defs = scope.defs
                parts = []
                for n in names:
                    o = defs.get(n)
                    part = o.name if o is not None else None
                    parts.append(part if part is not None and part not in _CONSTANTS else self._value(n, scope, 0))
            else:
                parts = [self._value(n, scope, d) for n in names]
            got = memo[op] = name + "(" + ",".join(parts) + ")"
        return got


_ARGUMENT_DECL = re.compile(r"(%[\w$.\-]+)\s*:")


def _declared_arguments(block: Block, text: str) -> list[str] | None:
    """The names of an entry block's arguments as its op declares them just before
    the region (`(%arg1: tensor<2xf32>, ...) {`, as sdy.manual_computation and the
    reducers print them), read from the text; None where they are not written so."""
    region = block.parent
    owner = region.parent
    if block.label_span is not None or not isinstance(owner, Operation) or region.blocks[0] is not block:
        return None
    lo, j = owner.span.start, region.span.start - 1
    while j > lo and text[j].isspace():
        j -= 1
    if text[j] != ")":
        return None
    # Back to the matching "(", from bracket to bracket (a header can be 100k characters).
    depth, k = 1, j
    opening, closing = text.rfind("(", lo, j), text.rfind(")", lo, j)
    while depth:
        if opening < 0:
            return None
        if opening > closing:
            depth, k = depth - 1, opening
            opening = text.rfind("(", lo, opening)
        else:
            depth += 1
            closing = text.rfind(")", lo, closing)
    return _ARGUMENT_DECL.findall(text, k, j) or None


def _constant_digest(text: str, op: Operation) -> str:
    """A constant's value and type as written (after its `=`, before its loc):
    hashed as is, however long (a weight can be megabytes of text)."""
    start, end = op.span.start, op.span.end
    eq = text.find("=", start, min(end, start + 200))
    start = eq + 1 if eq >= 0 and op.result_names else start
    tail = text.rfind(" loc(", max(start, end - 300), end)
    end = tail if tail >= 0 else end
    return hashlib.blake2b(text[start:end].encode("utf-8", "surrogatepass"), digest_size=8).hexdigest()


# --------------------------------------------------------------------------- meetings
@dataclass
class Side:
    """One execution at a meeting: the step (None for a branch the tracer did not
    follow: see Trace.alternatives), its op, and the processes that run it there."""

    op: Operation
    step: Step | None
    processes: np.ndarray | None
    """Flattened ids; None: whichever processes take that branch (per-device data)."""
    where: str = ""
    """The step's context ("iteration 2 of the while at line 11"), or the branch."""


@dataclass
class Meeting:
    """Executions that meet although they are different steps: the n-th execution
    of `key` on the processes of each side."""

    key: tuple
    rank: int
    sides: list[Side]
    data_dependent: bool = False
    """The sides are the branches of a `case` on per-device data (Trace.alternatives):
    which processes run which is the data's choice."""
    groups_shared: list[tuple[int, int]] = field(default_factory=list)
    """Pairs of sides (indices) whose processes share a process group."""


def meetings(tr: Trace, facts: Facts) -> list[Meeting]:
    """The meetings of different executions under XLA's matching, on the class
    quotient (see the module docstring)."""
    out: list[Meeting] = []
    for alt in tr.alternatives:
        sides = [Side(alt.step.op, alt.step, None, "branch 0")]
        sides += [Side(op, None, None, f"branch {b}") for b, op in alt.others]
        out.append(Meeting(key_of(facts.info(alt.step.op), "xla"), -1, sides, True,
                           [(0, k) for k in range(1, len(sides))]))
    if len(tr.classes) < 2:
        return out
    slots: dict[tuple, dict[int, list[int]]] = {}
    for ci, cls in enumerate(tr.classes):
        counters: dict[tuple, int] = {}
        for k in cls.steps:
            st = tr.steps[k]
            if st.role not in ISSUES:
                continue
            info = facts.info(st.op)
            if info.problem or info.invalid or info.external or not rendezvous(info, "xla"):
                continue
            key = key_of(info, "xla")
            n = counters[key] = counters.get(key, -1) + 1
            slots.setdefault((key, n), {}).setdefault(k, []).append(ci)
    for (key, n), by_step in slots.items():
        if len(by_step) < 2:
            continue
        sides = []
        for k, cis in list(by_step.items())[:MAX_SIDES]:
            st = tr.steps[k]
            procs = np.concatenate([tr.classes[c].processes for c in cis])
            sides.append(Side(st.op, st, np.sort(procs), st.where()))
        info = facts.info(sides[0].op)
        if info.group_of is None:
            continue
        gsets = [set(np.unique(info.group_of[s.processes]).tolist()) - {-1} for s in sides]
        shared = [(i, j) for i in range(len(sides)) for j in range(i + 1, len(sides)) if gsets[i] & gsets[j]]
        if shared:
            out.append(Meeting(key, n, sides, False, shared))
            if len(out) >= MAX_MEETINGS:
                break
    return out
