"""The engine's hooks: what a caller may change in one lint, each with what the
engine does without it.

`engine.lint_source(source, config, hooks=...)` asks its hooks at each step. The
command line lints with `NO_HOOKS`, whose methods do just what the engine would
do by itself, so its path reads straight through. The editor's re-lint as you
type (editor/incremental/document.py, `Memo`) overrides them to hand over what
the previous version of the document computed, where that is exactly what this
version would compute.
"""
from __future__ import annotations

from typing import Any, Callable, Iterable

from ..analysis.semantics import Grid
from ..frontend.read import read_module
from ..ir.core import Block, Module, Operation
from ..source.diagnostics import Diagnostic
from ..source.text import SourceFile
from .context import Context
from .registry import RuleSpec

RuleCall = Callable[[RuleSpec, Context, Any, set], Iterable[Diagnostic]]
"""How the engine runs one rule on one subject (an op, or the module)."""


class LintHooks:
    """The steps of one lint a caller may take over (see the module docstring)."""

    walk_stage = "scanning the file"
    """What the engine was doing, for an internal error raised in `walk`."""

    def header_parser(self, parser: Any) -> Any:
        """The header parser the module reads its ops' headers with."""
        return parser

    def read(self, source: SourceFile, parser: Any) -> Module:
        """The module of `source` (its structure; headers are read on demand)."""
        return read_module(source, parser)

    def walk(self, module: Module) -> list[Operation]:
        """Every op of the module, in walk order (the parse and the rules go through it)."""
        return list(module.walk())

    def headers_to_check(self, ops: list[Operation]) -> Iterable[Operation]:
        """The ops whose headers the engine parses to report every syntax error."""
        return ops

    def header_known(self, op: Operation) -> bool:
        """Whether op's header is known to parse cleanly without parsing it."""
        return False

    def label_known(self, block: Block) -> bool:
        """Whether a block label is known to parse cleanly without parsing it."""
        return False

    def context(self, module: Module, grid: Grid, options: dict[str, Any]) -> Context:
        """The Context every rule of this lint is run with."""
        return Context(module, grid, options)

    def rule_runner(self, ctx: Context, call: RuleCall) -> RuleCall:
        """How each rule is run (`call`: the engine's own way)."""
        return call

    def op_rules(self, ctx: Context, op: Operation, specs: list[RuleSpec], seen_errors: set
                 ) -> list[Diagnostic] | None:
        """All of an op's rules' findings at once, or None: the engine runs each rule."""
        return None


NO_HOOKS = LintHooks()
"""What the command line and the library lint with."""

__all__ = ["LintHooks", "NO_HOOKS", "RuleCall"]
