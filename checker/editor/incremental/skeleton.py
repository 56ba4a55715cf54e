"""Re-scan as you type: the previous version's skeleton, moved, when the edit is
inside one line that holds one whole op, or blank space between ops
(document.py).

A full scan is most of an edit's re-lint on a big file (docs/performance.md,
"Editor latency"), most of it following the brackets of multi-line ops the edit
does not touch. The scan reads
the text left to right and its state at the start of a line depends only on
the text before it, so when

* the previous scan found no syntax error (none to move, not broken),
* the edit replaces text inside one line (no newline removed or added),
* that line, in the old text and in the new, is one the scan takes whole on its
  fast path (scan._Scanner.run: one op, no region brace, not ending inside
  brackets; the same test, `fast_line`, decides here) and the old op was not
  continued by a later line (its span is the line's),
* neither name is `builtin.module` (whether the file is one `module` depends
  on the top-level ops' names), the line is plain ASCII without control
  characters, and no result count reaches the file's length,

the new skeleton is the previous one with that op's name, results and span
replaced and every offset after the line moved by the edit's length change: the
scan would take every other line exactly as before.

The same holds when the edit only adds or removes blank space between lines
(edit.blank_edit: an Enter, a blank line deleted, indentation) at a
point between ops: not inside a leaf op, a block label or an alias definition,
inside a region of every op around it, and not at the very start or end of the
file (the implicit module op spans it all). The tokens are the same, so every
op stays; offsets from that point on move, and the ops and regions around it
grow or shrink. Anything else: None (the caller scans in full). tests/test_incremental.py compares the result with a full
scan's (ops, spans, regions, blocks, labels, aliases, errors) after random edits.
"""
from __future__ import annotations

import logging

from .edit import blank_edit
from ...ir.core import Block, Module, OpHeader, Operation, Region, release
from ...frontend.stablehlo.scan import (BARE_NAMES, BARE_OPS, CONTROL_CHARS, OPEN_ENDS, OP_LINE, LazyLocations,
                                        no_region_brace, parse_result_names)
from ...source.text import SourceFile, Span

log = logging.getLogger(__name__)


def take_skeleton(prev, edit, source: SourceFile, parser) -> "Clone | None":
    """The previous version's (`prev`, a document.Version) kept IR moved
    into the new text (`copy_skeleton`), or None. The kept IR is released either
    way (through its op list, not another walk): it is copied at most once."""
    skeleton = prev.skeleton if prev is not None else None
    if skeleton is None or edit is None:
        return None
    prev.skeleton = None
    try:
        return copy_skeleton(skeleton, prev.text, source, parser, edit.start, edit.old_end, edit.new_end)
    except Exception:  # noqa: BLE001 - a bug of ours: scan, as a full lint would
        log.exception("shlo-lint: copying the previous skeleton failed")
        return None
    finally:
        release(skeleton, prev.walked)
        prev.walked = None


def fast_line(text: str, at: int) -> tuple[str, int, int, str | None, bool] | None:
    """The op the scan's fast path takes from the line starting at `at` (with no
    statement open): (name, start, end, results text, generic), else None."""
    m = OP_LINE.match(text, at)
    if m is None:
        return None
    pos, end = m.span()
    if end > pos and text[end - 1] == "\n":
        end -= 1
    while end > pos and text[end - 1] in " \t\r":
        end -= 1
    if end <= pos:
        return None
    indent, results, qname, bname, brace = m.groups()
    name = qname or bname
    if name is None or not (qname is not None or "." in name or name in BARE_OPS) \
            or text[end - 1] in OPEN_ENDS or (brace and not no_region_brace(text, pos, end)):
        return None
    if bname is not None and "." not in name:
        name = BARE_NAMES.get(name, name)
    return name, pos + len(indent), end, results, qname is not None


