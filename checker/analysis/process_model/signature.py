"""A host's communication signature: what one host's program communicates, per
class of its devices, small enough to exchange between the processes of a job
(issue 23; the decision that reads it is merge_hosts.py).

A multi-controller job runs one program per host: each host traces and
compiles its own, and each of its devices runs it. `signature_of(module,
devices)` traces the module over the host's devices only (the tracer's
`processes`) and keeps, instead of the text:

* `ops`: each communication op the devices issue (`SigOp`): its kind and role,
  channel, process groups (XLA's device lists, in a shared `groups` table) or
  pairs (flattened ids), what it computes (meets.Computes), its operand
  fingerprint (meets.Fingerprints), where it is (line and column of the host's
  text, the Python line of its loc() or HLO metadata), and what XLA's scheduler
  may do with it (the computation it sits in, its position there, the latest
  communication or region op of that computation it depends on). A variadic
  all_reduce is one op per element: gloo runs a tuple all-reduce as one
  all-reduce per element, in order (measured: corpus/hosts/python_if_process0);
* `steps`: one per execution (op, block run, where: "iteration 2 of the while
  at line 11"); `classes`: the host's devices with the same steps, as id ranges,
  each with its steps (and the reason, when its devices stop being followed);
* `program`: a digest of the normalized text (value names, locations and HLO
  metadata left out): hosts with the same digest run the same program.

`shape_digest()` is the digest of everything but the devices: hosts with the
same shape share one set of steps in the merged model (merge_hosts.py), so a job of
identical hosts is decided on the classes of one program, whatever its size.
The JSON form (`to_json` / `from_json`) is what `shlo_lint.check_hosts` puts
into the coordination service's key-value store.
"""
from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass, field
from typing import Any

from ..lazy_numpy import np  # imported on first use (lazy_numpy.py)

from ...ir.core import LocAlias, Module, Operation, python_frames
from ...ir.memory import gc_paused
from ..semantics import BlockFlow, Grid, control_predecessors, grid_of
from ..tracer.structure import CALL_OPS, Structure, collective_kind, comm_role, op_label, structure
from ..tracer.tracer import TraceLimit, trace
from .decide import options_of
from .meets import Computes, Fingerprints, computes, normalized
from .model import Facts
from .schedule import computation_digest

FORMAT = "shlo-lint/hosts-signature"
VERSION = 1
ISSUES = ("collective", "start", "permute", "send", "recv")


class SignatureError(ValueError):
    """A signature that cannot be read (another version, malformed JSON)."""


@dataclass(slots=True)
class SigOp:
    """One communication op of a host's program (or one element of a variadic
    all_reduce), as the hosts decision reads it. Stands where the process model
    reads an Operation (its facts come from hosts.SignatureFacts)."""

    index: int
    kind: str
    role: str
    channel: int | None
    computes: Computes
    operand: str
    """The operand fingerprint (meets.Fingerprints)."""
    line: int
    column: int
    """Where its name is written in the host's text (1-based)."""
    label: str
    """"all_reduce", "all_reduce (element 2 of 2)"."""
    python: str | None = None
    """"step.py:41" (the innermost frame of its loc() / metadata, the file as written
    there), when it has one."""
    groups: int | None = None
    """Index into Signature.groups: XLA's device lists, flattened ids (rendezvous kinds)."""
    pairs: tuple[tuple[int, int], ...] | None = None
    """(source, target) in flattened ids (permutes, sends, recvs)."""
    block: str = ""
    """The digest of the computation it sits in (schedule.computation_digest; only
    where the scheduler may move it)."""
    pos: int = -1
    """Its position in that computation."""
    dep: int = -1
    """The position of the latest communication or region op of that computation
    it depends on (-1: none): it may be issued before any op after that one."""
    problem: str | None = None
    """Why the model cannot use it (a form it does not read)."""
    external: bool = False
    width: int = 1
    """The length of its name in the text."""
    host: int = -1
    """Which host's program it belongs to (set by the decision)."""

    def where(self) -> str:
        """How messages name it: the Python line when known (`step.py:41`), else the
        line of its module."""
        if self.python:
            path, _, line = self.python.rpartition(":")
            return f"{path.rsplit('/', 1)[-1]}:{line}"
        return f"line {self.line}"

    def to_json(self) -> dict:
        d = {"kind": self.kind, "role": self.role, "channel": self.channel, "computes": self.computes.to_json(),
             "operand": self.operand, "line": self.line, "column": self.column, "label": self.label}
        for k in ("python", "groups", "problem"):
            if getattr(self, k) is not None:
                d[k] = getattr(self, k)
        if self.pairs is not None:
            d["pairs"] = [list(p) for p in self.pairs]
        if self.block:
            d.update(block=self.block, pos=self.pos, dep=self.dep)
        if self.external:
            d["external"] = True
        if self.width != 1:
            d["width"] = self.width
        return d

    @staticmethod
    def from_json(i: int, d: dict) -> "SigOp":
        pairs = d.get("pairs")
        return SigOp(i, str(d["kind"]), str(d["role"]), d.get("channel"), Computes.from_json(d["computes"]),
                     str(d.get("operand", "")), int(d.get("line", 0)), int(d.get("column", 0)),
                     str(d.get("label", d["kind"])), python=d.get("python"), groups=d.get("groups"),
                     pairs=tuple((int(s), int(t)) for s, t in pairs) if pairs is not None else None,
                     block=str(d.get("block", "")), pos=int(d.get("pos", -1)), dep=int(d.get("dep", -1)),
                     problem=d.get("problem"), external=bool(d.get("external", False)),
                     width=int(d.get("width", 1)))


