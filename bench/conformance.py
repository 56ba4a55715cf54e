"""Conformance: shlo-lint against the StableHLO verifier's own expectations.

    python bench/conformance.py --stablehlo PATH [--family NAME ...] [--list-misses]
                                [--no-testdata] [--testdata-limit N] [--json FILE]

PATH is an ordinary checkout of openxla/stablehlo (only `stablehlo/tests/` and
`stablehlo/testdata/` are read). This is a benchmark, not a test: nothing in the
test suite runs it, and nothing in the project reads the checkout.

(a) Verifier tests. Every `*.mlir` under `stablehlo/tests/` (the interpreter,
    VHLO and math folders excepted) is split at `// -----` lines, as
    `stablehlo-opt -split-input-file` does. A chunk belongs to an op family when
    it mentions one of that family's ops (a chunk naming several counts in each).
    A chunk with an `expected-error` annotation is *invalid*: it is detected when
    shlo-lint reports an error-severity finding. The others are *valid*: any
    error-severity finding there is a false error. In files whose RUN line runs
    a transformation pass (`--stablehlo-legalize-...`, `--hlo-test-...` and the
    like, mostly under transforms/), an `expected-error` is the pass's, not the
    verifier's: the input passed verification. Such chunks are left out; their
    chunks without one still count as valid. Findings are split by kind so
    that parser gaps do not hide in rule numbers:
      - rule      an error from a rule or analysis (not SHLO001/SHLO003)
      - parse     SHLO001 (the text was not read)
      - crash     SHLO003 or an exception out of lint_text
(b) JAX exports. Every program under `stablehlo/testdata/`: the share that parses
    without SHLO001, the files with an error-severity finding (rule errors and
    parse errors counted apart) and throughput in MB/s.
"""
from __future__ import annotations

import argparse
import json
import random
import re
import sys
import time
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from shlo_lint import Config, lint_text  # noqa: E402
from shlo_lint.checker.source.diagnostics import Severity  # noqa: E402

FAMILIES: dict[str, tuple[str, ...]] = {
    "all_gather": ("all_gather",),
    "all_reduce": ("all_reduce",),
    "reduce_scatter": ("reduce_scatter",),
    "all_to_all": ("all_to_all",),
    "collective_permute": ("collective_permute",),
    "collective_broadcast": ("collective_broadcast",),
    "collective_reduce": ("collective_reduce",),
    "send_recv": ("send", "recv"),
    "async": ("async_start", "async_done"),
}
_FAMILY_RE = {fam: re.compile(r"\bstablehlo\.(?:%s)\b" % "|".join(ops)) for fam, ops in FAMILIES.items()}
_EXTRA = {"future": re.compile(r"!stablehlo\.future<"),
          "replica_group_mesh_axes": re.compile(r"replica_group_mesh_axes")}
SKIP_DIRS = ("interpret", "vhlo", "math")
TOTAL = "all (distinct chunks)"
SPLIT = re.compile(r"^// -----\s*$", re.M)
_RUN = re.compile(r"^//\s*RUN:(.*)$", re.M)
# Flags of stablehlo-opt that only configure parsing/verification; any other
# `--flag` on the first RUN line is a pass whose diagnostics are its own.
_PLAIN_FLAGS = {"verify-diagnostics", "split-input-file", "allow-unregistered-dialect", "emit-bytecode",
                "debug-only", "mlir-print-debuginfo", "mlir-print-op-generic"}


def runs_a_pass(text: str) -> bool:
    m = _RUN.search(text)
    if not m:
        return False
    first = m.group(1).split("|", 1)[0]
    flags = re.findall(r"(?<![\w])--?([a-z][\w-]*)", first)
    return any(f not in _PLAIN_FLAGS for f in flags)


def families_of(chunk: str) -> list[str]:
    out = [fam for fam, rx in _FAMILY_RE.items() if rx.search(chunk)]
    out += [fam for fam, rx in _EXTRA.items() if rx.search(chunk) and fam not in out]
    return out


@dataclass
class Tally:
    invalid: int = 0
    detected: int = 0          # an error from a rule
    located: int = 0           # ... on the op an expected-error points at
    detected_parse: int = 0    # only SHLO001 said something
    valid: int = 0
    false_rule: int = 0
    false_parse: int = 0
    crash: int = 0
    misses: list = field(default_factory=list)
    false_errors: list = field(default_factory=list)


