"""Hints on what XLA did with the collectives of a compiled module (rules/xla_comm.py):
SHLO641 collectives left uncombined, SHLO642 an async pair nothing overlaps, SHLO643 a
synchronous collective where the backend has the async form. Each on a module that gets
it and one that does not; the backend told from the module (checker/analysis/xla_backend.py);
the same notions as the StableHLO hints (SHLO631-633, SHLO601), so the two do not disagree.
corpus/hlo/gpu/comm_*.hlo are the hand-written GPU examples (tests/test_corpus.py
compares their findings with their .expect sidecars)."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import pytest

from shlo_lint import Config, lint_text, parse
from shlo_lint.checker.analysis.combining import GroupIds, candidate
from shlo_lint.checker.analysis.xla_backend import CPU, GPU, backend_of

from conftest import CORPUS, ROOT
from hlo_helpers import HLO

HINTS = ("SHLO641", "SHLO642", "SHLO643")
GPU_DIR = CORPUS / "hlo" / "gpu"


def hints(text: str, path: str = "m.hlo", **options):
    return [d for d in lint_text(text, path, Config(options=options) if options else None) if d.code in HINTS]


def line_of(text: str, d) -> int:
    return text.count("\n", 0, d.span.start) + 1


def line_with(text: str, needle: str) -> int:
    return next(i for i, ln in enumerate(text.splitlines(), 1) if needle in ln)


# ----------------------------------------------------------------------------- the backend
@pytest.mark.parametrize("path,name", [
    (CORPUS / "hlo" / "auto_fsdp_step.hlo", CPU),          # XLA:CPU's fusion config
    (CORPUS / "hlo" / "psum.hlo", CPU),                    # no fusion: a scheduled module, all collectives sync
    (HLO / "gpu_async.hlo", GPU),                          # *-start forms
    (GPU_DIR / "comm_sync_all_gather.hlo", GPU),
    (HLO / "lowered.hlo", None),                           # unscheduled, no evidence
])
def test_the_backend_is_read_from_the_module(path, name):
    b = backend_of(parse(path.read_text(), str(path)))
    assert b.name == name and (name is None or b.evidence)


def test_evidence_of_both_backends_is_no_evidence():
    mixed = (HLO / "gpu_async.hlo").read_text() + '\n// a comment naming "outer_dimension_partitions"\n'
    assert backend_of(parse(mixed, "m.hlo")).name is None
    assert not [d for d in hints(mixed) if d.code == "SHLO643"]


# ----------------------------------------------------------------------------- SHLO641
def test_shlo641_xla_cpu_leaves_independent_all_gathers_apart():
    """auto_fsdp_step (jit with FSDP shardings, compiled by XLA:CPU): the partitioner's
    weight all-gathers; two of one key are independent and stay two (XLA:CPU has no
    all-gather combiner); the next depends on them, and the note names the values between."""
    text = (CORPUS / "hlo" / "auto_fsdp_step.hlo").read_text()
    [d] = hints(text, "auto_fsdp_step.hlo")
    assert d.code == "SHLO641" and line_of(text, d) == line_with(text, "%all-gather = ")
    assert "2 independent all-gathers of one combine key (4 KiB in total) stay 2 collectives" in d.message
    assert "XLA:CPU has no all-gather combiner" in d.message
    notes = [n.message for n in d.notes]
    assert any("saving 1 launch" in n and "replica groups [[0, 1, 2, 3, 4, 5, 6, 7]]" in n for n in notes)
    dep = next(n for n in notes if "is not combinable with it" in n)
    assert "depends on the all-gather at line" in dep and "%all-gather.1 → " in dep
    assert any(n.startswith("compiled for XLA:CPU") for n in notes)
    assert "in JAX, all_gather one flat buffer" in d.help


def test_shlo641_not_on_a_module_whose_collectives_cannot_combine():
    for name in ("auto_tp_mlp.hlo", "fsdp_grad.hlo", "mesh2x4_psum_y_gather_x.hlo", "psum_tuple.hlo"):
        assert not hints((CORPUS / "hlo" / name).read_text(), name), name


def test_shlo641_silent_when_the_backend_cannot_be_told():
    """The same module unscheduled and without XLA:CPU's fusion configs: no backend, no hint."""
    text = (CORPUS / "hlo" / "auto_fsdp_step.hlo").read_text()
    stripped = text.replace("is_scheduled=true, ", "").replace('"fusion_config"', '"config"') \
        .replace('"outer_dimension_partitions"', '"partitions"').replace("__ynn_fusion", "ynn")
    assert backend_of(parse(stripped, "m.hlo")).name is None
    assert not hints(stripped)


