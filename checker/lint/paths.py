"""Path globs, as `exclude` and `per-file-ignores` use them.

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
