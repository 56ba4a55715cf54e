"""Throughput: shlo-lint against jaxlib's MLIR parse+verify of the same text.

    python bench/throughput.py [FILES...] [--small DIR] [--sample 300] [--repeat N] [--no-big]

Rows, all in one run and one process:

* each big module (default corpus/big/transformer_{2,9,30}mb.mlir; make them
  with `python corpus/generate.py --no-small --big corpus/big`);
* a sample of small files, linted one after the other (default: the JAX exports
  of corpus/real/; `--small DIR` takes up to `--sample` *.mlir files of DIR,
  every k-th in sorted order, e.g. StableHLO's testdata: `git -C STABLEHLO
  archive HEAD stablehlo/testdata | tar -x -C /tmp/x` then `--small
  /tmp/x/stablehlo/testdata`). Files jaxlib itself rejects are left out (counted).

Columns: jaxlib's parse+verify (`ir.Module.parse` in a context with the
StableHLO dialects registered, then `verify()`), and `lint_text` in the default
mode (`full-parse-limit` 4 MB: bigger files get only the op headers rules
read parsed) and with every op header parsed (`full-parse-limit` unlimited), as
ratios lint/jaxlib (< 1: faster than jaxlib). Each timing is the best of
`--repeat`, the three measured alternately so that load drifts hit them alike;
the Lark parser is built before timing (as in a long-lived process: LSP, -j
workers, a pre-commit batch). Needs the `jax` extra. These machines are shared
and noisy: read the ratios, and the load average printed with them.
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
from shlo_lint.checker.frontend.read import header_parser as parser  # noqa: E402
from shlo_lint.checker.frontend.stablehlo.parse.cache import clear_shared  # noqa: E402

DEFAULT = [ROOT / "corpus" / "big" / f"transformer_{n}mb.mlir" for n in (2, 9, 30)]
UNLIMITED = 10**12


def jaxlib_parse_verify():
    """fn(texts) parsing and verifying each text in one fresh MLIR context."""
    os.environ.setdefault("JAX_PLATFORMS", "cpu")
    from jax._src.interpreters import mlir
    from jax._src.lib.mlir import ir

    def run(texts: list[str]) -> None:
        ctx = mlir.make_ir_context()
        for text in texts:
            module = ir.Module.parse(text, context=ctx)
            assert module.operation.verify()

    def accepts(text: str) -> bool:
        try:
            run([text])
            return True
        except Exception:  # noqa: BLE001 - a file jaxlib rejects is not a fair sample
            return False

    return run, accepts


def lint_all(config: Config):
    def run(texts: list[str]) -> None:
        for i, text in enumerate(texts):
            lint_text(text, f"bench{i}.mlir", config)

    return run


def timed(fn, texts: list[str]) -> float:
    clear_shared()  # each pass starts with no header shared from the previous one
    gc.collect()
    t0 = time.perf_counter()
    fn(texts)
    # Freeing what the pass made is part of it: jaxlib frees each module inside its
    # pass, and lint_text takes its IR apart before it returns (engine.release_ir);
    # before that, a lint left its IR to a later collection, outside the timing.
    gc.collect()
    return time.perf_counter() - t0


def small_sample(directory: Path, n: int) -> list[Path]:
    files = sorted(directory.rglob("*.mlir"))
    step = max(1, len(files) // n) if n else 1
    return files[::step][:n] if n else files


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("files", nargs="*", type=Path, help="big modules (default corpus/big/transformer_*mb.mlir)")
    ap.add_argument("--small", type=Path, default=ROOT / "corpus" / "real", help="directory of small files")
    ap.add_argument("--sample", type=int, default=300, help="at most this many small files (0: all)")
    ap.add_argument("--no-big", action="store_true", help="only the small-file sample")
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    try:
        jax_run, jax_accepts = jaxlib_parse_verify()
    except ImportError:
        print("the baseline needs jax: pip install -e .[jax]", file=sys.stderr)
        return 2

    rows: list[tuple[str, list[str]]] = []
    if not args.no_big:
        big = args.files or [f for f in DEFAULT if f.exists()]
        if not big:
            print("note: no corpus/big/ (python corpus/generate.py --no-small --big corpus/big)", file=sys.stderr)
        rows += [(f.name, [f.read_text(encoding="utf-8")]) for f in big]
    small = small_sample(args.small, args.sample)
    texts = [f.read_text(encoding="utf-8") for f in small]
    kept = [t for t in texts if jax_accepts(t)]
    if kept:
        rows.append((f"{len(kept)} small files ({args.small.name}/)", kept))
    if len(kept) < len(texts):
        print(f"note: {len(texts) - len(kept)} of the {len(texts)} small files are rejected by jaxlib; left out",
              file=sys.stderr)

    parser()  # built once, before timing
    # What lives for the whole run (jax, the parser, the texts) is kept out of the
    # collector's walk: the collection inside each timed pass frees that pass's
    # garbage, it does not re-walk a heap that jax's import made big (~40 ms).
    gc.collect()
    gc.freeze()
    default_run = lint_all(Config())
    full_run = lint_all(Config(full_parse_limit=UNLIMITED))
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores; best of {args.repeat}")
    print(f"{'input':<32} {'MB':>6} {'jaxlib s':>9} {'MB/s':>6} {'default s':>10} {'default/jaxlib':>15} "
          f"{'full s':>8} {'full/jaxlib':>12}")
    for name, group in rows:
        mb = sum(len(t.encode()) for t in group) / 1e6
        t_jax = t_def = t_full = float("inf")
        for _ in range(args.repeat):
            t_jax = min(t_jax, timed(jax_run, group))
            t_def = min(t_def, timed(default_run, group))
            t_full = min(t_full, timed(full_run, group))
        print(f"{name:<32} {mb:>6.2f} {t_jax:>9.3f} {mb / t_jax:>6.1f} {t_def:>10.3f} {t_def / t_jax:>15.2f} "
              f"{t_full:>8.3f} {t_full / t_jax:>12.2f}", flush=True)
    print("\ndefault: full-parse-limit 4 MB (bigger files: only the op headers rules read are parsed);"
          "\nfull: every op header parsed (full-parse-limit unlimited); ratio < 1: faster than jaxlib.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
