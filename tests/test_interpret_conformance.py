"""bench/interpret_conformance.py compares what StableHLO's interpreter tests
print with their FileCheck lines (bench/filecheck.py) and passes their RUN
lines' `--args`: a chunk whose printed output differs from a CHECK line fails.
The test files here are written for these tests (nothing of StableHLO's)."""
from __future__ import annotations

import sys
from collections import Counter

import pytest

from conftest import ROOT

sys.path.insert(0, str(ROOT / "bench"))
import filecheck  # noqa: E402
import interpret_conformance as conformance  # noqa: E402


def test_directives_of_a_prefix_and_their_kinds():
    text = ("// CHECK: a\n// CHECK-NEXT: b\n// CHECK-DENSE: c\n// CHECK-DENSE{LITERAL}: [[d]]\n"
            "// CHECK-SAME: e\n// CHECK-NOT: f\n// CHECK-LABEL: g\n// CHECK-EMPTY:\n")
    plain = filecheck.directives(text, ("CHECK",))
    assert [(d.kind, d.pattern) for d in plain] == [("", "a"), ("NEXT", "b"), ("SAME", "e"), ("NOT", "f"),
                                                     ("LABEL", "g"), ("EMPTY", "")]
    dense = filecheck.directives(text, ("CHECK-DENSE",))
    assert [(d.pattern, d.literal) for d in dense] == [("c", False), ("[[d]]", True)]
    assert [d.line for d in filecheck.directives(text, ("CHECK",), 2, 5)] == [2, 5]


@pytest.mark.parametrize("checks, ok", [
    ("CHECK: tensor<2xi32> {\nCHECK-NEXT: [1, 2]\nCHECK-NEXT: }", True),
    ("CHECK: tensor<2xi32> {\nCHECK-NEXT: [1, 3]", False),          # a wrong value
    ("CHECK: [1, 2]\nCHECK-NEXT: [3]", False),                       # not on the next line
    ("CHECK: tensor<2xi32>\nCHECK-SAME: {", True),
    ("CHECK: tensor<{{[0-9]+}}xi32> {\nCHECK-NEXT: [{{.*}}]", True),  # regex parts
    ("CHECK{LITERAL}: [1, 2]\nCHECK: }\nCHECK-NOT: [5]", True),
    ("CHECK: tensor\nCHECK-NOT: [1, 2]\nCHECK: }", False),          # the NOT is between them
    ("CHECK: }\nCHECK: tensor<1xf32>", True),                        # in order, lines skipped
    ("CHECK: tensor<1xf32>\nCHECK: tensor<2xi32>", False),          # out of order
    ("CHECK-NEXT: tensor", False),                                   # nothing to follow
    ("CHECK:   [1,    2]", True),                                    # spaces count as one
])
def test_matching_follows_filecheck(checks, ok):
    output = "tensor<2xi32> {\n  [1, 2]\n}\ntensor<1xf32> {\n  [5.000000e-01]\n}\n"
    found = filecheck.directives("\n".join(f"// {c}" for c in checks.split("\n")), ("CHECK",))
    assert (filecheck.check(found, output) is None) == ok, filecheck.check(found, output)


FILE = """// RUN: stablehlo-translate %s --interpret --args="[dense<[1, 2]> : tensor<2xi32>, dense<3> : tensor<2xi32>]" | FileCheck %s
// RUN: stablehlo-translate %s --interpret --interpreter-print-dense --args="[dense<[1, 2]> : tensor<2xi32>, dense<3> : tensor<2xi32>]" | FileCheck %s --check-prefix=DENSE
// RUN: not stablehlo-translate %s --interpret --args="oops" 2>&1 | FileCheck %s --check-prefixes=ERR
// ERR: some message of the tool

func.func @main(%a: tensor<2xi32>, %b: tensor<2xi32>) -> tensor<2xi32> {
  %0 = stablehlo.add %a, %b : tensor<2xi32>
  interpreter.print %0 : tensor<2xi32>
  return %0 : tensor<2xi32>
}

// CHECK:      %0 = tensor<2xi32> {
// CHECK-NEXT:   [4, 5]
// CHECK-NEXT: }
// CHECK-NEXT: tensor<2xi32> {
// CHECK-NEXT:   [4, 5]
// CHECK-NEXT: }
// DENSE: dense<[4, 5]> : tensor<2xi32>
"""


def _classify(text: str, counts: Counter | None = None):
    return conformance.classify("t.mlir", text, 20, conformance.run_lines(text), (1, text.count("\n") + 1), counts)


def test_run_lines_give_the_arguments_the_print_form_and_the_prefixes():
    runs = conformance.run_lines(FILE)
    assert [(r.args is not None, r.dense, r.prefixes, r.expects_failure) for r in runs] == [
        (True, False, ("CHECK",), False), (True, True, ("DENSE",), False), (True, False, ("ERR",), True)]
    assert [a.tolist() for a in conformance.arguments(runs[0].args)] == [[1, 2], [3, 3]]


def test_a_chunk_passes_only_when_what_it_prints_matches_its_check_lines():
    counts = Counter()
    assert _classify(FILE, counts) == ("pass", "0 checks")
    assert counts == {"filecheck chunks": 2, "filecheck directives": 7, "run lines not compared": 1}
    status, why = _classify(FILE.replace("// DENSE: dense<[4, 5]>", "// DENSE: dense<[4, 6]>"))
    assert status == "fail" and "FileCheck (DENSE)" in why
    status, why = _classify(FILE.replace("// CHECK-NEXT:   [4, 5]\n// CHECK-NEXT: }\n// CHECK-NEXT: tensor",
                                         "// CHECK-NEXT:   [4, 4]\n// CHECK-NEXT: }\n// CHECK-NEXT: tensor"))
    assert status == "fail" and "[4, 4]" in why
    # the --args are the arguments: with others, the output differs
    status, why = _classify(FILE.replace("dense<3> : tensor<2xi32>]", "dense<9> : tensor<2xi32>]"))
    assert status == "fail" and "FileCheck" in why
