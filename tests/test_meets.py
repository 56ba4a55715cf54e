"""What meets inside one program (issue 23), against what ran on 8 XLA:CPU
devices (corpus/meets/VERDICTS.json): every program that completed is decided
deadlock-free and none of its words says it may deadlock; the ones that aborted
are deadlocks; each case gets its exact words, with the reading of the run they
rest on, from its StableHLO and from its compiled HLO."""
from __future__ import annotations

import json

import pytest

from shlo_lint import Config, lint_text
from shlo_lint.checker.analysis.process_model import analyze
from shlo_lint.checker.analysis.semantics import grid_of
from shlo_lint.checker.frontend.read import read_module
from shlo_lint.checker.source.text import SourceFile

from conftest import CORPUS

MEETS = CORPUS / "meets"
VERDICTS = json.loads((MEETS / "VERDICTS.json").read_text())["cases"]

WORDS = {
    # case: {(code, line in the .mlir): words the message holds}
    "cond_parity_ppermute_orders": {
        ("SHLO506", 17): "this collective_permute meets the one at line 22, which has other pairs: each process gets "
                         "its own op's data on XLA:CPU",
        ("SHLO506", 18): "this collective_permute meets the one at line 23, which has other pairs",
    },
    "cond_data_psum_pmax": {
        ("SHLO506", 13): "this all_reduce (maximum) meets the all_reduce at line 20 (add): XLA:CPU gives every "
                         "process the same mixture of both",
    },
    "cond_lt4_psum_2v": {
        ("SHLO502", 18): "completes only because XLA matches it with the one at line 25",
        ("SHLO507", 18): "this all_reduce meets the all_reduce at line 25, which has another operand: every process "
                         "gets one sum over both operands",
    },
    "fori_pipeline_guarded": {
        ("SHLO508", 60): "the 1st execution of this collective_permute on each process meets the 1st on its peers at "
                         "different iterations of the while at line 15",
    },
    "fori_pipeline_guarded_uneven": {
        ("SHLO501", 60): "deadlock: processes (0, 0)–(0, 6) hang at this collective_permute; (0, 7) finishes "
                         "without reaching it",
    },
    "cond_parity_psum_vs_ppermute": {
        ("SHLO501", 20): "deadlock: processes (0, 0) and 3 more hang at this all_reduce",
    },
    "cond_identical_branches_control": {
        ("SHLO502", 17): "completes only because XLA matches it with the one at line 26",
        ("SHLO502", 18): "completes only because XLA matches it with the one at line 27",
    },
}

HLO_CODES = {
    # the compiled HLO: SHLO502 (the spec's reading against XLA's) does not run on HLO
    "cond_parity_ppermute_orders": ["SHLO506", "SHLO506"],
    "cond_data_psum_pmax": ["SHLO506"],
    "cond_lt4_psum_2v": ["SHLO507"],
    "fori_pipeline_guarded": ["SHLO508"],
    "fori_pipeline_guarded_uneven": ["SHLO501"],
    "cond_parity_psum_vs_ppermute": ["SHLO501"],
    "cond_identical_branches_control": [],
}


def lint(path):
    text = path.read_text()
    diags = lint_text(text, str(path), Config())
    return [(d.code, text.count("\n", 0, d.span.start) + 1, d) for d in diags]


def test_every_case_is_expected():
    assert set(WORDS) == set(VERDICTS) == set(HLO_CODES)


@pytest.mark.parametrize("case", sorted(WORDS))
def test_exact_words(case):
    got = lint(MEETS / f"{case}.mlir")
    assert {(c, ln) for c, ln, _d in got} == set(WORDS[case]), [(c, ln, d.message) for c, ln, d in got]
    for (code, line), words in WORDS[case].items():
        (d,) = [d for c, ln, d in got if (c, ln) == (code, line)]
        assert words in d.message


@pytest.mark.parametrize("case", sorted(WORDS))
def test_verdict_is_what_ran(case):
    for suffix in (".mlir", ".hlo"):
        path = MEETS / f"{case}{suffix}"
        module = read_module(SourceFile(str(path), path.read_text()))
        v = analyze(module, grid_of(module))
        completed = VERDICTS[case]["outcome"] == "completed"
        assert v.status == ("deadlock-free" if completed else "deadlock"), (suffix, v.status, v.reason)
        if completed:  # no "may deadlock", no undecided
            words = [d.message for _c, _l, d in lint(path)]
            assert not any("deadlock" in w for w in words), words
            assert not any(c in ("SHLO503", "SHLO504", "SHLO505") for c, _l, _d in lint(path))


@pytest.mark.parametrize("case", sorted(HLO_CODES))
def test_compiled_hlo_words(case):
    got = sorted(c for c, _l, _d in lint(MEETS / f"{case}.hlo"))
    assert got == sorted(HLO_CODES[case])


