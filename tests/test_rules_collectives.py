"""Collective, async, seed-form and tessera rules (SHLO200–SHLO334): edge cases the
corpus does not spell out."""
from __future__ import annotations


import pytest

from shlo_lint import Config, lint_text
from shlo_lint.checker.source.diagnostics import Severity
from shlo_lint.checker.ir.types import ComplexType, ScalarType
from shlo_lint.rules.support.shapes import is_promotable

from conftest import CORPUS

CH = "channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>"
ADD = """({
    ^bb0(%a: tensor<T>, %b: tensor<T>):
      %s = stablehlo.add %a, %b : tensor<T>
      stablehlo.return %s : tensor<T>
    })"""


def grid(p: int = 4, r: int = 1) -> str:
    return f"{{mhlo.num_partitions = {p} : i32, mhlo.num_replicas = {r} : i32}}"


def module(body: str, attrs: str | None = None, args: str = "%x: tensor<2x4xf32>", ret: str = "tensor<8x4xf32>",
           extra: str = "") -> str:
    head = f"module @m attributes {attrs} {{" if attrs else "module @m {"
    return f"{head}\n{extra}  func.func @main({args}) -> {ret} {{\n{body}\n    return %0 : {ret}\n  }}\n}}\n"


def gather(attrs: str, ot: str = "tensor<2x4xf32>", rt: str = "tensor<8x4xf32>") -> str:
    return f'    %0 = "stablehlo.all_gather"(%x) <{{{attrs}}}> : ({ot}) -> {rt}'


def reduce(name: str, attrs: str, ot: str, rt: str, t: str = "f32") -> str:
    return f'    %0 = "stablehlo.{name}"(%x) <{{{attrs}}}> {ADD.replace("T", t)} : ({ot}) -> {rt}'


def lint(text: str, **config):
    return lint_text(text, "t.mlir", Config(**config))


def codes(text: str, **config) -> list[str]:
    return sorted(d.code for d in lint(text, **config))


def only(text: str, code: str, **config):
    found = [d for d in lint(text, **config) if d.code == code]
    assert len(found) == 1, [(d.code, d.message) for d in lint(text, **config)]
    return found[0]


G4 = f"{CH}, replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>, use_global_device_ids"


# ----------------------------------------------------------------------------- grid handling
def test_shlo204_grid_from_config_bounds_the_ids():
    src = module(gather(f"all_gather_dim = 0 : i64, {CH}, replica_groups = dense<[[0, 1, 2, 3, 4, 5, 6, 7]]> "
                        f": tensor<1x8xi64>, use_global_device_ids", rt="tensor<16x4xf32>"),
                 ret="tensor<16x4xf32>")
    assert codes(src, num_partitions=4, num_replicas=1) == ["SHLO203", "SHLO204"]
    assert codes(src, num_partitions=8, num_replicas=1) == []


def test_shlo203_without_grid_is_skipped_and_noted_once():
    src = module(gather(f"all_gather_dim = 0 : i64, {CH}, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>, "
                        f"use_global_device_ids", rt="tensor<4x4xf32>"), ret="tensor<4x4xf32>")
    diags = lint(src)
    assert [d.code for d in diags] == ["SHLO190"]
    assert diags[0].severity == Severity.INFO
    assert "2 checks skipped" in diags[0].message and "all_gather C3" in diags[0].notes[-1].message


def test_shlo204_negative_ids_are_reported_without_a_grid():
    src = module(gather(f"all_gather_dim = 0 : i64, {CH}, replica_groups = dense<[[0, -2]]> : tensor<1x2xi64>, "
                        f"use_global_device_ids", rt="tensor<4x4xf32>"), ret="tensor<4x4xf32>")
    d = only(src, "SHLO204")
    assert "replica id -2 is negative" in d.message and d.message.endswith("(all_gather C4)")


def test_group_checks_stay_quiet_when_global_ids_have_no_channel():
    src = module(reduce("all_reduce", "replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>, "
                                      "use_global_device_ids", "tensor<4xf32>", "tensor<4xf32>"),
                 grid(4), args="%x: tensor<4xf32>", ret="tensor<4xf32>")
    assert codes(src) == ["SHLO214"]


