"""Re-lint as you type: one document's previous version, reused where it is exact.

The language server lints the whole text on every change, through the same
engine as the CLI (engine.lint_source), with a `Memo` that carries over from
the previous version of the document only what is provably the same:

* **the skeleton** (checker/incremental_scan.py): when the edit is inside one
  line that the scan takes whole (one op) before and after, the previous IR
  (kept until then) is copied with offsets moved instead of scanning (~9 ms
  instead of ~35 ms per 10k lines); otherwise the text is scanned.
* **op headers**: an op whose whole text (regions included) lies outside the
  edited range, at the same place relative to it, parses to the same header,
  its spans moved by the edit's length change (`delta`), provided its parse was
  clean (no syntax or internal error) and the alias definitions it may resolve
  through are unchanged. The header is handed over on first access (a header
  nobody reads costs nothing); an op the parser cache vouched for is not
  checked again (`_Version.checked`).
* **block labels** (`^bb0(%a: T):`): the same, per label.
* **per-op rules declared `local=True`** (registry.rule): findings that depend
  on nothing but the op's own text (its regions included), the grid, the
  options and the file's alias definitions; reused for an unchanged op when
  those are equal, each span moved through the edit (a span inside the edited
  range: the rule runs again). A rule run is kept for reuse only when it read
  no module-wide state (`ctx.module`, shared `ctx.cache` entries: checked at run
  time, whatever the declaration says), met no syntax error, raised nothing,
  and every op in it parsed cleanly and states its operand types (so no type
  was looked up elsewhere). Syntax errors elsewhere do not stop reuse.
* **the rules on the module op** (the deadlock analysis SHLO500-503 and the
  uniformity check SHLO504, which share one analysis): reused when the edit is
  inside one leaf op (no regions; not a call, whose callee is read from its
  text) or between ops, adds or removes no line unless the run found nothing
  (messages name lines: an Enter moves them), keeps the op's name, results and `%name`
  mentions, every block label, whether the file mentions a Shardy mesh, and
  every header field the previous run read of that op (and of the ops around
  it) equal after moving its spans; the run is kept only if it met no syntax
  error and read no header that did not parse. What the run read is recorded while it runs: each
  header it touched is a recording proxy (`ReadHeader`), which notes the
  fields and attribute names read. The bench's edit (a recv's result type,
  which the analysis does not read) is such an edit; a channel or pair change
  is not.
* **the combiner hints** SHLO631-633 (checker/incremental_block.py): reused
  when the edit is inside one leaf op, not a collective they group, that keeps
  its name, results and `%name` mentions, or only adds or removes blank space
  between ops (an Enter), and no line is added or removed unless they found nothing.
* everything else (module rules, non-local per-op rules: the futures and
  overlap analyses, SHLO120's send matching, ...) runs again on every
  version, on the carried-over headers.

tests/test_incremental.py applies random edit sequences, one-character changes
of valid programs and lines typed a character at a time, and checks after each
edit that the result equals a full lint of the same text.
"""
from __future__ import annotations

import gc
import logging
from typing import Any, Callable, Iterable, Iterator

from ...lint.config import Config
from ...lint.context import Context
from ...source.diagnostics import Diagnostic
from ...lint.engine import FileResult, lint_source
from .block_reuse import BLOCK_RULES, block_call, decide
from .edit import DIAG_SHAPE, SHIFTABLE, TextEdit, Unmovable, move_diagnostic, same_labels
from .match import match_copied, match_ops
from .header_parser import _Parser
from .module_reuse import moved_reads, root_reusable
from .skeleton import take_skeleton
from .tracking import MODULE_OP_CACHE_KEYS, PURE_CACHE_KEYS, TrackedCache, TrackedContext, self_contained
from ...ir.core import Block, Module, Operation, release
from ...source.text import SourceFile, Span

log = logging.getLogger(__name__)


