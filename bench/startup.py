"""Start-up cost of a one-file run (what a pre-commit hook pays), against the interpreter's own.

    python bench/startup.py [FILE] [--repeat 9] [--imports 15]

Runs, interleaved so that machine load hits both alike, `python -c pass` and
`python -m shlo_lint --isolated FILE` (the same as the `shlo-lint` console
script: both import shlo_lint.checker.cli and call main), each `--repeat` times,
and prints the best and the median of each and the difference (target: the
best difference ≤ 0.25 s). FILE defaults to a small JAX export of corpus/real/.
With `--imports N` it also prints the N slowest imports of one run
(`python -X importtime`, cumulative microseconds) and the heavy libraries the
run loaded (it should load none of z3, jax, pygls, sarif_om for a clean file).
Bytecode caches are written and used, as in an installed package, even where
PYTHONDONTWRITEBYTECODE is set.
"""
from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DEFAULT = ROOT / "corpus" / "real" / "all_gather.mlir"
HEAVY = ("z3", "jax", "jaxlib", "pygls", "lsprotocol", "sarif_om", "numpy", "importlib.metadata", "multiprocessing")


# As installed (pip compiles bytecode): PYTHONDONTWRITEBYTECODE, set in some
# environments, would make every run compile shlo-lint's ~25k lines (~0.3 s).
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def _time(cmd: list[str]) -> float:
    t = time.perf_counter()
    subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False, cwd=ROOT, env=ENV)
    return time.perf_counter() - t


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("file", nargs="?", default=str(DEFAULT))
    ap.add_argument("--repeat", type=int, default=9)
    ap.add_argument("--imports", type=int, default=0, metavar="N")
    args = ap.parse_args()

    bare = [sys.executable, "-c", "pass"]
    lint = [sys.executable, "-m", "shlo_lint", "--isolated", args.file]
    _time(lint)  # writes the bytecode caches
    base, ours = [], []
    for _ in range(args.repeat):
        base.append(_time(bare))
        ours.append(_time(lint))
    size = Path(args.file).stat().st_size
    print(f"file: {args.file} ({size} bytes), best / median of {args.repeat}")
    print(f"python -c pass        {min(base):6.3f} s / {statistics.median(base):6.3f} s")
    print(f"shlo-lint FILE        {min(ours):6.3f} s / {statistics.median(ours):6.3f} s")
    print(f"difference            {min(ours) - min(base):6.3f} s / "
          f"{statistics.median(ours) - statistics.median(base):6.3f} s   (target: best ≤ 0.250 s)")

    if args.imports:
        probe = ("import sys, runpy\nsys.argv = ['shlo-lint', '--isolated', %r]\n"
                 "try:\n    runpy.run_module('shlo_lint', run_name='__main__')\nexcept SystemExit:\n    pass\n"
                 "print('LOADED', sorted(m for m in %r if m in sys.modules), file=sys.stderr)\n") % (args.file, HEAVY)
        err = subprocess.run([sys.executable, "-X", "importtime", "-c", probe], capture_output=True, text=True,
                             cwd=ROOT, env=ENV, check=False).stderr.splitlines()
        rows = []
        for line in err:
            if line.startswith("import time:") and "|" in line:
                _self, cum, name = line[len("import time:"):].split("|")
                if cum.strip().isdigit():
                    rows.append((int(cum), name.rstrip()))
        print(f"\nslowest imports (cumulative µs, -X importtime, one run):")
        for cum, name in sorted(rows, reverse=True)[:args.imports]:
            print(f"{cum:>9}  {name}")
        print(next((line for line in err if line.startswith("LOADED")), "LOADED ?"))


if __name__ == "__main__":
    main()