def test_shlo641_xla_cpu_all_reduces_are_not_reported():
    """XLA:CPU's all-reduce combiner has no byte limit and no flag: the all-reduces the
    transformer step keeps apart each depend on the one before; nothing is said of them."""
    text = (HLO / "transformer_step.after.hlo").read_text()
    found = hints(text, "t.hlo")
    assert found and all("all-gather" in d.message for d in found)


def test_shlo641_gpu_over_the_threshold_names_the_flag_and_the_value():
    text = (GPU_DIR / "comm_over_threshold.hlo").read_text()
    [d] = hints(text)
    assert "(40 MiB in total) stay 2 collectives" in d.message
    assert "--xla_gpu_all_reduce_combine_threshold_bytes" in d.message
    assert "XLA_FLAGS=--xla_gpu_all_reduce_combine_threshold_bytes=41943040" in d.help
    assert "saving 1 launch" in d.help
    assert any("over 30 MiB" in n.message for n in d.notes)
    # under a threshold that holds both, they are one group: the default threshold merges them
    small = text.replace("5242880", "1024")
    [d] = hints(small)
    assert "merges them at its default threshold" in d.message


def test_shlo641_dependent_collectives_get_no_finding():
    assert not hints((GPU_DIR / "comm_dependent_all_reduces.hlo").read_text())


def test_the_combine_key_compares_groups_however_spelled():
    """XLA's keys hold the replica groups as lists: explicit, iota and mesh-axes spellings of
    the same groups are one key (GetAllReduceKey, AllGatherCombiner::CombineKey)."""
    spellings = ["{{0,1,2,3},{4,5,6,7}}", "[2,4]<=[8]", "mesh['a'=2,'b'=4] {'b'}"]
    body = "\n".join(f"  %ag{i} = f32[8]{{0}} all-gather(f32[2]{{0}} %p{i}), channel_id={i + 1}, replica_groups={g}, "
                     "dimensions={0}, use_global_device_ids=true" for i, g in enumerate(spellings))
    params = ", ".join(f"p{i}: f32[2]" for i in range(3))
    decls = "\n".join(f"  %p{i} = f32[2]{{0}} parameter({i})" for i in range(3))
    text = (f"HloModule m, is_scheduled=true, num_partitions=8\n\nENTRY %main ({params}) -> f32[8] {{\n{decls}\n"
            f"{body}\n  ROOT %r = f32[8]{{0}} add(%ag0, %ag1)\n}}\n")
    module = parse(text, "m.hlo")
    ops = [o for o in module.walk() if o.name == "stablehlo.all_gather"]
    ids = GroupIds()
    keys = {candidate(o, i, text, ids).key for i, o in enumerate(ops)}
    assert len(keys) == 1
    [d] = hints(text)  # XLA:CPU (a scheduled module, its collectives synchronous): no all-gather combiner
    assert "3 independent all-gathers of one combine key" in d.message


TWO_GATHERS = textwrap.dedent("""
    import json, os
    os.environ["XLA_FLAGS"] = "--xla_force_host_platform_device_count=8"
    os.environ["JAX_PLATFORMS"] = "cpu"
    import jax, jax.numpy as jnp, numpy as np
    from jax.sharding import Mesh, PartitionSpec as P
    mesh = Mesh(np.array(jax.devices()[:8]), ("x",))
    def f(a, b):
        return jax.lax.all_gather(a, "x", tiled=True), jax.lax.all_gather(b, "x", tiled=True)
    g = jax.jit(jax.shard_map(f, mesh=mesh, in_specs=(P("x"), P("x")), out_specs=(P(), P()), check_vma=False))
    lowered = g.lower(jnp.ones((16, 4)), jnp.ones((8, 4)))
    print(json.dumps({"stablehlo": lowered.as_text(), "hlo": lowered.compile().as_text()}))
""")


