"""A sweep of JAX exports: every program of corpus/generate.py, corpus/patterns.py
and corpus/sweep.py, lowered in every form JAX prints, linted, and (with --xla)
run on XLA:CPU for the ground truth: the generator behind docs/conformance.md's
sweep of JAX exports, which the repository could not reproduce before.

    python bench/jax_sweep.py [--out DIR] [--only NAME ...] [--xla] [--json OUT]

Needs the `jax` extra (8 virtual CPU devices; XLA_FLAGS is set before JAX is
imported, by corpus/generate.py). Forms of each program:

* Shardy: `lowered.as_text()`, `as_text(debug_info=True)`, and the module's
  `get_asm` with `print_generic_op_form`, `enable_debug_info`,
  `pretty_debug_info`, `large_elements_limit=2`, `use_name_loc_as_prefix`,
  generic with debug info, `use_local_scope` + `assume_verified`; and
  `jax.export(...).mlir_module()` (it refuses host callbacks);
* GSPMD (`jax_use_shardy_partitioner` off): `as_text()`;
* both partitioners lowered for cuda, tpu and rocm (`lowering_platforms`).

Each file is linted in this process (`lint_text`, every header parsed) and read
back by jaxlib's MLIR parser. Counted: files, lowerings JAX refused, SHLO003
(must be 0), SHLO001 on files jaxlib reads (must be 0), and the findings per
severity. With --xla, each program's Shardy and GSPMD CPU forms run under
`shlo-lint run --engine xla` (XLA:CPU's rendezvous aborts after 10 s; 120 s
watchdog): completed, hung (aborted / timeout) or refused, against what the
linter said about that file — an error on a program that completed is a false
error; a hang with no SHLO500/501/505 error or SHLO504 warning a miss.
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
import traceback
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "corpus"))

import generate  # noqa: E402 - corpus/generate.py: sets XLA_FLAGS, imports jax, has the builders
from sweep import SWEEP  # noqa: E402 - corpus/sweep.py

from shlo_lint import Config, lint_text  # noqa: E402

SHARDY_FORMS = {
    "": lambda lowered, module: lowered.as_text(),
    "as_text_debug": lambda lowered, module: lowered.as_text(debug_info=True),
    "generic": lambda lowered, module: module.operation.get_asm(print_generic_op_form=True),
    "debug": lambda lowered, module: module.operation.get_asm(enable_debug_info=True),
    "pretty_debug": lambda lowered, module: module.operation.get_asm(enable_debug_info=True,
                                                                     pretty_debug_info=True),
    "large_elements_2": lambda lowered, module: module.operation.get_asm(large_elements_limit=2),
    "name_loc_prefix": lambda lowered, module: module.operation.get_asm(enable_debug_info=True,
                                                                        use_name_loc_as_prefix=True),
    "generic_debug": lambda lowered, module: module.operation.get_asm(print_generic_op_form=True,
                                                                      enable_debug_info=True),
    "local_scope": lambda lowered, module: module.operation.get_asm(use_local_scope=True, assume_verified=True),
}
PLATFORMS = ("cuda", "tpu", "rocm")
HANG = ("aborted", "timeout", "deadlock")


def programs(only=None) -> list[tuple[str, object, dict]]:
    seen, out = set(), []
    for name, builder, opt in list(generate.PROGRAMS) + SWEEP:
        if opt.get("probe") or (only and name not in only):
            continue
        key = name + "." + (opt.get("bug") or "")
        if key in seen:
            continue
        seen.add(key)
        out.append((name, builder, opt))
    return out


def forms(name: str, builder, opt: dict) -> tuple[dict[str, str], list[str]]:
    """{form name: text}, [refusals]."""
    texts, refused = {}, []
    plats = opt.get("platforms")
    for mode in ("shardy", "gspmd"):
        generate.set_partitioner(mode)
        if mode == "gspmd" and opt.get("gspmd") is False:
            continue
        try:
            fn, args = builder()
            lowered = generate.lower(fn, args, plats)
            module = lowered.compiler_ir("stablehlo")
        except Exception as e:  # noqa: BLE001 - JAX refusing to lower is a result
            refused.append(f"{name} ({mode}): {type(e).__name__}: {str(e).splitlines()[0][:160] if str(e) else ''}")
            continue
        if mode == "gspmd":
            texts["gspmd"] = lowered.as_text()
        else:
            for form, render in SHARDY_FORMS.items():
                try:
                    texts[form] = generate.relativize(render(lowered, module))
                except Exception as e:  # noqa: BLE001
                    refused.append(f"{name} ({form}): {type(e).__name__}")
            try:
                texts["export"] = generate.render(fn, args, plats, "export")
            except Exception as e:  # noqa: BLE001 - jax.export refuses host callbacks, custom_partitioning
                refused.append(f"{name} (export): {type(e).__name__}")
        if plats:
            continue  # already lowered for its one platform
        for platform in PLATFORMS:
            try:
                fn, args = builder()
                texts[f"{mode}.{platform}"] = generate.lower(fn, args, (platform,)).as_text()
            except Exception as e:  # noqa: BLE001
                refused.append(f"{name} ({mode}, {platform}): {type(e).__name__}")
    generate.set_partitioner("shardy")
    return texts, refused


def jaxlib_reads():
    from jax._src.interpreters import mlir
    from jax._src.lib.mlir import ir

    ctx = mlir.make_ir_context()

    def reads(text: str) -> bool:
        try:
            ir.Module.parse(text, context=ctx)
            return True
        except Exception:  # noqa: BLE001
            return False
    return reads


def xla_outcome(path: Path, timeout: float) -> str:
    proc = subprocess.run([sys.executable, "-m", "shlo_lint", "run", "--engine", "xla", "-f", "json",
                           "--xla-stuck-timeout", "10", "--xla-timeout", str(int(timeout)), str(path)],
                          capture_output=True, text=True, timeout=timeout + 60)
    try:
        return json.loads(proc.stdout)["outcome"]
    except (ValueError, KeyError):
        return "error"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", type=Path, default=None, help="keep the files here (default: a temporary folder)")
    ap.add_argument("--only", nargs="*")
    ap.add_argument("--xla", action="store_true", help="run the CPU forms on XLA:CPU (slow: a hang costs ~15 s)")
    ap.add_argument("--xla-timeout", type=float, default=120.0)
    ap.add_argument("--json", type=Path, default=None)
    args = ap.parse_args(argv)
    t0 = time.time()
    out = args.out or Path(tempfile.mkdtemp(prefix="shlo-lint-sweep-"))
    out.mkdir(parents=True, exist_ok=True)
    reads = jaxlib_reads()
    totals = Counter()
    rows = []
    refusals: list[str] = []
    for name, builder, opt in programs(args.only):
        texts, refused = forms(name, builder, opt)
        refusals += refused
        totals["programs"] += 1
        totals["lowerings refused"] += len(refused)
        for form, text in texts.items():
            fname = ".".join(p for p in (name, form, opt.get("bug")) if p) + ".mlir"
            path = out / fname
            path.write_text(text if text.endswith("\n") else text + "\n")
            try:
                diags = lint_text(text, fname, Config())
            except Exception:  # noqa: BLE001 - lint_source never raises; count it if it does
                traceback.print_exc()
                diags = []
                totals["lint raised"] += 1
            codes = Counter(d.code for d in diags)
            parses = reads(text)
            totals["files"] += 1
            totals["SHLO003"] += codes["SHLO003"]
            if parses:
                totals["SHLO001 where jaxlib reads the file"] += codes["SHLO001"]
            else:
                totals["files jaxlib rejects"] += 1
            for d in diags:
                totals[f"findings ({d.severity.value})"] += 1
            rows.append({"program": name, "form": form, "file": fname, "jaxlib_reads": parses,
                         "codes": dict(codes), "bug": opt.get("bug")})
    if args.xla:
        cpu = [r for r in rows if r["form"] in ("", "gspmd") and not (generate_platforms(r) or "").strip()]
        for r in cpu:
            outcome = xla_outcome(out / r["file"], args.xla_timeout)
            r["xla"] = outcome
            errors = {c for c in r["codes"] if c in ("SHLO500", "SHLO501")}
            warned = {c for c in r["codes"] if c in ("SHLO504", "SHLO505")}
            if outcome == "completed":
                totals["xla completed"] += 1
                totals["false errors (an SHLO500/501 on a program that completed)"] += bool(errors)
                totals["warnings on programs that completed (SHLO504/505)"] += bool(warned)
            elif outcome in HANG:
                totals["xla hung"] += 1
                totals["hangs reported as errors (SHLO500/501)"] += bool(errors)
                totals["hangs warned only (SHLO504/505)"] += bool(warned and not errors)
                totals["hangs missed"] += not (errors or warned)
            else:
                totals[f"xla {outcome}"] += 1
            print(f"  xla {r['file']}: {outcome} {sorted(r['codes'])}", file=sys.stderr, flush=True)
    totals["seconds"] = round(time.time() - t0)
    print(json.dumps(dict(totals), indent=2))
    if refusals:
        print("JAX refused to lower:\n  " + "\n  ".join(refusals))
    if args.json:
        args.json.write_text(json.dumps({"totals": dict(totals), "files": rows, "refused": refusals}, indent=1))
    bad = totals["SHLO003"] + totals["SHLO001 where jaxlib reads the file"] + totals["lint raised"]
    return 1 if bad else 0


def generate_platforms(row: dict) -> str | None:
    """The platform a program was lowered for when it is not the CPU (send/recv: cuda)."""
    for name, _builder, opt in list(generate.PROGRAMS) + SWEEP:
        if name == row["program"]:
            return ",".join(p for p in (opt.get("platforms") or ()) if p != "cpu")
    return None


if __name__ == "__main__":
    sys.exit(main())
