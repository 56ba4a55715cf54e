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
member of a group (checker/uniform.py): a branch or loop decided by such a value
is followed for every value of it (each branch, a representative trip count),
and one decided by per-device data that can split a communicator it guards is
recorded in `Trace.divergent` (SHLO504). The value kinds and the folds that need
no communication facts are in checker/spmd_values.py.

The op-name facts and `structure()` are in checker/spmd_structure.py (re-exported
here). The deadlock model (checker/deadlock/) reads the classes; the execution
checker can replay `Trace.steps_of(process)`.
"""
from __future__ import annotations

import time

from ..lazy_numpy import np  # imported on first use (lazy_numpy.py)

from .. import uniform as U
from ...ir.core import Block, Module, Operation, Region
from ..semantics import Grid
from .fold import TracerValues
from .trace import ProcessClass, Step, Trace  # noqa: F401  (re-exported)
# The op-name facts and structure() live in spmd_structure.py; used here, or re-exported.
from .structure import (CALL_OPS, CASE_OPS, GROUP_KINDS, INLINE_OPS, RETURN_OPS,  # noqa: F401
                             TESSERA_STARTS, WHILE_OPS, Structure, collective_kind, collective_op, comm_role, op_label,
                             structure)
from .process_values import (NONCOMM_FUTURE, UNIFORM_WIDEN, FutureVal, Table, Unknown, _as_np, _Frame, _join, _line,
                          _merge, _same, uniform_value)
from ..uniform import Divergence, Uni, UniformDecision

# Memory the tracer may spend on process masks (one bool per process per distinct
# set of processes that reaches a step) before it gives up with a TraceLimit.
MAX_MASK_BYTES = 512 << 20


class TraceLimit(Exception):
    """The trace grew past its step budget or deadline."""


class Tracer(TracerValues):
    """Runs one entry function over every process at once (see the module docstring)."""

    def __init__(self, module: Module, grid: Grid, struct: Structure, *, max_trips: int = 4096,
                 max_steps: int = 200_000, deadline: float | None = None, skip=None,
                 max_class_events: int = 1 << 62):
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
        self._received_cache: dict[tuple[int, str], object] = {}
        self._facts: dict[int, tuple] = {}      # id(op) -> (name, results, role): spmd_fold._op_facts
        self._resolved: dict[int, list] = {}    # id(op) -> op.operands: spmd_fold._operands
        self._elems: dict[int, object] = {}     # id(op) -> scalar element or None: spmd_fold._elem
        self._constants: dict[int, object] = {}  # id(op) -> a constant's int (or UNIFORM): spmd_fold._fold
        self._int_folds: dict[tuple, int] = {}   # (id(op), *int args) -> int result: spmd_fold._fold
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
        everyone = np.ones(self.n, dtype=bool)
        self.enter(func)
        if func.regions and func.regions[0].blocks:
            frame = _Frame(func.regions[0], None)
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
                         self.branches, self.loops, self.uniform, self.divergent)
        packed = np.concatenate([np.packbits(np.stack(masks[k:k + 1024]), axis=0)
                                 for k in range(0, len(masks), 1024)])  # bytes × processes
        rows = np.ascontiguousarray(packed.T)
        keys: dict[bytes, int] = {}
        class_of = np.empty(n, dtype=np.int64)
        for p in range(n):
            class_of[p] = keys.setdefault(rows[p].tobytes(), len(keys))
            if (p & 8191) == 8191:
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
                     self.uniform, self.divergent)

    def _exec_region(self, region: Region, frame: _Frame, mask: np.ndarray) -> None:
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

    def _exec_block(self, block: Block, frame: _Frame, mask: np.ndarray, relevant: set[int]) -> None:
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

    def _comm(self, op: Operation, role: str, frame: _Frame, mask: np.ndarray) -> None:
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

    def _bind(self, block: Block, frame: _Frame, vals: list) -> None:
        for arg, val in zip(block.arguments, vals):
            frame.values[arg] = val

    def _returned(self, region: Region, frame: _Frame) -> list:
        block = region.blocks[0] if region.blocks else None
        if block is None or not block.operations or block.operations[-1].name not in RETURN_OPS:
            return []
        return [self.value(v, frame) if v is not None else Unknown("undefined value")
                for v in block.operations[-1].operands]

    def _case(self, op: Operation, frame: _Frame, mask: np.ndarray) -> None:
        idx = self._branch_index(op, frame)
        results: list[list] = []
        if isinstance(idx, Uni):
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
            inner = _Frame(region, frame)
            try:
                self._exec_region(region, inner, mb)
                results.append(self._returned(region, inner))
            finally:
                self.context = saved
        merged = []
        for i in range(op.num_results):
            vals = [(mb, r[i] if i < len(r) else Unknown("no value returned")) for (mb, _b), r in zip(taken, results)]
            merged.append(_merge(vals))
        self._bind_results(op, frame, merged)

    def _case_uniform(self, op: Operation, frame: _Frame, mask: np.ndarray, idx: Uni) -> None:
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
            inner = _Frame(region, frame)
            try:
                self._exec_region(region, inner, live)
                results.append(self._returned(region, inner))
            finally:
                self.context = saved
        self._bind_results(op, frame, [_join([r[i] if i < len(r) else Unknown("no value returned") for r in results],
                                             idx) for i in range(op.num_results)])

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
                      f"{collective_kind(comm)} at line {_line(comm)} it guards (SHLO504)")
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

    def _branch_index(self, op: Operation, frame: _Frame):
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
            idx = np.where(_as_np(raw) != 0, 0, 1)
        else:
            a = _as_np(raw)
            idx = np.where((a < 0) | (a >= n), n - 1, a)
        u = uniform_value(idx)
        return u if u is not None else idx

    def _bind_results(self, op: Operation, frame: _Frame, vals: list) -> None:
        for v, val in zip(op.results, vals):
            frame.values[v] = val

    def _while(self, op: Operation, frame: _Frame, mask: np.ndarray) -> None:
        if len(op.regions) != 2:
            self._unresolved(op, mask, "a while without cond and body regions")
            return
        cond, body = op.regions
        carried = [self.value(v, frame) if v is not None else Unknown("undefined value") for v in op.operands]
        active: np.ndarray | None = mask
        trips = 0
        uniform: Uni | None = None
        uniform_trips = 0
        seen: list[list] = []
        widened: list | None = None
        while active is not None:
            cframe = _Frame(cond, frame)
            if cond.blocks:
                self._bind(cond.blocks[0], cframe, carried)
            if cond.blocks and id(op) in self.struct.relevant:
                self._exec_region(cond, cframe, active)
            ret = self._returned(cond, cframe)
            pred = ret[0] if ret else Unknown("a cond region without a predicate")
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
                    wide = [_join([w, c], uniform) for w, c in zip(widened or seen[-2], carried)]
                    if widened is not None and all(_same(a, b) for a, b in zip(wide, widened)):
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
            go = active & (_as_np(pred) != 0) if isinstance(pred, np.ndarray) else (active if pred else None)
            if go is None or not go.any():
                break
            live = self._live(go)
            if live is None:
                break
            if trips >= self.max_trips:
                self._unresolved(op, live, f"it runs more than {self.max_trips} iterations (deadlock-max-trips)")
                break
            trips += 1
            counts = self.loops.setdefault(id(op), (op, np.zeros(self.n, dtype=np.int64)))[1]
            counts += live
            saved = self.context
            self.context = saved + ((op, f"iteration {trips}"),)
            bframe = _Frame(body, frame)
            try:
                if body.blocks:
                    self._bind(body.blocks[0], bframe, carried)
                self._exec_region(body, bframe, live)
                new = self._returned(body, bframe)
            finally:
                self.context = saved
            if len(new) != len(carried):
                new = (new + [Unknown("no value returned")] * len(carried))[:len(carried)]
            carried = [_merge([(live, n), (~live, c)]) for n, c in zip(new, carried)]
            active = live
            self._check_budget()
        if uniform is not None and seen:
            carried = [_join([s[i] for s in seen] + [carried[i]], uniform) for i in range(len(carried))]
        self._bind_results(op, frame, carried)

    def _call(self, op: Operation, frame: _Frame, mask: np.ndarray) -> None:
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
        inner = _Frame(region, None)
        if region.blocks:
            self._bind(region.blocks[0], inner, args)
        self.depth += 1
        try:
            self._exec_region(region, inner, mask)
        finally:
            self.depth -= 1
        self._bind_results(op, frame, self._returned(region, inner))

    def _inline(self, op: Operation, frame: _Frame, mask: np.ndarray) -> None:
        if not op.regions:
            return
        region = op.regions[0]
        inner = _Frame(region, frame)
        if region.blocks:
            self._bind(region.blocks[0], inner, self._inline_args(op, frame))
        self._exec_region(region, inner, mask)
        self._bind_results(op, frame, self._returned(region, inner))


def trace(module: Module, grid: Grid, struct: Structure | None = None, *, entry: str | None = None,
          max_trips: int = 4096, max_steps: int = 200_000, deadline: float | None = None, skip=None,
          max_class_events: int = 1 << 62) -> Trace:
    """Trace one entry function (default: the first of `structure(module).entries`).
    Raises TraceLimit when the budget or the deadline runs out."""
    struct = struct or structure(module)
    name = entry or (struct.entries[0] if struct.entries else None)
    if name is None or name not in struct.funcs:
        raise KeyError("no entry function")
    return Tracer(module, grid, struct, max_trips=max_trips, max_steps=max_steps, deadline=deadline,
                  skip=skip, max_class_events=max_class_events).run(name)
