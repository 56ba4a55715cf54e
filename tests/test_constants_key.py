"""SHLO150's per-text memo key: the cheap trailing-`loc(...)` strip must equal the
regex substitution it replaces on every text (it decides which constants share
a verdict)."""
from __future__ import annotations

import random

from shlo_lint.rules.constants import _LOC_AT_END, _strip_loc

CASES = [
    "", "loc(", "stablehlo.constant dense<1> : tensor<i32>",
    "stablehlo.constant dense<1> : tensor<i32> loc(#loc3)",
    "stablehlo.constant dense<1> : tensor<i32>   loc(\"a\"(#loc1))\n",
    'stablehlo.constant dense<1> : tensor<i32> loc(fused[loc("a"), loc("b")])',
    'stablehlo.constant dense<1> : tensor<i32> loc(callsite(loc("a") at loc("b")))',
    "stablehlo.constant dense<1> : tensor<i32> loc(#loc3) x",
    "loc(#a) loc(#b)", " \u00a0loc(#a)\u2003", "\tloc(()) \n", "xloc(a)loc(b)",
]


def test_strip_loc_is_the_substitution():
    for text in CASES:
        assert _strip_loc(text) == _LOC_AT_END.sub("", text), text
    rng = random.Random(150)
    pieces = ["loc(", "loc", "(", ")", " ", "\n", "\u00a0", "x", '"a"', "#loc1", "[", "]", ",", "at "]
    for _ in range(20000):
        text = "".join(rng.choice(pieces) for _ in range(rng.randint(0, 14)))
        assert _strip_loc(text) == _LOC_AT_END.sub("", text), repr(text)
