"""One file in, diagnostics out: read → scan → (parse) → rules → suppressions → select.

Nothing here formats output; nothing here knows a rule by name.
"""
from __future__ import annotations

import hashlib
import os
import sys
import traceback
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING

from . import registry
from .config import Config
from .context import STRUCTURE_KEY, Context
from .hooks import NO_HOOKS, LintHooks
from ..source.diagnostics import Diagnostic, Location, Note, Severity, positioned
from ..ir.core import Module, Operation, release
from ..ir.memory import gc_paused
from .stages import announce, size
from .registry import RuleSpec
from ..frontend.read import header_parser
from .selection import check_selectors, enabled
from ..analysis.semantics import grid_of
from ..source.text import SourceFile, Span
from .suppressions import find_suppressions

if TYPE_CHECKING:
    from ..source.comm_table import CommTable

BYTECODE_MAGIC = b"ML\xefR"

# The engine's own codes (rules/core.py documents them).
SYNTAX_ERROR = "SHLO001"
UNREADABLE = "SHLO002"
INTERNAL_ERROR = "SHLO003"
UNUSED_SUPPRESSION = "SHLO004"


# ----------------------------------------------------------------------------- results
@dataclass
class FileResult:
    source: SourceFile
    module: Module | None
    diagnostics: list[Diagnostic] = field(default_factory=list)
    failed: bool = False
    """True when the file could not be read or did not parse (exit code 2)."""
    communication: "CommTable | None" = None
    """The module's communication per step (analysis/comm_counts.py), when the
    configuration asks for it (`Config.communication`: `--statistics`, the JSON and
    HTML reports) and the file was read."""


def _diag(spec_code: str, source_path: str, span: Span | None, message: str,
          severity: Severity = Severity.ERROR, line: int | None = None, col: int | None = None) -> Diagnostic:
    spec = registry.get(spec_code)
    assert spec is not None
    return Diagnostic(spec.code, spec.name, spec.category, severity, message,
                      Location(source_path, span, line, col))


# ----------------------------------------------------------------------------- reading
def decode(data: bytes, path: str) -> tuple[SourceFile, Diagnostic | None]:
    """Bytes → SourceFile, with a located diagnostic for bytecode and bad UTF-8."""
    if data.startswith(BYTECODE_MAGIC):
        src = SourceFile(path, "")
        return src, _diag(SYNTAX_ERROR, path, Span(0, 0),
                          "this is MLIR bytecode, not text; print it as text first "
                          "(e.g. `stablehlo-translate --deserialize` or `mlir-opt` without --emit-bytecode)")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        text = data.decode("utf-8", errors="replace")
        prefix = data[: e.start].decode("utf-8", errors="replace")
        src = SourceFile(path, text)
        off = len(prefix)
        return src, _diag(SYNTAX_ERROR, path, Span(off, off + 1),
                          f"invalid UTF-8: byte 0x{data[e.start]:02x} cannot start a character; "
                          f"StableHLO text must be UTF-8")
    if text.startswith("\ufeff"):
        text = " " + text[1:]  # keep offsets, drop the BOM
    return SourceFile(path, text), None


def read_path(path: str) -> tuple[SourceFile, Diagnostic | None]:
    try:
        data = sys.stdin.buffer.read() if path == "-" else Path(path).read_bytes()
    except OSError as e:
        reason = e.strerror or str(e)
        return SourceFile(path, ""), _diag(UNREADABLE, path, None, f"cannot read {path}: {reason}")
    return decode(data, "<stdin>" if path == "-" else path)


# Rule selection (select / ignore, and the selectors' check) is selection.py.


