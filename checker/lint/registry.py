"""One table of rules, keyed by code and by the op names they run on.

A rule is a generator function decorated with `@rule(code, name, ...)`; its
docstring is its documentation (first line = summary; `## Why is this bad?`,
`## Example`, `## Use instead` sections). Rule modules in shlo_lint.rules are
loaded by pkgutil, third-party ones through the `shlo_lint.rules` entry point.
Malformed or duplicate codes fail at import.
"""
from __future__ import annotations

import importlib
import inspect
import pkgutil
import re
from dataclasses import dataclass
from typing import Callable, ClassVar, Iterable

from ..source.diagnostics import CATEGORIES, Severity

_CODE = re.compile(r"^[A-Z]{2,8}\d{3,4}$")
_NAME = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")

DOCS_URL = "https://github.com/shlo-lint/shlo-lint/blob/main/docs/rules.md#{anchor}"


@dataclass(frozen=True)
class Reuse:
    """What a rule's findings depend on, declared with the rule
    (`@rule(..., reuse=Reuse.OP)`), so the editor's re-lint as you type
    (editor/incremental) knows when it may carry them over to the next version
    of a document instead of running the rule again. A rule that declares none
    runs on every version."""

    scope: str
    """`"op"`: the findings on an op depend on nothing but that op's own text
    (its regions included), the grid, the options and the file's alias
    definitions (not on other ops, operand types looked up at their definitions,
    symbols, meshes, the module, or `ctx.cache` entries shared with other rules),
    and its messages name no line numbers. `"block"`: on the op's block (every
    op's name, results and the `%names` its text mentions; the headers of the
    ops such rules run on; line numbers). `"module"`: the rules on the module op
    that read one whole-program analysis: carried over when an edit cannot change
    what the run read (the header fields, recorded while it ran; block labels;
    line numbers when it found something)."""
    final: bool = True
    """False: a finding may not be final (an analysis that ran out of time says
    it could not decide): a run that found something is not carried over."""
    text_markers: tuple[str, ...] = ()
    """Strings whose presence anywhere in the text the findings depend on."""

    OP: ClassVar["Reuse"]
    BLOCK: ClassVar["Reuse"]
    MODULE: ClassVar["Reuse"]


Reuse.OP = Reuse("op")
Reuse.BLOCK = Reuse("block")
Reuse.MODULE = Reuse("module")


FRONT_ENDS = ("stablehlo", "hlo")
"""The languages the IR is read from (ir.core.Module.front_end)."""


@dataclass(frozen=True)
class RuleSpec:
    code: str
    name: str
    category: str
    severity: Severity
    ops: tuple[str, ...]
    """Op names the rule runs on; empty for module-level (whole-program) rules."""
    spec: str | None
    """The specification label it enforces, e.g. "send C2"."""
    func: Callable | None
    status: str = "stable"
    """stable | preview | deprecated | builtin (raised by the engine itself, never run)."""
    reuse: Reuse | None = None
    """When the editor may carry the rule's findings over to the next version of a
    document (see Reuse); None: the rule runs again on every version."""
    superseded_by: tuple[str, ...] = ()
    """Codes of rules that say the same thing better: a finding of this rule is
    dropped where one of them reports at the same place (engine._drop_superseded),
    so one cause is one finding. Only while those rules are enabled and report."""
    front_ends: tuple[str, ...] = ("stablehlo", "hlo")
    """The front ends (ir.core.Module.front_end) whose programs the rule's reading
    holds for: a rule about what MLIR's parser accepts, or about the StableHLO
    spec's semantics where XLA's are the only ones, runs on StableHLO text only
    (`front_ends=("stablehlo",)`), and says why in its docstring."""

    @property
    def doc(self) -> str:
        return inspect.cleandoc(self.func.__doc__ or "") if self.func else ""

    @property
    def summary(self) -> str:
        return self.doc.split("\n", 1)[0] if self.doc else self.name

    @property
    def help_uri(self) -> str:
        return DOCS_URL.format(anchor=f"{self.code.lower()}-{self.name}")


_BY_CODE: dict[str, RuleSpec] = {}
_BY_OP: dict[str, list[RuleSpec]] = {}
_MODULE_RULES: list[RuleSpec] = []
_loaded = False
_generation = 0
"""Bumped by every register(): the engine keeps per-op rule lists until it changes."""


