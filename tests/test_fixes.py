"""apply_fixes: applicability gating, overlaps, identical fixes; unified_diff."""
from __future__ import annotations

from shlo_lint.checker.source.diagnostics import Diagnostic, Edit, Fix, Location, Severity
from shlo_lint.checker.lint.fixes import apply_fixes, applies, unified_diff
from shlo_lint.checker.source.text import Span

TEXT = "abcdefghij\nklmnop\n"


def diag(fix: Fix | None, code: str = "SHLO103") -> Diagnostic:
    return Diagnostic(code, "x", "constraint", Severity.ERROR, "m", Location("f.mlir", Span(0, 1)), fix=fix)


def replace(start: int, end: int, text: str, applicability: str = "safe") -> Fix:
    return Fix(f"replace {start}-{end}", (Edit(Span(start, end), text),), applicability)


def test_safe_fix_applies():
    d = diag(replace(2, 4, "XY"))
    new, applied = apply_fixes(TEXT, [d])
    assert new == "abXYefghij\nklmnop\n"
    assert applied == [d]


def test_no_fix_nothing_changes():
    assert apply_fixes(TEXT, [diag(None)]) == (TEXT, [])


def test_unsafe_only_when_asked_and_display_never():
    unsafe = diag(replace(0, 1, "A", "unsafe"))
    display = diag(replace(5, 6, "F", "display"))
    assert apply_fixes(TEXT, [unsafe, display]) == (TEXT, [])
    new, applied = apply_fixes(TEXT, [unsafe, display], unsafe=True)
    assert new == "Abcdefghij\nklmnop\n"
    assert applied == [unsafe]
    assert applies(Fix.safe("t", [])) and not applies(None)
    assert not applies(display.fix, unsafe=True)


def test_overlapping_fix_is_skipped_earliest_wins():
    first = diag(replace(2, 6, "X"), "SHLO101")
    overlapping = diag(replace(4, 8, "Y"), "SHLO102")
    later = diag(replace(12, 13, "Z"), "SHLO103")
    new, applied = apply_fixes(TEXT, [later, overlapping, first])
    assert new == "abXghij\nkZmnop\n"
    assert applied == [first, later]


def test_adjacent_edits_both_apply():
    a, b = diag(replace(0, 2, "12")), diag(replace(2, 4, "34"))
    new, applied = apply_fixes(TEXT, [a, b])
    assert new == "1234efghij\nklmnop\n"
    assert applied == [a, b]


def test_two_inserts_at_one_point_conflict():
    a = diag(Fix.safe("a", [Edit.insert(3, "<a>")]))
    b = diag(Fix.safe("b", [Edit.insert(3, "<b>")]))
    new, applied = apply_fixes(TEXT, [a, b])
    assert new == "abc<a>defghij\nklmnop\n"
    assert applied == [a]


def test_insert_inside_a_replacement_conflicts():
    a = diag(replace(2, 6, ""))
    b = diag(Fix.safe("b", [Edit.insert(4, "!")]))
    assert apply_fixes(TEXT, [a, b])[1] == [a]


def test_multi_edit_fix_is_all_or_nothing():
    both = diag(Fix.safe("wrap", [Edit.insert(11, "("), Edit.insert(17, ")")]))
    inside = diag(replace(15, 16, "O"))  # between the two inserts, touching neither
    new, applied = apply_fixes(TEXT, [both, inside])
    assert new == "abcdefghij\n(klmnOp)\n"
    assert applied == [both, inside]
    clash = diag(replace(16, 18, "!!"))
    new, applied = apply_fixes(TEXT, [both, clash])
    assert new == "abcdefghij\n(klmnop)\n" and applied == [both]


def test_identical_fixes_apply_once_and_both_count():
    a, b = diag(replace(0, 3, "ABC"), "SHLO101"), diag(replace(0, 3, "ABC"), "SHLO102")
    new, applied = apply_fixes(TEXT, [a, b])
    assert new == "ABCdefghij\nklmnop\n"
    assert applied == [a, b]


def test_malformed_fixes_are_ignored():
    out_of_range = diag(replace(5, 99, ""))
    self_overlap = diag(Fix.safe("bad", [Edit(Span(0, 4), "x"), Edit(Span(2, 6), "y")]))
    empty = diag(Fix.safe("nothing", []))
    assert apply_fixes(TEXT, [out_of_range, self_overlap, empty]) == (TEXT, [])


def test_offsets_are_characters_not_bytes():
    text = "é中x\n"
    new, _ = apply_fixes(text, [diag(replace(2, 3, "y"))])
    assert new == "é中y\n"


def test_unified_diff():
    old = "a\nb\nc\n"
    new, _ = apply_fixes(old, [diag(replace(2, 3, "B"))])
    assert unified_diff("dir/f.mlir", old, new) == (
        "--- a/dir/f.mlir\n"
        "+++ b/dir/f.mlir\n"
        "@@ -1,3 +1,3 @@\n"
        " a\n"
        "-b\n"
        "+B\n"
        " c\n")
    assert unified_diff("f.mlir", old, old) == ""


def test_unified_diff_marks_missing_final_newline():
    out = unified_diff("f.mlir", "a\nb", "a\nb\n")
    assert out == (
        "--- a/f.mlir\n"
        "+++ b/f.mlir\n"
        "@@ -1,2 +1,2 @@\n"
        " a\n"
        "-b\n"
        "\\ No newline at end of file\n"
        "+b\n")


def test_unified_diff_only_newline_splits_lines():
    out = unified_diff("f.mlir", "a\x0cb\r\n", "a\x0cc\r\n")
    assert out.split("\n")[3:] == ["-a\x0cb\r", "+a\x0cc\r", ""]
