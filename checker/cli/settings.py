"""The settings a command runs with: the project's `[tool.shlo-lint]` (found from
the paths given, or `--config`, or none with `--isolated`) and `-O KEY=VALUE`
options. `shlo-lint check` and `shlo-lint run` read them the same way."""
from __future__ import annotations

import os
from pathlib import Path

import click

from ..lint.config import Config, find_pyproject, load_config


def parse_options(pairs: tuple[str, ...]) -> dict:
    """`-O key=value`: values read as TOML values when they parse (5000, true, "x", [1, 3]), else
    strings; lint/options.py then checks and converts them."""
    import tomllib

    out = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            raise click.BadParameter(f"`{pair}` is not KEY=VALUE", param_hint="--option")
        try:
            out[key.strip()] = tomllib.loads(f"v = {value.strip()}")["v"]
        except tomllib.TOMLDecodeError:
            out[key.strip()] = value.strip()
    return out


def project_config(paths, config_path, isolated) -> Config:
    if isolated:
        return Config()
    if config_path:
        return load_config(Path(config_path), named=True)  # its globs: relative to the current directory
    first = next((p for p in paths if p != "-"), None)
    start = Path(first) if first and os.path.exists(first) else Path.cwd()
    found = find_pyproject(start) or find_pyproject(Path.cwd())
    return load_config(found) if found else Config()


def grid_options(command):
    """`--num-partitions` / `--num-replicas`, as every command that reads a program takes
    them: the process grid, over what the module says (`mhlo.num_partitions` /
    `mhlo.num_replicas` in StableHLO, `num_partitions` / `replica_count` in an HLO
    module's header)."""
    command = click.option("--num-replicas", type=click.IntRange(min=1), default=None,
                           help="Process grid: replicas (overrides mhlo.num_replicas, or an HLO "
                                "module's replica_count).")(command)
    return click.option("--num-partitions", type=click.IntRange(min=1), default=None,
                        help="Process grid: partitions (overrides mhlo.num_partitions, or an HLO "
                             "module's num_partitions).")(command)
