"""Re-lint as you type: one document's previous version, reused where it is exact.

The language server lints the whole text on every change, through the same
engine as the CLI (engine.lint_source), with a `Memo` as the engine's hooks
(lint/hooks.py) that carries over from the previous version of the document
only what is provably the same. What a rule's findings depend on is declared
with the rule (`@rule(..., reuse=Reuse...)`, lint/registry.py); what a
`ctx.cache` entry is, with its key (lint/context.CacheKey). Nothing here names
a rule.

* **the skeleton** (skeleton.py): when the edit is inside one line that the
  scan takes whole (one op) before and after, the previous IR (kept until then)
  is copied with offsets moved instead of scanning; otherwise the text is
  scanned.
* **op headers**: an op whose whole text (regions included) lies outside the
  edited range, at the same place relative to it, parses to the same header,
  its spans moved by the edit's length change (`delta`), provided its parse was
  clean (no syntax or internal error) and the alias definitions it may resolve
  through are unchanged. The header is handed over on first access (a header
  nobody reads costs nothing); an op the parser cache vouched for is not
  checked again (`Version.checked`). Which op is which: `match_ops`, or
  `match_copied` in bulk after a copied skeleton.
* **block labels** (`^bb0(%a: T):`): the same, per label.
* **per-op rules declared `Reuse.OP`**: findings that depend on nothing but
  the op's own text (its regions included), the grid, the options and the
  file's alias definitions; reused for an unchanged op when those are equal,
  each span moved through the edit (a span inside the edited range: the rule
  runs again). A rule run is kept for reuse only when it read no module-wide
  state (`ctx.module`, `ctx.cache` entries that are not per-op: checked at run
  time, whatever the declaration says), met no syntax error, raised nothing,
  and every op in it parsed cleanly and states its operand types (so no type
  was looked up elsewhere). Syntax errors elsewhere do not stop reuse.
* **the rules on the module op declared `Reuse("module")`** (the deadlock
  analysis and the uniformity check, which share one analysis): reused when the
  edit is inside one leaf op (no regions; not a call, whose callee is read from
  its text) or between ops, adds or removes no line unless the run found
  nothing (messages name lines: an Enter moves them), keeps the op's name,
  results and `%name` mentions, every block label, whether the text holds the
  rules' declared `text_markers`, and every header field the previous run read
  of that op (and of the ops around it) equal after moving its spans; the run
  is kept only if it met no syntax error, read no header that did not parse,
  wrote only typed cache keys, and found nothing a rule declares not `final`.
  What the run read is recorded while it runs: each header it touched is a
  recording proxy (`ReadHeader`), which notes the fields and attribute names
  read. The bench's edit (a recv's result type, which the analysis does not
  read) is such an edit; a channel or pair change is not.
* **the block rules declared `Reuse.BLOCK`** (the combiner hints): reused when
  the edit is inside one leaf op, not one they run on, that keeps its name,
  results and `%name` mentions, or only adds or removes blank space between
  ops (an Enter), and no line is added or removed unless they found nothing.
* everything else (module rules, per-op rules that declare no reuse: the
  futures and overlap analyses, the send matching, ...) runs again on every
  version, on the carried-over headers.

tests/test_incremental.py applies random edit sequences, one-character changes
of valid programs and lines typed a character at a time, and checks after each
edit that the result equals a full lint of the same text.
"""
from __future__ import annotations

import logging
from typing import Any, Callable, Iterable, Iterator

from ...frontend.read import read_module
from ...ir import catalog
from ...ir.core import Block, Module, Operation, release
from ...ir.memory import gc_paused
from ...lint import registry
from ...lint.config import Config
from ...lint.context import CacheKey, Context
from ...lint.engine import INTERNAL_ERROR, FileResult, lint_source
from ...lint.hooks import LintHooks, RuleCall
from ...source.diagnostics import Diagnostic
from ...source.text import SourceFile, Span
from .edit import (DIAG_SHAPE, SHIFTABLE, TextEdit, Unmovable, blank_edit, lines_moved, move_all, move_diagnostic,
                   same_field, same_labels, same_presence, shift_header, ssa_mentions)
