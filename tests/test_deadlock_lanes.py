"""Every lane of a deadlock's trace holds for every process it stands for.

A lane (ProcessTrace) names its members (`process` + `others`); its steps and
`waits_for` speak of each member, concretely or symbolically ("recv from
(0, p-1 mod 1024)" for the member (0, p)). Here each member's ids are put into
the lane's words and the result is compared with that member's own run in the
per-process model (its events and where propagation left it), computed apart
from the words: the line it is blocked at and the peer named there, the steps
it completed, every process it waits for and what each of those does instead.
"""
from __future__ import annotations

import re
import sys
from dataclasses import dataclass, field

import pytest

from conftest import CORPUS, FIXTURES, ROOT, run_cli
from shlo_lint import Config, lint_text
from shlo_lint.checker.analysis.process_model import Model, analyze
from shlo_lint.checker.analysis.process_model.model import EXIT, NOP, PERM, RECV, SEND, UNRES, Facts
from shlo_lint.checker.analysis.semantics import grid_of
from shlo_lint.checker.analysis.tracer.structure import structure
from shlo_lint.checker.frontend.stablehlo.scan import scan
from shlo_lint.checker.frontend.read import header_parser as parser
from shlo_lint.checker.source.text import SourceFile

sys.path.insert(0, str(ROOT / "corpus" / "deadlock"))
from generate_grids import all_distinct, branch_psum, sendrecv  # noqa: E402

RING8 = FIXTURES / "html" / "ring8_after_all_reduce.mlir"
RING1024 = CORPUS / "deadlock" / "grid_1024_ring_recv_first.mlir"
HALF2048 = CORPUS / "deadlock" / "grid_2048_branch_half_psum.mlir"


# ----------------------------------------------------------------------------- the model's truth
@dataclass
class Run:
    """One process in the model: where it ended and what it waits for."""

    finished: bool
    blocked_line: int | None = None
    blocked_peer: tuple[int, int] | None = None
    at_end_sends: dict[int, set] = field(default_factory=dict)
    """Blocked at its end: line of each send not yet received → its targets."""
    completed: list[tuple[int, tuple[int, int] | None]] = field(default_factory=list)
    waits: dict[tuple[int, int], tuple[str, int | None]] = field(default_factory=dict)
    """Each process it waits for → ("finished" | "never" | "blocked" | "unresolved", line)."""


def model_runs(text: str) -> dict[tuple[int, int], Run]:
    module = scan(SourceFile("t.mlir", text), parser())
    grid = grid_of(module)
    v = analyze(module, grid)
    assert v.status == "deadlock" and v.trace is not None
    tr = v.trace
    model = Model(tr, Facts(tr.grid, structure(module)), v.matching, max_events=10 ** 8, deadline=None)
    final = model.propagate()
    P = tr.grid.num_partitions

    def line(e) -> int:
        return module.source.line_col(tr.steps[e[1]].op.span.start)[0]

    def peer(e):
        q = e[2] if e[0] in (RECV, SEND) else e[4] if e[0] == PERM and e[4] >= 0 else None
        return None if q is None else divmod(q, P)

    runs = {}
    for p in range(model.n):
        ev = model.events[p]
        done = [(line(x), peer(x)) for x in ev[:final[p]] if x[0] not in (NOP, EXIT, UNRES)]
        if final[p] >= len(ev):
            runs[divmod(p, P)] = Run(True, completed=done)
            continue
        e = ev[final[p]]
        run = Run(False, completed=done)
        if e[0] == EXIT:
            for kind, tgt, _key, pos in e[2]:
                run.at_end_sends.setdefault(line(ev[pos]), set()).add(divmod(tgt, P))
        elif e[0] != UNRES:
            run.blocked_line, run.blocked_peer = line(e), peer(e)
        for q, j in model.requirements(p, e):
            if j is not None and final[q] >= j:
                continue
            qe = model.events[q]
            if j is None:
                state = ("unresolved" if model.truncated[q] else "never" if final[q] < len(qe) else "finished", None)
            elif qe[final[q]][0] == UNRES:
                state = ("unresolved", None)
            else:
                cur = qe[final[q]]
                state = ("blocked", line(cur) if cur[0] != EXIT else None)
            run.waits[divmod(q, P)] = state
        runs[divmod(p, P)] = run
    return runs


# ----------------------------------------------------------------------------- the lanes' words
_COMPONENT = re.compile(r"^(?:(?P<int>\d+)|(?P<var>[rp])(?:(?P<sign>[+-])(?P<k>\d+))?(?: mod (?P<mod>\d+))?)$")
_PROC = re.compile(r"\(([^(),]+), ([^(),]+)\)")


