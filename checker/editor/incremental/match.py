"""Matching a version's ops with the previous version's (checker/incremental.py,
Memo.seed): which op is which, which header and block label may be handed over.

An op whose whole text lies outside the edited range, at the same place relative
to it, with the same name, results and number of regions as the previous
version's op there, is the same op: `memo.old_span` maps it to its previous span,
its clean header (if the previous version had one, its region spans the same)
and its block labels are seeded into the parser. Every other op is `touched`.

Two ways to the same tables:

* `match_ops`, op by op through the new skeleton (after a scan);
* `match_copied`, after the skeleton was copied from the previous one
  (checker/incremental_scan.py): the copy keeps the walk order, so the op at
  index i is the one at index i before, and only the edited op and the ops
  around it (its ancestors) can be touched; for every other op the tables are
  built from the previous version's in bulk (dict(zip(...)), a C loop) instead
  of ~10 Python steps per op (~8,000 ops per edit of the bench's file).
  tests/test_incremental.py checks both give the same tables.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from ...ir.core import Operation
from ...source.text import Span

if TYPE_CHECKING:
    from .document import Memo
    from .skeleton import _Clone


def match_ops(memo: "Memo", ops: list[Operation], labels: bool = True) -> None:
    """Match `ops` (each op of this version, or the few match_copied leaves) with the
    previous version's ops; `labels`: also collect their block labels' spans."""
    prev, edit, parser = memo.prev, memo.edit, memo._parser  # noqa: SLF001 - the memo's own parts
    assert parser is not None
    version = memo.version
    vops, label_spans = version.ops, version.label_spans
    if prev is None or edit is None:
        for op in ops:
            vops[op.span] = (op.name, op.result_names, len(op.regions))
            if op.regions and labels:
                label_spans.extend(b.label_span for r in op.regions for b in r.blocks if b.label_span is not None)
        return
    headers_ok = memo.headers_ok
    old_headers, old_labels, old_ops = prev.headers, prev.labels, prev.ops
    touched, old_span, seeds = memo.touched, memo.old_span, parser.seeds
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


def match_copied(memo: "Memo", clone: "_Clone") -> bool:
    """match_ops over the copy's ops, in bulk; False (nothing done) when the copy does
    not line up with the previous version's op table (the caller matches op by op)."""
    prev, edit, parser = memo.prev, memo.edit, memo._parser  # noqa: SLF001
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
    version = memo.version
    spans = [op.span for op in walked]
    vops = version.ops
    vops.update(zip(spans, prev.ops.values()))
    if len(vops) != len(walked):
        vops.clear()
        return False  # two ops with one span: only an op by op match keeps the last one
    old_span = memo.old_span
    old_span.update(zip(walked, old_keys))
    for op in special:
        del old_span[op]
    match_ops(memo, special, labels=False)  # (re)sets their vops entries, in place: the walk order stays
    label_spans = version.label_spans
    headers_ok = memo.headers_ok
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
    # again (Memo.to_check: the parse check skips them, instead of asking
    # _Parser.header_checked op by op); a seeded op is not checked (no parse).
    vouched = [op for op in map(by_old.get, prev.checked) if op is not None and op not in skip and op not in seeds]
    version.checked.update([op.span for op in vouched])
    memo.vouched = set(vouched)
    for op in clone.with_regions:
        if op in skip:
            continue  # matched (or touched) by match_ops above
        _seed_labels(op, edit, old_labels, parser, vlabels)
    return True


__all__ = ["match_copied", "match_ops"]