# ----------------------------------------------------------------------------- one version
class _Version:
    """What one lint of the document leaves for the next."""

    __slots__ = ("text", "headers", "labels", "results", "inputs", "root_results", "root_reads", "ops",
                 "label_spans", "block_results", "checked", "skeleton", "op_results", "walked")

    def __init__(self, text: str):
        self.text = text
        self.headers: dict[tuple[int, int], tuple] = {}
        """(start, end) of an op → (name, result_names, region spans, header, delta):
        a cleanly parsed header whose spans, moved by delta, are this version's."""
        self.labels: dict[tuple[int, int], tuple] = {}
        """(start, end) of a block label → (decls, delta), the same for block arguments."""
        self.results: dict[tuple[str, int, int], tuple[Diagnostic, ...]] = {}
        """(rule code, op start, op end) → the local rule's findings on that op."""
        self.op_results: dict[tuple[int, int], tuple[tuple[str, ...], tuple]] = {}
        """(op start, op end) → (its rules' codes, each one's findings), when all its rules
        are local (or SHLO631-633) and each run was kept (reused in one step: Memo.op_rules;
        a local rule's part is reused alone when the op's rules next run one by one)."""
        self.inputs: tuple = ()
        """What local rule findings depend on besides the op: config, grid, aliases."""
        self.root_results: dict[str, list[Diagnostic]] | None = None
        """The module op's rules' findings, by rule code (None: not reusable)."""
        self.root_reads: dict[tuple[int, int], frozenset[str]] = {}
        """(start, end) of an op → the header fields those rules read of it."""
        self.block_results: dict[tuple[str, int, int], tuple[Diagnostic, ...]] | None = {}
        """(rule code, op start, op end) → SHLO631-633's non-empty findings on that op
        (checker/incremental_block.py); complete: an op not in it had none (None: not reusable)."""
        self.checked: set[tuple[int, int]] = set()
        """The ops whose header the parser's cache vouched for without building it
        (header_checked: a clean parse of the same layout in the same context)."""
        self.skeleton: Module | None = None
        """This version's IR, kept (not taken apart) when its scan found no syntax error:
        the next version's scan may copy it (checker/incremental_scan.py), then releases it."""
        self.walked: list[Operation] | None = None
        """This version's ops in walk order while its IR lives (releasing it needs no walk)."""
        self.label_spans: list[Span] = []
        """Every block label's span (the module op's rules read block arguments)."""
        self.ops: dict[tuple[int, int], tuple] = {}
        """(start, end) of every op → (name, result names, number of regions): which op
        an unchanged text at a moved place is (the same text may be a different op's tail)."""


def _aliases(module: Module) -> tuple:
    """The alias definitions a header parse may resolve through (text and place)."""
    return tuple(sorted((k, v) for k, v in module.alias_texts.items() if not k.startswith("#loc")))


def _loc_aliases(module: Module) -> tuple:
    """The `#locN` definitions (a finding's Python note reads them), by text."""
    return tuple(sorted((k, v[0]) for k, v in module.alias_texts.items() if k.startswith("#loc")))


# ----------------------------------------------------------------------------- recording reads
_NOT_REUSED = frozenset({"SHLO003", "SHLO503"})
"""Findings never carried over from the module op's rules: an internal error, and
an undecided analysis (it may have hit a time limit: the next run may decide)."""


