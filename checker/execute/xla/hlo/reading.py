"""What the HLO engine reads of a module, through the front end's syntax model
(checker/frontend/hlo: `read_hlo`, `HloText`, `Instruction` with its spans):
the module checked for what running it needs, where an instruction is, the
entry's parameters, and which instructions run a computation.

The front end reads every HLO text XLA prints and never raises; the engine asks
a little more of a text it hands to jaxlib: the long form (`%name = shape
opcode(...)`, what `compile().as_text()`, `HloModule.to_string()` and
`--xla_dump_to` print: the rewrites read result shapes and name operands with
`%`), and an array for each entry parameter. No jax here: the parent reads the
text too.
"""
from __future__ import annotations

from dataclasses import dataclass

from ....frontend.hlo import HloText, Instruction, read_hlo
from ....frontend.read import looks_like_hlo
from ....frontend.hlo.shapes import Shape

__all__ = ["HloModuleError", "read_module", "position", "EntryParameter", "entry_parameters", "callers_of",
           "minor_to_major", "is_array"]


class HloModuleError(Exception):
    """HLO text the engine cannot run, at a 1-based line and column."""

    def __init__(self, message: str, line: int = 1, column: int = 1):
        super().__init__(message)
        self.message = message
        self.line = line
        self.column = column


def read_module(text: str, path: str = "<hlo>") -> HloText:
    """The module of `text`, read by the front end; HloModuleError (located) for a
    text that is not HLO, short-form text, or a module without a computation.
    Syntax errors are left to XLA's own parser in the worker (hlo/compiler.py
    `check_parses`), which is what decides whether jaxlib takes the text."""
    if not looks_like_hlo(text):
        raise HloModuleError("not HLO text: the first token is not `HloModule`")
    module = read_hlo(text, path)
    for ins in module.instructions():
        if not text.startswith("%", ins.name_span.start):
            line, column = position(ins)
            raise HloModuleError(
                "short-form HLO text (instruction names without `%`) is not run: give the long form XLA "
                "prints with `compile().as_text()`, `HloModule.to_string()` or `--xla_dump_to`", line, column)
        break
    if module.entry is None:
        raise HloModuleError("no computation in the module")
    return module


def position(ins: Instruction) -> tuple[int, int]:
    """1-based (line, column) of an instruction's `%name`."""
    return ins.module.source.line_col(ins.name_span.start)


def is_array(shape: Shape | None) -> bool:
    return shape is not None and shape.is_array


def minor_to_major(shape: Shape) -> list[int]:
    """The layout of an array shape, minor to major (`{1,0}`; the default, major to
    minor, when none is written; tiling and memory space dropped)."""
    written = (shape.layout or "").split(":")[0]
    dims = [int(d) for d in written.split(",") if d.strip()]
    return dims if len(dims) == shape.rank else list(range(shape.rank))[::-1]


@dataclass(frozen=True)
class EntryParameter:
    number: int
    instruction: Instruction
    element: str
    """XLA's element type (`f32`, `pred`, `s32`)."""
    dims: tuple[int, ...]
    sharding: str | None
    """The `sharding={...}` text of the parameter instruction (the global array's
    sharding in a compiled module), or None."""


def entry_parameters(module: HloText) -> list[EntryParameter]:
    """The entry computation's parameters in parameter-number order; HloModuleError
    for one that is not an array (a tuple or a token parameter)."""
    out = []
    for ins in module.entry.instructions if module.entry else []:
        if ins.opcode != "parameter":
            continue
        number = ins.body.parameter_number
        shape = ins.shape
        if not is_array(shape):
            line, column = position(ins)
            raise HloModuleError(f"entry parameter %{ins.name} has shape {ins.shape_text}: only array parameters "
                                 f"are run", line, column)
        sharding = ins.attributes.get("sharding")
        out.append(EntryParameter(len(out) if number is None else number, ins, shape.element_type, shape.dims,
                                  module.snippet(sharding.value_span) if sharding is not None else None))
    return sorted(out, key=lambda p: p.number)


def callers_of(module: HloText) -> dict[str, list[Instruction]]:
    """Computation name -> the instructions that run it (while, conditional, call,
    fusion, async-start, a collective's reducer)."""
    out: dict[str, list[Instruction]] = {}
    for ins in module.instructions():
        for callee in ins.called_computations:
            out.setdefault(callee, []).append(ins)
    return out
