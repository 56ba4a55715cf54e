"""Path globs, as `exclude` and `per-file-ignores` use them, and which files a
directory walk takes.

A pattern matches a path (as given on the command line or found by walking)
when it matches the whole path, its file name, any trailing part of it, or a
directory the path lies in: `generated`, `*.gen.mlir`, `model/gen/*` and
`**/gen/*.mlir` all do what they say. fnmatch's `*` crosses `/`, so `**` is `*`.
"""
from __future__ import annotations

import fnmatch
import os


def matches(path: str, pattern: str) -> bool:
    norm = os.path.normpath(path).replace(os.sep, "/")
    pat = pattern.replace("**/", "*/").rstrip("/")
    if pat.startswith("./"):
        pat = pat[2:]
    return (fnmatch.fnmatch(norm, pat) or fnmatch.fnmatch(os.path.basename(norm), pat)
            or fnmatch.fnmatch(norm, f"*/{pat}") or fnmatch.fnmatch(norm, f"{pat}/*")
            or fnmatch.fnmatch(norm, f"*/{pat}/*"))


def excluded(path: str, patterns) -> bool:
    return any(matches(path, p) for p in patterns)


PROGRAM_FILES = ("*.mlir", "*.hlo", "*.hlo.txt", "*after_optimizations*.txt", "*before_optimizations*.txt")
"""The file names a directory walk takes: StableHLO (`*.mlir`) and XLA's HLO text
(`*.hlo`, `*.hlo.txt`, and the modules `XLA_FLAGS=--xla_dump_to=DIR` writes:
`module_0000.jit_f.before_optimizations.txt`, `...cpu_after_optimizations.txt`).
A file named on the command line is read whatever its name; what it holds is
told by its content (frontend/hlo/scan.py looks_like_hlo)."""

_DUMP_SIDE_FILES = ("-buffer-assignment", "-memory-usage-report", "-live-range")
"""What --xla_dump_to writes next to an `*after_optimizations.txt` module that is no
HLO module (`...cpu_after_optimizations-buffer-assignment.txt`)."""


def program_file(name: str) -> bool:
    """Is a file of this name (no directory) one a directory walk takes (PROGRAM_FILES)?"""
    if name.endswith(".mlir") or name.endswith(".hlo") or name.endswith(".hlo.txt"):
        return True
    return (name.endswith(".txt") and ("after_optimizations" in name or "before_optimizations" in name)
            and not any(side in name for side in _DUMP_SIDE_FILES))
