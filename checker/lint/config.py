"""Settings: `[tool.shlo-lint]` in the nearest pyproject.toml; command-line flags win.

A configuration that cannot be read or validated is a ConfigError naming the
file, the line and the key (exit code 2), with the setting it most likely
misspells: a silently ignored table would bring back ignored codes or drop
selected ones without a word.
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
from .suggest import did_you_mean

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

TABLE = "tool.shlo-lint"


class ConfigError(ValueError):
    """A bad setting: reported, exit code 2 (a ValueError for library callers).

    `path`, `line`, `column` (1-based) say where it is written when it comes from a
    file (the editor marks that line); str() is `path:line:col: message`, as the
    command line prints it, and `message` the part after the place."""

    def __init__(self, message: str, path: str | None = None, line: int | None = None, column: int | None = None):
        self.message = message
        self.path = str(path) if path is not None else None
        self.line = line
        self.column = column
        place = ":".join(str(x) for x in (self.path, line, column if line else None) if x is not None)
        super().__init__(f"{place}: {message}" if place else message)

    def __reduce__(self):  # pickled (worker processes) with its place
        return type(self), (self.message, self.path, self.line, self.column)


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
    root: str | None = None
    """The directory `exclude` and `per-file-ignores` globs are relative to: that of the
    pyproject.toml found above the files (as ruff resolves them); None, the current
    directory (no file, or one named by `--config`, as ruff does too)."""
    communication: bool = False
    """Count each file's communication per step (FileResult.communication, docs/hlo.md
    "Where the communication time goes"): what `--statistics` and the JSON and HTML
    reports show. Set by the run, not a setting of pyproject.toml."""

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
            names = [f.name for f in fields(Config) if f.name not in _NOT_SETTINGS]
            raise ConfigError(f"unknown setting{'s' if len(unknown) > 1 else ''} {', '.join(unknown)}"
                              f"{did_you_mean(unknown[0], names)} (known: {', '.join(names)})")
        return replace(self, **{k: v for k, v in overrides.items() if v is not None})

    def ignores_for(self, path: str) -> tuple[str, ...]:
        """ignore + extend-ignore + the per-file ignores whose glob matches `path`."""
        extra = tuple(s for glob, sels in self.per_file_ignores if matches(path, glob, self.root) for s in sels)
        return self.ignore + self.extend_ignore + extra


_NOT_SETTINGS = ("path", "root", "communication")
"""Config fields that say where the settings came from or what the run reports, not settings."""
_KEYS = {f.name.replace("_", "-"): f.name for f in fields(Config) if f.name not in _NOT_SETTINGS}
_ENUMS = {"output-format": tuple(FORMATS), "fail-on": ("error", "warning", "info")}
_LISTS = ("select", "ignore", "extend_select", "extend_ignore", "exclude")


def _toml_error(path: Path, text: str, e: Exception) -> ConfigError:
    """`pyproject.toml:5:19: invalid TOML: Cannot overwrite a value (key `select`)`: the place
    tomllib gives in its message ("at line 5, column 19", or "at end of document": the
    end of the last line) becomes the error's place."""
    msg = str(e)
    lines = text.splitlines()
    m = re.search(r"\s*\(at line (\d+), column (\d+)\)", msg)
    if m is not None:
        line, column = int(m.group(1)), int(m.group(2))
        msg = msg[:m.start()] + msg[m.end():]
    elif (m := re.search(r"\s*\(at end of document\)", msg)) is not None:
        msg = msg[:m.start()] + msg[m.end():]
        line = max((i for i, ln in enumerate(lines, 1) if ln.strip()), default=1)
        column = len(lines[line - 1]) + 1 if lines else 1
    else:
        return ConfigError(f"invalid TOML: {msg}", path)
    key = ""
    if 1 <= line <= len(lines):
        km = re.match(r"\s*([\w\"'.-]+)\s*=", lines[line - 1]) or re.match(r"\s*\[+\s*([^\]]+)\]", lines[line - 1])
        if km:
            key = f" (key `{km.group(1).strip()}`)"
    hint = " — a key may appear only once per table" if "overwrite" in msg or "twice" in msg else ""
    return ConfigError(f"invalid TOML: {msg}{key}{hint}", path, line, column)


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