# ----------------------------------------------------------------------------- linting
def lint_source(source: SourceFile, config: Config, read_error: Diagnostic | None = None,
                hooks: LintHooks = NO_HOOKS) -> FileResult:
    """Lint one file. Never raises (but for KeyboardInterrupt/SystemExit): whatever
    fails while checking this file (scanner, parser, rule, analysis, out of memory,
    recursion) becomes one SHLO003 for it and `failed` (exit 2), so the files after
    it are still checked and every report stays well-formed.

    The cyclic GC is paused meanwhile: a big module is 300k long-lived objects that
    a collection would re-walk again and again.

    `hooks`: what the caller takes over (hooks.py): the editor's re-lint as you
    type hands out the previous version's header parses and rule findings where
    they are exactly what this text would give; the CLI's NO_HOOKS parses and
    runs everything."""
    where = _Where()
    with gc_paused():
        try:
            result = _lint_source(source, config, read_error, where, hooks)
        except _FileAborted as e:
            result = FileResult(source, None, [e.diagnostic], failed=True)
        except Exception as e:  # noqa: BLE001 - the one per-file guard (internal_error never raises)
            result = FileResult(source, None, [internal_error(source, e, where.stage)], failed=True)
    _position(result)
    return result


def _position(result: FileResult) -> None:
    """Give each diagnostic (and its notes in this file) its line and column, as JSON
    reports them: Diagnostic.line/column/end_line/end_column of the library. New
    diagnostics, not changed ones: a rule result the language server reuses from an
    earlier version (its spans moved) is positioned again in each version."""
    source = result.source

    def place(d: Diagnostic) -> Diagnostic:
        location = positioned(d.location, source)
        notes = tuple(n if (at := positioned(n.location, source)) is n.location else Note(at, n.message)
                      for n in d.notes)
        if location is d.location and all(a is b for a, b in zip(notes, d.notes)):
            return d
        return replace(d, location=location, notes=notes)

    result.diagnostics = [place(d) for d in result.diagnostics]


class _FileAborted(Exception):
    """Out of memory on some op: the next rule would only try (and fail) again, slowly,
    so the file stops here with this one SHLO003."""

    def __init__(self, diagnostic: Diagnostic):
        super().__init__(diagnostic.message)
        self.diagnostic = diagnostic


class _Where:
    """What the engine was doing when something failed (for the SHLO003 message)."""

    __slots__ = ("stage",)

    def __init__(self) -> None:
        self.stage = "reading the file"


REPORT_URL = "https://github.com/shlo-lint/shlo-lint/issues"


def internal_error(source: SourceFile, error: BaseException, stage: str, op=None,
                   span: Span | None = None) -> Diagnostic:
    """SHLO003 for an exception of ours: where we were, which op, what was raised,
    the innermost frame of shlo-lint it came from, and "please report". Never
    raises: out of memory, the frames of the failed work are cleared first (their
    locals are what filled memory), and a plainer message is the last resort."""
    if isinstance(error, MemoryError):
        traceback.clear_frames(error.__traceback__)
    try:
        return _internal_error(source, error, stage, op, span)
    except Exception:  # noqa: BLE001 - e.g. still out of memory
        return _diag(INTERNAL_ERROR, source.path, Span(0, 0),
                     f"internal error while {stage}; please report it ({REPORT_URL})")


def _internal_error(source: SourceFile, error: BaseException, stage: str, op, span: Span | None) -> Diagnostic:
    if span is None:
        span = _op_span(source, op)
    name = getattr(op, "name", None)
    what = f"{type(error).__name__}: {_short(str(error))}" if str(error) else type(error).__name__
    if isinstance(error, MemoryError):
        what = "out of memory (MemoryError)"
    at = _origin(error)
    return _diag(INTERNAL_ERROR, source.path, span,
                 f"internal error while {stage}" + (f" (op `{name}`)" if name else "") + f": {what}"
                 + (f" [at {at}]" if at else "") + "; this is a shlo-lint bug, not a problem of this file, "
                 f"and the file was not fully checked: please report it with the file ({REPORT_URL})")


