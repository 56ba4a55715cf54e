"""Start/done pairing (checker/analysis/pairing.py, rules/futures.py): edge cases the corpus
files do not spell out, and the real JAX exports."""
from __future__ import annotations

from pathlib import Path

import pytest

from shlo_lint import Config, lint_text, parse
from shlo_lint.checker.analysis.pairing import FutureAnalysis, may_have_futures

from conftest import CORPUS

FT = "!stablehlo.future<tensor<4xf32>>"
PAIRS = "dense<[[0, 1], [1, 2], [2, 3], [3, 4], [4, 5], [5, 6], [6, 7], [7, 0]]> : tensor<8x2xi64>"


def start(res: str, arg: str) -> str:
    return (f'{res} = "stablehlo.async_start"({arg}) ({{\n'
            f'^bb0(%a: tensor<4xf32>):\n'
            f'  %p = "stablehlo.collective_permute"(%a) <{{channel_handle = #stablehlo.channel_handle<handle = 1, '
            f'type = 1>, source_target_pairs = {PAIRS}}}> : (tensor<4xf32>) -> tensor<4xf32>\n'
            f'  stablehlo.return %p : tensor<4xf32>\n'
            f'}}) : (tensor<4xf32>) -> {FT}')


def done(res: str, fut: str) -> str:
    return f'{res} = "stablehlo.async_done"({fut}) : ({FT}) -> tensor<4xf32>'


def module(*funcs: str) -> str:
    return ('module @m attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {\n'
            + "\n".join(funcs) + "\n}\n")


def found(text: str, prefix: str = "SHLO4") -> list[tuple[str, int]]:
    diags = lint_text(text, "t.mlir", Config())
    return sorted((d.code, text.count("\n", 0, d.span.start) + 1) for d in diags if d.code.startswith(prefix))


def real(name: str) -> Path:
    return CORPUS / "real" / name


@pytest.mark.parametrize("path", sorted((CORPUS / "real").glob("async_*.mlir")), ids=lambda p: p.name)
def test_real_async_exports_pair_cleanly_except_the_done_twice_bug(path: Path):
    text = path.read_text()
    got = found(text)
    if "buggy_done_twice" in path.name:
        assert [c for c, _ in got] == ["SHLO402"], got
    else:
        assert got == [], got


def test_done_twice_export_points_at_the_second_done_and_notes_the_first_and_the_start():
    text = real("async_ppermute.buggy_done_twice.mlir").read_text()
    [d] = [d for d in lint_text(text, "x.mlir") if d.code == "SHLO402"]
    line = lambda span: text.count("\n", 0, span.start) + 1  # noqa: E731
    assert line(d.span) == 11
    notes = {n.message: line(n.location.span) for n in d.notes if n.location.span is not None}
    assert notes["first completed here, by the async_done at line 10"] == 10
    assert notes["the future is started here (async_start)"] == 5


def test_no_future_text_means_no_analysis():
    assert not may_have_futures('func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> { return %x : tensor<4xf32> }')
    assert may_have_futures('%f = "stablehlo.all_reduce_start"(%x)')
    assert may_have_futures("%f = tessera.collective.all_reduce %dw")


def test_a_future_yielded_by_case_branches_is_completed_after_the_case():
    text = (CORPUS / "invalid" / "async_future_in_case.mlir").read_text()
    assert found(text) == []  # SHLO306 is the type rule's; pairing follows the case result


def test_one_done_for_two_futures_completes_both():
    # StableHLO 1.20 rejects this form (SHLO308); the pairing still reads it.
    text = (CORPUS / "invalid" / "async_done_c1_two_futures.mlir").read_text()
    assert found(text) == []


def test_the_same_future_twice_in_one_done_is_completed_twice():
    text = module(f"func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {{\n{start('%f', '%x')}\n"
                  f'%d:2 = "stablehlo.async_done"(%f, %f) : ({FT}, {FT}) -> (tensor<4xf32>, tensor<4xf32>)\n'
                  "return %d#0 : tensor<4xf32>\n}")
    assert [c for c, _ in found(text)] == ["SHLO402"]


