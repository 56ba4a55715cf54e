"""Lint what JAX lowered, reported at the lines of your Python.

    import jax, shlo_lint

    lowered = jax.jit(step).trace(*args).lower()     # or jax.jit(step).lower(*args)
    shlo_lint.assert_clean(lowered)                  # in a pytest test: fails with a report

    for d in shlo_lint.check_lowered(lowered):       # or look at the findings yourself
        print(f"{d.path}:{d.location.line}: {d.code} {d.message}")

    compiled = jax.jit(step, in_shardings=..., out_shardings=...).lower(*args).compile()
    shlo_lint.assert_clean(compiled)                 # what XLA will run: its HLO, after SPMD
                                                     # partitioning, combining and scheduling

`check_lowered` takes a `jax.stages.Lowered` (`jax.jit(f).lower(...)`), a
`jax.export.Exported`, an MLIR `ir.Module`, StableHLO text, a
`jax.stages.Compiled` (`.compile()`: its `as_text()`, the HLO module XLA
compiled, with the collectives the partitioner inserted and the order the
scheduler fixed) or HLO text. The module is printed with its debug locations
(StableHLO's `loc()`; HLO's `metadata` and stack-frame tables) and linted like a
file; each finding whose op carries a file:line is then *moved* to that Python
line (the primary location: `d.path` is your .py file, `d.location.line`/`.column`
1-based), and its notes too ("matching send is here" points at the `psend`
line). A note keeps the place in the lowered (or compiled) module. The words
follow: a line of the module a message names ("the case at line 19") becomes the
Python line of its op ("the case at step.py:42"), and a deadlock's trace steps sit
at Python lines.
Findings with no Python line stay at the module text (`d.path` is `<lowered
NAME>`, `<compiled NAME>` for HLO; `findings.text` is that text).

Settings come from the nearest pyproject.toml's `[tool.shlo-lint]` (from the current
directory, as the CLI does), then the keyword arguments (`select`, `ignore`,
`num_partitions`, ...), or pass `config=` to use exactly that.
Nothing here imports JAX: the object passed in brings it.
"""
from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path
from typing import Any

from shlo_lint.checker.frontend.read import looks_like_hlo
from shlo_lint.checker.lint.config import Config, find_pyproject, load_config
from shlo_lint.checker.source.diagnostics import Diagnostic, Location, Note, Severity
from shlo_lint.checker.lint.engine import lint_source
from shlo_lint.checker.lint.selection import check_selectors
from shlo_lint.checker.ir.core import FileLineColLoc, Module, Operation
from shlo_lint.checker.source.text import SourceFile, Span

__all__ = ["Findings", "LintFailure", "assert_clean", "check_lowered", "mlir_text", "module_text"]

_MODULE_NAME = re.compile(r"^\s*module\s+@([\w.$-]+)", re.MULTILINE)
_HLO_MODULE_NAME = re.compile(r"HloModule\s+%?([\w.$-]+)")


class LintFailure(AssertionError):
    """Raised by `assert_clean`: the message is the readable report."""

    def __init__(self, findings: "Findings"):
        super().__init__(findings.report())
        self.findings = findings


class Findings(list):
    """The diagnostics of one lowered module (a list: empty when clean), with what
    it takes to show them: `text` (the StableHLO that was linted), `path` (its
    display name), `report()` (text like the CLI's, showing the Python lines)."""

    def __init__(self, diagnostics: list[Diagnostic], text: str, path: str):
        super().__init__(diagnostics)
        self.text = text
        self.path = path

    def report(self, *, color: bool = False) -> str:
        from shlo_lint.checker.lint import registry
        from shlo_lint.checker.report import render

        sources = {self.path: SourceFile(self.path, self.text)}
        for f in {d.path for d in self} | {n.location.path for d in self for n in d.notes}:
            if f not in sources and (src := _python_source(f)) is not None:
                sources[f] = src
        body = render("text", list(self), sources, registry.get, color=color,
                      summary={"files": 1, "failed_files": 0})
        return f"shlo-lint checked {self.path}:\n{body}"


