"""The communication table as a value: what one module communicates per step, per
kind of collective and group size (analysis/comm_counts.py counts it; the
reporters show it, report/comm_report.py). Plain data: it travels from worker
processes with the file's findings."""
from __future__ import annotations

from dataclasses import dataclass, field

PAYLOAD_MEANING = {
    "all_reduce": "the buffer reduced (operands = results)",
    "all_gather": "the gathered result",
    "reduce_scatter": "the buffer reduced before it is scattered (result x group size)",
    "all_to_all": "the buffer exchanged (operands = results)",
    "collective_permute": "the buffer sent (= received)",
    "collective_broadcast": "the buffer broadcast",
    "ragged_all_to_all": "the output buffer",
    "send": "the buffer sent",
    "recv": "the buffer received",
}
"""What `bytes` measures for each kind, per device and execution (docs/hlo.md)."""


@dataclass
class Row:
    """One kind of collective at one group size."""

    kind: str
    """The catalog's kind: `all_reduce`, `all_gather`, `reduce_scatter`, `all_to_all`,
    `collective_permute`, `collective_broadcast`, `ragged_all_to_all`, `send`, `recv`."""
    group_size: int | None
    """Devices per group; None for permutes, send and recv, and when not known."""
    ops: int = 0
    """Communication ops in the text (an async pair once)."""
    executions: int = 0
    """How many times they run in one step."""
    bytes: int = 0
    """Per device, summed over the step's executions (PAYLOAD_MEANING says what is counted)."""
    async_ops: int = 0
    """Of `ops`, those issued as async pairs (`*-start` / `async-start`)."""
    unknown_trips: int = 0
    """Of `ops`, those in a loop whose trip count is neither stated nor folded
    (counted once per entry into the loop)."""
    in_branches: int = 0
    """Of `ops`, those in a branch of a `case` / `if` (counted as the branch that
    holds the most)."""

    @property
    def key(self) -> tuple:
        return (self.kind, self.group_size)

    def to_dict(self) -> dict:
        return {"kind": self.kind, "group_size": self.group_size, "ops": self.ops, "executions": self.executions,
                "bytes": self.bytes, "async": self.async_ops, "unknown_trips": self.unknown_trips,
                "in_branches": self.in_branches}


@dataclass
class CommTable:
    """A module's communication per step (see the module docstring)."""

    path: str
    front_end: str
    """"hlo" or "stablehlo"."""
    rows: list[Row] = field(default_factory=list)
    """Largest bytes first."""
    notes: list[str] = field(default_factory=list)
    """What the numbers rest on, in words (loops counted once, branches, ...)."""
    entry: str | None = None
    """The function a step is one run of."""

    @property
    def ops(self) -> int:
        return sum(r.ops for r in self.rows)

    @property
    def executions(self) -> int:
        return sum(r.executions for r in self.rows)

    @property
    def bytes(self) -> int:
        return sum(r.bytes for r in self.rows)

    @property
    def exact(self) -> bool:
        """Every count is exact: no loop counted once for want of a trip count, no
        branch counted as its largest."""
        return not any(r.unknown_trips or r.in_branches for r in self.rows)

    def to_dict(self) -> dict:
        return {"path": self.path, "front_end": self.front_end, "entry": self.entry, "ops": self.ops,
                "executions_per_step": self.executions, "bytes_per_step": self.bytes, "exact": self.exact,
                "rows": [r.to_dict() for r in self.rows], "notes": list(self.notes)}


__all__ = ["CommTable", "PAYLOAD_MEANING", "Row"]
