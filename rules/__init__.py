"""The rules: one module per family (send.py, all_gather.py, deadlock.py, ...),
each rule a generator decorated with `@rule(code, name, on=..., ...)` whose
docstring is its documentation (docs/rules.md is generated from them).

The registry finds these modules by name (checker/lint/registry.py, `load`).
A rule module imports no other rule module: what several families share (reading
replica groups and pairs, naming ops, the deadlock verdict) is in support/, which
registers no rule. tests/test_imports.py holds the code to both.
"""
