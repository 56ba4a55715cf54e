"""Bad HLO text gives SyntaxIssue records at the right line:column, never an exception, and
the rest of the file is still read."""
from __future__ import annotations

import random

import pytest

from shlo_lint.checker.frontend.hlo import read_hlo

from hlo_helpers import HLO

HEAD = "HloModule m\n\nENTRY %e (a: f32[2]) -> f32[2] {\n  %a = f32[2]{0} parameter(0)\n"


def issues(text: str):
    m = read_hlo(text, "bad.hlo")
    return m, [(m.source.line_col(i.span.start), i.message) for i in m.parse_all()]


@pytest.mark.parametrize("text,where,message", [
    (HEAD + '  %b = f32[2]{0} add(%a, %a, metadata={op_name="x"}\n  ROOT %c = f32[2]{0} negate(%a)\n}\n',
     (5, 38), "expected one of: '(', ')', ',', got '='"),
    (HEAD + "  ROOT %b = f32[2,x]{0} negate(%a)\n}\n", (5, 19), "expected a dimension size"),
    (HEAD + "  ROOT %b = f32[2]{0} all-reduce(%a), channel_id=@1, to_apply=%s\n}\n", (5, 50), "got '@'"),
    (HEAD + "  ROOT %b = f32[2]{0} negate(%a)\n", (5, 33), "expected '}' at the end of computation %e"),
    (HEAD + "  ROOT %b = f32[2]{0} all-reduce(%a), replica_groups=[2,2,2]<=[8], to_apply=%s\n}\n",
     (5, 54), "iota replica groups are [num_groups,group_size], got [2,2,2]"),
    (HEAD + "  ROOT %b = f32[2]{0} all-reduce(%a), replica_groups=[2,4]<=[6], to_apply=%s\n}\n",
     (5, 54), "[2,4] holds 8 ids but the iota has 6"),
    (HEAD + "  ROOT %b = f32[2]{0} all-reduce(%a), replica_groups=mesh['x'=2] {'y'}, to_apply=%s\n}\n",
     (5, 54), "axis 'y' is not in mesh [x]"),
    (HEAD + "  ROOT %b = f32[2]{0} collective-permute(%a), source_target_pairs={{0,1,2}}\n}\n",
     (5, 67), "expected pairs {source,target}, got {0,1,2}"),
    ("HloModule m\n  %a = f32[2]{0} parameter(0)\n\nENTRY %e (a: f32[2]) -> f32[2] {\n"
     "  ROOT %a = f32[2]{0} parameter(0)\n}\n", (2, 3), "expected a computation"),
    ("HloModule m\n\nthis is not hlo\nENTRY %e (a: f32[2]) -> f32[2] {\n  ROOT %a = f32[2]{0} parameter(0)\n}\n",
     (3, 6), "got 'is'"),
    ("", (1, 1), "expected a computation"),
    (HEAD + "  ROOT %b = f32[2]{0} negate(f32[2,y] %a)\n}\n", (5, 30), "'f32[2,y]' is not a shape"),
])
def test_syntax_error_at_line_and_column(text, where, message):
    _, got = issues(text)
    assert any(at == where and message in msg for at, msg in got), got


def test_duplicates_and_doubled_markers():
    text = ("HloModule m\n\n%e (a: f32[2]) -> f32[2] {\n  %a = f32[2]{0} parameter(0)\n"
            "  ROOT %a = f32[2]{0} negate(%a)\n}\n\nENTRY %e (a: f32[2]) -> f32[2] {\n"
            "  ROOT %a = f32[2]{0} parameter(0)\n  ROOT %b = f32[2]{0} negate(%a)\n}\n"
            "ENTRY %f () -> f32[] {\n  ROOT %z = f32[] constant(0)\n}\n")
    _, got = issues(text)
    assert got == [((5, 8), "instruction %a already exists in %e"), ((8, 7), "computation %e already exists"),
                   ((10, 3), "a computation has only one ROOT"),
                   ((12, 7), "a module has only one ENTRY computation")]


def test_the_rest_of_the_file_is_still_read():
    text = (HEAD + "  %b = f32[2]{0} add(%a, %a, metadata={op_name=\"x\"}\n"
            "  %c = f32[2]{0} all-reduce(%a), channel_id=3, replica_groups={{0,1}}, to_apply=%e\n"
            "  ROOT %d = f32[2]{0} negate(%c)\n}\n")
    m, got = issues(text)
    assert len(got) == 1
    c = m.entry.instruction("c")
    assert c.attr("channel_id") == 3 and c.attr("replica_groups").expand() == ((0, 1),)
    assert m.entry.root.name == "d" and m.entry.instruction("b").issues


def test_a_value_that_means_nothing_keeps_its_text():
    m, got = issues(HEAD + "  ROOT %b = f32[2]{0} all-reduce(%a), replica_groups=[2,4]<=[6], channel_id=2\n}\n")
    b = m.entry.root
    assert b.attr("replica_groups").text == "[2,4]<=[6]" and b.attr("channel_id") == 2
    assert b.attributes["replica_groups"].value_span == b.issues[0].span


def test_mutated_modules_never_raise():
    """Characters dropped, doubled and swapped anywhere in two hand-written fixtures: the reader
    reads every one to the end and says what it could not read."""
    rng = random.Random(3)
    for name in ("gpu_async.hlo", "gpu_p2p.hlo"):
        base = (HLO / name).read_text(encoding="utf-8")
        for _ in range(60):
            text = base
            for _ in range(rng.randint(1, 3)):
                i = rng.randrange(len(text))
                op = rng.choice(["drop", "double", "swap", "insert"])
                if op == "drop":
                    text = text[:i] + text[i + 1:]
                elif op == "double":
                    text = text[:i] + text[i] + text[i:]
                elif op == "swap" and i + 1 < len(text):
                    text = text[:i] + text[i + 1] + text[i] + text[i + 2:]
                else:
                    text = text[:i] + rng.choice('{}()[],=%"\n x') + text[i:]
            m = read_hlo(text, "mutated.hlo")
            for issue in m.parse_all():
                assert 0 <= issue.span.start <= issue.span.end <= len(text)
                assert issue.message


def test_a_module_on_one_line_is_read_by_the_grammar():
    text = 'HloModule m, num_partitions=2\nENTRY %e (a: f32[2]) -> f32[2] { %a = f32[2]{0} parameter(0) ' \
           'ROOT %b = f32[2]{0} all-reduce(%a), channel_id=1, replica_groups={{0,1}}, to_apply=%e }\n'
    m, got = issues(text)
    assert got == [] and m.num_partitions == 2
    assert [i.name for i in m.entry.instructions] == ["a", "b"] and m.entry.root.name == "b"
    assert m.entry.root.attr("replica_groups").expand() == ((0, 1),)
    assert m.snippet(m.entry.root.opcode_span) == "all-reduce"