def rescan(prev: Module | None, old: str, source: SourceFile, parser, edit_start: int, edit_old_end: int,
           edit_new_end: int) -> Module | None:
    """The skeleton scan(source, parser) would build, from the previous version's
    module `prev` (its text `old`), or None when that is not certain."""
    clone = copy_skeleton(prev, old, source, parser, edit_start, edit_old_end, edit_new_end)
    return None if clone is None else clone.module


def copy_skeleton(prev: Module | None, old: str, source: SourceFile, parser, edit_start: int, edit_old_end: int,
                  edit_new_end: int) -> "Clone | None":
    """`rescan`, with what the copy learnt on the way (its ops in walk order, the
    edited op: document.py matches the versions' ops through them)."""
    new = source.text
    if prev is None or prev.syntax_errors or prev.internal_errors or prev.structurally_broken or prev.root is None:
        return None
    delta = len(new) - len(old)
    if blank_edit(old, new, edit_start, edit_old_end, edit_new_end):
        if not 0 < edit_start < len(old):
            return None  # the implicit module op spans the whole text: its start or end would move
        clone = Clone(prev, source, parser, None, None, edit_start, delta, min(len(old), len(new)))
        return clone if clone.run() is not None else None
    if "\n" in old[edit_start:edit_old_end] or "\n" in new[edit_start:edit_new_end]:
        return None
    ls = old.rfind("\n", 0, edit_start) + 1
    before, after = fast_line(old, ls), fast_line(new, ls)
    if before is None or after is None or "builtin.module" in (before[0], after[0]):
        return None
    nl = new.find("\n", ls)
    line = new[ls:len(new) if nl < 0 else nl]
    if not line.isascii() or CONTROL_CHARS.search(line):
        return None
    name, start, end, results, _generic = after
    if results is None:
        result_names: tuple = ()
    elif "," not in results and ":" not in results:
        result_names = ((results, 1),)
    else:
        try:
            result_names = parse_result_names(results)
        except ValueError:
            return None
    limit = min(len(old), len(new))
    if any(c > limit for _, c in result_names):
        return None
    clone = Clone(prev, source, parser, before, (name, Span(start, end), result_names), ls, delta, limit)
    return clone if clone.run() is not None else None


