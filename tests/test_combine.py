"""Combiner hints (rules/combine.py, seed 001): XLA's grouping, keys and thresholds,
and the variadic all_reduce fix: it parses, lints clean, verifies in jaxlib and
computes the same values."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import pytest

from shlo_lint import Config, lint_text, parse
from shlo_lint.checker.lint.fixes import apply_fixes

from conftest import CORPUS, ROOT

COMBINE = CORPUS / "invalid" / "combine_all_reduces.mlir"
G8 = "dense<[[0, 1, 2, 3, 4, 5, 6, 7]]> : tensor<1x8xi64>"


def ar(res: str, arg: str, t: str = "tensor<4xf32>", op: str = "add", attrs: str = "") -> str:
    return (f'{res} = "stablehlo.all_reduce"({arg}) <{{replica_groups = {G8}{attrs}}}> ({{\n'
            f'^bb0(%p: tensor<f32>, %q: tensor<f32>):\n  %s = stablehlo.{op} %p, %q : tensor<f32>\n'
            f'  stablehlo.return %s : tensor<f32>\n}}) : ({t}) -> {t}')


def prog(*lines: str, results: str = "%r1", n: int = 1, parts: int = 1) -> str:
    rt = ", ".join(["tensor<4xf32>"] * n)
    return (f"module @m attributes {{mhlo.num_partitions = {parts} : i32, mhlo.num_replicas = 8 : i32}} {{\n"
            f"func.func public @main(%x: tensor<4xf32>, %y: tensor<4xf32>) -> ({rt}) {{\n" + "\n".join(lines)
            + f"\nreturn {results} : {rt}\n}}\n}}\n")


def groups(text: str, code: str = "SHLO631", **options) -> list[tuple[int, str]]:
    diags = lint_text(text, "t.mlir", Config(options=options))
    return [(text.count("\n", 0, d.span.start) + 1, d.message) for d in diags if d.code == code]


def test_three_independent_all_reduces_are_one_group_with_bytes_and_savings():
    [(line, msg)] = groups(COMBINE.read_text())
    assert line == 5
    assert msg == ("all_reduce: 3 independent all_reduces (56 B in total) could be one variadic all_reduce, saving 2 "
                   "collectives")


def test_dependent_all_reduces_are_not_combined():
    text = prog(ar("%r1", "%x"), "%t = stablehlo.tanh %r1 : tensor<4xf32>", ar("%r2", "%t"),
                results="%r2")
    assert groups(text) == []


def test_a_dependence_through_a_region_counts():
    text = prog(ar("%r1", "%x"),
                '%c = "stablehlo.case"(%i) ({', "  stablehlo.return %r1 : tensor<4xf32>", "}, {",
                "  stablehlo.return %y : tensor<4xf32>", "}) : (tensor<i32>) -> tensor<4xf32>",
                ar("%r2", "%c"), results="%r2").replace("%y: tensor<4xf32>)", "%y: tensor<4xf32>, %i: tensor<i32>)")
    assert groups(text) == []


def test_count_threshold_splits_groups():
    lines = [ar(f"%r{k}", "%x") for k in range(5)]
    text = prog(*lines, results=", ".join(f"%r{k}" for k in range(5)), n=5)
    assert [m.split(" independent")[0].split(": ")[1] for _l, m in groups(text)] == ["5"]
    got = groups(text, **{"combine-threshold-count": 2})
    assert [m.split(" independent")[0].split(": ")[1] for _l, m in got] == ["2", "2"]


def test_byte_threshold_closes_the_group_and_skips_oversized_ops():
    big = "tensor<64xf32>"
    text = (prog(ar("%r1", "%x"), ar("%b", "%z", big), ar("%r2", "%y"), ar("%r3", "%x"),
                 results="%r1, %r2, %r3", n=3)
            .replace("%y: tensor<4xf32>)", f"%y: tensor<4xf32>, %z: {big})"))
    # 16 B each; the 256 B one is over a 40 B threshold: skipped, and the running sum stops at two.
    got = groups(text, **{"combine-threshold-bytes": 40})
    assert [(m.split(" independent")[0].split(": ")[1], "32 B" in m) for _l, m in got] == [("2", True)]


def test_keys_keep_reductions_types_and_groups_apart():
    assert groups((CORPUS / "valid" / "combine_different_keys.mlir").read_text()) == []


def test_channel_presence_is_part_of_the_key():
    ch = ", channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>"
    text = prog(ar("%r1", "%x"), ar("%r2", "%y", attrs=ch), results="%r1, %r2", n=2)
    assert groups(text) == []


def test_variadic_all_reduce_is_not_a_candidate():
    text = prog('%v:2 = "stablehlo.all_reduce"(%x, %y) <{replica_groups = ' + G8 + '}> ({\n'
                '^bb0(%p: tensor<f32>, %q: tensor<f32>):\n  %s = stablehlo.add %p, %q : tensor<f32>\n'
                '  stablehlo.return %s : tensor<f32>\n}) : (tensor<4xf32>, tensor<4xf32>) -> '
                '(tensor<4xf32>, tensor<4xf32>)', ar("%r1", "%x"), results="%r1")
    assert groups(text) == []


def test_all_reduces_in_different_blocks_are_not_combined():
    text = prog('%c = "stablehlo.case"(%i) ({', ar("%a", "%x"), "  stablehlo.return %a : tensor<4xf32>",
                "}, {", "  stablehlo.return %y : tensor<4xf32>", "}) : (tensor<i32>) -> tensor<4xf32>",
                ar("%r1", "%y"), results="%r1, %c", n=2).replace(
        "%y: tensor<4xf32>)", "%y: tensor<4xf32>, %i: tensor<i32>)")
    assert groups(text) == []


def test_all_gather_and_reduce_scatter_groups_have_no_fix():
    for name, code in (("combine_all_gathers", "SHLO632"), ("combine_reduce_scatters", "SHLO633")):
        [d] = [d for d in lint_text((CORPUS / "invalid" / f"{name}.mlir").read_text(), "t.mlir") if d.code == code]
        assert d.fix is None


def fixed_text(text: str, unsafe: bool = False) -> str:
    new, applied = apply_fixes(text, lint_text(text, "t.mlir"), unsafe=unsafe)
    assert applied
    return new


def test_fix_writes_one_variadic_all_reduce_and_moves_dependent_ops_after_it():
    new = fixed_text(COMBINE.read_text())
    assert new.count('"stablehlo.all_reduce"') == 3  # the three combined + the max + %r4
    assert ('%r1, %r2, %r3 = "stablehlo.all_reduce"(%a, %b, %d)' in new and
            ": (tensor<4xf32>, tensor<2x3xf32>, tensor<4xf32>) -> (tensor<4xf32>, tensor<2x3xf32>, tensor<4xf32>)"
            in new)
    # %c reads %r1: it now follows the combined op; %b and %d stay before it.
    order = [new.index(s) for s in ("%b = stablehlo.multiply", "%d = stablehlo.cosine", "%r1, %r2, %r3 =",
                                    "%c = stablehlo.add %r1", "%e = stablehlo.add %c, %r3")]
    assert order == sorted(order)
    parse(new)
    assert [d.code for d in lint_text(new, "fixed.mlir")] == []


def test_fix_through_the_cli_and_diff(tmp_path):
    from conftest import run_cli

    p = tmp_path / "p.mlir"
    p.write_text(COMBINE.read_text())
    diff = run_cli("check", "--diff", str(p))
    assert '+    %r1, %r2, %r3 = "stablehlo.all_reduce"(%a, %b, %d)' in diff.stdout
    assert p.read_text() == COMBINE.read_text()
    run_cli("check", "--fix", str(p))
    assert '%r1, %r2, %r3 = "stablehlo.all_reduce"' in p.read_text()


def test_fix_is_unsafe_in_a_partitioned_program():
    text = prog(ar("%r1", "%x"), ar("%r2", "%y"), results="%r1, %r2", n=2, parts=8)
    [d] = [d for d in lint_text(text, "t.mlir") if d.code == "SHLO631"]
    assert d.fix is not None and d.fix.applicability == "unsafe"


def test_no_fix_for_pretty_or_spread_out_groups():
    text = COMBINE.read_text()
    [d] = [d for d in lint_text(text, "t.mlir", Config(options={"combine-fix-span": 3})) if d.code == "SHLO631"]
    assert d.fix is None


def _jax() -> bool:
    import importlib.util

    return importlib.util.find_spec("jax") is not None


def test_fixed_module_verifies_in_jaxlib():
    if not _jax():
        pytest.skip("needs jax")
    from jax._src.interpreters import mlir
    from jax._src.lib.mlir import ir

    new = fixed_text(COMBINE.read_text())
    assert ir.Module.parse(new, context=mlir.make_ir_context()).operation.verify()


RUN = textwrap.dedent("""
    import json, os, sys
    os.environ["XLA_FLAGS"] = "--xla_force_host_platform_device_count=8"
    os.environ["JAX_PLATFORMS"] = "cpu"
    import jax
    import numpy as np
    from jax._src import compiler
    from jax._src.interpreters import mlir
    from jax._src.lib import xla_client as xc
    from jax._src.lib.mlir import ir
    from jax.sharding import Mesh, NamedSharding, PartitionSpec as P

    devs = jax.devices()[:8]
    mesh = Mesh(np.array(devs), ("r",))
    shapes = [(4,), (2, 3), (4,)]
    rng = np.random.default_rng(0)
    per_replica = [[rng.standard_normal(s).astype(np.float32) for _ in devs] for s in shapes]

    def run(text):
        assert ir.Module.parse(text, context=mlir.make_ir_context()).operation.verify()
        opts = compiler.get_compile_options(num_replicas=8, num_partitions=1,
                                            device_assignment=np.array([[d.id] for d in devs]))
        exe = devs[0].client.compile_and_load(text, xc.DeviceList(tuple(devs)), opts)
        args = []
        for s, vals in zip(shapes, per_replica):
            sh = NamedSharding(mesh, P("r"))
            args.append(jax.make_array_from_single_device_arrays(
                (8 * s[0],) + s[1:], sh, [jax.device_put(v, d) for v, d in zip(vals, devs)]))
        out = exe.execute_sharded(args).disassemble_into_single_device_arrays()
        return [[np.asarray(a).tolist() for a in res] for res in out]

    a, b = (run(open(p).read()) for p in sys.argv[1:3])
    print(json.dumps({"same": a == b, "outputs": len(a), "replicas": len(a[0])}))