def test_all_reduce_accepts_minus_one_padding():
    src = module(reduce("all_reduce", f"{CH}, replica_groups = dense<[[0, 1, 2], [3, -1, -1]]> : tensor<2x3xi64>, "
                                      "use_global_device_ids", "tensor<4xf32>", "tensor<4xf32>"),
                 grid(4), args="%x: tensor<4xf32>", ret="tensor<4xf32>")
    assert codes(src) == []


def test_empty_groups_mean_the_whole_axis():
    # cross_replica with 4 replicas: one group of 4, so the gathered dim is x4
    ok = module(gather("all_gather_dim = 0 : i64, replica_groups = dense<> : tensor<0x0xi64>"), grid(1, 4))
    assert [c for c in codes(ok) if c.startswith("SHLO2")] == []
    bad = module(gather("all_gather_dim = 0 : i64, replica_groups = dense<> : tensor<0x0xi64>",
                        rt="tensor<4x4xf32>"), grid(1, 4), ret="tensor<4x4xf32>")
    assert "expected 2 x 4 (group size) = 8" in only(bad, "SHLO206").message


def test_cross_replica_and_partition_group_spans_every_partition():
    attrs = f"all_gather_dim = 0 : i64, {CH}, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>"
    assert codes(module(gather(attrs, "tensor<1x8xf32>", "tensor<8x8xf32>"), grid(4, 2),
                        args="%x: tensor<1x8xf32>", ret="tensor<8x8xf32>")) == []
    bad = module(gather(attrs, "tensor<1x8xf32>", "tensor<2x8xf32>"), grid(4, 2),
                 args="%x: tensor<1x8xf32>", ret="tensor<2x8xf32>")
    assert "1 x 8 (group size) = 8" in only(bad, "SHLO206").message


def test_unknown_group_size_falls_back_to_a_multiple():
    # empty groups and no grid: only "a multiple of the operand's" can be checked
    src = module(gather("all_gather_dim = 0 : i64, replica_groups = dense<> : tensor<0x0xi64>",
                        rt="tensor<5x4xf32>"), ret="tensor<5x4xf32>")
    assert "not a multiple" in only(src, "SHLO206").message


# ----------------------------------------------------------------------------- spans and labels
def test_attribute_diagnostics_point_at_the_attribute():
    src = module(gather(f"all_gather_dim = 0 : i64, {CH}, replica_groups = dense<[[0, 1, 1, 3]]> : tensor<1x4xi64>, "
                        f"use_global_device_ids"), grid(4))
    d = only(src, "SHLO202")
    assert src[d.span.start:d.span.end].startswith("dense<[[0, 1, 1, 3]]>")
    assert d.message == ("all_gather: replica id 1 appears twice in replica_groups (in the same group) "
                         "(all_gather C2)")


def test_dim_message_names_rank_and_constraint():
    src = module(gather(f"all_gather_dim = 2 : i64, {G4}"), grid(4))
    d = only(src, "SHLO201")
    assert d.message == "all_gather: all_gather_dim 2 is out of range for a rank-2 operand (all_gather C1)"
    assert src[d.span.start:d.span.end].startswith("2 : i64")


# ----------------------------------------------------------------------------- reductions
@pytest.mark.parametrize("operand,region,ok", [
    ("f32", "f32", True), ("bf16", "f32", True), ("f32", "bf16", False), ("i8", "i32", True),
    ("i32", "f32", False), ("i1", "i1", True), ("i1", "i8", False),
])
def test_shlo215_promotability(operand, region, ok):
    src = module(reduce("all_reduce", G4, f"tensor<4x{operand}>", f"tensor<4x{region}>", t=region), grid(4),
                 args=f"%x: tensor<4x{operand}>", ret=f"tensor<4x{region}>")
    assert ("SHLO215" not in codes(src)) == ok


