"""Re-lint as you type: one document's previous version, reused where it is exact.

The language server lints the whole text on every change, through the same
engine as the CLI (engine.lint_source), with a `Memo` that carries over from
the previous version of the document only what is provably the same:

* **op headers**: an op whose whole text (regions included) lies outside the
  edited range, at the same place relative to it, parses to the same header,
  its spans moved by the edit's length change (`delta`), provided its parse was
  clean (no syntax or internal error) and the alias definitions it may resolve
  through are unchanged. The header is handed over on first access (a header
  nobody reads costs nothing); the scan itself is redone (~30 ms per 10k lines)
  and gives every op's boundaries.
* **block labels** (`^bb0(%a: T):`): the same, per label.
* **per-op rules declared `local=True`** (registry.rule): findings that depend
  on nothing but the op's own text (its regions included), the grid, the
  options and the file's alias definitions; reused for an unchanged op when
  those are equal, each span moved through the edit (a span inside the edited
  range: the rule runs again). A rule run is kept for reuse only when it read
  no module-wide state (`ctx.module`, shared `ctx.cache` entries: checked at run
  time, whatever the declaration says), raised nothing, and every op in it
  states its operand types (so no type was looked up elsewhere).
* everything else (module rules, non-local per-op rules: the deadlock, futures,
  combine and overlap analyses, SHLO120's send matching, ...) runs again on
  every version, on the carried-over headers.

The test (tests/test_incremental.py) applies random edit sequences and checks
after each that the result equals a full lint of the same text.
"""
from __future__ import annotations

import dataclasses
from dataclasses import replace
from typing import Any, Callable, Iterator

from .config import Config
from .context import Context
from .diagnostics import Diagnostic, Edit, Fix, Location, Note, ProcessTrace, TraceStep
from .engine import FileResult, lint_source
from .ir import Block, Module, OpHeader, Operation
from .parse.cache import _move_attr
from .source import SourceFile, Span

_HEADER_FIELDS = ("name", "name_span", "generic", "operands", "operand_types", "result_types", "attributes",
                  "properties", "region_args", "successors", "loc")
_SHIFTABLE = tuple(f.name for f in dataclasses.fields(OpHeader)) == _HEADER_FIELDS
"""The header's fields are the ones _shift_header knows how to move (else: no header reuse)."""

PURE_CACHE_KEYS = frozenset({"collectives.groups", "send_recv.pairs"})
"""ctx.cache entries that are per-op memos of the op's own attributes (keyed by
the op): reading them is local. Any other entry is module-wide state."""


# ----------------------------------------------------------------------------- the edit
class TextEdit:
    """Old text → new text as one replaced range: [start, old_end) became [start, new_end)."""

    __slots__ = ("start", "old_end", "new_end", "delta")

    def __init__(self, old: str, new: str):
        n = min(len(old), len(new))
        p = _common_prefix(old, new, n)
        q = _common_suffix(old, new, n - p)
        self.start = p
        self.old_end = len(old) - q
        self.new_end = len(new) - q
        self.delta = len(new) - len(old)

    def old_range(self, start: int, end: int) -> tuple[int, int] | None:
        """Where new-text range [start, end) was in the old text, if it lies outside the edit."""
        if end <= self.start:
            return start, end
        if start >= self.new_end:
            return start - self.delta, end - self.delta
        return None

    def move(self, span: Span) -> Span:
        """An old-text span in the new text; raises _Unmovable when it touches the edit."""
        if span.end <= self.start:
            return span
        if span.start >= self.old_end:
            return Span(span.start + self.delta, span.end + self.delta)
        raise _Unmovable


class _Unmovable(Exception):
    """A span that touches the edited range: whatever holds it is recomputed."""


def _common_prefix(a: str, b: str, limit: int) -> int:
    """Length of the common prefix of a and b (at most limit), by C-speed slice compares."""
    lo, step = 0, 4096
    while lo + step <= limit and a[lo:lo + step] == b[lo:lo + step]:
        lo += step
    hi = min(lo + step, limit)
    while lo < hi:  # the first difference is in [lo, hi]
        mid = (lo + hi + 1) // 2
        if a[lo:mid] == b[lo:mid]:
            lo = mid
        else:
            hi = mid - 1
    return lo


def _common_suffix(a: str, b: str, limit: int) -> int:
    la, lb = len(a), len(b)
    lo, step = 0, 4096
    while lo + step <= limit and a[la - lo - step:la - lo] == b[lb - lo - step:lb - lo]:
        lo += step
    hi = min(lo + step, limit)
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if a[la - mid:la - lo] == b[lb - mid:lb - lo]:
            lo = mid
        else:
            hi = mid - 1
    return lo