""")


def test_fixed_module_computes_the_same_values_on_8_cpu_devices(tmp_path):
    if not _jax():
        pytest.skip("needs jax")
    before = tmp_path / "before.mlir"
    after = tmp_path / "after.mlir"
    before.write_text(COMBINE.read_text())
    after.write_text(fixed_text(COMBINE.read_text()))
    env = {k: v for k, v in os.environ.items() if k != "XLA_FLAGS"}
    proc = subprocess.run([sys.executable, "-c", RUN, str(before), str(after)], capture_output=True, text=True,
                          timeout=300, env=env, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr[-3000:]
    result = json.loads(proc.stdout.strip().splitlines()[-1])
    assert result == {"same": True, "outputs": 3, "replicas": 8}


def test_big_module_groups_are_found(big_dir):
    got = groups((big_dir / "transformer_2mb.mlir").read_text())
    assert got and all("independent all_reduces" in m for _l, m in got)


def test_scan_limit_bounds_the_dependence_search_conservatively():
    text = COMBINE.read_text()
    assert groups(text, **{"combine-scan-limit": 1}) == []  # undecided searches count as dependent
    assert len(groups(text, **{"combine-scan-limit": 100})) == 1


def test_blockflow_reads_def_use_from_the_text():
    from shlo_lint.checker.analysis.semantics import BlockFlow

    module = parse(COMBINE.read_text())
    func = module.funcs["main"]
    f = BlockFlow(func.regions[0].blocks[0])
    names = [o.result_names[0][0] if o.result_names else o.name for o in f.ops]
    at = names.index
    assert f.deps(at("%c")) == [at("%r1")]                      # %c = add %r1, %z (%z is an argument)
    assert f.reaches({at("%r1")}, at("%r1"), at("%e")) is True  # %e = add %c, %r3
    assert f.reaches({at("%r1")}, at("%r1"), at("%r3")) is False
    assert f.reaches({at("%r1")}, at("%r1"), at("%r4"), budget=1) is None
    assert f.depends([at("%r1")], at("%r1") + 1, len(f.ops)) == [at("%c"), at("%e"), at("%r4"), at("%f"),
                                                                    len(f.ops) - 1]
    assert list(f.mentioning(["%r2"], 0)) == [at("%r2"), len(f.ops) - 1]
