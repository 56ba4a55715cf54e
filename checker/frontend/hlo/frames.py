"""The module's Python source tables and the frames an instruction came from.

JAX writes, after the header (xla/hlo/ir/hlo_module.cc prints them):

    FileNames       1 "/path/model.py"
    FunctionNames   1 "<module>"  2 "f"
    FileLocations   1 {file_name_id=1 function_name_id=2 line=8 end_line=8 column=17 end_column=17}
    StackFrames     1 {file_location_id=1 parent_frame_id=1}

Every id is 1-based. A frame's parent is printed one more than its id
(`parent_frame_id() + 1`; XLA's parser subtracts the 1 back), so a printed 1
means "no parent" and a printed 3 means frame 2. An instruction's
`metadata={... stack_frame_id=N}` names its innermost frame; the chain of
parents is the Python call stack, outermost last. Columns are as JAX records
them: Python's 0-based column offsets.
"""
from __future__ import annotations

from dataclasses import dataclass

from ...source.text import Span
from .values import Metadata

__all__ = ["FileLocation", "StackFrame", "PythonFrame", "StackFrameTables", "frames_of"]


@dataclass(frozen=True, slots=True)
class FileLocation:
    """One FileLocations row."""

    file_name_id: int
    """1-based index into FileNames."""
    function_name_id: int
    """1-based index into FunctionNames."""
    line: int
    """The line (1-based)."""
    end_line: int
    """The last line."""
    column: int
    """The column (JAX: Python's 0-based column offset)."""
    end_column: int
    """The end column."""


@dataclass(frozen=True, slots=True)
class StackFrame:
    """One StackFrames row."""

    file_location_id: int
    """1-based index into FileLocations."""
    parent_frame_id: int
    """The caller's frame id (1-based); 0 when there is none. (Printed one higher.)"""


@dataclass(frozen=True, slots=True)
class PythonFrame:
    """A resolved source position."""

    file: str
    """The Python file."""
    line: int
    """1-based line."""
    column: int | None = None
    """Column as recorded (JAX: 0-based); None when not recorded."""
    function: str | None = None
    """The function's name (None when not recorded)."""
    end_line: int | None = None
    """Last line of the expression, when recorded."""
    end_column: int | None = None
    """End column, when recorded."""


@dataclass(frozen=True, slots=True)
class StackFrameTables:
    """The four tables, as read."""

    file_names: tuple[str, ...]
    """FileNames, in id order (id 1 first)."""
    function_names: tuple[str, ...]
    """FunctionNames, in id order."""
    file_locations: tuple[FileLocation, ...]
    """FileLocations, in id order."""
    stack_frames: tuple[StackFrame, ...]
    """StackFrames, in id order."""
    span: Span
    """From `FileNames` to the last row."""

    def frame(self, frame_id: int) -> PythonFrame | None:
        """The one position frame `frame_id` names (no parents); None when an id is out of range."""
        if not 1 <= frame_id <= len(self.stack_frames):
            return None
        loc_id = self.stack_frames[frame_id - 1].file_location_id
        if not 1 <= loc_id <= len(self.file_locations):
            return None
        loc = self.file_locations[loc_id - 1]
        if not 1 <= loc.file_name_id <= len(self.file_names):
            return None
        fn = None
        if 1 <= loc.function_name_id <= len(self.function_names):
            fn = self.function_names[loc.function_name_id - 1]
        return PythonFrame(self.file_names[loc.file_name_id - 1], loc.line, loc.column, fn,
                           loc.end_line, loc.end_column)

    def frames(self, frame_id: int) -> tuple[PythonFrame, ...]:
        """Frame `frame_id` and its callers, innermost first (a cycle in the table stops the walk)."""
        out: list[PythonFrame] = []
        seen: set[int] = set()
        while frame_id and frame_id not in seen:
            seen.add(frame_id)
            frame = self.frame(frame_id)
            if frame is None:
                break
            out.append(frame)
            frame_id = self.stack_frames[frame_id - 1].parent_frame_id
        return tuple(out)


def frames_of(metadata: Metadata | None, tables: StackFrameTables | None) -> tuple[PythonFrame, ...]:
    """The frames an instruction's metadata points at, innermost first: through the tables when
    it has a stack_frame_id they resolve, else its own source_file/source_line."""
    if metadata is None:
        return ()
    if metadata.stack_frame_id and tables is not None:
        frames = tables.frames(metadata.stack_frame_id)
        if frames:
            return frames
    if metadata.source_file and metadata.source_line is not None:
        return (PythonFrame(metadata.source_file, metadata.source_line, metadata.source_column, None,
                            metadata.source_end_line, metadata.source_end_column),)
    return ()