def check_lowered(lowered: Any, *, config: Config | None = None, path: str | None = None,
                  **settings: Any) -> Findings:
    """Lint a lowered JAX computation; findings are located at the Python lines from loc().

    `settings` are Config fields (select=("SHLO1",), ignore=(...), num_partitions=8, ...)
    applied over the pyproject.toml settings, or over `config` when given."""
    text = module_text(lowered)
    if path is None:
        if looks_like_hlo(text):
            m = _HLO_MODULE_NAME.search(text)
            path = f"<compiled {m.group(1) if m else 'module'}>"
        else:
            m = _MODULE_NAME.search(text)
            path = f"<lowered {m.group(1) if m else 'module'}>"
    if config is None:
        found = find_pyproject(Path.cwd())
        config = load_config(found) if found else Config()
    config = config.merged(**{k: tuple(v) if isinstance(v, list) else v for k, v in settings.items()})
    check_selectors(config)
    source = SourceFile(path, text)
    result = lint_source(source, config)
    if result.module is None:
        return Findings(result.diagnostics, text, path)
    where = _OpFinder(result.module)
    return Findings([_at_python(d, where, path) for d in result.diagnostics], text, path)


def assert_clean(lowered: Any, *, fail_on: str = "warning", **kwargs: Any) -> Findings:
    """Raise LintFailure (an AssertionError, so pytest shows the report) when a finding
    at or above `fail_on` (error | warning | info) is reported; else return the findings."""
    __tracebackhide__ = True  # pytest: the report is the message, this frame is noise
    findings = check_lowered(lowered, **kwargs)
    threshold = Severity(fail_on).rank
    if any(d.severity.rank <= threshold for d in findings):
        raise LintFailure(findings)
    return findings


def module_text(obj: Any) -> str:
    """The text check_lowered lints: for a `jax.stages.Compiled`, the HLO module XLA
    compiled (`as_text()`: scheduled, with its `metadata` and stack-frame tables);
    for anything else, mlir_text's StableHLO. A text (StableHLO or HLO) as it is."""
    if isinstance(obj, str):
        return obj
    if callable(getattr(obj, "compiler_ir", None)):  # jax.stages.Lowered (it has as_text too)
        return mlir_text(obj)
    if callable(getattr(obj, "runtime_executable", None)) and callable(getattr(obj, "as_text", None)):
        text = obj.as_text()  # jax.stages.Compiled
        if isinstance(text, str) and looks_like_hlo(text):
            return text
        raise TypeError(f"check_lowered: {type(obj).__name__}.as_text() did not give an HLO module")
    return mlir_text(obj)


def mlir_text(obj: Any) -> str:
    """StableHLO text with debug locations (`loc(...)`) of what JAX produced."""
    if isinstance(obj, str):
        return obj
    compiler_ir = getattr(obj, "compiler_ir", None)
    if callable(compiler_ir):  # jax.stages.Lowered
        return compiler_ir("stablehlo").operation.get_asm(enable_debug_info=True)
    mlir_module = getattr(obj, "mlir_module", None)
    if callable(mlir_module):  # jax.export.Exported: printed with its locations
        return mlir_module()
    operation = getattr(obj, "operation", None)
    if operation is not None and hasattr(operation, "get_asm"):  # an MLIR ir.Module
        return operation.get_asm(enable_debug_info=True)
    raise TypeError(f"check_lowered: expected jax.jit(f).lower(...), its .compile(), a jax.export.Exported, an "
                    f"MLIR module, StableHLO or HLO text, got {type(obj).__name__}")


# ----------------------------------------------------------------------------- locating
class _OpFinder:
    """The Python frame of the innermost op (with a file:line loc) around an offset,
    and of the op written on a line of the lowered module."""

    def __init__(self, module: Module):
        self.ops = [op for op in module.walk() if op is not module.root]
        self.source = module.source
        self._by_line: dict[int, FileLineColLoc | None] | None = None

    def frame_on_line(self, line: int) -> FileLineColLoc | None:
        """The Python frame of the first op that starts on `line` of the module text."""
        if self._by_line is None:
            self._by_line = {}
            for op in self.ops:
                n = self.source.line_col(op.span.start)[0]
                if self._by_line.get(n) is None:
                    frames = op.python_frames
                    self._by_line[n] = frames[0] if frames else None
        return self._by_line.get(line)

    def frame(self, offset: int) -> tuple[Operation, FileLineColLoc] | None:
        around = [op for op in self.ops if op.span.start <= offset < max(op.span.end, op.span.start + 1)]
        for op in sorted(around, key=lambda op: op.span.start, reverse=True):  # innermost first
            frames = op.python_frames
            if frames:
                return op, frames[0]
        return None


