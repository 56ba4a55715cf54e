"""The user's text and what is said about it: `SourceFile` (the text, offsets <->
line:column), `Span`, and the `Diagnostic` that points into them. The bottom of the
stage order: imports nothing else of shlo-lint."""