# ----------------------------------------------------------------------------- moving results
def _shift_header(h: OpHeader, delta: int) -> OpHeader:
    """A copy of a header with every span moved by delta (the header cache's way)."""
    if delta == 0:
        return h

    def move(span: Span) -> Span:
        return Span(span.start + delta, span.end + delta)

    return OpHeader(
        name=h.name, name_span=move(h.name_span), generic=h.generic,
        operands=[(n, move(s)) for n, s in h.operands],
        operand_types=None if h.operand_types is None else list(h.operand_types),
        result_types=list(h.result_types),
        attributes={k: _move_attr(v, move) for k, v in h.attributes.items()},
        properties=h.properties,
        region_args=[[(n, t, move(s)) for n, t, s in args] for args in h.region_args],
        successors=list(h.successors), loc=h.loc)


def _move_location(loc: Location, edit: TextEdit) -> Location:
    return loc if loc.span is None else replace(loc, span=edit.move(loc.span))


def move_diagnostic(d: Diagnostic, edit: TextEdit) -> Diagnostic:
    """The diagnostic with every span (location, notes, fix edits, trace steps) moved
    into the new text; raises _Unmovable when one touches the edit."""
    fix = d.fix
    if fix is not None:
        fix = Fix(fix.title, tuple(Edit(edit.move(e.span), e.text) for e in fix.edits), fix.applicability)
    trace = tuple(replace(t, steps=tuple(TraceStep(_move_location(s.location, edit), s.message, s.blocked)
                                         for s in t.steps)) for t in d.trace)
    return replace(d, location=_move_location(d.location, edit),
                   notes=tuple(Note(_move_location(n.location, edit), n.message) for n in d.notes),
                   fix=fix, trace=trace, fingerprint=None)


_DIAG_SHAPE = (
    tuple(f.name for f in dataclasses.fields(Diagnostic)) ==
    ("code", "name", "category", "severity", "message", "location", "notes", "fix", "trace", "help", "fingerprint")
    and tuple(f.name for f in dataclasses.fields(Note)) == ("location", "message")
    and tuple(f.name for f in dataclasses.fields(Fix)) == ("title", "edits", "applicability")
    and tuple(f.name for f in dataclasses.fields(Edit)) == ("span", "text")
    and tuple(f.name for f in dataclasses.fields(TraceStep)) == ("location", "message", "blocked")
    and "steps" in {f.name for f in dataclasses.fields(ProcessTrace)})
"""The diagnostic's parts are the ones move_diagnostic moves (else: no result reuse)."""


# ----------------------------------------------------------------------------- one version
class _Version:
    """What one lint of the document leaves for the next."""

    __slots__ = ("text", "headers", "labels", "results", "inputs", "results_ok")

    def __init__(self, text: str):
        self.text = text
        self.headers: dict[tuple[int, int], tuple] = {}
        """(start, end) of an op → (name, result_names, region spans, header, delta):
        a cleanly parsed header whose spans, moved by delta, are this version's."""
        self.labels: dict[tuple[int, int], tuple] = {}
        """(start, end) of a block label → (decls, delta), the same for block arguments."""
        self.results: dict[tuple[str, int, int], list[Diagnostic]] = {}
        """(rule code, op start, op end) → the local rule's findings on that op."""
        self.inputs: tuple = ()
        """What local rule findings depend on besides the op: config, grid, aliases."""
        self.results_ok = False
        """Whether `results` may be reused (the version had no syntax or internal error)."""


def _aliases(module: Module) -> tuple:
    """The alias definitions a header parse may resolve through (text and place)."""
    return tuple(sorted((k, v) for k, v in module.alias_texts.items() if not k.startswith("#loc")))


def _loc_aliases(module: Module) -> tuple:
    """The `#locN` definitions (a finding's Python note reads them), by text."""
    return tuple(sorted((k, v[0]) for k, v in module.alias_texts.items() if k.startswith("#loc")))


