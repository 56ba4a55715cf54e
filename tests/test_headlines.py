"""Headlines are one line: what and where, ruff/clang-tidy length.

The message of a finding is the line concise output prints, the title of a
GitHub annotation, GitLab's description and JUnit's failure message; the
cycle, the traces and the why go to notes, related locations and help. Over the
whole committed corpus and the test fixtures every concise line fits in 200
characters, no message carries a placeholder ("the n-th send"), and processes
are written one way in `check` and in `run`.
"""
from __future__ import annotations

import json
import re

from conftest import CORPUS, FIXTURES, ROOT, run_cli

PROGRAMS = sorted(str(p.relative_to(ROOT)) for p in [*CORPUS.rglob("*.mlir"), *FIXTURES.rglob("*.mlir")]
                  if not p.relative_to(CORPUS if CORPUS in p.parents else FIXTURES).parts[0] == "big")
"""Every committed program (corpus/big/ is generated, not committed), as paths from
the repository root: what a user linting the repository sees."""
MAX_LINE = 200


def test_the_corpus_is_large():
    assert len(PROGRAMS) > 400


def test_every_concise_line_fits():
    proc = run_cli("check", "-f", "concise", *PROGRAMS, cwd=ROOT)
    assert proc.returncode == 2 and not proc.stderr, proc.stderr[-2000:]  # 2: the syntax-error fixtures
    lines = proc.stdout.splitlines()
    findings = [line for line in lines if re.search(r": (error|warning|info)\[SHLO\d+\] ", line)]
    assert len(findings) > 250  # the corpus is mostly findings
    long = [line for line in lines if len(line) > MAX_LINE]
    assert not long, "\n".join(long)


def test_no_message_is_a_paragraph_or_a_placeholder():
    proc = run_cli("check", "-f", "json", *PROGRAMS, cwd=ROOT)
    doc = json.loads(proc.stdout)
    texts = []
    for d in doc["diagnostics"]:
        assert "\n" not in d["message"], d["message"]
        texts += [d["message"], d["help"] or "", *(r["message"] for r in d["related"])]
        for t in d["trace"] or ():
            texts += [t["waits_for"], *(s["message"] for s in t["steps"])]
    placeholders = [t for t in texts if re.search(r"\b[nk]-th\b", t)]
    assert not placeholders, placeholders


PROC = re.compile(r"\(\d+, ?\d+\)")


def _process_spellings(text: str) -> set[str]:
    """How the text writes processes and runs of them: "(0, 1)" or "(0,1)", "–" or ".."."""
    out = {"spaced" if ", " in m.group(0) else "tight" for m in PROC.finditer(text)}
    if re.search(r"\(\d+, ?\d+\)\.\.\(", text):
        out.add("dots")
    if re.search(r"\(\d+, ?\d+\)\u2013\(", text):
        out.add("dash")
    return out


def test_check_and_run_write_processes_alike_and_say_how_once():
    ring = CORPUS / "deadlock" / "recv_before_send_ring.mlir"
    half = CORPUS / "deadlock" / "while_partition_trip_count.mlir"
    check = run_cli("check", str(ring), str(half))
    run = run_cli("run", "--engine", "interp", str(ring))
    run_half = run_cli("run", "--engine", "interp", str(half))
    assert run.returncode == 1 and run_half.returncode == 1, run.stdout + run.stderr
    seen = [_process_spellings(out) for out in (check.stdout, run.stdout, run_half.stdout)]
    assert all(s and s <= {"spaced", "dash"} for s in seen), seen
    assert "dash" in seen[0] and "dash" in seen[2]  # runs of processes, in both commands
    for out in (check.stdout, run.stdout):
        assert out.count("processes are written (replica, partition)") == 1, out