def _op_span(source: SourceFile, op) -> Span:
    """The op's name as the scanner found it (its header may be what cannot be parsed)."""
    try:
        start, end = op.span
        name = op.name
        at = source.text.find(name, start, end)
        span = Span(at, at + len(name)) if at >= 0 else Span(start, start)
    except Exception:  # noqa: BLE001 - no op, or one too broken to locate
        return Span(0, 0)
    return span if 0 <= span.start <= span.end <= len(source.text) else Span(0, 0)


def _short(text: str, limit: int = 300) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[:limit] + "..."


def _origin(error: BaseException) -> str | None:
    """`checker/frontend/stablehlo/parse/builder.py:999 (_angle_attr)`: the innermost frame in shlo-lint's
    own code."""
    tb = error.__traceback__
    found = None
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # above checker/
    while tb is not None:
        filename = tb.tb_frame.f_code.co_filename
        if os.path.abspath(filename).startswith(root) and "site-packages" not in filename:
            found = f"{os.path.relpath(filename, root)}:{tb.tb_lineno} ({tb.tb_frame.f_code.co_name})"
        tb = tb.tb_next
    return found


def _lint_source(source: SourceFile, config: Config, read_error: Diagnostic | None, where: _Where,
                 hooks: LintHooks) -> FileResult:
    if config.per_file_ignores or config.extend_ignore:
        config = config.merged(ignore=config.ignores_for(source.path))
    if read_error is not None:
        return FileResult(source, None, [read_error], failed=True)
    if not source.text.strip():
        return FileResult(source, None, [_diag(SYNTAX_ERROR, source.path, Span(0, 0),
                                                "empty file: expected a module or operations")], failed=True)
    where.stage = "loading the rules"
    registry.load()
    where.stage = "scanning the file"
    announce(f"parsing {size(len(source.text))}")
    module = hooks.read(source, hooks.header_parser(header_parser()))
    where.stage = hooks.walk_stage
    ops = hooks.walk(module)  # walked once: the parse and the rules go through this list
    module.walked = ops
    result = FileResult(source, module)
    internal: list[Diagnostic] = []
    if module.structurally_broken:
        # Regions could not be matched: headers and rules would only echo the
        # same damage, so report what the scan found and stop here.
        del module.syntax_errors[1:]
    else:
        seen_errors: set[tuple[str, str]] = set()
        if len(source.text) <= config.full_parse_limit:
            where.stage = "parsing"
            internal += _parse_everything(module, seen_errors, hooks, ops)
        where.stage = "running the rules"
        announce(f"checking {len(ops):,} ops")
        found, ctx = _run_rules(module, config, seen_errors, hooks, ops)
        result.diagnostics.extend(found)
        if config.communication:
            where.stage = "counting the communication"
            announce("communication table")
            from ..analysis.comm_counts import communication_table
            from ..analysis.tracer.structure import structure_of

            try:
                result.communication = communication_table(
                    module, ctx.grid, struct=structure_of(module, ctx.cache, STRUCTURE_KEY))
            except MemoryError as e:
                raise _FileAborted(internal_error(source, e, where.stage)) from None
            except Exception as e:  # noqa: BLE001 - a table bug must not cost the file its findings
                internal.append(internal_error(source, e, where.stage))
    where.stage = "collecting syntax errors"
    seen: set[tuple[int, str]] = set()
    for message, span in module.syntax_errors:  # parse errors, including lazily found ones
        if (span.start, message) not in seen:
            seen.add((span.start, message))
            result.diagnostics.append(_diag(SYNTAX_ERROR, source.path, span, message))
    for message, span in getattr(module, "internal_errors", ()):  # the parser's own bugs
        internal.append(_diag(INTERNAL_ERROR, source.path, span, message))
    if module.front_end != "stablehlo":
        # A rule's fix is an edit of MLIR text: none applies to another language's text.
        result.diagnostics = [d if d.fix is None else replace(d, fix=None) for d in result.diagnostics]
    where.stage = "applying suppressions"
    result.diagnostics = _apply_suppressions(module, _drop_superseded(result.diagnostics), config) + internal
    # Any internal error (a parser or rule crash on some op) means the file was not
    # fully checked: exit 2, as for a file that does not parse.
    result.failed = bool(module.syntax_errors) or any(d.code == INTERNAL_ERROR for d in result.diagnostics)
    where.stage = "finishing the report"
    for d in result.diagnostics:
        object.__setattr__(d, "fingerprint", _fingerprint(source, d))
    result.diagnostics.sort(key=_sort_key(source))
    return result