def test_is_promotable_kinds():
    f32, f16, c64 = ScalarType("f32"), ScalarType("f16"), ComplexType(ScalarType("f32"))
    assert is_promotable(f16, f32) and not is_promotable(f32, f16)
    assert is_promotable(c64, ComplexType(ScalarType("f64"))) and not is_promotable(f32, c64)
    assert is_promotable(ScalarType("ui8"), ScalarType("ui32"))
    # StableHLO 1.20's reduction check ignores float precision; the spec's definition does not.
    assert is_promotable(f32, f16, ignore_fp_precision=True) and not is_promotable(f32, f16)


def test_is_promotable_quantized():
    from shlo_lint.checker.ir.types import QuantizedType
    q8 = QuantizedType("i8", "f32", "!quant.uniform<i8:f32, 2.0:15>")
    q16 = QuantizedType("i16", "f32", "!quant.uniform<i16:f32, 2.0:15>")
    q32_f64 = QuantizedType("i32", "f64", "!quant.uniform<i32:f64, 2.0:15>")
    assert is_promotable(q8, q16) and not is_promotable(q16, q8)
    assert not is_promotable(q8, q32_f64)  # another expressed type
    assert not is_promotable(q8, ScalarType("f32"))


def test_shlo215_variadic_names_the_operand():
    body = (f'    %0:2 = "stablehlo.all_reduce"(%x, %y) <{{{G4}}}> {ADD.replace("T", "f32")} '
            f': (tensor<4xf32>, tensor<4xf64>) -> (tensor<4xf32>, tensor<4xf32>)')
    src = module(body.replace("%0:2", "%r:2") + "\n    %0 = stablehlo.add %r#0, %r#1 : tensor<4xf32>", grid(4),
                 args="%x: tensor<4xf32>, %y: tensor<4xf64>", ret="tensor<4xf32>")
    assert "operand 1 element type f64" in only(src, "SHLO215").message


def test_reduce_scatter_divisibility_and_shape_report_once_each():
    src = module(reduce("reduce_scatter", f"{G4}, scatter_dimension = 0 : i64", "tensor<6x4xf32>",
                        "tensor<1x4xf32>"), grid(4), args="%x: tensor<6x4xf32>", ret="tensor<1x4xf32>")
    assert codes(src) == ["SHLO221"]


# ----------------------------------------------------------------------------- all_to_all
def a2a(split: int, concat: int, count: int, ot: str, rt: str, groups: str) -> str:
    return (f'    %0 = "stablehlo.all_to_all"(%x) <{{{CH}, concat_dimension = {concat} : i64, replica_groups = {groups}, '
            f'split_count = {count} : i64, split_dimension = {split} : i64}}> : ({ot}) -> {rt}')


def test_all_to_all_same_split_and_concat_keeps_the_shape():
    g = "dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>"
    assert codes(module(a2a(1, 1, 4, "tensor<2x4xf32>", "tensor<2x4xf32>", g), grid(4),
                        ret="tensor<2x4xf32>")) == []
    assert codes(module(a2a(1, 1, 4, "tensor<2x4xf32>", "tensor<2x1xf32>", g), grid(4),
                        ret="tensor<2x1xf32>")) == ["SHLO239"]


def test_all_to_all_mesh_axes_group_size_must_be_split_count():
    mesh = '  sdy.mesh @mesh = <["x"=2, "y"=4]>\n'
    g = ('#stablehlo.replica_group_mesh_axes<mesh = @mesh, axes = [#stablehlo.axis_ref<name = "y">]>')
    ok = module(a2a(1, 0, 4, "tensor<2x4xf32>", "tensor<8x1xf32>", g), grid(8), ret="tensor<8x1xf32>", extra=mesh)
    assert codes(ok) == []
    bad = module(a2a(1, 0, 2, "tensor<2x4xf32>", "tensor<4x2xf32>", g), grid(8), ret="tensor<4x2xf32>", extra=mesh)
    assert codes(bad) == ["SHLO238"]