# ----------------------------------------------------------------------------- the engine's hooks
class _Parser:
    """The header parser for one version: seeds from the previous one, else the real parse."""

    def __init__(self, inner, memo: "Memo"):
        self.inner = inner
        self.memo = memo
        self.seeds: dict[Operation, tuple[OpHeader, int]] = {}
        self.label_seeds: dict[Block, tuple[list, int]] = {}
        self.clean: dict[Operation, OpHeader] = {}
        self.clean_labels: dict[Block, list] = {}

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    def parse_header(self, module: Module, op: Operation) -> OpHeader:
        seed = self.seeds.pop(op, None)
        if seed is not None:
            header = _shift_header(*seed)
            self.clean[op] = header
            return header
        before = len(module.syntax_errors), len(module.internal_errors)
        header = self.inner.parse_header(module, op)
        if (len(module.syntax_errors), len(module.internal_errors)) == before:
            self.clean[op] = header
        return header

    def parse_block_label(self, module: Module, block: Block) -> list:
        seed = self.label_seeds.pop(block, None)
        if seed is not None:
            decls, delta = seed
            if delta:
                decls = [(n, t, Span(s.start + delta, s.end + delta)) for n, t, s in decls]
            self.clean_labels[block] = decls
            return list(decls)
        before = len(module.syntax_errors), len(module.internal_errors)
        decls = self.inner.parse_block_label(module, block)
        if (len(module.syntax_errors), len(module.internal_errors)) == before:
            self.clean_labels[block] = list(decls)
        return decls


class _TrackedContext(Context):
    """The rules' Context, noting whether a rule read module-wide state."""

    def __init__(self, module: Module, grid, options: dict[str, Any] | None):
        self._module = module
        self.wide = False
        super().__init__(module, grid, options)
        self._cache = _TrackedCache(self)
        self.wide = False

    @property
    def module(self) -> Module:  # type: ignore[override]
        self.wide = True
        return self._module

    @module.setter
    def module(self, value: Module) -> None:
        self._module = value

    @property
    def cache(self) -> dict[str, Any]:  # type: ignore[override]
        return self._cache

    @cache.setter
    def cache(self, value: dict[str, Any]) -> None:
        pass  # the tracked dict stays


class _TrackedCache(dict):
    def __init__(self, ctx: _TrackedContext):
        super().__init__()
        self.ctx = ctx

    def _touch(self, key: Any) -> None:
        if key not in PURE_CACHE_KEYS:
            self.ctx.wide = True

    def __getitem__(self, key):
        self._touch(key)
        return super().__getitem__(key)

    def __setitem__(self, key, value):
        self._touch(key)
        super().__setitem__(key, value)

    def __contains__(self, key):
        self._touch(key)
        return super().__contains__(key)

    def get(self, key, default=None):
        self._touch(key)
        return super().get(key, default)

    def setdefault(self, key, default=None):
        self._touch(key)
        return super().setdefault(key, default)

    def pop(self, key, *default):
        self._touch(key)
        return super().pop(key, *default)


def _self_contained(op: Operation) -> bool:
    """Every op in `op` (itself included) states its operand types: reading them
    looked at no other op."""
    for inner in op.walk():
        h = inner.header
        if h.operands and (h.operand_types is None or len(h.operand_types) != len(h.operands)):
            return False
    return True


