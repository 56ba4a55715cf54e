"""Commas added, doubled and removed in JAX exports and StableHLO testdata, each
mutated program read by shlo-lint and by jaxlib's MLIR parser: the measurement
behind docs/parser.md's "~25,000 comma mutations" (checker/frontend/stablehlo/
parse/commas.py).

    python bench/comma_mutations.py [--cases 25000] [--seed 1124]
                                    [--stablehlo PATH] [--testdata 300] [--json OUT]

Texts: every corpus/real/*.mlir (JAX exports) and, with --stablehlo, `--testdata`
files of PATH/stablehlo/testdata/ (a seeded sample, up to 60 KB each). A case
picks a text and one of its commas and replaces that comma with `, ,` (an
element added), `,,` (doubled) or nothing (removed), then asks:

* jaxlib: does `ir.Module.parse` accept it (jaxlib's StableHLO dialect, the
  parser JAX itself round-trips through)?
* shlo-lint: is there a SHLO001, and is one of them the comma check's own
  (its messages start "unexpected ','", "expected ',' between", "dense<...>:")?

Prints: cases, how many jaxlib rejects, false errors (a SHLO001 where jaxlib
parses: the count that must be 0, for the comma check and for any syntax error),
and the share of jaxlib's rejections reported (by the comma check; by any
SHLO001). Needs the `jax` extra. One process, ~20 ms a case here.
"""
from __future__ import annotations

import argparse
import json
import random
import re
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from shlo_lint import Config, lint_text  # noqa: E402

COMMA_CHECK = ("unexpected ','", "expected ',' between", "dense<...>:")
"""How the comma check's messages start (the grammar's own errors say other things)."""
MUTATIONS = (", ,", ",,", "")
MAX_CHARS = 60_000


def texts(stablehlo: Path | None, testdata: int, rng: random.Random) -> list[tuple[str, str]]:
    out = [(f"corpus/real/{p.name}", p.read_text(encoding="utf-8")) for p in sorted((ROOT / "corpus" / "real").glob("*.mlir"))]
    if stablehlo is not None:
        folder = stablehlo / "stablehlo" / "testdata"
        files = sorted(p for p in folder.glob("*.mlir") if p.stat().st_size <= MAX_CHARS)
        for p in rng.sample(files, min(testdata, len(files))):
            out.append((f"testdata/{p.name}", p.read_text(encoding="utf-8")))
    return [(name, t) for name, t in out if "," in t]


def jaxlib_parser():
    from jax._src.interpreters import mlir
    from jax._src.lib.mlir import ir

    ctx = mlir.make_ir_context()
    ctx.allow_unregistered_dialects = True  # sdy/mhlo attributes JAX writes are registered; others stay readable

    def parses(text: str) -> bool:
        try:
            ir.Module.parse(text, context=ctx)
            return True
        except Exception:  # noqa: BLE001 - jaxlib's MLIRError and friends
            return False

    return parses


def campaign(cases: int, seed: int, stablehlo: Path | None, testdata: int, progress: bool = False) -> dict:
    rng = random.Random(seed)
    pool = texts(stablehlo, testdata, rng)
    parses = jaxlib_parser()
    baseline = {name: parses(t) for name, t in pool}
    pool = [(name, t) for name, t in pool if baseline[name]]  # mutate only what jaxlib reads as written
    counts = {"cases": 0, "texts": len(pool), "jaxlib_rejects": 0, "false_comma_check": 0, "false_any_syntax": 0,
              "rejected_and_comma_check": 0, "rejected_and_any_syntax": 0}
    falses: list[dict] = []
    t0 = time.time()
    for k in range(cases):
        name, text = rng.choice(pool)
        commas = [m.start() for m in re.finditer(",", text)]
        i = rng.choice(commas)
        mutated = text[:i] + rng.choice(MUTATIONS) + text[i + 1:]
        syntax = [d.message for d in lint_text(mutated, "m.mlir", Config()) if d.code == "SHLO001"]
        ours = any(m.startswith(COMMA_CHECK) for m in syntax)
        ok = parses(mutated)
        counts["cases"] += 1
        if ok:
            counts["false_comma_check"] += ours
            counts["false_any_syntax"] += bool(syntax)
            if syntax and len(falses) < 20:
                falses.append({"text": name, "line": mutated.count("\n", 0, i) + 1, "message": syntax[0][:200]})
        else:
            counts["jaxlib_rejects"] += 1
            counts["rejected_and_comma_check"] += ours
            counts["rejected_and_any_syntax"] += bool(syntax)
        if progress and (k + 1) % 1000 == 0:
            print(f"  {k + 1} cases, {(k + 1) / (time.time() - t0):.1f}/s", file=sys.stderr, flush=True)
    rejected = max(1, counts["jaxlib_rejects"])
    counts["reported_by_comma_check"] = round(counts["rejected_and_comma_check"] / rejected, 4)
    counts["reported_by_any_syntax"] = round(counts["rejected_and_any_syntax"] / rejected, 4)
    counts["seconds"] = round(time.time() - t0, 1)
    counts["false_examples"] = falses
    return counts


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cases", type=int, default=25_000)
    ap.add_argument("--seed", type=int, default=1124)
    ap.add_argument("--stablehlo", type=Path, default=None, help="an openxla/stablehlo checkout (its testdata)")
    ap.add_argument("--testdata", type=int, default=300, help="testdata files in the sample")
    ap.add_argument("--json", type=Path, default=None)
    args = ap.parse_args(argv)
    counts = campaign(args.cases, args.seed, args.stablehlo, args.testdata, progress=True)
    print(json.dumps(counts, indent=2))
    if args.json:
        args.json.write_text(json.dumps(counts, indent=1))
    return 1 if counts["false_comma_check"] else 0


if __name__ == "__main__":
    sys.exit(main())
