"""What op implementations and the interpreter share at run time: the process
and frame an op runs in, the waits a blocked process yields, the slots that
assemble global values, and how processes are named in reports. Op modules
import this (and registry.py), never the interpreter."""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Iterator

import numpy as np

from ..ir.core import Module, Operation
from ..source.processes import process_name, process_set
from .values import sharding_errors


def custom_call_target(op: Operation) -> str | None:
    from ..ir.attributes import StringAttr, SymbolRefAttr

    a = op.attr("call_target_name")
    if isinstance(a, StringAttr):
        return a.value
    if isinstance(a, SymbolRefAttr):
        return a.root
    return None


def program_mode(module: Module) -> str:
    """"global" when the entry takes global arrays that a shard_map region
    (sdy.manual_computation, or GSPMD's @SPMDFullToShardShape) splits per device;
    "per_device" for a hand-written program every process runs on its own inputs.
    A module read from XLA's HLO text says which it is: a scheduled one is past
    SPMD partitioning (one device's program), an unscheduled one is the global
    program XLA partitions."""
    if module.front_end == "hlo":
        return "per_device" if module.per_device else "global"
    for op in module.walk():
        if op.name == "sdy.manual_computation":
            return "global"
        if op.name == "stablehlo.custom_call" and custom_call_target(op) in (
                "SPMDFullToShardShape", "SPMDShardToFullShape"):
            return "global"
    return "per_device"


# ----------------------------------------------------------------------------- waits
class Wait:
    """Something a blocked process waits for."""

    op: Operation | None = None

    def ready(self) -> bool:  # pragma: no cover - abstract
        raise NotImplementedError

    def waits_for(self, world: "World", me: tuple[int, int]) -> str:  # pragma: no cover - abstract
        raise NotImplementedError

    def peers(self, me: tuple[int, int]) -> list[tuple[int, int]]:
        """The processes whose progress would release this wait."""
        return []


@dataclass(eq=False)
class Slot:
    """The shards of the results of one sdy.manual_computation (or one
    @SPMDShardToFullShape) invocation, published by each process of the mesh."""

    op: Operation
    members: dict[int, tuple[int, int]]
    """device id → process."""
    tilings: list
    shards: dict[int, list] = field(default_factory=dict)
    """device id → its local results."""
    assembled: list | None = None

    @property
    def complete(self) -> bool:
        return len(self.shards) == len(self.members)

    def value(self, index: int):
        if self.assembled is None:
            self.assembled = [None] * len(self.tilings)
        if self.assembled[index] is None:
            parts = {d: np.asarray(vals[index]) for d, vals in self.shards.items()}
            with sharding_errors():
                self.assembled[index] = self.tilings[index].assemble(parts)
        return self.assembled[index]


@dataclass(eq=False)
class SlotWait(Wait):
    slot: Slot
    op: Operation | None = None

    def ready(self) -> bool:
        return self.slot.complete

    def peers(self, me):
        return [p for d, p in self.slot.members.items() if d not in self.slot.shards]

    def waits_for(self, world, me) -> str:
        where = world.interp.where(self.slot.op)
        return (f"the shards of the global result of {self.slot.op.name} ({where}) from "
                f"{world.describe_peers(self.peers(me))}")


# ----------------------------------------------------------------------------- processes
@dataclass(eq=False)
class Process:
    pid: tuple[int, int]
    flat: int
    coroutine: Iterator | None = None
    state: str = "ready"
    """ready | blocked | finished | error"""
    wait: Wait | None = None
    op: Operation | None = None
    """The op being executed (or blocked at)."""
    stack: list = field(default_factory=list)
    """The ops (func.call, while, case, manual_computation, ...) the current op is nested in."""
    outputs: list | None = None
    steps: int = 0
    obligations: list = field(default_factory=list)
    """Messages this process sent; it finishes only once each has been received."""


@dataclass
class Frame:
    """One function invocation's values."""

    proc: Process
    env: dict = field(default_factory=dict)
    bytes: int = 0


def fmt_pid(p: tuple[int, int]) -> str:
    """`(0, 3)`: the one spelling of a process, `check`'s and `run`'s (source/processes.py)."""
    return process_name(p)


_PART = re.compile(r"process (\(\d+, ?\d+\)) (.*)$", re.S)
_PID = re.compile(r"\((\d+), ?(\d+)\)")


def compress_states(parts: list[str]) -> str:
    """Join peer descriptions ("process (0, 1) (finished)"), folding neighbours
    that share a state: "processes (0, 1)–(0, 3), (0, 5) (finished)"."""
    groups: list[tuple[str, list[str]]] = []
    for part in parts:
        m = _PART.match(part)
        if m is None:
            groups.append((part, []))
            continue
        pid, rest = m.group(1), m.group(2)
        if groups and groups[-1][0] == rest and groups[-1][1]:
            groups[-1][1].append(pid)
        else:
            groups.append((rest, [pid]))
    out = []
    for state, pids in groups:
        out.append(f"process{'es' if len(pids) > 1 else ''} {pid_ranges(pids)} {state}" if pids else state)
    return "; ".join(out)


def pid_ranges(pids: list[str]) -> str:
    """"(0, 1)", "(0, 2)", "(0, 3)", "(0, 5)" → "(0, 1)–(0, 3), (0, 5)" (runs of consecutive partitions)."""
    tuples = [(int(m.group(1)), int(m.group(2))) for m in map(_PID.match, pids) if m is not None]
    return process_set(tuples, limit=len(tuples))