def _signature(e: BaseException) -> tuple[str, str]:
    return type(e).__name__, str(e)


def _parse_everything(module: Module, seen_errors: set[tuple[str, str]], hooks: LintHooks,
                      ops: list[Operation]) -> list[Diagnostic]:
    """Parse every header; an op the parser crashes on is one SHLO003 and the rest
    are still parsed (a rule reading that header later raises the same error: its
    signature goes to `seen_errors` so it is not reported twice). A header the
    hooks know to parse cleanly (the editor's: the previous version's) is not
    needed here (a rule asking for it gets it then)."""
    out = []
    unchecked = getattr(module.parser, "unchecked", None)  # (a parser that checks op by op has none)
    if unchecked is not None:
        return _parse_unchecked(module, unchecked, seen_errors)
    # A header whose layout already parsed (a cache hit) is checked: it is built
    # only if something reads it (frontend/stablehlo/parse/api.py, header_checked).
    checked = getattr(module.parser, "header_checked", None)
    for op in hooks.headers_to_check(ops):
        try:
            if not hooks.header_known(op) and (checked is None or not checked(module, op)):
                op.header  # noqa: B018
            for region in op.regions:
                for block in region.blocks:
                    if block.label_span is not None and not hooks.label_known(block):
                        block.arguments  # noqa: B018
        except Exception as e:  # noqa: BLE001 - a parser bug costs one op, not the file
            _parse_failed(module, op, e, seen_errors, out)
    return out


def _parse_unchecked(module: Module, unchecked, seen_errors: set[tuple[str, str]]) -> list[Diagnostic]:
    """_parse_everything by the parser's own loop: it checks the headers in one loop
    (parse/api.py `unchecked`) and yields those it could not, parsed here; then
    the block labels (their parses record their own errors and share nothing
    with the headers', so parsing them after the headers changes no result)."""
    out: list[Diagnostic] = []
    ops = list(module.walk())
    for op in unchecked(module, ops):
        try:
            op.header  # noqa: B018
        except Exception as e:  # noqa: BLE001 - a parser bug costs one op, not the file
            _parse_failed(module, op, e, seen_errors, out)
    for op in ops:
        if op.regions:
            try:
                for region in op.regions:
                    for block in region.blocks:
                        if block.label_span is not None:
                            block.arguments  # noqa: B018
            except Exception as e:  # noqa: BLE001
                _parse_failed(module, op, e, seen_errors, out)
    return out


def _parse_failed(module: Module, op: Operation, e: Exception, seen_errors: set[tuple[str, str]],
                  out: list[Diagnostic]) -> None:
    if isinstance(e, MemoryError):  # internal_error clears the frames first
        raise _FileAborted(internal_error(module.source, e, "parsing", op)) from None
    sig = _signature(e)
    if sig not in seen_errors:
        seen_errors.add(sig)
        out.append(internal_error(module.source, e, "parsing", op))