class Clone:
    """The previous module's ops, regions and blocks, copied with offsets moved.
    After `run`: `walked`, the copy's ops in Module.walk order (each at the index of the
    op it copies in the previous module's walk), `edited`, the edit's line's op
    (its name, results and span are the new text's), `with_regions`, the ops
    that have regions (in walk order), and `around`, the ops whose span holds the
    edited line's start (only their end moved)."""

    def __init__(self, prev: Module, source: SourceFile, parser, before, replacement, pivot: int, delta: int,
                 limit: int):
        self.prev = prev
        self.module = Module(source, parser)
        self.blank = replacement is None
        """Blank space added or removed at `pivot` (edit.blank_edit), no op
        replaced; else the op of the line starting at `pivot` is `replacement`."""
        self.old_start, self.old_end = (-1, -1) if before is None else (before[1], before[2])
        self.replacement = replacement
        self.ls = pivot
        # An old span starting at or after shift_from moves; one ending at or before
        # keep_to stays; one across (an op, region or label around the edit) keeps its
        # start and moves its end. A line edit: around the line's start (only the
        # line's op starts there, and it is replaced); blank space: around the point.
        self.shift_from, self.keep_to = (pivot, pivot) if self.blank else (pivot + 1, pivot - 1)
        self.delta = delta
        self.limit = limit
        self.found = self.blank
        self.walked: list[Operation] = []
        self.with_regions: list[Operation] = []
        self.around: list[Operation] = []
        self.edited: Operation | None = None

    def span(self, s: Span) -> Span:
        """An old span in the new text (see shift_from)."""
        if s.start >= self.shift_from:
            return Span(s.start + self.delta, s.end + self.delta)
        return s if s.end <= self.keep_to else Span(s.start, s.end + self.delta)

    def across(self, s: Span) -> bool:
        return s.start < self.shift_from and s.end > self.keep_to

    def run(self) -> Module | None:
        prev, module = self.prev, self.module
        shift_from, d = self.shift_from, self.delta
        if any(self.across(s) for s in prev.loc_alias_spans.values()):
            return None  # inside an alias definition: its text changed
        module.alias_texts = {k: (t, o + d if o >= shift_from else o) for k, (t, o) in prev.alias_texts.items()}
        module.loc_aliases = LazyLocations(module)
        module.loc_alias_spans = {k: self.span(s) for k, s in prev.loc_alias_spans.items()}
        old_root = prev.root
        assert old_root is not None
        header = old_root.parsed_header
        implicit = old_root.parent is None and old_root.span.start == 0 and header is not None \
            and header.name_span == Span(0, 0) and len(old_root.regions) == 1 \
            and old_root.regions[0].span == old_root.span
        if old_root.name != "builtin.module":
            return None
        root = self.op(old_root, None)
        if root is None or not self.found:
            return None
        if implicit:
            root.set_header(OpHeader(name="builtin.module", name_span=Span(0, 0)))
        module.root = root
        return module

    def op(self, old: Operation, parent: Block | None) -> Operation | None:
        start = old.span.start
        if start == self.old_start and parent is not None:  # (the implicit module op starts at 0 too)
            if old.regions or old.span.end != self.old_end or self.found:
                return None  # continued by a later line, or not the line's op after all
            name, span, result_names = self.replacement
            self.found = True
            self.edited = new = Operation(name, span, result_names, self.module, parent)
            self.walked.append(new)
            return new
        if self.delta < 0 and any(n > self.limit for _, n in old.result_names):
            return None  # the scan's result-count check reads the file's length
        new = Operation(old.name, self.span(old.span), old.result_names, self.module, parent)
        self.walked.append(new)  # before its regions' ops: walk order
        if self.across(old.span):
            if self.blank and not any(r.start < self.ls < r.end for r in old.region_spans):
                return None  # blank space in an op's own text (between its tokens): not between ops
            self.around.append(new)  # its end moved, its start not (an op around the edit)
        if old.regions:
            self.with_regions.append(new)
            new.header_end = old.header_end + self.delta if old.header_end >= self.shift_from else old.header_end
            new.regions = []
            new.region_spans = []
            for region in old.regions:
                r = Region(new, self.span(region.span), self.module)
                new.regions.append(r)
                new.region_spans.append(r.span)
                for block in region.blocks:
                    if block.label_span is not None and self.across(block.label_span):
                        return None  # inside a block label: its text changed
                    b = Block(r, block.label, None if block.label_span is None else self.span(block.label_span))
                    r.blocks.append(b)
                    if not self.ops(block.operations, b):
                        return None
        return new

    def ops(self, olds: list[Operation], block: Block) -> bool:
        """Copy a block's ops into `block`; the leaves (most ops) inline: 8,000 per
        edit of the bench's file."""
        out = block.operations
        flat = self.walked
        ls, d, module, at, keep_to = self.ls, self.delta, self.module, self.old_start, self.keep_to
        check = d < 0  # a shorter file: a result count may now reach its length (else none could)
        limit = self.limit
        new_span, op_, append, walked = tuple.__new__, Operation, out.append, flat.append  # (locals: 8,000 ops)
        for o in olds:
            s = o.span
            if o.regions or s.start == at:
                c = self.op(o, block)
                if c is None:
                    return False
            else:
                if check and any(n > limit for _, n in o.result_names):
                    return False  # the scan's result-count check reads the file's length
                if s.start >= ls:
                    s = new_span(Span, (s.start + d, s.end + d))
                elif s.end > keep_to:
                    return False  # a leaf across the edit's line start (or the blank edit): its text changed
                c = op_(o.name, s, o.result_names, module, block)
                walked(c)
            append(c)
        return True
