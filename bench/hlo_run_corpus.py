"""`shlo-lint run` over every module of corpus/hlo, against the verdicts of
corpus/hlo/VERDICTS.json.

    python bench/hlo_run_corpus.py [--engine xla|interp|both] [--only NAME ...] [--stuck-timeout S]
                                   [--timeout S] [--json OUT]

Each module runs once on its own grid (8 devices for the whole corpus) through
the product's entry point (run_path): XLA:CPU compiling the text (`--engine
xla`, the default), the interpreter on the module the HLO front end lowers
(`interp`), or both with their cross-check (`both`). The table says per file:
the verdict recorded when the corpus was made (its jitted program's run), the
engine's outcome, whether they agree (completed = completed; aborted = aborted,
or deadlock for the interpreter), the blocked devices and instructions, the
cross-check, the notes, and the time. A module the engine cannot run
(unsupported) is counted apart. Exit status 1 when any file disagrees (or a
cross-check mismatches). XLA needs the `jax` extra.
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from shlo_lint.checker.execute.run import RunOptions, run_path  # noqa: E402
from shlo_lint.checker.execute.runtime import fmt_pid  # noqa: E402


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--engine", choices=("xla", "interp", "both"), default="xla")
    ap.add_argument("--only", nargs="*", default=None, help="files whose name contains one of these")
    ap.add_argument("--stuck-timeout", type=int, default=3, help="XLA:CPU's rendezvous termination timeout")
    ap.add_argument("--timeout", type=float, default=90.0, help="the watchdog per file")
    ap.add_argument("--json", default=None, help="write the rows here")
    args = ap.parse_args(argv)
    corpus = REPO / "corpus" / "hlo"
    verdicts = json.loads((corpus / "VERDICTS.json").read_text())["files"]
    options = RunOptions(engine=args.engine, xla_timeout_s=args.timeout, xla_stuck_warn_s=1,
                         xla_stuck_terminate_s=args.stuck_timeout)
    rows, bad, unsupported = [], 0, 0
    t_all = time.monotonic()
    for name, facts in sorted(verdicts.items()):
        if args.only and not any(o in name for o in args.only):
            continue
        t0 = time.monotonic()
        report = run_path(str(corpus / name), options)
        r = report.primary
        expected = facts["verdict"]
        skipped = r.outcome == "unsupported"
        agree = r.outcome == expected or (r.engine == "interp" and (r.outcome, expected) == ("deadlock", "aborted"))
        cross = report.cross_check or {}
        agree = agree and cross.get("status") != "mismatch"
        unsupported += skipped
        bad += not agree and not skipped
        blocked = "; ".join(f"{fmt_pid(b.process)} {b.op} line {b.line}" for b in r.blocked[:4]) + \
            (" ..." if len(r.blocked) > 4 else "")
        rows.append({"file": name, "expected": expected, "outcome": r.outcome, "agree": agree,
                     "exit": report.exit_code(), "blocked": blocked, "message": r.message, "notes": r.notes,
                     "cross_check": cross.get("status"), "seconds": round(time.monotonic() - t0, 2)})
        mark = "-- " if skipped else "ok " if agree else "BAD"
        print(f"{mark} {name:75s} {expected:10s} {r.outcome:11s} exit {report.exit_code()} "
              f"{time.monotonic() - t0:5.1f} s  {blocked}{'  cross-check ' + cross['status'] if cross else ''}",
              flush=True)
        if not agree or r.notes:
            for line in ([r.message] if not agree and r.message else []) + r.notes:
                print(f"      {line}")
    ran = len(rows) - unsupported
    print(f"{args.engine}: {ran} of {len(rows)} modules run, {ran - bad} of them agree with VERDICTS.json"
          f"{f', {unsupported} unsupported' if unsupported else ''}; {time.monotonic() - t_all:.0f} s in all")
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