def _python_location(frame: FileLineColLoc) -> Location:
    """JAX writes Python's 0-based column offsets into loc(); Location columns are 1-based.
    The span (into the .py file, when it can be read) lets reports underline the call."""
    line, col = frame.line, frame.col + 1
    span = None
    src = _python_source(frame.file)
    if src is not None and 1 <= line <= src.num_lines:
        start = src.offset(line, col)
        end_line = frame.end_line or line
        end = src.offset(end_line, frame.end_col + 1) if frame.end_col is not None else start + 1
        span = Span(start, max(end, start + 1)) if end_line >= line else None
    end_line = frame.end_line if frame.end_line is not None and frame.end_col is not None else None
    return Location(frame.file, span, line, col, end_line, frame.end_col + 1 if end_line is not None else None)


_LINES = re.compile(r"\b(lines?) (\d+(?:(?:, | and )\d+)*)\b")


def _python_lines(text: str, where: _OpFinder, path: str) -> str:
    """"the case at line 19" → "the case at step.py:42": a line of the lowered
    module, which the user never sees, becomes the Python line its op came from
    (or says which text it is a line of, when its op has no Python line)."""
    def one(m: re.Match) -> str:
        numbers = [int(n) for n in re.findall(r"\d+", m.group(2))]
        frames = [where.frame_on_line(n) for n in numbers]
        if all(f is not None for f in frames):
            return ", ".join(f"{Path(f.file).name}:{f.line}" for f in frames)  # type: ignore[union-attr]
        return f"{m.group(0)} of {path}"

    return _LINES.sub(one, text)


def _reworded(d: Diagnostic, where: _OpFinder, path: str) -> Diagnostic:
    """Every "line N" of a message, note, help and trace in Python lines, and
    each trace step at the Python line of its op."""
    def w(text: str) -> str:
        return _python_lines(text, where, path)

    def at(loc: Location) -> Location:
        found = where.frame(loc.span.start) if loc.span is not None and loc.path == path else None
        return _python_location(found[1]) if found is not None else loc

    return replace(d, message=w(d.message), help=w(d.help) if d.help else d.help,
                   notes=tuple(Note(n.location, w(n.message)) for n in d.notes),
                   trace=tuple(replace(t, waits_for=w(t.waits_for),
                                       steps=tuple(replace(s, location=at(s.location), message=w(s.message))
                                                   for s in t.steps))
                               for t in d.trace))


def _at_python(d: Diagnostic, where: _OpFinder, path: str) -> Diagnostic:
    d = _reworded(d, where, path)
    found = where.frame(d.span.start) if d.span is not None and d.path == path else None
    if found is None:
        return d
    op, frame = found
    primary = _python_location(frame)
    notes: list[Note] = []
    for n in d.notes:
        loc = n.location
        if loc.path == primary.path and loc.line == primary.line:
            continue  # "this op was written here": now the primary location itself
        if loc.path == path and loc.span is not None and (other := where.frame(loc.span.start)) is not None:
            loc = _python_location(other[1])
        notes.append(Note(loc, n.message))
    notes.append(Note(d.location, f"in the {'compiled' if op.module.front_end == 'hlo' else 'lowered'} module: "
                                  f"{_written(op)}"))
    return replace(d, location=primary, notes=tuple(notes))


def _written(op: Operation) -> str:
    """The op as the module text writes it: `stablehlo.recv`, or an HLO instruction's
    opcode and name (`all-reduce %psum.6`)."""
    ins = getattr(op, "instruction", None)
    return f"{ins.opcode} %{ins.name}" if ins is not None else op.name


_SOURCES: dict[str, tuple[int, SourceFile]] = {}


def _python_source(path: str) -> SourceFile | None:
    """The .py file a loc() names, as it is on disk now (None if it cannot be read)."""
    try:
        p = Path(path)
        stamp = p.stat().st_mtime_ns
        cached = _SOURCES.get(path)
        if cached is None or cached[0] != stamp:
            cached = _SOURCES[path] = (stamp, SourceFile(path, p.read_text(encoding="utf-8")))
        return cached[1]
    except (OSError, UnicodeDecodeError, ValueError):
        return None
