"""How much of StableHLO's own interpreter test suite the execution checker's
interpreter runs, op by op.

    python bench/interpret_conformance.py --stablehlo PATH [--verbose] [--json OUT] [--time-limit S]

PATH is a checkout (or extracted archive) of openxla/stablehlo; the files are
PATH/stablehlo/tests/interpret/*.mlir (or PATH/*.mlir when PATH is that folder).
Nothing of them is copied into this project: the script reads them where they
are. Each file is split at `// -----` lines into chunks (line numbers kept, so
a location points into the file), and each chunk is parsed and run as its own
module (`main`, or its only function), with its `check.*` assertions and
`interpreter.run_parallel` grids. A chunk is

* pass — it ran to completion and every check held (a chunk with no check
  passes by running: upstream compares those with FileCheck on printed output);
* fail — a check failed, the run deadlocked or timed out, or an error that is
  not "this op is not implemented";
* unsupported — the interpreter stopped at an op (or type, or custom_call) it
  does not implement, named in the report;
* parse-error — the chunk does not parse here (a parser gap, counted apart).

Prints one row per file (named after the op it tests) and the totals; the
pass rate counts unsupported and parse errors as failures.
"""
from __future__ import annotations

import argparse
import json
import re
import sys
import time
import traceback
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from shlo_lint.checker.frontend.read import header_parser as parser  # noqa: E402
from shlo_lint.checker.execute.interpreter import Interpreter, Limits  # noqa: E402
from shlo_lint.checker.execute.run import split_chunks  # noqa: E402
from shlo_lint.checker.execute.values import Inputs  # noqa: E402
from shlo_lint.checker.frontend.stablehlo.scan import scan  # noqa: E402
from shlo_lint.checker.source.text import SourceFile  # noqa: E402

UNSUPPORTED = re.compile(r"^(cannot execute: op (\S+) at |refused: custom_call @(\S+)|element type (.+?) has no numpy"
                         r"|.*(runs statically shaped tensors only))")


def chunks(text: str) -> list[tuple[int, str]]:
    """(first line, text padded with blank lines so line numbers stay the file's)."""
    return split_chunks(text)


def parse_problem(module) -> str | None:
    if module.structurally_broken or module.syntax_errors:
        return module.syntax_errors[0][0] if module.syntax_errors else "unbalanced regions"
    for op in module.walk():
        op.header  # noqa: B018 - headers parse lazily; force them so every syntax error shows
    if module.syntax_errors:
        return module.syntax_errors[0][0]
    return None


def classify(path: str, text: str, time_limit: float) -> tuple[str, str]:
    module = scan(SourceFile(path, text), parser())
    problem = parse_problem(module)
    if problem is not None:
        return "parse-error", problem.splitlines()[0][:160]
    res = Interpreter(module, limits=Limits(time_s=time_limit)).run(Inputs("zeros"))
    if res.outcome == "completed":
        return "pass", f"{res.checks['passed'] if res.checks else 0} checks"
    message = res.message or res.outcome
    if res.outcome == "error":
        m = UNSUPPORTED.match(message)
        if m:
            what = next(g for g in m.groups()[1:] if g)
            return "unsupported", ("dynamic shapes" if "statically shaped" in what else what)
    return "fail", f"{res.outcome}: {message}"[:300]


def run(folder: Path, time_limit: float, verbose: bool) -> dict:
    rows = {}
    details = []
    for f in sorted(folder.glob("*.mlir")):
        text = f.read_text()
        counts: Counter = Counter()
        for line, chunk in chunks(text):
            t0 = time.monotonic()
            try:
                status, why = classify(str(f), chunk, time_limit)
            except Exception as e:  # noqa: BLE001 - a crash is ours: counted as a failure and shown
                status, why = "fail", f"internal error {type(e).__name__}: {e}"
                if verbose:
                    traceback.print_exc()
            counts[status] += 1
            details.append({"file": f.name, "line": line, "status": status, "detail": why,
                            "seconds": round(time.monotonic() - t0, 3)})
            if verbose and status != "pass":
                print(f"  {f.name}:{line}: {status}: {why}", file=sys.stderr)
        rows[f.stem] = counts
    return {"rows": rows, "details": details}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--stablehlo", required=True, help="openxla/stablehlo checkout (or its tests/interpret folder)")
    ap.add_argument("--time-limit", type=float, default=20.0, help="seconds per chunk")
    ap.add_argument("--verbose", "-v", action="store_true", help="print every chunk that does not pass")
    ap.add_argument("--json", help="write per-chunk results to this file")
    args = ap.parse_args(argv)
    root = Path(args.stablehlo)
    folder = root / "stablehlo" / "tests" / "interpret"
    if not folder.is_dir():
        folder = root
    if not any(folder.glob("*.mlir")):
        print(f"no *.mlir under {folder}", file=sys.stderr)
        return 2
    t0 = time.monotonic()
    result = run(folder, args.time_limit, args.verbose)
    cols = ("pass", "fail", "unsupported", "parse-error")
    print(f"{'op':28} {'chunks':>6} " + " ".join(f"{c:>11}" for c in cols))
    total: Counter = Counter()
    for name, counts in result["rows"].items():
        total.update(counts)
        n = sum(counts.values())
        print(f"{name:28} {n:>6} " + " ".join(f"{counts.get(c, 0):>11}" for c in cols))
    n = sum(total.values())
    print(f"{'TOTAL':28} {n:>6} " + " ".join(f"{total.get(c, 0):>11}" for c in cols))
    rate = 100.0 * total["pass"] / n if n else 0.0
    print(f"pass rate {rate:.1f}% of {n} chunks ({time.monotonic() - t0:.1f} s)")
    unsupported = Counter(d["detail"] for d in result["details"] if d["status"] == "unsupported")
    if unsupported:
        print("unsupported: " + ", ".join(f"{k} ({v})" for k, v in unsupported.most_common()))
    if args.json:
        Path(args.json).write_text(json.dumps({**result, "pass_rate": rate}, indent=1, default=dict))
    return 0


if __name__ == "__main__":
    sys.exit(main())
