"""Pathological inputs: time and peak memory of `shlo-lint` on each, at two sizes 10x apart.

    python bench/pathological.py [--small] [--only NAME ...] [--keep DIR]
                                 [--timeout SEC] [--memory-cap MB] [--json]

Each family is generated at two sizes (the second 10x the first) and checked with
`python -m shlo_lint check --isolated -f json FILE` (`run` for the loop) in a
subprocess, whose peak RSS comes from wait4() and whose address space is capped
(`--memory-cap`, so a runaway input fails alone instead of swapping the machine).
Printed per input: bytes, exit status, seconds, peak RSS, whether a diagnostic was
reported, and per family the growth ratios (time and RSS) between the sizes.

Targets (issue 15): exit 0/1/2 with a diagnostic where the input cannot be checked,
never a traceback; peak RSS <= 10 x input + 200 MB; time ratio for a 10x input <= 12.

Families (full sizes; --small divides by 10 or so):
  module        many ops in one function               10 MB, 100 MB
  long_line     one 10 MB line (a dense literal list)   1 MB, 10 MB
  deep_regions  nested stablehlo.case regions           1,000, 10,000 deep
  pairs         collective_permute source_target_pairs  10,000, 100,000 pairs (N partitions)
  grid          mhlo.num_partitions = huge, one all_reduce   2^24, 2^31 processes
  constant      dense<"0x..."> hex constant              4 MB, 40 MB
  constant_run  the same under `shlo-lint run` (the constant is decoded)
  split         `// -----` markers between 100,000 modules   10,000, 100,000
  loop          `shlo-lint run` of a 10^12-trip while    10^6, 10^12 trips (--time-limit 5)
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
HEAD = "module @m attributes {mhlo.num_partitions = %d : i32, mhlo.num_replicas = 1 : i32} {\n"


# ----------------------------------------------------------------------------- generators
def module(n_bytes: int) -> str:
    line = "    %%v%d = stablehlo.add %%v%d, %%arg0 : tensor<4xf32>\n"
    out = [HEAD % 1, "  func.func public @main(%arg0: tensor<4xf32>) -> tensor<4xf32> {\n",
           "    %v0 = stablehlo.add %arg0, %arg0 : tensor<4xf32>\n"]
    size, i = 0, 1
    while size < n_bytes:
        s = line % (i, i - 1)
        out.append(s)
        size += len(s)
        i += 1
    out.append(f"    return %v{i - 1} : tensor<4xf32>\n  }}\n}}\n")
    return "".join(out)


def long_line(n_bytes: int) -> str:
    n = max(1, n_bytes // 5)
    values = ", ".join("1.5" for _ in range(n))
    return (HEAD % 1 + f"  func.func public @main() -> tensor<{n}xf32> {{\n"
            f"    %0 = stablehlo.constant dense<[{values}]> : tensor<{n}xf32>\n"
            f"    return %0 : tensor<{n}xf32>\n  }}\n}}\n")


def deep_regions(depth: int) -> str:
    open_ = '%r{k} = "stablehlo.case"(%i) ({{\n'
    close = '  "stablehlo.return"(%r{k}) : (tensor<f32>) -> ()\n}}) : (tensor<i32>) -> tensor<f32>\n'
    inner = '%r{k} = stablehlo.add %x, %x : tensor<f32>\n'
    parts = [HEAD % 1, "func.func public @main(%i: tensor<i32>, %x: tensor<f32>) -> tensor<f32> {\n"]
    parts += [open_.format(k=k) for k in range(depth)]
    parts.append(inner.format(k=depth))
    parts += [close.format(k=k + 1) for k in reversed(range(depth))]
    parts.append("return %r0 : tensor<f32>\n}\n}\n")
    return "".join(parts)


def pairs(n: int) -> str:
    p = ", ".join(f"[{i}, {(i + 1) % n}]" for i in range(n))
    return (HEAD % n + "  func.func public @main(%x: tensor<4xf32>) -> tensor<4xf32> {\n"
            f'    %0 = "stablehlo.collective_permute"(%x) {{source_target_pairs = dense<[{p}]> : tensor<{n}x2xi64>, '
            "channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>} : (tensor<4xf32>) -> tensor<4xf32>\n"
            "    return %0 : tensor<4xf32>\n  }\n}\n")


def grid(n: int) -> str:
    return (f"module @m attributes {{mhlo.num_partitions = {n} : i64, mhlo.num_replicas = 1 : i32}} {{\n"
            "  func.func public @main(%x: tensor<4xf32>) -> tensor<4xf32> {\n"
            '    %0 = "stablehlo.all_reduce"(%x) ({\n'
            "    ^bb0(%a: tensor<f32>, %b: tensor<f32>):\n"
            '      %s = "stablehlo.add"(%a, %b) : (tensor<f32>, tensor<f32>) -> tensor<f32>\n'
            '      "stablehlo.return"(%s) : (tensor<f32>) -> ()\n'
            "    }) {replica_groups = dense<> : tensor<0x0xi64>} : (tensor<4xf32>) -> tensor<4xf32>\n"
            '    %1 = "stablehlo.collective_permute"(%0) {source_target_pairs = dense<[[0, 1], [1, 0]]> : '
            "tensor<2x2xi64>, channel_handle = #stablehlo.channel_handle<handle = 2, type = 1>} "
            ": (tensor<4xf32>) -> tensor<4xf32>\n"
            "    return %1 : tensor<4xf32>\n  }\n}\n")


def constant(n_bytes: int) -> str:
    n = max(1, n_bytes // 8)  # 4 bytes of f32 = 8 hex digits
    return (HEAD % 1 + f"  func.func public @main() -> tensor<{n}xf32> {{\n"
            f'    %0 = stablehlo.constant dense<"0x{"0000803F" * n}"> : tensor<{n}xf32>\n'
            f"    return %0 : tensor<{n}xf32>\n  }}\n}}\n")


def split(n: int) -> str:
    one = ("module {\n  func.func public @f%d(%%x: tensor<f32>) -> tensor<f32> {\n"
           "    return %%x : tensor<f32>\n  }\n}\n")
    return "// -----\n".join(one % k for k in range(n))


def loop(trips: int) -> str:
    return (HEAD % 1 + "  func.func public @main(%x: tensor<f32>) -> tensor<f32> {\n"
            "    %zero = stablehlo.constant dense<0> : tensor<i64>\n"
            "    %one = stablehlo.constant dense<1> : tensor<i64>\n"
            f"    %n = stablehlo.constant dense<{trips}> : tensor<i64>\n"
            "    %r:2 = stablehlo.while(%i = %zero, %v = %x) : tensor<i64>, tensor<f32>\n"
            "    cond {\n"
            "      %lt = stablehlo.compare LT, %i, %n, SIGNED : (tensor<i64>, tensor<i64>) -> tensor<i1>\n"
            "      stablehlo.return %lt : tensor<i1>\n"
            "    } do {\n"
            "      %j = stablehlo.add %i, %one : tensor<i64>\n"
            "      stablehlo.return %j, %v : tensor<i64>, tensor<f32>\n"
            "    }\n"
            "    return %r#1 : tensor<f32>\n  }\n}\n")


MB = 1 << 20
# name: (generator, (small sizes), (full sizes), command)
FAMILIES = {
    "module": (module, (1 * MB, 10 * MB), (10 * MB, 100 * MB), "check"),
    "long_line": (long_line, (100_000, 1 * MB), (1 * MB, 10 * MB), "check"),
    "deep_regions": (deep_regions, (100, 1000), (1000, 10_000), "check"),
    "pairs": (pairs, (1000, 10_000), (10_000, 100_000), "check"),
    "grid": (grid, (1 << 20, 1 << 24), (1 << 24, 1 << 31), "check"),
    "constant": (constant, (400_000, 4 * MB), (4 * MB, 40 * MB), "check"),
    "constant_run": (constant, (400_000, 4 * MB), (4 * MB, 40 * MB), "run"),
    "split": (split, (1000, 10_000), (10_000, 100_000), "check"),
    "loop": (loop, (10 ** 6, 10 ** 12), (10 ** 6, 10 ** 12), "run"),
}


# ----------------------------------------------------------------------------- measuring
def measure(path: Path, command: str, timeout: float, cap_mb: int) -> dict:
    args = [sys.executable, "-m", "shlo_lint"]
    if command == "run":
        args += ["run", "--time-limit", "5", "-f", "json", str(path)]
    else:
        args += ["check", "--isolated", "-f", "json", "--exit-zero", str(path)]

    def limit():
        cap = cap_mb << 20
        resource.setrlimit(resource.RLIMIT_AS, (cap, cap))
        os.nice(5)

    t0 = time.perf_counter()
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        proc = subprocess.Popen(args, stdout=out, stderr=err, preexec_fn=limit, cwd=ROOT)
        deadline = t0 + timeout
        status = rusage = None
        while True:
            pid, status, rusage = os.wait4(proc.pid, os.WNOHANG)
            if pid:
                break
            if time.perf_counter() > deadline:
                proc.kill()
                _, status, rusage = os.wait4(proc.pid, 0)
                status = None
                break
            time.sleep(0.02)
        proc.returncode = 0  # reaped by wait4
        elapsed = time.perf_counter() - t0
        out.seek(0)
        err.seek(0)
        stdout, stderr = out.read().decode("utf-8", "replace"), err.read().decode("utf-8", "replace")
    code = None if status is None else os.waitstatus_to_exitcode(status)
    row = {"exit": code if status is not None else "timeout", "seconds": round(elapsed, 2),
           "peak_rss_mb": round(rusage.ru_maxrss / 1024, 1), "traceback": "Traceback" in stderr}
    try:
        data = json.loads(stdout)
        if command == "run":
            row["outcome"] = data.get("outcome") if isinstance(data, dict) else None
            row["said"] = (data.get("message") or "")[:160] if isinstance(data, dict) else ""
        else:
            diags = data.get("diagnostics", [])
            row["codes"] = sorted({d["code"] for d in diags})
            row["said"] = next((d["message"][:160] for d in diags if d["code"] in ("SHLO001", "SHLO003")), "")
    except ValueError:
        row["said"] = (stderr.strip().splitlines() or ["(no output)"])[-1][:160]
    return row


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--small", action="store_true", help="sizes 10x smaller (minutes, not hours)")
    ap.add_argument("--only", nargs="*", default=None, choices=list(FAMILIES))
    ap.add_argument("--keep", type=Path, default=None, help="write the generated inputs here")
    ap.add_argument("--timeout", type=float, default=None, help="seconds per input (default 120 small, 900 full)")
    ap.add_argument("--memory-cap", type=int, default=4000, help="MB of address space per run")
    ap.add_argument("--json", action="store_true", help="print the rows as JSON too")
    args = ap.parse_args(argv)
    timeout = args.timeout or (120 if args.small else 900)
    rows = []
    failures = 0
    with tempfile.TemporaryDirectory() as tmp:
        tiny = Path(tmp) / "tiny.mlir"
        tiny.write_text(module(100))
        startup = min(measure(tiny, "check", timeout, args.memory_cap)["seconds"] for _ in range(2))
    print(f"startup (a 100-byte module, best of 2): {startup:.2f} s; ratios use the time minus it")
    print(f"{'input':<28} {'bytes':>11} {'exit':>7} {'s':>8} {'RSS MB':>8} {'target':>7}  result")
    with tempfile.TemporaryDirectory() as tmp:
        folder = args.keep or Path(tmp)
        folder.mkdir(parents=True, exist_ok=True)
        for name, (gen, small, full, command) in FAMILIES.items():
            if args.only and name not in args.only:
                continue
            fam = []
            for size in (small if args.small else full):
                path = folder / f"{name}_{size}.mlir"
                path.write_text(gen(size))
                n = path.stat().st_size
                row = {"input": f"{name}({size})", "bytes": n, **measure(path, command, timeout, args.memory_cap)}
                row["rss_target_mb"] = round(10 * n / MB + 200, 1)
                bad = []
                if row["exit"] not in (0, 1, 2):
                    bad.append(f"exit {row['exit']}")
                if row["traceback"]:
                    bad.append("traceback")
                if row["peak_rss_mb"] > row["rss_target_mb"]:
                    bad.append("memory")
                row["fails"] = bad
                failures += bool(bad)
                fam.append(row)
                rows.append(row)
                print(f"{row['input']:<28} {n:>11} {str(row['exit']):>7} {row['seconds']:>8.2f} "
                      f"{row['peak_rss_mb']:>8.0f} {row['rss_target_mb']:>7.0f}  "
                      f"{'FAIL ' + ','.join(bad) if bad else 'ok'}  {row.get('codes', row.get('outcome', ''))} "
                      f"{row['said'][:90]}", flush=True)
                if not args.keep:
                    path.unlink()
            if len(fam) == 2:
                net = [max(r["seconds"] - startup, 0.05) for r in fam]
                t_ratio = net[1] / net[0]
                m_ratio = fam[1]["peak_rss_mb"] / max(fam[0]["peak_rss_mb"], 1e-3)
                slow = t_ratio > 12 and fam[1]["seconds"] > 2
                fam[1]["time_ratio"], fam[1]["rss_ratio"] = round(t_ratio, 2), round(m_ratio, 2)
                if slow:
                    fam[1]["fails"].append("time ratio")
                    failures += not fam[1]["fails"][:-1]
                print(f"{'  ratio 10x ' + name:<28} {'':>11} {'':>7} {t_ratio:>7.1f}x {m_ratio:>7.1f}x "
                      f"{'':>7}  {'FAIL time ratio' if slow else 'ok'}", flush=True)
    if args.json:
        print(json.dumps(rows, indent=2))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