from .header_parser import VersionParser
from .skeleton import Clone, take_skeleton
from .tracking import TrackedCache, TrackedContext, self_contained

log = logging.getLogger(__name__)


# ----------------------------------------------------------------------------- one version
class Version:
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
        are reused per op (or with their block) and each run was kept (reused in one step: Memo.op_rules;
        a local rule's part is reused alone when the op's rules next run one by one)."""
        self.inputs: tuple = ()
        """What local rule findings depend on besides the op: config, grid, aliases."""
        self.root_results: dict[str, list[Diagnostic]] | None = None
        """The module op's rules' findings, by rule code (None: not reusable)."""
        self.root_reads: dict[tuple[int, int], frozenset[str]] = {}
        """(start, end) of an op → the header fields those rules read of it."""
        self.block_results: dict[tuple[str, int, int], tuple[Diagnostic, ...]] | None = {}
        """(rule code, op start, op end) → the block rules' non-empty findings on that op;
        complete: an op not in it had none (None: not reusable)."""
        self.checked: set[tuple[int, int]] = set()
        """The ops whose header the parser's cache vouched for without building it
        (header_checked: a clean parse of the same layout in the same context)."""
        self.skeleton: Module | None = None
        """This version's IR, kept (not taken apart) when its scan found no syntax error:
        the next version's scan may copy it (skeleton.py), then releases it."""
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


