#!/usr/bin/env python
"""Parse rate of shlo-lint's parser on upstream StableHLO text (a benchmark, not a test).

    python bench/parse_rate.py --stablehlo PATH [--limit N] [--show K] [--only testdata|tests]

PATH is a checkout (or an extracted copy) of openxla/stablehlo. Two sets:

* ``stablehlo/testdata/**/*.mlir`` — JAX exports: every file must parse with no
  syntax error (SHLO001) and no parser internal error (SHLO003).
* ``stablehlo/tests/**/*.mlir`` split at ``// -----`` — the verifier and pass
  tests; a chunk with no ``expected-error`` annotation is a valid program and
  must parse.

Only the parse is measured (scan + every op header + every block label), not the
rules. Prints counts, the rate, MB/s and the first K failures with their message.
"""
from __future__ import annotations

import argparse
import re
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from shlo_lint.checker.frontend.read import header_parser as parser  # noqa: E402
from shlo_lint.checker.frontend.stablehlo.scan import scan  # noqa: E402
from shlo_lint.checker.source.text import SourceFile  # noqa: E402

_SPLIT = re.compile(r"^// -----.*$", re.M)


def problems(name: str, text: str) -> list[str]:
    module = scan(SourceFile(name, text), parser())
    if not module.structurally_broken:
        for op in module.walk():
            op.header  # noqa: B018
            for region in op.regions:
                for block in region.blocks:
                    if block.label_span is not None:
                        block.arguments  # noqa: B018
    src = module.source
    out = []
    for kind, errors in (("SHLO001", module.syntax_errors), ("SHLO003", getattr(module, "internal_errors", ()))):
        for message, span in errors:
            line, col = src.line_col(min(span.start, len(text)))
            lines = text.splitlines()
            snippet = lines[line - 1].strip()[:120] if 0 < line <= len(lines) else ""
            out.append(f"{kind} {line}:{col} {message} | {snippet}")
    return out


def run_set(label: str, cases: list[tuple[str, str]], show: int) -> None:
    t0 = time.perf_counter()
    failed = []
    size = 0
    for name, text in cases:
        size += len(text.encode())
        try:
            found = problems(name, text)
        except Exception as e:  # a crash outside the parser's own guard
            found = [f"CRASH {type(e).__name__}: {e}"]
        if found:
            failed.append((name, found))
    dt = time.perf_counter() - t0
    n = len(cases)
    ok = n - len(failed)
    print(f"{label}: {ok}/{n} parse clean ({100.0 * ok / max(n, 1):.2f}%), "
          f"{size / 1e6:.1f} MB in {dt:.1f} s ({size / 1e6 / max(dt, 1e-9):.2f} MB/s)")
    for name, found in failed[:show]:
        print(f"  {name}: {found[0]}" + (f" (+{len(found) - 1} more)" if len(found) > 1 else ""))


def _ordered(files: list, order: str) -> list:
    if order == "reversed":
        return files[::-1]
    if order == "shuffled":
        import random
        files = list(files)
        random.Random(0).shuffle(files)
    return files


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--stablehlo", required=True, type=Path)
    ap.add_argument("--limit", type=int, default=0, help="at most N files per set (0: all)")
    ap.add_argument("--show", type=int, default=20)
    ap.add_argument("--only", choices=("testdata", "tests"))
    ap.add_argument("--order", choices=("sorted", "reversed", "shuffled"), default="sorted",
                    help="file order (the parser's caches must not make it matter)")
    args = ap.parse_args(argv)
    root = args.stablehlo / "stablehlo"
    if args.only in (None, "testdata"):
        files = _ordered(sorted((root / "testdata").rglob("*.mlir")), args.order)
        if args.limit:
            files = files[:args.limit]
        run_set("testdata (JAX exports)", [(p.name, p.read_text()) for p in files], args.show)
    if args.only in (None, "tests"):
        files = sorted((root / "tests").rglob("*.mlir"))
        if args.limit:
            files = files[:args.limit]
        chunks = []
        for p in files:
            rel = p.relative_to(root / "tests")
            for i, chunk in enumerate(_SPLIT.split(p.read_text())):
                if "expected-error" in chunk or not chunk.strip():
                    continue
                # keep offsets meaningful per chunk; the RUN/CHECK comments are comments
                chunks.append((f"{rel}#{i}", chunk))
        run_set("tests/ valid chunks", chunks, args.show)
    return 0


if __name__ == "__main__":
    sys.exit(main())