def classify(text: str, path: str) -> tuple[str, list]:
    """('crash'|'parse'|'rule'|'clean', error findings)."""
    try:
        diags = lint_text(text, path, Config())
    except Exception as e:  # noqa: BLE001 - a benchmark reports, it does not stop
        return "crash", [f"{type(e).__name__}: {e}"]
    errors = [d for d in diags if d.severity == Severity.ERROR]
    if any(d.code == "SHLO003" for d in errors):
        return "crash", [d for d in errors if d.code == "SHLO003"]
    rule = [d for d in errors if d.code != "SHLO001"]
    if rule:
        return "rule", rule
    if errors:
        return "parse", errors
    return "clean", []


def verifier_tests(root: Path, only: set[str] | None) -> dict[str, Tally]:
    tallies: dict[str, Tally] = defaultdict(Tally)
    tests = root / "stablehlo" / "tests"
    for f in sorted(tests.rglob("*.mlir")):
        rel = f.relative_to(tests)
        if rel.parts[0] in SKIP_DIRS:
            continue
        text = f.read_text(encoding="utf-8", errors="replace")
        pass_test = runs_a_pass(text)
        for i, chunk in enumerate(SPLIT.split(text)):
            fams = [x for x in families_of(chunk) if only is None or x in only]
            if not fams:
                continue
            invalid = "expected-error" in chunk
            if invalid and pass_test:
                continue
            kind, found = classify(chunk, f"{rel}#{i}")
            where = f"{rel} chunk {i}"
            at_op = invalid and kind == "rule" and _located(chunk, found)
            for fam in [*fams, TOTAL]:
                t = tallies[fam]
                if kind == "crash":
                    t.crash += 1
                if invalid:
                    t.invalid += 1
                    if kind == "rule":
                        t.detected += 1
                        t.located += at_op
                    elif kind == "parse":
                        t.detected_parse += 1
                    else:
                        t.misses.append((where, _expected(chunk)))
                else:
                    t.valid += 1
                    if kind == "rule":
                        t.false_rule += 1
                        t.false_errors.append((where, [_fmt(d) for d in found]))
                    elif kind == "parse":
                        t.false_parse += 1
                        t.false_errors.append((where, [_fmt(d) for d in found]))
                    elif kind == "crash":
                        t.false_errors.append((where, [_fmt(d) for d in found]))
    return tallies


_ANNOT = re.compile(r"expected-error(?:-re)?(?:@([+-]\d+|above|below))?")


def _annotated_ops(chunk: str) -> list[tuple[int, int]]:
    """(first, last) line of each op an `expected-error` points at: from the
    annotated line to the end of its statement (the line where brackets close and
    a type signature has been seen), bounded to 60 lines."""
    lines = chunk.split("\n")
    out = []
    for n, text in enumerate(lines, 1):
        m = _ANNOT.search(text)
        if not m:
            continue
        off = m.group(1)
        target = n + (int(off) if off and off[0] in "+-" else 0)
        depth, end = 0, target
        for k in range(target, min(len(lines), target + 60) + 1):
            body = lines[k - 1].split("//", 1)[0].replace("->", "")
            depth += body.count("(") + body.count("{") + body.count("[") + body.count("<")
            depth -= body.count(")") + body.count("}") + body.count("]") + body.count(">")
            end = k
            if depth <= 0 and (":" in body or not body.rstrip().endswith(("(", "{", ",", ")", "}"))):
                break
        out.append((target, end))
    return out


def _located(chunk: str, found: list) -> bool:
    ranges = _annotated_ops(chunk)
    for d in found:
        if isinstance(d, str) or d.span is None:
            continue
        line = chunk.count("\n", 0, d.span.start) + 1
        if any(a <= line <= b for a, b in ranges):
            return True
    return False


def _expected(chunk: str) -> str:
    m = re.search(r"expected-error[^{]*\{\{(.*?)\}\}", chunk)
    return m.group(1) if m else "?"


def _fmt(d) -> str:
    if isinstance(d, str):
        return d
    return f"{d.code} {d.message[:160]}"


def testdata(root: Path, limit: int | None, order: str = "sorted", seed: int = 0) -> dict:
    """Lint the JAX exports one after the other in this process, in `order`
    (sorted, reversed or shuffled with `seed`): state that leaks from one file to
    the next shows up as a difference between orders."""
    files = sorted((root / "stablehlo" / "testdata").rglob("*.mlir"))
    if limit:
        files = files[:limit]
    if order == "reversed":
        files.reverse()
    elif order == "shuffled":
        random.Random(seed).shuffle(files)
    n = parsed = rule_err = parse_err = crash = 0
    size = 0
    bad: list = []
    t0 = time.perf_counter()
    for f in files:
        text = f.read_text(encoding="utf-8", errors="replace")
        size += len(text.encode())
        n += 1
        kind, found = classify(text, str(f.relative_to(root)))
        if kind == "crash":
            crash += 1
        elif kind == "parse":
            parse_err += 1
        elif kind == "rule":
            rule_err += 1
        if kind != "parse":
            parsed += 1
        if kind in ("crash", "rule", "parse"):
            bad.append((str(f.relative_to(root)), kind, [_fmt(d) for d in found][:2]))
    secs = time.perf_counter() - t0
    return {"order": order, "files": n, "parsed": parsed, "rule_error_files": rule_err, "parse_error_files": parse_err,
            "crash_files": crash, "megabytes": size / 1e6, "seconds": secs,
            "mb_per_s": size / 1e6 / secs if secs else 0.0, "bad": bad}


