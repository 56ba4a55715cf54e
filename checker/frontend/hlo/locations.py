"""An instruction's `metadata` as an IR Location, so `op.python_frames` gives the
user's Python line for HLO as `loc(...)` does for StableHLO.

The frames come from checker/frontend/hlo/frames.py (the StackFrames chain, or the
older `source_file`/`source_line`), innermost first; they become
`NameLoc(op_name, CallSiteLoc(innermost, CallSiteLoc(caller, ...)))`, which
ir.core.python_frames reads back innermost first. Columns are kept as the
producer wrote them, as the StableHLO reader keeps `loc()`'s: JAX writes
Python's 0-based column offsets into both, and ir.core.user_column turns a
`.py` frame's into the 1-based column shown to the user (a `.mlir` source's
columns, from StableHLO compiled with locations, are MLIR's 1-based ones).
"""
from __future__ import annotations

from ...ir.core import CallSiteLoc, FileLineColLoc, Location, NameLoc
from .frames import StackFrameTables, frames_of
from .values import Metadata

__all__ = ["location_of", "Locations"]


def location_of(metadata: Metadata | None, tables: StackFrameTables | None) -> Location | None:
    """The Location of an instruction with this metadata (None: no metadata, or none that
    names a source position or an op name)."""
    if metadata is None:
        return None
    chain: Location | None = None
    for f in reversed(frames_of(metadata, tables)):
        frame = FileLineColLoc(f.file, f.line, f.column if f.column is not None else 0,
                               f.end_line or None, f.end_column)
        chain = frame if chain is None else CallSiteLoc(frame, chain)
    if metadata.op_name:
        return NameLoc(metadata.op_name, chain)
    return chain


class Locations:
    """location_of for the instructions of one module, the frame chains shared: a module's
    thousands of instructions point at a few hundred stack frames."""

    def __init__(self, tables: StackFrameTables | None):
        self.tables = tables
        self._chains: dict[int, Location | None] = {}

    def location(self, metadata: Metadata | None) -> Location | None:
        if metadata is None or not metadata.stack_frame_id or self.tables is None:
            return location_of(metadata, self.tables)
        frame = metadata.stack_frame_id
        chain = self._chains.get(frame, _MISSING)
        if chain is _MISSING:
            if not self.tables.frames(frame):  # not in the tables: the metadata's own fields say
                return location_of(metadata, self.tables)
            chain = self._chains[frame] = location_of(Metadata(stack_frame_id=frame), self.tables)
        if metadata.op_name:
            return NameLoc(metadata.op_name, chain)
        return chain


_MISSING = object()