def test_the_stablehlo_hint_and_the_compiled_hint_agree():
    """Two independent all_gathers of one key: SHLO632 on the StableHLO says a combiner would
    merge them; XLA:CPU compiles them as two, and SHLO641 on its module says why (no all-gather
    combiner), for the same two."""
    pytest.importorskip("jax")
    env = {k: v for k, v in os.environ.items() if k != "XLA_FLAGS"}
    proc = subprocess.run([sys.executable, "-c", TWO_GATHERS], capture_output=True, text=True, timeout=300,
                          env=env, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr[-3000:]
    texts = json.loads(proc.stdout.strip().splitlines()[-1])
    [before] = [d for d in lint_text(texts["stablehlo"], "two.mlir") if d.code == "SHLO632"]
    assert "2 independent all_gathers" in before.message
    [after] = hints(texts["hlo"], "two.hlo")
    assert after.code == "SHLO641" and "2 independent all-gathers of one combine key" in after.message
    assert "XLA:CPU has no all-gather combiner" in after.message
    gathers = [i for i, ln in enumerate(texts["hlo"].splitlines(), 1) if " all-gather(" in ln]
    assert line_of(texts["hlo"], after) == gathers[0] and len(gathers) == 2


# ----------------------------------------------------------------------------- SHLO642
def test_shlo642_an_exposed_pair_with_work_nearby():
    text = (GPU_DIR / "comm_exposed_all_reduce.hlo").read_text()
    [d] = hints(text)
    assert d.code == "SHLO642" and line_of(text, d) == line_with(text, "%ars = ")
    assert "nothing runs while the all-reduce is in flight (4 KiB per device); 1 independent op nearby could" \
        in d.message
    notes = [n.message for n in d.notes]
    assert any("is_sync" in n for n in notes)
    assert any("after the done, not needing its result: dot (line" in n for n in notes)
    assert "--xla_gpu_enable_latency_hiding_scheduler=true" in d.help


def test_shlo642_not_when_work_overlaps_or_none_is_near():
    assert not hints((GPU_DIR / "comm_overlapped_all_reduce.hlo").read_text())
    text = (GPU_DIR / "comm_exposed_all_reduce.hlo").read_text()
    # the dot needs the all-reduce's result: nothing could run in the pair
    dependent = text.replace("dot(f32[64,64]{1,0} %a, f32[64,64]{1,0} %b)", "dot(f32[64,64]{1,0} %a, f32[64,64]{1,0} %b2)") \
        .replace("  %dot =", "  %b2 = f32[64,64]{1,0} reshape(f32[1024]{0} %ard)\n  %dot =")
    assert [d.code for d in hints(dependent)] == []


def test_shlo642_counts_the_bytes_per_step_in_a_loop():
    """A pair in a while body with a stated trip count: the bytes per device and the runs per step."""
    text = (GPU_DIR / "comm_exposed_all_reduce.hlo").read_text()
    body, entry = text.split("ENTRY", 1)
    loop = body + textwrap.dedent("""
        %cond (t: (s32[], f32[1024], f32[64,64], f32[64,64])) -> pred[] {
          %t = (s32[], f32[1024]{0}, f32[64,64]{1,0}, f32[64,64]{1,0}) parameter(0)
          %i = s32[] get-tuple-element(%t), index=0
          %n = s32[] constant(6)
          ROOT %lt = pred[] compare(%i, %n), direction=LT
        }

        %body (u: (s32[], f32[1024], f32[64,64], f32[64,64])) -> (s32[], f32[1024], f32[64,64], f32[64,64]) {
          %u = (s32[], f32[1024]{0}, f32[64,64]{1,0}, f32[64,64]{1,0}) parameter(0)
          %j = s32[] get-tuple-element(%u), index=0
          %g = f32[1024]{0} get-tuple-element(%u), index=1
          %a = f32[64,64]{1,0} get-tuple-element(%u), index=2
          %b = f32[64,64]{1,0} get-tuple-element(%u), index=3
          %ars = f32[1024]{0} all-reduce-start(%g), channel_id=1, replica_groups={{0,1,2,3,4,5,6,7}}, use_global_device_ids=true, to_apply=%sum
          %ard = f32[1024]{0} all-reduce-done(%ars)
          %dot = f32[64,64]{1,0} dot(%a, %b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
          %one = s32[] constant(1)
          %j1 = s32[] add(%j, %one)
          ROOT %next = (s32[], f32[1024]{0}, f32[64,64]{1,0}, f32[64,64]{1,0}) tuple(%j1, %ard, %dot, %b)
        }

        ENTRY %main (g: f32[1024], a: f32[64,64], b: f32[64,64]) -> f32[1024] {
          %g = f32[1024]{0} parameter(0)
          %a = f32[64,64]{1,0} parameter(1)
          %b = f32[64,64]{1,0} parameter(2)
          %zero = s32[] constant(0)
          %init = (s32[], f32[1024]{0}, f32[64,64]{1,0}, f32[64,64]{1,0}) tuple(%zero, %g, %a, %b)
          %loop = (s32[], f32[1024]{0}, f32[64,64]{1,0}, f32[64,64]{1,0}) while(%init), condition=%cond, body=%body, backend_config={"known_trip_count":{"n":"6"}}
          ROOT %out = f32[1024]{0} get-tuple-element(%loop), index=1
        }
    """).replace("HloModule comm_exposed_all_reduce", "HloModule loop")
    [d] = hints(loop.replace(", entry_computation_layout={(f32[1024]{0}, f32[64,64]{1,0}, f32[64,64]{1,0})->"
                             "(f32[1024]{0}, f32[64,64]{1,0})}", ""))
    assert "(4 KiB per device, 6 times per step)" in d.message


def test_shlo642_never_on_xla_cpu_modules():
    """XLA:CPU has no async collective (corpus/hlo: every async_start became synchronous)."""
    for name in ("async_psum_overlap.hlo", "async_two_overlapping.hlo", "async_fori_loop.hlo"):
        assert not hints((CORPUS / "hlo" / name).read_text(), name), name


# ----------------------------------------------------------------------------- SHLO643
def test_shlo643_a_start_marked_synchronous_with_work_in_the_pair():
    text = (GPU_DIR / "comm_sync_all_gather.hlo").read_text()
    [d] = hints(text)
    assert d.code == "SHLO643" and line_of(text, d) == line_with(text, "%ags = ")
    assert "1 op between it and its done could overlap the all-gather" in d.message
    assert "ALLGATHER in --xla_gpu_disable_async_collectives" in d.help
    # the same pair not marked synchronous: it overlaps the dot, nothing to say
    assert not hints(text.replace('"is_sync":true', '"is_sync":false'))


def test_shlo643_a_synchronous_collective_in_a_gpu_module():
    text = (HLO / "gpu_async.hlo").read_text()
    [d] = [d for d in hints(text) if d.code == "SHLO643"]
    assert line_of(text, d) == line_with(text, "%bc = ") and "collective-broadcast: runs synchronously on XLA:GPU" \
        in d.message
    assert any(n.message.startswith("compiled for XLA:GPU") for n in d.notes)


def test_shlo643_not_on_cpu_unscheduled_or_unknown_modules():
    # XLA:CPU: every module of corpus/hlo is synchronous; none gets SHLO643
    for path in sorted((CORPUS / "hlo").glob("*.hlo")):
        assert not [d for d in hints(path.read_text(), path.name) if d.code == "SHLO643"], path.name
    gpu = (HLO / "gpu_async.hlo").read_text()
    assert not [d for d in hints(gpu.replace("is_scheduled=true, ", "")) if d.code == "SHLO643"]


def test_the_hints_read_only_hlo():
    """On StableHLO the user's schedule is the program: SHLO601-603 and SHLO631-633 speak there."""
    text = (CORPUS / "real" / "async_psum_overlap.mlir").read_text()
    assert not hints(text, "a.mlir")