def test_mesh_axes_naming_an_undefined_mesh_symbol_is_reported():
    # StableHLO 1.20 verifies the symbol use ("mesh symbol ... not found").
    g = '#stablehlo.replica_group_mesh_axes<mesh = @nowhere, axes = [#stablehlo.axis_ref<name = "y">]>'
    src = module(gather(f"all_gather_dim = 0 : i64, {CH}, replica_groups = {g}, use_global_device_ids",
                        rt="tensor<6x4xf32>"), grid(8), ret="tensor<6x4xf32>")
    d = only(src, "SHLO200")
    assert "mesh @nowhere, which is not defined" in d.message
    # The seed RFC's spelling `mesh_name = @m` is read the same way, and is itself
    # reported (StableHLO does not parse it), with a safe fix.
    old = lint_text(src.replace("mesh = @", "mesh_name = @"), "t.mlir", Config())
    assert [d.code for d in old] == ["SHLO200", "SHLO200"]
    fix = next(d.fix for d in old if "`mesh_name`" in d.message)
    assert fix.applicability == "safe" and fix.edits[0].text == "mesh"


def test_mesh_axes_naming_a_symbol_whose_axes_are_unknown_says_nothing():
    g = '#stablehlo.replica_group_mesh_axes<mesh = @m, axes = [#stablehlo.axis_ref<name = "y">]>'
    src = module(gather(f"all_gather_dim = 0 : i64, {CH}, replica_groups = {g}, use_global_device_ids",
                        rt="tensor<6x4xf32>"), grid(8), ret="tensor<6x4xf32>")
    src = src.replace("  func.func @main", "  func.func private @m()\n  func.func @main", 1)
    assert codes(src) == []


def test_inline_mesh_axes_are_checked_and_sized():
    mesh = ('#stablehlo.mesh<axes = [#stablehlo.mesh_axis<name = "x", size = 2>, '
            '#stablehlo.mesh_axis<name = "y", size = 4>]>')
    g = f'#stablehlo.replica_group_mesh_axes<mesh = {mesh}, axes = [#stablehlo.axis_ref<name = "y">]>'
    ok = module(gather(f"all_gather_dim = 0 : i64, {CH}, replica_groups = {g}, use_global_device_ids",
                       rt="tensor<8x4xf32>"), grid(8), ret="tensor<8x4xf32>")
    assert codes(ok) == []
    assert codes(ok.replace('axis_ref<name = "y">', 'axis_ref<name = "z">')) == ["SHLO200"]


# ----------------------------------------------------------------------------- collective_broadcast
def test_collective_broadcast_upper_bound_needs_the_grid():
    body = ('    %0 = "stablehlo.collective_broadcast"(%x) <{replica_groups = dense<[[0, 9]]> : tensor<1x2xi64>}> '
            ': (tensor<4xf32>) -> tensor<4xf32>')
    assert codes(module(body, args="%x: tensor<4xf32>", ret="tensor<4xf32>")) == ["SHLO190"]
    assert codes(module(body, grid(1, 4), args="%x: tensor<4xf32>", ret="tensor<4xf32>")) == ["SHLO242"]


# ----------------------------------------------------------------------------- async
ASYNC_ALL_GATHER = f'''    %f = "stablehlo.async_start"(%x) ({{
    ^bb0(%a: tensor<2x4xf32>):
      %g = "stablehlo.all_gather"(%a) <{{all_gather_dim = 0 : i64, {CH}, replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>, use_global_device_ids}}> : (tensor<2x4xf32>) -> tensor<RESx4xf32>
      stablehlo.return %g : tensor<RESx4xf32>
    }}) : (tensor<2x4xf32>) -> !stablehlo.future<tensor<RESx4xf32>>
    %0 = "stablehlo.async_done"(%f) : (!stablehlo.future<tensor<RESx4xf32>>) -> tensor<RESx4xf32>'''


def test_inner_collective_is_checked_once_with_block_argument_operands():
    assert codes(module(ASYNC_ALL_GATHER.replace("RES", "8"), grid(4))) == []
    bad = module(ASYNC_ALL_GATHER.replace("RES", "6"), grid(4), ret="tensor<6x4xf32>")
    assert codes(bad) == ["SHLO206"]


