"""The settings a document is linted with in the editor, and what is wrong with them.

The command line stops at a broken `[tool.shlo-lint]` (exit 2). An editor must go on
linting, and must not quietly drop the table either (an ignored code would come back
with nothing saying why). `Settings.resolve(path)` gives the Config of the nearest
pyproject.toml above a document; when that file is broken (invalid TOML, an unknown
key, a bad value, a selector that matches no rule) it gives the settings last read
from that same file without error, or the defaults if it never was, with the
ConfigError and which of the two was used. The server shows the error at its line
of the pyproject.toml and in a message (server.py).
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ..lint.config import Config, ConfigError, find_pyproject, load_config
from ..lint.selection import check_selectors


@dataclass(frozen=True)
class Resolved:
    config: Config
    """What to lint with."""
    error: ConfigError | None = None
    """Why the nearest pyproject.toml's settings could not be used (its path and line)."""
    fallback: str = ""
    """With an error: what `config` is instead, in words."""


class Settings:
    """The last good Config of each pyproject.toml seen (one per server, used on the
    lint worker thread only)."""

    def __init__(self) -> None:
        self.good: dict[str, Config] = {}

    def resolve(self, path: str) -> Resolved:
        found = None
        try:
            found = find_pyproject(Path(path).parent) if Path(path).is_absolute() else None
            if found is None:
                return Resolved(Config())
            config = load_config(found)
            check_selectors(config)
        except ConfigError as e:
            return self._instead(e)
        except OSError as e:
            return self._instead(ConfigError(f"cannot read: {e}", str(found) if found else None))
        self.good[str(found)] = config
        return Resolved(config)

    def _instead(self, error: ConfigError) -> Resolved:
        good = self.good.get(error.path) if error.path else None
        if good is not None:
            return Resolved(good, error, "the settings this file had when it was last valid")
        return Resolved(Config(), error, "the default settings: this file has not been valid since the editor "
                                         "started the server")
