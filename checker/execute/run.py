"""One entry point for both engines: run a program, cross-check, and report
(text or JSON). This is what `shlo-lint run` and `--confirm` call.

JSON (one object per program):

    {"outcome": "completed" | "failed" | "deadlock" | "aborted" | "unsupported" | "error" | "timeout",
     "engine": "interp" | "xla" | "both", "path", "grid": [replicas, partitions],
     "mode": "global" | "per_device", "device", "inputs", "message",
     "printed": [...],                                 # interpreter.print, when the program has one
     "blocked": [{"process": [r, p], "op", "path", "line", "column", "waits_for", "stack"}],
     "processes": [{"process": [r, p], "state"}],
     "outputs": [{"index", "name", "process": [r, p] | null, "shape", "dtype", "min", "max", "mean", "sum"}],
     "elapsed_s",
     "engines": {"interp": {...}, "xla": {...}},      # --engine both
     "cross_check": {"status": "match" | "mismatch" | "skipped", "reason", "max_abs_diff", "mismatches"}}

Exit status of `shlo-lint run`: 0 completed (and, with both engines, agreeing);
1 a failed check-dialect assertion, deadlock, aborted or a cross-check mismatch;
2 error, unsupported (by any engine that was asked for: `--engine both` where XLA
cannot run the program is 2, not a skipped cross-check) or timeout.
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass, field, replace

import numpy as np

from ..frontend.read import read_module
from ..lint.engine import read_path
from ..lint.stages import announce, size
from ..ir.core import Module
from ..analysis.semantics import Grid, grid_of
from ..source.processes import GRID_WORDS, names_a_process, process_name, processes_phrase
from .interpreter import Blocked, Interpreter, Limits, default_max_processes, grid_refusal
from .runtime import fmt_pid
from .values import ExecutionError, Inputs, summarize

ENGINES = ("auto", "interp", "xla", "both", "xla-distributed")
"""auto: the interpreter for StableHLO, XLA for HLO text (what XLA runs is the text itself)."""
HANG_OUTCOMES = ("deadlock", "aborted", "timeout")


@dataclass
class RunOptions:
    engine: str = "auto"
    device: str = "cpu"
    inputs: Inputs = field(default_factory=Inputs)
    time_limit_s: float = 60.0
    memory_limit_bytes: int = 4 << 30
    num_replicas: int | None = None
    num_partitions: int | None = None
    xla_timeout_s: float = 120.0
    xla_stuck_warn_s: int = 2
    xla_stuck_terminate_s: int = 10
    rtol: float = 1e-4
    atol: float = 1e-5
    schedule: list | None = None
    """Process order for each scheduling round (a counterexample's processes first)."""
    matching: str = "xla"
    """How collectives meet: "xla" (kind + channel + groups) or "spec" (the same op)."""
    num_processes: int | None = None
    """xla-distributed: OS processes (None: xla.distributed.default_processes)."""
    coordinator: str | None = None
    """xla-distributed: host:port of process 0 (None: 127.0.0.1, a free port)."""
    process_ids: list | None = None
    """xla-distributed: the processes this machine runs (None: all)."""
    dist_stuck_s: float = 10.0
    """xla-distributed: no progress for this long while all processes run = a hang."""
    external_channels: frozenset = frozenset()
    """Channels whose send/recv talk to another program (`-O external-channels=1,3`)."""
    reorder: tuple | None = None
    """interp: (first, second) ops of one block; every process that runs the block
    issues `second` just before `first` (an issue order XLA's scheduler may choose:
    the deadlock analysis's Verdict.schedule; issue_order.py)."""
    max_processes: int | None = None
    """The largest grid any engine runs (`-O run-max-processes`; None: its default):
    a larger one is refused before anything runs."""
    issue_order: str = "scheduler"
    """interp, matching "xla", no `reorder`: "scheduler" runs the issue order XLA's
    scheduler may choose in which the deadlock analysis finds a hang (when the
    order written completes; a note says so), "written" the order as written."""


@dataclass
class EngineReport:
    outcome: str
    engine: str
    device: str
    blocked: list[Blocked] = field(default_factory=list)
    states: dict = field(default_factory=dict)
    outputs: dict = field(default_factory=dict)
    message: str | None = None
    elapsed_s: float = 0.0
    notes: list[str] = field(default_factory=list)
    checks: dict | None = None
    """The check dialect's assertions: {"passed": n, "failed": [{"op", "path", "line", "column", "message"}]}."""
    printed: list[str] = field(default_factory=list)
    """What the program's interpreter.print ops printed (the interpreter's runs)."""

    def to_json(self, names: list[str | None]) -> dict:
        return {"outcome": self.outcome, "engine": self.engine, "device": self.device, "message": self.message,
                "notes": self.notes, **({"checks": self.checks} if self.checks else {}),
                **({"printed": self.printed} if self.printed else {}),
                "blocked": [b.to_json() for b in self.blocked],
                "processes": [{"process": list(p), "state": s} for p, s in sorted(self.states.items())],
                "outputs": _outputs_json(self.outputs, names), "elapsed_s": round(self.elapsed_s, 4)}


@dataclass
class RunReport:
    path: str
    engine: str
    grid: Grid | None
    mode: str
    inputs: str
    reports: dict[str, EngineReport]
    result_names: list[str | None] = field(default_factory=list)
    cross_check: dict | None = None
    chunk: int | None = None
    """First line of this chunk when the file is split at `// -----` (StableHLO's test files)."""

    @property
    def primary(self) -> EngineReport:
        return self.reports.get("interp") or next(iter(self.reports.values()))

    @property
    def outcome(self) -> str:
        return self.primary.outcome

    def exit_code(self) -> int:
        outcomes = {r.outcome for r in self.reports.values()}
        if "unsupported" in outcomes:  # an engine that was asked for could not run it: never a quiet pass
            return 2
        if self.cross_check and self.cross_check["status"] == "mismatch":
            return 1
        if outcomes & {"deadlock", "aborted", "failed"}:
            return 1
        if self.primary.outcome == "completed":
            return 0
        return 2

    def to_json(self) -> dict:
        p = self.primary
        out = {"outcome": p.outcome, "engine": self.engine, "path": self.path,
               **({"chunk": self.chunk} if self.chunk is not None else {}),
               "grid": [self.grid.num_replicas, self.grid.num_partitions] if self.grid and self.grid.known else None,
               "mode": self.mode, "device": p.device, "inputs": self.inputs, "message": p.message, "notes": p.notes,
               **({"checks": p.checks} if p.checks else {}),
               **({"printed": p.printed} if p.printed else {}),
               "blocked": [b.to_json() for b in p.blocked],
               "processes": [{"process": list(q), "state": s} for q, s in sorted(p.states.items())],
               "outputs": _outputs_json(p.outputs, self.result_names), "elapsed_s": round(p.elapsed_s, 4)}
        if self.engine == "both":
            out["engines"] = {k: r.to_json(self.result_names) for k, r in self.reports.items()}
            out["cross_check"] = self.cross_check
        return out


def _outputs_json(outputs: dict, names: list[str | None]) -> list[dict]:
    rows = []
    for proc in sorted(outputs, key=lambda k: (-1, -1) if k is None else k):
        for i, arr in enumerate(outputs[proc]):
            row = {"index": i, "name": names[i] if i < len(names) else None,
                   "process": None if proc is None else list(proc)}
            if arr is None:
                row["unavailable"] = True
            else:
                row.update(summarize(arr))
            rows.append(row)
    return rows


# ----------------------------------------------------------------------------- running
def load(path: str) -> Module:
    source, err = read_path(path)
    if err is not None:
        raise ExecutionError(err.message)
    if not source.text.strip():
        raise ExecutionError(f"{path} is empty")
    announce(f"parsing {size(len(source.text))}")
    module = read_module(source)
    for op in module.walk():  # every header now: a program that does not parse is not run
        op.header  # noqa: B018
    if module.syntax_errors:
        message, span = module.syntax_errors[0]
        line, col = source.line_col(span.start)
        more = len(module.syntax_errors) - 1
        raise ExecutionError(f"cannot execute: the program does not parse: {source.path}:{line}:{col}: {message}"
                             + (f" (and {more} more syntax error{'s' if more > 1 else ''}; "
                                f"`shlo-lint check` lists them)" if more else ""))
    return module


def result_names(module: Module) -> list[str | None]:
    from ..ir.attributes import ArrayAttr, DictAttr, StringAttr

    entry = module.entry_function()
    if entry is None:
        return []
    attrs = entry.attr("res_attrs")
    names: list[str | None] = []
    if isinstance(attrs, ArrayAttr):
        for d in attrs.elements:
            info = d.get("jax.result_info") if isinstance(d, DictAttr) else None
            names.append(info.value if isinstance(info, StringAttr) else None)
    return names


SPLIT_MARKER = re.compile(r"^.*// -----[ \t]*$", re.M)
"""MLIR's -split-input-file marker (a line ending in `// -----`, so `// // -----` splits too)."""


def split_chunks(text: str) -> list[tuple[int, str]]:
    """(first line, chunk) for each part of a file split at `// -----`; each chunk is
    padded with blank lines so its line numbers are the file's. Parts without a
    function are dropped."""
    out = []
    start, line = 0, 1
    for m in SPLIT_MARKER.finditer(text):
        out.append((line, "\n" * (line - 1) + text[start:m.start()]))
        start = m.end() + (1 if text.startswith("\n", m.end()) else 0)
        line = text.count("\n", 0, start) + 1
    out.append((line, "\n" * (line - 1) + text[start:]))
    return [(ln, t) for ln, t in out if "func.func" in t]


def is_hlo_text(text: str) -> bool:
    """Whether a file holds XLA's HLO text (its first token is `HloModule`) rather
    than StableHLO: the HLO front end's test, the one `check` uses too."""
    from ..frontend.read import looks_like_hlo

    return looks_like_hlo(text)


def run_paths(path: str, options: RunOptions | None = None) -> list[RunReport]:
    """`run_path`, or one report per chunk when the file is split at `// -----`."""
    from ..source.text import SourceFile

    options = options or RunOptions()
    source, err = read_path(path)
    if err is not None or is_hlo_text(source.text) or not SPLIT_MARKER.search(source.text):
        return [run_path(path, options)]
    reports = []
    for line, chunk in split_chunks(source.text):
        report = run_module(read_module(SourceFile(source.path, chunk)), options)
        report.chunk = line
        reports.append(report)
    return reports or [run_path(path, options)]


def run_path(path: str, options: RunOptions | None = None) -> RunReport:
    """Run one file. Never raises (but for KeyboardInterrupt/SystemExit): whatever
    fails (reading, parsing, an engine bug, out of memory) is outcome `error` with
    its reason, so the other files of `shlo-lint run A B` still run."""
    options = options or RunOptions()
    try:
        source, err = read_path(path)
        if err is None and is_hlo_text(source.text):
            return run_hlo_source(source.path, source.text, options)
        return run_module(load(path), options)
    except ExecutionError as e:
        return _error_report(path, options, e.message)
    except MemoryError:
        return _error_report(path, options, "out of memory while preparing or running the program "
                                            "(a smaller grid, --memory-limit, or `shlo-lint check` first)")
    except Exception as e:  # noqa: BLE001 - the one guard per file of `run`
        from ..lint.engine import internal_error
        from ..source.text import SourceFile

        return _error_report(path, options, internal_error(SourceFile(path, ""), e, "running the program").message)


def _error_report(path: str, options: RunOptions, message: str) -> RunReport:
    engine = options.engine if options.engine not in ("both", "auto") else "interp"
    return RunReport(path, options.engine, None, "?", options.inputs.describe(),
                     {engine: EngineReport("error", engine, options.device, message=message)})


def run_module(module: Module, options: RunOptions | None = None) -> RunReport:
    from .runtime import program_mode

    options = options or RunOptions()
    if options.engine not in ENGINES:
        raise ExecutionError(f"unknown engine {options.engine!r} (auto, interp, xla, both or xla-distributed)")
    hlo = module.front_end == "hlo"
    if options.engine == "auto":
        options = replace(options, engine="xla" if hlo else "interp")
    from .interpreter import single_process_grid

    grid = single_process_grid(module, grid_of(module, options.num_replicas, options.num_partitions))
    try:
        mode = program_mode(module)
    except Exception:  # noqa: BLE001 - a broken module: the engines report it
        mode = "?"
    max_processes = options.max_processes or default_max_processes()
    refused = grid_refusal(grid, max_processes)
    if refused:  # before any engine builds a value (or a device) per process
        engines = ("interp", "xla") if options.engine == "both" else (options.engine,)
        return RunReport(module.source.path, options.engine, grid, mode, options.inputs.describe(),
                         {e: EngineReport("unsupported", e, options.device, message=refused) for e in engines},
                         result_names(module))
    reports: dict[str, EngineReport] = {}
    if options.engine in ("interp", "both"):
        reports["interp"] = run_interp(module, grid, options)
    if options.engine in ("xla", "both") and hlo:  # a module read from HLO text: XLA runs the text itself
        reports["xla"] = run_hlo_engine(module.source.path, module.source.text, options).report
    elif options.engine in ("xla", "both"):
        harness = next((op.name for op in module.walk() if op.name.startswith(("check.", "interpreter."))), None)
        reports["xla"] = EngineReport(
            "unsupported", "xla", options.device,
            message=f"{harness}: the check / interpreter dialects are the reference interpreter's test harness; "
                    "XLA does not run them") if harness else run_xla_engine(module, grid, options)
    if options.engine == "xla-distributed":
        reports["xla-distributed"] = run_distributed_engine(module, grid, options)
    report = RunReport(module.source.path, options.engine, grid, mode, options.inputs.describe(), reports,
                       result_names(module))
    if options.engine == "both":
        report.cross_check = cross_check(reports["interp"], reports["xla"], options)
    return report


@dataclass
class HloEngineRun:
    report: EngineReport
    grid: Grid | None
    mode: str


def run_hlo_engine(path: str, text: str, options: RunOptions) -> HloEngineRun:
    """XLA on HLO text (xla/hlo/engine.py)."""
    from .xla.hlo.engine import run_hlo
    from .xla.local import XlaOptions

    run = run_hlo(path, text, options.inputs, XlaOptions(options.device, options.xla_timeout_s,
                                                         options.xla_stuck_warn_s, options.xla_stuck_terminate_s),
                  options.num_replicas, options.num_partitions)
    r = run.result
    states = r.states or {}
    if r.outcome == "completed" and run.grid is not None:
        states = {p: "finished" for p in run.grid.processes()}
    elif r.blocked and not states:
        states = {b.process: "blocked" for b in r.blocked}
    return HloEngineRun(EngineReport(r.outcome, "xla", r.device, r.blocked, states, r.outputs, r.message,
                                     r.elapsed_s, list(r.notes)), run.grid, run.mode)


def run_hlo_source(path: str, text: str, options: RunOptions) -> RunReport:
    """`shlo-lint run` on a file of HLO text: XLA runs the text itself (the
    default engine for HLO); the interpreter runs the module the HLO front end
    lowers it to (`--engine interp`, `both`), with the inputs XLA's devices get.
    The distributed engine does not run HLO: outcome "unsupported" (exit 2)
    with the reason."""
    from ..frontend.read import read_module as read_source
    from ..source.text import SourceFile

    engine = "xla" if options.engine == "auto" else options.engine
    if engine not in ENGINES:
        raise ExecutionError(f"unknown engine {engine!r} (auto, interp, xla, both or xla-distributed)")
    if engine == "xla":
        run = run_hlo_engine(path, text, options)
        return RunReport(path, "xla", run.grid, run.mode, options.inputs.describe(), {"xla": run.report})
    if engine == "xla-distributed":
        why = ("the distributed XLA engine does not run HLO text yet; --engine xla runs it on the module's "
               "devices in one process")
        return RunReport(path, engine, None, "?", options.inputs.describe(),
                         {engine: EngineReport("unsupported", engine, options.device, message=why)})
    announce(f"reading {size(len(text))} of HLO")
    module = read_source(SourceFile(path, text))
    if module.syntax_errors:
        message, span = module.syntax_errors[0]
        line, col = module.source.line_col(span.start)
        raise ExecutionError(f"cannot execute: the module does not read: {path}:{line}:{col}: {message}")
    return run_module(module, replace(options, engine=engine))


def run_interp(module: Module, grid: Grid, options: RunOptions) -> EngineReport:
    try:
        from .backends import make_backend

        backend = make_backend(options.device)
    except ExecutionError as e:
        return EngineReport("unsupported", "interp", options.device, message=e.message)
    notes: list[str] = []
    if module.front_end == "hlo" and module.hlo is not None and grid.known:
        # the values XLA's devices get (a replicated flag is one value, a sharded
        # parameter the shards of one), so that the two engines' runs compare
        from .device_inputs import device_inputs
        from .xla.hlo.reading import HloModuleError

        try:
            arrays = device_inputs(module.hlo, options.inputs, grid, notes)
        except (ExecutionError, HloModuleError) as e:
            where = f"{module.source.path}:{e.line}:{e.column}: " if isinstance(e, HloModuleError) else ""
            return EngineReport("error", "interp", backend.describe(), message=where + e.message)
        options = replace(options, inputs=Inputs.from_arrays(arrays, options.inputs.describe()))
    reorder = options.reorder
    if reorder is None and options.issue_order == "scheduler" and options.matching == "xla":
        from .issue_order import scheduler_order

        announce("deadlock analysis (the issue orders XLA's scheduler may choose)")
        reorder = scheduler_order(module, grid, {"external-channels": sorted(options.external_channels)})
    announce(f"running the interpreter on {_processes(grid)} ({backend.describe()})")
    try:
        interp = Interpreter(module, grid, backend, Limits(options.time_limit_s, options.memory_limit_bytes,
                                                           max_processes=options.max_processes
                                                           or default_max_processes()),
                             schedule=options.schedule, matching=options.matching,
                             external_channels=options.external_channels, reorder=reorder)
    except ExecutionError as e:
        return EngineReport("error", "interp", backend.describe(), message=e.message)
    r = interp.run(options.inputs)
    if reorder is not None:
        from .issue_order import describe

        r.notes.insert(0, describe(interp.where, reorder))
    return EngineReport(r.outcome, "interp", r.backend, r.blocked, r.states, r.outputs, r.message, r.elapsed_s,
                        notes + r.notes, r.checks, r.printed)


def _processes(grid: Grid) -> str:
    n = grid.num_replicas * grid.num_partitions if grid.known else 1
    return f"{n:,} process{'es' if n != 1 else ''}"


def run_xla_engine(module: Module, grid: Grid, options: RunOptions) -> EngineReport:
    from .xla.local import XlaOptions, run_xla

    devices = grid.num_replicas * grid.num_partitions if grid.known else 1
    announce(f"compiling and running with XLA on {devices:,} {options.device.upper()} device{'s' * (devices != 1)}")
    r = run_xla(module, grid, options.inputs,
                XlaOptions(options.device, options.xla_timeout_s, options.xla_stuck_warn_s,
                           options.xla_stuck_terminate_s))
    states = r.states or {}
    if r.outcome == "completed" and grid.known:
        states = {p: "finished" for p in grid.processes()}
    elif r.blocked and not states:
        states = {b.process: "blocked" for b in r.blocked}
    return EngineReport(r.outcome, "xla", r.device, r.blocked, states, r.outputs, r.message, r.elapsed_s,
                        list(r.notes))


def run_distributed_engine(module: Module, grid: Grid, options: RunOptions) -> EngineReport:
    from .xla.distributed import DistOptions, default_processes, run_distributed

    n = options.num_processes or (default_processes(grid.num_replicas * grid.num_partitions) if grid.known else 1)
    devices = grid.num_replicas * grid.num_partitions if grid.known else 1
    announce(f"running {n} process{'es' * (n != 1)} (jax.distributed, {devices:,} device{'s' * (devices != 1)})")
    r = run_distributed(module, grid, options.inputs, DistOptions(
        options.num_processes, options.device, options.xla_timeout_s, options.dist_stuck_s,
        options.xla_stuck_warn_s, options.xla_stuck_terminate_s, options.coordinator, options.process_ids))
    states = r.states or {}
    if r.outcome == "completed" and grid.known:
        states = {p: "finished" for p in (r.outputs if None not in r.outputs else grid.processes())}
    return EngineReport(r.outcome, "xla-distributed", r.device, r.blocked, states, r.outputs, r.message,
                        r.elapsed_s, list(r.notes))


def blocked_at(r: EngineReport) -> dict:
    """process → (op, line) where an engine saw it blocked."""
    return {b.process: (b.op, b.line) for b in r.blocked}


def blocked_kinds(r: EngineReport) -> dict:
    """process → (the op's kind as the catalog says it, line) where an engine saw it
    blocked: like with like whatever each engine calls the op (the interpreter the
    IR's `stablehlo.all_reduce`, XLA on HLO text the instruction's `all-reduce`)."""
    return {b.process: (b.kind or b.op, b.line) for b in r.blocked}


def cross_check(a: EngineReport, b: EngineReport, options: RunOptions) -> dict:
    """Compare the interpreter (a) with XLA (b): outcomes; for a hang, which processes
    are blocked at which op; else outputs numerically."""
    if b.outcome in ("unsupported",) or a.outcome in ("unsupported",):
        who = b if b.outcome == "unsupported" else a
        return {"status": "skipped", "reason": f"{who.engine} could not run: {who.message}"}
    if a.outcome in HANG_OUTCOMES and b.outcome in HANG_OUTCOMES:
        pa, pb = blocked_kinds(a), blocked_kinds(b)
        if not pb:  # the watchdog killed a run with no progress record
            return {"status": "match", "reason": f"both hang ({a.outcome} / {b.outcome}); "
                                                 f"{b.engine} names no blocked process"}
        if sorted(pa) != sorted(pb):
            return {"status": "mismatch", "reason": f"both hang ({a.outcome} / {b.outcome}); blocked processes "
                                                    f"differ: {a.engine} {sorted(pa)}, {b.engine} {sorted(pb)}"}
        ops = [p for p in sorted(pa) if pb[p][1] and pa[p][1] and pa[p] != pb[p]]
        if ops:
            q = ops[0]
            return {"status": "mismatch", "reason": f"both hang ({a.outcome} / {b.outcome}); process "
                                                    f"{fmt_pid(q)} is blocked at {pa[q][0]} line {pa[q][1]} "
                                                    f"({a.engine}) but at {pb[q][0]} line {pb[q][1]} ({b.engine})"}
        return {"status": "match", "reason": f"both hang ({a.outcome} / {b.outcome}); the same "
                                             f"{len(pa)} process{'es' if len(pa) != 1 else ''} blocked at the same ops"}
    if a.outcome != b.outcome:
        return {"status": "mismatch", "reason": f"{a.engine}: {a.outcome}, {b.engine}: {b.outcome}"}
    if a.outcome != "completed":
        return {"status": "skipped", "reason": f"both ended with {a.outcome}"}
    worst = 0.0
    mismatches = []
    for key, vals in a.outputs.items():
        other = b.outputs.get(key)
        if other is None:
            return {"status": "mismatch", "reason": "the engines returned outputs for different processes"}
        for i, (x, y) in enumerate(zip(vals, other)):
            if x is None or y is None:
                continue
            x, y = np.asarray(x), np.asarray(y)
            where = f"output {i}" + ("" if key is None else f" of process {fmt_pid(key)}")
            if x.shape != y.shape:
                mismatches.append(f"{where}: shape {list(x.shape)} vs {list(y.shape)}")
                continue
            if x.size == 0:
                continue
            if x.dtype.kind in "biu" and y.dtype.kind in "biu":
                bad = int(np.sum(x != y))
                if bad:
                    mismatches.append(f"{where}: {bad} of {x.size} elements differ")
                continue
            xf, yf = x.astype(np.complex128 if x.dtype.kind == "c" else np.float64), \
                y.astype(np.complex128 if y.dtype.kind == "c" else np.float64)
            diff = np.abs(xf - yf)
            scale = max(1.0, float(np.max(np.abs(yf)))) if np.isfinite(yf).all() else 1.0
            ok = np.isclose(xf, yf, rtol=options.rtol, atol=options.atol * scale, equal_nan=True)
            finite = diff[np.isfinite(diff)]
            worst = max(worst, float(finite.max()) if finite.size else 0.0)
            if not ok.all():
                mismatches.append(f"{where}: {int((~ok).sum())} of {x.size} elements differ "
                                  f"(max |diff| {float(finite.max()) if finite.size else float('nan'):.3g})")
    return {"status": "mismatch" if mismatches else "match", "max_abs_diff": worst, "mismatches": mismatches,
            "rtol": options.rtol, "atol": options.atol}


# ----------------------------------------------------------------------------- text
def render_text(report: RunReport) -> str:
    lines = []
    grid = report.grid
    g = f"grid {grid.num_replicas}x{grid.num_partitions}" if grid and grid.known else "grid unknown"
    for name, r in report.reports.items():
        where = report.path if report.chunk is None else f"{report.path} (chunk at line {report.chunk})"
        head = f"{where}: {r.outcome} [{name}: {r.device}; {g}; inputs {report.inputs}; {r.elapsed_s:.2f} s]"
        lines.append(head)
        if r.checks and r.checks["failed"]:
            lines.append(f"  {len(r.checks['failed'])} of {len(r.checks['failed']) + r.checks['passed']} checks failed")
            for f in r.checks["failed"]:
                lines.append(f"  {f['path']}:{f['line']}:{f['column']}: {f['op']} failed: {f['message']}")
        elif r.message:
            lines.append(f"  {r.message}")
        elif r.checks:
            n = r.checks["passed"]
            lines.append(f"  {n} check{'s' if n != 1 else ''} passed")
        for note in r.notes:
            lines.append(f"  note: {note}")
        for text in r.printed:  # interpreter.print, as StableHLO's interpreter prints
            lines += ["  printed: " + text.splitlines()[0]] + [f"  {line}" for line in text.splitlines()[1:]]
        for b in r.blocked:
            at = f"{b.path}:{b.line}:{b.column}" if b.line else b.path
            lines.append(f"  process {fmt_pid(b.process)} blocked at {b.op} ({at})")
            if b.stack:
                lines.append(f"      inside {' > '.join(b.stack)}")
            lines.append(f"      waiting for {b.waits_for}")
        if r.blocked and r.states:
            others: dict[str, list] = {}
            for p, s in sorted(r.states.items()):
                if s != "blocked":
                    others.setdefault(s, []).append(p)
            for s, ps in others.items():
                lines.append(f"  {processes_phrase(ps, 6)}: {s}")
        if r.outcome == "completed":
            lines += _outputs_text(r.outputs, report.result_names, report.mode)
    if report.cross_check:
        cc = report.cross_check
        detail = cc.get("reason") or (f"max |diff| {cc.get('max_abs_diff', 0):.3g} "
                                      f"(rtol {cc.get('rtol')}, atol {cc.get('atol')})")
        lines.append(f"cross-check interp vs xla: {cc['status']}: {detail}")
        for m in cc.get("mismatches", [])[:10]:
            lines.append(f"  {m}")
    if any(names_a_process(line) for line in lines):  # said once, as the text report of `check` does
        lines.append(f"note: {GRID_WORDS}")
    return "\n".join(lines)


def _outputs_text(outputs: dict, names: list[str | None], mode: str) -> list[str]:
    rows = _outputs_json(outputs, names)
    if not rows:
        return ["  no outputs"]
    out = ["  outputs" + (" (global arrays, assembled from every process's shard):" if mode == "global"
                          else " (per process):")]
    shown = 0
    for row in rows:
        if shown == 16:
            out.append(f"    ... {len(rows) - shown} more")
            break
        shown += 1
        who = "" if row["process"] is None else f"process {process_name(row['process'])} "
        label = f"#{row['index']}" + (f" {row['name']}" if row.get("name") else "")
        if row.get("unavailable"):
            out.append(f"    {who}{label}: unavailable")
            continue
        shape = "x".join(map(str, row["shape"])) or "scalar"
        stats = ""
        if "min" in row:
            stats = f"  min {row['min']:.4g}  max {row['max']:.4g}  mean {row['mean']:.4g}  sum {row['sum']:.6g}"
        out.append(f"    {who}{label}: {shape} {row['dtype']}{stats}")
    return out


def render_json(reports: list[RunReport]) -> str:
    data = [r.to_json() for r in reports]
    return json.dumps(data[0] if len(data) == 1 else data, indent=2)