def _value(text: str, member: tuple[int, int]) -> int | None:
    m = _COMPONENT.match(text.strip())
    if m is None:
        return None
    if m["int"] is not None:
        return int(m["int"])
    v = member[0] if m["var"] == "r" else member[1]
    if m["k"]:
        v += int(m["k"]) if m["sign"] == "+" else -int(m["k"])
    if m["mod"]:
        v %= int(m["mod"])
    return v


def processes_in(text: str, member: tuple[int, int]) -> tuple[list[tuple[int, int]], int]:
    """The processes a text names, read for `member` (ranges expanded), and how
    many more it counts without naming ("and 5 more")."""
    out: list[tuple[int, int]] = []
    tokens = [(m.start(), m.end(), (_value(m[1], member), _value(m[2], member))) for m in _PROC.finditer(text)]
    tokens = [t for t in tokens if None not in t[2]]
    k = 0
    while k < len(tokens):
        start, end, a = tokens[k]
        if k + 1 < len(tokens) and text[end:tokens[k + 1][0]] == "\u2013":
            b = tokens[k + 1][2]
            assert a[0] == b[0], text
            out += [(a[0], p) for p in range(a[1], b[1] + 1)]
            k += 2
        else:
            out.append(a)
            k += 1
    more = re.search(r" and (\d+) more", text)
    return out, int(more[1]) if more else 0


_SEGMENT = re.compile(r"process(?:es)? (?P<who>.+?) to [^;]+?(?:; (?:it|they) (?P<state>finished without getting "
                      r"there|never executes? a matching op|(?:is|are) blocked at \w+ \(line (?P<line>\d+)\)|"
                      r"stopped being followed[^;]*))?(?:; |$)")


def check_waits(text: str, member: tuple[int, int], run: Run) -> None:
    assert text.startswith("waits for "), text
    named: list[tuple[int, int]] = []
    counted = 0
    for seg in _SEGMENT.finditer(text[len("waits for "):]):
        who, more = processes_in(seg["who"], member)
        named += who
        counted += more
        state = seg["state"] or ""
        for q in who:
            got, line = run.waits[q]  # KeyError: it names a process the member does not wait for
            if state.startswith("finished"):
                assert got == "finished", (member, q, text)
            elif "never" in state:
                assert got == "never", (member, q, text)
            elif "blocked" in state:
                assert got == "blocked" and line == int(seg["line"]), (member, q, text, line)
            elif state.startswith("stopped"):
                assert got == "unresolved", (member, q, text)
    assert len(set(named)) == len(named), text
    assert set(named) <= set(run.waits), (member, text)
    assert len(named) + counted == len(run.waits), (member, text, sorted(run.waits))


def check_label(label: str, members: list[tuple[int, int]]) -> None:
    if not label:
        assert len(members) == 1
        return
    n = re.match(r"(\d+) processes ", label)
    assert n and int(n[1]) == len(members), label
    ps = re.search(r"\(\d+, p\), p = (\d+)\u2013(\d+)$", label)
    if ps:
        assert {p for _r, p in members} == set(range(int(ps[1]), int(ps[2]) + 1)), label
        assert len({r for r, _p in members}) == 1, label


def check_lanes(text: str, path: str = "t.mlir") -> list:
    """Lint `text`, and check every lane of every deadlock finding against the model."""
    runs = model_runs(text)
    source = SourceFile(path, text)
    diags = [d for d in lint_text(text, path, Config()) if d.trace]
    assert diags
    for d in diags:
        for t in d.trace:
            members = [tuple(t.process), *map(tuple, t.others)]
            check_label(t.label, members)
            blocked = [s for s in t.steps if s.blocked]
            for m in members:
                run = runs[m]
                shown = [s for s in t.steps if not s.blocked]
                if blocked:
                    assert not run.finished, (m, t)
                    step = blocked[-1]
                    line = source.line_col(step.location.span.start)[0]
                    named, _ = processes_in(step.message, m)
                    if run.at_end_sends:
                        assert line in run.at_end_sends and named and named[0] in run.at_end_sends[line], (m, step)
                    else:
                        assert line == run.blocked_line, (m, step.message, run)
                        assert named[:1] == ([run.blocked_peer] if run.blocked_peer else []), (m, step.message)
                    check_waits(t.waits_for, m, run)
                else:
                    assert t.waits_for == "finished without reaching it" and run.finished, (m, t.waits_for)
                truth = run.completed[len(run.completed) - len(shown):] if shown else []
                assert len(truth) == len(shown), (m, t)
                for step, (line, peer) in zip(shown, truth):
                    assert source.line_col(step.location.span.start)[0] == line, (m, step)
                    named, _ = processes_in(step.message, m)
                    assert named[:1] == ([peer] if peer else []), (m, step.message, peer)
    return diags


