"""The reference interpreter on XLA's HLO text (`shlo-lint run --engine interp FILE.hlo`):
the module the HLO front end lowers, with HLO's own ops (execute/ops/hlo.py: forwarding,
layout-aware bitcast, calls and fusions, slice, transpose, concatenate, iota, dot,
reduce, gather), its async halves and send/recv (execute/comm.py) and conditionals that
pass operands to their branches; the inputs XLA's devices get (device_inputs.py).

Ground truth: XLA:CPU's run of every corpus/hlo module, recorded in VERDICTS.json when
the corpus was made (completed or aborted, and how many participants of each collective
arrived), and numpy for the small modules written here. No jax needed."""
from __future__ import annotations

import json
import re
from collections import Counter

import numpy as np
import pytest

from shlo_lint.checker.execute.run import RunOptions, run_paths

from conftest import CORPUS, FIXTURES, run_cli

HLO = CORPUS / "hlo"
VERDICTS = json.loads((HLO / "VERDICTS.json").read_text())["files"]
SHARDY_DUMPS = {name for name in VERDICTS if "before_optimizations" in name and "xla.sdy.GlobalToLocalShape"
                in (HLO / name).read_text()}
"""Before-optimization dumps of shard_map programs under Shardy: their manual computation
is a call through Shardy's round-trip custom_calls, which the interpreter does not run."""


def interp(path, **options):
    (report,) = run_paths(str(path), RunOptions(engine="interp", **options))
    return report


def _arrived(facts: dict) -> Counter:
    """Per collective kind, how many devices XLA:CPU's termination lines say arrived."""
    out: Counter = Counter()
    seen = set()
    for line in facts["run"]["text"].get("xla_log", []):
        m = re.search(r"Termination timeout for `([\w ]+) RendezvousKey\{[^}]*global_devices=\[([\d, ]*)\].*?"
                      r"only (\d+)", line)
        if m and m.groups()[:2] not in seen:
            seen.add(m.groups()[:2])
            out[m.group(1).replace(" ", "_")] += int(m.group(3))
    return out


def test_the_shardy_dumps_are_the_two_modules_it_does_not_run():
    assert len(SHARDY_DUMPS) == 2 and len(VERDICTS) == 72


@pytest.mark.parametrize("name", sorted(VERDICTS))
def test_every_corpus_module_gets_the_verdict_of_its_xla_cpu_run(name):
    facts = VERDICTS[name]
    report = interp(HLO / name)
    r = report.primary
    if name in SHARDY_DUMPS:
        assert r.outcome == "unsupported" and "custom_call @xla.sdy.GlobalToLocalShape" in r.message
        assert report.exit_code() == 2
        return
    if facts["verdict"] == "completed":
        assert r.outcome == "completed", (r.message, r.notes)
        n = facts["replica_count"] * facts["num_partitions"]
        assert len(r.outputs) == (n if facts["is_scheduled"] else 1)
        assert report.exit_code() == 0
        return
    assert facts["verdict"] == "aborted" and r.outcome == "deadlock", (r.outcome, r.message)
    # the devices that reached each collective and waited there, as XLA:CPU counted them
    assert Counter(b.kind for b in r.blocked) == _arrived(facts), [(b.process, b.op, b.line) for b in r.blocked]
    lines = (HLO / name).read_text().split("\n")
    for b in r.blocked:  # named as the text writes the instruction, at its line
        assert f" {b.op}(" in lines[b.line - 1]
    assert report.exit_code() == 1


def test_the_blocked_devices_are_those_xla_blocked_at_the_instruction_it_issues_first():
    r = interp(HLO / "schedule" / "crossed_independent_by_use_swapped.buggy_deadlock.hlo").primary
    assert {b.process: (b.op, b.line) for b in r.blocked} == {
        (0, 0): ("all-gather", 19), (0, 1): ("all-gather", 19), (0, 2): ("all-reduce", 39), (0, 3): ("all-reduce", 39)}
    assert all(s.startswith("conditional at ") for b in r.blocked for s in b.stack)