def test_real_async_exports_are_clean():
    for path in sorted((CORPUS / "real").glob("async_*.mlir")):
        if "buggy" in path.name:
            continue
        found = [d.code for d in lint(path.read_text()) if d.code.startswith(("SHLO2", "SHLO3"))]
        assert found == [], (path.name, found)


def test_async_start_may_run_collective_reduce():
    # The spec's async_start C2 lists six collectives; the StableHLO 1.20 verifier
    # also accepts collective_reduce, and so does the linter (no false error).
    body = '''    %f = "stablehlo.async_start"(%x) ({
    ^bb0(%a: tensor<4xf32>):
      %g = "stablehlo.collective_reduce"(%a) ({
      ^bb0(%p: tensor<f32>, %q: tensor<f32>):
        %s = stablehlo.add %p, %q : tensor<f32>
        stablehlo.return %s : tensor<f32>
      }) {replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<4xf32>) -> tensor<4xf32>
      stablehlo.return %g : tensor<4xf32>
    }) : (tensor<4xf32>) -> !stablehlo.future<tensor<4xf32>>
    %0 = "stablehlo.async_done"(%f) : (!stablehlo.future<tensor<4xf32>>) -> tensor<4xf32>'''
    assert codes(module(body, grid(1, 2), args="%x: tensor<4xf32>", ret="tensor<4xf32>")) == []


def test_done_kind_through_a_block_argument_says_nothing():
    src = module('    %0 = "stablehlo.all_reduce_done"(%f) : (!stablehlo.future<tensor<4xf32>>) -> tensor<4xf32>',
                 grid(4), args="%f: !stablehlo.future<tensor<4xf32>>", ret="tensor<4xf32>")
    assert [c for c in codes(src) if c.startswith("SHLO3")] == []


def test_done_kind_matches_async_start_inner_op():
    src = module(ASYNC_ALL_GATHER.replace("RES", "8").replace('"stablehlo.async_done"', '"stablehlo.all_gather_done"'),
                 grid(4))
    assert codes(src) == []


def test_future_as_function_result_is_not_control_flow():
    text = (CORPUS / "valid" / "async_valid_future_as_function_result.mlir").read_text()
    assert "SHLO306" not in codes(text)


def test_future_in_if_result():
    body = '''    %p = stablehlo.constant dense<true> : tensor<i1>
    %r = "stablehlo.if"(%p) ({
      stablehlo.return %f : !stablehlo.future<tensor<4xf32>>
    }, {
      stablehlo.return %f : !stablehlo.future<tensor<4xf32>>
    }) : (tensor<i1>) -> !stablehlo.future<tensor<4xf32>>
    %0 = "stablehlo.async_done"(%r) : (!stablehlo.future<tensor<4xf32>>) -> tensor<4xf32>'''
    d = only(module(body, grid(4), args="%f: !stablehlo.future<tensor<4xf32>>", ret="tensor<4xf32>"), "SHLO306")
    assert d.message.startswith("if: result 0 is a future")


# ----------------------------------------------------------------------------- tessera
def test_tessera_enum_values_accept_both_spellings():
    src = '''func.func @f(%dw: memref<8xf32>) -> memref<8xf32> {
  %f = tessera.collective.all_gather %dw {dtype = #tessera.collective<WireDType "fp8">, path = "rdma"}
  %v = tessera.await %f
  return %v : memref<8xf32>
}
'''
    assert codes(src) == []
    bad = src.replace('"rdma"', '"infiniband"')
    d = only(bad, "SHLO331")
    assert d.message == ('tessera.collective.all_gather: path "infiniband" is not one of auto, nvlink, pcie, rdma '
                         '(seed 003 attributes)')


