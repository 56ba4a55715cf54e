"""Settings: `[tool.shlo-lint]` in the nearest pyproject.toml; command-line flags win."""
from __future__ import annotations

import sys
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib


class ConfigError(Exception):
    """A bad setting: reported, exit code 2."""


@dataclass(frozen=True)
class Config:
    select: tuple[str, ...] = ("ALL",)
    """Codes, code prefixes (SHLO1), categories (deadlock), rule names, or ALL."""
    ignore: tuple[str, ...] = ()
    extend_select: tuple[str, ...] = ()
    num_partitions: int | None = None
    num_replicas: int | None = None
    output_format: str = "text"
    exclude: tuple[str, ...] = ()
    """Glob patterns of paths to skip when walking directories."""
    fail_on: str = "warning"
    """Lowest severity that makes the exit code 1: error | warning | info."""
    full_parse_limit: int = 4_000_000
    """Files up to this many characters have every op header parsed (all syntax
    errors found); bigger files parse the ops rules read (see docs/architecture.md)."""
    options: dict[str, Any] = field(default_factory=dict)
    """Per-rule options (`[tool.shlo-lint.options]`), e.g. combiner thresholds."""
    path: str | None = None
    """The pyproject.toml these settings came from."""

    def merged(self, **overrides: Any) -> "Config":
        return replace(self, **{k: v for k, v in overrides.items() if v is not None})


_KEYS = {f.name.replace("_", "-"): f.name for f in fields(Config) if f.name != "path"}
_ENUMS = {"output-format": ("text", "json", "sarif", "github"), "fail-on": ("error", "warning", "info")}


def find_pyproject(start: Path) -> Path | None:
    """The nearest pyproject.toml at or above `start` that has a [tool.shlo-lint] table."""
    start = start.resolve()
    for d in [start, *start.parents] if start.is_dir() else [start.parent, *start.parent.parents]:
        candidate = d / "pyproject.toml"
        if candidate.is_file():
            try:
                data = tomllib.loads(candidate.read_text(encoding="utf-8"))
            except (OSError, tomllib.TOMLDecodeError, UnicodeDecodeError):
                continue
            if "shlo-lint" in data.get("tool", {}):
                return candidate
    return None


def load_config(path: Path) -> Config:
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as e:
        raise ConfigError(f"{path}: cannot read: {e}") from e
    except tomllib.TOMLDecodeError as e:
        raise ConfigError(f"{path}: invalid TOML: {e}") from e
    table = data.get("tool", {}).get("shlo-lint", {})
    return from_table(table, str(path))


def from_table(table: dict[str, Any], origin: str = "<config>") -> Config:
    kwargs: dict[str, Any] = {"path": origin}
    for key, value in table.items():
        if key not in _KEYS:
            known = ", ".join(sorted(_KEYS))
            raise ConfigError(f"{origin}: unknown setting `{key}` in [tool.shlo-lint] (known: {known})")
        name = _KEYS[key]
        if name in ("select", "ignore", "extend_select", "exclude"):
            if isinstance(value, str):
                value = [value]
            if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
                raise ConfigError(f"{origin}: `{key}` must be a list of strings")
            value = tuple(value)
        elif name in ("num_partitions", "num_replicas", "full_parse_limit"):
            if not isinstance(value, int) or isinstance(value, bool) or value < 1:
                raise ConfigError(f"{origin}: `{key}` must be a positive integer")
        elif name == "options":
            if not isinstance(value, dict):
                raise ConfigError(f"{origin}: `options` must be a table")
        elif key in _ENUMS and value not in _ENUMS[key]:
            raise ConfigError(f"{origin}: `{key}` must be one of {', '.join(_ENUMS[key])}")
        kwargs[name] = value
    return Config(**kwargs)
