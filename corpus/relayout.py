#!/usr/bin/env python
"""Re-print corpus programs in other line layouts (corpus/layout/).

MLIR ignores line breaks, so a linter must too. For each program below this
writes two files with the same tokens in the same order:

* ``<base>.oneline.mlir`` — the whole module on one line (comments dropped);
* ``<base>.split.mlir`` — every op broken across lines: a newline after each
  top-level-of-the-op ``,`` and before each `` : `` and after each `` -> ``,
  outside strings.

    python corpus/relayout.py          # rewrites corpus/layout/

tests/test_layout.py checks the files are what this script prints and that
each lints to the same findings as its original.
"""
from __future__ import annotations

import re
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
SOURCES = ["real/cond_axis_index_psum.buggy_deadlock.mlir", "real/sendrecv_pair.buggy_type_mismatch.mlir",
           "real/gpipe_at_set.mlir", "real/tp_mlp_grad.mlir", "real/psum.generic.mlir",
           "real/psum.debug.mlir", "real/sendrecv_pair.debug.mlir"]

_PIECES = re.compile(r'"(?:[^"\\\n]|\\.)*"|//[^\n]*|[^"/]+|/')


def one_line(text: str) -> str:
    out = []
    for piece in _PIECES.findall(text):
        if piece.startswith("//"):
            continue
        out.append(piece if piece.startswith('"') else re.sub(r"\s*\n\s*", " ", piece))
    return "".join(out).strip() + "\n"


def split(text: str) -> str:
    out = []
    for piece in _PIECES.findall(text):
        if piece.startswith(('"', "//")):
            out.append(piece)
            continue
        piece = piece.replace(", ", ",\n      ").replace(" : ", "\n      : ").replace(" -> ", " ->\n      ")
        out.append(piece)
    return "".join(out)


def outputs() -> dict[str, str]:
    files = {}
    for rel in SOURCES:
        text = (HERE / rel).read_text()
        base = Path(rel).name[:-len(".mlir")]
        files[f"{base}.oneline.mlir"] = one_line(text)
        files[f"{base}.split.mlir"] = split(text)
    return files


def main() -> int:
    out = HERE / "layout"
    out.mkdir(exist_ok=True)
    for name, text in outputs().items():
        (out / name).write_text(text)
        print(f"wrote {out / name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
