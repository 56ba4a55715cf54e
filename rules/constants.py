"""Constants whose `dense<...>` literal MLIR's parser rejects for its type."""
from __future__ import annotations

from typing import Iterator

from shlo_lint.checker.attributes import DenseElementsAttr
from shlo_lint.checker.context import Context
from shlo_lint.checker.dense_check import dense_literal_problem
from shlo_lint.checker.diagnostics import Diagnostic
from shlo_lint.checker.ir import Operation
from shlo_lint.checker.registry import rule


@rule("SHLO150", "dense-literal-mismatch", on=("stablehlo.constant", "chlo.constant"))
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
    value = op.attr("value")
    if isinstance(value, DenseElementsAttr):
        problem = dense_literal_problem(value.literal, value.type)
        if problem:
            yield ctx.error(value.span if value.span is not None else op,
                            f"constant: dense<{_short(value.literal)}> : {value.type}: {problem}")


def _short(literal: str, limit: int = 40) -> str:
    text = " ".join(literal.split())
    return text if len(text) <= limit else text[:limit] + "..."
