"""Throughput: shlo-lint against jaxlib's MLIR parse+verify of the same text.

    python bench/throughput.py [FILES...] [--repeat N]

Defaults to corpus/big/transformer_{2,9,30}mb.mlir (make them with
`python corpus/generate.py --no-small`). Both are timed in this one process and
run, alternating, best of N, and the ratio lint/jaxlib is what to read: these
machines are noisy, absolute times drift. Needs the `jax` extra for the baseline.
"""
from __future__ import annotations

import argparse
import gc
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from shlo_lint import Config, lint_text  # noqa: E402
from shlo_lint.checker.engine import parser  # noqa: E402
from shlo_lint.checker.scan import scan  # noqa: E402
from shlo_lint.checker.source import SourceFile  # noqa: E402

DEFAULT = [ROOT / "corpus" / "big" / f"transformer_{n}mb.mlir" for n in (2, 9, 30)]


def jaxlib_parse_verify():
    os.environ.setdefault("JAX_PLATFORMS", "cpu")
    from jax._src.interpreters import mlir
    from jax._src.lib.mlir import ir

    def run(text: str) -> None:
        ctx = mlir.make_ir_context()
        module = ir.Module.parse(text, context=ctx)
        assert module.operation.verify()

    return run


def best(fn, text: str, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        gc.collect()
        t0 = time.perf_counter()
        fn(text)
        times.append(time.perf_counter() - t0)
    return min(times)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("files", nargs="*", type=Path)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    files = args.files or [f for f in DEFAULT if f.exists()]
    if not files:
        print("no input: run `python corpus/generate.py --no-small` to make corpus/big/", file=sys.stderr)
        return 2
    try:
        baseline = jaxlib_parse_verify()
    except ImportError:
        print("the baseline needs jax: pip install -e .[jax]", file=sys.stderr)
        return 2
    parser()  # build the Lark parser once, as a long-lived process (LSP, pre-commit batch) would
    lint_cfg = Config()
    full_cfg = Config(full_parse_limit=10**12)

    def scan_only(text: str) -> None:
        scan(SourceFile("bench.mlir", text), parser())

    print(f"{'file':<28} {'MB':>6} {'jaxlib MB/s':>12} {'lint MB/s':>10} {'lint/jaxlib':>12} "
          f"{'scan/jaxlib':>12} {'full/jaxlib':>12}")
    for f in files:
        text = f.read_text()
        mb = len(text.encode()) / 1e6
        t_jax = best(baseline, text, args.repeat)
        t_lint = best(lambda t: lint_text(t, str(f), lint_cfg), text, args.repeat)
        t_scan = best(scan_only, text, args.repeat)
        t_full = best(lambda t: lint_text(t, str(f), full_cfg), text, 1) if mb < 10 else float("nan")
        print(f"{f.name:<28} {mb:>6.1f} {mb / t_jax:>12.1f} {mb / t_lint:>10.1f} {t_lint / t_jax:>12.2f} "
              f"{t_scan / t_jax:>12.2f} {t_full / t_jax:>12.2f}")
    print("\nlint: default mode (structure of every op, full parse of the ops rules read);"
          "\nfull: every op header parsed by the Lark grammar (files < 10 MB); ratios < 1 mean faster than jaxlib.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
