"""Settings: `[tool.shlo-lint]` in the nearest pyproject.toml; command-line flags win.

A configuration that cannot be read or validated is a ConfigError naming the
file, the line and the key (exit code 2): a silently ignored table would bring
back ignored codes or drop selected ones without a word.
"""
from __future__ import annotations

import re
import sys
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any

from ..report import FORMATS
from . import options as _options
from .paths import matches

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

TABLE = "tool.shlo-lint"


class ConfigError(ValueError):
    """A bad setting: reported, exit code 2 (a ValueError for library callers)."""


@dataclass(frozen=True)
class Config:
    select: tuple[str, ...] = ("ALL",)
    """Codes, code prefixes (SHLO1), categories (deadlock), rule names, or ALL."""
    ignore: tuple[str, ...] = ()
    extend_select: tuple[str, ...] = ()
    extend_ignore: tuple[str, ...] = ()
    num_partitions: int | None = None
    num_replicas: int | None = None
    output_format: str = "text"
    exclude: tuple[str, ...] = ()
    """Glob patterns of paths to skip when walking directories (and, with
    force_exclude, files named on the command line)."""
    force_exclude: bool = False
    """Apply `exclude` to files named explicitly too (pre-commit passes names)."""
    per_file_ignores: tuple[tuple[str, tuple[str, ...]], ...] = ()
    """(glob, selectors) pairs: the selectors are ignored in files matching the glob."""
    fail_on: str = "warning"
    """Lowest severity that makes the exit code 1: error | warning | info."""
    full_parse_limit: int = 4_000_000
    """Files up to this many characters have every op header parsed (all syntax
    errors found); bigger files parse the ops rules read (see docs/performance.md)."""
    options: dict[str, Any] = field(default_factory=dict)
    """Per-rule options (`[tool.shlo-lint.options]`), validated against options.py."""
    path: str | None = None
    """The pyproject.toml these settings came from."""

    def __post_init__(self) -> None:
        # The library API (lint_text, lint_paths, check_lowered) builds Configs
        # directly: a misspelt option or a bad enum would otherwise be ignored
        # without a word and the check it tunes would run with its default.
        # Options are converted to the types the rules read (idempotent).
        if self.options:
            try:
                object.__setattr__(self, "options", _options.validate(dict(self.options), "Config(options=...)"))
            except _options.OptionError as e:
                raise ConfigError(str(e)) from None
        for key, allowed in _ENUMS.items():
            value = getattr(self, key.replace("-", "_"))
            if value not in allowed:
                raise ConfigError(f"Config({key.replace('-', '_')}={value!r}): must be one of {', '.join(allowed)}")
        for name, least in (("num_partitions", 1), ("num_replicas", 1), ("full_parse_limit", 0)):
            value = getattr(self, name)
            if value is not None and (not isinstance(value, int) or isinstance(value, bool) or value < least):
                what = "a positive integer" if least else "an integer >= 0 (0: parse only the ops rules read)"
                raise ConfigError(f"Config({name}={value!r}): must be {what}")

    def merged(self, **overrides: Any) -> "Config":
        unknown = sorted(set(overrides) - {f.name for f in fields(Config)})
        if unknown:
            known = ", ".join(f.name for f in fields(Config) if f.name != "path")
            raise ConfigError(f"unknown setting{'s' if len(unknown) > 1 else ''} {', '.join(unknown)} "
                              f"(known: {known})")
        return replace(self, **{k: v for k, v in overrides.items() if v is not None})

    def ignores_for(self, path: str) -> tuple[str, ...]:
        """ignore + extend-ignore + the per-file ignores whose glob matches `path`."""
        extra = tuple(s for glob, sels in self.per_file_ignores if matches(path, glob) for s in sels)
        return self.ignore + self.extend_ignore + extra


_KEYS = {f.name.replace("_", "-"): f.name for f in fields(Config) if f.name != "path"}
_ENUMS = {"output-format": tuple(FORMATS), "fail-on": ("error", "warning", "info")}
_LISTS = ("select", "ignore", "extend_select", "extend_ignore", "exclude")


def _toml_error(path: Path, text: str, e: Exception) -> ConfigError:
    """`pyproject.toml:5: invalid TOML: Cannot overwrite a value (key `select`)`."""
    msg = str(e)
    m = re.search(r"at line (\d+)", msg)
    if m is None:
        return ConfigError(f"{path}: invalid TOML: {msg}")
    line = int(m.group(1))
    lines = text.splitlines()
    key = ""
    if 1 <= line <= len(lines):
        km = re.match(r"\s*([\w\"'.-]+)\s*=", lines[line - 1]) or re.match(r"\s*\[+\s*([^\]]+)\]", lines[line - 1])
        if km:
            key = f" (key `{km.group(1).strip()}`)"
    hint = " — a key may appear only once per table" if "overwrite" in msg or "twice" in msg else ""
    return ConfigError(f"{path}:{line}: invalid TOML: {msg}{key}{hint}")


