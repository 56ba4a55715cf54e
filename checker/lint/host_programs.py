"""Every host's program, checked together: the `hosts` command and
`shlo_lint.check_hosts` (docs/hosts.md).

One path for both, so they cannot disagree: each host's program is read into
the IR (StableHLO or HLO, or the module of an `--xla_dump_to` directory chosen
by name), signed (analysis/process_model/signature.py: its communication per
class of its devices), and the signatures are decided together
(process_model/merge_hosts.py). `diagnostics()` turns the decision's findings into
Diagnostics with a `Locator`: the command line points at each host's file,
`check_hosts` at the Python lines (a host whose text it never saw has no other
place).

`HostArg` is one `FILE[:DEVICES]` argument: DEVICES is `0-3`, `0,2,4,6` or a mix
(`0-3,8-11`), the global (logical) ids of the devices that host runs; without
any, the module's devices are split evenly over the hosts in argument order,
which is how JAX orders them for a mesh over `jax.devices()` (measured:
corpus/hosts/README.md, "Device ids").
"""
from __future__ import annotations

import os
import re
from dataclasses import dataclass, field, replace
from typing import Callable

from ..analysis.process_model.merge_hosts import (CODES, HostFinding, HostProgram, HostsInputError, HostsVerdict, Lane,
                                            decide)
from ..analysis.process_model.signature import (SigOp, Signature, SignatureError, program_digest, restrict,
                                                 signature_of)
from ..analysis.process_model.decide import options_of
from ..analysis.semantics import grid_of
from ..frontend.read import read_module
from ..ir.core import Module
from ..source.diagnostics import Diagnostic, Location, Note, ProcessTrace, Severity, TraceStep
from ..source.text import SourceFile, Span
from . import registry
from .engine import read_path
from .paths import program_file

__all__ = ["HostArg", "HostProgram", "HostsInputError", "HostsRun", "HostsVerdict", "Locator", "Signature",
           "SignatureError", "check_host_files", "decide", "diagnostics", "exit_code", "file_locator", "not_checked",
           "parse_devices", "parse_host_arg", "program_digest", "python_locator", "restrict", "run_diagnostics",
           "sign_text"]


@dataclass
class HostArg:
    """One `FILE[:DEVICES]` of the command line."""

    path: str
    devices: list[int] | None = None


_DEVICES = re.compile(r"^\d+(-\d+)?(,\d+(-\d+)?)*$")


MAX_LISTED = 1 << 24
"""The most devices one host's DEVICES may name (the list is kept in memory)."""


def parse_devices(text: str) -> list[int]:
    """`0-3` → [0, 1, 2, 3]; `0,2,4,6`; `0-3,8-11`. Raises HostsInputError."""
    spec = text.replace(" ", "")
    if not _DEVICES.match(spec):
        raise HostsInputError(f"DEVICES {text!r}: write device ids as 0-3, 0,2,4,6 or 0-3,8-11")
    out: list[int] = []
    for part in spec.split(","):
        lo, _, hi = part.partition("-")
        a, b = int(lo), int(hi) if hi else int(lo)
        if b < a:
            raise HostsInputError(f"DEVICES {text!r}: the range {part} runs backwards")
        if len(out) + b - a + 1 > MAX_LISTED:
            raise HostsInputError(f"DEVICES {text!r} names more than {MAX_LISTED} devices")
        out.extend(range(a, b + 1))
    if len(set(out)) != len(out):
        raise HostsInputError(f"DEVICES {text!r} names a device twice")
    return out


def parse_host_arg(text: str) -> HostArg:
    """`FILE[:DEVICES]`; a FILE that exists is taken whole (a path may hold a colon)."""
    if os.path.exists(text):
        return HostArg(text)
    path, sep, devs = text.rpartition(":")
    if sep and path and _DEVICES.match(devs.replace(" ", "")):
        return HostArg(path, parse_devices(devs))
    return HostArg(text)


# --------------------------------------------------------------------------- reading
@dataclass
class HostsRun:
    """What a `hosts` run read and decided."""

    hosts: list[HostProgram] = field(default_factory=list)
    sources: dict[str, SourceFile] = field(default_factory=dict)
    modules: list[Module] = field(default_factory=list)
    problems: list[Diagnostic] = field(default_factory=list)
    """Files that could not be read or parsed (the command exits 2)."""
    verdict: HostsVerdict | None = None


