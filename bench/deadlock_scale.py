"""Deadlock verdict time against the number of processes.

    python bench/deadlock_scale.py [--sizes 8,64,512,4096] [--repeat 3]
                                   [--distinct-sizes 1024,4096,16384,65536]

For each program family (built by corpus/deadlock/generate_grids.py) and each
N, times `checker.deadlock.analyze` on an already scanned module (best of
--repeat; parsing the text is not what is measured) and prints the verdict,
how it was reached, and t(N)/t(64). Target: t(4096)/t(64) <= 64 (linear) and
every verdict at 4,096 within the default time budget (deadlock-timeout-ms).

Then the all-distinct programs (every process its own class: a loop whose trip
count is the partition id around an all_reduce over singleton groups, pairs,
or the whole grid) at --distinct-sizes, printing the time per size and the
growth ratio to the previous size. Every verdict must be back within the
default budget + 1 s; the 4,096 singleton program must be decided.
"""
from __future__ import annotations

import argparse
import gc
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "corpus" / "deadlock"))

from generate_grids import all_distinct, chain, permute_loop, ring, sendrecv, sendrecv_loop  # noqa: E402

from shlo_lint.checker.analysis.process_model import DEFAULTS, analyze  # noqa: E402
from shlo_lint.checker.frontend.read import header_parser as parser  # noqa: E402
from shlo_lint.checker.frontend.stablehlo.scan import scan  # noqa: E402
from shlo_lint.checker.analysis.semantics import grid_of  # noqa: E402
from shlo_lint.checker.source.text import SourceFile  # noqa: E402

FAMILIES = {
    "send/recv ring, send first": lambda n: sendrecv(n, recv_first=False),
    "send/recv ring, recv first (deadlock)": lambda n: sendrecv(n, recv_first=True),
    "send/recv chain, recv first": lambda n: sendrecv(n, recv_first=True, pairs=chain(n)),
    "send/recv pipeline loop (4 trips)": lambda n: sendrecv_loop(n, trips=4),
    "collective_permute pipeline loop (4 trips)": lambda n: permute_loop(n, trips=4),
    "collective_permute ring loop (4 trips)": lambda n: permute_loop(n, trips=4, pairs=ring(n)),
}


DISTINCT = {
    "all distinct, singleton groups": lambda n: all_distinct(n, 1),
    "all distinct, pairs (deadlock)": lambda n: all_distinct(n, 2),
    "all distinct, whole grid (deadlock)": lambda n: all_distinct(n, n),
}


def measure(text: str, repeat: int):
    best, verdict = float("inf"), None
    for _ in range(repeat):
        module = scan(SourceFile("bench.mlir", text), parser())
        grid = grid_of(module)
        gc.collect()
        gc.disable()
        t0 = time.perf_counter()
        verdict = analyze(module, grid)
        best = min(best, time.perf_counter() - t0)
        gc.enable()
    return best, verdict


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", default="8,64,512,4096")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--distinct-sizes", default="1024,4096,16384,65536")
    ap.add_argument("--families", default="all", help="all, scale or distinct")
    args = ap.parse_args(argv)
    sizes = [int(s) for s in args.sizes.split(",")]
    budget = DEFAULTS["deadlock-timeout-ms"] / 1000
    worst = 0.0
    if args.families in ("all", "scale"):
        print(f"{'program':44s} {'N':>5s} {'verdict':>13s} {'method':>12s} {'t (s)':>8s} {'t(N)/t(64)':>10s}")
    for name, build in (FAMILIES.items() if args.families in ("all", "scale") else ()):
        times: dict[int, float] = {}
        for n in sizes:
            t, v = measure(build(n), args.repeat)
            times[n] = t
            ratio = f"{t / times[64]:.1f}" if 64 in times else "-"
            print(f"{name:44s} {n:5d} {v.status:>13s} {v.method:>12s} {t:8.3f} {ratio:>10s}")
            if n == 4096 and 64 in times:
                worst = max(worst, t / times[64])
            if t > budget:
                print(f"  !! over the default budget ({budget:.0f} s)")
    if worst:
        print(f"\nworst t(4096)/t(64) = {worst:.1f} (target <= 64)")
    if args.families in ("all", "distinct"):
        distinct([int(s) for s in args.distinct_sizes.split(",")], budget)
    return 0


def distinct(sizes: list[int], budget: float) -> None:
    print(f"\n{'all-distinct program':40s} {'N':>6s} {'verdict':>13s} {'method':>12s} {'t (s)':>8s} "
          f"{'ratio':>6s}  reason")
    for name, build in DISTINCT.items():
        prev = None
        for n in sizes:
            t, v = measure(build(n), 1)
            ratio = f"{t / prev:.1f}" if prev else "-"
            reason = (v.reason or "")[:60] if v.status == "unknown" else ""
            print(f"{name:40s} {n:6d} {v.status:>13s} {v.method:>12s} {t:8.3f} {ratio:>6s}  {reason}")
            if t > budget + 1:
                print(f"  !! over the default budget + 1 s ({budget + 1:.0f} s)")
            prev = t


if __name__ == "__main__":
    sys.exit(main())