# ----------------------------------------------------------------------------- the engine's hooks
class Memo(LintHooks):
    """The engine's hooks (lint/hooks.py) for one version of a document: what the
    previous version computed, handed over where it is exact."""

    walk_stage = "matching the previous version"

    def __init__(self, prev: Version | None, source: SourceFile, config: Config):
        self.prev = prev
        self.source = source
        self.config = config
        self.edit = TextEdit(prev.text, source.text) if prev is not None else None
        self.version = Version(source.text)
        self.parser: VersionParser | None = None
        """The header parser of this version (header_parser)."""
        self._clone: Clone | None = None
        """The copied skeleton (skeleton.py), until walk matches through it."""
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
        """The block rules' findings (registry.Reuse "block": the combiner hints)
        reused from the previous version (None: not decided yet)."""
        self.block_reused = self.block_ran = 0
        self.bulk = 0
        """Ops whose findings were reused in one step (op_rules)."""
        self.from_whole = 0
        """Local rule findings reused from the previous version's whole-op entry."""
        self._run: Callable | None = None
        self._reuse = False
        self._kinds: dict[str, str] = {}
        """op name → "op" (all its rules reused per op), "block" (per op or with their
        block) or ""."""
        self._codes: dict[str, tuple[str, ...]] = {}
        """op name → its rules' codes, in order (an op_results entry's key to its parts)."""
        self._block_counts: dict[str, int] = {}
        """op name → how many of its rules are reused with their block."""
        self.root: str | None = None
        """The module op's rules: None (not reached yet), "reused" or "ran"."""
        self._root_found: dict[str, list[Diagnostic]] | None = None
        self._root_ok = False
        self._cache: TrackedCache | None = None
        self._linted: Module | None = None
        """The module being linted (context), for the rule runner."""
        self._module: Module | None = None
        self._root_errors = (0, 0)
        self.stats: dict[str, Any] = {}
        """What was reused (set by finish)."""

    # -- the engine's hooks: parsing ------------------------------------------------------
    def header_parser(self, parser: Any) -> VersionParser:
        self.parser = VersionParser(parser, self.version, self.vouched_before)
        return self.parser

    def read(self, source: SourceFile, parser: Any) -> Module:
        """The previous version's skeleton moved through the edit, when a scan of the new
        text would give exactly that; else a scan."""
        self._clone = take_skeleton(self.prev, self.edit, source, parser)
        self.rescanned = self._clone is not None
        return self._clone.module if self._clone is not None else read_module(source, parser)

    def walk(self, module: Module) -> list[Operation]:
        """Match this version's ops (and block labels) with the previous version's
        (match_ops, match_copied); the module's ops in walk order."""
        clone, self._clone = self._clone, None
        prev = self.prev
        if prev is not None and self.edit is not None:
            old_aliases = prev.inputs[2] if prev.inputs else None
            self.headers_ok = SHIFTABLE and not module.structurally_broken and old_aliases == _aliases(module)
        if clone is not None and clone.module is module and self._match_copied_or_undo(clone):
            ops = clone.walked
        else:
            ops = list(module.walk())
            self.match_ops(ops)
        self.version.walked = ops
        return ops

    def _match_copied_or_undo(self, clone: Clone) -> bool:
        """match_copied; a bug of ours there costs the bulk match, not the lint."""
        try:
            return self.match_copied(clone)
        except Exception:  # noqa: BLE001 - undo what it filled in; match op by op
            log.exception("shlo-lint: matching the copied skeleton failed")
            v, parser = self.version, self.parser
            for table in (v.ops, v.headers, v.labels, v.checked, self.old_span):
                table.clear()
            v.label_spans.clear()
            self.touched.clear()
            self.vouched = None
            if parser is not None:
                parser.seeds.clear()
                parser.label_seeds.clear()
            return False

    def headers_to_check(self, ops: list[Operation]) -> list[Operation]:
        """The ops the engine's parse check must visit: all but those known clean
        without a look (`vouched` by match_copied), unless they have block labels."""
        vouched, self.vouched = self.vouched, None
        if not vouched or self.parser is None:
            return ops
        seeds = self.parser.seeds
        return [op for op in ops if op.regions or (op not in seeds and op not in vouched)]

    def same_labels(self) -> bool:
        """Are the block labels the previous version's, moved (edit.same_labels; asked
        by the module op's rules and the block rules, computed once)."""
        if self._same_labels is None:
            assert self.prev is not None and self.edit is not None
            self._same_labels = same_labels(self.prev.label_spans, self.version.label_spans, self.edit)
        return self._same_labels

    def header_known(self, op: Operation) -> bool:
        """A header handed over from the previous version (it parsed cleanly there)."""
        return self.parser is not None and op in self.parser.seeds

    def label_known(self, block: Block) -> bool:
        return self.parser is not None and block in self.parser.label_seeds

    def vouched_before(self, op: Operation) -> bool:
        """Did the previous version's parse check vouch for this op's header (the
        same text, the same aliases: a parse would be as clean)?"""
        if not self.headers_ok:
            return False
        old = self.old_span.get(op)
        return old is not None and old in self.prev.checked  # type: ignore[union-attr]

    # -- the engine's hooks: rules ---------------------------------------------------------
    def context(self, module: Module, grid, options: dict[str, Any] | None) -> Context:
        self.inputs = (self.config, grid, _aliases(module), _loc_aliases(module), self.source.path)
        ctx = TrackedContext(module, grid, options)
        self._cache = ctx.tracked_cache
        self._linted = module
        return ctx

    def rule_runner(self, ctx: Context, call: RuleCall) -> RuleCall:
        """The engine's rule call, reusing or recording findings."""
        prev, edit = self.prev, self.edit
        reuse = self._reuse = prev is not None and edit is not None and prev.inputs == self.inputs and DIAG_SHAPE
        old_results = prev.results if reuse else {}
        old_whole = prev.op_results if reuse else {}
        results = self.version.results
        old_span = self.old_span
        parsed = self.parser.parsed if self.parser is not None else {}
        clean = self.parser.clean if self.parser is not None else {}
        module = self._linted
        assert module is not None
        root = module.root
        errors = module.syntax_errors, module.internal_errors

        def run(spec, ctx: Context, subject, seen_errors) -> Iterable[Diagnostic]:
            # A plain function, not a generator: it runs 17,000 times per edit of a 10k-line file.
            scope = spec.reuse.scope if spec.reuse is not None else None
            if subject is root and root is not None and scope == "module":
                return self._root_call(spec, ctx, subject, seen_errors, call)
            if self.root == "running":
                self._stop_root()
            if scope != "op" or not isinstance(subject, Operation):
                if scope == "block" and isinstance(subject, Operation):
                    return self._block_call(spec, ctx, subject, seen_errors, call)
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
                    and not any(d.code == INTERNAL_ERROR for d in out) and self_contained(subject, parsed, clean):
                results[(spec.code, span.start, span.end)] = out
            return out

        self._run = run
        return run

    def op_rules(self, ctx: Context, op: Operation, specs: list, seen_errors) -> list[Diagnostic] | None:
        """All of an op's rules in one step, when each is reused per op or with its
        block (the engine's op walk: most ops of a big file, nearly all reused): the
        previous version's findings on the op moved, else each rule through `run`.
        None: the engine calls each rule."""
        kinds = self._kinds.get(op.name)
        if kinds is None:
            scopes = [s.reuse.scope if s.reuse is not None else None for s in specs]
            kinds = self._kinds[op.name] = "op" if all(sc == "op" for sc in scopes) else \
                "block" if all(sc in ("op", "block") for sc in scopes) else ""
            self._codes[op.name] = tuple(s.code for s in specs)
        run = self._run
        if not kinds or run is None or op.parent is None:
            return None  # (the module op: its rules' own path)
        if self.root == "running":
            self._stop_root()
        span = op.span
        codes = self._codes[op.name]
        block = kinds == "block"  # block rules reused as a whole only with the rest of their block
        if self._reuse and (not block or self._decide_block()):
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
        if all((spec.code, start, end) in results for spec in specs if _scope(spec) == "op") \
                and (not block or self.version.block_results is not None):
            self.version.op_results[span] = (codes, parts)
        return [d for part in parts for d in part]

    def _keep_block_findings(self, op: Operation, specs: list, moved: tuple) -> None:
        """The block rules' part of a whole op's reused findings (`moved`: per rule),
        into their own table (complete: the next version may reuse them per op)."""
        table = self.version.block_results
        n = self._block_counts.get(op.name)
        if n is None:
            n = self._block_counts[op.name] = sum(1 for s in specs if _scope(s) == "block")
        self.block_reused += n
        self.reused -= n
        if table is None or not any(moved):
            return
        for spec, part in zip(specs, moved):
            if part and _scope(spec) == "block":
                table[(spec.code, op.span.start, op.span.end)] = part

    # -- the module op's rules -------------------------------------------------------------
    def _root_call(self, spec, ctx: Context, op: Operation, seen_errors, call: Callable) -> Iterator[Diagnostic]:
        # A generator: the module op's rules are few, and run in order.
        if self.root is None:
            try:
                self._root_found = self._root_reusable(op)
            except Exception:  # noqa: BLE001 - a bug of ours in deciding: run the rules, as a full lint would
                log.exception("shlo-lint: deciding whether to reuse the module op's findings failed")
                self._root_found = None
            if self._root_found is not None:
                self.root = "reused"
                self.version.root_results = {}
                self.version.root_reads = self._moved_reads()
            else:
                self.root = "running"
                self._root_ok = DIAG_SHAPE
                self._root_errors = len(op.module.syntax_errors), len(op.module.internal_errors)
                self._module = op.module
                self.version.root_results = {}
                assert self.parser is not None and self._cache is not None
                self._cache.written = set()
                self.parser.start_tracking()
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
        if seen_errors or (out and not spec.reuse.final) or any(d.code == INTERNAL_ERROR for d in out):
            self._root_ok = False  # an undecided finding (a time limit?) or an internal error: run again next time
        if stored is not None:
            stored[spec.code] = out
        yield from out

    def _stop_root(self) -> None:
        assert self.parser is not None and self._cache is not None
        reads = self.parser.stop_tracking()
        written = self._cache.written or set()
        self._cache.written = None
        self.root = "ran"
        module = self._module
        if module is not None and (len(module.syntax_errors), len(module.internal_errors)) != self._root_errors:
            self._root_ok = False  # it met a syntax error (a header parsed lazily): a reuse would not
        clean = self.parser.clean
        if any(op not in clean for op, fields in reads.items() if fields):
            self._root_ok = False  # it read a header that did not parse (lazily, its error is found by reading it)
        if not self._root_ok or not all(isinstance(key, CacheKey) for key in written):
            # (a plain key is module-wide state another rule may read: lint/context.CacheKey)
            self.version.root_results = None
            return
        self.version.root_reads = {(op.span.start, op.span.end): frozenset(fields)
                                   for op, fields in reads.items() if fields}

    # -- matching this version's ops with the previous version's -----------------------
    def match_ops(self, ops: list[Operation], labels: bool = True) -> None:
        """Match `ops` (each op of this version, or the few match_copied leaves) with the
        previous version's ops; `labels`: also collect their block labels' spans."""
        prev, edit, parser = self.prev, self.edit, self.parser
        assert parser is not None
        version = self.version
        vops, label_spans = version.ops, version.label_spans
        if prev is None or edit is None:
            for op in ops:
                vops[op.span] = (op.name, op.result_names, len(op.regions))
                if op.regions and labels:
                    label_spans.extend(b.label_span for r in op.regions for b in r.blocks if b.label_span is not None)
            return
        headers_ok = self.headers_ok
        old_headers, old_labels, old_ops = prev.headers, prev.labels, prev.ops
        touched, old_span, seeds = self.touched, self.old_span, parser.seeds
        headers, vlabels = version.headers, version.labels
        e_start, e_new_end, delta_e = edit.start, edit.new_end, edit.delta  # edit.old_range, inlined (8,000 ops)
        for op in ops:
            start, end = span = op.span
            ident = (op.name, op.result_names, len(op.regions))
            vops[span] = ident
            if op.regions and labels:
                label_spans.extend(b.label_span for r in op.regions for b in r.blocks if b.label_span is not None)
            if end <= e_start:
                key = span
            elif start >= e_new_end:
                key = (start - delta_e, end - delta_e)
            else:
                touched.append(op)
                continue
            if old_ops.get(key) != ident:
                touched.append(op)  # its text was part of another op (or of none)
                continue
            old_span[op] = key
            old = old_headers.get(key) if headers_ok else None
            if old is not None:
                _seed_header(op, old, start - key[0], seeds, headers)
            if headers_ok and op.regions:
                _seed_labels(op, edit, old_labels, parser, vlabels)

    def match_copied(self, clone: Clone) -> bool:
        """match_ops over the copy's ops, in bulk; False (nothing done) when the copy does
        not line up with the previous version's op table (the caller matches op by op)."""
        prev, edit, parser = self.prev, self.edit, self.parser
        assert prev is not None and edit is not None and parser is not None
        walked, edited = clone.walked, clone.edited
        old_keys = list(prev.ops)  # the previous version's ops' spans, in its walk order
        if len(old_keys) != len(walked):
            return False
        if edited is None:  # blank space added or removed: the ops around it
            special = list(clone.around)
        else:  # the op the edit is in and the ops around it
            special = [edited]
            op = edited.parent_op
            while op is not None:
                special.append(op)
                op = op.parent_op
            if len(special) - 1 != len(clone.around) or set(special[1:]) != set(clone.around):
                return False  # an op other than an ancestor spans the edited line's start: not the copy's shape
        skip = set(special)
        version = self.version
        spans = [op.span for op in walked]
        vops = version.ops
        vops.update(zip(spans, prev.ops.values()))
        if len(vops) != len(walked):
            vops.clear()
            return False  # two ops with one span: only an op by op match keeps the last one
        old_span = self.old_span
        old_span.update(zip(walked, old_keys))
        for op in special:
            del old_span[op]
        self.match_ops(special, labels=False)  # (re)sets their vops entries, in place: the walk order stays
        label_spans = version.label_spans
        headers_ok = self.headers_ok
        for op in clone.with_regions:
            label_spans.extend(b.label_span for r in op.regions for b in r.blocks if b.label_span is not None)
        if not headers_ok:
            return True
        seeds, headers = parser.seeds, version.headers
        old_headers, old_labels, vlabels = prev.headers, prev.labels, version.labels
        by_old = dict(zip(old_keys, walked))  # old span → the op copied from the op there
        for key, old in old_headers.items():
            op = by_old.get(key)
            if op is not None and op not in skip:
                _seed_header(op, old, op.span.start - key[0], seeds, headers)
        # The ops the previous version's parser cache vouched for (`checked`) are so
        # again (headers_to_check: the parse check skips them, instead of asking
        # VersionParser.header_checked op by op); a seeded op is not checked (no parse).
        vouched = [op for op in map(by_old.get, prev.checked) if op is not None and op not in skip and op not in seeds]
        version.checked.update([op.span for op in vouched])
        self.vouched = set(vouched)
        for op in clone.with_regions:
            if op in skip:
                continue  # matched (or touched) by match_ops above
            _seed_labels(op, edit, old_labels, parser, vlabels)
        return True

    # -- the block rules (registry.Reuse "block": the combiner hints) -----------------------
    def _block_rules_reusable(self) -> bool:
        """May the previous version's block rules' findings be moved into this one?"""
        prev, edit = self.prev, self.edit
        if prev is None or edit is None or prev.block_results is None or prev.inputs != self.inputs \
                or len(prev.ops) != len(self.version.ops):
            return False
        old, new = prev.text, self.source.text
        if prev.block_results and lines_moved(old, new, edit):
            return False  # line numbers after the edit (which messages name) moved: re-render
        leaves = [op for op in self.touched if not op.regions]
        if not leaves and blank_edit(old, new, edit.start, edit.old_end, edit.new_end):
            pass  # blank space between ops (an Enter): no op's text, no `%name` changed
        elif len(leaves) != 1:
            return False  # an edit between ops (a comment may mention a %name) or across ops
        for op in self.touched:
            start, end = op.span
            # A candidate's own edit is never reused (an edit in its region is also caught
            # when it is a group's member: its fix's edits cover its lines, Unmovable).
            if op.name in _block_rule_ops() or not (start <= edit.start and edit.new_end <= end):
                return False
            if op.regions and not any(r.start < edit.start and edit.new_end < r.end for r in op.region_spans):
                return False  # the edit must be inside one of its regions, its header untouched
            key = (start, end - edit.delta)
            if prev.ops.get(key) != (op.name, op.result_names, len(op.regions)):
                return False
        for leaf in leaves:
            start, end = leaf.span
            if ssa_mentions(old, start, end - edit.delta) != ssa_mentions(new, start, end):
                return False  # def-use between the block's ops may have changed
        return self.same_labels()

    def _decide_block(self) -> bool:
        """Whether the previous version's block rules' findings are reused (decided once)."""
        if self.block_reuse is None:
            try:
                self.block_reuse = DIAG_SHAPE and self._block_rules_reusable()
            except Exception:  # noqa: BLE001 - a bug of ours in deciding: run the rules, as a full lint would
                log.exception("shlo-lint: deciding whether to reuse the block rules' findings failed")
                self.block_reuse = False
        return self.block_reuse

    def _block_call(self, spec, ctx: Context, op: Operation, seen_errors, call: RuleCall) -> tuple[Diagnostic, ...]:
        """A block rule on one op: the previous version's findings moved, or a run
        (recorded for the next version)."""
        stored = self.version.block_results
        span = op.span
        if self._decide_block():
            prev, edit = self.prev, self.edit
            assert prev is not None and prev.block_results is not None and edit is not None
            old = self.old_span.get(op)
            if old is not None:
                found = prev.block_results.get((spec.code, old[0], old[1]), ())
                moved = move_all(found, edit, move_diagnostic) if found else ()
                if moved is not None:
                    self.block_reused += 1
                    if moved and stored is not None:
                        stored[(spec.code, span.start, span.end)] = moved
                    return moved
        self.block_ran += 1
        module = op.module
        before = len(module.syntax_errors), len(module.internal_errors)
        out = tuple(call(spec, ctx, op, seen_errors))
        if stored is not None:
            if seen_errors or (len(module.syntax_errors), len(module.internal_errors)) != before \
                    or any(d.code == INTERNAL_ERROR for d in out):
                self.version.block_results = None  # a reuse would not meet that error again
            elif out:
                stored[(spec.code, span.start, span.end)] = out
        return out

    # -- the module op's rules (registry.Reuse "module": the deadlock analysis) ----------------
    def _moved_reads(self) -> dict[tuple[int, int], frozenset[str]]:
        """The previous run's reads, keyed by this version's op spans: an op outside the
        edit moved through it (root_reusable found every op outside the edit matched:
        each op touched contains the edit) and, for the ops around the edit, as
        root_reusable matched them (an op that ended where the edit starts may have grown)."""
        prev, edit = self.prev, self.edit
        assert prev is not None and edit is not None
        start, old_end, delta = edit.start, edit.old_end, edit.delta
        out = {}
        for key, fields in prev.root_reads.items():
            if not fields:
                continue
            if key[1] <= start:
                out[key] = fields
            elif key[0] >= old_end:
                out[(key[0] + delta, key[1] + delta)] = fields
        reads = prev.root_reads
        for op in self.touched:
            fields = reads.get((op.span.start, op.span.end - edit.delta))
            if fields:
                out[op.span] = fields
        return out

    def _root_reusable(self, root: Operation) -> dict[str, list[Diagnostic]] | None:
        """The previous version's findings of the module op's rules, moved into this
        text, when they are certainly what running them again would give."""
        prev, edit, parser = self.prev, self.edit, self.parser
        if prev is None or edit is None or parser is None or prev.root_results is None \
                or prev.inputs != self.inputs or len(prev.ops) != len(self.version.ops) or not DIAG_SHAPE:
            return None
        old, new = prev.text, self.source.text
        if any(prev.root_results.values()) and lines_moved(old, new, edit):
            return None  # line numbers after the edit (which messages name) moved: re-render
        if any(not same_presence(old, new, edit, m) for m in _module_text_markers()):
            return None
        if not self.same_labels():
            return None  # a block label edited, gone or new (block arguments are read)
        leaves = [op for op in self.touched if not op.regions]
        if len(leaves) > 1:
            return None
        for op in self.touched:
            start, end = op.span
            if not (start <= edit.start and edit.new_end <= end):
                return None  # the edit is not inside this op
            if op.regions:  # around the edit: it must be inside one region, the header untouched
                if not any(r.start < edit.start and edit.new_end < r.end for r in op.region_spans):
                    return None

            elif op.name in _CALLS:
                return None
            if op is root and root.parent is None and op.module.root is op and op not in parser.parsed:
                continue  # the implicit module op: no text of its own
            key = (start, end - edit.delta)
            if prev.ops.get(key) != (op.name, op.result_names, len(op.regions)):
                return None  # not the same op (or no op there before)
            fields = prev.root_reads.get(key)
            if not op.regions and ssa_mentions(old, *key) != ssa_mentions(new, start, end):
                return None
            if fields:
                entry = prev.headers.get(key)
                if entry is None:
                    return None
                header, delta = entry[3], entry[4]
                op.header  # noqa: B018 - parsed now if it was not (a file past full_parse_limit)
                now = parser.clean.get(op)
                if now is None:
                    return None
                before = shift_header(header, delta)
                if not all(same_field(f, before, now, edit) for f in fields):
                    return None
        try:
            return {code: [move_diagnostic(d, edit) for d in found] for code, found in prev.root_results.items()}
        except Unmovable:
            return None

    # -- after the lint ------------------------------------------------------------------
    def finish(self, result: FileResult) -> Version | None:
        """The version the next lint starts from (None: the next one is a full lint).
        Afterwards the memo holds no op (only counts: `stats`)."""
        try:
            return self._finish(result)
        finally:
            parser = self.parser
            if parser is not None:
                self.stats = {"headers handed over": len(parser.seeds) + len(parser.parsed) - len(parser.fresh),
                              "headers parsed": len(parser.fresh),
                              "headers parsed outside the edit": sum(1 for op in parser.fresh if op in self.old_span),
                              "local findings reused": self.reused, "local rules run": self.ran,
                              "ops reused whole": self.bulk,
                              "combiner hints reused": self.block_reused, "combiner hints run": self.block_ran,
                              "module op rules": self.root, "rescanned": self.rescanned}
            self.parser = None
            self._run = None
            self._module = None
            self._linted = None
            self._cache = None
            self._root_found = None
            self.old_span = {}
            self.touched = []

    def _finish(self, result: FileResult) -> Version | None:
        if self.root == "running":
            self._stop_root()
        module = result.module
        parser = self.parser
        if module is None or parser is None:
            return None
        v = self.version
        v.inputs = self.inputs or (self.config, None, _aliases(module), _loc_aliases(module), self.source.path)
        if module.structurally_broken:
            # No rule ran (regions could not be matched): the previous version stays
            # the one to reuse from, so the first lint after the repair reuses it.
            return self.prev if self.prev is not None else None
        return v  # the header and label tables were filled as the lint went (walk, VersionParser)