def dump_module(directory: str, module: str | None) -> str:
    """The module file of an `--xla_dump_to` directory: the one named `module`
    (`jit_step`), after optimizations (what XLA runs) when it was dumped, else
    before. Raises HostsInputError (naming the modules there) when it is not one."""
    files = sorted(f for f in os.listdir(directory) if program_file(f) and f.endswith(".txt"))
    names: dict[str, list[str]] = {}
    for f in files:
        m = re.match(r"module_\d+\.(.+?)\.(?:\w+_)?(?:after|before)_optimizations\.txt$", f)
        if m:
            names.setdefault(m.group(1), []).append(f)
    if not names:
        raise HostsInputError(f"{directory}: no module that --xla_dump_to writes (module_NNNN.NAME.*optimizations.txt)")
    if module is None:
        if len(names) > 1:
            raise HostsInputError(f"{directory} holds {len(names)} modules ({', '.join(sorted(names))}): choose one "
                                  f"with --module NAME")
        module = next(iter(names))
    chosen = names.get(module)
    if not chosen:
        raise HostsInputError(f"{directory} has no module {module!r} (it has {', '.join(sorted(names))})")
    after = [f for f in chosen if "after_optimizations" in f]
    pick = (after or chosen)[-1]  # the last dump of that name: the program compiled last
    return os.path.join(directory, pick)