def test_recursive_callee_terminates_and_assumes_one_completion():
    text = module(
        f"func.func private @spin(%g: {FT}, %x: tensor<4xf32>) -> tensor<4xf32> {{\n"
        f"%y = func.call @spin(%g, %x) : ({FT}, tensor<4xf32>) -> tensor<4xf32>\nreturn %y : tensor<4xf32>\n}}",
        f"func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {{\n{start('%f', '%x')}\n"
        f"%y = func.call @spin(%f, %x) : ({FT}, tensor<4xf32>) -> tensor<4xf32>\nreturn %y : tensor<4xf32>\n}}")
    assert found(text) == []


def test_external_callee_is_trusted_to_complete_its_argument():
    text = module(
        f"func.func private @ext(%g: {FT}) -> tensor<4xf32>",
        f"func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {{\n{start('%f', '%x')}\n"
        f"%y = func.call @ext(%f) : ({FT}) -> tensor<4xf32>\nreturn %y : tensor<4xf32>\n}}")
    assert found(text) == []


def test_a_future_returned_by_a_non_entry_function_is_followed_into_each_caller():
    helper = f"func.func private @mk(%x: tensor<4xf32>) -> {FT} {{\n{start('%f', '%x')}\nreturn %f : {FT}\n}}"
    caller_ok = (f"func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {{\n"
                 f"%g = func.call @mk(%x) : (tensor<4xf32>) -> {FT}\n{done('%d', '%g')}\nreturn %d : tensor<4xf32>\n}}")
    assert found(module(helper, caller_ok)) == []
    caller_leaks = (f"func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {{\n"
                    f"%g = func.call @mk(%x) : (tensor<4xf32>) -> {FT}\nreturn %x : tensor<4xf32>\n}}")
    text = module(helper, caller_leaks)
    [(code, line)] = found(text)
    assert code == "SHLO401" and "func.call @mk" in text.splitlines()[line - 1]


def test_callee_completing_twice_is_reported_at_the_call():
    callee = (f"func.func private @fin(%g: {FT}) -> tensor<4xf32> {{\n{done('%d', '%g')}\n{done('%e', '%g')}\n"
              "return %e : tensor<4xf32>\n}")
    main = (f"func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {{\n{start('%f', '%x')}\n"
            f"%y = func.call @fin(%f) : ({FT}) -> tensor<4xf32>\nreturn %y : tensor<4xf32>\n}}")
    text = module(callee, main)
    [(code, line)] = found(text)
    assert code == "SHLO402"
    assert "func.call @fin" in text.splitlines()[line - 1]  # the caller's view: this call completes it twice


def test_engine_exposes_outcomes_per_future():
    text = (CORPUS / "invalid" / "future_leak_one_case_branch.mlir").read_text()
    a = FutureAnalysis(parse(text))
    [root] = a.roots
    counts = sorted(c for c, _r in root.outcomes)
    assert counts == [0, 1]
    lost = next(w for (c, _r), w in root.outcomes.items() if c == 0)
    assert [s.text for s in lost.steps] == ["the case takes branch 1"]


def test_leak_notes_name_the_start_and_the_completing_branch():
    text = (CORPUS / "invalid" / "future_leak_if_false_branch.mlir").read_text()
    [d] = [d for d in lint_text(text, "x.mlir") if d.code == "SHLO401"]
    msgs = [n.message for n in d.notes]
    assert "the future is started here (async_start)" in msgs
    assert "it is completed here on another path" in msgs


def test_misuse_of_a_future_argument_is_reported_in_the_callee():
    callee = (f"func.func private @peek(%g: {FT}) -> {FT} {{\n"
              f"%c = stablehlo.custom_call @inspect(%g) : ({FT}) -> {FT}\nreturn %g : {FT}\n}}")
    main = (f"func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {{\n{start('%f', '%x')}\n"
            f"%h = func.call @peek(%f) : ({FT}) -> {FT}\n{done('%d', '%h')}\nreturn %d : tensor<4xf32>\n}}")
    assert [c for c, _ in found(module(callee, main))] == ["SHLO403"]


def test_start_with_a_non_future_result_is_left_to_the_type_rules():
    text = (CORPUS / "invalid" / "async_start_c4_result_not_future.mlir").read_text()
    assert found(text) == []
