"""Shared by tests/test_hlo_*.py: the HLO fixtures and how to find an instruction in them."""
from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from shlo_lint.checker.frontend.hlo import HloText, Instruction, read_hlo

HLO = Path(__file__).resolve().parent / "fixtures" / "hlo"

# Every HLO fixture, and the ones jaxlib's own parser accepts (all but the one written to
# hold forms XLA does not have).
ALL = sorted([p for p in HLO.glob("*.hlo")] + [p for p in (HLO / "dump").glob("*.txt")])
JAXLIB_VALID = [p for p in ALL if p.name != "unknown_forms.hlo"]


@lru_cache(maxsize=None)
def module(name: str) -> HloText:
    """A fixture read, every body parsed."""
    path = HLO / name
    m = read_hlo(path.read_text(encoding="utf-8"), str(path))
    m.parse_all()
    return m


def instr(m: HloText, name: str) -> Instruction:
    for comp in m.computations.values():
        found = comp.instruction(name)
        if found is not None:
            return found
    raise KeyError(name)


def by_opcode(m: HloText, opcode: str) -> list[Instruction]:
    return [i for i in m.instructions() if i.opcode == opcode]