def test_a_scheduled_module_takes_the_shards_xla_gives_its_devices():
    """psum.hlo: x (16x4, sharded in row blocks over 8 devices) summed over the devices:
    every device holds the sum of the eight 2x4 blocks of one global value."""
    x = np.arange(64, dtype=np.float32).reshape(16, 4)
    from shlo_lint.checker.execute.values import Inputs

    import tempfile
    import os

    with tempfile.TemporaryDirectory() as tmp:
        np.savez(os.path.join(tmp, "in.npz"), arg0=x)
        r = interp(HLO / "psum.hlo", inputs=Inputs.parse(os.path.join(tmp, "in.npz"))).primary
    assert r.outcome == "completed"
    expected = x.reshape(8, 2, 4).sum(axis=0)
    assert all(np.array_equal(out[0], expected) for out in r.outputs.values())


def _module(tmp_path, body: str, params: str, result: str, grid: str = "num_partitions=1", extra: str = ""):
    path = tmp_path / "m.hlo"
    path.write_text(f"HloModule m, is_scheduled=true, {grid}\n\n{extra}\nENTRY %main ({params}) -> {result} {{\n"
                    f"{body}\n}}\n")
    return path


def _run_values(tmp_path, path, *arrays):
    from shlo_lint.checker.execute.values import Inputs

    np.savez(tmp_path / "in.npz", **{f"arg{i}": a for i, a in enumerate(arrays)})
    r = interp(path, inputs=Inputs.parse(str(tmp_path / "in.npz"))).primary
    assert r.outcome == "completed", r.message
    return r.outputs[(0, 0)]


@pytest.mark.parametrize("src, dst", [
    ("f32[4,6]{0,1}", "f32[24]{0}"),            # column-major source
    ("f32[2,3,4]{1,2,0}", "f32[6,4]{0,1}"),     # both permuted
    ("f32[4,6]{1,0}", "f32[2,12]{1,0}"),        # both major-to-minor: a reshape
])
def test_a_bitcast_reinterprets_the_buffer_in_both_layouts(tmp_path, src, dst):
    s_shape = src.split("{")[0]
    path = _module(tmp_path, f"  %p = {src} parameter(0)\n  ROOT %b = {dst} bitcast(%p)", f"p: {s_shape}",
                   dst.split("{")[0])
    sdims = [int(d) for d in src.split("[")[1].split("]")[0].split(",")]
    slay = [int(d) for d in src.split("{")[1].rstrip("}").split(",")]
    ddims = [int(d) for d in dst.split("[")[1].split("]")[0].split(",")]
    dlay = [int(d) for d in dst.split("{")[1].rstrip("}").split(",")]
    x = np.arange(np.prod(sdims), dtype=np.float32).reshape(sdims)
    buffer = x.transpose(slay[::-1]).reshape(-1)  # the bytes, in physical (major-to-minor) order
    expected = buffer.reshape([ddims[d] for d in dlay[::-1]]).transpose(np.argsort(dlay[::-1]))
    (out,) = _run_values(tmp_path, path, x)
    assert np.array_equal(out, expected)


SUM = "%sum (a: f32[], b: f32[]) -> f32[] {\n  %a = f32[] parameter(0)\n  %b = f32[] parameter(1)\n" \
      "  ROOT %add = f32[] add(%a, %b)\n}\n"
ARGMAX = """%argmax (a: f32[], i: s32[], b: f32[], j: s32[]) -> (f32[], s32[]) {
  %a = f32[] parameter(0)
  %i = s32[] parameter(1)
  %b = f32[] parameter(2)
  %j = s32[] parameter(3)
  %ge = pred[] compare(%a, %b), direction=GE
  %v = f32[] select(%ge, %a, %b)
  %k = s32[] select(%ge, %i, %j)
  ROOT %r = (f32[], s32[]) tuple(%v, %k)
}
"""


