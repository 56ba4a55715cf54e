"""bench/deadlock_differential.py's generator, without XLA: its programs are
deterministic, parse, break no constraint, and the static verdict agrees with
the interpreter on them. Cases whose XLA:CPU verdict disagreed with the static
one before a fix are pinned here by (seed, index) with what XLA:CPU did (the
minimized programs are in corpus/deadlock/; docs/deadlock.md, "Measured against
XLA:CPU"). The XLA runs themselves are the bench's job (seconds per case)."""
from __future__ import annotations

import sys

import pytest

from conftest import ROOT

pytestmark = pytest.mark.slow  # random programs, two deadlock verdicts each (`-m "not slow"` skips it)

sys.path.insert(0, str(ROOT / "bench"))
import deadlock_differential as dd  # noqa: E402
import deadlock_programs as gen  # noqa: E402


def test_generation_is_deterministic_and_varied():
    a = [gen.generate(5, i).text for i in range(30)]
    assert a == [gen.generate(5, i).text for i in range(30)]
    assert len(set(a)) == 30
    tags = {t.split(":")[0] for i in range(60) for t in gen.generate(5, i).tags}
    for kind in ("all_reduce", "all_gather", "reduce_scatter", "all_to_all", "collective_permute",
                 "process-branch", "uniform-branch", "swapped-order", "mirror", "case", "if", "partial-groups",
                 "axis_index-chain"):
        assert kind in tags, kind
    assert any(t.startswith("while") for t in tags)


def test_generated_programs_parse_and_break_no_constraint():
    for i in range(40):
        case = gen.generate(11, i)
        verdict, codes = dd.static_verdict(case)
        assert verdict != "invalid", (i, codes, case.text)
        assert not any(c in ("SHLO001", "SHLO002", "SHLO003") for c in codes), (i, codes)


def test_static_verdict_agrees_with_the_interpreter():
    """Where the static analysis decides (deadlock or free), a run of the
    reference interpreter hangs or completes accordingly (programs whose branch
    depends on per-device data are left out: the run follows one input)."""
    decided = 0
    for i in range(40):
        case = gen.generate(13, i)
        if "data-predicate" in case.tags:
            continue
        verdict, codes = dd.static_verdict(case)
        outcome, message = dd.engine_verdict(case, "interp")
        if verdict in ("deadlock", "free"):
            decided += 1
            assert (outcome == "deadlock") == (verdict == "deadlock"), (i, verdict, codes, outcome, message)
    assert decided >= 20


def _mirrored(R, P, specs):
    """A branch on the process id (partition 0 or replica 0 against the rest) whose
    two sides run specs[0] and specs[1]: what the generator's "mirror" segment
    writes, with the specs chosen here."""
    import random

    g = gen.Gen(random.Random(0), R, P)

    def build(g, out):
        v, _n = g.process_index(out, "    ")  # a partition or replica index (or both): id 0 vs the rest
        zero, pred = g.const(out, "    ", 0, "i32"), g.fresh("p")
        out.append(f"    {pred} = stablehlo.compare EQ, {v}, {zero}, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>")
        return g.branch(pred, "%x", out, "    ", [lambda o, i: g.emit(specs[0], "%x", o, i),
                                                   lambda o, i: g.emit(specs[1], "%x", o, i)])
    return gen.assemble(g, build)


# Each was a disagreement with XLA:CPU before its fix (the bench's runs found
# them; the minimized programs are in corpus/deadlock/): what XLA:CPU did, and
# the static verdict now. The interpreter must agree with XLA:CPU.
TEMPLATES = {
    # channel-less all_reduces in both branches: one XLA key (no_channel_both_branches.mlir)
    "no channel": (2, 1, [gen.Spec("all_reduce", groups=[[0, 1]]), gen.Spec("all_reduce", groups=[[0, 1]])],
                   "completed", "warn"),
    "no channel, permutes": (4, 1, [gen.Spec("collective_permute", pairs=[[0, 1], [1, 2], [2, 3], [3, 0]])] * 2,
                             "completed", "warn"),
    # one device list written two ways (groups_written_differently.mlir)
    "flattened vs cross_replica_and_partition": (
        1, 2, [gen.Spec("all_reduce", groups=[[0, 1]], channel=1, global_ids=True),
               gen.Spec("all_reduce", groups=[[0]], channel=1)], "completed", "warn"),
    # the same devices in another order (group_order_differs.mlir)
    "group order": (1, 2, [gen.Spec("all_reduce", groups=[[0, 1]], channel=1, global_ids=True),
                           gen.Spec("all_reduce", groups=[[1, 0]], channel=1, global_ids=True)], "aborted", "deadlock"),
    "different channels": (1, 2, [gen.Spec("all_reduce", groups=[[0, 1]], channel=1, global_ids=True),
                                  gen.Spec("all_reduce", groups=[[0, 1]], channel=2, global_ids=True)],
                           "aborted", "deadlock"),
}


@pytest.mark.parametrize("name", sorted(TEMPLATES))
def test_templates_that_disagreed_with_xla_cpu(name):
    R, P, specs, xla, expected = TEMPLATES[name]
    case = _mirrored(R, P, specs)
    verdict, codes = dd.static_verdict(case)
    assert verdict == expected, (codes, case.text)
    outcome, message = dd.engine_verdict(case, "interp")
    assert (outcome == "deadlock") == (xla == "aborted"), (outcome, message)


def test_classification():
    assert dd.classify("deadlock", "completed") == "FALSE DEADLOCK"
    assert dd.classify("free", "aborted") == "MISSED DEADLOCK"
    assert dd.classify("deadlock", "aborted") == "agree: hangs"
    assert dd.classify("warn", "aborted") == "hang, static warn"
    assert dd.classify("deadlock", "completed", ["data-predicate"]).startswith("completes, static deadlock")
    assert dd.classify("free", "unsupported") == "xla unsupported"
