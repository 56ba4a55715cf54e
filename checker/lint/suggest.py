""""did you mean": the one place a misspelt name is matched to the closest known one
(an option key, a `[tool.shlo-lint]` setting, a rule selector)."""
from __future__ import annotations

from difflib import SequenceMatcher
from typing import Iterable

CUTOFF = 0.6
"""How alike (difflib's ratio, 0..1) a known name must be to be suggested."""


def closest(word: str, known: Iterable[str]) -> str | None:
    """The known name `word` most likely misspells, if one is close enough. Case is
    ignored; among equally alike names, the one with more letters in place wins
    (`SHLO12O` is SHLO120, not SHLO312)."""
    w = word.lower()

    def score(name: str) -> tuple[float, int]:
        n = name.lower()
        return SequenceMatcher(None, w, n).ratio(), sum(a == b for a, b in zip(w, n))

    best = max(known, key=score, default=None)
    return best if best is not None and score(best)[0] >= CUTOFF else None


def did_you_mean(word: str, known: Iterable[str]) -> str:
    """`; did you mean `x`?` to append to an error message, or "" when nothing is close."""
    found = closest(word, known)
    return f"; did you mean `{found}`?" if found else ""
