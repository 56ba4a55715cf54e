"""What `check_hosts` costs one process, against linting the same module.

    python bench/hosts_signature.py [FILE ...]     # default: corpus/big/transformer_30mb.mlir
                                                    # (python corpus/generate.py --no-small --big corpus/big)

Prints, per file, the lint time (`lint_source`, warm) and as a share of it:

* the program digest: all `check_hosts` computes when every process runs the
  same program (round 1 of its exchange);
* the signature from the module already read (signature.signature_of: the
  collectives in order with what they compute, operand fingerprints, device
  lists, Python lines), and reading the text into the IR plus the structure
  walk that it needs when nothing else has read the module;
* the signature's JSON size against the text's.

Each number is the best of `--repeat` runs (default 5): this machine is shared.
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT.parent))


def best(fn, repeat: int) -> tuple[float, object]:
    out, got = float("inf"), None
    for _ in range(repeat):
        t = time.perf_counter()
        got = fn()
        out = min(out, time.perf_counter() - t)
    return out, got


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("files", nargs="*", default=[str(ROOT / "corpus" / "big" / "transformer_30mb.mlir")])
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    from shlo_lint.checker.analysis.process_model.signature import program_digest, signature_of
    from shlo_lint.checker.analysis.tracer.structure import structure
    from shlo_lint.checker.frontend.read import read_module
    from shlo_lint.checker.lint.config import Config
    from shlo_lint.checker.lint.engine import lint_source
    from shlo_lint.checker.source.text import SourceFile

    lint_source(SourceFile("warm.mlir", "module {}"), Config())
    for f in args.files:
        text = Path(f).read_text()
        lint, _ = best(lambda: lint_source(SourceFile(f, text), Config()), args.repeat)
        digest, d = best(lambda: program_digest(text), args.repeat)
        read, walk, sign, sig = float("inf"), float("inf"), float("inf"), None
        for _ in range(args.repeat):  # a fresh module each time: no header parsed by the run before
            t0 = time.perf_counter()
            module = read_module(SourceFile(f, text))
            t1 = time.perf_counter()
            struct = structure(module)
            t2 = time.perf_counter()
            sig = signature_of(module, None, struct=struct, digest=d)
            t3 = time.perf_counter()
            read, walk, sign = min(read, t1 - t0), min(walk, t2 - t1), min(sign, t3 - t2)
        size = len(sig.dumps())
        print(f"{Path(f).name}: {len(text) / 1e6:.1f} MB, lint {lint:.2f} s")
        print(f"  digest (identical programs: all check_hosts computes)  {digest:.3f} s  {digest / lint:6.1%}")
        print(f"  signature from the module read                         {sign:.3f} s  {sign / lint:6.1%}")
        print(f"  read + structure + signature (nothing read before)     {read + walk + sign:.3f} s  "
              f"{(read + walk + sign) / lint:6.1%}")
        print(f"  signature: {len(sig.ops)} ops, {len(sig.steps)} steps, {len(sig.classes)} class(es), "
              f"{size / 1e6:.2f} MB JSON ({size / len(text):.1%} of the text)")


if __name__ == "__main__":
    main()
