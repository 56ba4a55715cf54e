"""Start-up cost of a one-file run (what a pre-commit hook pays), against the interpreter's own.

    python bench/startup.py [FILE] [--repeat 9] [--imports 15]

Runs, interleaved so that machine load hits both alike, `python -c pass` and
`python -m shlo_lint --isolated FILE` (the same as the `shlo-lint` console
script: both import shlo_lint.checker.cli.commands and call main), each `--repeat` times,
and prints the best and the median of each and the difference (target: the
best difference ≤ 0.25 s), in wall-clock time and in CPU time (user + system of
the child): on a loaded machine the wall time is mostly waiting for a core, and
the CPU time is the number that compares across runs. FILE defaults to a small JAX export of corpus/real/.
With `--imports N` it also prints the N slowest imports of one run
(`python -X importtime`, cumulative microseconds) and the heavy libraries the
run loaded (it should load none of z3, jax, pygls, sarif_om for a clean file).
Bytecode caches are written and used, as in an installed package, even where
PYTHONDONTWRITEBYTECODE is set.
"""
from __future__ import annotations

import argparse
import os
import resource
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


def _time(cmd: list[str]) -> tuple[float, float]:
    """(wall seconds, CPU seconds: user + system of the child)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False, cwd=ROOT, env=ENV)
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("file", nargs="?", default=str(DEFAULT))
    ap.add_argument("--repeat", type=int, default=9)
    ap.add_argument("--imports", type=int, default=0, metavar="N")
    args = ap.parse_args()

    bare = [sys.executable, "-c", "pass"]
    lint = [sys.executable, "-m", "shlo_lint", "--isolated", args.file]
    warm = subprocess.run(lint, capture_output=True, text=True, check=False, cwd=ROOT, env=ENV)  # writes bytecode
    if warm.returncode not in (0, 1):
        sys.exit(f"shlo-lint failed (exit {warm.returncode}): {warm.stderr.strip()[-500:]}")
    base, ours = [], []
    for _ in range(args.repeat):
        base.append(_time(bare))
        ours.append(_time(lint))
    size = Path(args.file).stat().st_size
    load = os.getloadavg()[0]
    print(f"file: {args.file} ({size} bytes), best / median of {args.repeat}; "
          f"load average {load:.1f} on {os.cpu_count()} cores")
    for i, what in ((0, "wall"), (1, "CPU (user+sys)")):
        b = [x[i] for x in base]
        o = [x[i] for x in ours]
        print(f"{what}:")
        print(f"  python -c pass      {min(b):6.3f} s / {statistics.median(b):6.3f} s")
        print(f"  shlo-lint FILE      {min(o):6.3f} s / {statistics.median(o):6.3f} s")
        print(f"  difference          {min(o) - min(b):6.3f} s / {statistics.median(o) - statistics.median(b):6.3f} s"
              f"   (target: ≤ 0.250 s)")

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