def test_every_new_rule_has_a_corpus_example():
    from shlo_lint.checker.lint import registry

    modules = {"collectives", "all_gather", "all_reduce", "reduce_scatter", "all_to_all", "collective_broadcast",
               "collective_reduce", "async_ops", "seed_forms", "tessera", "buffers"}
    mine = [r.code for r in registry.all_rules()
            if r.func is not None and r.func.__module__.rsplit(".", 1)[-1] in modules and r.code != "SHLO306"]
    assert len(mine) > 50
    expected = " ".join(p.read_text() for p in (CORPUS / "invalid").glob("*.expect"))
    missing = [c for c in mine if c not in expected]
    assert missing == []
    assert "SHLO306" in expected


def test_collective_broadcast_minus_one_is_negative_not_padding():
    body = ('    %0 = "stablehlo.collective_broadcast"(%x) <{replica_groups = dense<[[0, -1]]> : tensor<1x2xi64>}> '
            ': (tensor<4xf32>) -> tensor<4xf32>')
    d = only(module(body, grid(1, 4), args="%x: tensor<4xf32>", ret="tensor<4xf32>"), "SHLO242")
    assert "replica id -1 is negative" in d.message


@pytest.mark.parametrize("axes,ok", [
    ('[#stablehlo.axis_ref<name = "x">, #stablehlo.axis_ref<name = "y", sub_axis_info = (1)2>]', True),
    ('[#stablehlo.axis_ref<name = "z">]', False),
    ('[#stablehlo.axis_ref<name = "y", sub_axis_info = (2)3>]', False),
])
def test_shlo200_mesh_axes_must_exist_in_the_mesh(axes, ok):
    mesh = '  sdy.mesh @mesh = <["x"=2, "y"=4]>\n'
    g = f"#stablehlo.replica_group_mesh_axes<mesh = @mesh, axes = {axes}>"
    src = module(reduce("all_reduce", f"{CH}, replica_groups = {g}, use_global_device_ids", "tensor<4xf32>",
                        "tensor<4xf32>"), grid(8), args="%x: tensor<4xf32>", ret="tensor<4xf32>", extra=mesh)
    assert codes(src) == ([] if ok else ["SHLO200"])


# Rules changed to follow StableHLO 1.20 say so in their documentation.
CHANGED_FOR_1_20 = ["SHLO118", "SHLO140", "SHLO200", "SHLO205", "SHLO206", "SHLO207", "SHLO215", "SHLO227", "SHLO228",
                    "SHLO238", "SHLO243", "SHLO244", "SHLO252", "SHLO253", "SHLO254", "SHLO255", "SHLO256", "SHLO302",
                    "SHLO303", "SHLO307", "SHLO308", "SHLO404"]


@pytest.mark.parametrize("code", CHANGED_FOR_1_20)
def test_changed_rules_cite_the_spec_version(code):
    from shlo_lint.checker.lint import registry

    spec = next(r for r in registry.all_rules() if r.code == code)
    assert "1.20" in spec.doc, code
    # SHLO200 names each op's own input label (all_gather I3, ...) in its messages.
    assert spec.spec or code == "SHLO200", code


def test_elided_groups_and_pairs_say_the_printer_elided_them():
    # `get_asm(large_elements_limit=N)` prints dense_resource<__elided__>; jaxlib's
    # parser rejects it for replica_groups / source_target_pairs as well, so the
    # errors stand, and say why.
    el = "dense_resource<__elided__>"
    d = only(module(gather(f"all_gather_dim = 0 : i64, {CH}, replica_groups = {el} : tensor<1x4xi64>, "
                           "use_global_device_ids"), grid()), "SHLO200")
    assert "replica_groups is not a dense integer constant" in d.message and "elided" in d.message
    perm = (f'    %0 = "stablehlo.collective_permute"(%x) <{{{CH}, source_target_pairs = {el} : tensor<4x2xi64>}}> '
            ": (tensor<2x4xf32>) -> tensor<2x4xf32>")
    d = only(module(perm, grid(), ret="tensor<2x4xf32>"), "SHLO121")
    assert "elided" in d.message
    # Any other non-dense form keeps the plain message.
    other = module(gather(f"all_gather_dim = 0 : i64, {CH}, replica_groups = dense_resource<blob1> : "
                          "tensor<1x4xi64>, use_global_device_ids"), grid())
    assert "elided" not in only(other, "SHLO200").message