def check_host_files(args: list[HostArg], module: str | None = None, options: dict | None = None,
                     num_partitions: int | None = None, num_replicas: int | None = None) -> HostsRun:
    """Read each host's program, sign it for its devices and decide them together.
    Raises HostsInputError for arguments that cannot be put together."""
    run = HostsRun()
    if not args:
        raise HostsInputError("name at least one host's program")
    given = [a.devices is not None for a in args]
    if any(given) and not all(given):
        raise HostsInputError("give DEVICES for every host (FILE:DEVICES) or for none (an even split)")
    texts: list[tuple[str, SourceFile]] = []
    for a in args:
        path = dump_module(a.path, module) if os.path.isdir(a.path) else a.path
        source, err = read_path(path)
        if err is not None:
            run.problems.append(err)
            continue
        texts.append((path, source))
        run.sources[path] = source
    if run.problems:
        return run
    for path, source in texts:
        run.modules.append(read_module(source))
    grid = grid_of(run.modules[0], num_replicas, num_partitions)
    devices = [a.devices for a in args]
    if not any(given):
        if not grid.known:
            raise HostsInputError(f"{texts[0][0]}: the module states no device grid (num_partitions); give DEVICES "
                                  f"or --num-partitions")
        n, k = grid.size, len(args)
        if n % k:
            raise HostsInputError(f"the {n} devices of the module cannot be split evenly over {k} hosts: give "
                                  f"each host its DEVICES (FILE:0-3)")
        if n > options_of(options)["max-processes"]:
            devices = [[] for _ in range(k)]  # not listed: the decision says the grid is past its limit
        else:
            devices = [list(range(i * n // k, (i + 1) * n // k)) for i in range(k)]
    # One signature per distinct program (over every device), restricted to each host's.
    full: dict[str, Signature] = {}
    for i, ((path, source), mod) in enumerate(zip(texts, run.modules)):
        digest = program_digest(source.text)
        if digest not in full:
            full[digest] = signature_of(mod, None, options, grid=grid_of(mod, num_replicas, num_partitions),
                                        digest=digest)
        if mod.syntax_errors:
            message, span = mod.syntax_errors[0]
            spec = registry.get("SHLO001")
            run.problems.append(Diagnostic(spec.code, spec.name, spec.category, Severity.ERROR, message,
                                           Location(path, span)))
            continue
        run.hosts.append(HostProgram(f"host {i}", restrict(full[digest], devices[i]), path))
    if run.problems:
        return run
    run.verdict = decide(run.hosts, options)
    return run


def sign_text(text: str, options: dict | None = None, path: str = "<program>") -> Signature:
    """The signature of one program's text over every device of its grid
    (check_hosts publishes it; each host's is its `restrict`ion)."""
    source = SourceFile(path, text)
    mod = read_module(source)
    return signature_of(mod, None, options, digest=program_digest(text))


# --------------------------------------------------------------------------- diagnostics
Locator = Callable[[HostProgram, "SigOp | None"], Location]
"""Where a host's op is: (host, op or None for the host's program as a whole)."""


def file_locator(run: HostsRun) -> Locator:
    """The `hosts` command's: each host's file, at the op's name."""
    def locate(host: HostProgram, op: SigOp | None) -> Location:
        path = host.path or host.name
        source = run.sources.get(path)
        if op is None or source is None:
            return Location(path, Span(0, 0) if source is not None else None)
        start = source.offset(op.line, op.column)
        return Location(path, Span(start, start + max(1, op.width)))
    return locate


def python_locator(fallback: Callable[[HostProgram], str]) -> Locator:
    """check_hosts': the op's Python line, else the host's program by name."""
    def locate(host: HostProgram, op: SigOp | None) -> Location:
        if op is not None and op.python:
            path, _, line = op.python.rpartition(":")
            return Location(path, None, int(line), 1)
        return Location(fallback(host), None, op.line if op is not None else None, None)
    return locate


def diagnostics(verdict: HostsVerdict, hosts: list[HostProgram], locate: Locator) -> list[Diagnostic]:
    """The decision's findings as Diagnostics (rules/hosts.py documents the codes)."""
    out = []
    for f in verdict.findings:
        out.append(_diagnostic(f, hosts, locate))
    return out


def _diagnostic(f: HostFinding, hosts: list[HostProgram], locate: Locator) -> Diagnostic:
    spec = registry.get(f.code)
    assert spec is not None, f.code
    host = hosts[f.host] if f.host is not None and 0 <= f.host < len(hosts) else None
    where = locate(host, f.op) if host is not None else Location(hosts[0].path or hosts[0].name if hosts else "")
    notes = []
    for n in f.notes:
        nh = hosts[n.host] if n.host is not None and 0 <= n.host < len(hosts) else None
        notes.append(Note(locate(nh, n.op) if nh is not None else where, n.text))
    trace = tuple(_lane(lane, hosts, locate) for lane in f.lanes)
    return Diagnostic(spec.code, spec.name, spec.category, Severity(f.severity), f.message, where, tuple(notes),
                      trace=trace, help=f.help or None)


def _lane(lane: Lane, hosts: list[HostProgram], locate: Locator) -> ProcessTrace:
    host = hosts[lane.host]
    steps = [TraceStep(locate(hosts[h], op), f"{op.label}" + (f" ({w})" if w else ""))
             for h, op, w in lane.completed[-6:]]
    if lane.op is not None:
        steps.append(TraceStep(locate(host, lane.op), lane.op.label + (f" ({lane.where})" if lane.where else ""),
                               blocked=True))
    first = int(lane.devices[0]) if len(lane.devices) else 0
    return ProcessTrace((0, first), tuple(steps), waits_for=lane.waits, label=lane.label)


def run_diagnostics(run: HostsRun) -> list[Diagnostic]:
    """The `hosts` command's diagnostics: the files that could not be read, the
    decision's findings at each host's file, and where hosts whose programs
    differ only locally (SHLO513) first differ, line by line."""
    out = list(run.problems)
    if run.verdict is None:
        return out
    for d in diagnostics(run.verdict, run.hosts, file_locator(run)):
        if d.code == CODES["local"]:
            d = _first_difference(run, d)
        out.append(d)
    return out


def _first_difference(run: HostsRun, d: Diagnostic) -> Diagnostic:
    by_program: dict[str, HostProgram] = {}
    for h in run.hosts:
        by_program.setdefault(h.signature.program, h)
    if len(by_program) < 2:
        return d
    a, b = list(by_program.values())[:2]
    sa, sb = run.sources.get(a.path or ""), run.sources.get(b.path or "")
    if sa is None or sb is None:
        return d
    la, lb = sa.text.splitlines(), sb.text.splitlines()
    k = next((i for i, (x, y) in enumerate(zip(la, lb)) if x != y), min(len(la), len(lb)))
    if k >= max(len(la), len(lb)):
        return d
    notes = d.notes + (Note(Location(a.path, Span(sa.offset(k + 1, 1), sa.offset(k + 1, 1))),
                            f"{a.name}'s program first differs from {b.name}'s on this line"),
                       Note(Location(b.path, Span(sb.offset(k + 1, 1), sb.offset(k + 1, 1))),
                            f"{b.name}'s program, the same line"))
    return replace(d, notes=notes)


def exit_code(run: HostsRun, fail_on: str = "warning") -> int:
    """0 clean, 1 findings at or above `fail_on`, 2 a file could not be read."""
    if run.problems:
        return 2
    if run.verdict is None:
        return 2
    threshold = Severity(fail_on).rank
    return 1 if any(Severity(f.severity).rank <= threshold for f in run.verdict.findings) else 0


def not_checked(message: str, host: int | None = None) -> HostFinding:
    """A SHLO514 finding (a host that could not be checked: check_hosts' missing answers)."""
    return HostFinding(CODES["not-checked"], "error", message, host, None)

