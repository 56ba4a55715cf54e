"""Files and directories in, one FileResult per file: what `shlo-lint PATHS` and the
library's `lint_paths` check. Directories are walked in sorted order for the files
lint/paths.py PROGRAM_FILES names (`*.mlir`, and XLA's `*.hlo`, `*.hlo.txt` and
`--xla_dump_to` modules), `exclude` globs skipped; the files are linted in this
process or on every core (parallel.py)."""
from __future__ import annotations

import os
from typing import Iterable, Iterator

from ..lint.config import Config
from ..lint.engine import FileResult
from ..lint.selection import check_selectors
from ..lint.paths import excluded, program_file
from .parallel import auto_jobs, is_auto, lint_files, resolve_jobs


def iter_files(paths: Iterable[str], exclude: Iterable[str] = (), force_exclude: bool = False) -> Iterator[str]:
    """Explicit files as given (skipped too when force_exclude and they match an
    `exclude` glob); directories walked for program files (lint/paths.py
    PROGRAM_FILES), skipping `exclude` globs."""
    patterns = list(exclude)

    def skipped(p: str) -> bool:
        return excluded(p, patterns)

    for p in paths:
        if p != "-" and os.path.isdir(p):
            for root, dirs, files in os.walk(p):
                dirs[:] = sorted(d for d in dirs if not d.startswith(".") and not skipped(os.path.join(root, d)))
                for f in sorted(files):
                    full = os.path.join(root, f)
                    if program_file(f) and not skipped(full):
                        yield os.path.normpath(full)  # `shlo-lint .` reports model/x.mlir, not ./model/x.mlir
        elif p == "-":
            yield p
        elif not (force_exclude and skipped(p)):
            yield os.path.normpath(p)


def lint_paths(paths: Iterable[str], config: Config | None = None, jobs: int | str | None = 1) -> list[FileResult]:
    """Lint files and directories; one FileResult per file, in walk order. `jobs`:
    worker processes (`"auto"`/None: every core; results from workers carry no IR,
    `module` is None — see parallel.py)."""
    config = config or Config()
    check_selectors(config)
    files = list(iter_files(paths, config.exclude, config.force_exclude))
    n = resolve_jobs(jobs)
    return list(lint_files(files, config, auto_jobs(files, n) if is_auto(jobs) else n))