def _run_rules(module: Module, config: Config, seen_errors: set[tuple[str, str]], hooks: LintHooks,
               ops: list[Operation]) -> tuple[list[Diagnostic], Context]:
    """Every enabled rule on its ops, then the module rules: (findings, the rules' context)."""
    grid = grid_of(module, config.num_replicas, config.num_partitions)
    ctx = hooks.context(module, grid, config.options)
    call = hooks.rule_runner(ctx, _call)
    whole = hooks.op_rules  # all of an op's rules at once (the editor: reused as a whole), or None
    front_end = module.front_end
    by_op = _rules_by_op(config, front_end)
    out: list[Diagnostic] = []
    extend = out.extend
    # Plain calls into one list, not generators: a small file makes ~15 rule calls,
    # and each generator layer (here, _call) cost about as much as an empty rule.
    for op in ops:
        specs = by_op.get(op.name)
        if specs is None:
            specs = by_op[op.name] = [s for s in registry.rules_for_op(op.name)
                                      if enabled(s, config) and front_end in s.front_ends]
        if specs:
            found = whole(ctx, op, specs, seen_errors)
            if found is not None:
                extend(found)
                continue
        name, before = op.name, len(out)
        for spec in specs:
            found = call(spec, ctx, op, seen_errors)
            if found:
                extend(found)
        if op.name != name:
            # Its front end could not build the header these rules read and now reads
            # the op as opaque (its own SHLO003 says so): what they found is not the op's.
            del out[before:]
    mods = by_op.get(_MODULE_RULES)
    if mods is None:
        mods = by_op[_MODULE_RULES] = [s for s in registry.module_rules()
                                       if enabled(s, config) and front_end in s.front_ends]
    for spec in mods:
        announce("deadlock analysis" if spec.category == "deadlock" else f"{spec.code} {spec.name}")
        found = call(spec, ctx, module, seen_errors)
        if found:
            extend(found)
    return out, ctx


_MODULE_RULES = ("module rules",)  # their entry in a _rules_by_op table: never an op name (a str)


_BY_OP: dict[tuple, dict[str, list[RuleSpec]]] = {}
"""op name → its enabled rules (and _MODULE_RULES → the enabled module rules), per selection:
built once per process and selection, not once per file (~5% of linting a
six-line file)."""


def _rules_by_op(config: Config, front_end: str) -> dict[str, list[RuleSpec]]:
    # registry.rules_for_op and module_rules are part of the key: tests replace them
    # to inject rules.
    key = (registry.rules_for_op, registry.module_rules, registry.generation(), config.select,
           config.extend_select, config.ignore, front_end)
    try:
        table = _BY_OP.get(key)
    except TypeError:  # selectors given as lists (Config(select=[...])): not kept
        return {}
    if table is None:
        if len(_BY_OP) > 1000:  # a long-lived process (the language server) with many configs
            _BY_OP.clear()
        table = _BY_OP[key] = {}
    return table


def _call(spec: RuleSpec, ctx: Context, subject, seen_errors: set[tuple[str, str]] = frozenset()
          ) -> list[Diagnostic]:
    ctx.spec = spec
    try:
        return list(spec.func(subject, ctx) or ())
    except Exception as e:  # noqa: BLE001 - a rule bug must not cost the user the rest of the file
        # Not hasattr(subject, "name_span"): that parses the header, which may be what failed.
        is_op = subject is not ctx.module and isinstance(subject, Operation)
        if isinstance(e, MemoryError):  # before anything that allocates
            traceback.clear_frames(e.__traceback__)
            raise _FileAborted(internal_error(ctx.source, e, f"running rule {spec.code} ({spec.name})",
                                              subject if is_op else None)) from None
        if _signature(e) in seen_errors:
            return []  # the parser crash under it is already reported at its op
        return [internal_error(ctx.source, e, f"running rule {spec.code} ({spec.name})",
                               subject if is_op else None)]


def _drop_superseded(diags: list[Diagnostic]) -> list[Diagnostic]:
    """Drop a finding that a rule naming it in `superseded_by` makes at the same
    place (SHLO503 "undecided" under SHLO504's warning on the same branch).
    Before suppressions: silencing the better finding silences the cause."""
    weaker = registry.superseded_codes()
    if not weaker or not any(d.code in weaker for d in diags):
        return diags
    at = {(d.code, d.span.start) for d in diags if d.span is not None}

    def covered(d: Diagnostic) -> bool:
        spec = registry.get(d.code) if d.code in weaker else None
        return (spec is not None and d.span is not None
                and any((c, d.span.start) in at for c in spec.superseded_by))
    return [d for d in diags if not covered(d)]


