"""shlo-lint's engine, in rooms by stage (docs/architecture.md draws the map).

Text is read by a front end into the IR; the analyses read the IR; the lint
driver runs the rules over it and hands diagnostics to the reporters; the
command line, the editor and the execution checker drive it all. `STAGES` is
where that order is written down, once: every room (a package of `shlo_lint`;
a module belongs to the longest room its name starts with), bottom first, with
the rooms it may import besides itself. tests/test_imports.py reads it and the
code: an import the table does not allow, an import circle, or an underscore
name imported from another module fails there. Imports are plain, lazy and
`TYPE_CHECKING` ones alike.
"""

STAGES: tuple[tuple[str, tuple[str, ...]], ...] = (
    # the user's text, spans, and the Diagnostic that points into them
    ("checker.source", ()),
    ("grammar", ()),  # the Lark grammars (data)
    # the IR and its op catalog
    ("checker.ir", ("checker.source",)),
    # text -> IR
    ("checker.frontend", ("checker.source", "checker.ir", "grammar")),
    # whole-program analyses over the IR: no rule, no Context, no output format
    ("checker.analysis", ("checker.source", "checker.ir")),
    # Diagnostic -> text | json | sarif | ...: never the IR
    ("checker.report", ("checker.source",)),
    # one file in, diagnostics out (the rules are found by name, not imported: registry.load)
    ("checker.lint", ("checker.source", "checker.ir", "checker.frontend", "checker.analysis", "checker.report")),
    # what rule modules share
    ("rules.support", ("checker.source", "checker.ir", "checker.frontend", "checker.analysis", "checker.lint")),
    # one module per family of rules; a rule module imports no other rule module
    ("rules", ("checker.source", "checker.ir", "checker.frontend", "checker.analysis", "checker.lint",
               "rules.support")),
    # running programs: the interpreter and the XLA engines
    ("checker.execute", ("checker.source", "checker.ir", "checker.frontend", "checker.analysis", "checker.lint")),
    # the language server and the re-lint as you type
    ("checker.editor", ("checker.source", "checker.ir", "checker.frontend", "checker.lint", "checker.report")),
    # the command line
    ("checker.cli", ("checker.source", "checker.ir", "checker.frontend", "checker.lint", "checker.report",
                     "checker.execute", "checker.editor")),
    ("checker", ()),  # this table
    # the library API (shlo_lint.lint_text, check_lowered, `python -m shlo_lint`)
    ("", ("checker.source", "checker.ir", "checker.frontend", "checker.lint", "checker.report", "checker.cli")),
)
"""(room, the rooms it may import), bottom first; names relative to `shlo_lint`."""

INDEPENDENT = ("rules",)
"""Rooms whose modules do not import each other (only the room's sub-rooms)."""
