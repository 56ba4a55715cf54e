"""`shlo-lint run` (the XLA engine on HLO text) over every module of corpus/hlo,
against the verdicts of corpus/hlo/VERDICTS.json.

    python bench/hlo_run_corpus.py [--only NAME ...] [--stuck-timeout S] [--timeout S] [--json OUT]

Each module runs once on its own grid (8 XLA:CPU devices for the whole corpus)
through the product's entry point (run_path), and the table says per file: the
verdict recorded when the corpus was made (its jitted program's run), the
engine's outcome, whether they agree (completed = completed, aborted =
aborted), the blocked devices and instructions, the notes, and the time. Exit
status 1 when any file disagrees. Needs the `jax` extra.
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
    ap.add_argument("--only", nargs="*", default=None, help="files whose name contains one of these")
    ap.add_argument("--stuck-timeout", type=int, default=3, help="XLA:CPU's rendezvous termination timeout")
    ap.add_argument("--timeout", type=float, default=90.0, help="the watchdog per file")
    ap.add_argument("--json", default=None, help="write the rows here")
    args = ap.parse_args(argv)
    corpus = REPO / "corpus" / "hlo"
    verdicts = json.loads((corpus / "VERDICTS.json").read_text())["files"]
    options = RunOptions(engine="xla", xla_timeout_s=args.timeout, xla_stuck_warn_s=1,
                         xla_stuck_terminate_s=args.stuck_timeout)
    rows, bad = [], 0
    t_all = time.monotonic()
    for name, facts in sorted(verdicts.items()):
        if args.only and not any(o in name for o in args.only):
            continue
        t0 = time.monotonic()
        report = run_path(str(corpus / name), options)
        r = report.primary
        expected = facts["verdict"]
        agree = r.outcome == expected
        bad += not agree
        blocked = "; ".join(f"{fmt_pid(b.process)} {b.op} line {b.line}" for b in r.blocked[:4]) + \
            (" ..." if len(r.blocked) > 4 else "")
        rows.append({"file": name, "expected": expected, "outcome": r.outcome, "agree": agree,
                     "exit": report.exit_code(), "blocked": blocked, "message": r.message, "notes": r.notes,
                     "seconds": round(time.monotonic() - t0, 2)})
        print(f"{'ok ' if agree else 'BAD'} {name:75s} {expected:10s} {r.outcome:10s} exit {report.exit_code()} "
              f"{time.monotonic() - t0:5.1f} s  {blocked}", flush=True)
        if not agree or r.notes:
            for line in ([r.message] if not agree and r.message else []) + r.notes:
                print(f"      {line}")
    print(f"{len(rows) - bad} of {len(rows)} agree with VERDICTS.json; {time.monotonic() - t_all:.0f} s in all")
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
