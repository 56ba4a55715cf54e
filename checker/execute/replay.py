"""`--confirm`: replay each deadlock finding by execution and mark the diagnostic.

For a finding with a counterexample (SHLO500 deadlock-wait-cycle, SHLO501
deadlock-peer-never-arrives: Diagnostic.trace = ProcessTrace(process, steps,
waits_for), the last step of a blocked process marked `blocked`), the
interpreter runs the program with its scheduler taking the counterexample's
processes first, in the trace's order, and the diagnostic gets a note:

* "confirmed by execution (interp): ..." when the run deadlocks with every
  process the trace says is blocked blocked too, at the op on the same line;
* "not reproduced by execution (interp): ..." otherwise, saying what happened
  instead (it completed, other processes blocked, the program could not run).

SHLO502 (collective-matched-only-by-xla) is confirmed when the run under XLA's
matching completes and the run under the spec's matching deadlocks. SHLO503
(deadlock-undecided) gets what one concrete run did. With the XLA engine, an
abort at a stuck collective (or a run the watchdog must kill) confirms a hang
when the devices' progress markers put the predicted processes at the predicted
lines, exactly as for the interpreter (xla/markers.py).
The mark is a note, so every output format carries it, and it says which
processes the run saw blocked at which op (on XLA's HLO text, the instruction:
`all-reduce %psum.6, line 41`), whichever engine ran: a file of HLO text is run
by the interpreter on the module the front end lowered, and by XLA on the text.
"""
from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from ..source.diagnostics import Diagnostic, Location
from ..analysis.semantics import grid_of
from .runtime import fmt_pid
from .issue_order import scheduler_order
from .run import RunOptions, RunReport, run_module

XLA_ONLY = "collective-matched-only-by-xla"
UNDECIDED = ("deadlock-undecided", "communication-guarded-by-per-device-data")
"""Findings that leave the question open: SHLO503, and SHLO504, which supersedes
it at a branch or loop on per-device data (the run shows one concrete outcome)."""


def _line_of(loc: Location, module) -> int | None:
    if loc.line is not None:
        return loc.line
    if loc.span is not None and module is not None and loc.path == module.source.path:
        return module.source.line_col(loc.span.start)[0]
    return None


def blocked_in_trace(d: Diagnostic, module=None) -> dict[tuple[int, int], int | None]:
    """process → the line it is blocked at, for every process of the counterexample
    whose trace ends blocked (peers that finished have traces with no blocked step)."""
    out: dict[tuple[int, int], int | None] = {}
    for t in d.trace:
        last = next((s for s in reversed(t.steps) if s.blocked), None)
        if last is not None:
            out[tuple(t.process)] = _line_of(last.location, module)
    return out


def static_verdicts(path: Path | str) -> tuple[list[set[tuple[int, int]]], bool]:
    """The static deadlock findings on one file: the blocked-process set of each
    counterexample, and whether the analysis left the question undecided."""
    from ..lint import engine
    from ..lint.config import Config

    text = Path(path).read_text(encoding="utf-8")
    diags = engine.lint_text(text, str(path), Config().merged(select=("deadlock",)))
    sets = []
    undecided = False
    for d in diags:
        if d.category != "deadlock":
            continue
        procs = set(blocked_in_trace(d))
        if procs:
            sets.append(procs)
        elif d.name in UNDECIDED:
            undecided = True
    return sets, undecided


def confirm(diagnostics: list[Diagnostic], module, options: RunOptions | None = None,
            engine: str = "interp", cache: dict | None = None,
            analysis_options: dict | None = None) -> list[Diagnostic]:
    """The diagnostics, each deadlock finding with a note saying what execution showed.
    `cache` (run key → RunReport, see _run) lets a caller reuse runs it already has;
    `analysis_options` are the lint's `-O` options (to find the verdict's issue order
    again, see scheduler_order)."""
    if module is None or not any(d.category == "deadlock" for d in diagnostics):
        return diagnostics
    options = options or RunOptions()
    cache = {} if cache is None else cache
    engines = ["interp", "xla"] if engine == "both" else [engine]
    if "interp" in engines and options.reorder is None and options.issue_order == "scheduler" and \
            any(d.trace for d in diagnostics if d.category == "deadlock"):
        # the order the verdict's deadlock needs (the diagnostics do not carry it: the
        # analysis runs again with the lint's options); none: the order as written
        opts = {"external-channels": sorted(options.external_channels), **(analysis_options or {})}
        grid = grid_of(module, options.num_replicas, options.num_partitions)
        options = replace(options, reorder=scheduler_order(module, grid, opts), issue_order="written")
    out = []
    for d in diagnostics:
        if d.category == "deadlock":
            for eng in engines:
                d = _confirm_one(d, module, options, eng, cache)
        out.append(d)
    return out


def run_key(engine: str, schedule=None, matching: str = "xla", reorder=None) -> tuple:
    """XLA decides its own schedule and always matches like XLA: one run serves every
    counterexample of a file."""
    if engine != "interp":
        return (engine,)
    return (engine, tuple(schedule or ()), matching, tuple(id(o) for o in reorder or ()))


def _run(module, options: RunOptions, engine: str, cache: dict, schedule=None, matching: str = "xla") -> RunReport:
    reorder = options.reorder if matching == "xla" else None  # the scheduler's order is an XLA finding
    key = run_key(engine, schedule, matching, reorder)
    if key not in cache:
        opts = replace(options, engine=engine, schedule=list(schedule) if schedule else None, matching=matching,
                       reorder=reorder)
        cache[key] = run_module(module, opts)
    return cache[key]


