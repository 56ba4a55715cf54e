"""The process grid: one note when it is unknown and bound checks were skipped.

Rules whose check needs `num_replicas` / `num_partitions` call `grid_needed(ctx, op,
"send C4 (ids < N)")` before it: when the grid is known it returns True; otherwise
it records the skipped check under `ctx.cache["grid_skipped"]` (a set of labels,
shared with every rule family) and returns False. The module rule below runs after
all op rules and turns what was recorded into a single note.
"""
from __future__ import annotations

from typing import Iterator

from shlo_lint.checker.ir.attributes import IntegerAttr
from shlo_lint.checker.lint.context import Context
from shlo_lint.checker.source.diagnostics import Diagnostic
from shlo_lint.checker.ir.core import Module, Operation
from shlo_lint.checker.lint.registry import rule
from shlo_lint.checker.source.text import Span

from .support.grid_checks import GRID_SKIPPED, GRID_SKIPPED_AT, int_range


def _module_span(module: Module) -> Span | None:
    """The `module` keyword when the file writes a module op, else None."""
    root = module.root
    if root is None:
        return None
    span = root.name_span
    return span if span.end > span.start else None


@rule("SHLO190", "grid-unknown", category="tool", severity="info")
def grid_unknown(module: Module, ctx: Context) -> Iterator[Diagnostic]:
    """The process grid (replicas × partitions) is unknown, so id-range checks were skipped.

    ## What it does
    Reports, once per file, which checks could not run because neither the
    module (`mhlo.num_partitions` / `mhlo.num_replicas`; in XLA's HLO text,
    `num_partitions` / `replica_count` in the `HloModule` line) nor the command
    line or configuration says how many processes run the program. Only the checks that
    need the grid are skipped (e.g. send C4, "every id is below N"); everything
    else, including negative ids, is still checked.

    ## Why is this bad?
    An id that is out of range for the real grid makes XLA reject the program
    or makes a collective wait for a process that does not exist (a hang). Without
    the grid the linter cannot tell.

    ## Example
    ```mlir
    module @m {
      func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
        %0 = "stablehlo.collective_permute"(%x) {
          source_target_pairs = dense<[[0, 1], [1, 9]]> : tensor<2x2xi64>,
          channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>
        } : (tensor<4xf32>) -> tensor<4xf32>
        return %0 : tensor<4xf32>
      }
    }
    ```

    ## Use instead
    Export with JAX, which writes the grid on the module:
    ```mlir
    module @m attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} { ... }
    ```
    or pass it: `shlo-lint check --num-partitions 8 --num-replicas 1 prog.mlir`, or in
    `pyproject.toml`:
    ```toml
    [tool.shlo-lint]
    num-partitions = 8
    num-replicas = 1
    ```
    """
    skipped = ctx.cache.get(GRID_SKIPPED)
    if not skipped or ctx.grid.known:
        return
    where: Operation | Span | None = _module_span(module)
    if where is None:
        where = ctx.cache.get(GRID_SKIPPED_AT) or Span(0, 0)
    checks = ", ".join(sorted(skipped))
    hlo = module.front_end == "hlo"
    # an HLO module's grid is its header's (`HloModule m, replica_count=1, num_partitions=8`):
    # `lower().as_text("hlo")` prints none, the compile options hold them
    missing = "the HloModule line has no num_partitions / replica_count" if hlo else \
        "no mhlo.num_partitions / mhlo.num_replicas"
    d = ctx.info(
        where,
        f"process grid unknown ({missing}): {len(skipped)} check{'s' if len(skipped) != 1 else ''} skipped",
        help="pass --num-partitions N --num-replicas M, or set num-partitions / num-replicas "
             "under [tool.shlo-lint] in pyproject.toml"
             + ("; the compiled module (`compile().as_text()`) writes them in its HloModule line" if hlo else ""),
    )
    yield d.note(d.location, f"skipped: {checks}")


_GRID_ATTRS = ("mhlo.num_partitions", "mhlo.num_replicas")


@rule("SHLO191", "grid-attribute-out-of-range", spec="process grid")
def grid_attribute_out_of_range(module: Module, ctx: Context) -> Iterator[Diagnostic]:
    """`mhlo.num_partitions` / `mhlo.num_replicas` does not fit its type, or is not positive.

    ## What it does
    Checks the module's grid attributes: each is a positive integer that its
    declared type holds (`2147483648 : i32` does not: XLA reads the 32 bits
    as -2147483648). The linter still uses the written value, without
    enumerating the processes (its checks are arithmetic on the ids written), so
    a 2^31-process grid costs no more than an 8-process one.

    ## Why is this bad?
    XLA reads the attribute as its type holds it: a wrapped, negative or zero
    process count makes it reject the program or run it on a grid other than
    the one the program was written for.

    ## Example
    ```mlir
    module @m attributes {mhlo.num_partitions = 2147483648 : i32, mhlo.num_replicas = 1 : i32} { ... }
    ```

    ## Use instead
    A count that fits: `mhlo.num_partitions = 2048 : i32` (or declare it `: i64`).
    """
    attrs = module.attributes
    for name in _GRID_ATTRS:
        a = attrs.get(name)
        if not isinstance(a, IntegerAttr):
            continue
        where = a.span if isinstance(a.span, Span) else _module_span(module) or Span(0, 0)
        bounds = int_range(a.type) if a.type is not None else None
        if bounds is not None and not bounds[0] <= a.value <= bounds[1]:
            yield ctx.error(where, f"{name} = {a.value} does not fit its type {a.type} (at most {bounds[1]})",
                            help=f"XLA reads the {a.type} it holds, a different number: write a value that fits")
        elif a.value <= 0:
            yield ctx.error(where, f"{name} = {a.value}: a process count must be positive")
