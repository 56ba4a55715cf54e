"""Placement hints (rules/overlap.py): options, which hint wins, the await fix."""
from __future__ import annotations

from shlo_lint import Config, lint_text
from shlo_lint.checker.lint.fixes import apply_fixes

from conftest import CORPUS
from test_futures import done, module, start


def found(text: str, prefix: str = "SHLO6", **options) -> list[tuple[str, int]]:
    diags = lint_text(text, "t.mlir", Config(options=options))
    return sorted((d.code, text.count("\n", 0, d.span.start) + 1) for d in diags if d.code.startswith(prefix))


def main_body(*lines: str, args: str = "%x: tensor<4xf32>, %y: tensor<4xf32>") -> str:
    return module(f"func.func @main({args}) -> tensor<4xf32> {{\n" + "\n".join(lines) + "\n}")


def test_max_inflight_option_limits_stablehlo_futures():
    text = main_body(start("%f", "%x"), start("%g", "%y"), start("%h", "%x"),
                     done("%a", "%f"), done("%b", "%g"), done("%c", "%h"),
                     "%s = stablehlo.add %a, %b : tensor<4xf32>", "%u = stablehlo.add %s, %c : tensor<4xf32>",
                     "return %u : tensor<4xf32>")
    assert [c for c, _ in found(text, "SHLO604")] == []
    [(code, line)] = found(text, "SHLO604", **{"max-inflight": 2})
    assert code == "SHLO604" and '%h = "stablehlo.async_start"' in text.splitlines()[line - 1]
    assert found(text, "SHLO604", **{"max-inflight": 3}) == []


def test_a_done_ends_the_flight_before_the_next_start():
    text = main_body(start("%f", "%x"), "%t = stablehlo.tanh %y : tensor<4xf32>", done("%a", "%f"),
                     start("%g", "%a"), "%e = stablehlo.exponential %t : tensor<4xf32>", done("%b", "%g"),
                     "%s = stablehlo.add %b, %e : tensor<4xf32>", "return %s : tensor<4xf32>")
    assert found(text, **{"max-inflight": 1}) == []


def test_placement_severity_option():
    text = (CORPUS / "invalid" / "overlap_done_right_after_start.mlir").read_text()
    [d] = [d for d in lint_text(text, "t.mlir", Config(options={"placement-severity": "info"}))
           if d.code == "SHLO601"]
    assert d.severity.value == "info"
    [d] = [d for d in lint_text(text, "t.mlir") if d.code == "SHLO601"]
    assert d.severity.value == "warning"


def test_overlap_window_bounds_the_search():
    text = (CORPUS / "invalid" / "overlap_done_right_after_start.mlir").read_text()
    assert found(text, "SHLO601", **{"overlap-window": 0}) == []
    assert [c for c, _ in found(text, "SHLO601", **{"overlap-window": 2})] == ["SHLO601"]


def test_no_overlap_hint_when_nothing_could_move():
    # The seed examples: start, done, return. Nothing to overlap with, nothing to say.
    # (The seed-004 example without region arguments is invalid in StableHLO 1.20
    # and lives in corpus/invalid/ now; the overlap rules still say nothing there.)
    for name in ("valid/seed004_all_gather_start_done", "valid/seed004_collective_permute_start_done",
                 "invalid/async_start_c3_outer_values", "valid/tessera_seed003_before_example"):
        assert found((CORPUS / f"{name}.mlir").read_text()) == [], name


def test_done_right_after_start_is_one_hint_not_two():
    text = main_body(start("%f", "%x"), done("%d", "%f"), "%t = stablehlo.tanh %y : tensor<4xf32>",
                     "%s = stablehlo.add %d, %t : tensor<4xf32>", "return %s : tensor<4xf32>")
    assert [c for c, _ in found(text)] == ["SHLO601"]


def test_dependent_later_ops_are_not_offered():
    text = main_body(start("%f", "%x"), done("%d", "%f"), "%t = stablehlo.tanh %d : tensor<4xf32>",
                     "%s = stablehlo.add %t, %d : tensor<4xf32>", "return %s : tensor<4xf32>")
    assert found(text) == []


def test_done_in_a_branch_is_not_placed():
    text = (CORPUS / "valid" / "future_done_in_each_branch.mlir").read_text()
    assert found(text) == []


def test_use_inside_a_region_counts_as_the_first_use():
    text = main_body(start("%f", "%x"), "%t = stablehlo.tanh %y : tensor<4xf32>", done("%d", "%f"),
                     '%r = "stablehlo.case"(%i) ({', "  stablehlo.return %d : tensor<4xf32>", "}, {",
                     "  stablehlo.return %t : tensor<4xf32>", "}) : (tensor<i32>) -> tensor<4xf32>",
                     "return %r : tensor<4xf32>", args="%x: tensor<4xf32>, %y: tensor<4xf32>, %i: tensor<i32>")
    assert found(text) == []