def _statement_lines(module: Module):
    """line → (first, last) line of the op header starting on that line."""
    src = module.source
    table: dict[int, tuple[int, int]] = {}
    for op in module.walk():
        if op is module.root:
            continue
        first = src.line_col(op.span.start)[0]
        last = src.line_col(max(op.span.start, op.header_end - 1 if op.regions else op.span.end))[0]
        table.setdefault(first, (first, last))
    return lambda line: table.get(line, (line, line))


def _apply_suppressions(module: Module, diags: list[Diagnostic], config: Config) -> list[Diagnostic]:
    sups = find_suppressions(module.source, _statement_lines(module) if "shlo-lint:" in module.source.text else None)
    if not sups:
        return diags
    src = module.source

    def keep(d: Diagnostic) -> bool:
        if d.category == "syntax" or d.span is None:
            return True
        line = src.line_col(d.span.start)[0]
        suppressed = False
        for s in sups:
            if s.whole_file or line in s.lines:
                hit = s.matches(d.code, d.name)
                if hit is not None and not (hit == "*" and d.code == UNUSED_SUPPRESSION):
                    s.used.add(hit)  # type: ignore[union-attr]
                    suppressed = True
        return not suppressed

    kept = [d for d in diags if keep(d)]
    unused_spec = registry.get(UNUSED_SUPPRESSION)
    if unused_spec is None or not enabled(unused_spec, config):
        return kept
    unused: list[Diagnostic] = []
    for s in sups:
        for c in s.codes or ("*",):
            if c in (s.used or set()) or c in (UNUSED_SUPPRESSION, "unused-suppression"):
                continue
            known = c == "*" or registry.get(c) is not None or any(r.name == c for r in registry.all_rules())
            if not known:
                msg = f"unknown rule code `{c}` in suppression"
            elif c == "*":
                msg = "unused suppression: no diagnostic is reported here"
            else:
                msg = f"unused suppression: no {c} diagnostic is reported here"
            unused.append(_diag(UNUSED_SUPPRESSION, src.path, s.span, msg, Severity.WARNING))
    # A stale suppression can itself be suppressed (`ignore-file[SHLO004]`).
    return kept + [d for d in unused if keep(d)]


def _fingerprint(source: SourceFile, d: Diagnostic) -> str:
    snippet = " ".join(source.snippet(d.span).split()) if d.span is not None else ""
    h = hashlib.sha256(f"{d.code}\0{d.path}\0{snippet}\0{d.message}".encode()).hexdigest()
    return h[:32]


def _sort_key(source: SourceFile):
    def key(d: Diagnostic):
        off = d.span.start if d.span is not None else -1
        return (d.path, off, d.code, d.message)

    return key


def lint_text(text: str, path: str = "<string>", config: Config | None = None) -> list[Diagnostic]:
    """Lint one program given as text. ConfigError (a ValueError) for a selector
    that matches no rule (options and enums are checked when the Config is made)."""
    config = config or Config()
    check_selectors(config)
    return lint_released(SourceFile(path, text), config).diagnostics


def lint_released(source: SourceFile, config: Config, read_error: Diagnostic | None = None) -> FileResult:
    """lint_source, then release_ir, with the cyclic GC paused over both. Paused
    only inside lint_source, the collector came back with the whole IR counted as
    new objects (hundreds of thousands for a big module), so the first allocation
    after it traversed them all before the release freed them."""
    with gc_paused():
        result = lint_source(source, config, read_error)
        release_ir(result)
    return result


def release_ir(result: FileResult) -> None:
    """Drop a linted file's IR (`result.module = None`) once nothing will read it, taken
    apart so that reference counting frees it now: its ops, regions, blocks and values
    point at each other, so left alone only a cyclic collection (walking every live
    object) frees it, 3-5% of linting a sample of small files. Diagnostics hold no IR."""
    if result.module is not None:
        release(result.module)
        result.module = None
