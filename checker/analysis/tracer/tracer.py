"""Per-process communication traces (SPEC-NOTES §5): which collectives, sends,
recvs, async starts and dones each process (replica_id, partition_id) executes,
in order, through `case`/`if`/`while`, `func.call` and `sdy.manual_computation`.

Two levels, cheapest first:

* `structure(module)` looks only at op *names* (what the scanner already knows)
  and the callee of each `func.call` (a regex on its text): which functions
  communicate, which communication sits under control flow, whether there is
  point-to-point traffic. When every communication op runs unconditionally and
  there is no send/recv, every process executes the same sequence of collectives
  and the program cannot deadlock (`Structure.uniform`); nothing else is parsed.
* `trace(module, grid)` runs the program SIMT-style over *all* processes at once:
  scalar integer values are numpy arrays indexed by flattened process id
  (`partition_id`, `replica_id`, constants, integer arithmetic, compare, select,
  convert, and/or/xor, remainder, divide, min/max, clamp: what JAX emits for
  `axis_index`), computed on demand (only the backward slice of branch indices
  and trip counts is parsed). A branch executes once with the mask of the
  processes that take it; a loop iterates while any process stays in it, so a
  trip count that depends on the partition id resolves per process. Each
  communication op becomes one `Step` shared by the processes of its mask;
  processes with the same steps form a `ProcessClass` (a uniform program has
  one class, whatever the grid size). What cannot be resolved (an index that
  depends on data, more iterations than `max_trips`) becomes an `unresolved`
  step, with the reason, after which those processes are not followed.

A value that cannot be computed per process may still be the same on every
member of a group (analysis/uniform.py): a branch or loop decided by such a value
is followed for every value of it (each branch, a representative trip count),
and one decided by per-device data that can split a communicator it guards is
recorded in `Trace.divergent` (SHLO504). The value kinds are in
process_values.py; the op-name facts and `structure()` in structure.py; the
trace's data in trace.py. The process model (analysis/process_model/) reads the
classes; the execution checker can replay `Trace.steps_of(process)`.
"""
from __future__ import annotations

import time

from ..lazy_numpy import np  # imported on first use (lazy_numpy.py)

from .. import uniform as U
from ...ir.attributes import DenseElementsAttr, EnumAttr, StringAttr
from ...ir.catalog import FORWARDING, SAME_IN_GROUP_KINDS, info
from ...ir.core import Block, Module, Operation, Region, Value
from ...ir.types import ScalarType, TensorType
from ..semantics import Grid, known_trip_count
from ..uniform import Divergence, Uni, UniformDecision
from .process_values import (BINARY_FOLDS, COMPARE_UFUNCS, MISSING, NONCOMM_FUTURE, PASS_THROUGH_OPS, PER_PROCESS_OPS,
                             TABLE_LIMIT, UNIFORM_WIDEN, Frame, FutureVal, Table, Unknown, as_np, join, line_of, merge,
                             name_of, norm, region_of, same_value, scalar_element, truncating_divide,
                             uniform_value, wrap)
from .structure import (CALL_OPS, CASE_OPS, INLINE_OPS, RETURN_OPS, WHILE_OPS, Structure, collective_kind,
                        collective_op, comm_role, op_label, structure)
from .trace import Alternative, LoopSummary, ProcessClass, Step, Trace

SUMMARISE_AFTER = 64
"""Iterations of a loop followed one by one before identical ones are counted
instead (_summarised_trips): a shorter loop's trace names every iteration."""

# Memory the tracer may spend on process masks (one bool per process per distinct
# set of processes that reaches a step) before it gives up with a TraceLimit.
MAX_MASK_BYTES = 512 << 20


_REDUCERS = {"stablehlo.add": "add", "stablehlo.maximum": "maximum", "stablehlo.minimum": "minimum",
             "stablehlo.multiply": "multiply", "stablehlo.and": "bitwise_and", "stablehlo.or": "bitwise_or",
             "stablehlo.xor": "bitwise_xor"}
"""The all_reduce bodies folded per process (one binary op on the two block
arguments) → the numpy ufunc that reduces a group, by name: numpy is imported
on first use (lazy_numpy.py), not when this module is."""


def _region_op(op: Operation) -> str | None:
    """The name of an all_reduce body's one computing op (`%s = add %a, %b;
    return %s`), else None."""
    if not op.regions or not op.regions[0].blocks:
        return None
    block = op.regions[0].blocks[0]
    ops = block.operations
    if len(ops) != 2 or len(block.arguments) != 2:
        return None
    body, ret = ops
    if len(body.operands) != 2 or {id(v) for v in body.operands} != {id(a) for a in block.arguments}:
        return None
    if len(ret.operands) != 1 or not body.results or ret.operands[0] is not body.results[0]:
        return None
    return body.name


class TraceLimit(Exception):
    """The trace grew past its step budget or deadline."""


def _integer(x) -> bool:
    """A concrete integer value per process (or the same for all)."""
    if isinstance(x, bool):
        return False
    return isinstance(x, int) or (isinstance(x, np.ndarray) and x.dtype.kind in "iub")


def _advance(x, delta, k: int):
    """A carried value `k` iterations on, `delta` per iteration (0: unchanged)."""
    if not isinstance(delta, np.ndarray):
        return x
    moved = np.asarray(x, dtype=np.int64) + delta.astype(np.int64) * k
    return int(moved) if moved.ndim == 0 else moved  # a value the same everywhere stays a plain int


def _compare_direction(op: Operation) -> str:
    d = op.attr("comparison_direction")
    direction = d.value if isinstance(d, EnumAttr) else str(getattr(d, "text", d))
    return direction.strip().split()[-1].strip(">") if direction else ""


def _compare_type(op: Operation) -> str | None:
    ct = op.attr("compare_type")
    return ct.value if isinstance(ct, EnumAttr) else None


def _first_failure(direction: str, gap: int, step: int) -> int | None:
    """The first m >= 0 at which `compare(direction, a, b)` fails, a - b being
    gap + m * step; None when it never does."""
    if direction == "LT":  # a - b < 0 until it reaches 0
        return 0 if gap >= 0 else (-gap + step - 1) // step if step > 0 else None
    if direction == "LE":
        return 0 if gap > 0 else -gap // step + 1 if step > 0 else None
    if direction == "GT":
        return 0 if gap <= 0 else (gap - step - 1) // -step if step < 0 else None
    if direction == "GE":
        return 0 if gap < 0 else gap // -step + 1 if step < 0 else None
    if direction == "NE":
        if gap == 0:
            return 0
        if step == 0 or (-gap) % step or -gap // step < 0:
            return None
        return -gap // step
    return None