@dataclass(slots=True)
class SigStep:
    """One execution: which op, in which run of its block, where."""

    op: int
    run: int
    where: str = ""


@dataclass
class SigClass:
    """Devices of the host that execute the same steps."""

    devices: np.ndarray
    """Flattened ids, ascending."""
    steps: list[int]
    end: str | None = None
    """Why its devices stop being followed after its last step (unresolved), or None."""


@dataclass
class Signature:
    program: str
    """Digest of the normalized program text."""
    name: str
    """The module's name (`jit_step`)."""
    front_end: str
    grid: tuple[int, int]
    """(num_replicas, num_partitions)."""
    devices: np.ndarray
    """The host's devices (flattened ids)."""
    ops: list[SigOp] = field(default_factory=list)
    groups: list[tuple[tuple[int, ...], ...]] = field(default_factory=list)
    steps: list[SigStep] = field(default_factory=list)
    classes: list[SigClass] = field(default_factory=list)
    scheduled: bool = False
    """The text fixes the issue order (scheduled HLO): no reordering is considered."""
    status: str | None = None
    """Why the program could not be traced (then it has no classes), or None."""

    core: str | None = None
    """The digest of the ops, groups and steps (computed once; a restriction shares
    them, and this, with the signature it restricts)."""

    def shape_digest(self) -> str:
        """A digest of everything but the devices (see the module docstring)."""
        if self.core is None:
            d = self.to_json()
            core = {k: d[k] for k in ("program", "name", "front_end", "grid", "ops", "groups", "steps", "scheduled")}
            core["status"] = self.status
            self.core = hashlib.blake2b(json.dumps(core, sort_keys=True).encode(), digest_size=16).hexdigest()
        shape = [self.core] + [[c.steps, c.end] for c in self.classes]
        return hashlib.blake2b(json.dumps(shape).encode(), digest_size=16).hexdigest()

    def to_json(self) -> dict:
        return {"format": FORMAT, "version": VERSION, "program": self.program, "name": self.name,
                "front_end": self.front_end, "grid": list(self.grid), "devices": _ranges(self.devices),
                "ops": [o.to_json() for o in self.ops], "groups": [[list(g) for g in gs] for gs in self.groups],
                "steps": [[s.op, s.run, s.where] for s in self.steps],
                "classes": [{"devices": _ranges(c.devices), "steps": c.steps, **({"end": c.end} if c.end else {})}
                            for c in self.classes],
                "scheduled": self.scheduled, **({"status": self.status} if self.status else {})}

    def dumps(self) -> str:
        return json.dumps(self.to_json(), separators=(",", ":"))

    @staticmethod
    def from_json(d: Any) -> "Signature":
        if not isinstance(d, dict) or d.get("format") != FORMAT:
            raise SignatureError("not a shlo-lint hosts signature")
        if d.get("version") != VERSION:
            raise SignatureError(f"signature version {d.get('version')!r}, this shlo-lint reads {VERSION}")
        try:
            return Signature(str(d["program"]), str(d.get("name", "")), str(d.get("front_end", "")),
                             (int(d["grid"][0]), int(d["grid"][1])), _from_ranges(d["devices"]),
                             [SigOp.from_json(i, o) for i, o in enumerate(d["ops"])],
                             [tuple(tuple(int(x) for x in g) for g in gs) for gs in d["groups"]],
                             [SigStep(int(s[0]), int(s[1]), str(s[2])) for s in d["steps"]],
                             [SigClass(_from_ranges(c["devices"]), [int(k) for k in c["steps"]], c.get("end"))
                              for c in d["classes"]],
                             bool(d.get("scheduled", False)), d.get("status"))
        except (KeyError, IndexError, TypeError, ValueError) as e:
            raise SignatureError(f"malformed signature: {e}") from None

    @staticmethod
    def loads(text: str) -> "Signature":
        try:
            return Signature.from_json(json.loads(text))
        except json.JSONDecodeError as e:
            raise SignatureError(f"malformed signature: {e}") from None