class Memo:
    """Handed to engine.lint_source for one version of a document."""

    def __init__(self, prev: _Version | None, source: SourceFile, config: Config):
        self.prev = prev
        self.source = source
        self.config = config
        self.edit = TextEdit(prev.text, source.text) if prev is not None else None
        self.version = _Version(source.text)
        self._parser: _Parser | None = None
        self.old_span: dict[Operation, tuple[int, int]] = {}
        """An op of this version → its span in the previous one (ops outside the edit)."""
        self.inputs: tuple = ()
        self.reused = self.ran = 0
        """Local rule runs reused / run (for the bench and the tests)."""

    # -- parsing ---------------------------------------------------------------------
    def parser(self, inner) -> _Parser:
        self._parser = _Parser(inner, self)
        return self._parser

    def seed(self, module: Module) -> None:
        """Match this version's ops (and block labels) with the previous version's."""
        prev, edit, parser = self.prev, self.edit, self._parser
        assert parser is not None
        if prev is None or edit is None:
            return
        old_aliases = prev.inputs[2] if prev.inputs else None
        headers_ok = _SHIFTABLE and not module.structurally_broken and old_aliases == _aliases(module)
        old_headers, old_labels = prev.headers, prev.labels
        for op in module.walk():
            key = edit.old_range(op.span.start, op.span.end)
            if key is None:
                continue
            self.old_span[op] = key
            old = old_headers.get(key) if headers_ok else None
            if old is not None:
                name, result_names, region_spans, header, delta = old
                shift = op.span.start - key[0]
                if name == op.name and result_names == op.result_names and region_spans == tuple(
                        Span(s.start - shift, s.end - shift) for s in op.region_spans):
                    parser.seeds[op] = (header, delta + shift)
            if headers_ok:
                for region in op.regions:
                    for block in region.blocks:
                        span = block.label_span
                        if span is not None:
                            lkey = edit.old_range(span.start, span.end)
                            found = old_labels.get(lkey) if lkey is not None else None
                            if found is not None:
                                parser.label_seeds[block] = (found[0], found[1] + span.start - lkey[0])

    def seeded(self, op: Operation) -> bool:
        return self._parser is not None and op in self._parser.seeds

    def seeded_label(self, block: Block) -> bool:
        return self._parser is not None and block in self._parser.label_seeds

    # -- rules -------------------------------------------------------------------------
    def context(self, module: Module, grid, options: dict[str, Any] | None) -> Context:
        self.inputs = (self.config, grid, _aliases(module), _loc_aliases(module), self.source.path)
        return _TrackedContext(module, grid, options)

    def call(self, ctx: Context, call: Callable) -> Callable:
        """The engine's rule call, reusing or recording local rules' findings per op."""
        prev, edit = self.prev, self.edit
        reuse = (prev is not None and edit is not None and prev.results_ok and prev.inputs == self.inputs
                 and _DIAG_SHAPE)
        old_results = prev.results if reuse else {}
        results = self.version.results

        def run(spec, ctx: Context, subject, seen_errors) -> Iterator[Diagnostic]:
            if not spec.local or not isinstance(subject, Operation) or subject is ctx._module:
                yield from call(spec, ctx, subject, seen_errors)
                return
            span = subject.span
            old = self.old_span.get(subject) if reuse else None
            found = old_results.get((spec.code, *old)) if old is not None else None
            if found is not None:
                try:
                    moved = [move_diagnostic(d, edit) for d in found]
                except _Unmovable:
                    moved = None
                if moved is not None:
                    self.reused += 1
                    results[(spec.code, span.start, span.end)] = moved
                    yield from moved
                    return
            self.ran += 1
            ctx.wide = False
            out = list(call(spec, ctx, subject, seen_errors))
            if not ctx.wide and not seen_errors and not any(d.code == "SHLO003" for d in out) \
                    and _self_contained(subject):
                results[(spec.code, span.start, span.end)] = out
            yield from out

        return run

    # -- after the lint ------------------------------------------------------------------
    def finish(self, result: FileResult) -> _Version | None:
        """The version the next lint starts from (None: the next one is a full lint)."""
        module = result.module
        parser = self._parser
        if module is None or parser is None:
            return None
        v = self.version
        v.inputs = self.inputs or (self.config, None, _aliases(module), _loc_aliases(module), self.source.path)
        v.results_ok = (not module.syntax_errors and not module.internal_errors and not module.structurally_broken
                        and not any(d.code == "SHLO003" for d in result.diagnostics))
        if not v.results_ok:
            v.results.clear()
        if module.structurally_broken:
            return v
        headers, labels = v.headers, v.labels
        clean, seeds = parser.clean, parser.seeds
        clean_labels, label_seeds = parser.clean_labels, parser.label_seeds
        for op in module.walk():
            span = op.span
            spans = tuple(op.region_spans)
            h = clean.get(op)
            if h is not None:
                headers[(span.start, span.end)] = (op.name, op.result_names, spans, h, 0)
            else:
                seed = seeds.get(op)
                if seed is not None:
                    headers[(span.start, span.end)] = (op.name, op.result_names, spans, *seed)
            for region in op.regions:
                for block in region.blocks:
                    ls = block.label_span
                    if ls is None:
                        continue
                    decls = clean_labels.get(block)
                    if decls is not None:
                        labels[(ls.start, ls.end)] = (decls, 0)
                    elif (seed := label_seeds.get(block)) is not None:
                        labels[(ls.start, ls.end)] = seed
        return v


# ----------------------------------------------------------------------------- a document
class Document:
    """One open document: lint each new text, reusing the previous version."""

    def __init__(self) -> None:
        self.version: _Version | None = None
        self.last: Memo | None = None
        """The memo of the latest lint (what was reused: tests, bench)."""

    def lint(self, source: SourceFile, config: Config) -> FileResult:
        prev = self.version
        if prev is not None and prev.inputs and prev.inputs[0] != config:
            prev = None
        self.version = None  # a failure below leaves nothing half-made to reuse
        memo = Memo(prev, source, config)
        result = lint_source(source, config, memo=memo)
        self.version = memo.finish(result)
        self.last = memo
        return result

    def close(self) -> None:
        """The document closed: drop what it kept."""
        self.version = None
        self.last = None
