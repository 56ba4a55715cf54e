"""shlo-lint: a verifier and static-analysis linter for StableHLO programs.

    >>> import shlo_lint
    >>> diags = shlo_lint.lint_text(open("prog.mlir").read(), path="prog.mlir")
    >>> [f"{d.code} {d.message}" for d in diags]
"""
from __future__ import annotations

from shlo_lint.checker.lint.config import Config, ConfigError
from shlo_lint.checker.source.diagnostics import Diagnostic, Fix, Note, Severity
from shlo_lint.checker.cli.files import lint_paths
from shlo_lint.checker.lint.engine import FileResult, lint_text
from shlo_lint.jax_api import assert_clean, check_lowered


def __getattr__(name: str):
    # check_hosts / assert_same_on_hosts load the hosts decision (the process model over
    # many programs): on first use, not on every `shlo-lint` start (~15 ms of it).
    if name in ("check_hosts", "assert_same_on_hosts"):
        from shlo_lint import hosts_api

        return getattr(hosts_api, name)
    raise AttributeError(f"module 'shlo_lint' has no attribute {name!r}")


def parse(text: str, path: str = "<string>"):
    """Parse StableHLO text, or XLA's HLO text (by its content), into the IR
    (shlo_lint.checker.ir.core.Module), headers lazily."""
    from shlo_lint.checker.frontend.read import read_module
    from shlo_lint.checker.source.text import SourceFile

    return read_module(SourceFile(path, text))


__all__ = ["Config", "ConfigError", "Diagnostic", "FileResult", "Fix", "Note", "Severity", "assert_clean",
           "assert_same_on_hosts", "check_hosts", "check_lowered", "lint_paths", "lint_text", "parse"]
