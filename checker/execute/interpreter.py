"""The multi-process reference interpreter: every process of the grid runs the
program as a coroutine; a deterministic scheduler resumes them in flattened-id
order until all finish or none can make progress (a deadlock).

A process coroutine yields a `Wait` whenever it needs something other processes
provide (a rendezvous of its process group, a message from a send, the shards of
a global value). The scheduler runs process 0 until it blocks, then process 1, and
so on, and goes round again while anything moved. When a whole round moves
nothing and some process is unfinished, every unfinished process is blocked: the
report names each one, the op it is blocked at (file:line) and what it waits for.

Op semantics live in classes with `@impl(op_name)` methods, one class per op
family (ops/: compute, indexing, reductions, control flow, sdy and the sharding
custom_calls, the check dialect; comm.py: collectives, send/recv, async
start/done), registered in registry.py. This module imports them (to fill the
registry); they never import it.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any, Callable, Iterator

import numpy as np

from ..ir.catalog import COMMUNICATING, FORWARDING, TERMINATORS, base_kind
from ..ir.core import Block, Module, Operation, Region, Value, func_type
from ..analysis.semantics import Grid, grid_of
from ..analysis.tracer.structure import op_label
from ..ir.types import TensorType
from .backends import NumpyBackend
from .ops.quant import is_quantized_op, quantized_call
from .op_registry import bind_impls, function_classes
from .runtime import Frame, Process, Slot, SlotWait, compress_states, custom_call_target, fmt_pid, program_mode
from .values import (TOKEN, ExecutionError, Future, Inputs, LimitExceeded, PendingGlobal, Unsupported, nbytes,
                     tensor_type)


# Errors of an op's implementation (ours); numpy's ValueError etc. come from odd data.
_OURS = (AttributeError, NameError, KeyError, AssertionError, UnboundLocalError)


def default_max_processes() -> int:
    """`run-max-processes`'s default (declared with the other -O options)."""
    from ..lint import options

    return options.get("run-max-processes").default


@dataclass
class Limits:
    time_s: float = 60.0
    memory_bytes: int = 4 << 30
    max_steps: int = 50_000_000
    max_processes: int = field(default_factory=default_max_processes)
    """The largest grid run (`-O run-max-processes`): each process is a coroutine with
    its own values, so a grid of millions would take minutes and gigabytes before the
    time or memory limit could say anything."""


def grid_refusal(grid: Grid, max_processes: int) -> str | None:
    """Why no engine runs this grid (more processes than `max_processes`), or None."""
    if not grid.known or grid.size <= max_processes:
        return None
    return (f"refused: the grid has {grid.size:,} processes ({grid.num_replicas:,} x {grid.num_partitions:,}), "
            f"more than run-max-processes = {max_processes:,} (each process runs the program with its own values; "
            f"-O run-max-processes=N raises the limit, --num-replicas / --num-partitions run a smaller grid)")


class World:
    """Everything the processes share: rendezvous, mailboxes, slots, counters."""

    def __init__(self, interp: "Interpreter", grid: Grid):
        self.interp = interp
        self.grid = grid
        self.procs: dict[tuple[int, int], Process] = {}
        self.rendezvous: dict[tuple, Any] = {}
        self.mailboxes: dict[tuple, list] = {}
        self.counters: dict[tuple, int] = {}
        self.slots: dict[tuple, Slot] = {}
        self.sent: dict[tuple, Any] = {}
        """Messages (sends, permute sends) by (kind, key..., source, target, n)."""
        self.reached: set[tuple] = set()
        """Permute instances a target has reached (its source's send counts as received)."""
        self.live_bytes = 0
        self.text_cache: dict[tuple, str] = {}

    def next_instance(self, pid: tuple[int, int], op: Operation) -> int:
        """How many times this process has reached `op` before (matches the k-th
        arrival of every process at the same op)."""
        key = (pid, op.span.start)
        n = self.counters.get(key, 0)
        self.counters[key] = n + 1
        return n

    def describe_peers(self, peers: list[tuple[int, int]]) -> str:
        if not peers:
            return "no process"
        parts = []
        for p in peers:
            proc = self.procs.get(p)
            if proc is None:
                parts.append(f"process {fmt_pid(p)} (not in the grid)")
            elif proc.state == "finished":
                parts.append(f"process {fmt_pid(p)} (finished)")
            elif proc.state == "blocked" and proc.op is not None:
                parts.append(f"process {fmt_pid(p)} (blocked at {self.interp.label(proc.op)}, "
                             f"{self.interp.where(proc.op)})")
            else:
                parts.append(f"process {fmt_pid(p)} ({proc.state})")
        return compress_states(parts)