def _pct(a: int, b: int) -> str:
    return f"{100.0 * a / b:5.1f}%" if b else "    -"


def report(tallies: dict[str, Tally], td: dict | None, show: bool) -> None:
    print("(a) verifier tests (stablehlo/tests), per op family")
    head = (f"{'family':24} {'invalid':>7} {'rule':>6} {'at op':>6} {'parse':>6} {'missed':>6} {'det%':>6}  "
            f"{'valid':>5} {'rule':>5} {'parse':>5} {'false%':>6}  {'crash':>5}")
    print(head)
    tot = Tally()
    for fam in [*FAMILIES, *_EXTRA, TOTAL]:
        if fam not in tallies:
            continue
        t = tallies[fam]
        missed = t.invalid - t.detected - t.detected_parse
        print(f"{fam:24} {t.invalid:7} {t.detected:6} {t.located:6} {t.detected_parse:6} {missed:6} "
              f"{_pct(t.detected, t.invalid - t.detected_parse):>6}  {t.valid:5} {t.false_rule:5} "
              f"{t.false_parse:5} {_pct(t.false_rule, t.valid - t.false_parse):>6}  {t.crash:5}")
    print("  rule = invalid chunks with an error from a rule; at op = ... one of them on the op an expected-error "
          "points at;\n  det% = rule / invalid chunks that parse; false% = rule false errors / valid chunks "
          "that parse\n  (a chunk naming several families counts in each)")
    if show:
        for fam, t in tallies.items():
            if fam == TOTAL:
                continue
            for where, msg in t.misses:
                print(f"  MISS  [{fam}] {where}: expected {msg!r}")
            for where, found in t.false_errors:
                print(f"  FALSE [{fam}] {where}: {found}")
    if td is not None:
        print(f"\n(b) JAX exports (stablehlo/testdata), {td['order']} order")
        print(f"  files {td['files']}, parsed {td['parsed']} ({_pct(td['parsed'], td['files']).strip()}), "
              f"with a rule error {td['rule_error_files']}, with SHLO001 {td['parse_error_files']}, "
              f"crash {td['crash_files']}")
        print(f"  {td['megabytes']:.1f} MB in {td['seconds']:.1f} s = {td['mb_per_s']:.2f} MB/s")
        if show:
            for name, kind, found in td["bad"]:
                print(f"  {kind.upper():6} {name}: {found}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--stablehlo", type=Path, required=True, help="a checkout of openxla/stablehlo")
    ap.add_argument("--family", action="append", help="only these op families (repeatable)")
    ap.add_argument("--list-misses", action="store_true", help="print every miss and false error")
    ap.add_argument("--no-testdata", action="store_true", help="skip part (b)")
    ap.add_argument("--testdata-limit", type=int, help="only the first N testdata files (sorted)")
    ap.add_argument("--order", choices=("sorted", "reversed", "shuffled"), default="sorted",
                    help="the order testdata files are linted in (one process)")
    ap.add_argument("--seed", type=int, default=0, help="seed for --order shuffled")
    ap.add_argument("--json", type=Path, help="also write the numbers as JSON")
    args = ap.parse_args()
    if not (args.stablehlo / "stablehlo" / "tests").is_dir():
        print(f"{args.stablehlo}: not a stablehlo checkout (no stablehlo/tests/)", file=sys.stderr)
        return 2
    tallies = verifier_tests(args.stablehlo, set(args.family) if args.family else None)
    td = None if args.no_testdata else testdata(args.stablehlo, args.testdata_limit, args.order, args.seed)
    report(tallies, td, args.list_misses)
    if args.json:
        out = {"verifier": {k: {f: getattr(v, f) for f in ("invalid", "detected", "located", "detected_parse", "valid",
                                                            "false_rule", "false_parse", "crash")}
                            for k, v in tallies.items()}, "testdata": td and {k: v for k, v in td.items() if k != "bad"}}
        args.json.write_text(json.dumps(out, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