def _confirm_one(d: Diagnostic, module, options: RunOptions, engine: str, cache: dict) -> Diagnostic:
    expected = blocked_in_trace(d, module)
    if d.name == XLA_ONLY:
        if engine != "interp":
            return d
        xla = _run(module, options, engine, cache).primary
        spec = _run(module, options, engine, cache, matching="spec").primary
        ok = xla.outcome == "completed" and spec.outcome == "deadlock"
        blocked = ", ".join(fmt_pid(b.process) for b in spec.blocked[:8])
        text = (f"XLA's matching: {xla.outcome}; the spec's matching: {spec.outcome}"
                + (f" (blocked: {blocked})" if blocked else ""))
        label = "confirmed by execution" if ok else "not reproduced by execution"
        return d.note(d.location, f"{label} ({engine}): {text}")
    report = _run(module, options, engine, cache, schedule=[tuple(t.process) for t in d.trace] or None,
                  matching=options.matching)
    r = report.primary
    if not expected:
        # no counterexample to replay (SHLO503 undecided): say what one concrete run did
        what = _describe(r)
        return d.note(_where(d, r, expected), f"execution ({engine}, inputs {report.inputs}): {what}")
    ok, detail = _judge(r, expected, module)
    label = "confirmed by execution" if ok else "not reproduced by execution"
    return d.note(_where(d, r, expected), f"{label} ({engine}): {detail}")


def _where(d: Diagnostic, r, expected) -> Location:
    if r.blocked:
        b = next((b for b in r.blocked if b.process in expected), r.blocked[0])
        if b.line:
            return Location(b.path, None, b.line, b.column)
    return d.location


def _describe(r) -> str:
    if r.outcome in ("deadlock", "aborted") and r.blocked:
        first = r.blocked[0]
        procs = ", ".join(fmt_pid(b.process) for b in r.blocked[:8]) + (" ..." if len(r.blocked) > 8 else "")
        return f"{r.outcome}: process{'es' if len(r.blocked) > 1 else ''} {procs} blocked (first at {first.op}, " \
               f"line {first.line})"
    if r.outcome == "completed":
        return "completed"
    return f"{r.outcome}: {r.message}"


def _at(b, module) -> str:
    """Where a run saw a process blocked, as the report names it: the op (its label:
    `all-reduce` on HLO text, `stablehlo.all_reduce` on MLIR), on HLO text the
    instruction of that line, and the line."""
    ins = _instruction_at(module, b.line) if module is not None and module.front_end == "hlo" else None
    return f"{b.op}{f' %{ins}' if ins else ''}, line {b.line}" if b.line else b.op


def _instruction_at(module, line: int) -> str | None:
    """The name of the HLO instruction written on `line` (one per line, as XLA prints)."""
    src = module.source
    for ins in module.hlo.instructions():
        if src.line_col(ins.name_span.start)[0] == line:
            return ins.name
    return None


def _judge(r, expected: dict, module=None) -> tuple[bool, str]:
    if r.outcome in ("deadlock", "aborted", "timeout"):
        blocked = {b.process: b for b in r.blocked}
        if r.outcome == "timeout" and not blocked:
            return True, "the run hung until the watchdog stopped it"
        if r.outcome == "aborted" and not blocked:  # no progress record: XLA's abort is all we know
            return True, (r.message or "XLA aborted a collective rendezvous that not every participant joined") \
                + " (the blocked processes are unknown: no progress record)"
        missing = [p for p in expected if p not in blocked]
        if missing:
            return False, (f"the run deadlocked but process{'es' if len(missing) > 1 else ''} "
                           f"{', '.join(fmt_pid(p) for p in missing[:8])} did not block "
                           f"(blocked: {', '.join(fmt_pid(p) for p in sorted(blocked)[:8]) or 'none'})")
        wrong = [p for p, line in expected.items() if line and blocked[p].line and blocked[p].line != line]
        if wrong:
            p = wrong[0]
            return False, (f"process {fmt_pid(p)} blocked at {_at(blocked[p], module)}, "
                           f"the counterexample says line {expected[p]}")
        procs = sorted(expected)
        how = f" ({r.message})" if r.outcome == "aborted" and r.message else ""
        where: dict[str, list] = {}  # which devices at which op, as the run saw them
        for p in procs:
            where.setdefault(_at(blocked[p], module), []).append(p)
        at = f"at {next(iter(where))}" if len(where) == 1 else \
            "; ".join(f"{', '.join(fmt_pid(p) for p in ps[:8])}{' ...' if len(ps) > 8 else ''} at {w}"
                      for w, ps in list(where.items())[:4]) + ("; ..." if len(where) > 4 else "")
        return True, (f"process{'es' if len(procs) > 1 else ''} {', '.join(fmt_pid(p) for p in procs[:8])}"
                      f"{' ...' if len(procs) > 8 else ''} blocked as predicted ({at}){how}")
    if r.outcome == "completed":
        return False, "the run completed (with these inputs and this schedule)"
    if r.outcome == "unsupported":
        return False, f"it cannot run here: {r.message}"
    return False, f"the run ended with {r.outcome}: {r.message}"