def _fixed(text: str, unsafe: bool = False) -> str:
    diags = lint_text(text, "t.mlir")
    new, applied = apply_fixes(text, diags, unsafe=unsafe)
    assert applied, [d.code for d in diags]
    return new


def test_await_fix_inserts_an_await_and_the_result_lints_clean():
    text = (CORPUS / "invalid" / "overlap_tessera_future_without_await.mlir").read_text()
    new = _fixed(text)
    assert "  %f_ready = tessera.await %f\n  %g = arith.mulf %f_ready, %lr" in new
    assert [d.code for d in lint_text(new, "t.mlir") if d.code.startswith(("SHLO4", "SHLO6"))] == []


def test_await_fix_rewrites_every_use_once():
    text = ("func.func @step(%dw: memref<8xf32>, %lr: memref<8xf32>) -> memref<8xf32> {\n"
            "  %f = tessera.collective.all_reduce %dw {op = \"sum\"}\n"
            "  %g = arith.mulf %f, %lr : memref<8xf32>\n"
            "  %h = arith.addf %g, %f : memref<8xf32>\n"
            "  return %h : memref<8xf32>\n}\n")
    assert [c for c, _ in found(text, "SHLO605")] == ["SHLO605", "SHLO605"]
    new = _fixed(text)
    assert new.count("tessera.await") == 1
    assert "arith.addf %g, %f_ready" in new and "arith.mulf %f_ready, %lr" in new


def test_await_fix_moves_a_later_await_up_instead_of_adding_one():
    text = ("func.func @step(%dw: memref<8xf32>, %lr: memref<8xf32>) -> memref<8xf32> {\n"
            "  %f = tessera.collective.all_reduce %dw {op = \"sum\"}\n"
            "  %g = arith.mulf %f, %lr : memref<8xf32>\n"
            "  %v = tessera.await %f\n"
            "  %h = arith.addf %g, %v : memref<8xf32>\n"
            "  return %h : memref<8xf32>\n}\n")
    new = _fixed(text)
    assert new.count("tessera.await") == 1
    assert "  %v = tessera.await %f\n  %g = arith.mulf %v, %lr" in new
    assert [d.code for d in lint_text(new, "t.mlir") if d.code.startswith(("SHLO4", "SHLO6"))] == []


def test_await_fix_reuses_an_earlier_await():
    text = ("func.func @step(%dw: memref<8xf32>, %lr: memref<8xf32>) -> memref<8xf32> {\n"
            "  %f = tessera.collective.all_reduce %dw {op = \"sum\"}\n"
            "  %v = tessera.await %f\n"
            "  %g = arith.mulf %f, %v : memref<8xf32>\n"
            "  return %g : memref<8xf32>\n}\n")
    new = _fixed(text)
    assert "arith.mulf %v, %v" in new and new.count("tessera.await") == 1


def test_await_fix_is_unsafe_when_the_use_spells_a_future_type():
    fut = "!tessera.future<memref<8xf32>>"
    text = ("func.func @step(%dw: memref<8xf32>) -> memref<8xf32> {\n"
            f"  %f = tessera.collective.all_reduce %dw {{op = \"sum\"}} : (memref<8xf32>) -> {fut}\n"
            f"  %g = \"test.use\"(%f) : ({fut}) -> memref<8xf32>\n"
            "  return %g : memref<8xf32>\n}\n")
    [d] = [d for d in lint_text(text, "t.mlir") if d.code == "SHLO605"]
    assert d.fix is not None and d.fix.applicability == "unsafe"
    new = _fixed(text, unsafe=True)
    assert f"%f_ready = tessera.await %f : ({fut}) -> memref<8xf32>" in new


def test_tessera_use_counts_as_the_completion_for_pairing():
    text = (CORPUS / "invalid" / "overlap_tessera_future_without_await.mlir").read_text()
    assert found(text, "SHLO4") == []


def test_start_placed_first_has_nothing_to_hoist_over():
    text = main_body("%c = stablehlo.constant dense<1.0> : tensor<4xf32>", start("%f", "%x"),
                     "%t = stablehlo.tanh %y : tensor<4xf32>", done("%d", "%f"),
                     "%s = stablehlo.add %d, %t : tensor<4xf32>", "%u = stablehlo.add %s, %c : tensor<4xf32>",
                     "return %u : tensor<4xf32>")
    assert found(text) == []