class Tracer:
    """Runs one entry function over every process at once (see the module docstring)."""

    def __init__(self, module: Module, grid: Grid, struct: Structure, *, max_trips: int = 4096,
                 max_steps: int = 200_000, deadline: float | None = None, skip=None,
                 max_class_events: int = 1 << 62, processes: np.ndarray | None = None, meet_key=None):
        assert grid.known
        self.module = module
        self.grid = grid
        self.struct = struct
        self.n = grid.size
        flat = np.arange(self.n, dtype=np.int64)
        self.partition = flat % grid.num_partitions
        self.replica = flat // grid.num_partitions
        self.max_trips = max_trips
        self.max_steps = max_steps
        self.deadline = deadline
        self.skip = skip
        self.processes = processes
        """bool[N]: the processes that run this program (None: every one). The others
        execute nothing (one program of several, each run by some devices: hosts)."""
        self.meet_key = meet_key
        """meet_key(op) → how XLA's runtime matches the op (kind, channel, device
        list), or None where it is no rendezvous: a branch on per-device data whose
        branches issue the same keys in the same order is followed through branch 0
        (Trace.alternatives). None: no such branch is followed."""
        self.alternatives: list = []
        self.max_class_events = max_class_events
        """skip(op) → True for a collective that communicates with nobody (every
        group one process): it is not recorded (its future's done waits for nothing)."""
        self.steps: list[Step] = []
        self.unresolved: list[Step] = []
        self.dead = np.zeros(self.n, dtype=bool)
        """Processes stopped at an unresolved step."""
        self.context: tuple[tuple[Operation, str], ...] = ()
        self.branches: dict[int, tuple[Operation, object, np.ndarray]] = {}
        self.loops: dict[int, tuple[Operation, np.ndarray]] = {}
        self.depth = 0
        self._masks: dict[bytes, np.ndarray] = {}
        self._mask_bytes = 0
        self._blocks = 0
        self.block = -1
        self.uniform: list[UniformDecision] = []
        self.summaries: list[LoopSummary] = []
        """Loops whose identical iterations were counted, not followed (_summarised_trips)."""
        self._received_cache: dict[tuple[int, str], object] = {}
        self._facts: dict[int, tuple] = {}      # id(op) -> (name, results, role): _op_facts
        self._resolved: dict[int, list] = {}    # id(op) -> op.operands: _operands
        self._elems: dict[int, object] = {}     # id(op) -> scalar element or None: _elem
        self._constants: dict[int, object] = {}  # id(op) -> a constant's int (or UNIFORM): _fold
        self._int_folds: dict[tuple, int] = {}   # (id(op), *int args) -> int result: _fold
        self.divergent: list[Divergence] = []
        self._guarded: dict[int, list] = {}
        self._recorded: set = set()
        self.entry_block: Block | None = None
        self.entry_func: Operation | None = None

    # -- masks ----------------------------------------------------------------------
    def _intern(self, mask: np.ndarray) -> np.ndarray:
        key = np.packbits(mask).tobytes()
        got = self._masks.get(key)
        if got is None:
            self._mask_bytes += mask.nbytes + len(key)
            if self._mask_bytes > MAX_MASK_BYTES:
                # Distinct process subsets x processes: a loop whose trip count is the
                # partition id over a million processes would otherwise fill memory
                # long before the deadline.
                raise TraceLimit(f"more than {MAX_MASK_BYTES >> 20} MB of per-process masks "
                                 f"({len(self._masks)} distinct sets of {self.n} processes)")
            mask.setflags(write=False)
            self._masks[key] = got = mask
        return got

    def _live(self, mask: np.ndarray) -> np.ndarray | None:
        if self.dead.any():
            mask = mask & ~self.dead
        return mask if mask.any() else None

    def _check_budget(self) -> None:
        if len(self.steps) > self.max_steps:
            raise TraceLimit(f"more than {self.max_steps} communication steps (deadlock-max-steps)")
        if self.deadline is not None and time.monotonic() > self.deadline:
            raise TraceLimit("the time limit (deadlock-timeout-ms) ran out while tracing")

    # -- recording --------------------------------------------------------------------
    def _record(self, op: Operation, role: str, mask: np.ndarray, **kw) -> Step | None:
        live = self._live(mask)
        if live is None:
            return None
        step = Step(len(self.steps), op, role, self._intern(live), self.context, block=self.block, **kw)
        self.steps.append(step)
        if (len(self.steps) & 1023) == 0:
            self._check_budget()
        return step

    def _unresolved(self, op: Operation, mask: np.ndarray, reason: str) -> None:
        step = self._record(op, "unresolved", mask, reason=reason)
        if step is not None:
            self.unresolved.append(step)
            self.dead |= step.mask

    # -- running ----------------------------------------------------------------------
    def run(self, entry: str) -> Trace:
        func = self.struct.funcs[entry]
        everyone = np.ones(self.n, dtype=bool) if self.processes is None else self.processes.astype(bool)
        self.enter(func)
        if func.regions and func.regions[0].blocks:
            frame = Frame(func.regions[0], None)
            self._exec_region(func.regions[0], frame, everyone)
        return self._finish(entry)

    def enter(self, func: Operation) -> None:
        """Make `func` the entry function (its arguments are the program's inputs)."""
        self.entry_func = func
        if func.regions and func.regions[0].blocks:
            self.entry_block = func.regions[0].blocks[0]

    def _finish(self, entry: str) -> Trace:
        """Group processes by the set of masks that hold them (one class each). Linear
        in processes × masks / 8: the masks are packed to bits, each process's bit
        column is a dict key, and each class's steps come from one representative
        (no sort of the whole matrix, no scan of the grid per class)."""
        masks = list(self._masks.values())
        n = self.n
        if not masks or not n:
            class_of = np.zeros(n, dtype=np.int64)
            everyone = ProcessClass(np.arange(n, dtype=np.int64), [s.index for s in self.steps])
            return Trace(self.grid, entry, self.steps, class_of, [everyone] if n else [], self.unresolved,
                         self.branches, self.loops, self.uniform, self.divergent, self.summaries, self.alternatives)
        packed = np.concatenate([np.packbits(np.stack(masks[k:k + 1024]), axis=0)
                                 for k in range(0, len(masks), 1024)])  # bytes × processes
        rows = np.ascontiguousarray(packed.T)
        # each process's bit column as one opaque value: np.unique groups them in C
        # (a Python dict of columns took ~1 s a million processes); classes are then
        # numbered by their first process
        columns = rows.view(np.dtype((np.void, rows.shape[1]))).reshape(n)
        _u, first, inverse = np.unique(columns, return_index=True, return_inverse=True)
        rank = np.empty(len(first), dtype=np.int64)
        rank[np.argsort(first, kind="stable")] = np.arange(len(first), dtype=np.int64)
        class_of = rank[inverse.reshape(n)]
        self._check_budget()
        _u, reps = np.unique(class_of, return_index=True)  # class c's first process (classes are numbered by it)
        index = {id(m): k for k, m in enumerate(masks)}
        step_mask = np.fromiter((index[id(s.mask)] for s in self.steps), dtype=np.int64, count=len(self.steps))
        member = np.unpackbits(packed[:, reps], axis=0, count=len(masks)).astype(bool)  # masks × classes
        holds = member[step_mask] if len(step_mask) else np.zeros((0, len(reps)), dtype=bool)  # steps × classes
        events = int(holds.sum())
        if events > self.max_class_events:
            raise TraceLimit(f"more than {self.max_class_events} events over the process classes "
                             f"(deadlock-max-events): {len(reps)} classes, {len(self.steps)} steps")
        order = np.argsort(class_of, kind="stable")
        bounds = np.searchsorted(class_of[order], np.arange(len(reps) + 1))
        classes = []
        for c in range(len(reps)):
            classes.append(ProcessClass(order[bounds[c]:bounds[c + 1]], np.flatnonzero(holds[:, c]).tolist()))
            if (c & 1023) == 1023:
                self._check_budget()
        return Trace(self.grid, entry, self.steps, class_of, classes, self.unresolved, self.branches, self.loops,
                     self.uniform, self.divergent, self.summaries, self.alternatives)

    def _exec_region(self, region: Region, frame: Frame, mask: np.ndarray) -> None:
        if len(region.blocks) != 1:
            if any(True for b in region.blocks for _ in b.operations):
                self._unresolved(region.parent or self.module.root, mask,
                                 "a region with several blocks (unstructured control flow)")
            return
        relevant = self.struct.relevant
        saved_block = self.block
        self._blocks += 1
        self.block = self._blocks
        try:
            self._exec_block(region.blocks[0], frame, mask, relevant)
        finally:
            self.block = saved_block

    def _exec_block(self, block: Block, frame: Frame, mask: np.ndarray, relevant: set[int]) -> None:
        facts = self._op_facts
        for op in block.operations:
            role = facts(op)[2]  # comm_role(op), read once per trace
            if role is not None:
                self._comm(op, role, frame, mask)
            elif id(op) in relevant:
                name = op.name
                if name in CASE_OPS:
                    self._case(op, frame, mask)
                elif name in WHILE_OPS:
                    self._while(op, frame, mask)
                elif name in CALL_OPS:
                    self._call(op, frame, mask)
                elif name in INLINE_OPS:
                    self._inline(op, frame, mask)
                else:
                    self._unresolved(op, mask, f"communication inside {op.name}, whose regions the "
                                               f"deadlock analysis does not model")
            if self.dead.any():
                mask = mask & ~self.dead
                if not mask.any():
                    return

    def _comm(self, op: Operation, role: str, frame: Frame, mask: np.ndarray) -> None:
        if role == "done":
            operands = op.operands
            fut = self.value(operands[0], frame) if operands and operands[0] is not None else \
                Unknown("a done without a future")
            if fut is NONCOMM_FUTURE:
                return
            if not isinstance(fut, FutureVal):
                reason = fut.reason if isinstance(fut, Unknown) else "not a future"
                self._unresolved(op, mask, f"which start this done waits for is unknown ({reason})")
                return
            ids = fut.ids
            if isinstance(ids, np.ndarray):
                ids = ids.copy()
                ids.setflags(write=False)
            self._record(op, "done", mask, future=ids)
            return
        if self.skip is not None and role in ("collective", "start") and self.skip(op):
            if role == "start":
                for v in op.results:
                    frame.values[v] = NONCOMM_FUTURE
            return
        step = self._record(op, role, mask)
        if role == "start":
            ids = step.index if step is not None else -1
            for v in op.results:
                frame.values[v] = FutureVal(ids)

    def _bind(self, block: Block, frame: Frame, vals: list) -> None:
        for arg, val in zip(block.arguments, vals):
            frame.values[arg] = val

    def _returned(self, region: Region, frame: Frame) -> list:
        block = region.blocks[0] if region.blocks else None
        if block is None or not block.operations or block.operations[-1].name not in RETURN_OPS:
            return []
        return [self.value(v, frame) if v is not None else Unknown("undefined value")
                for v in block.operations[-1].operands]

    def _case(self, op: Operation, frame: Frame, mask: np.ndarray) -> None:
        idx = self._branch_index(op, frame)
        results: list[list] = []
        if isinstance(idx, Uni):
            if self.meet_key is not None and U.check_guard(idx, self._guarded_comm(op), mask, op, "branch index") \
                    is not None and self._case_alike(op, frame, mask, idx):
                return
            if not self._uniform_guard(op, idx, mask, "branch index"):
                self._bind_results(op, frame, [Unknown("a branch on per-device data", op)] * op.num_results)
            elif len(op.regions) > 1 and any(comm_role(c) in ("send", "recv") for c, _g in self._guarded_comm(op)):
                # Followed one after the other, a branch's sends would meet another
                # branch's recvs, which no process ever pairs.
                self._unresolved(op, mask, "its branch index is the same on every process, but send/recv under "
                                           "such a branch are not followed")
                self._bind_results(op, frame, [Unknown("a branch with send/recv", op)] * op.num_results)
            else:
                self._case_uniform(op, frame, mask, idx)
            return
        if isinstance(idx, Unknown):
            self._unresolved(op, mask, f"its branch index depends on {idx.reason}")
            self._bind_results(op, frame, [Unknown(idx.reason, op)] * op.num_results)
            return
        self.branches.setdefault(id(op), (op, idx, mask.copy()))
        taken: list[tuple[np.ndarray, int]] = []
        for b, region in enumerate(op.regions):
            mb = mask & (idx == b) if isinstance(idx, np.ndarray) else (mask if idx == b else None)
            if mb is None or not mb.any():
                continue
            taken.append((mb, b))
            saved = self.context
            self.context = saved + ((op, f"branch {b}"),)
            inner = self._branch_frame(op, b, frame)
            try:
                self._exec_region(region, inner, mb)
                results.append(self._returned(region, inner))
            finally:
                self.context = saved
        merged = []
        for i in range(op.num_results):
            vals = [(mb, r[i] if i < len(r) else Unknown("no value returned")) for (mb, _b), r in zip(taken, results)]
            merged.append(merge(vals))
        self._bind_results(op, frame, merged)

    def _case_uniform(self, op: Operation, frame: Frame, mask: np.ndarray, idx: Uni) -> None:
        """Every member of each guarded communicator takes the same branch, whichever
        it is: each branch is followed by all of them, one after the other (a
        branch's communication stays inside the classes that take it)."""
        self._decided(UniformDecision(op, "branch index", idx))
        results = []
        for b, region in enumerate(op.regions):
            live = self._live(mask)
            if live is None:
                break
            saved = self.context
            self.context = saved + ((op, f"branch {b} (if taken: every process takes the same branch)"),)
            inner = self._branch_frame(op, b, frame)
            try:
                self._exec_region(region, inner, live)
                results.append(self._returned(region, inner))
            finally:
                self.context = saved
        self._bind_results(op, frame, [join([r[i] if i < len(r) else Unknown("no value returned") for r in results],
                                             idx) for i in range(op.num_results)])

    def _branch_frame(self, op: Operation, b: int, frame: Frame, depth: int = 0) -> Frame:
        """The frame branch `b` of a case/if runs in. A branch that declares arguments
        (HLO's conditional: the catalog's `branch_operands`) takes the op's operands
        after the index, branch by branch, as many as it declares; StableHLO's
        branches declare none and read the values around them."""
        region = op.regions[b]
        inner = Frame(region, frame)
        if not region.blocks or not info(op.name).branch_operands:
            return inner
        params = region.blocks[0].arguments
        if params:
            start = 1 + sum(len(r.blocks[0].arguments) for r in op.regions[:b] if r.blocks)
            operands = op.operands[start:start + len(params)]
            self._bind(region.blocks[0], inner, [self.value(v, frame, depth + 1) if v is not None
                                                 else Unknown("undefined value") for v in operands])
        return inner

    def _case_alike(self, op: Operation, frame: Frame, mask: np.ndarray, idx: Uni) -> bool:
        """A branch on per-device data whose every branch issues the same collectives
        (the same meet_key, in order; none under further control flow, no send or
        recv): XLA's runtime meets them whichever branch each process takes, so no
        communicator can split. Branch 0 is followed for every process; the other
        branches' ops are recorded as its alternatives. False (nothing done) when
        the branches differ."""
        if len(op.regions) < 2:
            return False
        flat = [self._flat_comm(region) for region in op.regions]
        if any(f is None for f in flat) or not flat[0]:
            return False
        keys = [[self.meet_key(c) for c in f] for f in flat]
        if any(k is None for ks in keys for k in ks) or any(ks != keys[0] for ks in keys[1:]):
            return False
        live = self._live(mask)
        if live is None:
            return True
        self._decided(UniformDecision(op, "branch index", idx))
        first = len(self.steps)
        saved = self.context
        self.context = saved + ((op, "branch 0 (the branch index is per-device data; every branch issues the same "
                                     "collectives)"),)
        inner = Frame(op.regions[0], frame)
        try:
            self._exec_region(op.regions[0], inner, live)
        finally:
            self.context = saved
        issued = [s for s in self.steps[first:] if s.role != "done" and s.role != "unresolved"]
        if len(issued) == len(flat[0]):
            for k, st in enumerate(issued):
                self.alternatives.append(Alternative(op, st, tuple((b, flat[b][k]) for b in range(1, len(flat)))))
        self._bind_results(op, frame, [Unknown("a branch on per-device data", op)] * op.num_results)
        return True

    def _flat_comm(self, region: Region) -> list[Operation] | None:
        """The communication ops a region issues, in order, through calls and
        inline regions (silent ones and dones left out); None when one sits under
        further control flow or is a send/recv."""
        out: list[Operation] = []
        seen_funcs: set[str] = set()

        def walk(ops) -> bool:
            for child in ops:
                role = comm_role(child)
                if role is not None:
                    if role in ("send", "recv"):
                        return False
                    if role != "done" and not (self.skip is not None and self.skip(child)):
                        out.append(child)
                    continue
                if child.name in CALL_OPS:
                    name = self.struct.callees.get(id(child))
                    func = self.struct.funcs.get(name) if name else None
                    if func is not None and name not in seen_funcs and name in self.struct.comm_funcs:
                        seen_funcs.add(name)
                        if not walk([o for r in func.regions for b in r.blocks for o in b.operations]):
                            return False
                        seen_funcs.discard(name)
                    continue
                if child.name in INLINE_OPS:
                    if not walk([o for r in child.regions for b in r.blocks for o in b.operations]):
                        return False
                    continue
                if child.regions and any(comm_role(o) is not None or o.name in CALL_OPS
                                         for r in child.regions for o in _ops_in(r)):
                    return False
            return True

        return out if walk([o for b in region.blocks for o in b.operations]) else None

    def _decided(self, d: UniformDecision) -> None:
        """Record a uniform decision once per op (a loop body runs it many times)."""
        if id(d.op) not in self._recorded:
            self._recorded.add(id(d.op))
            self.uniform.append(d)

    def _uniform_guard(self, op: Operation, u: Uni, mask: np.ndarray, what: str) -> bool:
        """True when `u` splits no communicator `op` guards; otherwise records why
        (an unresolved step, and a Divergence for SHLO504)."""
        got = U.check_guard(u, self._guarded_comm(op), mask, op, what)
        if got is None:
            return True
        if isinstance(got, Divergence):
            if ("divergent", id(op)) not in self._recorded:
                self._recorded.add(("divergent", id(op)))
                self.divergent.append(got)
            comm = got.guarded
            reason = (f"its {what} depends on {got.text()}, which can differ between the processes of the "
                      f"{collective_kind(comm)} at line {line_of(comm)} it guards (SHLO504)")
        else:
            reason = f"its {what} is the same only within some processes, and {got}"
        self._unresolved(op, mask, reason)
        return False

    def _guarded_comm(self, op: Operation) -> list:
        """Communication ops under `op` (through calls), with their communicators."""
        got = self._guarded.get(id(op))
        if got is not None:
            return got
        out: list = []
        seen_funcs: set[str] = set()
        stack = [r for r in op.regions]
        while stack:
            region = stack.pop()
            for block in region.blocks:
                for child in block.operations:
                    role = comm_role(child)
                    if role is not None and role != "done":
                        out.append((child, U.communicators(child, collective_op(child), collective_kind(child),
                                                           self.grid)))
                        continue
                    if child.name in CALL_OPS:
                        name = self.struct.callees.get(id(child))
                        func = self.struct.funcs.get(name) if name else None
                        if func is not None and name not in seen_funcs:
                            seen_funcs.add(name)
                            stack.extend(func.regions)
                        continue
                    stack.extend(child.regions)
        self._guarded[id(op)] = out
        return out

    def _branch_index(self, op: Operation, frame: Frame):
        """Per process, which region of a case/if runs (clamped as the spec says)."""
        operands = op.operands
        if not operands or operands[0] is None:
            return Unknown("an undefined index")
        raw = self.value(operands[0], frame)
        if isinstance(raw, Uni):
            return raw
        if isinstance(raw, Table):
            return Unknown("a table as a branch index")
        if isinstance(raw, (Unknown, FutureVal)):
            return raw if isinstance(raw, Unknown) else Unknown("a future")
        n = len(op.regions)
        if op.name == "stablehlo.if":
            idx = np.where(as_np(raw) != 0, 0, 1)
        else:
            a = as_np(raw)
            idx = np.where((a < 0) | (a >= n), n - 1, a)
        u = uniform_value(idx)
        return u if u is not None else idx

    def _bind_results(self, op: Operation, frame: Frame, vals: list) -> None:
        for v, val in zip(op.results, vals):
            frame.values[v] = val

    def _while(self, op: Operation, frame: Frame, mask: np.ndarray) -> None:
        if len(op.regions) != 2:
            self._unresolved(op, mask, "a while without cond and body regions")
            return
        cond, body = op.regions
        carried = [self.value(v, frame) if v is not None else Unknown("undefined value") for v in op.operands]
        active: np.ndarray | None = mask
        trips = 0
        known = known_trip_count(op)
        uniform: Uni | None = None
        uniform_trips = 0
        seen: list[list] = []
        widened: list | None = None
        states: list[list] = [carried]  # the carried values before iteration 1, after 1, 2, ...
        spans: list[tuple[int, int, np.ndarray]] = []  # each iteration's steps (first, end) and processes
        while active is not None:
            cframe = Frame(cond, frame)
            if cond.blocks:
                self._bind(cond.blocks[0], cframe, carried)
            if cond.blocks and id(op) in self.struct.relevant:
                self._exec_region(cond, cframe, active)
            ret = self._returned(cond, cframe)
            pred = ret[0] if ret else Unknown("a cond region without a predicate")
            if known is not None and not isinstance(pred, (int, np.ndarray)):
                # The compiler proved the trip count (the same on every process: one
                # module, no process id in it): that many iterations, exactly.
                pred = int(trips < known)
            if isinstance(pred, Uni):
                # The same trip count on every member of each guarded communicator:
                # iteration 1 on the values the loop enters with, then iterations on
                # the widened values (standing for every later iteration) until they
                # settle; every process is taken through all of them.
                if uniform is None:
                    if not self._uniform_guard(op, pred, active, "trip count"):
                        carried = [Unknown("a loop on per-device data", op)] * len(carried)
                        break
                    uniform = pred
                    self._decided(UniformDecision(op, "trip count", pred))
                seen.append(carried)
                if uniform_trips:
                    wide = [join([w, c], uniform) for w, c in zip(widened or seen[-2], carried)]
                    if widened is not None and all(same_value(a, b) for a, b in zip(wide, widened)):
                        break
                    if uniform_trips >= UNIFORM_WIDEN:
                        self._unresolved(op, active, f"its carried values do not settle in {UNIFORM_WIDEN} "
                                                     f"iterations of a uniform trip count")
                        break
                    widened = carried = wide
                uniform_trips += 1
                pred = 1
            if isinstance(pred, (Unknown, FutureVal, Table)):
                reason = pred.reason if isinstance(pred, Unknown) else "a future or a table"
                self._unresolved(op, active, f"its trip count depends on {reason}")
                break
            go = active & (as_np(pred) != 0) if isinstance(pred, np.ndarray) else (active if pred else None)
            if go is None or not go.any():
                break
            live = self._live(go)
            if live is None:
                break
            if trips >= self.max_trips:
                self._unresolved(op, live, f"it runs more than {self.max_trips} iterations (deadlock-max-trips)")
                break
            trips += 1
            first_step = len(self.steps)
            counts = self.loops.setdefault(id(op), (op, np.zeros(self.n, dtype=np.int64)))[1]
            counts += live
            saved = self.context
            self.context = saved + ((op, f"iteration {trips}"),)
            bframe = Frame(body, frame)
            try:
                if body.blocks:
                    self._bind(body.blocks[0], bframe, carried)
                self._exec_region(body, bframe, live)
                new = self._returned(body, bframe)
            finally:
                self.context = saved
            if len(new) != len(carried):
                new = (new + [Unknown("no value returned")] * len(carried))[:len(carried)]
            carried = [merge([(live, n), (~live, c)]) for n, c in zip(new, carried)]
            active = live
            if uniform is None:
                states = (states + [carried])[-3:]
                spans = (spans + [(first_step, len(self.steps), live)])[-2:]
                more = self._summarised_trips(op, cond, frame, states, spans) if trips >= SUMMARISE_AFTER else None
                if more is not None:  # the remaining iterations repeat these: their count and carried values
                    extra, carried = more
                    counts += extra * live
                    self._relabel(op, first_step, trips, trips + extra)
                    trips += extra
                    self.summaries.append(LoopSummary(op, trips - extra, trips, live))
            self._check_budget()
        if uniform is not None and seen:
            carried = [join([s[i] for s in seen] + [carried[i]], uniform) for i in range(len(carried))]
        self._bind_results(op, frame, carried)

    # -- identical iterations ------------------------------------------------------------
    def _summarised_trips(self, op: Operation, cond: Region, frame: Frame, states: list[list],
                          spans: list[tuple[int, int, np.ndarray]]):
        """(the iterations left, the carried values after them) when the loop's last
        two iterations were the same and every later one must be too, else None.

        Same: the same processes ran the same communication steps (op, role, mask;
        a done's start in its own iteration), none under a branch or loop inside
        the body (which could go another way in a later iteration), and each
        carried value is either unchanged or an integer that moved by the same
        amount both times (an induction variable). The iterations left are then
        counted, not run: the cond region is one `compare` of such a value with
        one that does not change (fori_loop's `i < n`), so the first iteration
        where it fails is a division, the same for every process or no summary;
        the count is checked by evaluating the cond region on the carried values
        one iteration before it (true) and at it (the loop's next test: false).
        Why that is exact: every process in the loop repeats the same steps the
        same number of times, so the k-th repetition of one meets the k-th of the
        others exactly as the last one did; the model follows one such
        repetition (the steps recorded) and the verdict is the same for any count."""
        if len(states) < 3 or len(spans) < 2:
            return None
        (a0, a1, mask_a), (b0, b1, mask_b) = spans
        if mask_a is not mask_b and not np.array_equal(mask_a, mask_b):
            return None
        if not self._same_iteration(a0, a1, b0, b1):
            return None
        before, last_but_one, last = states
        deltas: list = []
        for x0, x1, x2 in zip(before, last_but_one, last):
            if same_value(x0, x1) and same_value(x1, x2):
                deltas.append(0)
            elif all(isinstance(x, Unknown) for x in (x0, x1, x2)):
                deltas.append(0)  # data the tracer cannot read: nothing it decides depends on it
            elif all(_integer(x) for x in (x0, x1, x2)):
                d1 = np.asarray(np.asarray(x1, dtype=np.int64) - np.asarray(x0, dtype=np.int64))
                d2 = np.asarray(np.asarray(x2, dtype=np.int64) - np.asarray(x1, dtype=np.int64))
                if d1.shape != d2.shape or not np.array_equal(d1, d2):
                    return None
                deltas.append(d2)
            else:
                return None
        left = self._trips_until_false(op, cond, frame, last, deltas, mask_b)
        if left is None or left < 1:
            return None
        after = [_advance(x, d, left) for x, d in zip(last, deltas)]
        return left, after

    def _relabel(self, op: Operation, first: int, followed: int, trips: int) -> None:
        """The last iteration followed stands for every later one: its steps say so
        ("iterations 3–5000 of the while at line 4"), so a process blocked there is
        not said to be blocked in iteration 3 when the counts run out in the last."""
        label = f"iterations {followed}\u2013{trips}"
        at = len(self.context)
        for step in self.steps[first:]:
            if len(step.context) > at and step.context[at][0] is op:
                step.context = step.context[:at] + ((op, label),) + step.context[at + 1:]

    def _same_iteration(self, a0: int, a1: int, b0: int, b1: int) -> bool:
        if a1 - a0 != b1 - b0:
            return False
        for x, y in zip(self.steps[a0:a1], self.steps[b0:b1]):
            if x.op is not y.op or x.role != y.role or x.mask is not y.mask or x.reason is not None:
                return False
            inner = y.context[len(self.context) + 1:]  # under this loop's iteration
            if any(c.name in CASE_OPS or c.name in WHILE_OPS for c, _label in inner):
                return False
            if x.role == "done":
                fx, fy = np.asarray(x.future), np.asarray(y.future)
                if fx.shape != fy.shape or not (np.array_equal(fx - a0, fy - b0) and (fx >= a0).all()):
                    return False  # a start in an earlier iteration, or none
        return True

    def _trips_until_false(self, op: Operation, cond: Region, frame: Frame, carried: list, deltas: list,
                           mask: np.ndarray) -> int | None:
        """How many more iterations pass the cond region (see _summarised_trips), or None."""
        if not cond.blocks or any(comm_role(c) is not None for c in cond.blocks[0].operations):
            return None
        ret = cond.blocks[0].operations[-1] if cond.blocks[0].operations else None
        test = ret.operands[0].owner if ret is not None and ret.name in RETURN_OPS and len(ret.operands) == 1 \
            and ret.operands[0] is not None else None
        if not isinstance(test, Operation) or test.name != "stablehlo.compare" or len(test.operands) != 2:
            return None
        direction = _compare_direction(test)
        element = scalar_element(test.operand_types[0]) if test.operand_types else None
        if direction not in ("LT", "LE", "GT", "GE", "NE") or not isinstance(element, ScalarType) \
                or not element.name.startswith(("i", "si", "ui")) or element.name == "i1" \
                or _compare_type(test) not in (None, "SIGNED", "UNSIGNED"):
            return None
        args = cond.blocks[0].arguments
        cframe = Frame(cond, frame)
        self._bind(cond.blocks[0], cframe, carried)
        sides, moves = [], []
        for v in test.operands:
            val = self.value(v, cframe) if v is not None else None
            if not _integer(val):
                return None
            sides.append(np.broadcast_to(np.asarray(val, dtype=np.int64), (self.n,)))
            at = next((k for k, a in enumerate(args) if a is v), None)
            if at is None and region_of(v) is cond:  # computed inside the cond: only constants are fixed
                owner = v.owner
                if not (isinstance(owner, Operation) and owner.name == "stablehlo.constant"):
                    return None
            moves.append(np.broadcast_to(np.asarray(deltas[at] if at is not None else 0, dtype=np.int64),
                                         (self.n,)))
        gap, step = (sides[0] - sides[1])[mask], (moves[0] - moves[1])[mask]
        pairs = set(zip(gap.tolist(), step.tolist()))
        counts = {_first_failure(direction, g, s) for g, s in pairs}
        if len(counts) != 1:
            return None  # the processes would leave the loop after different counts: follow them
        (left,) = counts
        if left is None or left < 1:
            return None
        bits = element.bitwidth or 64
        lo, hi = (0, (1 << bits) - 1) if element.name.startswith("ui") else (-(1 << (bits - 1)), (1 << (bits - 1)) - 1)
        for x, d in zip(carried, deltas):  # no wrap-around on the way (the division assumes none)
            if isinstance(d, np.ndarray) and d.any():
                end = np.asarray(x, dtype=object) + np.asarray(d, dtype=object) * left
                if any(not lo <= int(e) <= hi for e in np.ravel(end).tolist()):
                    return None
        # one iteration before: still true everywhere (the loop's own next test checks the last)
        check = Frame(cond, frame)
        self._bind(cond.blocks[0], check, [_advance(x, d, left - 1) for x, d in zip(carried, deltas)])
        pred = self._returned(cond, check)
        if not pred or not _integer(pred[0]) or not np.all(np.broadcast_to(np.asarray(pred[0]), (self.n,))[mask]):
            return None
        return left

    def _call(self, op: Operation, frame: Frame, mask: np.ndarray) -> None:
        name = self.struct.callees.get(id(op))
        func = self.struct.funcs.get(name) if name else None
        if func is None or not func.regions:
            self._unresolved(op, mask, f"the callee @{name} is not in the module")
            return
        if self.depth > 64:
            self._unresolved(op, mask, "calls nest more than 64 deep (recursion?)")
            return
        args = [self.value(v, frame) if v is not None else Unknown("undefined value") for v in op.operands]
        region = func.regions[0]
        inner = Frame(region, None)
        if region.blocks:
            self._bind(region.blocks[0], inner, args)
        self.depth += 1
        try:
            self._exec_region(region, inner, mask)
        finally:
            self.depth -= 1
        self._bind_results(op, frame, self._returned(region, inner))

    def _inline(self, op: Operation, frame: Frame, mask: np.ndarray) -> None:
        if not op.regions:
            return
        region = op.regions[0]
        inner = Frame(region, frame)
        if region.blocks:
            self._bind(region.blocks[0], inner, self._inline_args(op, frame))
        self._exec_region(region, inner, mask)
        self._bind_results(op, frame, self._returned(region, inner))


    # -- values (on demand) ---------------------------------------------------------------
    def _received(self, op: Operation, role: str):
        """What a communication op's result is: the same on every member of its
        group (all_reduce, all_gather, collective_broadcast, also when done
        asynchronously: a done whose future comes straight from its start), else
        per-device data."""
        if role == "done" and op.operands and op.operands[0] is not None:
            start = op.operands[0].owner
            if isinstance(start, Operation) and comm_role(start) == "start":
                op, role = start, "collective"
        key = (id(op), role)
        cached = self._received_cache.get(key)
        if cached is None:
            cached = self._received_cache[key] = self._received_uncached(op, role)
        return cached

    def _received_uncached(self, op: Operation, role: str):
        # Depends on the op and the grid only; a loop runs the same op once per trip,
        # and its groups cost O(processes) to read (see _received's cache).
        kind = collective_kind(op)
        where = f"the {kind} at line {line_of(op)}"
        if role == "collective" and kind in SAME_IN_GROUP_KINDS:
            groups = U.communicators(op, collective_op(op), kind, self.grid)
            if groups is not None:
                lab = U.group_labels(groups, self.n)
                if lab is None:
                    return U.UNIFORM
                return Uni(lab, (U.Origin(f"{where} (the same only within each of its process groups)", op, lab),))
        return U.per_process(self.n, f"data received by {where}", op)

    def _fold_all_reduce(self, op: Operation, frame: Frame, depth: int):
        """An all_reduce of one integer scalar known on every process (a function of
        the process id: `lax.pmax(axis_index("x") % 2, "y")`), folded per process
        over its group, so a branch or trip count decided by it is followed
        exactly; None when it is not that (the result is then only uniform within
        each group, `_received`). Groups are read as the deadlock model reads
        them; a malformed op is left to the constraint rules."""
        ufunc = _REDUCERS.get(_region_op(op))
        reduce = getattr(np, ufunc).reduce if ufunc is not None else None
        elem = self._elem(op, 1)
        if reduce is None or elem is None or len(op.operands) != 1 or op.operands[0] is None:
            return None
        x = self.value(op.operands[0], frame, depth + 1)
        if type(x) is int:
            x = np.full(self.n, x, dtype=np.int64)
        elif not isinstance(x, np.ndarray):
            return None
        groups = U.communicators(op, op, "all_reduce", self.grid)
        if not groups:
            return None
        out = np.full(self.n, -1, dtype=np.int64)
        seen = np.zeros(self.n, dtype=bool)
        for g in groups:
            if len(g) == 0 or g.min() < 0 or g.max() >= self.n or seen[g].any():
                return None
            seen[g] = True
            out[g] = int(reduce(x[g]))
        if not seen.all():
            return None
        return norm(wrap(out, elem))

    def value(self, v: Value, frame: Frame, _depth: int = 0):
        region = region_of(v)
        f: Frame | None = frame
        while f is not None and f.region is not region:
            f = f.parent
        if f is None:
            f = frame  # a scope we did not enter as a frame: memoise locally
        got = f.values.get(v, MISSING)
        if got is not MISSING:
            return got
        owner = v.owner
        if isinstance(owner, Block):
            if owner is self.entry_block and self.entry_block is not None:
                got = f.values[v] = self._entry_arg(v)
                return got
            return Unknown(f"the block argument {v.name} (data)")
        if _depth > 120:
            return Unknown("a computation too deep to follow")
        vals = self._fold(owner, f, _depth)
        for r, val in zip(owner.results, vals):
            f.values[r] = val
        return f.values.get(v, Unknown(f"{owner.name} result"))

    def _op_facts(self, op: Operation) -> tuple:
        """(name, number of results, communication role) of an op: read once per
        trace (a loop folds the same ops once per trip, and a call's body once per
        call; these were most of a pipelined program's folding time)."""
        facts = self._facts.get(id(op))
        if facts is None:
            facts = self._facts[id(op)] = (op.name, op.num_results, comm_role(op))
        return facts

    def _operands(self, op: Operation) -> list:
        """op.operands, resolved once per trace (the module does not change under it)."""
        got = self._resolved.get(id(op))
        if got is None:
            got = self._resolved[id(op)] = op.operands
        return got

    def _elem(self, op: Operation, n: int):
        """The integer scalar element type of the op's one result (else None), once per trace."""
        got = self._elems.get(id(op), MISSING)
        if got is MISSING:
            got = self._elems[id(op)] = scalar_element(op.result_types[0]) if n == 1 and op.result_types else None
        return got

    def _fold(self, op: Operation, frame: Frame, depth: int) -> list:
        name, n, role = self._op_facts(op)
        if info(name).body_kind or role == "start":
            return [NONCOMM_FUTURE] * n if role is None else [Unknown("a future not started here")] * n
        if role is not None:
            if role == "collective" and n == 1 and name == "stablehlo.all_reduce":
                folded = self._fold_all_reduce(op, frame, depth)
                if folded is not None:
                    return [folded]
            return [self._received(op, role)] * max(n, 1)
        if name in CASE_OPS:
            return self._fold_case(op, frame, depth)
        if name in WHILE_OPS:
            return self._fold_while(op, frame, depth)
        if name in CALL_OPS:
            return self._fold_call(op, frame, depth)
        if name in INLINE_OPS:
            return self._fold_inline(op, frame, depth)
        elem = self._elem(op, n)
        if name == "stablehlo.partition_id":
            return [self.partition.copy()]
        if name == "stablehlo.replica_id":
            return [self.replica.copy()]
        if name == "stablehlo.constant":
            got = self._constants.get(id(op))
            if got is None:
                got = self._constant(op, elem)
                if type(got) is int or got is U.UNIFORM:
                    # Immutable and compared by value (a Table is not kept: _same
                    # tells two Tables apart by identity, so reusing one could
                    # settle a widened loop sooner than before).
                    self._constants[id(op)] = got
            return [got]
        if name in FORWARDING:  # results are the operands (an optimization barrier, HLO's tuple, copy, ...)
            return [self.value(v, frame, depth + 1) if v is not None else Unknown("undefined") for v in op.operands]
        if name == "stablehlo.custom_call":
            return self._custom_call(op, frame, depth)
        if name in PER_PROCESS_OPS:
            return [U.per_process(self.n, f"the {op_label(op)} at line {line_of(op)}", op)] * max(n, 1)
        args = []
        all_int = True  # every argument a Python int (the memo below)
        shared = False  # some argument a Uni or a Table (only uniformity is folded)
        for v in self._operands(op):
            a = self.value(v, frame, depth + 1) if v is not None else Unknown("an undefined value")
            if type(a) is not int:
                if isinstance(a, (Unknown, FutureVal)):
                    return [a if isinstance(a, Unknown) else Unknown("a future")] * max(n, 1)
                all_int = False
                if isinstance(a, (Uni, Table)):
                    shared = True
            args.append(a)
        if name == "stablehlo.dynamic_slice" and args and isinstance(args[0], Table) and elem is not None \
                and all(isinstance(a, (int, np.ndarray)) for a in args[1:]):
            got = self._table_slice(op, args)
            if got is not None:
                return [norm(wrap(got, elem))]
        if name == "stablehlo.gather" and len(args) == 2 and isinstance(args[0], Table) and elem is not None \
                and isinstance(args[1], (int, np.ndarray)):
            got = self._table_gather(op, args[0].array, args[1])
            if got is not None:
                return [norm(wrap(got, elem))]
        if elem is None or shared:
            # Not an integer scalar the tracer computes: only whether it is the same
            # on every process (a constant table counts as the same everywhere).
            return [U.combine([a for a in args if not isinstance(a, Table)])] * max(n, 1)
        key = None
        if all_int:
            # The same integer scalars in, the same integer out: a loop body's
            # index arithmetic repeats on every trip and every call of a helper.
            key = (id(op), *args)
            got = self._int_folds.get(key)
            if got is not None:
                return [got]
        try:
            with np.errstate(all="ignore"):
                out = self._apply(op, name, args, elem)
        except (ValueError, TypeError, OverflowError, ZeroDivisionError) as e:
            return [Unknown(f"{op_label(op)} at line {line_of(op)} ({e})")]
        if isinstance(out, Unknown):
            return [U.combine(args)]
        got = norm(wrap(out, elem))
        if key is not None and type(got) is int:
            self._int_folds[key] = got
        return [got]

    def _fold_case(self, op: Operation, frame: Frame, depth: int) -> list:
        idx = self._branch_index(op, frame)
        if isinstance(idx, Unknown):
            return [Unknown(idx.reason, op)] * op.num_results
        if isinstance(idx, Uni):
            outs = [self._returned(region, self._branch_frame(op, b, frame, depth))
                    for b, region in enumerate(op.regions)]
            return [join([r[i] if i < len(r) else Unknown("no value") for r in outs], idx)
                    for i in range(op.num_results)]
        per_branch = []
        for b, region in enumerate(op.regions):
            sel = (idx == b) if isinstance(idx, np.ndarray) else (np.ones(self.n, bool) if idx == b else None)
            if sel is None or not sel.any():
                continue
            inner = self._branch_frame(op, b, frame, depth)
            per_branch.append((sel, self._returned(region, inner)))
        return [merge([(sel, r[i] if i < len(r) else Unknown("no value")) for sel, r in per_branch])
                for i in range(op.num_results)]

    def _fold_while(self, op: Operation, frame: Frame, depth: int) -> list:
        if len(op.regions) != 2:
            return [Unknown("a malformed while")] * op.num_results
        cond, body = op.regions
        carried = [self.value(v, frame, depth + 1) if v is not None else Unknown("undefined") for v in op.operands]
        active = np.ones(self.n, dtype=bool)
        known = known_trip_count(op)
        for trip in range(self.max_trips + 1):
            self._check_budget()
            ret = self._region_returns(cond, frame, carried)
            pred = ret[0] if ret else Unknown("no predicate")
            if known is not None and not isinstance(pred, (int, np.ndarray)):
                pred = int(trip < known)
            if isinstance(pred, Uni):
                return self._fold_uniform_while(op, frame, carried, pred)
            if isinstance(pred, (Unknown, FutureVal, Table)):
                return [Unknown(f"a while at line {line_of(op)} whose trip count depends on data", op)] * op.num_results
            go = active & (as_np(pred) != 0)
            if not go.any():
                return carried
            new = self._region_returns(body, frame, carried)
            if len(new) != len(carried):
                return [Unknown("a malformed while")] * op.num_results
            carried = [merge([(go, nv), (~go, c)]) for nv, c in zip(new, carried)]
            active = go
        return [Unknown(f"a while at line {line_of(op)} with more than {self.max_trips} iterations", op)] \
            * op.num_results

    def _fold_inline(self, op: Operation, frame: Frame, depth: int) -> list:
        """An sdy.manual_computation / named_computation folded like a call: its
        region on the operands (a manual computation's on each device's shard of
        them), as the tracer runs it (`Tracer._inline`). Needed where the tracer
        did not run it, having no communication inside: JAX reads `axis_index` in
        a partially manual shard_map through a nested, operand-less manual
        computation over the other axes, and folding that from its (no) operands
        called the process id the same everywhere (a missed deadlock, XLA:CPU
        aborts)."""
        if not op.regions or not op.regions[0].blocks or depth > 120:
            return [Unknown(f"the {op_label(op)} at line {line_of(op)}")] * op.num_results
        return self._region_returns(op.regions[0], frame, self._inline_args(op, frame, depth + 1))

    def _inline_args(self, op: Operation, frame: Frame, depth: int = 0) -> list:
        """What an sdy.manual_computation / named_computation's region is entered
        with: its operands, as each device's shard for a manual computation (the
        tracer's `_inline` and `_fold_inline` alike)."""
        args = [self.value(v, frame, depth) if v is not None else Unknown("undefined value") for v in op.operands]
        if op.name == "sdy.manual_computation":
            args = [self._shard(op, i, a) for i, a in enumerate(args)]
        return args

    def _fold_call(self, op: Operation, frame: Frame, depth: int) -> list:
        name = self.struct.callees.get(id(op))
        func = self.struct.funcs.get(name) if name else None
        if func is None or not func.regions or depth > 120:
            return [Unknown(f"a call to @{name}")] * op.num_results
        region = func.regions[0]
        inner = Frame(region, None)
        if region.blocks:
            self._bind(region.blocks[0], inner, [self.value(v, frame, depth + 1) if v is not None else
                                                 Unknown("undefined") for v in op.operands])
        return self._returned(region, inner)

    # -- folds that need no communication facts (constants, tables, shardings, integer
    # arithmetic) --------------------------------------------------------------------------
    def _shard(self, op: Operation, index: int, val):
        """Operand `index` of a manual_computation as each device sees it: its shard
        (the same on devices its in_sharding does not split along the manual axes)."""
        if isinstance(val, (Unknown, FutureVal)):
            return val
        classes = U.manual_arg_classes(op, index, self.module, self.grid)
        if classes is None:
            return val
        src = name_of(op.operands[index])
        if isinstance(classes, str):
            return U.per_process(self.n, f"{src} ({classes}: taken as per-device data)", op)
        sh = U.sdy_list(op.attr("in_shardings"))
        text = U.sharding_text(sh[index]) if sh else "?"
        origin = U.Origin(f"{src} sharded {text} along the manual axes (each device holds its own shard)", op, classes)
        return U.combine([val, Uni(classes, (origin,))])

    def _entry_arg(self, v: Value) -> object:
        block = self.entry_block
        try:
            index = block.arguments.index(v)  # type: ignore[union-attr]
        except ValueError:
            return Unknown(f"the block argument {v.name} (data)")
        return U.entry_arg(self.entry_func, index, v.name or f"#{index}", self.module, self.grid)  # type: ignore[arg-type]

    def _custom_call(self, op: Operation, frame: Frame, depth: int) -> list:
        """JAX's GSPMD shard_map markers: @Sharding passes its operand; the result of
        @SPMDFullToShardShape is each device's shard (the same on devices the
        preceding @Sharding does not split); @SPMDShardToFullShape is one logical
        array again. Any other custom call is taken as per-device data."""
        target = op.attr("call_target_name")
        name = target.value if isinstance(target, StringAttr) else ""
        n = max(op.num_results, 1)
        operand = op.operands[0] if op.operands else None
        if name == "Sharding" and operand is not None:
            return [self.value(operand, frame, depth + 1)] * n
        if name == "SPMDShardToFullShape":
            # One logical array again, unless its sharding is still manual along
            # other axes (a shard_map nested in a partially manual one: JAX's
            # `axis_index` there comes out of a full-manual helper): each device
            # then still holds its own value, the one it computed.
            sh = op.attr("mhlo.sharding")
            if operand is not None and sh is not None and "manual" in U.sharding_text(sh):
                return [self.value(operand, frame, depth + 1)] * n
            return [U.UNIFORM] * n
        if name == "SPMDFullToShardShape" and operand is not None:
            val = self.value(operand, frame, depth + 1)
            if isinstance(val, (Unknown, FutureVal)):
                return [val] * n
            src_op = operand.owner
            sh = src_op.attr("mhlo.sharding") if isinstance(src_op, Operation) else None
            text = U.sharding_text(sh) if sh is not None else "{replicated}"
            classes = U.hlo_sharding_classes(text, self.grid)
            if classes is None:
                return [val] * n
            src = name_of(src_op.operands[0]) if isinstance(src_op, Operation) and src_op.operands and \
                src_op.operands[0] is not None else name_of(operand)
            if isinstance(classes, str):
                return [U.per_process(self.n, f"{src} ({classes}: taken as per-device data)", op)] * n
            origin = U.Origin(f"{src} sharded {text} (each device holds its own shard)", op, classes)
            return [U.combine([val, Uni(classes, (origin,))])] * n
        return [U.per_process(self.n, f"the custom_call @{name} at line {line_of(op)}", op)] * n

    def _table_slice(self, op: Operation, args: list):
        """`dynamic_slice` of a constant table at per-process indices, one element."""
        table = args[0].array
        starts = args[1:]
        sizes = op.attr("slice_sizes")
        if len(starts) != table.ndim or (table.size and any(d < 1 for d in table.shape)):
            return None
        try:
            sz = list(getattr(sizes, "values", None) or [])
        except TypeError:
            sz = []
        if sz and any(int(x) != 1 for x in sz):
            return None
        idx = []
        for s, dim in zip(starts, table.shape):
            a = as_np(s)
            idx.append(np.broadcast_to(np.clip(a, 0, dim - 1), (self.n,)))
        out = table[tuple(idx)].astype(np.int64)
        return out

    def _table_gather(self, op: Operation, table: np.ndarray, index):
        """`gather` of one element of a constant table at a per-process index (what
        `jnp.take(table, i)` lowers to): the index vector has one component, mapped
        to one table dimension by start_index_map; other dimensions start at 0."""
        dn = op.attr("dimension_numbers")
        params = dict(getattr(dn, "params", ()) or ())
        sim = params.get("start_index_map")
        dims = [e.value for e in getattr(sim, "elements", ())] if sim is not None else []
        if len(dims) != 1 or not (0 <= dims[0] < table.ndim) or table.size == 0:
            return None
        starts = [np.zeros(self.n, dtype=np.int64)] * table.ndim
        d = dims[0]
        starts = list(starts)
        starts[d] = np.broadcast_to(np.clip(as_np(index), 0, table.shape[d] - 1), (self.n,))
        return table[tuple(starts)].astype(np.int64)

    def _constant(self, op: Operation, elem: ScalarType | None):
        a = op.attr("value")
        if isinstance(a, DenseElementsAttr):
            t = op.result_types[0] if op.result_types else None
            if elem is not None or (isinstance(t, TensorType) and isinstance(t.element, ScalarType)
                                    and t.element.is_integer and t.shape is not None
                                    and int(np.prod(t.shape)) <= TABLE_LIMIT):
                try:
                    arr = a.array
                except Exception:
                    return U.UNIFORM
                if elem is not None and arr.size == 1:
                    return wrap(int(arr.reshape(-1)[0]), elem)
                if elem is None and t is not None and arr.size == int(np.prod(t.shape)):  # type: ignore[union-attr]
                    return Table(np.asarray(arr, dtype=np.int64).reshape(t.shape))  # type: ignore[union-attr]
                if elem is None and arr.size == 1 and t is not None:  # a splat
                    return Table(np.full(t.shape, int(arr.reshape(-1)[0]), dtype=np.int64))  # type: ignore[union-attr]
        return U.UNIFORM

    def _apply(self, op: Operation, name: str, args: list, elem: ScalarType):
        if name in BINARY_FOLDS and len(args) == 2:
            a, b = args
            if name == "stablehlo.shift_right_logical" and elem.bitwidth and not elem.is_unsigned:
                a = np.bitwise_and(as_np(a), (1 << elem.bitwidth) - 1)
            return BINARY_FOLDS[name](as_np(a), as_np(b))
        if name in ("stablehlo.divide", "stablehlo.remainder") and len(args) == 2:
            a, b = as_np(args[0]), as_np(args[1])
            if bool(np.any(b == 0)):
                return Unknown(f"a division by zero at line {line_of(op)}")
            q = truncating_divide(a, b)
            return q if name == "stablehlo.divide" else a - b * q
        if name == "stablehlo.negate" and len(args) == 1:
            return -as_np(args[0])
        if name == "stablehlo.abs" and len(args) == 1:
            return np.abs(as_np(args[0]))
        if name == "stablehlo.sign" and len(args) == 1:
            return np.sign(as_np(args[0]))
        if name == "stablehlo.not" and len(args) == 1:
            a = as_np(args[0])
            return (a == 0).astype(np.int64) if elem.name == "i1" else np.invert(a)
        if name == "stablehlo.compare" and len(args) == 2:
            d = op.attr("comparison_direction")
            direction = d.value if isinstance(d, EnumAttr) else str(getattr(d, "text", d))
            direction = direction.strip().split()[-1].strip(">") if direction else ""
            fn = COMPARE_UFUNCS.get(direction)
            if fn is None:
                return Unknown(f"a compare with direction {direction!r}")
            a, b = as_np(args[0]), as_np(args[1])
            ct = op.attr("compare_type")
            if isinstance(ct, EnumAttr) and ct.value == "UNSIGNED":
                a, b = a.astype(np.uint64), b.astype(np.uint64)
            return getattr(np, fn)(a, b).astype(np.int64)
        if name == "stablehlo.select" and len(args) == 3:
            return np.where(as_np(args[0]) != 0, as_np(args[1]), as_np(args[2]))
        if name == "stablehlo.clamp" and len(args) == 3:
            return np.minimum(np.maximum(as_np(args[1]), as_np(args[0])), as_np(args[2]))
        if name == "stablehlo.convert" and len(args) == 1:
            src = op.operand_types[0] if op.operand_types else None
            se = scalar_element(src)
            if se is None:
                return Unknown(f"a convert from {src} at line {line_of(op)}")
            return as_np(args[0])
        if name in PASS_THROUGH_OPS and args:
            return as_np(args[0])
        return Unknown(f"{op_label(op)} at line {line_of(op)}", op)

    def _region_returns(self, region: Region, frame: Frame, args: list) -> list:
        """What `region` returns (folded, nothing executed) when its entry block
        takes `args`: one run of a loop's cond or body."""
        inner = Frame(region, frame)
        if region.blocks:
            self._bind(region.blocks[0], inner, args)
        return self._returned(region, inner)

    def _fold_uniform_while(self, op: Operation, frame: Frame, carried: list, pred: Uni) -> list:
        """A loop's results when its trip count is unknown but uniform: what the
        carried values are the same over, after 0, 1 or 2 iterations."""
        body = op.regions[1]
        for _ in range(UNIFORM_WIDEN):
            new = self._region_returns(body, frame, carried)
            if len(new) != len(carried):
                return [Unknown("a malformed while")] * op.num_results
            wide = [join([c, v], pred) for c, v in zip(carried, new)]
            if all(same_value(a, b) for a, b in zip(wide, carried)):
                return wide
            carried = wide
        return [Unknown(f"a while at line {line_of(op)} whose carried values do not settle", op)] * op.num_results


def _ops_in(region: Region):
    """Every op nested in a region."""
    for block in region.blocks:
        for op in block.operations:
            yield from op.walk()


def trace(module: Module, grid: Grid, struct: Structure | None = None, *, entry: str | None = None,
          max_trips: int = 4096, max_steps: int = 200_000, deadline: float | None = None, skip=None,
          max_class_events: int = 1 << 62, processes: np.ndarray | None = None, meet_key=None) -> Trace:
    """Trace one entry function (default: the first of `structure(module).entries`).
    `processes` (bool[N]): the processes that run it (default all); `meet_key`:
    see Tracer.meet_key. Raises TraceLimit when the budget or the deadline runs out."""
    struct = struct or structure(module)
    name = entry or (struct.entries[0] if struct.entries else None)
    if name is None or name not in struct.funcs:
        raise KeyError("no entry function")
    return Tracer(module, grid, struct, max_trips=max_trips, max_steps=max_steps, deadline=deadline,
                  skip=skip, max_class_events=max_class_events, processes=processes,
                  meet_key=meet_key).run(name)
