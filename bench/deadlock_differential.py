"""A random differential of deadlock verdicts: the static analysis, the reference
interpreter and XLA:CPU on the same small multi-process programs.

    python bench/deadlock_differential.py --cases 100 --seed 1
    python bench/deadlock_differential.py --cases 40 --seed 7 --no-xla      # static vs interpreter only
    python bench/deadlock_differential.py --seed 1 --show 17                 # print case 17 and its verdicts
    python bench/deadlock_differential.py --cases 100 --dump /tmp/dis        # write every disagreement

Each case is one module written from the StableHLO spec (2-8 processes over
`mhlo.num_replicas` x `mhlo.num_partitions`): all_reduce / all_gather /
reduce_scatter / all_to_all / collective_broadcast / collective_permute with
full and partial `replica_groups`, with and without `channel_handle` and
`use_global_device_ids`; device-to-device send/recv; `stablehlo.if` and
`stablehlo.case` on a predicate computed from `partition_id` / `replica_id`
(JAX's `partition_id -> divide -> remainder -> convert -> compare -> convert ->
case` chain among others), on a uniform predicate (a constant, an all_reduce
result) or on per-device data; `while` loops with a constant, process-dependent
or all_reduce-decided trip count; the same collectives in opposite orders on two
sides of a branch; independent collectives whose order XLA's scheduler picks.

For each case three verdicts:

* **static**: `deadlock` (an SHLO500/501 error), `warn` (SHLO502 matched only by
  XLA, SHLO504 guarded by per-device data, SHLO505 a deadlock in some of the
  orders XLA's scheduler may choose), `unknown` (SHLO503), `free`, or
  `invalid` (another error: the program breaks a constraint, no verdict);
* **interp**: `shlo-lint run` (the reference interpreter, XLA matching);
* **xla**: `shlo-lint run --engine xla` on 8 host devices, the collective
  rendezvous timeouts cut to 1 s / 2 s so a hang costs ~3 s: `completed`,
  `aborted` (XLA:CPU's rendezvous gave up: a hang), `unsupported` (XLA:CPU has no
  send/recv or collective_broadcast), `error` (XLA refused the program).

The table counts each (static, xla) pair and names the classes: **false
deadlock** (static deadlock, XLA completes: the worst), **missed deadlock** (XLA
hangs, static silent), **warned hang** (XLA hangs, static warned or undecided).
The programs come from bench/deadlock_programs.py. Run it by hand; it is not
part of the test suite (tests/test_deadlock_differential.py checks the
generator: its programs parse, and templates with known verdicts).
"""
from __future__ import annotations

import argparse
import os
import sys
import time
from collections import Counter

HERE = os.path.dirname(os.path.abspath(__file__))
for _p in (os.path.dirname(HERE), HERE):  # the checkout (shlo_lint), and bench/ (deadlock_programs)
    if _p not in sys.path:  # pragma: no cover - run as a script from a checkout
        sys.path.insert(0, _p)

from deadlock_programs import Case, generate  # noqa: E402

# -- verdicts ---------------------------------------------------------------------------------
DEADLOCK_CODES = {"SHLO500", "SHLO501"}
WARN_CODES = {"SHLO502", "SHLO504", "SHLO505"}


def static_verdict(case: Case) -> tuple[str, list[str]]:
    from shlo_lint import lint_text

    diags = lint_text(case.text, f"case{case.index}.mlir")
    codes = sorted({d.code for d in diags})
    errors = {d.code for d in diags if d.severity.value == "error"}
    if errors & DEADLOCK_CODES:
        return "deadlock", codes
    if errors:
        return "invalid", codes
    if set(codes) & WARN_CODES:
        return "warn", codes
    if "SHLO503" in codes:
        return "unknown", codes
    return "free", codes


def engine_verdict(case: Case, engine: str) -> tuple[str, str]:
    from shlo_lint.checker.frontend.read import header_parser as parser
    from shlo_lint.checker.execute.run import RunOptions, run_module
    from shlo_lint.checker.frontend.stablehlo.scan import scan
    from shlo_lint.checker.source.text import SourceFile

    module = scan(SourceFile(f"case{case.index}.mlir", case.text), parser())
    opts = RunOptions(engine=engine, time_limit_s=20, xla_timeout_s=60, xla_stuck_warn_s=1, xla_stuck_terminate_s=2)
    report = run_module(module, opts).primary
    where = ""
    if report.blocked:
        where = "blocked " + ", ".join(f"{b.process}@{getattr(b, 'line', '?')}" for b in report.blocked[:4])
    return report.outcome, (report.message or where or "")[:300]