def _scope(spec) -> str | None:
    """How a rule declares its findings reusable (registry.Reuse), None: it is not."""
    return spec.reuse.scope if spec.reuse is not None else None


def _block_rule_ops() -> frozenset[str]:
    """The ops the block rules run on: an edit inside one of them is never reused
    (their own headers are what the rules read)."""
    global _BLOCK_OPS
    if _BLOCK_OPS[0] != registry.generation():
        _BLOCK_OPS = (registry.generation(), frozenset(name for spec in registry.all_rules()
                                                        if _scope(spec) == "block" for name in spec.ops))
    return _BLOCK_OPS[1]


_BLOCK_OPS: tuple[int, frozenset[str]] = (-1, frozenset())


def _module_text_markers() -> tuple[str, ...]:
    """What the module op's rules' findings depend on anywhere in the text
    (registry.Reuse.text_markers)."""
    return tuple(dict.fromkeys(m for spec in registry.all_rules() if _scope(spec) == "module"
                               for m in spec.reuse.text_markers))


_CALLS = catalog.names(regions=catalog.CALL) | catalog.names(regions=catalog.INDIRECT_CALL)
"""Leaf ops whose text the analyses read directly (the callee: tracer/structure.call_target)."""


def _seed_labels(op: Operation, edit, old_labels: dict, parser, vlabels: dict) -> None:
    """Hand the previous version's parsed block labels of `op`'s regions over,
    each moved to where its label now is (by the edit's map of old ranges)."""
    for region in op.regions:
        for block in region.blocks:
            span = block.label_span
            if span is not None:
                lkey = edit.old_range(span.start, span.end)
                found = old_labels.get(lkey) if lkey is not None else None
                if found is not None:
                    parser.label_seeds[block] = vlabels[span] = (found[0], found[1] + span.start - lkey[0])


