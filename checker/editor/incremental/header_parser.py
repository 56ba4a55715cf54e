"""The header parser one version of a document lints with (document.py): it hands
over the previous version's clean headers and block labels (seeded by
Memo.match_ops, spans moved on first access), vouches for the ops the previous
version's parser cache vouched for, records the clean parses for the next
version, and, while the module op's rules run, hands out recording headers
(`ReadHeader`) that note which fields those rules read."""
from __future__ import annotations

from typing import Any, Callable

from ...ir.core import Block, Module, OpHeader, Operation
from ...source.text import Span
from .edit import shift_header
from .tracking import ReadHeader


class VersionParser:
    """The header parser for one version: seeds from the previous one, else the real parse."""

    unchecked = None
    """(The wrapped parser's bulk check of every header is not offered: its seeds
    are handed over op by op, the engine checks through header_checked.)"""

    def __init__(self, inner, version, vouched_before: Callable[[Operation], bool]):
        self.inner = inner
        self.version = version
        """The version being linted (document.Version): its tables are filled here."""
        self.vouched_before = vouched_before
        """op -> whether the previous version's parse check vouched for its header."""
        self.headers = version.headers
        self.labels = version.labels
        """The version's tables, filled as headers and labels are handed over or parsed cleanly."""
        self.seeds: dict[Operation, tuple] = {}
        """op → its entry in the version's header table: (name, results, region spans, header, delta)."""
        self.label_seeds: dict[Block, tuple[list, int]] = {}
        self.clean: dict[Operation, OpHeader] = {}
        self.parsed: dict[Operation, OpHeader] = {}
        """Every header handed out (clean or not)."""
        self.tracking: dict[Operation, set[str]] | None = None
        """While the module op's rules run: op → the header fields they read."""
        self.proxied: list[Operation] = []
        self.fresh: list[Operation] = []
        """The ops whose header was parsed (not handed over)."""

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    def parse_header(self, module: Module, op: Operation) -> OpHeader:
        seed = self.seeds.pop(op, None)
        if seed is not None:
            header = shift_header(seed[3], seed[4])  # a version.headers entry (Memo.match_ops)
            self.clean[op] = header
        else:
            before = len(module.syntax_errors), len(module.internal_errors)
            header = self.inner.parse_header(module, op)
            self.fresh.append(op)
            if (len(module.syntax_errors), len(module.internal_errors)) == before:
                self.clean[op] = header
                self.headers[op.span] = (op.name, op.result_names, tuple(op.region_spans), header, 0)
        self.parsed[op] = header
        return header if self.tracking is None else self.proxy(op, header)  # type: ignore[return-value]

    def header_checked(self, module: Module, op: Operation) -> bool:
        """The parser's check, skipped for an op the previous version's check vouched
        for (same text, same aliases: a parse would be as clean)."""
        if self.vouched_before(op):
            self.version.checked.add(op.span)
            return True
        inner = getattr(self.inner, "header_checked", None)
        if inner is None or not inner(module, op):
            return False
        self.version.checked.add(op.span)
        return True

    def proxy(self, op: Operation, header: OpHeader) -> ReadHeader:
        assert self.tracking is not None
        self.proxied.append(op)
        return ReadHeader(header, self.tracking.setdefault(op, set()))

    def start_tracking(self) -> None:
        """Hand out recording headers, also for the ops parsed already."""
        self.tracking = {}
        for op, header in self.parsed.items():
            op.set_header(self.proxy(op, header))  # type: ignore[arg-type] - restored by stop_tracking

    def stop_tracking(self) -> dict[Operation, set[str]]:
        reads = self.tracking or {}
        self.tracking = None
        for op in self.proxied:
            op.set_header(self.parsed[op])  # the real header again
        self.proxied = []
        return reads

    def parse_block_label(self, module: Module, block: Block) -> list:
        seed = self.label_seeds.pop(block, None)
        if seed is not None:
            decls, delta = seed
            if delta:
                decls = [(n, t, Span(s.start + delta, s.end + delta)) for n, t, s in decls]
            return list(decls)
        before = len(module.syntax_errors), len(module.internal_errors)
        decls = self.inner.parse_block_label(module, block)
        if (len(module.syntax_errors), len(module.internal_errors)) == before:
            self.labels[block.label_span] = (list(decls), 0)
        return decls
