"""Path globs, as `exclude` and `per-file-ignores` use them, and which files a
directory walk takes.

A pattern matches a path when it matches the whole path, its file name, any
trailing part of it, or a directory the path lies in: `generated`, `*.gen.mlir`,
`model/gen/*` and `**/gen/*.mlir` all do what they say. fnmatch's `*` crosses
`/`, so `**` is `*`.

The path is first made relative to `root`, the directory of the pyproject.toml
that declares the patterns (ruff resolves them so): `shlo-lint .` run from a
sub-folder skips what `model/gen/*` names, as it does from the project's top.
Without a root (no config file, or one named by --config) the path is taken as
given, relative to the current directory.
"""
from __future__ import annotations

import fnmatch
import os


def matches(path: str, pattern: str, root: str | None = None) -> bool:
    norm = os.path.normpath(from_root(path, root)).replace(os.sep, "/")
    pat = pattern.replace("**/", "*/").rstrip("/")
    if pat.startswith("./"):
        pat = pat[2:]
    return (fnmatch.fnmatch(norm, pat) or fnmatch.fnmatch(os.path.basename(norm), pat)
            or fnmatch.fnmatch(norm, f"*/{pat}") or fnmatch.fnmatch(norm, f"{pat}/*")
            or fnmatch.fnmatch(norm, f"*/{pat}/*"))


def excluded(path: str, patterns, root: str | None = None) -> bool:
    return any(matches(path, p, root) for p in patterns)


def from_root(path: str, root: str | None) -> str:
    """`path` relative to `root`; as given without a root, and absolute when it lies
    outside the root (only the file-name and trailing-part forms can match it then)."""
    if root is None:
        return path
    absolute = os.path.abspath(path)
    for candidate, base in ((absolute, root), (os.path.realpath(absolute), os.path.realpath(root))):
        relative = os.path.relpath(candidate, base)
        if relative != os.pardir and not relative.startswith(os.pardir + os.sep):
            return relative
    return absolute


PROGRAM_FILES = ("*.mlir", "*.hlo", "*.hlo.txt", "*after_optimizations*.txt", "*before_optimizations*.txt")
"""The file names a directory walk takes: StableHLO (`*.mlir`) and XLA's HLO text
(`*.hlo`, `*.hlo.txt`, and the modules `XLA_FLAGS=--xla_dump_to=DIR` writes:
`module_0000.jit_f.before_optimizations.txt`, `...cpu_after_optimizations.txt`).
A file named on the command line is read whatever its name; what it holds is
told by its content (frontend/read.py looks_like_hlo)."""

_DUMP_SIDE_FILES = ("-buffer-assignment", "-memory-usage-report", "-live-range")
"""What --xla_dump_to writes next to an `*after_optimizations.txt` module that is no
HLO module (`...cpu_after_optimizations-buffer-assignment.txt`)."""


def program_file(name: str) -> bool:
    """Is a file of this name (no directory) one a directory walk takes (PROGRAM_FILES)?"""
    if name.endswith(".mlir") or name.endswith(".hlo") or name.endswith(".hlo.txt"):
        return True
    return (name.endswith(".txt") and ("after_optimizations" in name or "before_optimizations" in name)
            and not any(side in name for side in _DUMP_SIDE_FILES))