def locate(text: str, key: str, table: str = TABLE) -> int | None:
    """The 1-based line where `key` is set in `[table]` (or a sub-table), if found."""
    current = ""
    pat = re.compile(r'\s*["\']?' + re.escape(key) + r'["\']?\s*=')
    for i, line in enumerate(text.splitlines(), 1):
        h = re.match(r"\s*\[+\s*([^\]]+?)\s*\]", line)
        if h:
            current = h.group(1).replace('"', "").replace("'", "")
            if current.split(".")[-1] == key and current.startswith(table):
                return i
            continue
        if current.startswith(table) and pat.match(line):
            return i
    return None


def find_pyproject(start: Path) -> Path | None:
    """The nearest pyproject.toml at or above `start` that has a [tool.shlo-lint]
    table. One that is not valid TOML but names shlo-lint is a ConfigError (it may
    well hold our table); one that does not name us is passed over."""
    start = start.resolve()
    for d in [start, *start.parents] if start.is_dir() else [start.parent, *start.parent.parents]:
        candidate = d / "pyproject.toml"
        if candidate.is_file():
            try:
                text = candidate.read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError) as e:
                raise ConfigError(f"{candidate}: cannot read: {e}") from e
            try:
                data = tomllib.loads(text)
            except tomllib.TOMLDecodeError as e:
                if "shlo-lint" in text:
                    raise _toml_error(candidate, text, e) from e
                continue
            if "shlo-lint" in data.get("tool", {}):
                return candidate
    return None


def load_config(path: Path) -> Config:
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise ConfigError(f"{path}: cannot read: {e}") from e
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise _toml_error(path, text, e) from e
    table = data.get("tool", {}).get("shlo-lint", {})
    if not isinstance(table, dict):
        raise ConfigError(f"{path}: `tool.shlo-lint` must be a table")
    return from_table(table, str(path), text)


def from_table(table: dict[str, Any], origin: str = "<config>", text: str | None = None) -> Config:
    def where(key: str, sub: str = TABLE) -> str:
        line = locate(text, key, sub) if text is not None else None
        return f"{origin}:{line}" if line is not None else origin

    kwargs: dict[str, Any] = {"path": origin}
    for key, value in table.items():
        if key not in _KEYS:
            known = ", ".join(sorted(_KEYS))
            raise ConfigError(f"{where(key)}: unknown setting `{key}` in [tool.shlo-lint] (known: {known})")
        name = _KEYS[key]
        if name in _LISTS:
            if isinstance(value, str):
                value = [value]
            if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
                raise ConfigError(f"{where(key)}: `{key}` must be a list of strings")
            value = tuple(value)
        elif name in ("num_partitions", "num_replicas", "full_parse_limit"):
            if not isinstance(value, int) or isinstance(value, bool) or value < 1:
                raise ConfigError(f"{where(key)}: `{key}` must be a positive integer")
        elif name == "force_exclude":
            if not isinstance(value, bool):
                raise ConfigError(f"{where(key)}: `{key}` must be true or false")
        elif name == "per_file_ignores":
            if not isinstance(value, dict):
                raise ConfigError(f"{where(key)}: `per-file-ignores` must be a table of glob = [codes]")
            pairs = []
            for glob, sels in value.items():
                if isinstance(sels, str):
                    sels = [sels]
                if not isinstance(sels, list) or not all(isinstance(s, str) for s in sels):
                    raise ConfigError(f"{where(glob, TABLE + '.per-file-ignores')}: per-file-ignores `{glob}` "
                                      "must be a list of codes")
                pairs.append((glob, tuple(sels)))
            value = tuple(pairs)
        elif name == "options":
            if not isinstance(value, dict):
                raise ConfigError(f"{where(key)}: `options` must be a table")
            converted = {}
            for k, v in value.items():
                try:
                    converted.update(_options.validate({k: v}, "[tool.shlo-lint.options]"))
                except _options.OptionError as e:
                    raise ConfigError(f"{where(k, TABLE + '.options')}: {e}") from None
            value = converted
        elif key in _ENUMS and value not in _ENUMS[key]:
            raise ConfigError(f"{where(key)}: `{key}` must be one of {', '.join(_ENUMS[key])}")
        kwargs[name] = value
    return Config(**kwargs)