def test_materialised_constants_are_not_work_to_overlap():
    # JAX writes `fut.done() + 1.0` as a constant and its broadcast_in_dim after
    # the done: XLA folds both, so there is nothing to move before the done
    # (corpus/real/async_all_gather_in_cond.mlir was a SHLO601 warning), nothing
    # to sink it past (SHLO602) and nothing to hoist the start above (SHLO603).
    consts = ["%c = stablehlo.constant dense<1.0> : tensor<f32>",
              "%i = stablehlo.iota dim = 0 : tensor<4xf32>",
              "%b = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<f32>) -> tensor<4xf32>",
              "%k = stablehlo.multiply %b, %i : tensor<4xf32>"]
    text = main_body(start("%f", "%x"), done("%d", "%f"), *consts,
                     "%s = stablehlo.add %d, %k : tensor<4xf32>", "return %s : tensor<4xf32>")
    assert found(text) == []
    text = main_body(start("%f", "%x"), "%t = stablehlo.tanh %y : tensor<4xf32>", done("%d", "%f"), *consts,
                     "%s = stablehlo.add %d, %k : tensor<4xf32>", "%u = stablehlo.add %s, %t : tensor<4xf32>",
                     "return %u : tensor<4xf32>")
    assert found(text) == []
    text = main_body(*consts, start("%f", "%x"), "%t = stablehlo.tanh %y : tensor<4xf32>", done("%d", "%f"),
                     "%s = stablehlo.add %d, %k : tensor<4xf32>", "%u = stablehlo.add %s, %t : tensor<4xf32>",
                     "return %u : tensor<4xf32>")
    assert found(text) == []
    # jax.export hoists the constant out of the branch that broadcasts it.
    text = main_body("%c = stablehlo.constant dense<1.0> : tensor<f32>",
                     '%r = "stablehlo.case"(%k) ({', start("%f", "%x"), done("%d", "%f"),
                     "%b = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<f32>) -> tensor<4xf32>",
                     "%s = stablehlo.add %d, %b : tensor<4xf32>", "stablehlo.return %s : tensor<4xf32>",
                     "}) : (tensor<i32>) -> tensor<4xf32>", "return %r : tensor<4xf32>",
                     args="%x: tensor<4xf32>, %k: tensor<i32>")
    assert found(text) == []
    # ... but a broadcast of an argument is work, and is still named.
    text = main_body(start("%f", "%x"), done("%d", "%f"),
                     "%b = stablehlo.broadcast_in_dim %y, dims = [0] : (tensor<4xf32>) -> tensor<4xf32>",
                     "%s = stablehlo.add %d, %b : tensor<4xf32>", "return %s : tensor<4xf32>")
    assert [c for c, _ in found(text)] == ["SHLO601"]
    # The JAX export itself.
    assert found((CORPUS / "real" / "async_all_gather_in_cond.mlir").read_text()) == []


def test_scalar_work_is_not_overlap_for_any_placement_hint():
    # JAX's `g = fut.done(); lax.cond(k[0] > 0, ...g...)`: between the done and
    # the case that reads it, only the predicate's reshape/compare/convert on
    # scalars: nothing worth sinking the done past (was a SHLO602 listing them).
    pred = ["%r = stablehlo.reshape %k : (tensor<1xi32>) -> tensor<i32>",
            "%z = stablehlo.constant dense<0> : tensor<i32>",
            "%p = stablehlo.compare GT, %r, %z, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>",
            "%i = stablehlo.convert %p : (tensor<i1>) -> tensor<i32>"]
    case = ['%c = "stablehlo.case"(%i) ({', "  stablehlo.return %t : tensor<4xf32>", "}, {",
            "  %s = stablehlo.add %d, %t : tensor<4xf32>", "  stablehlo.return %s : tensor<4xf32>",
            "}) : (tensor<i32>) -> tensor<4xf32>", "return %c : tensor<4xf32>"]
    args = "%x: tensor<4xf32>, %y: tensor<4xf32>, %k: tensor<1xi32>"
    text = main_body(start("%f", "%x"), "%t = stablehlo.tanh %y : tensor<4xf32>", done("%d", "%f"), *pred, *case,
                     args=args)
    assert found(text) == []
    # Scalar work alone between a start and its done is no overlap: SHLO601 names
    # the later tensor work that could go there.
    text = main_body(start("%f", "%x"), *pred, done("%d", "%f"), "%t = stablehlo.tanh %y : tensor<4xf32>", *case,
                     args=args)
    assert [c for c, _ in found(text)] == ["SHLO601"]