def restrict(sig: Signature, devices) -> Signature:
    """The signature of the same program run by `devices` only: each class keeps
    those of its devices (the ops and steps are shared, not copied). A host's
    signature is its program's signature over every device restricted to the
    host's: one signature per distinct program serves every host that runs it."""
    devs = np.unique(np.asarray(list(devices), dtype=np.int64))
    classes = []
    for c in sig.classes:
        keep = c.devices[np.isin(c.devices, devs)]
        if len(keep):
            classes.append(SigClass(keep, c.steps, c.end))
    sig.shape_digest()  # (computes `core` once, for every restriction)
    return Signature(sig.program, sig.name, sig.front_end, sig.grid, devs, sig.ops, sig.groups, sig.steps, classes,
                     sig.scheduled, sig.status, sig.core)


def _ranges(ids: np.ndarray) -> list[list[int]]:
    """Ascending ids as [first, last] runs (a 16k-device host is a few numbers)."""
    ids = np.asarray(ids, dtype=np.int64)
    if not len(ids):
        return []
    breaks = np.flatnonzero(np.diff(ids) != 1)
    starts = np.r_[ids[0], ids[breaks + 1]]
    ends = np.r_[ids[breaks], ids[-1]]
    return [[int(a), int(b)] for a, b in zip(starts, ends)]


def _from_ranges(runs) -> np.ndarray:
    if not runs:
        return np.zeros(0, dtype=np.int64)
    return np.concatenate([np.arange(int(a), int(b) + 1, dtype=np.int64) for a, b in runs])


def program_digest(text: str) -> str:
    """The digest of a program's text: hosts with the same digest run the same
    program (the same code traced on two hosts prints the same text, locations
    included; a raw digest costs a small part of reading the text)."""
    return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).hexdigest()


# --------------------------------------------------------------------------- building
@dataclass(slots=True)
class _Exec:
    """One execution the builder signs: op, role, block run, where (from the
    tracer's Step, or the straight walk of a uniform program)."""

    op: Operation
    role: str
    run: int
    where: str = ""
    reason: str | None = None