# ----------------------------------------------------------------------------- results
@dataclass
class Blocked:
    process: tuple[int, int]
    op: str
    path: str
    line: int
    column: int
    waits_for: str
    stack: list[str] = field(default_factory=list)
    """"op at path:line" for each enclosing call/loop/branch, innermost last."""
    kind: str | None = None
    """What the op does, as the catalog says (`all_reduce`, `recv`), whatever an engine
    calls the op (`stablehlo.all_reduce`, `all-reduce`): what `--engine both` compares."""

    def to_json(self) -> dict:
        return {"process": list(self.process), "op": self.op, "path": self.path, "line": self.line,
                "column": self.column, "waits_for": self.waits_for, "stack": self.stack}


@dataclass
class InterpResult:
    outcome: str
    """completed | deadlock | error | timeout | unsupported (an op or custom_call it does not run)"""
    grid: Grid
    mode: str
    """"global" (entry takes global arrays: shard_map/GSPMD exports) or "per_device"."""
    outputs: dict
    """process → list of output arrays (numpy), or {None: [...]} for a global program's assembled outputs."""
    blocked: list[Blocked] = field(default_factory=list)
    states: dict = field(default_factory=dict)
    """process → ready | blocked | finished | error."""
    message: str | None = None
    error_at: tuple[str, int, int] | None = None
    steps: int = 0
    elapsed_s: float = 0.0
    backend: str = "numpy (cpu)"
    inputs: dict = field(default_factory=dict)
    """process (or None for shared global inputs) → list of input arrays."""
    notes: list[str] = field(default_factory=list)
    """Things worth knowing about a run (collectives XLA's matching paired)."""
    checks: dict | None = None
    """{"passed": n, "failed": [{"op", "path", "line", "column", "message"}]} when the
    program asserts with the check dialect (outcome "failed" when one fails)."""
    printed: list[str] = field(default_factory=list)
    """What `interpreter.print` ops printed, in the order they ran (printing.py:
    `%0 = tensor<2xi32> {...}`, as StableHLO's interpreter prints it)."""


# Ops that make a program need a grid: without grid attributes and without any
# of these a module runs as one process, as the reference interpreter does.
_NEEDS_GRID = frozenset({*(n for n in COMMUNICATING if n.startswith("stablehlo.")), "sdy.manual_computation"})


def single_process_grid(module: Module, grid: Grid) -> Grid:
    """`grid`, or 1x1 for a module with no grid attributes that neither
    communicates nor splits arrays over devices (a test driver whose processes
    `interpreter.run_parallel` starts counts as one process)."""
    if grid.known:
        return grid
    ops = list(module.walk())
    if any(op.name == "interpreter.run_parallel" for op in ops):
        return Grid(1, 1, "run_parallel")
    for op in ops:
        if op.name in _NEEDS_GRID or (op.name == "stablehlo.custom_call" and custom_call_target(op) in (
                "SPMDFullToShardShape", "SPMDShardToFullShape")):
            return grid
    return Grid(1, 1, "default")


class ParallelDeadlock(Exception):
    """The processes an interpreter.run_parallel started deadlocked: the run
    reports them (the child interpreter's world)."""

    def __init__(self, child: "Interpreter", message: str):
        super().__init__(message)
        self.child = child
        self.message = message