def error_at(message: str, origin: str | None, text: str | None, key: str, table: str = TABLE,
             value: str | None = None) -> ConfigError:
    """ConfigError `message` placed at the line of `text` that sets `key` in `table`
    (at `value` written as a quoted string there or on the lines after it, if
    given: an entry of a list), or at no line when the text or the key is not found."""
    line = locate(text, key, table) if text is not None else None
    column = None
    if line is not None:
        lines = text.splitlines()
        written = lines[line - 1]
        column = len(written) - len(written.lstrip()) + 1
        if value is not None:
            quoted = re.compile("[\"']" + re.escape(value) + "[\"']")
            for k in range(line, len(lines) + 1):
                if k > line and re.match(r"\s*(\[|[\w\"'.-]+\s*=)", lines[k - 1]):
                    break  # the next key or table: the value is not written as such
                if (m := quoted.search(lines[k - 1])) is not None:
                    line, column = k, m.start() + 1
                    break
    return ConfigError(message, origin, line, column)


def error_in_file(message: str, path: str | None, key: str, table: str = TABLE,
                  value: str | None = None) -> ConfigError:
    """error_at for a setting of the file at `path`, read again (an error path only)."""
    text = None
    if path is not None:
        try:
            text = Path(path).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            pass
    return error_at(message, path, text, key, table, value)


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
                raise ConfigError(f"cannot read: {e}", candidate) from e
            try:
                data = tomllib.loads(text)
            except tomllib.TOMLDecodeError as e:
                if "shlo-lint" in text:
                    raise _toml_error(candidate, text, e) from e
                continue
            if "shlo-lint" in data.get("tool", {}):
                return candidate
    return None


def load_config(path: Path, named: bool = False) -> Config:
    """The settings of `path`'s [tool.shlo-lint]; their globs are relative to its
    directory, or (`named`: given with --config) to the current directory."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise ConfigError(f"cannot read: {e}", path) from e
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise _toml_error(path, text, e) from e
    table = data.get("tool", {}).get("shlo-lint", {})
    if not isinstance(table, dict):
        raise ConfigError("`tool.shlo-lint` must be a table", path, locate(text, "shlo-lint", "tool"))
    config = from_table(table, str(path), text)
    return config if named else replace(config, root=str(Path(path).resolve().parent))


def from_table(table: dict[str, Any], origin: str = "<config>", text: str | None = None) -> Config:
    def error(message: str, key: str, sub: str = TABLE) -> ConfigError:
        return error_at(message, origin, text, key, sub)

    kwargs: dict[str, Any] = {"path": origin}
    for key, value in table.items():
        if key not in _KEYS:
            raise error(f"unknown setting `{key}` in [tool.shlo-lint]{did_you_mean(key, _KEYS)} "
                        f"(known: {', '.join(sorted(_KEYS))})", key)
        name = _KEYS[key]
        if name in _LISTS:
            if isinstance(value, str):
                value = [value]
            if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
                raise error(f"`{key}` must be a list of strings", key)
            value = tuple(value)
        elif name in ("num_partitions", "num_replicas", "full_parse_limit"):
            if not isinstance(value, int) or isinstance(value, bool) or value < 1:
                raise error(f"`{key}` must be a positive integer", key)
        elif name == "force_exclude":
            if not isinstance(value, bool):
                raise error(f"`{key}` must be true or false", key)
        elif name == "per_file_ignores":
            if not isinstance(value, dict):
                raise error("`per-file-ignores` must be a table of glob = [codes]", key)
            pairs = []
            for glob, sels in value.items():
                if isinstance(sels, str):
                    sels = [sels]
                if not isinstance(sels, list) or not all(isinstance(s, str) for s in sels):
                    raise error(f"per-file-ignores `{glob}` must be a list of codes", glob,
                                TABLE + ".per-file-ignores")
                pairs.append((glob, tuple(sels)))
            value = tuple(pairs)
        elif name == "options":
            if not isinstance(value, dict):
                raise error("`options` must be a table", key)
            converted = {}
            for k, v in value.items():
                try:
                    converted.update(_options.validate({k: v}, "[tool.shlo-lint.options]"))
                except _options.OptionError as e:
                    raise error(str(e), k, TABLE + ".options") from None
            value = converted
        elif key in _ENUMS and value not in _ENUMS[key]:
            raise error(f"`{key}` must be one of {', '.join(_ENUMS[key])}", key)
        kwargs[name] = value
    return Config(**kwargs)