HANG = ("deadlock", "aborted", "timeout")


def classify(static: str, xla: str, tags=()) -> str:
    if xla in ("unsupported", "error"):
        return f"xla {xla}"
    if static == "invalid":
        return "static invalid"
    if xla == "completed":
        if static == "deadlock" and "data-predicate" in tags:
            # the counterexample may lie on a path the run's inputs did not take
            return "completes, static deadlock on a data path"
        return "FALSE DEADLOCK" if static == "deadlock" else ("agree: completes" if static == "free"
                                                             else f"completes, static {static}")
    if xla in HANG:
        return "agree: hangs" if static == "deadlock" else ("MISSED DEADLOCK" if static == "free"
                                                           else f"hang, static {static}")
    return f"xla {xla}"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cases", type=int, default=50)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--start", type=int, default=0, help="first case index")
    ap.add_argument("--no-xla", action="store_true", help="static vs interpreter only")
    ap.add_argument("--show", type=int, default=None, help="print this case's program and verdicts, nothing else")
    ap.add_argument("--dump", default=None, help="write each disagreeing case (and its verdicts) to this folder")
    ap.add_argument("-v", "--verbose", action="store_true", help="one line per case")
    args = ap.parse_args(argv)
    os.environ.setdefault("JAX_PLATFORMS", "cpu")

    indices = [args.show] if args.show is not None else range(args.start, args.start + args.cases)
    rows, t0 = [], time.monotonic()
    for i in indices:
        case = generate(args.seed, i)
        static, codes = static_verdict(case)
        interp, imsg = engine_verdict(case, "interp")
        xla, xmsg = ("skipped", "") if args.no_xla else engine_verdict(case, "xla")
        cls = classify(static, interp if args.no_xla else xla, case.tags)
        ic = classify(static, interp, case.tags)
        row = (i, case, static, codes, interp, imsg, xla, xmsg, cls, ic)
        rows.append(row)
        if args.show is not None:
            print(case.text)
        if args.verbose or args.show is not None:
            print(f"case {i:4d} {case.replicas}x{case.partitions} static={static:8s} {','.join(codes):24s} "
                  f"interp={interp:10s} xla={xla:11s} [{cls}] {' '.join(case.tags)}")
            if args.show is not None:
                print(f"  interp: {imsg}\n  xla: {xmsg}")
        engines_differ = not args.no_xla and xla not in ("unsupported", "error") and (interp in HANG) != (xla in HANG)
        if args.dump and (cls.isupper() or ic.isupper() or engines_differ):
            os.makedirs(args.dump, exist_ok=True)
            with open(os.path.join(args.dump, f"case{i}.mlir"), "w", encoding="utf-8") as f:
                f.write(case.text + f"// static {static} {codes}\n// interp {interp}: {imsg}\n// xla {xla}: {xmsg}\n")
    if args.show is not None:
        return 0
    elapsed = time.monotonic() - t0
    print(f"\n{len(rows)} cases, seed {args.seed}, {elapsed:.1f} s")
    print("\nstatic vs " + ("interp" if args.no_xla else "XLA:CPU") + ":")
    for cls, n in sorted(Counter(r[8] for r in rows).items(), key=lambda kv: (-kv[1], kv[0])):
        ids = [r[0] for r in rows if r[8] == cls]
        print(f"  {n:4d}  {cls:28s} {'' if cls.startswith('agree') else ids[:20]}")
    print("\nstatic vs interp:")
    for cls, n in sorted(Counter(r[9] for r in rows).items(), key=lambda kv: (-kv[1], kv[0])):
        ids = [r[0] for r in rows if r[9] == cls]
        print(f"  {n:4d}  {cls:28s} {'' if cls.startswith('agree') else ids[:20]}")
    if not args.no_xla:
        print("\ninterp vs XLA:CPU (both ran):")
        both = [r for r in rows if r[6] not in ("unsupported", "error", "skipped")]
        pairs = Counter((r[4], r[6]) for r in both)
        for (a, b), n in sorted(pairs.items(), key=lambda kv: -kv[1]):
            bad = [r[0] for r in both if (r[4], r[6]) == (a, b)] if (a in HANG) != (b in HANG) else ""
            print(f"  {n:4d}  interp {a:10s} xla {b:10s} {bad}")
        refused = Counter((r[6], r[7].split(":")[0][:90]) for r in rows if r[6] in ("unsupported", "error"))
        if refused:
            print("\nXLA:CPU did not run:")
            for (o, m), n in refused.most_common():
                print(f"  {n:4d}  {o}: {m}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
