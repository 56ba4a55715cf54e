"""The engine's own codes: raised by the engine itself (status "builtin"), never
run as rules, documented here like every other rule."""
from __future__ import annotations

from shlo_lint.checker.lint.registry import rule


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
    """shlo-lint itself failed while checking this file (a bug of ours, not of the file).

    ## Why is this bad?
    The file was not fully checked: the op named (or, when the failure was not
    tied to one op, the whole file) may hide a finding that was not reported, so
    the exit code is 2. The message says what shlo-lint was doing (scanning,
    parsing an op, running rule X, writing the report), the exception, and where
    in shlo-lint's code it was raised; the other files of the run are checked as
    usual.

    ## Use instead
    Please report it with the program that triggers it. When the message names a
    rule, `--ignore` that rule's code to check the rest meanwhile.
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