# ----------------------------------------------------------------------------- the engine's hooks
class Memo:
    """Handed to engine.lint_source for one version of a document."""

    def __init__(self, prev: _Version | None, source: SourceFile, config: Config):
        self.prev = prev
        self.source = source
        self.config = config
        self.edit = TextEdit(prev.text, source.text) if prev is not None else None
        self.version = _Version(source.text)
        self._parser: _Parser | None = None
        self._clone = None
        """The copied skeleton (checker/incremental_scan.py), until seed matches through it."""
        self.old_span: dict[Operation, tuple[int, int]] = {}
        """An op of this version → its span in the previous one (ops outside the edit)."""
        self.headers_ok = False
        """Headers of ops outside the edit may be handed over (aliases unchanged, ...)."""
        self.rescanned = False
        """The skeleton was the previous one's, moved (no scan)."""
        self._same_labels: bool | None = None
        """Memo.same_labels, once computed."""
        self.vouched: set[Operation] | None = None
        """Ops whose header check is known clean (their previous version's was), not
        seeded: the parse check need not visit them (to_check)."""
        self.touched: list[Operation] = []
        """The ops whose text the edit touched (the edited op and the ops around it)."""
        self.inputs: tuple = ()
        self.reused = self.ran = 0
        """Local rule runs reused / run (for the bench and the tests)."""
        self.block_reuse: bool | None = None
        """SHLO631-633 reused from the previous version (None: not decided yet)."""
        self.block_reused = self.block_ran = 0
        self.bulk = 0
        """Ops whose findings were reused in one step (op_rules)."""
        self.from_whole = 0
        """Local rule findings reused from the previous version's whole-op entry."""
        self._run: Callable | None = None
        self._reuse = False
        self._kinds: dict[str, str] = {}
        """op name → "local" (all its rules local), "block" (local or SHLO631-633) or ""."""
        self._codes: dict[str, tuple[str, ...]] = {}
        """op name → its rules' codes, in order (an op_results entry's key to its parts)."""
        self._block_counts: dict[str, int] = {}
        """op name → how many of its rules are SHLO631-633."""
        self.root: str | None = None
        """The module op's rules: None (not reached yet), "reused" or "ran"."""
        self._root_found: dict[str, list[Diagnostic]] | None = None
        self._root_ok = False
        self._cache: TrackedCache | None = None
        self._module: Module | None = None
        self._root_errors = (0, 0)
        self.stats: dict[str, Any] = {}
        """What was reused (set by finish)."""

    # -- parsing ---------------------------------------------------------------------
    def parser(self, inner) -> _Parser:
        self._parser = _Parser(inner, self)
        return self._parser

    def rescan(self, source: SourceFile, parser) -> Module | None:
        """The previous version's skeleton moved through the edit, when a scan of the new
        text would give exactly that; else None (the engine scans)."""
        self._clone = take_skeleton(self.prev, self.edit, source, parser)
        self.rescanned = self._clone is not None
        return None if self._clone is None else self._clone.module

    def seed(self, module: Module) -> list[Operation]:
        """Match this version's ops (and block labels) with the previous version's
        (checker/incremental_match.py); the module's ops in walk order."""
        clone, self._clone = self._clone, None
        prev = self.prev
        if prev is not None and self.edit is not None:
            old_aliases = prev.inputs[2] if prev.inputs else None
            self.headers_ok = SHIFTABLE and not module.structurally_broken and old_aliases == _aliases(module)
        if clone is not None and clone.module is module and self._match_copied(clone):
            ops = clone.walked
        else:
            ops = list(module.walk())
            match_ops(self, ops)
        self.version.walked = ops
        return ops

    def _match_copied(self, clone) -> bool:
        """match_copied; a bug of ours there costs the bulk match, not the lint."""
        try:
            return match_copied(self, clone)
        except Exception:  # noqa: BLE001 - undo what it filled in; match op by op
            log.exception("shlo-lint: matching the copied skeleton failed")
            v, parser = self.version, self._parser
            for table in (v.ops, v.headers, v.labels, v.checked, self.old_span):
                table.clear()
            v.label_spans.clear()
            self.touched.clear()
            self.vouched = None
            if parser is not None:
                parser.seeds.clear()
                parser.label_seeds.clear()
            return False

    def to_check(self, ops: list[Operation]) -> list[Operation]:
        """The ops the engine's parse check must visit: all but those known clean
        without a look (`vouched` by match_copied), unless they have block labels."""
        vouched, self.vouched = self.vouched, None
        if not vouched or self._parser is None:
            return ops
        seeds = self._parser.seeds
        return [op for op in ops if op.regions or (op not in seeds and op not in vouched)]

    def same_labels(self) -> bool:
        """Are the block labels the previous version's, moved (incremental_edit.same_labels;
        asked by the module op's rules and the combiner hints, computed once)."""
        if self._same_labels is None:
            assert self.prev is not None and self.edit is not None
            self._same_labels = same_labels(self.prev.label_spans, self.version.label_spans, self.edit)
        return self._same_labels

    def seeded(self, op: Operation) -> bool:
        return self._parser is not None and op in self._parser.seeds

    def seeded_label(self, block: Block) -> bool:
        return self._parser is not None and block in self._parser.label_seeds

    # -- rules -------------------------------------------------------------------------
    def context(self, module: Module, grid, options: dict[str, Any] | None) -> Context:
        self.inputs = (self.config, grid, _aliases(module), _loc_aliases(module), self.source.path)
        ctx = TrackedContext(module, grid, options)
        self._cache = ctx._cache
        return ctx

    def call(self, ctx: Context, call: Callable) -> Callable:
        """The engine's rule call, reusing or recording findings."""
        prev, edit = self.prev, self.edit
        reuse = self._reuse = prev is not None and edit is not None and prev.inputs == self.inputs and DIAG_SHAPE
        old_results = prev.results if reuse else {}
        old_whole = prev.op_results if reuse else {}
        results = self.version.results
        old_span = self.old_span
        parsed = self._parser.parsed if self._parser is not None else {}
        clean = self._parser.clean if self._parser is not None else {}
        module = ctx._module  # type: ignore[attr-defined]
        root = module.root
        errors = module.syntax_errors, module.internal_errors

        def run(spec, ctx: Context, subject, seen_errors) -> Iterable[Diagnostic]:
            # A plain function, not a generator: it runs 17,000 times per edit of a 10k-line file.
            if subject is root and root is not None:
                return self._root_call(spec, ctx, subject, seen_errors, call)
            if self.root == "running":
                self._stop_root()
            if not spec.local or not isinstance(subject, Operation):
                if spec.code in BLOCK_RULES and isinstance(subject, Operation):
                    return block_call(self, spec, ctx, subject, seen_errors, call)
                return call(spec, ctx, subject, seen_errors)
            span = subject.span
            old = old_span.get(subject) if reuse else None
            found = old_results.get((spec.code, old[0], old[1])) if old is not None else None
            if found is None and old is not None:  # the op's findings were reused whole last time
                found = _part(old_whole.get(old), spec.code)
                self.from_whole += found is not None
            if found is not None:
                try:
                    moved = tuple([move_diagnostic(d, edit) for d in found]) if found else ()
                except Exception:  # noqa: BLE001 - Unmovable (a span in the edit), or a bug of ours: run it
                    moved = None
                if moved is not None:
                    self.reused += 1
                    results[(spec.code, span.start, span.end)] = moved
                    return moved
            self.ran += 1
            ctx.wide = False
            before = len(errors[0]), len(errors[1])
            out = tuple(call(spec, ctx, subject, seen_errors))
            # Kept only if nothing but the op was read, and no error was met on the
            # way (a lazily parsed header or #loc: a reuse would not meet it again).
            if not ctx.wide and not seen_errors and (len(errors[0]), len(errors[1])) == before \
                    and not any(d.code == "SHLO003" for d in out) and self_contained(subject, parsed, clean):
                results[(spec.code, span.start, span.end)] = out
            return out

        self._run = run
        return run

    def op_rules(self, ctx: Context, op: Operation, specs: list, seen_errors) -> Iterable[Diagnostic] | None:
        """All of an op's rules in one step, when all are local or SHLO631-633 (the
        engine's op walk: 8,000 ops and 18,000 rule calls per edit of the bench's
        file, nearly all reused): the previous version's findings on the op moved,
        else each rule through `run`. None: the engine calls each rule."""
        kinds = self._kinds.get(op.name)
        if kinds is None:
            kinds = self._kinds[op.name] = "local" if all(s.local for s in specs) else \
                "block" if all(s.local or s.code in BLOCK_RULES for s in specs) else ""
            self._codes[op.name] = tuple(s.code for s in specs)
        run = self._run
        if not kinds or run is None or op.parent is None:
            return None  # (the module op: its rules' own path)
        if self.root == "running":
            self._stop_root()
        span = op.span
        codes = self._codes[op.name]
        block = kinds == "block"  # SHLO631-633 reused as a whole only with the rest of their block
        if self._reuse and (not block or decide(self)):
            old = self.old_span.get(op)
            found = self.prev.op_results.get(old) if old is not None else None  # type: ignore[union-attr]
            if found is not None and found[0] == codes:
                parts = found[1]
                if not any(parts):  # (nearly every op: no finding) the entry as it is
                    self.reused += len(specs)
                    self.bulk += 1
                    self.version.op_results[span] = found
                    if block:
                        self._keep_block_findings(op, specs, parts)
                    return ()
                moved = tuple([_moved(part, self.edit) if part else () for part in parts])
                if None not in moved:
                    self.reused += len(specs)
                    self.bulk += 1
                    self.version.op_results[span] = (codes, moved)
                    if block:
                        self._keep_block_findings(op, specs, moved)
                    return [d for part in moved for d in part]
        parts = tuple([tuple(run(spec, ctx, op, seen_errors)) for spec in specs])
        results, (start, end) = self.version.results, span
        if all((spec.code, start, end) in results for spec in specs if spec.local) \
                and (not block or self.version.block_results is not None):
            self.version.op_results[span] = (codes, parts)
        return [d for part in parts for d in part]

    def _keep_block_findings(self, op: Operation, specs: list, moved: tuple) -> None:
        """SHLO631-633's part of a whole op's reused findings (`moved`: per rule), into
        their own table (complete: the next version may reuse them per op)."""
        table = self.version.block_results
        n = self._block_counts.get(op.name)
        if n is None:
            n = self._block_counts[op.name] = sum(1 for s in specs if s.code in BLOCK_RULES)
        self.block_reused += n
        self.reused -= n
        if table is None or not any(moved):
            return
        for spec, part in zip(specs, moved):
            if part and spec.code in BLOCK_RULES:
                table[(spec.code, op.span.start, op.span.end)] = part

    # -- the module op's rules -------------------------------------------------------------
    def _root_call(self, spec, ctx: Context, op: Operation, seen_errors, call: Callable) -> Iterator[Diagnostic]:
        # A generator: the module op's rules are few, and run in order.
        if self.root is None:
            try:
                self._root_found = root_reusable(self, op)
            except Exception:  # noqa: BLE001 - a bug of ours in deciding: run the rules, as a full lint would
                log.exception("shlo-lint: deciding whether to reuse the module op's findings failed")
                self._root_found = None
            if self._root_found is not None:
                self.root = "reused"
                self.version.root_results = {}
                self.version.root_reads = moved_reads(self)
            else:
                self.root = "running"
                self._root_ok = DIAG_SHAPE
                self._root_errors = len(op.module.syntax_errors), len(op.module.internal_errors)
                self._module = op.module
                self.version.root_results = {}
                assert self._parser is not None and self._cache is not None
                self._cache.written = set()
                self._parser.start_tracking()
        stored = self.version.root_results
        if self.root == "reused":
            found = self._root_found.get(spec.code) if self._root_found is not None else None
            if found is not None:
                if stored is not None:
                    stored[spec.code] = found
                yield from found
                return
            self.version.root_results = None  # a rule the previous run did not have: run it, keep nothing
            yield from call(spec, ctx, op, seen_errors)
            return
        if self.root != "running":  # stopped early (cannot happen: the module op's rules come first)
            self.version.root_results = None
            yield from call(spec, ctx, op, seen_errors)
            return
        out = list(call(spec, ctx, op, seen_errors))
        if seen_errors or any(d.code in _NOT_REUSED for d in out):
            self._root_ok = False
        if stored is not None:
            stored[spec.code] = out
        yield from out

    def _stop_root(self) -> None:
        assert self._parser is not None and self._cache is not None
        reads = self._parser.stop_tracking()
        written = self._cache.written or set()
        self._cache.written = None
        self.root = "ran"
        module = self._module
        if module is not None and (len(module.syntax_errors), len(module.internal_errors)) != self._root_errors:
            self._root_ok = False  # it met a syntax error (a header parsed lazily): a reuse would not
        clean = self._parser.clean
        if any(op not in clean for op, fields in reads.items() if fields):
            self._root_ok = False  # it read a header that did not parse (lazily, its error is found by reading it)
        if not self._root_ok or not written <= (MODULE_OP_CACHE_KEYS | PURE_CACHE_KEYS):
            self.version.root_results = None
            return
        self.version.root_reads = {(op.span.start, op.span.end): frozenset(fields)
                                   for op, fields in reads.items() if fields}

    # -- after the lint ------------------------------------------------------------------
    def finish(self, result: FileResult) -> _Version | None:
        """The version the next lint starts from (None: the next one is a full lint).
        Afterwards the memo holds no op (only counts: `stats`)."""
        try:
            return self._finish(result)
        finally:
            parser = self._parser
            if parser is not None:
                self.stats = {"headers handed over": len(parser.seeds) + len(parser.parsed) - len(parser.fresh),
                              "headers parsed": len(parser.fresh),
                              "headers parsed outside the edit": sum(1 for op in parser.fresh if op in self.old_span),
                              "local findings reused": self.reused, "local rules run": self.ran,
                              "ops reused whole": self.bulk,
                              "combiner hints reused": self.block_reused, "combiner hints run": self.block_ran,
                              "module op rules": self.root, "rescanned": self.rescanned}
            self._parser = None
            self._run = None
            self._module = None
            self._cache = None
            self._root_found = None
            self.old_span = {}
            self.touched = []

    def _finish(self, result: FileResult) -> _Version | None:
        if self.root == "running":
            self._stop_root()
        module = result.module
        parser = self._parser
        if module is None or parser is None:
            return None
        v = self.version
        v.inputs = self.inputs or (self.config, None, _aliases(module), _loc_aliases(module), self.source.path)
        if module.structurally_broken:
            # No rule ran (regions could not be matched): the previous version stays
            # the one to reuse from, so the first lint after the repair reuses it.
            return self.prev if self.prev is not None else None
        return v  # the header and label tables were filled as the lint went (seed, _Parser)


