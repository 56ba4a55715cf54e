"""Which rules run: `enabled(spec, config)` from select / extend-select / ignore
(syntax errors and SHLO002 always), and `check_selectors`, which refuses a
selector that matches no rule (a misspelt code must not silently select or
ignore nothing). Split from engine.py."""
from __future__ import annotations

from . import registry
from .config import Config, ConfigError
from .registry import RuleSpec


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
    a misspelt code would silently select (or ignore) nothing."""
    registry.load()
    per_file = [s for _, sels in config.per_file_ignores for s in sels]
    selectors = (*config.select, *config.extend_select, *config.ignore, *config.extend_ignore, *per_file)
    if all(sel in _VALID_SELECTORS for sel in selectors):
        return  # lint_text checks on every call: ~30 us a file, most of a small file's setup
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
        raise ConfigError(f"`{sel}` matches no rule code, prefix, category or name")


_VALID_SELECTORS: set[str] = set()
