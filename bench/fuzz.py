"""Fuzz shlo-lint with mutations of the corpus, in process, with a time limit per case.

    python bench/fuzz.py [--cases N] [--seed S] [--time-limit SEC] [--out DIR]
                         [--only SUBSTRING] [--cli N] [--jobs 1] [--memory-limit MB]

Each case is a corpus program (corpus/{valid,invalid,real,deadlock,seeds}) with 1-3
mutations: byte flips, token and line deletion / duplication / swaps, truncation,
deep nesting ([ ( { < and tensor<...>), huge / negative / overflowing numbers, NUL
and bidi characters, op-name swaps, value renames (a use of another or an
undefined value), splices from another program. Cases run in
worker processes (fork; one by default: these machines are shared), each under a
soft limit (SIGALRM raises a BaseException the per-file guard does not swallow) and
a hard one (the worker is killed and replaced), with an address-space limit so a
runaway case is a MemoryError, not a swapping machine.

For every case: lint, then render text/json/sarif/github and check JSON/SARIF parse,
spans lie inside the file, and the exit code agrees with the diagnostics. Then a CLI
sample (`--cli N` files, every output format, one subprocess per format) checks exit
codes 0/1/2, no traceback on stderr and valid JSON/SARIF.

Counts printed (and returned by `campaign()`, which tests/test_fuzz.py calls; the
exit status is 1 unless every count of FAILURES is 0):
cases, tracebacks (exceptions escaping lint), shlo003 (internal errors the guard
caught), disguised (a parser exception reported as SHLO001 "... (SomeError: ...)"),
hangs, memory (MemoryError -> SHLO003), wrong_exit, invalid_output, bad_span, and
for the CLI sample cli_runs, cli_wrong_exit, cli_tracebacks, cli_invalid_output.
Each distinct failure (kind + exception + where it was raised) is minimised (lines,
then chunks, then characters, under a budget) and written to OUT/ as
`<kind>-<hash>.mlir` with a `.txt` saying what it triggers.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import multiprocessing as mp
import os
import random
import re
import resource
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

CORPUS_DIRS = ("valid", "invalid", "real", "deadlock", "seeds")
MAX_SEED_CHARS = 40_000
OPS = ["stablehlo.add", "stablehlo.all_reduce", "stablehlo.all_gather", "stablehlo.all_to_all",
       "stablehlo.reduce_scatter", "stablehlo.collective_permute", "stablehlo.collective_broadcast",
       "stablehlo.send", "stablehlo.recv", "stablehlo.async_start", "stablehlo.async_done", "stablehlo.while",
       "stablehlo.case", "stablehlo.if", "stablehlo.constant", "stablehlo.custom_call", "stablehlo.return",
       "stablehlo.after_all", "stablehlo.partition_id", "stablehlo.replica_id", "func.return", "func.call",
       "sdy.manual_computation", "stablehlo.optimization_barrier", "stablehlo.tuple", "stablehlo.reduce"]
NUMBERS = ["0", "-1", "-2147483649", "2147483648", "4294967296", "9223372036854775808", "-9223372036854775809",
           "18446744073709551616", "99999999999999999999999999999", "1e308", "-0", "0x7fffffff", "65536",
           "1000000", "2147483647", "-2147483648"]
ODD_CHARS = ["\x00", "\u202e", "\u2066", "\u2069", "\u200b", "\ufeff", "\ud7ff", "\U0001f600", "\r", "\t", "\x1b",
             "\u0301", "\\", '"', "\u00a0"]
_TOKEN = re.compile(r"\s+|[%#@^!$]?[\w.$\-]+|\"(?:[^\"\\\n]|\\.)*\"|.", re.S)
_INT = re.compile(r"(?<![\w.])-?\d+(?![\w.])")
_OPNAME = re.compile(r"\b(?:stablehlo|func|sdy|mhlo|chlo)\.[a-z_]+")
_DISGUISED = re.compile(r"\((\w*(?:Error|Exception|Exit|Interrupt)):")
_ORIGIN = re.compile(r"\[at ([^\]]+)\]")


# ----------------------------------------------------------------------------- seeds and mutations
def load_seeds(only: str | None = None) -> list[tuple[str, str]]:
    out = []
    for d in CORPUS_DIRS:
        for p in sorted((ROOT / "corpus" / d).glob("*.mlir")):
            text = p.read_text(encoding="utf-8", errors="replace")
            if len(text) <= MAX_SEED_CHARS and (only is None or only in text or only in p.name):
                out.append((f"{d}/{p.name}", text))
    return out


def _pos(rng: random.Random, text: str) -> int:
    return rng.randrange(len(text) + 1)


def _tokens(text: str) -> list[str]:
    return _TOKEN.findall(text)


def m_byte_flip(rng, text, seeds):
    b = bytearray(text.encode("utf-8"))
    for _ in range(rng.randint(1, 4)):
        if b:
            b[rng.randrange(len(b))] ^= 1 << rng.randrange(8)
    return b.decode("utf-8", errors="replace")


def m_token_delete(rng, text, seeds):
    toks = _tokens(text)
    if toks:
        i = rng.randrange(len(toks))
        del toks[i:i + rng.randint(1, 3)]
    return "".join(toks)


def m_token_duplicate(rng, text, seeds):
    toks = _tokens(text)
    if toks:
        i = rng.randrange(len(toks))
        toks[i:i] = toks[i:i + rng.randint(1, 4)] * rng.choice([1, 2, 10])
    return "".join(toks)


def m_token_swap(rng, text, seeds):
    toks = _tokens(text)
    if len(toks) > 2:
        i, j = rng.randrange(len(toks)), rng.randrange(len(toks))
        toks[i], toks[j] = toks[j], toks[i]
    return "".join(toks)


def m_line_delete(rng, text, seeds):
    lines = text.split("\n")
    i = rng.randrange(len(lines))
    del lines[i:i + rng.randint(1, 2)]
    return "\n".join(lines)


def m_line_duplicate(rng, text, seeds):
    lines = text.split("\n")
    i = rng.randrange(len(lines))
    lines[i:i] = lines[i:i + rng.randint(1, 3)] * rng.choice([1, 2, 5])
    return "\n".join(lines)


def m_line_swap(rng, text, seeds):
    lines = text.split("\n")
    i, j = rng.randrange(len(lines)), rng.randrange(len(lines))
    lines[i], lines[j] = lines[j], lines[i]
    return "\n".join(lines)


def m_truncate(rng, text, seeds):
    return text[:_pos(rng, text)]


def m_deep_nesting(rng, text, seeds):
    depth = rng.choice([50, 200, 1000, 3000])
    opener, closer = rng.choice([("[", "]"), ("(", ")"), ("{", "}"), ("<", ">"), ("tensor<", ">"),
                                 ("dense<[", "]>"), ("#stablehlo.x<", ">")])
    i = _pos(rng, text)
    inner = rng.choice(["", "1", "f32", "%0"])
    closing = closer * depth if rng.random() < 0.7 else closer * rng.randrange(depth)
    return text[:i] + opener * depth + inner + closing + text[i:]


def m_numbers(rng, text, seeds):
    found = list(_INT.finditer(text))
    if not found:
        return text
    m = rng.choice(found)
    return text[:m.start()] + rng.choice(NUMBERS) + text[m.end():]


def m_odd_chars(rng, text, seeds):
    for _ in range(rng.randint(1, 3)):
        i = _pos(rng, text)
        text = text[:i] + rng.choice(ODD_CHARS) * rng.choice([1, 1, 3]) + text[i:]
    return text


def m_op_swap(rng, text, seeds):
    found = list(_OPNAME.finditer(text))
    if not found:
        return text
    m = rng.choice(found)
    return text[:m.start()] + rng.choice(OPS) + text[m.end():]


def m_splice(rng, text, seeds):
    other = rng.choice(seeds)[1]
    a = _pos(rng, other)
    chunk = other[a:a + rng.randint(1, 400)]
    i = _pos(rng, text)
    return text[:i] + chunk + text[i:]


_VALUE = re.compile(r"%[\w$.\-]+")


def m_rename_value(rng, text, seeds):
    """A use of another (or an undefined) value: how fragments and typos look."""
    found = list(_VALUE.finditer(text))
    if not found:
        return text
    m = rng.choice(found)
    other = rng.choice(found).group(0) if rng.random() < 0.6 else f"%undefined{rng.randrange(3)}"
    return text[:m.start()] + other + text[m.end():]


MUTATORS = [m_byte_flip, m_token_delete, m_token_duplicate, m_token_swap, m_line_delete, m_line_duplicate,
            m_line_swap, m_truncate, m_deep_nesting, m_numbers, m_odd_chars, m_op_swap, m_splice, m_rename_value]


def mutate(rng: random.Random, seeds: list[tuple[str, str]]) -> tuple[str, str, list[str]]:
    name, text = rng.choice(seeds)
    applied = []
    for _ in range(rng.choice([1, 1, 2, 3])):
        m = rng.choice(MUTATORS)
        text = m(rng, text, seeds)
        applied.append(m.__name__[2:])
    return name, text, applied


# ----------------------------------------------------------------------------- one case
class Hang(BaseException):
    """Raised by SIGALRM: a BaseException, so no `except Exception` in shlo-lint eats it."""


def _alarm(signum, frame):
    raise Hang()


def check_case(text: str, time_limit: float) -> dict:
    """Lint + render one text; what went wrong, as a small dict (no exception leaves)."""
    import traceback

    from shlo_lint import Config
    from shlo_lint.checker.lint import registry
    from shlo_lint.checker.cli.commands import _exit_code, _summary
    from shlo_lint.checker.lint.engine import lint_source
    from shlo_lint.checker.report import render
    from shlo_lint.checker.source.text import SourceFile

    out: dict = {"problems": []}
    signal.signal(signal.SIGALRM, _alarm)
    signal.setitimer(signal.ITIMER_REAL, time_limit)
    t0 = time.perf_counter()
    try:
        result = lint_source(SourceFile("fuzz.mlir", text), Config())
        results = [result]
        n = len(text)
        for d in result.diagnostics:
            if d.code == "SHLO003":
                kind = "memory" if "MemoryError" in d.message else "shlo003"
                origin = _ORIGIN.search(d.message)
                out["problems"].append((kind, _first_words(d.message), origin.group(1) if origin else ""))
            elif d.code == "SHLO001" and (m := _DISGUISED.search(d.message)):
                out["problems"].append(("disguised", m.group(1) + ": " + d.message.split("(")[0].strip(), ""))
            if d.span is not None and not 0 <= d.span.start <= d.span.end <= n:
                out["problems"].append(("bad_span", f"{d.code} {tuple(d.span)} in {n} chars", ""))
        code = _exit_code(results, "warning", False)
        must_fail = any(d.category == "syntax" or d.code in ("SHLO002", "SHLO003") for d in result.diagnostics)
        expected = 2 if must_fail else 1 if any(d.severity.value in ("error", "warning")
                                                 for d in result.diagnostics) else 0
        if code != expected:
            out["problems"].append(("wrong_exit", f"exit {code} with {sorted({d.code for d in result.diagnostics})}",
                                    ""))
        sources = {"fuzz.mlir": result.source}
        for fmt in ("text", "json", "sarif", "github"):
            rendered = render(fmt, result.diagnostics, sources, registry.get, summary=_summary(results))
            if fmt in ("json", "sarif"):
                try:
                    json.loads(rendered)
                except ValueError as e:
                    out["problems"].append(("invalid_output", f"{fmt}: {e}", ""))
        out["codes"] = sorted({d.code for d in result.diagnostics})
    except Hang:
        out["problems"].append(("hang", f"over {time_limit:g} s", ""))
    except BaseException as e:  # noqa: BLE001 - that is what we count
        tb = traceback.extract_tb(e.__traceback__)
        ours = [f for f in tb if "shlo_lint" in f.filename or "/checker/" in f.filename or "/rules/" in f.filename]
        where = f"{Path(ours[-1].filename).name}:{ours[-1].lineno} ({ours[-1].name})" if ours else ""
        out["problems"].append(("traceback", f"{type(e).__name__}: {str(e)[:200]}", where))
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
    out["elapsed"] = time.perf_counter() - t0
    return out


def _first_words(message: str) -> str:
    """`internal error while running rule SHLO303 (...) (op `x`): AttributeError` - the stable part."""
    head = message.split("; this is a shlo-lint bug")[0]
    head = _ORIGIN.sub("", head)
    m = re.match(r"(internal error while [^:]*?)(?: \(op `[^`]*`\))?: (\w+)", head)
    return f"{m.group(1)}: {m.group(2)}" if m else head[:120]


def signature(problem: tuple[str, str, str]) -> str:
    kind, what, where = problem
    if kind in ("hang", "bad_span", "wrong_exit", "invalid_output"):
        what = re.sub(r"\d+", "N", what)
    if kind == "disguised":  # one parser bug, whatever op (or mutilated op name) it hit
        what = re.sub(r"could not read this \S+ op", "could not read this <op> op", what)
    return f"{kind}|{what}|{where}"


# ----------------------------------------------------------------------------- workers
def _address_space() -> int:
    """Bytes of address space this process already has (0 if unknown)."""
    try:
        with open("/proc/self/statm") as f:
            return int(f.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return 0


def _worker(conn, time_limit: float, memory_mb: int) -> None:
    if memory_mb:
        # On top of what the parent had when it forked: a parent that imported JAX
        # (the test suite) already holds gigabytes of address space, and an absolute
        # limit below that kills every worker at its first allocation.
        limit = _address_space() + (memory_mb << 20)
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    while True:
        job = conn.recv()
        if job is None:
            return
        try:
            result = check_case(job, time_limit)
        except BaseException as e:  # noqa: BLE001 - e.g. out of memory while recording a failure
            result = {"problems": [("traceback", f"in the fuzz worker: {type(e).__name__}", "")]}
        conn.send(result)


class Pool:
    """`jobs` forked workers; a case over the hard limit kills its worker (a hang in C code)."""

    def __init__(self, jobs: int, time_limit: float, memory_mb: int):
        self.ctx = mp.get_context("fork")
        self.time_limit, self.memory_mb = time_limit, memory_mb
        self.workers = [self._spawn() for _ in range(max(1, jobs))]

    def _spawn(self):
        parent, child = self.ctx.Pipe()
        p = self.ctx.Process(target=_worker, args=(child, self.time_limit, self.memory_mb), daemon=True)
        p.start()
        return [p, parent]

    def run(self, texts: list[str]) -> list[dict]:
        """Results in order; the workers take one case each at a time."""
        results: list[dict | None] = [None] * len(texts)
        queue = list(enumerate(texts))[::-1]
        busy: dict[int, tuple[int, float]] = {}
        while queue or busy:
            for w, (p, conn) in enumerate(self.workers):
                if w not in busy and queue:
                    i, text = queue.pop()
                    conn.send(text)
                    busy[w] = (i, time.monotonic())
            for w in list(busy):
                p, conn = self.workers[w]
                i, started = busy[w]
                if conn.poll(0.005):
                    try:
                        results[i] = conn.recv()
                    except (EOFError, OSError):
                        results[i] = {"problems": [("traceback", "worker died", "")]}
                        self._replace(w)
                    del busy[w]
                elif not p.is_alive():
                    results[i] = {"problems": [("traceback", f"worker died (exit {p.exitcode})", "")]}
                    self._replace(w)
                    del busy[w]
                elif time.monotonic() - started > self.time_limit + 15:
                    results[i] = {"problems": [("hang", f"over {self.time_limit:g} s (killed)", "")]}
                    self._replace(w)
                    del busy[w]
        return results  # type: ignore[return-value]

    def _replace(self, w: int) -> None:
        p, conn = self.workers[w]
        p.kill()
        p.join()
        self.workers[w] = self._spawn()

    def close(self) -> None:
        for p, conn in self.workers:
            try:
                conn.send(None)
            except OSError:
                pass
            p.join(2)
            if p.is_alive():
                p.kill()


# ----------------------------------------------------------------------------- minimising
def minimise(text: str, sig: str, still: callable, budget: int = 300) -> str:
    """Shrink `text` while `still(candidate)` keeps the failure: lines, chunks, characters."""
    calls = [0]

    def ok(candidate: str) -> bool:
        if calls[0] >= budget or not candidate.strip():
            return False
        calls[0] += 1
        return still(candidate)

    for unit in ("\n", None):
        parts = text.split("\n") if unit else list(text)
        glue = "\n" if unit else ""
        n = 2
        while len(parts) >= 2 and calls[0] < budget:
            chunk = max(1, len(parts) // n)
            shrunk = False
            for start in range(0, len(parts), chunk):
                cand = parts[:start] + parts[start + chunk:]
                if ok(glue.join(cand)):
                    parts, n, shrunk = cand, max(n - 1, 2), True
                    break
            if not shrunk:
                if chunk == 1:
                    break
                n = min(n * 2, len(parts))
        text = glue.join(parts)
        if unit is None or len(text) > 4000:
            break
    return text


# ----------------------------------------------------------------------------- CLI sample
def cli_sample(texts: list[str], tmp: Path) -> dict:
    """Every output format over the same files, one `python -m shlo_lint` per format."""
    counts = {"cli_runs": 0, "cli_wrong_exit": 0, "cli_tracebacks": 0, "cli_invalid_output": 0}
    if not texts:
        return counts
    paths = []
    for k, text in enumerate(texts):
        p = tmp / f"cli_{k}.mlir"
        p.write_bytes(text.encode("utf-8", errors="surrogatepass"))
        paths.append(str(p))
    expected = None
    env = {**os.environ, "NO_COLOR": "1"}
    for fmt in ("json", "text", "sarif", "github"):
        proc = subprocess.run([sys.executable, "-m", "shlo_lint", "check", "--isolated", "-f", fmt, *paths],
                              capture_output=True, text=True, timeout=600, env=env, cwd=tmp,
                              errors="replace")
        counts["cli_runs"] += 1
        if "Traceback (most recent call last)" in proc.stderr + proc.stdout:
            counts["cli_tracebacks"] += 1
        if fmt in ("json", "sarif"):
            try:
                data = json.loads(proc.stdout)
            except ValueError:
                counts["cli_invalid_output"] += 1
                data = None
            if fmt == "json" and data is not None:
                diags = data.get("diagnostics", [])
                fail = any(d["category"] == "syntax" or d["code"] in ("SHLO002", "SHLO003") for d in diags)
                expected = 2 if fail else 1 if any(d["severity"] in ("error", "warning") for d in diags) else 0
        if proc.returncode not in (0, 1, 2) or (expected is not None and proc.returncode != expected):
            counts["cli_wrong_exit"] += 1
    return counts


# ----------------------------------------------------------------------------- campaign
KINDS = ("traceback", "shlo003", "disguised", "memory", "hang", "wrong_exit", "invalid_output", "bad_span")
FAILURES = KINDS + ("cli_wrong_exit", "cli_tracebacks", "cli_invalid_output")
"""A campaign is clean when every one of these counts is 0 (an internal error the
guard caught is a bug as much as one that escaped)."""


def campaign(cases: int = 300, seed: int = 0, time_limit: float = 10.0, out: Path | None = None,
             only: str | None = None, cli: int = 8, jobs: int = 1, memory_mb: int = 1500,
             batch: int = 200, minimise_budget: int = 300, progress: bool = False) -> dict:
    rng = random.Random(seed)
    seeds = load_seeds(only)
    if not seeds:
        raise SystemExit(f"no corpus program matches {only!r}")
    counts = {"cases": 0, **{k: 0 for k in KINDS}}
    found: dict[str, dict] = {}
    pool = Pool(jobs, time_limit, memory_mb)
    cli_texts: list[str] = []
    t0 = time.time()
    try:
        done = 0
        while done < cases:
            n = min(batch, cases - done)
            jobs_ = [mutate(rng, seeds) for _ in range(n)]
            results = pool.run([text for _name, text, _m in jobs_])
            for (name, text, applied), res in zip(jobs_, results):
                counts["cases"] += 1
                kinds = {p[0] for p in res["problems"]}
                for k in kinds:
                    counts[k] += 1
                for p in res["problems"]:
                    sig = signature(p)
                    entry = found.setdefault(sig, {"problem": p, "count": 0, "seed": name, "mutations": applied,
                                                   "text": text})
                    entry["count"] += 1
                    if len(text) < len(entry["text"]):
                        entry.update(seed=name, mutations=applied, text=text)
                if len(cli_texts) < cli and rng.random() < 0.5:
                    cli_texts.append(text)
            done += n
            if progress:
                rate = done / max(time.time() - t0, 1e-9)
                print(f"  {done} cases, {rate:.1f}/s, " + ", ".join(f"{k} {counts[k]}" for k in KINDS if counts[k]),
                      file=sys.stderr, flush=True)
        # Each distinct failure: written as found first (minimising can be slow), then
        # minimised with the same pool (same limits) and written again.
        for sig, entry in found.items():
            entry["minimised"] = entry["text"]
            _write(out, sig, entry)
        for sig, entry in found.items():
            kind = entry["problem"][0]
            if kind == "hang":
                continue  # each try costs the full time limit
            budget = minimise_budget if kind != "memory" else min(minimise_budget, 25)

            def still(candidate: str, _sig=sig) -> bool:
                (res,) = pool.run([candidate])
                return any(signature(p) == _sig for p in res["problems"])

            entry["minimised"] = minimise(entry["text"], sig, still, budget)
            _write(out, sig, entry)
    finally:
        pool.close()
    with tempfile.TemporaryDirectory() as tmp:
        counts.update(cli_sample(cli_texts, Path(tmp)))
    counts["seconds"] = round(time.time() - t0, 1)
    counts["findings"] = {sig: {"count": e["count"], "minimised": e["minimised"]} for sig, e in found.items()}
    return counts


def _write(out: Path | None, sig: str, entry: dict) -> None:
    if out is None or not entry["minimised"]:
        return
    out.mkdir(parents=True, exist_ok=True)
    h = hashlib.sha256(sig.encode()).hexdigest()[:10]
    kind = entry["problem"][0]
    (out / f"{kind}-{h}.mlir").write_bytes(entry["minimised"].encode("utf-8", errors="surrogatepass"))
    (out / f"{kind}-{h}.txt").write_text(
        f"kind: {kind}\nwhat: {entry['problem'][1]}\nwhere: {entry['problem'][2]}\n"
        f"cases: {entry['count']}\nfrom: corpus/{entry['seed']} with {', '.join(entry['mutations'])}\n")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cases", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--time-limit", type=float, default=10.0, help="seconds per case (a hang past it)")
    ap.add_argument("--out", type=Path, default=Path("fuzz_out"), help="minimised reproducers go here")
    ap.add_argument("--only", default=None, help="only corpus programs containing this text (e.g. async_start)")
    ap.add_argument("--cli", type=int, default=20, help="mutated files in the CLI sample (every format)")
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--memory-limit", type=int, default=1500, help="MB of address space per worker")
    ap.add_argument("--minimise-budget", type=int, default=300, help="lint calls per distinct failure")
    args = ap.parse_args(argv)
    counts = campaign(args.cases, args.seed, args.time_limit, args.out, args.only, args.cli, args.jobs,
                      args.memory_limit, minimise_budget=args.minimise_budget, progress=True)
    findings = counts.pop("findings")
    print(json.dumps(counts, indent=2))
    for sig, f in sorted(findings.items(), key=lambda kv: -kv[1]["count"]):
        print(f"{f['count']:>7}  {sig}")
    bad = sum(counts[k] for k in FAILURES)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