def test_words_follow_the_measured_readings():
    """The words say what the runs showed, not what each device's code asks for."""
    psum_pmax = VERDICTS["cond_data_psum_pmax"]
    chunk = [k for k in psum_pmax["readings"] if k.startswith("chunk_r_reduced_by_participant_r")]
    assert chunk and psum_pmax["readings"][chunk[0]]["devices_matching"] == list(range(8))
    assert psum_pmax["devices_matching_own_op"] == []  # hence "the same mixture of both", not "its own"
    assert VERDICTS["cond_parity_ppermute_orders"]["devices_matching_own_op"] == list(range(8))
    mixed = VERDICTS["cond_lt4_psum_2v"]["readings"]["one_mixed_sum"]["devices_matching"]
    assert mixed == list(range(8))  # "one sum over both operands"
    assert VERDICTS["fori_pipeline_guarded"]["readings"]["kth_meets_kth"]["devices_matching"] == list(range(8))
    (d,) = [d for c, _l, d in lint(MEETS / "cond_data_psum_pmax.mlir") if c == "SHLO506"]
    notes = " ".join(n.message for n in d.notes)
    assert "chunk" in notes and "not run: no GPU here" in notes


def test_uneven_pipeline_says_how_often_each_process_runs_it():
    (d,) = [d for c, _l, d in lint(MEETS / "fori_pipeline_guarded_uneven.mlir") if c == "SHLO501"]
    notes = " ".join(n.message for n in d.notes)
    assert "runs (0, 7) once; (0, 6) twice; (0, 0)–(0, 5) 3 times" in notes
    assert "its second with their second" in d.help and "loop runs a different number" not in d.help


def test_the_editor_does_not_keep_a_finding_an_edit_of_a_constant_removes():
    """SHLO507 reads where operands come from, constants included: after an edit
    that makes both branches' operands alike, the editor's re-lint (which reuses
    a module rule's findings when nothing it read changed) equals a full lint."""
    from shlo_lint.checker.editor.incremental.document import Document
    from shlo_lint.checker.lint.engine import lint_source

    text = (CORPUS / "deadlock" / "meets_other_operand.mlir").read_text()  # psum(x) | psum(2 x)
    two = text.replace("%s = \"stablehlo.all_reduce\"(%x)", "%z = stablehlo.multiply %k2, %x : tensor<4xf32>\n"
                       "      %s = \"stablehlo.all_reduce\"(%z)", 1)
    two = two.replace("%3 = \"stablehlo.case\"(%2) ({",
                      "%k2 = stablehlo.constant dense<3.0> : tensor<4xf32>\n    %3 = \"stablehlo.case\"(%2) ({", 1)
    same = two.replace("dense<3.0>", "dense<2.0>")  # -> psum(2 x) | psum(2 x)
    assert two != same
    doc = Document()
    for version in (two, same, two):
        got = doc.lint(SourceFile("prog.mlir", version), Config())
        want = lint_source(SourceFile("prog.mlir", version), Config())
        assert sorted(d.code for d in got.diagnostics) == sorted(d.code for d in want.diagnostics)
    codes_two = [d.code for d in lint_source(SourceFile("p.mlir", two), Config()).diagnostics]
    codes_same = [d.code for d in lint_source(SourceFile("p.mlir", same), Config()).diagnostics]
    assert "SHLO507" in codes_two and "SHLO507" not in codes_same, (codes_two, codes_same)


MANUAL = """module @m attributes {mhlo.num_partitions = 2 : i32} {
  sdy.mesh @mesh = <["x"=2]>
  func.func @main(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<2xf32> {
    %0 = sdy.manual_computation(%a, %b) in_shardings=[<@mesh, [{"x"}]>, <@mesh, [{"x"}]>] out_shardings=[<@mesh, [{"x"}]>] manual_axes={"x"} (%arg1: tensor<2xf32>, %arg2: tensor<2xf32>) {
      %1 = stablehlo.negate %ARG : tensor<2xf32>
      %2 = "stablehlo.all_reduce"(%1) ({
      ^bb0(%x: tensor<f32>, %y: tensor<f32>):
        %s = stablehlo.add %x, %y : tensor<f32>
        stablehlo.return %s : tensor<f32>
      }) {replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>, channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, use_global_device_ids} : (tensor<2xf32>) -> tensor<2xf32>
      sdy.return %2 : tensor<2xf32>
    } : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    return %0 : tensor<4xf32>
  }
}
"""


def _print_of(arg: str, headers: bool) -> str:
    from shlo_lint.checker.analysis.process_model.meets import Fingerprints
    module = read_module(SourceFile("m.mlir", MANUAL.replace("%ARG", arg)))
    op = next(o for o in module.walk() if o.name == "stablehlo.all_reduce")
    return Fingerprints(headers=headers).of(op)


def test_fingerprint_of_a_region_argument_is_its_place_read_either_way():
    """A signature reads a manual computation's argument names from the text before
    its region, a lint from the parsed header: the same place, the same print; two
    places, two prints."""
    for arg in ("%arg1", "%arg2"):
        assert _print_of(arg, headers=False) == _print_of(arg, headers=True)
    assert _print_of("%arg1", headers=False) != _print_of("%arg2", headers=False)