def rule(code: str, name: str, *, category: str = "constraint", severity: str | Severity = "error",
         on: str | Iterable[str] = (), spec: str | None = None, status: str = "stable", reuse: Reuse | None = None,
         superseded_by: Iterable[str] = (), front_ends: Iterable[str] = FRONT_ENDS):
    """Register a rule. `on` names the ops it runs on (none: it runs once per module);
    `reuse`, `superseded_by`, `front_ends`: see RuleSpec (a module-level rule declares no
    reuse)."""
    ops = (on,) if isinstance(on, str) else tuple(on)
    front_ends = tuple(front_ends)
    if not front_ends or any(f not in FRONT_ENDS for f in front_ends):
        raise ValueError(f"{code}: front_ends must name some of {', '.join(FRONT_ENDS)}")
    if reuse is not None and not ops:
        raise ValueError(f"{code}: a module rule cannot be reused (reuse=...): it runs on every version")

    def deco(func: Callable) -> Callable:
        register(RuleSpec(code, name, category, Severity(severity), ops, spec, func, status, reuse,
                          tuple(superseded_by), front_ends))
        return func

    return deco


def register(spec: RuleSpec) -> None:
    if not _CODE.match(spec.code):
        raise ValueError(f"malformed rule code {spec.code!r}")
    if not _NAME.match(spec.name):
        raise ValueError(f"malformed rule name {spec.name!r} for {spec.code}")
    if spec.category not in CATEGORIES:
        raise ValueError(f"unknown category {spec.category!r} for {spec.code}")
    if spec.code in _BY_CODE and _BY_CODE[spec.code].func is not spec.func:
        raise ValueError(f"duplicate rule code {spec.code}")
    global _generation
    _generation += 1
    _BY_CODE[spec.code] = spec
    if spec.ops:
        for op in spec.ops:
            _BY_OP.setdefault(op, []).append(spec)
    elif spec.func is not None and spec.status != "builtin":
        _MODULE_RULES.append(spec)


RULE_PACKAGE = "shlo_lint.rules"
"""The built-in rule modules: found by name, as plugins are found through their
entry point. The rules import this module; it does not import them
(checker.STAGES: lint lies below the rules)."""


def load() -> None:
    """Import every rule module once (built-in, then entry-point plugins)."""
    global _loaded
    if _loaded:
        return
    _loaded = True
    pkg = importlib.import_module(RULE_PACKAGE)
    for info in sorted(pkgutil.iter_modules(pkg.__path__), key=lambda m: m.name):
        if not info.ispkg:  # (rules/support/ holds no rule)
            importlib.import_module(f"{RULE_PACKAGE}.{info.name}")
    try:
        if _plugins_may_exist():
            from importlib.metadata import entry_points

            for ep in entry_points(group="shlo_lint.rules"):
                ep.load()
    except Exception:  # pragma: no cover - a broken plugin must not break the linter
        pass


PLUGIN_GROUP = "shlo_lint.rules"


def _plugins_may_exist() -> bool:
    """False only when no installed distribution declares a `shlo_lint.rules` entry
    point. importlib.metadata costs heavy imports (email, zipfile, csv) plus a
    parse of every distribution's metadata, a fifth of a one-file run; this reads
    the same entry_points.txt files importlib.metadata would, as text. Anything it
    cannot see through (a zip on sys.path, an unreadable directory) says True."""
    import os
    import sys

    for entry in sys.path:
        try:
            with os.scandir(entry or ".") as it:
                for d in it:
                    if d.name.endswith((".dist-info", ".egg-info")):
                        try:
                            with open(os.path.join(d.path, "entry_points.txt"), encoding="utf-8") as f:
                                if PLUGIN_GROUP in f.read():
                                    return True
                        except (FileNotFoundError, NotADirectoryError):
                            pass
        except NotADirectoryError:
            if os.path.isfile(entry):  # a zip (egg, zipapp): only importlib.metadata reads inside
                return True
        except FileNotFoundError:
            pass
        except OSError:
            return True
    return False


def all_rules() -> list[RuleSpec]:
    load()
    return sorted(_BY_CODE.values(), key=lambda r: r.code)


def get(code: str) -> RuleSpec | None:
    load()
    return _BY_CODE.get(code.upper())


def generation() -> int:
    return _generation


_SUPERSEDED: tuple[int, frozenset[str]] = (-1, frozenset())


def superseded_codes() -> frozenset[str]:
    """Codes of the rules that declare `superseded_by` (engine._drop_superseded);
    kept until a rule is registered (asked once per file)."""
    global _SUPERSEDED
    if _SUPERSEDED[0] != _generation:
        _SUPERSEDED = (_generation, frozenset(c for c, s in _BY_CODE.items() if s.superseded_by))
    return _SUPERSEDED[1]


def rules_for_op(name: str) -> list[RuleSpec]:
    return _BY_OP.get(name, [])


def module_rules() -> list[RuleSpec]:
    return list(_MODULE_RULES)
