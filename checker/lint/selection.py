"""Which rules run: `enabled(spec, config)` from select / extend-select / ignore
(syntax errors and SHLO002 always), and `check_selectors`, which refuses a
selector that matches no rule (a misspelt code must not silently select or
ignore nothing), naming the setting that carries it and the rule it most likely
misspells. Split from engine.py."""
from __future__ import annotations

from typing import Iterable

from . import registry
from .config import TABLE, Config, ConfigError, error_in_file
from .registry import RuleSpec
from .suggest import did_you_mean


def _matches(selector: str, spec: RuleSpec) -> bool:
    s = selector.strip()
    return (s.upper() == "ALL" or spec.code == s.upper() or spec.code.startswith(s.upper())
            or s.lower() == spec.category or s.lower() == spec.name)


_ENABLED: dict[tuple, bool] = {}
"""enabled() answers by what decides them: asked once per rule and op name of
every file, they were ~3% of linting a small file."""


def enabled(spec: RuleSpec, config: Config) -> bool:
    key = (spec.code, spec.category, spec.name, config.select, config.extend_select, config.ignore)
    try:
        got = _ENABLED.get(key)
    except TypeError:  # selectors given as lists (Config(select=[...])): not cached
        return _enabled(spec, config)
    if got is None:
        if len(_ENABLED) > 100_000:  # a long-lived process (the language server) with many configs
            _ENABLED.clear()
        got = _ENABLED[key] = _enabled(spec, config)
    return got


def _enabled(spec: RuleSpec, config: Config) -> bool:
    if spec.category == "syntax" or spec.code == "SHLO002":
        return True  # never silenced: the file was not checked
    chosen = any(_matches(s, spec) for s in (*config.select, *config.extend_select))
    return chosen and not any(_matches(s, spec) for s in config.ignore)


def check_selectors(config: Config) -> None:
    """ConfigError for a select/ignore/per-file-ignores entry that matches no rule:
    a misspelt code would silently select (or ignore) nothing. The error names the
    setting; for settings read from a file (`config.path`), at its line there.
    (The command line checks its flags' selectors itself, naming the flag.)"""
    per_file = [s for _, sels in config.per_file_ignores for s in sels]
    if unknown_selector((*config.select, *config.extend_select, *config.ignore, *config.extend_ignore,
                         *per_file)) is None:
        return
    settings = [("select", TABLE, config.select), ("extend-select", TABLE, config.extend_select),
                ("ignore", TABLE, config.ignore), ("extend-ignore", TABLE, config.extend_ignore)]
    settings += [(glob, TABLE + ".per-file-ignores", sels) for glob, sels in config.per_file_ignores]
    for key, table, selectors in settings:
        bad = unknown_selector(selectors)
        if bad is not None:
            setting = f"per-file-ignores `{key}`" if table != TABLE else f"`{key}`"
            raise error_in_file(f"{setting}: {selector_error(bad)}", config.path, key, table, bad)


def selector_error(selector: str) -> str:
    """What is wrong with a selector that matches no rule, and what it may misspell."""
    rules = registry.all_rules()
    known = ["ALL", *sorted({r.category for r in rules}), *(r.code for r in rules), *(r.name for r in rules)]
    return f"`{selector}` matches no rule code, prefix, category or name{did_you_mean(selector.strip(), known)}"


def unknown_selector(selectors: Iterable[str]) -> str | None:
    """The first of `selectors` that matches no rule code, code prefix, category or name."""
    registry.load()
    selectors = tuple(selectors)
    if all(sel in _VALID_SELECTORS for sel in selectors):
        return None  # lint_text checks on every call: ~30 us a file, most of a small file's setup
    rules = registry.all_rules()
    cats = {r.category for r in rules}
    for sel in selectors:
        if sel in _VALID_SELECTORS:
            continue
        s = sel.strip()
        if s.upper() == "ALL" or s.lower() in cats or any(r.code.startswith(s.upper()) or r.name == s for r in rules):
            if len(_VALID_SELECTORS) < 10_000:
                _VALID_SELECTORS.add(sel)  # rules are only ever added: a valid selector stays valid
            continue
        return sel
    return None


_VALID_SELECTORS: set[str] = set()