def _moved(found: tuple[Diagnostic, ...], edit: TextEdit | None) -> tuple[Diagnostic, ...] | None:
    """Findings moved through the edit; None when one touches it (or a bug of ours)."""
    try:
        return tuple([move_diagnostic(d, edit) for d in found])  # type: ignore[arg-type]
    except Exception:  # noqa: BLE001 - Unmovable, or a bug of ours: the rules run again
        return None


def _part(whole: tuple | None, code: str) -> tuple[Diagnostic, ...] | None:
    """One rule's findings in an op_results entry (None: not there)."""
    if whole is None or code not in whole[0]:
        return None
    return whole[1][whole[0].index(code)]


def _drop_skeleton(version: _Version) -> None:
    if version.skeleton is not None:
        release(version.skeleton, version.walked)
        version.skeleton = None
    version.walked = None


# ----------------------------------------------------------------------------- a document
class Document:
    """One open document: lint each new text, reusing the previous version."""

    def __init__(self) -> None:
        self.version: _Version | None = None
        self.last: Memo | None = None
        """The memo of the latest lint (what was reused: tests, bench)."""

    def lint(self, source: SourceFile, config: Config, keep_ir: bool = False) -> FileResult:
        """Lint the document's new text. Unless `keep_ir`, the IR is taken apart
        afterwards (result.module is None): the next version needs only the tables
        kept here, and an IR left to the cyclic GC costs a 0.15-0.6 s collection
        every few edits (its ops, blocks and values point at each other)."""
        prev = self.version
        if prev is not None and prev.inputs and prev.inputs[0] != config:
            _drop_skeleton(prev)
            prev = None
        self.version = None  # a failure below leaves nothing half-made to reuse
        memo = Memo(prev, source, config)
        enabled = gc.isenabled()
        gc.disable()  # lint_source pauses it too; here until the IR is taken apart
        try:
            result = lint_source(source, config, memo=memo)
            try:
                walked, memo.version.walked = memo.version.walked, None
                self.version = memo.finish(result)
                self.last = memo
                if not keep_ir and result.module is not None:
                    module = result.module
                    result.module = None
                    v = self.version
                    if v is not None and v is not prev and not module.syntax_errors \
                            and not module.internal_errors and not module.structurally_broken:
                        v.skeleton, v.walked = module, walked  # the next scan may copy it (and then releases it)
                    else:
                        release(module, walked)
            except Exception:  # noqa: BLE001 - the result stands; only what the next lint could reuse is lost
                log.exception("shlo-lint: keeping this version for the next re-lint failed")
                self.version = None
        finally:
            if prev is not None and prev is not self.version:
                _drop_skeleton(prev)  # not copied (an early return): freed now, not by the cyclic GC
            if enabled:
                gc.enable()
        return result

    def close(self) -> None:
        """The document closed: drop what it kept."""
        if self.version is not None:
            _drop_skeleton(self.version)
        self.version = None
        self.last = None


__all__ = ["Document", "Memo", "TextEdit", "Unmovable", "move_diagnostic", "release"]
