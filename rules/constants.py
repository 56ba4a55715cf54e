"""Constants whose `dense<...>` literal MLIR's parser rejects for its type."""
from __future__ import annotations

import re
from typing import Iterator

from shlo_lint.checker.ir.attributes import DenseElementsAttr
from shlo_lint.checker.lint.context import Context
from shlo_lint.checker.frontend.stablehlo.dense_literals import dense_literal_problem
from shlo_lint.checker.source.diagnostics import Diagnostic
from shlo_lint.checker.ir.core import Operation
from shlo_lint.checker.lint.registry import Reuse, rule


@rule("SHLO150", "dense-literal-mismatch", on=("stablehlo.constant", "chlo.constant"), reuse=Reuse.OP,
      front_ends=("stablehlo",))
def dense_literal_mismatch(op: Operation, ctx: Context) -> Iterator[Diagnostic]:
    """A constant's `dense<...>` literal does not fit its tensor type.

    ## What it does
    Reads the literal of every `stablehlo.constant` / `chlo.constant` against
    its type as MLIR's parser does: the nesting must be the type's shape, and
    each element a literal of the element type — no float for an integer type,
    no integer outside the type's range (a signless `iN` takes -2^(N-1) to
    2^N - 1), no negative value for `uiN`, a float literal with a '.' for a
    float type, `true`/`false` only for i1, no `+`, `inf` or `nan` words.

    ## Why is this bad?
    MLIR's parser rejects the file (`stablehlo-opt`, jaxlib, XLA): nothing runs.
    The messages are the parser's own (checked against jaxlib); hex blobs and
    element types other than builtin integers, floats and complex are not judged.
    Not run on HLO text (`front_ends`): an HLO constant's literal is XLA's
    syntax (`f32[] constant(0)`, `-inf`), which XLA's parser reads.

    ## Example
    ```mlir
    %0 = stablehlo.constant dense<[1, 2, 3]> : tensor<2xi32>
    %1 = stablehlo.constant dense<1> : tensor<f32>
    ```

    ## Use instead
    ```mlir
    %0 = stablehlo.constant dense<[1, 2]> : tensor<2xi32>
    %1 = stablehlo.constant dense<1.0> : tensor<f32>
    ```
    """
    # Big modules repeat the same few constants (`dense<0.000000e+00> : tensor<f32>`)
    # thousands of times under other names: the answer is a function of the op's
    # text without its result name and location, so it is computed (and the
    # header built) once per distinct text; a repeat that is fine costs a lookup.
    # (Rules read few other headers: building every constant's would cost ~20%
    # of an every-header lint.)
    key = _text_key(op)
    if key is not None and _FINE.get(key):
        return
    value = op.attr("value")
    problem = None
    if isinstance(value, DenseElementsAttr):
        problem = dense_literal_problem(value.literal, value.type)
        if problem:
            yield ctx.error(value.span if value.span is not None else op,
                            f"constant: dense<{_short(value.literal)}> : {value.type}: {problem}")
    if key is not None and problem is None and len(_FINE) < _FINE_MAX:
        _FINE[key] = True


_FINE: dict[str, bool] = {}
"""Op texts (result name and location cut off) whose literal is fine."""
_FINE_MAX = 65536
_KEY_MAX_SOURCE = 4096
"""Longer op texts are not keyed: a key is at most 512 characters, so only a
`loc(...)` of over 3.5 KB could bring such an op under it."""
_RESULT = re.compile(r"\s*%[\w$.\-]+(?::\d+)?\s*=\s*")
_LOC_AT_END = re.compile(r"\s*loc\((?:[^()]|\([^()]*\))*\)\s*$")


def _text_key(op: Operation) -> str | None:
    """The op's text from its name on, without a trailing `loc(...)`; None when
    it holds a region, an alias or a `%` (anything whose meaning is not all in
    the text itself)."""
    if op.span.end - op.span.start > _KEY_MAX_SOURCE:
        return None  # (no key over 512 characters: not worth copying a 100 KB literal to find out)
    text = op.module.source.text[op.span.start:op.span.end]
    m = _RESULT.match(text)
    if m:
        text = text[m.end():]
    text = _strip_loc(text)
    if "%" in text or "#" in text or "!" in text or "{" in text and "<{" not in text or len(text) > 512:
        return None
    return text


def _strip_loc(text: str) -> str:
    """`_LOC_AT_END.sub("", text)`, searched from where a match can start: the
    whitespace before the first `loc(` (the pattern's `\\s*` can only reach back
    over whitespace to it). The whole-text search was ~60% of this rule on
    StableHLO's testdata, whose constants hold literals of up to 100 KB."""
    at = text.find("loc(")
    if at < 0:
        return text
    while at and text[at - 1].isspace():  # str.isspace is the `\s` of str patterns
        at -= 1
    m = _LOC_AT_END.search(text, at)
    return text if m is None else text[:m.start()] + text[m.end():]


def _short(literal: str, limit: int = 40) -> str:
    text = " ".join(literal.split())
    return text if len(text) <= limit else text[:limit] + "..."
