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

* pass — it ran to completion, every check held, and what it prints matches
  its FileCheck lines (below); a chunk with neither checks nor FileCheck lines
  passes by running;
* fail — a check failed, the printed output does not match a CHECK line, the
  run deadlocked or timed out, or an error that is not "this op is not
  implemented";
* unsupported — the interpreter stopped at an op (or type, or custom_call) it
  does not implement, named in the report;
* parse-error — the chunk does not parse here (a parser gap, counted apart).

Prints one row per file (named after the op it tests) and the totals; the
pass rate counts unsupported and parse errors as failures.

FileCheck: a file whose RUN lines pipe `stablehlo-translate --interpret` into
FileCheck (printing.mlir, api_input_arguments.mlir) is run once per distinct
RUN configuration: its `--args="[dense<...> : tensor<...>, ...]"` are the entry
function's arguments (else zeros), and what the chunk prints — each
`interpreter.print`, then each result of the entry function, as StableHLO's
interpreter prints them (checker/execute/printing.py; `--interpreter-print-dense`:
as dense attributes) — is matched against that RUN line's check prefixes on
the chunk's lines (bench/filecheck.py). A RUN line that expects
stablehlo-translate to fail (`not ...`: its own messages for a malformed
`--args`) tests that tool's command line, not the interpreter: it is listed as
not compared.
"""
from __future__ import annotations

import argparse
import json
import re
import shlex
import sys
import time
import traceback
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

import filecheck  # noqa: E402 - bench/filecheck.py, beside this script

from shlo_lint.checker.frontend.read import header_parser as parser  # noqa: E402
from shlo_lint.checker.frontend.stablehlo.parse import SyntaxProblem, parse_attribute  # noqa: E402
from shlo_lint.checker.ir.attributes import ArrayAttr, DenseElementsAttr  # noqa: E402
from shlo_lint.checker.ir.core import func_type  # noqa: E402
from shlo_lint.checker.execute.interpreter import Interpreter, Limits  # noqa: E402
from shlo_lint.checker.execute.run import split_chunks  # noqa: E402
from shlo_lint.checker.execute.printing import dense_text, tensor_text  # noqa: E402
from shlo_lint.checker.execute.values import ExecutionError, Inputs, constant_array  # noqa: E402
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


@dataclass(frozen=True)
class RunLine:
    """One `// RUN: stablehlo-translate ... --interpret ...` line of a test file."""

    args: str | None
    """The `--args` text (the entry function's arguments), or None."""
    dense: bool
    """--interpreter-print-dense: results printed as dense attributes."""
    prefixes: tuple[str, ...]
    """FileCheck's check prefixes; () when the output is not FileChecked."""
    expects_failure: bool
    """`not stablehlo-translate ...`: the tool itself must fail."""


def run_lines(text: str) -> list[RunLine]:
    out = []
    for m in re.finditer(r"^// RUN:(.*)$", text, re.M):
        command = m.group(1).strip()
        if "--interpret" not in command:
            continue
        tool, _bar, check = command.partition("|")
        words = shlex.split(tool)
        args = next((w.split("=", 1)[1] for w in words if w.startswith("--args=")), None)
        prefixes: tuple[str, ...] = ()
        if "FileCheck" in check:
            prefixes = ("CHECK",)
            for w in shlex.split(check):
                if w.startswith(("--check-prefix=", "--check-prefixes=", "-check-prefix=", "-check-prefixes=")):
                    prefixes = tuple(p for p in w.split("=", 1)[1].split(",") if p)
        out.append(RunLine(args, "--interpreter-print-dense" in words, prefixes, words[:1] == ["not"]))
    return out


def arguments(spec: str) -> list:
    """`[dense<1> : tensor<2xi32>, ...]` (--args) as arrays."""
    try:
        attr = parse_attribute(spec)
    except SyntaxProblem as e:
        raise ExecutionError(f"--args does not parse: {e.message}") from None
    if not isinstance(attr, ArrayAttr) or not all(isinstance(a, DenseElementsAttr) for a in attr.elements):
        raise ExecutionError("--args is not a list of dense elements attributes")
    return [constant_array(a, a.type) for a in attr.elements]


def printed_output(module, res, dense: bool) -> str:
    """What stablehlo-translate --interpret writes: each interpreter.print as it
    runs, then each result of the entry function on its own line."""
    out = list(res.printed)
    entry = module.entry_function()
    ftype = func_type(entry) if entry is not None else None
    results = next(iter(res.outputs.values()), []) if res.outputs else []
    for value, ttype in zip(results, ftype.results if ftype else ()):
        out.append(dense_text(value, ttype) if dense else tensor_text(value, ttype))
    return "\n".join(out) + "\n"


def classify(path: str, text: str, time_limit: float, runs: list[RunLine] = (), lines: tuple[int, int] = (1, 0),
             counts: Counter | None = None) -> tuple[str, str]:
    """One chunk; `runs` are the file's RUN lines, `lines` the chunk's (first, last)
    line, whose CHECK lines are compared; `counts` collects what was compared."""
    counts = counts if counts is not None else Counter()
    module = scan(SourceFile(path, text), parser())
    problem = parse_problem(module)
    if problem is not None:
        return "parse-error", problem.splitlines()[0][:160]
    checked = [r for r in runs if r.prefixes and not r.expects_failure]
    counts["run lines not compared"] += sum(1 for r in runs if r.expects_failure)
    configs = list(dict.fromkeys((r.args, r.dense) for r in checked)) or [(None, False)]
    passed = 0
    for args, dense in configs:
        try:
            inputs = Inputs("values", values=arguments(args)) if args else Inputs("zeros")
        except ExecutionError as e:
            return "fail", f"--args: {e.message}"
        res = Interpreter(module, limits=Limits(time_s=time_limit)).run(inputs)
        if res.outcome != "completed":
            message = res.message or res.outcome
            if res.outcome == "error":
                m = UNSUPPORTED.match(message)
                if m:
                    what = next(g for g in m.groups()[1:] if g)
                    return "unsupported", ("dynamic shapes" if "statically shaped" in what else what)
            return "fail", f"{res.outcome}: {message}"[:300]
        passed = res.checks["passed"] if res.checks else 0
        output = printed_output(module, res, dense)
        for run in (r for r in checked if (r.args, r.dense) == (args, dense)):
            found = filecheck.directives(text, run.prefixes, *lines)
            if not found:
                continue
            why = filecheck.check(found, output)
            counts["filecheck chunks"] += 1
            counts["filecheck directives"] += len(found)
            if why:
                return "fail", f"FileCheck ({','.join(run.prefixes)}) {why}"[:300]
    return "pass", f"{passed} checks"


def run(folder: Path, time_limit: float, verbose: bool) -> dict:
    rows = {}
    details = []
    compared: Counter = Counter()
    for f in sorted(folder.glob("*.mlir")):
        text = f.read_text()
        runs = run_lines(text)
        counts: Counter = Counter()
        parts = chunks(text)
        for k, (line, chunk) in enumerate(parts):
            last = parts[k + 1][0] - 1 if k + 1 < len(parts) else text.count("\n") + 1
            t0 = time.monotonic()
            try:
                status, why = classify(str(f), chunk, time_limit, runs, (line, last), compared)
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
    return {"rows": rows, "details": details, "filecheck": dict(compared)}


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
    fc = result["filecheck"]
    print(f"FileCheck: {fc.get('filecheck directives', 0)} directives compared in {fc.get('filecheck chunks', 0)} "
          f"chunk runs; {fc.get('run lines not compared', 0)} chunk RUN lines not compared (they expect "
          f"stablehlo-translate's own errors for a malformed --args)")
    unsupported = Counter(d["detail"] for d in result["details"] if d["status"] == "unsupported")
    if unsupported:
        print("unsupported: " + ", ".join(f"{k} ({v})" for k, v in unsupported.most_common()))
    if args.json:
        Path(args.json).write_text(json.dumps({**result, "pass_rate": rate}, indent=1, default=dict))
    return 0


if __name__ == "__main__":
    sys.exit(main())