# ----------------------------------------------------------------------------- interpreter
class Interpreter:
    """Runs one module for every process of its grid."""

    def __init__(self, module: Module, grid: Grid | None = None, backend=None, limits: Limits | None = None,
                 schedule: list[tuple[int, int]] | None = None, matching: str = "xla",
                 parent: "Interpreter | None" = None, external_channels: frozenset[int] = frozenset(),
                 reorder: tuple[Operation, Operation] | None = None):
        if matching not in ("xla", "spec"):
            raise ExecutionError(f"matching must be xla or spec, not {matching!r}")
        self.matching = matching
        """How collectives on different processes meet: "xla" (kind + channel + groups for
        ops with a positive channel, as XLA's runtime does; the default, as in the
        deadlock analysis) or "spec" (only at the same op)."""
        self.notes: list[str] = []
        self.module = module
        self.grid = grid or grid_of(module)
        if parent is None:
            self.grid = single_process_grid(module, self.grid)
        self.parent = parent
        """The interpreter whose interpreter.run_parallel started this one (shares checks and probes)."""
        self.checks: dict = parent.checks if parent else {"passed": 0, "failed": []}
        self.printed: list[str] = parent.printed if parent else []
        """interpreter.print's output, shared with the processes run_parallel starts."""
        self.probes: dict = parent.probes if parent else {}
        self.infeeds: list[str] = []
        self.external_channels = parent.external_channels if parent else frozenset(external_channels)
        """Channels whose send/recv talk to another program (the `external-channels` option)."""
        self.harness = parent is not None
        """Inside interpreter.run_parallel: host transfers travel between its processes by channel."""
        self.backend = backend or NumpyBackend()
        self.limits = limits or Limits()
        self.schedule = schedule
        """Optional process order for each scheduling round (replaying a counterexample)."""
        self.world = World(self, self.grid)
        self.block_order: dict[int, list[Operation]] = {}
        """id(block) → its ops in the issue order to run (issue_order.py: `reorder` =
        (first, second), the deadlock analysis's Verdict.schedule, issues second first)."""
        if reorder is not None:
            from .issue_order import reordered

            first, second = reorder
            self.block_order[id(second.parent)] = reordered(second.parent, first, second)
        self.impls: dict[str, tuple[Callable, bool]] = {}
        self._operand_cache: dict[int, list[Value | None]] = {}
        self._quantized: dict[int, bool] = {}
        """op → whether it computes on quantized values (dequantize, op, quantize)."""
        self._deadline = 0.0
        self.meshes: dict[str, Any] = {}
        self.vectorized = 0
        self.total_steps = 0
        """>0 while a scalar reduction body runs on whole arrays (element-wise)."""
        from . import comm, ops  # noqa: F401 - importing them registers their op classes

        for cls in function_classes():
            self.impls.update(bind_impls(cls(self)))

    # -- locations --------------------------------------------------------------
    def label(self, op: Operation, default: str | None = None) -> str:
        """How the run report names an op: in a module read from XLA's HLO text, the
        opcode its line shows (`all-reduce`, `conditional`: analysis' op_label, which
        the lint's messages use too); otherwise `default`, or the IR name as MLIR
        writes it (`stablehlo.all_reduce`)."""
        if self.module.front_end == "hlo":
            return op_label(op)
        return default if default is not None else op.name

    def where(self, op: Operation | None) -> str:
        if op is None:
            return "?"
        path, line, col = self.location(op)
        return f"{path}:{line}:{col}"

    def location(self, op: Operation) -> tuple[str, int, int]:
        src = self.module.source
        try:
            start = op.name_span.start
        except Exception:  # noqa: BLE001 - a header that does not parse still has a span
            start = op.span.start
        line, col = src.line_col(start)
        return src.path, line, col

    # -- program shape ----------------------------------------------------------
    def entry(self) -> Operation:
        func = self.module.entry_function()
        if func is None:
            raise ExecutionError("no entry function: expected @main or a single public func.func")
        return func

    def mode(self) -> str:
        return program_mode(self.module)

    def preflight(self, entry: Operation) -> None:
        """Refuse before running anything: custom_calls the checker does not know
        (they would be native code), an unknown grid, a malformed module."""
        if self.module.structurally_broken or self.module.syntax_errors:
            msg, span = self.module.syntax_errors[0] if self.module.syntax_errors else ("unreadable module", None)
            raise ExecutionError(f"the module does not parse: {msg}")
        if not self.grid.known:
            raise ExecutionError("the process grid is unknown: the module has no mhlo.num_partitions / "
                                 "mhlo.num_replicas (pass --num-partitions / --num-replicas)")
        refused = grid_refusal(self.grid, self.limits.max_processes)
        if refused:
            raise ExecutionError(refused)
        from ..analysis.semantics import reachable_funcs

        names = reachable_funcs(self.module, entry.symbol_name or "main")
        funcs = [f for f in (self.module.funcs.get(n) for n in names) if f is not None]
        for func in funcs:  # headers parse lazily: read them all before judging any
            for op in func.walk():
                op.header  # noqa: B018
        if self.module.syntax_errors:
            msg, _span = self.module.syntax_errors[0]
            raise ExecutionError(f"the module does not parse: {msg}")
        for func in funcs:
            for op in func.walk():
                if op.name == "stablehlo.custom_call":
                    target = custom_call_target(op)
                    if f"custom_call@{target}" not in self.impls:
                        known = sorted(k.split("@", 1)[1] for k in self.impls if k.startswith("custom_call@"))
                        raise Unsupported(
                            f"refused: custom_call @{target} at {self.where(op)}: the execution checker runs only "
                            f"the custom_calls it implements (@{', @'.join(known)}); it does not call native code "
                            f"it does not know", op)
        if self.module.syntax_errors:  # headers parsed lazily above may have failed
            msg, _span = self.module.syntax_errors[0]
            raise ExecutionError(f"the module does not parse: {msg}")

    # -- running ----------------------------------------------------------------
    def run(self, inputs: Inputs | None = None) -> InterpResult:
        inputs = inputs or Inputs()
        t0 = time.monotonic()
        self._deadline = t0 + self.limits.time_s
        mode = "per_device"
        result_inputs: dict = {}
        try:
            entry = self.entry()
            self.preflight(entry)
            mode = self.mode()
            ftype = func_type(entry)
            if ftype is None:
                raise ExecutionError(f"entry function @{entry.symbol_name} has no readable signature", entry)
            shared = inputs.make(list(ftype.inputs), None) if mode == "global" else None
            if shared is not None:
                result_inputs[None] = shared
            for r, p in self.grid.processes():
                pid = (r, p)
                proc = Process(pid, self.grid.flat(r, p))
                args = shared if shared is not None else inputs.make(list(ftype.inputs), pid, proc.flat)
                if shared is None:
                    result_inputs[pid] = args
                proc.coroutine = self._main(proc, entry, [self._to_backend(a) for a in args])
                self.world.procs[pid] = proc
            outcome, message = self._schedule()
        except ParallelDeadlock as e:
            child = e.child
            res = child._result("deadlock", mode, t0, e.message, None, result_inputs)
            res.checks = self._checks_json()
            return res
        except ExecutionError as e:
            return self._result("unsupported" if isinstance(e, Unsupported) else "error", mode, t0, e.message,
                                e.op, result_inputs)
        except LimitExceeded as e:
            return self._result("timeout" if e.kind == "time" else "error", mode, t0, e.message, None, result_inputs)
        return self._result(outcome, mode, t0, message, None, result_inputs)

    def _to_backend(self, a):
        return a if a is TOKEN else self.backend.asarray(a)

    def _main(self, proc: Process, entry: Operation, args: list) -> Iterator:
        frame = Frame(proc)
        proc.outputs = yield from self.call_function(frame, entry, args)
        # XLA's send-done: a process finishes once everything it sent has been received
        from .comm_state import DeliveryWait

        for msg in proc.obligations:
            if not msg.received:
                proc.op = msg.op
                yield DeliveryWait(msg, msg.op)

    def _schedule(self) -> tuple[str, str | None]:
        procs = list(self.world.procs.values())
        order = procs
        if self.schedule:
            rank = {pid: i for i, pid in enumerate(self.schedule)}
            order = sorted(procs, key=lambda p: rank.get(p.pid, len(rank) + p.flat))
        while True:
            moved = False
            for proc in order:
                if proc.state in ("finished", "error"):
                    continue
                if proc.state == "blocked":
                    if not proc.wait.ready():
                        continue
                    proc.state, proc.wait = "ready", None
                while proc.state == "ready":
                    try:
                        wait = next(proc.coroutine)
                    except StopIteration:
                        proc.state = "finished"
                        proc.op = None
                        moved = True
                        break
                    moved = True
                    if not wait.ready():
                        proc.state, proc.wait = "blocked", wait
            if all(p.state == "finished" for p in procs):
                return "completed", None
            if not moved:
                n = sum(p.state == "blocked" for p in procs)
                return "deadlock", f"{n} of {len(procs)} processes are blocked and none can make progress"

    def _result(self, outcome, mode, t0, message, op, inputs) -> InterpResult:
        world = self.world
        res = InterpResult(outcome, self.grid, mode, {}, message=message, steps=sum(p.steps for p in world.procs.values()),
                           elapsed_s=time.monotonic() - t0, backend=self.backend.describe(), inputs=inputs)
        if op is not None:
            res.error_at = self.location(op)
            where = self.where(op)
            res.message = message if where in (message or "") else f"{message} at {where}"
        res.states = {pid: p.state for pid, p in world.procs.items()}
        res.notes = list(dict.fromkeys(self.notes))
        if outcome == "deadlock":
            for pid, p in world.procs.items():
                if p.state == "blocked":
                    path, line, col = self.location(p.op)
                    res.blocked.append(Blocked(pid, self.label(p.op), path, line, col, p.wait.waits_for(world, pid),
                                               [f"{self.label(s)} at {self.where(s)}" for s in p.stack
                                                if s is not p.op], base_kind(p.op.name)))
        if outcome == "completed":
            res.outputs = self._outputs(mode)
        res.checks = self._checks_json()
        res.printed = list(self.printed)
        if outcome == "completed" and res.checks and res.checks["failed"]:
            failed = res.checks["failed"]
            res.outcome = "failed"
            res.message = (f"{len(failed)} of {len(failed) + res.checks['passed']} checks failed: " +
                           "; ".join(f"{f['op']} at {f['path']}:{f['line']}:{f['column']}: {f['message']}"
                                     for f in failed[:5]) + (" ..." if len(failed) > 5 else ""))
            first = failed[0]
            res.error_at = (first["path"], first["line"], first["column"])
        return res

    # -- the check dialect and interpreter.run_parallel ------------------------------
    def check_passed(self, op: Operation) -> None:
        self.checks["passed"] += 1

    def check_failed(self, op: Operation, message: str) -> None:
        path, line, col = self.location(op)
        self.checks["failed"].append({"op": op.name, "path": path, "line": line, "column": col, "message": message})

    def _checks_json(self) -> dict | None:
        c = self.checks
        return c if (c["passed"] or c["failed"]) else None

    def run_programs(self, op: Operation, grid: Grid, funcs: dict, inputs: dict, infeeds: list[str]) -> dict:
        """interpreter.run_parallel: run `funcs[pid]` on `inputs[pid]` as the processes
        of `grid` to completion; their results by process. A deadlock among them
        ends the whole run (ParallelDeadlock)."""
        child = Interpreter(self.module, grid, self.backend, self.limits, matching=self.matching, parent=self)
        child._deadline = self._deadline
        child.infeeds = list(infeeds)
        for pid in grid.processes():
            proc = Process(pid, grid.flat(*pid))
            proc.coroutine = child._main(proc, funcs[pid], list(inputs[pid]))
            child.world.procs[pid] = proc
        outcome, message = child._schedule()
        self.total_steps += child.total_steps
        self.notes += child.notes
        if outcome != "completed":
            raise ParallelDeadlock(child, f"the processes interpreter.run_parallel ({self.where(op)}) started: "
                                          f"{message}")
        return {pid: p.outputs for pid, p in child.world.procs.items()}

    def _outputs(self, mode: str) -> dict:
        out: dict = {}
        for pid, p in self.world.procs.items():
            vals = []
            for v in p.outputs or []:
                if isinstance(v, PendingGlobal):
                    v = v.slot.value(v.index) if v.slot.complete else None
                vals.append(None if v is None or v is TOKEN or isinstance(v, Future) else self.backend.to_numpy(v))
            out[pid] = vals
        if mode == "global" and out:
            first = out[min(out)]
            return {None: first}
        return out

    # -- functions, regions, blocks -----------------------------------------------
    def call_function(self, frame_or_proc, func: Operation, args: list) -> Iterator:
        proc = frame_or_proc.proc if isinstance(frame_or_proc, Frame) else frame_or_proc
        if not func.regions or not func.regions[0].blocks:
            raise ExecutionError(f"function @{func.symbol_name} has no body (external functions are not run)", func)
        frame = Frame(proc)
        try:
            return (yield from self.run_region(frame, func.regions[0], args))
        finally:
            self.world.live_bytes -= frame.bytes

    def run_region(self, frame: Frame, region: Region, args: list) -> Iterator:
        """Run a single-block region with `args` bound to its block arguments; the
        values its terminator returns."""
        if not region.blocks:
            return []
        if len(region.blocks) > 1:
            raise ExecutionError("regions with several blocks (unstructured control flow) are not run",
                                 region.parent)
        block = region.blocks[0]
        self.bind_args(frame, block, args)
        return (yield from self.run_block(frame, block))

    def bind_args(self, frame: Frame, block: Block, args: list) -> None:
        params = block.arguments
        if len(params) != len(args):
            owner = block.parent.parent
            raise ExecutionError(f"region of {owner.name if owner else 'function'} takes {len(params)} "
                                 f"arguments, got {len(args)}", owner)
        for v, a in zip(params, args):
            self.bind(frame, v, a)

    def bind(self, frame: Frame, v: Value, a) -> None:
        old = frame.env.get(v)
        size = nbytes(a) - nbytes(old)
        frame.env[v] = a
        frame.bytes += size
        self.world.live_bytes += size

    def run_block(self, frame: Frame, block: Block) -> Iterator:
        proc = frame.proc
        for op in self.block_order.get(id(block), block.operations):
            proc.op = op
            proc.steps += 1
            self.total_steps += 1
            if self.total_steps & 0x3FF == 0:
                self.check_time()
            if op.name in TERMINATORS:
                return [self.lookup(frame, v, op) for v in self.operands(op)]
            entry = self.impls.get(op.name)
            if entry is None:
                raise Unsupported(f"cannot execute: op {op.name}", op)
            fn, blocking = entry
            args = []
            for v in self.operands(op):
                a = self.lookup(frame, v, op)
                if isinstance(a, PendingGlobal) and not getattr(fn, "_accepts_pending", False):
                    a = yield from self.resolve(frame, a, op)
                args.append(a)
            self.check_memory(op)
            try:
                if blocking:
                    proc.stack.append(op)
                    try:
                        results = yield from fn(frame, op, args)
                    finally:
                        proc.stack.pop()
                    proc.op = op
                else:
                    for a in args:  # an op that forwards its operands (the catalog's) passes a future on
                        if type(a) is Future and op.name not in FORWARDING:
                            raise ExecutionError(f"{op.name} uses the future of {a.op.name} at {self.where(a.op)}; "
                                                 "only its done may use a future", op)
                    quantized = self._quantized.get(id(op))
                    if quantized is None:
                        quantized = self._quantized[id(op)] = is_quantized_op(op)
                    with self.backend.errstate():
                        results = quantized_call(self, fn, frame, op, args) if quantized else fn(frame, op, args)
            except ExecutionError as e:
                if e.op is None:
                    e.op = op
                raise
            except (LimitExceeded, ParallelDeadlock):
                raise
            except _OURS as e:  # a bug in an op's implementation, not in the program
                raise ExecutionError(f"cannot execute: internal error in shlo-lint's interpreter at op {op.name} "
                                     f"(ours, not this program's): {type(e).__name__}: {e}", op) from None
            except Exception as e:  # a numpy/jax error on odd data: located, never a traceback
                raise ExecutionError(f"cannot execute: op {op.name} failed: {type(e).__name__}: {e}", op) from None
            res_vals = op.results
            if len(results) != len(res_vals):
                raise ExecutionError(f"cannot execute: op {op.name} produced {len(results)} values for "
                                     f"{len(res_vals)} results", op)
            for v, a in zip(res_vals, results):
                self.bind(frame, v, a)
        raise ExecutionError("block has no terminator", block.parent.parent)

    def resolve(self, frame: Frame, value: PendingGlobal, op: Operation) -> Iterator:
        """The assembled global array behind a PendingGlobal, waiting for every
        process's shard if they have not all produced it yet."""
        slot = value.slot
        if not slot.complete:
            yield SlotWait(slot, op)
        return self.backend.asarray(slot.value(value.index))

    def lookup(self, frame: Frame, v: Value | None, op: Operation):
        if v is None:
            raise ExecutionError(f"cannot execute: op {op.name} uses an undefined value", op)
        try:
            return frame.env[v]
        except KeyError:
            raise ExecutionError(f"cannot execute: {v.name} is used before it has a value", op) from None

    def operands(self, op: Operation) -> list[Value | None]:
        key = id(op)
        vals = self._operand_cache.get(key)
        if vals is None:
            vals = self._operand_cache[key] = op.operands
        return vals

    # -- limits -------------------------------------------------------------------
    def check_time(self) -> None:
        if time.monotonic() > self._deadline:
            raise LimitExceeded("time", f"time limit of {self.limits.time_s:g} s reached")
        if self.total_steps > self.limits.max_steps:
            raise LimitExceeded("time", f"step limit of {self.limits.max_steps} ops reached")

    def check_memory(self, op: Operation) -> None:
        need = 0
        for t in op.result_types:
            if isinstance(t, TensorType):
                need += t.num_bytes or 0
        if need and self.world.live_bytes + need > self.limits.memory_bytes:
            raise LimitExceeded("memory", f"memory limit of {self.limits.memory_bytes / 2**20:.0f} MiB reached at "
                                          f"{op.name} ({self.where(op)}): {need / 2**20:.1f} MiB more on top of "
                                          f"{self.world.live_bytes / 2**20:.1f} MiB live")

    # -- helpers for impls --------------------------------------------------------
    def result_type(self, op: Operation, i: int = 0) -> TensorType:
        types = op.result_types
        if i >= len(types):
            raise ExecutionError(f"cannot execute: op {op.name} has no type for result {i}", op)
        return tensor_type(types[i], f"result {i} of {op.name}")

    def zeros_like_type(self, t: TensorType):
        from .values import dtype_of

        return self.backend.asarray(np.zeros(tuple(t.shape), dtype_of(t.element)))

    def eval_region(self, frame: Frame, region: Region, args: list) -> list:
        """Run a region that cannot block (a reduction body) to completion."""
        gen = self.run_region(frame, region, args)
        self.vectorized += 1
        try:
            next(gen)
        except StopIteration as stop:
            return stop.value
        finally:
            self.vectorized -= 1
        gen.close()
        raise ExecutionError("a reduction region may not communicate", region.parent)