def test_hlo_ops_compute_what_numpy_does(tmp_path):
    body = """  %x = f32[4,6]{1,0} parameter(0)
  %y = f32[6,3]{1,0} parameter(1)
  %d = f32[4,3]{1,0} dot(%x, %y), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  %t = f32[3,4]{1,0} transpose(%d), dimensions={1,0}
  %s = f32[3,2]{1,0} slice(%t), slice={[0:3], [1:4:2]}
  %c = f32[3,6]{1,0} concatenate(%s, %t), dimensions={1}
  %z = f32[] constant(0)
  %r = f32[3]{0} reduce(%c, %z), dimensions={1}, to_apply=%sum
  %io = s32[3]{0} iota(), iota_dimension=0
  %f = f32[3]{0} fusion(%r), kind=kLoop, calls=%fused
  ROOT %out = (f32[3]{0}, s32[3]{0}, f32[3]{0}) tuple(%r, %io, %f)"""
    fused = "%fused (p: f32[3]) -> f32[3] {\n  %p = f32[3]{0} parameter(0)\n  ROOT %n = f32[3]{0} negate(%p)\n}\n"
    path = _module(tmp_path, body, "x: f32[4,6], y: f32[6,3]", "(f32[3], s32[3], f32[3])", extra=SUM + fused)
    x = np.arange(24, dtype=np.float32).reshape(4, 6) / 7
    y = np.arange(18, dtype=np.float32).reshape(6, 3) - 4
    r, io, f = _run_values(tmp_path, path, x, y)
    t = (x @ y).T
    expected = np.concatenate([t[:, 1:4:2], t], axis=1).sum(axis=1)
    assert np.allclose(r, expected, rtol=1e-5) and np.array_equal(io, [0, 1, 2]) and np.allclose(f, -expected)


def test_a_variadic_reduce_runs_its_reducer_over_the_elements(tmp_path):
    body = """  %x = f32[5]{0} parameter(0)
  %i = s32[5]{0} iota(), iota_dimension=0
  %lo = f32[] constant(-inf)
  %zero = s32[] constant(0)
  ROOT %r = (f32[], s32[]) reduce(%x, %i, %lo, %zero), dimensions={0}, to_apply=%argmax"""
    path = _module(tmp_path, body, "x: f32[5]", "(f32[], s32[])", extra=ARGMAX)
    v, k = _run_values(tmp_path, path, np.array([1, 7, 3, 7, 2], np.float32))
    assert float(v) == 7 and int(k) == 1


def test_a_gather_takes_rows_as_its_dimension_numbers_say(tmp_path):
    body = """  %t = f32[5,3]{1,0} parameter(0)
  %i = s32[4]{0} parameter(1)
  ROOT %g = f32[4,3]{1,0} gather(%t, %i), offset_dims={1}, collapsed_slice_dims={0}, start_index_map={0}, index_vector_dim=1, slice_sizes={1,3}"""
    path = _module(tmp_path, body, "t: f32[5,3], i: s32[4]", "f32[4,3]")
    table = np.arange(15, dtype=np.float32).reshape(5, 3)
    (g,) = _run_values(tmp_path, path, table, np.array([4, 0, 2, 9], np.int32))
    assert np.array_equal(g, table[[4, 0, 2, 4]])  # start indices clamped, as XLA does


def test_a_conditional_passes_each_branch_its_operand(tmp_path):
    extra = """%neg (a: (f32[2], s32[])) -> f32[2] {
  %a = (f32[2]{0}, s32[]) parameter(0)
  %v = f32[2]{0} get-tuple-element(%a), index=0
  ROOT %n = f32[2]{0} negate(%v)
}

%keep (b: f32[2]) -> f32[2] {
  ROOT %b = f32[2]{0} parameter(0)
}

%abs (c: f32[2]) -> f32[2] {
  %c = f32[2]{0} parameter(0)
  ROOT %m = f32[2]{0} abs(%c)
}
"""
    body = """  %x = f32[2]{0} parameter(0)
  %k = s32[] parameter(1)
  %p = pred[] parameter(2)
  %y = f32[2]{0} multiply(%x, %x)
  %pair = (f32[2]{0}, s32[]) tuple(%x, %k)
  %case = f32[2]{0} conditional(%k, %pair, %y, %x), branch_computations={%neg, %keep, %abs}
  %if = f32[2]{0} conditional(%p, %x, %y), true_computation=%keep, false_computation=%abs
  ROOT %out = (f32[2]{0}, f32[2]{0}) tuple(%case, %if)"""
    path = _module(tmp_path, body, "x: f32[2], k: s32[], p: pred[]", "(f32[2], f32[2])", extra=extra)
    x = np.array([-1.5, 2.0], np.float32)
    for k, p, want in ((0, True, (-x, x)), (1, False, (x * x, x * x)), (7, True, (np.abs(x), x))):
        case, if_ = _run_values(tmp_path, path, x, np.int32(k), np.bool_(p))
        assert np.array_equal(case, want[0]) and np.array_equal(if_, want[1]), k


