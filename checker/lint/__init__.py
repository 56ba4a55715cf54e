"""The lint driver: one file in, diagnostics out. The rule registry and the rules' Context,
the engine (read, parse, run the rules, suppressions, selection), fixes, settings and
options."""