def _seed_header(op: Operation, old: tuple, shift: int, seeds: dict, headers: dict) -> None:
    """Hand the previous version's clean header `old` (its table entry) over to `op`
    (`shift`: how far the op moved), if its regions are where they were."""
    region_spans = old[2]
    if not op.region_spans:
        same = not region_spans
    else:
        same = region_spans == tuple(Span(r.start - shift, r.end - shift) for r in op.region_spans)
    if same:  # name, results, region count: checked by ident (ops and headers are built together)
        # The entry is the parser's seed too (_Parser.parse_header reads its header and
        # delta); an op that did not move keeps the previous version's entry.
        entry = old if shift == 0 else (op.name, op.result_names, tuple(op.region_spans), old[3], old[4] + shift)
        seeds[op] = headers[op.span] = entry


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


def _drop_skeleton(version: Version) -> None:
    if version.skeleton is not None:
        release(version.skeleton, version.walked)
        version.skeleton = None
    version.walked = None


# ----------------------------------------------------------------------------- a document
class Document:
    """One open document: lint each new text, reusing the previous version."""

    def __init__(self) -> None:
        self.version: Version | None = None
        self.last: Memo | None = None
        """The memo of the latest lint (what was reused: tests, bench)."""

    def lint(self, source: SourceFile, config: Config, keep_ir: bool = False) -> FileResult:
        """Lint the document's new text. Unless `keep_ir`, the IR is taken apart
        afterwards (result.module is None): the next version needs only the tables
        kept here, and an IR left to the cyclic GC costs a full collection every
        few edits (its ops, blocks and values point at each other)."""
        prev = self.version
        if prev is not None and prev.inputs and prev.inputs[0] != config:
            _drop_skeleton(prev)
            prev = None
        self.version = None  # a failure below leaves nothing half-made to reuse
        memo = Memo(prev, source, config)
        with gc_paused():  # lint_source pauses it too; here until the IR is taken apart
            try:
                result = lint_source(source, config, hooks=memo)
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
        return result

    def close(self) -> None:
        """The document closed: drop what it kept."""
        if self.version is not None:
            _drop_skeleton(self.version)
        self.version = None
        self.last = None


__all__ = ["Document", "Memo", "Version"]
