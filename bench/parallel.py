"""Files per second for `shlo-lint -j 1` and `-j auto` on a directory of exports.

    python bench/parallel.py [--dir DIR] [--copies 9] [--repeat 3]

Without --dir: corpus/many/ when it exists (618 distinct JAX exports, made by
`python corpus/many.py`: every corpus program at other sizes and element
types), else a temporary folder of `--copies` copies of every program in
corpus/real/ (90 JAX exports → 810 files; `--copies N` forces this). Copies
flatter `-j 1`: its one process's cross-file header cache hits on every copy
after the first, where each worker warms its own cache. Each
setting runs the real CLI in a subprocess (interpreter start, imports and the
worker pool included), best of `--repeat`; the two outputs must be identical.
Prints files/s for each and the ratio (machines are noisy: compare ratios, and
run it on an otherwise idle machine), and the ratio's ceiling on this machine:
the serial part (interpreter start, imports, loading the rules: a run on one
tiny file, best of `--repeat`) cannot be shared, so with `-j 1` taking T and
the serial part S, no overhead at all would give T / (S + (T - S) / cores).
"""
from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def build(copies: int, into: Path) -> int:
    n = 0
    for i in range(copies):
        d = into / f"copy{i}"
        d.mkdir(parents=True)
        for f in sorted((ROOT / "corpus" / "real").glob("*.mlir")):
            shutil.copy(f, d / f.name)
            n += 1
    return n


def run(jobs: str, where: Path) -> tuple[float, str]:
    t = time.perf_counter()
    out = subprocess.run([sys.executable, "-m", "shlo_lint", "-j", jobs, "--isolated", "-q", str(where)],
                         capture_output=True, text=True, env={**os.environ, "NO_COLOR": "1"}, check=False)
    return time.perf_counter() - t, out.stdout


def serial_part() -> float:
    """One run of the CLI on a one-op file: interpreter start, imports, rules."""
    with tempfile.TemporaryDirectory() as tmp:
        tiny = Path(tmp) / "one.mlir"
        tiny.write_text("func.func @main(%x: tensor<f32>) -> tensor<f32> {\n  return %x : tensor<f32>\n}\n")
        return run("1", tiny)[0]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--dir", type=Path)
    ap.add_argument("--copies", type=int, default=None, help="copies of corpus/real (default 9)")
    ap.add_argument("--repeat", type=int, default=3)
    a = ap.parse_args()
    many = ROOT / "corpus" / "many"
    if a.dir is None and a.copies is None and any(many.glob("*.mlir")):
        a.dir = many
    with tempfile.TemporaryDirectory() as tmp:
        where = a.dir or Path(tmp)
        files = sum(1 for _ in where.rglob("*.mlir")) if a.dir else build(a.copies or 9, where)
        print(f"directory: {where if a.dir else f'{a.copies or 9} copies of corpus/real'}")
        best: dict[str, float] = {}
        outputs: dict[str, str] = {}
        serial = min(serial_part() for _ in range(a.repeat))
        for _ in range(a.repeat):
            for jobs in ("1", "auto"):
                dt, out = run(jobs, where)
                best[jobs] = min(best.get(jobs, dt), dt)
                outputs[jobs] = out
        same = outputs["1"] == outputs["auto"]
        cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
        print(f"{files} files, {cores} cores, best of {a.repeat}")
        for jobs in ("1", "auto"):
            print(f"  -j {jobs:<4}  {best[jobs]:6.2f} s  {files / best[jobs]:7.1f} files/s")
        print(f"  -j auto / -j 1: {best['1'] / best['auto']:.2f}x   identical output: {same}")
        t1 = best["1"]
        print(f"  serial part {serial:.2f} s: ceiling with no overhead "
              f"{t1 / (serial + (t1 - serial) / cores):.2f}x on {cores} cores")


if __name__ == "__main__":
    main()