# ----------------------------------------------------------------------------- the cases
def test_the_8_process_ring_one_lane_each():
    d, = check_lanes(RING8.read_text())
    assert len(d.trace) == 8 and not any(t.others for t in d.trace)


def test_the_1024_process_ring_speaks_of_each_member():
    d, = check_lanes(RING1024.read_text())
    t, = d.trace
    assert len(t.others) == 1023
    assert t.label == "1024 processes (0, p), p = 0\u20131023"
    assert "recv from (0, p-1 mod 1024) on channel 1" in t.steps[-1].message
    assert t.waits_for.startswith("waits for process (0, p-1 mod 1024) to send on channel 1")


def test_the_2048_process_branch_draws_every_process_that_never_arrives():
    d, = check_lanes(HALF2048.read_text())
    blocked, finished = d.trace
    assert 1 + len(blocked.others) == 1024 and 1 + len(finished.others) == 1024
    assert {tuple(finished.process), *finished.others} == {(0, p) for p in range(1024, 2048)}
    assert "processes (0, 1024)\u2013(0, 2047) to reach this collective" in blocked.waits_for
    assert "more" not in blocked.waits_for


def test_a_class_naming_different_peers_is_split_or_worded_per_member():
    # 64 pairs whose members run different trip counts: every process its own class
    check_lanes(all_distinct(64, 2))


def test_every_process_that_never_arrives_is_drawn():
    """branch_on_partition_collective: (0, 1), (0, 2), (0, 3) finish; each has a lane."""
    d, = check_lanes((CORPUS / "deadlock" / "branch_on_partition_collective.mlir").read_text())
    finished = [m for t in d.trace if not any(s.blocked for s in t.steps) for m in (t.process, *t.others)]
    assert sorted(map(tuple, finished)) == [(0, 1), (0, 2), (0, 3)]


def test_a_ring_over_replicas_and_partitions_speaks_of_both():
    """4 replicas x 8 partitions, a ring over the partitions of each replica, recv first.
    The replicas never talk to each other and run the same steps, so the verdict is
    decided on replica 0 (its 8 processes are drawn) and a note carries it to every
    replica r, reading (0, p) as (r, p)."""
    text = sendrecv(8, recv_first=True).replace("mhlo.num_replicas = 1", "mhlo.num_replicas = 4")
    d, = check_lanes(text)
    assert sorted(tuple(t.process) for t in d.trace) == [(0, p) for p in range(8)]
    assert any("every replica r has the same with (0, p) read as (r, p)" in n.message for n in d.notes)
    by_process = {tuple(t.process): t for t in d.trace}
    assert "recv from (0, 7)" in by_process[(0, 0)].steps[-1].message


def test_a_branch_on_half_the_replicas():
    check_lanes(branch_psum(16, 1, [list(range(32))], replicas=2, on="replica_id"))


DEADLOCKS = [p for p in sorted((CORPUS / "deadlock").glob("*.mlir")) if p.with_suffix(".expect").exists()
             and re.search(r"^SHLO50[015] ", p.with_suffix(".expect").read_text(), re.M)]


@pytest.mark.parametrize("path", DEADLOCKS, ids=lambda p: p.name)
def test_corpus_deadlock_lanes(path):
    check_lanes(path.read_text())


def test_html_lanes_carry_every_label_in_full(tmp_path):
    """The picture shows each lane's label and waits in full (wrapped, never cut)."""
    out = tmp_path / "r.html"
    run_cli("-f", "html", "-o", str(out), str(RING1024), str(HALF2048), str(RING8))
    page = out.read_text(encoding="utf-8")
    lanes = re.findall(r'<g class="lane".*?</g>(?=<g class="lane"|<path|</svg>)', page, re.S)
    assert len(lanes) == 1 + 2 + 8
    texts = [" ".join(re.findall(r'<text x="8"[^>]*>([^<]*)</text>', lane)) for lane in lanes]
    assert "1024 processes (0, p), p = 0\u20131023 waits for process (0, p-1 mod 1024) to send on channel 1;" \
           in texts[0].replace("&#x27;", "'")
    assert texts[2].startswith("1024 processes (0, 1024)\u2013(0, 2047) finished without reaching it")
    assert not any("\u2026" in t for t in texts)
