"""A host's communication signature: what one host's program communicates, per
class of its devices, small enough to exchange between the processes of a job
(issue 23; the decision that reads it is hosts.py).

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
same shape share one set of steps in the merged model (hosts.py), so a job of
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

from ...ir.core import Module, Operation
from ..semantics import BlockFlow, Grid, control_predecessors, grid_of
from ..tracer.structure import Structure, collective_kind, comm_role, op_label, structure
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


@dataclass
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


@dataclass
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

    def shape_digest(self) -> str:
        """A digest of everything but the devices (see the module docstring)."""
        d = self.to_json()
        d.pop("devices", None)
        d["classes"] = [[c["steps"], c.get("end")] for c in d["classes"]]
        return hashlib.blake2b(json.dumps(d, sort_keys=True).encode(), digest_size=16).hexdigest()

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
    return Signature(sig.program, sig.name, sig.front_end, sig.grid, devs, sig.ops, sig.groups, sig.steps, classes,
                     sig.scheduled, sig.status)


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
    """The digest of a program's normalized text (meets.normalized): the same for
    two hosts that run the same program, whatever their locations."""
    return hashlib.blake2b(normalized(text).encode("utf-8", "surrogatepass"), digest_size=16).hexdigest()


# --------------------------------------------------------------------------- building
def signature_of(module: Module, devices, options: dict[str, Any] | None = None, *,
                 grid: Grid | None = None, struct: Structure | None = None,
                 digest: str | None = None) -> Signature:
    """The signature of `module` run by `devices` (flattened ids; None: every
    device of its grid). Never raises for a program: what cannot be traced is
    the signature's `status`."""
    opts = options_of(options)
    grid = grid or grid_of(module)
    name = _module_name(module)
    digest = digest or program_digest(module.source.text)
    if not grid.known:
        return Signature(digest, name, module.front_end, (0, 0), np.zeros(0, np.int64),
                         status="the process grid is unknown (no num_partitions / num_replicas)")
    n = grid.size
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
    facts = Facts(grid, struct, opts["external-channels"])
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
    _Builder(sig, facts, module).fill(tr, mask)
    return sig


def _module_name(module: Module) -> str:
    m = re.search(r"^\s*(?:module\s+@([\w.$-]+)|HloModule\s+([\w.$-]+))", module.source.text[:2000], re.MULTILINE)
    return (m.group(1) or m.group(2)) if m else ""


class _Builder:
    """Fills a signature from a trace (one SigOp per op and element, a shared
    group table, the scheduler's facts per computation)."""

    def __init__(self, sig: Signature, facts: Facts, module: Module):
        self.sig, self.facts, self.module = sig, facts, module
        self.op_index: dict[int, list[int]] = {}
        self.group_index: dict[tuple, int] = {}
        self.prints = Fingerprints()
        self.frontiers: dict[int, dict[int, int]] = {}
        self.digests: dict[int, str] = {}

    def fill(self, tr, mask: np.ndarray) -> None:
        sig = self.sig
        movable = self._movable(tr)
        step_index: dict[int, list[int]] = {}
        for st in tr.steps:
            if st.role in ("done", "unresolved"):
                continue
            ids = self._ops(st.op, st.role, movable)
            out = []
            for i in ids:
                out.append(len(sig.steps))
                sig.steps.append(SigStep(i, st.block, st.where()))
            step_index[st.index] = out
        for cls in tr.classes:
            devices = cls.processes[mask[cls.processes]]
            if not len(devices):
                continue
            steps: list[int] = []
            end = None
            for k in cls.steps:
                st = tr.steps[k]
                if st.role == "unresolved":
                    end = f"{op_label(st.op)} at line {_line(st.op)}: {st.reason}"
                    break
                steps.extend(step_index.get(k, ()))
            sig.classes.append(SigClass(np.asarray(devices, dtype=np.int64), steps, end))

    def _movable(self, tr) -> set[int]:
        """id() of the issued ops the scheduler may move: those sharing a block run
        with another issued op (a scheduled module: none)."""
        if self.sig.scheduled:
            return set()
        runs: dict[int, list] = {}
        for st in tr.steps:
            if st.role in ISSUES and st.role not in ("send", "recv"):
                runs.setdefault(st.block, []).append(st.op)
        return {id(op) for ops in runs.values() if len({id(o) for o in ops}) > 1 for op in ops}

    def _ops(self, op: Operation, role: str, movable: set[int]) -> list[int]:
        got = self.op_index.get(id(op))
        if got is not None:
            return got
        info = self.facts.info(op)
        kind = collective_kind(op)
        try:
            c = computes(op)
        except Exception as e:  # noqa: BLE001 - a header the front end cannot read: the model says why
            c = Computes(kind)
            problem = f"{op_label(op)} at line {_line(op)} could not be read ({type(e).__name__})"
        else:
            problem = info.problem or info.invalid
        name = op.name_span
        line, col = self.module.source.line_col(name.start)
        frames = op.python_frames
        python = f"{frames[0].file}:{frames[0].line}" if frames else None
        base = dict(kind=kind, role=role, channel=info.channel, operand=self.prints.of(op), line=line, column=col,
                    python=python, problem=problem, external=info.external, width=max(1, name.end - name.start))
        if info.group_of is not None and not problem:
            key = tuple(tuple(int(x) for x in g) for g in info.groups)
            gi = self.group_index.get(key)
            if gi is None:
                gi = self.group_index[key] = len(self.sig.groups)
                self.sig.groups.append(key)
            base["groups"] = gi
        if info.source is not None and not problem:
            base["pairs"] = tuple((int(s), int(t)) for t, s in enumerate(info.source.tolist()) if s >= 0)
        if id(op) in movable and op.parent is not None:
            base.update(self._schedule_facts(op))
        elements = len(c.operands) if c.kind == "all_reduce" and len(c.operands) > 1 else 1
        out = []
        for e in range(elements):
            one = c.element(e) if elements > 1 else c
            label = op_label(op) + (f" (element {e + 1} of {elements})" if elements > 1 else "")
            so = SigOp(len(self.sig.ops), computes=one, label=label, **base)
            if elements > 1:
                so.operand = self.prints.element(op, e)
            self.sig.ops.append(so)
            out.append(so.index)
        self.op_index[id(op)] = out
        return out

    def _schedule_facts(self, op: Operation) -> dict:
        block = op.parent
        table = self.frontiers.get(id(block))
        if table is None:
            table = self.frontiers[id(block)] = frontiers(block)
        digest = self.digests.get(id(block))
        if digest is None:
            digest = self.digests[id(block)] = computation_digest(block)
        pos, dep = table.get(id(op), (-1, -1))
        return {"block": digest, "pos": pos, "dep": dep}


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