def signature_of(module: Module, devices, options: dict[str, Any] | None = None, *,
                 grid: Grid | None = None, struct: Structure | None = None,
                 digest: str | None = None) -> Signature:
    """The signature of `module` run by `devices` (flattened ids; None: every
    device of its grid). Never raises for a program: what cannot be traced is
    the signature's `status`.

    A uniform program (structure.Structure.uniform: no communication under
    control flow, no send/recv: a typical training step) is not traced: every
    device issues its collectives in program order, read by one walk through
    calls and inline regions. Otherwise the tracer runs over the host's devices."""
    opts = options_of(options)
    grid = grid or grid_of(module)
    name = _module_name(module)
    digest = digest or program_digest(module.source.text)
    if not grid.known:
        return Signature(digest, name, module.front_end, (0, 0), np.zeros(0, np.int64),
                         status="the process grid is unknown (no num_partitions / num_replicas)")
    n = grid.size
    if n > opts["max-processes"]:  # (a device list of that grid would not fit in memory)
        return Signature(digest, name, module.front_end, (grid.num_replicas, grid.num_partitions),
                         np.zeros(0, np.int64), status=f"the grid has {n} devices, more than max-processes = "
                                                       f"{opts['max-processes']}")
    devs = np.arange(n, dtype=np.int64) if devices is None else np.unique(np.asarray(devices, dtype=np.int64))
    sig = Signature(digest, name, module.front_end, (grid.num_replicas, grid.num_partitions), devs,
                    scheduled=bool(module.schedule_fixed))
    struct = struct or structure(module)
    if not struct.communicates:
        sig.classes = [SigClass(devs, [])]
        return sig
    if len(devs) and (devs[0] < 0 or devs[-1] >= n):
        sig.status = f"devices outside the grid of {n}"
        return sig
    # The signature makes ~10^5 small objects and frees none until it returns; with a
    # 30 MB module's IR alive, every collection they trigger re-walks millions of
    # objects (docs/performance.md, "What check_hosts costs").
    with gc_paused():
        return _fill(sig, module, grid, struct, devs, opts)


def _fill(sig: Signature, module: Module, grid: Grid, struct: Structure, devs, opts: dict[str, Any]) -> Signature:
    """`signature_of`'s communication: a uniform program walked, any other traced."""
    n = grid.size
    facts = Facts(grid, struct, opts["external-channels"])
    builder = _Builder(sig, facts, module)
    if struct.uniform and struct.entries:
        execs = _walk(struct)
        builder.fill(execs, [(devs, list(range(len(execs))))])
        return sig
    mask = np.zeros(n, dtype=bool)
    mask[devs] = True
    try:
        tr = trace(module, grid, struct, max_trips=opts["deadlock-max-trips"], max_steps=opts["deadlock-max-steps"],
                   skip=facts.silent, processes=mask)
    except TraceLimit as e:
        sig.status = str(e)
        return sig
    except (RecursionError, KeyError):
        sig.status = "the program could not be traced (no entry function, or it nests too deep)"
        return sig
    execs = [_Exec(st.op, st.role, st.block, st.where(), st.reason) for st in tr.steps]
    classes = []
    for cls in tr.classes:
        devices_of = cls.processes[mask[cls.processes]]
        if len(devices_of):
            classes.append((np.asarray(devices_of, dtype=np.int64), cls.steps))
    builder.fill(execs, classes)
    return sig


def _walk(struct: Structure) -> list[_Exec]:
    """The communication of a uniform program in the order every device issues
    it: the entry function's ops, through the calls and inline regions that
    communicate (nothing else can hold communication in a uniform program)."""
    out: list[_Exec] = []
    runs = [0]
    comm = set(struct.comm_ops)
    outline = struct.outline

    def walk(region, depth: int) -> None:
        if depth > 64:
            return
        runs[0] += 1
        run = runs[0]
        for block in region.blocks:
            for op in outline.get(id(block), ()):
                if op in comm:
                    role = comm_role(op)
                    if role is not None and role != "done":
                        out.append(_Exec(op, role, run))
                    continue
                if op.name in CALL_OPS:
                    callee = struct.callees.get(id(op))
                    func = struct.funcs.get(callee) if callee else None
                    if func is not None and callee in struct.comm_funcs and func.regions:
                        walk(func.regions[0], depth + 1)
                elif id(op) in struct.relevant:
                    for r in op.regions:
                        walk(r, depth + 1)

    entry = struct.funcs[struct.entries[0]]
    if entry.regions:
        walk(entry.regions[0], 0)
    return out


def _module_name(module: Module) -> str:
    m = re.search(r"^\s*(?:module\s+@([\w.$-]+)|HloModule\s+([\w.$-]+))", module.source.text[:2000], re.MULTILINE)
    return (m.group(1) or m.group(2)) if m else ""