def test_gpu_async_pairs_and_the_generic_async_computation_run(tmp_path):
    """tests/fixtures/hlo/gpu_async.hlo: all-reduce-start/-done, all-gather-start/-done,
    collective-permute-start/-done, async-start/-update/-done around a reduce-scatter over
    iota groups, a collective-broadcast; the conditional's index k is 1 everywhere (no
    all-reduce in a branch some devices skip), and the root also returns the gathered and
    the scattered values."""
    from shlo_lint.checker.execute.values import Inputs

    text = (FIXTURES / "hlo" / "gpu_async.hlo").read_text()
    text = text.replace("ROOT %r = f32[8]{0} add(%s, %cpd)", "%r = f32[8]{0} add(%s, %cpd)").rstrip()
    assert text.endswith("}")
    text = text[:-1] + "  ROOT %all = (f32[8]{0}, f32[64]{0}, f32[2]{0}) tuple(%r, %agd, %ad)\n}\n"
    text = text.replace("(a: f32[8], p: pred[], k: s32[]) -> f32[8] {", "(a: f32[8], p: pred[], k: s32[]) -> "
                        "(f32[8], f32[64], f32[2]) {")
    path = tmp_path / "gpu_async.hlo"
    path.write_text(text)
    a = np.arange(8 * 8, dtype=np.float32).reshape(8, 8)
    np.savez(tmp_path / "in.npz", **{f"arg0_0_{d}": a[d] for d in range(8)},
             **{f"arg1_0_{d}": np.bool_(d % 2) for d in range(8)}, **{f"arg2_0_{d}": np.int32(1) for d in range(8)})
    r = interp(path, inputs=Inputs.parse(str(tmp_path / "in.npz"))).primary
    assert r.outcome == "completed", r.message
    # the permute's pairs {0,1},{1,2},{2,3},{3,0}: devices 4-7 receive nothing (zeros)
    cpd = {d: a[(d - 1) % 4] if d < 4 else np.zeros(8, np.float32) for d in range(8)}
    gathered = np.concatenate([a[:4].sum(axis=0)] * 4 + [a[4:].sum(axis=0)] * 4)
    # reduce-scatter over [2,4]<=[4,2]T(1,0): groups {0,2,4,6} and {1,3,5,7}, rank = position in the group
    scattered = {d: sum(cpd[m] for m in range(d % 2, 8, 2))[2 * (d // 2):2 * (d // 2) + 2] for d in range(8)}
    for d in range(8):
        out, agd, ad = r.outputs[(0, d)]
        assert np.array_equal(out, np.abs(a[d - d % 2]) + cpd[d]), d  # branch 1: |collective-broadcast|
        assert np.array_equal(agd, gathered) and np.array_equal(ad, scattered[d]), d


def test_pipelined_send_recv_moves_data_along_its_pairs(tmp_path):
    """gpu_p2p.hlo without its host transfer: each iteration device k receives k-1's
    value on channel 7 (device 0 none: zeros); the back edge 3 -> 0 on channel 8 is
    received and dropped. After one iteration device k holds x[k-1]."""
    text = (FIXTURES / "hlo" / "gpu_p2p.hlo").read_text().replace("constant(6)", "constant(1)") \
        .replace('"n":"6"', '"n":"1"')
    path = tmp_path / "p2p.hlo"
    path.write_text(text)
    from shlo_lint.checker.execute.values import Inputs

    x = np.arange(16, dtype=np.float32).reshape(4, 4) + 1
    np.savez(tmp_path / "in.npz", **{f"arg0_0_{d}": x[d] for d in range(4)})
    r = interp(path, inputs=Inputs.parse(str(tmp_path / "in.npz"))).primary
    assert r.outcome == "completed", r.message
    for d in range(4):
        assert np.array_equal(r.outputs[(0, d)][0], x[d - 1] if d else np.zeros(4, np.float32))


def test_a_recv_nobody_sends_to_blocks_at_its_recv_done(tmp_path):
    text = (FIXTURES / "hlo" / "gpu_p2p.hlo").read_text()
    # the sends of channel 7 go nowhere now: the recv-done waits for them forever
    path = tmp_path / "p2p.hlo"
    path.write_text(text.replace('%send = (f32[4]{0}, u32[], token[]) send(%x, %tok), channel_id=7',
                                 '%send = (f32[4]{0}, u32[], token[]) send(%x, %tok), channel_id=17'))
    r = interp(path).primary
    assert r.outcome == "deadlock"
    assert {b.op for b in r.blocked} <= {"recv-done", "send"} and any(b.op == "recv-done" for b in r.blocked)


def test_an_op_it_does_not_run_is_unsupported_with_its_name(tmp_path):
    body = "  %x = f32[4]{0} parameter(0)\n  ROOT %s = f32[4]{0} sort(%x), dimensions={0}, to_apply=%lt"
    lt = ("%lt (a: f32[], b: f32[]) -> pred[] {\n  %a = f32[] parameter(0)\n  %b = f32[] parameter(1)\n"
          "  ROOT %c = pred[] compare(%a, %b), direction=LT\n}\n")
    path = _module(tmp_path, body, "x: f32[4]", "f32[4]", extra=lt)
    proc = run_cli("run", "--engine", "interp", "-f", "json", str(path))
    assert proc.returncode == 2, proc.stdout + proc.stderr
    data = json.loads(proc.stdout)
    line = path.read_text().split("\n").index("  ROOT %s = f32[4]{0} sort(%x), dimensions={0}, to_apply=%lt") + 1
    assert data["outcome"] == "unsupported" and data["message"] == f"cannot execute: op hlo.sort at {path}:{line}:23"


def test_both_engines_skip_their_cross_check_when_the_interpreter_cannot_run(tmp_path):
    """Without jax the XLA engine is unsupported too; either way no mismatch is reported."""
    name = sorted(SHARDY_DUMPS)[0]
    (report,) = run_paths(str(HLO / name), RunOptions(engine="both", xla_timeout_s=60))
    assert report.cross_check["status"] == "skipped" and report.exit_code() == 2


DEADLOCKS = sorted(name for name, facts in VERDICTS.items() if facts["verdict"] == "aborted")


@pytest.mark.parametrize("name", DEADLOCKS)
def test_confirm_replays_each_deadlock_finding_on_hlo_naming_the_instructions(name):
    """`shlo-lint --confirm` on compiled modules: the interpreter runs the lowered module
    with the counterexample's processes first; the note says which devices blocked at
    which instruction, and that it is where the finding said."""
    from shlo_lint.checker.execute.replay import confirm
    from shlo_lint.checker.execute.run import load
    from shlo_lint import lint_text

    path = HLO / name
    module = load(str(path))
    diags = [d for d in lint_text(path.read_text(), str(path)) if d.category == "deadlock"]
    assert diags
    text = path.read_text().split("\n")
    for d in confirm(diags, module):
        note = d.notes[-1].message
        assert note.startswith("confirmed by execution (interp): "), note
        for op, ins, line in re.findall(r"at ([\w-]+) %([\w.\-]+), line (\d+)", note):
            assert f"%{ins} = " in text[int(line) - 1] and f" {op}(" in text[int(line) - 1], note
        assert re.search(r"at [\w-]+ %[\w.\-]+, line \d+", note), note


GPU = sorted((HLO / "gpu").glob("*.hlo"))


@pytest.mark.parametrize("path", GPU, ids=lambda p: p.name)
def test_the_hand_written_gpu_modules_run_as_their_names_say(path):
    """corpus/hlo/gpu/: pipelined send/recv, async pairs on P2P streams (XLA:CPU runs none
    of them). A deadlock deadlocks, a future completed twice is an error, the schedule
    hazards (how XLA:GPU's streams may overlap, not a hang of the program) complete."""
    r = interp(path).primary
    if ".buggy_deadlock" in path.name:
        assert r.outcome == "deadlock" and all(b.op == "recv-done" for b in r.blocked), (r.outcome, r.message)
    elif ".buggy_future" in path.name:
        assert r.outcome == "error" and "was already completed" in r.message
    else:
        assert r.outcome == "completed", r.message


def test_confirm_replays_a_send_recv_cycle_xla_cpu_cannot_run():
    from shlo_lint import lint_text
    from shlo_lint.checker.execute.replay import confirm
    from shlo_lint.checker.execute.run import load

    path = HLO / "gpu" / "p2p_ring_recv_done_first.buggy_deadlock.hlo"
    (d,) = [d for d in lint_text(path.read_text(), str(path)) if d.code == "SHLO500"]
    (d,) = confirm([d], load(str(path)))
    assert d.notes[-1].message == ("confirmed by execution (interp): processes (0, 0), (0, 1), (0, 2), (0, 3) "
                                   "blocked as predicted (at recv-done %recv-done, line 11)")
