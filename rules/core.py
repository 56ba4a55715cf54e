"""The engine's own codes: raised by the engine itself (status "builtin"), never
run as rules, documented here like every other rule."""
from __future__ import annotations

from shlo_lint.checker.registry import rule


@rule("SHLO001", "syntax-error", category="syntax", status="builtin")
def syntax_error():
    """The text is not a well-formed StableHLO / MLIR program.

    ## Why is this bad?
    Nothing else can be checked in the part of the file that does not parse, and
    XLA will refuse the program.

    ## Example
    ```mlir
    %0 = stablehlo.add %a, %b : tensor<4xf3
    ```

    ## Use instead
    Fix the text at the reported line and column; the message says what was
    expected. Also raised for MLIR bytecode (print it as text first), text that
    is not UTF-8, and an empty file.
    """


@rule("SHLO002", "unreadable-input", category="tool", status="builtin")
def unreadable_input():
    """The file could not be read (missing, a directory, no permission).

    ## Why is this bad?
    The file was not checked at all.

    ## Use instead
    Check the path; pass `-` to read standard input.
    """


@rule("SHLO003", "internal-error", category="tool", status="builtin")
def internal_error():
    """shlo-lint itself failed while checking this op; the rest of the file was checked.

    ## Why is this bad?
    The op may hide a finding that was not reported.

    ## Use instead
    Please report it with the program that triggers it. `--ignore` the code
    named in the message to silence it meanwhile.
    """


@rule("SHLO004", "unused-suppression", category="tool", severity="warning", status="builtin")
def unused_suppression():
    """A `// shlo-lint: ignore[CODE]` comment that suppresses nothing.

    ## Why is this bad?
    Stale suppressions hide future findings on that line and mislead readers.

    ## Example
    ```mlir
    // shlo-lint: ignore[SHLO103]
    %0 = stablehlo.add %a, %b : tensor<4xf32>
    ```

    ## Use instead
    Remove the comment, or name the code that is really reported there.
    """