_OWN_LOC = re.compile(r"loc\((#[\w.$-]+)\)\s*$")
BIG_BLOCK = 20_000
"""Ops in a computation past which the scheduler's facts (which collective may go
before which) are not read: reading them is linear in the computation, and the
signature of a 300k-op training step must cost a small part of its lint. Its
collectives are then taken to keep their order (SHLO512 is not offered there)."""


class _Builder:
    """Fills a signature: one SigOp per op and element (what it computes read once
    per distinct op text: a training step repeats the same collective thousands
    of times), a shared group table, the scheduler's facts per computation."""

    def __init__(self, sig: Signature, facts: Facts, module: Module):
        self.sig, self.facts, self.module = sig, facts, module
        self.op_index: dict[Operation, list[int]] = {}
        self.group_index: dict[tuple, int] = {}
        self.prints = Fingerprints(headers=False)
        self.frontiers: dict[int, dict[int, tuple[int, int]]] = {}
        self.digests: dict[int, str] = {}
        self.by_text: dict[str, dict] = {}
        self.by_op: dict[Operation, dict] = {}

    def fill(self, execs: list[_Exec], classes: list[tuple[np.ndarray, list[int]]]) -> None:
        sig = self.sig
        movable = self._movable(execs)
        step_index: dict[int, list[int]] = {}
        for k, ex in enumerate(execs):
            if ex.role in ("done", "unresolved"):
                continue
            if self._facts_of(ex.op)["silent"]:
                continue  # every group is one device: it meets nobody (the tracer leaves such ops out too)
            out = []
            for i in self._ops(ex.op, ex.role, movable):
                out.append(len(sig.steps))
                sig.steps.append(SigStep(i, ex.run, ex.where))
            step_index[k] = out
        for devices, steps in classes:
            ids: list[int] = []
            end = None
            for k in steps:
                ex = execs[k]
                if ex.role == "unresolved":
                    end = f"{op_label(ex.op)} at line {_line(ex.op)}: {ex.reason}"
                    break
                ids.extend(step_index.get(k, ()))
            sig.classes.append(SigClass(devices, ids, end))

    def _movable(self, execs: list[_Exec]) -> set[int]:
        """id() of the issued ops the scheduler may move: those sharing a block run
        with another issued op, in a computation small enough to read (a
        scheduled module: none)."""
        if self.sig.scheduled:
            return set()
        runs: dict[int, list] = {}
        for ex in execs:
            if ex.role in ISSUES and ex.role not in ("send", "recv"):
                runs.setdefault(ex.run, []).append(ex.op)
        out = set()
        for ops in runs.values():
            if len({id(o) for o in ops}) > 1:
                out.update(id(o) for o in ops if o.parent is not None and len(o.parent.operations) <= BIG_BLOCK)
        return out

    def _facts_of(self, op: Operation) -> dict:
        """What an op computes and how it meets, read once per distinct op text
        (value names, locations and metadata aside)."""
        got = self.by_op.get(op)
        if got is not None:
            return got
        src = self.module.source.text
        key = normalized(src[op.span.start:op.span.end])
        got = self.by_text.get(key)
        if got is not None:
            self.by_op[op] = got
            return got
        info = self.facts.info(op)
        kind = collective_kind(op)
        try:
            c = computes(op)
            problem = info.problem or info.invalid
        except Exception as e:  # noqa: BLE001 - a header the front end cannot read: the model says why
            c = Computes(kind)
            problem = f"{op_label(op)} at line {_line(op)} could not be read ({type(e).__name__})"
        groups = tuple(tuple(int(x) for x in g) for g in info.groups) if info.group_of is not None else None
        pairs = tuple((int(s), int(t)) for t, s in enumerate(info.source.tolist()) if s >= 0) \
            if info.source is not None else None
        silent = bool(info.grouped and not info.problem and not info.invalid and info.group_of is not None
                      and len(info.groups) == self.facts.n)
        got = self.by_op[op] = self.by_text[key] = {
            "kind": kind, "computes": c, "channel": info.channel, "groups": groups, "pairs": pairs,
            "problem": problem, "external": info.external, "silent": silent}
        return got

    def _where_written(self, op: Operation) -> tuple[int, int, int]:
        """(line, column, width) of the op's name, found in its text (no header parse)."""
        src = self.module.source.text
        at = src.find(op.name, op.span.start, min(op.span.end, op.span.start + 4000))
        if at < 0 or self.module.front_end != "stablehlo":
            span = op.name_span
            at, width = span.start, span.end - span.start
        else:
            width = len(op.name)
        line, col = self.module.source.line_col(at)
        return line, col, max(1, width)

    def _python(self, op: Operation) -> str | None:
        """The op's innermost Python frame, read from the `loc(#alias)` its text ends
        with where it has one (no header parse), else from its header."""
        src = self.module.source.text
        if self.module.front_end == "stablehlo":
            tail = max(op.span.start, op.span.end - 200)
            m = _OWN_LOC.search(src, tail, op.span.end)
            if m is not None:
                frames = python_frames(LocAlias(m.group(1)), self.module.loc_aliases)
            elif src.find("loc(", tail, op.span.end) < 0:
                return None  # printed without locations
            else:
                frames = op.python_frames  # an inline loc(...): its header says it
        else:
            frames = op.python_frames
        return f"{frames[0].file}:{frames[0].line}" if frames else None

    def _ops(self, op: Operation, role: str, movable: set[int]) -> list[int]:
        got = self.op_index.get(op)
        if got is not None:
            return got
        f = self._facts_of(op)
        c: Computes = f["computes"]
        line, col, width = self._where_written(op)
        problem = f["problem"]
        groups = pairs = None
        if not problem:
            pairs = f["pairs"]
            if f["groups"] is not None:
                groups = self.group_index.get(f["groups"])
                if groups is None:
                    groups = self.group_index[f["groups"]] = len(self.sig.groups)
                    self.sig.groups.append(f["groups"])
        block, pos, dep = self._schedule_facts(op) if id(op) in movable and op.parent is not None else ("", -1, -1)
        python, label, n = self._python(op), op_label(op), len(c.operands)
        prints = self.prints.operands(op, n)
        if c.kind == "all_reduce" and n > 1:
            elements = [(c.element(e), f"{label} (element {e + 1} of {n})", Fingerprints.join(prints[e:e + 1]))
                        for e in range(n)]
        else:
            elements = [(c, label, Fingerprints.join(prints))]
        ops = self.sig.ops
        out = self.op_index[op] = []
        for one, name, operand in elements:
            out.append(len(ops))
            ops.append(SigOp(len(ops), f["kind"], role, f["channel"], one, operand, line, col, name, python, groups,
                             pairs, block, pos, dep, problem, f["external"], width))
        return out

    def _schedule_facts(self, op: Operation) -> tuple[str, int, int]:
        """(digest of its computation, its position there, the position it depends on)."""
        block = op.parent
        table = self.frontiers.get(id(block))
        if table is None:
            table = self.frontiers[id(block)] = frontiers(block)
        digest = self.digests.get(id(block))
        if digest is None:
            digest = self.digests[id(block)] = computation_digest(block)
        pos, dep = table.get(id(op), (-1, -1))
        return digest, pos, dep


def frontiers(block) -> dict[int, tuple[int, int]]:
    """id(op) → (its position, the position of the latest communication or region
    op of the block it depends on, -1 for none), for the communication ops of a
    block: read from the text (semantics.BlockFlow), so a 300k-op block costs no
    header parse. Plain ops move with what needs them; communication and ops with
    regions do not (schedule.independent's reading); a control predecessor
    (HLO) orders like a use."""
    flow = BlockFlow(block)
    ops = block.operations
    out_dep = [-1] * len(ops)
    result: dict[int, tuple[int, int]] = {}
    for i, op in enumerate(ops):
        d = -1
        for k in flow.deps(i):
            if out_dep[k] > d:
                d = out_dep[k]
        if op.parsed_header is not None and op.attributes.get("hlo.control_predecessors") is not None:
            for p in control_predecessors(op):
                k = flow.index(p)
                d = max(d, out_dep[k], k if (comm_role(p) is not None or p.regions) else -1)
        barrier = comm_role(op) is not None or bool(op.regions)
        if comm_role(op) is not None:
            result[id(op)] = (i, d)
        out_dep[i] = i if barrier else d
    return result


def _line(op: Operation) -> int:
    return op.module.source.line_col(op.span.start)[0]
