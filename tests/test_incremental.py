"""The language server's re-lint as you type (checker/editor/incremental/document.py) gives exactly
what a full lint of the same text gives, after every edit of random edit
sequences: characters inserted, deleted and replaced anywhere (comments, op
names, types, attributes, braces that break and later restore the structure),
suppression comments, ops added and removed, channel and type digits changed,
and undos back to earlier texts."""
from __future__ import annotations

import random
import sys

import pytest

from shlo_lint.checker.editor.incremental import document as incremental, edit as incremental_edit
from shlo_lint.checker.lint.config import Config
from shlo_lint.checker.lint.engine import lint_source
from shlo_lint.checker.editor.incremental.document import Document
from shlo_lint.checker.editor.incremental.edit import TextEdit
from shlo_lint.checker.source.text import SourceFile, Span

from conftest import CORPUS, ROOT

sys.path.insert(0, str(ROOT / "bench"))
import lsp_latency  # noqa: E402 - the bench's generated program, at a small size

PROGRAMS = [
    "real/sendrecv_pair.buggy_type_mismatch.mlir",
    "real/cond_axis_index_psum.debug.buggy_deadlock.mlir",
    "real/async_two_overlapping.mlir",
    "real/fori_pipeline.generic.mlir",
    "real/mesh2x4_psum_y_gather_x.mlir",
    "real/collective_matmul_scan.mlir",
    "deadlock/collectives_different_order.mlir",
    "real/async_ppermute.buggy_done_twice.mlir",
    "real/psum.gspmd.mlir",
    "real/psum.export.mlir",
    "deadlock/permute_both_branches.mlir",
    "invalid/combine_all_reduces.mlir",
    "invalid/combine_reduce_scatters.mlir",
]
CONFIGS = [Config(), Config(full_parse_limit=0), Config(num_partitions=4)]
"""The defaults; every header parsed lazily (a file past full_parse_limit: only
what rules read is parsed, so reuse must not parse more or less); another grid."""
BENCH = "bench:lsp_latency.program(300)"
SNIPPETS = [
    "// a comment\n", "// shlo-lint: ignore[SHLO120]\n", "// shlo-lint: ignore-file[SHLO500]\n",
    "    %zz = stablehlo.constant dense<1> : tensor<i32>\n", "{", "}", "(", ")", "<", ">", "\"", "//", "\n",
    " ", "%", "#", "@", "=", ":", ",", "x", "8", "4", "0", "tensor<", "stablehlo.", "^bb1:",
    "    %s2 = \"stablehlo.send\"(%arg0, %tok) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, "
    "source_target_pairs = dense<[[0, 1]]> : tensor<1x2xi64>}> : (tensor<4xf32>, !stablehlo.token) -> "
    "!stablehlo.token\n",
]


def text_of(name: str) -> str:
    if name == BENCH:
        return lsp_latency.program(300)
    return (CORPUS / name).read_text(encoding="utf-8")


def edit(rng: random.Random, text: str, history: list[str]) -> str:
    """One random edit of `text`."""
    kind = rng.randrange(10)
    n = len(text)
    at = rng.randrange(n + 1)
    lines = text.splitlines(keepends=True)
    if kind == 0:  # insert a snippet anywhere
        return text[:at] + rng.choice(SNIPPETS) + text[at:]
    if kind == 1 and n:  # delete a few characters
        return text[:at] + text[at + rng.randint(1, 12):]
    if kind == 2 and n:  # replace one character
        at = min(at, n - 1)
        return text[:at] + rng.choice("{}()<>[]\"%#@:=, \nx84") + text[at + 1:]
    if kind == 3 and lines:  # a line-start snippet (comment, suppression, new op)
        i = rng.randrange(len(lines))
        return "".join(lines[:i]) + rng.choice(SNIPPETS[:4] + SNIPPETS[-1:]) + "".join(lines[i:])
    if kind == 4 and len(lines) > 3:  # remove a whole line
        i = rng.randrange(len(lines))
        return "".join(lines[:i] + lines[i + 1:])
    if kind == 5 and lines:  # duplicate a line
        i = rng.randrange(len(lines))
        return "".join(lines[:i + 1] + [lines[i]] + lines[i + 1:])
    if kind == 6:  # change a digit (channel handles, pairs, type dimensions)
        digits = [i for i, c in enumerate(text) if c.isdigit()]
        if digits:
            i = rng.choice(digits)
            return text[:i] + rng.choice("0123456789") + text[i + 1:]
    if kind == 7 and history:  # undo back to an earlier text (restores structure)
        return rng.choice(history[-4:])
    if kind == 8:  # a change inside a comment, if there is one
        i = text.find("//", at)
        if i >= 0:
            return text[:i + 2] + " edited" + text[i + 2:]
    return text[:at] + rng.choice("x \n") + text[at:]


def same(a, b) -> bool:
    return (a.diagnostics == b.diagnostics and a.failed == b.failed
            and [d.fingerprint for d in a.diagnostics] == [d.fingerprint for d in b.diagnostics])


def lint_both(doc: Document, text: str, config: Config, label: str):
    """`doc`'s incremental lint of `text`, asserted equal to a full lint of it."""
    got = doc.lint(SourceFile("prog.mlir", text), config)
    want = lint_source(SourceFile("prog.mlir", text), config)
    assert same(got, want), (
        f"{label}: incremental differs from a full lint\n"
        f"--- text ---\n{text}\n--- incremental ---\n{got.diagnostics}\n--- full ---\n{want.diagnostics}")
    return got


def run_sequence(name: str, seed: int, steps: int, config: Config = Config()) -> tuple[int, int, int]:
    """Lint `steps` random edits incrementally; each must equal a full lint.
    Returns (header seeds, local results reused, steps)."""
    rng = random.Random(seed)
    text = text_of(name)
    doc = Document()
    history: list[str] = []
    seeded = reused = 0
    for step in range(steps):
        lint_both(doc, text, config, f"{name} seed {seed} step {step}")
        memo = doc.last
        seeded += memo.stats.get("headers handed over", 0)
        reused += memo.reused
        history.append(text)
        text = edit(rng, text, history)
    return seeded, reused, steps


@pytest.mark.parametrize("name", PROGRAMS + [BENCH])
def test_incremental_equals_full_on_random_edits(name):
    total_reused = 0
    for seed, config in enumerate(CONFIGS):
        _seeded, reused, _ = run_sequence(name, seed, 25, config)
        total_reused += reused
    if name == BENCH:
        assert total_reused > 0, "no local rule result was ever reused: the test would not see a wrong reuse"


DIGIT_PROGRAMS = [
    "deadlock/collectives_different_order.mlir",
    "deadlock/channel_mismatch.mlir",
    "deadlock/mismatched_pairs.mlir",
    "real/sendrecv_pair.buggy_type_mismatch.mlir",
    "real/cond_axis_index_psum.buggy_deadlock.mlir",
    "real/async_ppermute.buggy_done_twice.mlir",
]


def flips(text: str, rng: random.Random, limit: int):
    """Texts that differ from `text` in one digit or one type letter: mostly still
    valid programs, so the previous version's analyses are candidates for reuse."""
    places = [i for i, c in enumerate(text) if c.isdigit() or text.startswith(("f32", "i32", "i64"), i)]
    for i in sorted(rng.sample(places, min(limit, len(places)))):
        c = text[i]
        if c.isdigit():
            yield text[:i] + str((int(c) + rng.randint(1, 9)) % 10) + text[i + 1:]
        else:
            yield text[:i] + ("i" if c == "f" else "f") + text[i + 1:]


@pytest.mark.parametrize("name", DIGIT_PROGRAMS)
def test_one_character_changes_of_valid_programs(name):
    """Channel handles, pairs, groups, grid sizes, dimensions, element types: each
    changed alone, linted right after the original (whose findings are then
    candidates for reuse), equals a full lint."""
    text = text_of(name)
    doc = Document()
    config = Config()
    rng = random.Random(7)
    reused = rescanned = 0
    for new in flips(text, rng, 60):
        for version in (text, new):
            lint_both(doc, version, config, name)
            reused += doc.last.root == "reused"
            rescanned += bool(doc.last.stats.get("rescanned"))
    assert reused > 0, "the module op's findings were never reused: the test would not see a wrong reuse"
    assert rescanned > 0, "the skeleton was never copied: the test would not see a wrong copy"


def test_incremental_reuses_on_the_bench_edit():
    """The bench's edit (a recv's result type) re-parses a handful of headers and
    re-runs local rules only on the edited op."""
    text = lsp_latency.program(300)
    doc = Document()
    doc.lint(SourceFile("p.mlir", text), Config())
    first = doc.last
    assert first.reused == 0 and first.ran > 0
    i = text.index("(tensor<8xf32>") + len("(tensor<")
    new = text[:i] + "4" + text[i + 1:]
    got = doc.lint(SourceFile("p.mlir", new), Config())
    assert [d.code for d in got.diagnostics] == []
    memo = doc.last
    assert memo.stats["headers parsed"] <= 3, memo.stats  # the recv, its func, the module (and nothing else)
    assert memo.stats["headers parsed outside the edit"] == 0, memo.stats
    assert memo.reused > 0 and memo.ran < first.ran / 10
    assert first.root == "ran" and memo.root == "reused"  # the deadlock analysis does not read the recv's type
    assert memo.stats["rescanned"] and not first.stats["rescanned"]  # the skeleton copied, not scanned
    # A channel change of the recv is read by the analysis: it runs again.
    j = new.index("handle = 1", new.index('"stablehlo.recv"'))
    doc.lint(SourceFile("p.mlir", new[:j] + "handle = 7" + new[j + len("handle = 1"):]), Config())
    assert doc.last.root == "ran"


def test_a_broken_reuse_is_caught(monkeypatch):
    """The check can fail: moving reused spans wrongly (or not at all) is seen."""
    monkeypatch.setattr(incremental, "shift_header", lambda h, delta: h)
    monkeypatch.setattr(TextEdit, "move", lambda self, span: span)
    with pytest.raises(AssertionError, match="differs from a full lint"):
        for seed in range(5):
            run_sequence(BENCH, seed, 25)


def test_a_wrong_module_op_reuse_is_caught(monkeypatch):
    """...and so is reusing the deadlock analysis when an attribute it read changed."""
    monkeypatch.setattr(incremental, "same_field", lambda *a: True)
    with pytest.raises(AssertionError, match="differs from a full lint"):
        for name in DIGIT_PROGRAMS:
            test_one_character_changes_of_valid_programs(name)


def test_text_edit():
    e = TextEdit("abcdef", "abXYdef")
    assert (e.start, e.old_end, e.new_end, e.delta) == (2, 3, 4, 1)
    assert e.move(Span(0, 1)) == Span(0, 1) and e.move(Span(4, 6)) == Span(5, 7)
    for touching in (Span(1, 4), Span(0, 2), Span(3, 6)):  # across, ending at, starting at the edit
        with pytest.raises(incremental_edit.Unmovable):
            e.move(touching)
    assert e.old_range(0, 2) == (0, 2) and e.old_range(4, 7) == (3, 6) and e.old_range(3, 5) is None
    big = "x" * 10000 + "a" + "y" * 9000
    e = TextEdit(big, big.replace("a", "bb"))
    assert (e.start, e.old_end, e.new_end) == (10000, 10001, 10002)
    e = TextEdit("aaaa", "aaaaaa")  # repeated text: any consistent split
    assert e.old_end - e.start == 0 and e.new_end - e.start == 2


def test_a_comment_mentioning_a_mesh_changes_no_finding():
    """checker/analysis/uniform.partitioned read `sdy.mesh` anywhere in the text: a comment
    saying it made a module "partitioned" and hid its SHLO503/SHLO504 (and a re-lint
    could not reuse across comment edits)."""
    from shlo_lint import lint_text
    from shlo_lint.checker.analysis.uniform import _written

    text = (CORPUS / "deadlock" / "data_dependent_branch.mlir").read_text(encoding="utf-8")
    codes = [d.code for d in lint_text(text)]
    assert "SHLO504" in codes
    for comment in ("// sdy.mesh\n", "// uses @SPMDFullToShardShape\n"):
        assert [d.code for d in lint_text(comment + text)] == codes
    assert _written('%0 = "sdy.mesh"() : () -> ()', "sdy.mesh")
    assert _written('x loc("http://a") sdy.mesh @m = <["x"=2]>', "sdy.mesh")  # `//` in a string
    assert not _written('x = 1 // "sdy.mesh"', "sdy.mesh")
    assert not _written("// sdy.mesh\n// sdy.mesh", "sdy.mesh")


def test_a_comment_defines_no_mesh():
    """rules/_groups.symbol_defined counted `@name` mentions anywhere: a comment
    naming the missing mesh silenced SHLO200."""
    from shlo_lint import lint_text

    text = (CORPUS / "invalid" / "all_gather_i3_mesh_symbol_missing.mlir").read_text(encoding="utf-8")
    assert [d.code for d in lint_text(text)] == ["SHLO200"]
    assert [d.code for d in lint_text('// sdy.mesh @grid = <["x"=4]>\n' + text)] == ["SHLO200"]
    defined = text.replace("module @m attributes", 'module @m attributes').replace(
        "  func.func", '  sdy.mesh @grid = <["x"=4]>\n  func.func', 1)
    assert "SHLO200" not in [d.code for d in lint_text(defined)]


def test_typing_a_new_op_reuses_the_rest_of_the_file():
    """A new op typed one character at a time (every state but the last a syntax
    error in that line): each result equals a full lint, and the rest of the
    file's local findings are carried over all along."""
    text = lsp_latency.program(200)
    at = text.index("    %a2 = ")
    typed = '    %q = "stablehlo.all_reduce"(%v1) <{replica_groups = dense<[[0, 1, 2, 3, 4, 5, 6, 7]]> : tensor<1x8xi64>}> ({\n' \
            "    ^bb0(%x: tensor<f32>, %y: tensor<f32>):\n      %s = stablehlo.add %x, %y : tensor<f32>\n" \
            "      stablehlo.return %s : tensor<f32>\n    }) : (tensor<4xf32>) -> tensor<4xf32>\n"
    doc = Document()
    states = reused = 0
    for n in range(0, len(typed) + 1, 3):
        version = text[:at] + typed[:n] + text[at:]
        got = doc.lint(SourceFile("p.mlir", version), Config())
        want = lint_source(SourceFile("p.mlir", version), Config())
        assert same(got, want), version[at - 200:at + n + 200]
        if n and doc.last.ran + doc.last.reused:  # rules ran (brackets open across lines: only the scan's error)
            states += 1
            reused += doc.last.reused > doc.last.ran
    assert states > 20 and reused == states, (states, reused)


@pytest.mark.parametrize("seed", range(8))
def test_typing_a_line_with_backspaces(seed):
    """A line of the program typed again somewhere, one character at a time with
    the odd backspace (each state linted right after the one before, as an editor
    does): each result equals a full lint. (Found: an op typed at its end, a block
    label undone by a character typed before it on its line.)"""
    rng = random.Random(seed)
    name = rng.choice(PROGRAMS + ["real/gpipe_at_set.debug.mlir"])
    config = CONFIGS[seed % 2]
    text = text_of(name)
    lines = text.splitlines(keepends=True)
    typed = rng.choice(lines)
    at = sum(len(ln) for ln in lines[:rng.randrange(len(lines))])
    doc = Document()
    doc.lint(SourceFile("p.mlir", text), config)
    pos = at
    for c in typed:
        if rng.random() < 0.1 and pos > at:
            text, pos = text[:pos - 1] + text[pos:], pos - 1
        text, pos = text[:pos] + c + text[pos:], pos + 1
        got = doc.lint(SourceFile("p.mlir", text), config)
        want = lint_source(SourceFile("p.mlir", text), config)
        assert same(got, want), f"{name}: typed {text[at:pos]!r}"


def _typed_states(text: str, at: int, states: list[str], config: Config) -> None:
    doc = Document()
    for typed in [""] + states:
        version = text[:at] + typed + text[at:]
        got = doc.lint(SourceFile("p.mlir", version), config)
        want = lint_source(SourceFile("p.mlir", version), config)
        assert same(got, want), f"typed {typed!r}: {got.diagnostics} != {want.diagnostics}"


def test_a_block_label_undone_by_a_character_before_it():
    """`%` typed before `^bb0(...)` on its line: the label is gone (the while body's
    arguments with it), though the edit does not touch the label's text."""
    text = text_of("real/fori_pipeline.generic.mlir")
    at = text.index("      ^bb0(%arg26")
    _typed_states(text, at, ["    ", "   %"], CONFIGS[1])


def test_an_op_typed_at_its_end():
    """Text typed on the line after an op continues it (the op grows where the edit
    starts): the deadlock analysis read that op, so its verdict is not carried over
    once the op stops parsing."""
    text = text_of("real/gpipe_at_set.debug.mlir")
    at = text.index("    %c_10 = stablehlo.constant dense<4>")
    typed = "oc137 = loc"
    _typed_states(text, at, [typed[:n] for n in range(1, len(typed) + 1)] + [typed + "(", typed + '"'], CONFIGS[1])


COMBINE = "invalid/combine_all_reduces.mlir"
COMBINE_EDITS = [
    ("%b = stablehlo.multiply %y, %y : tensor<2x3xf32>", "%b = stablehlo.multiply %y, %y : tensor<2x4xf32>"),
    ("%c = stablehlo.add %r1, %z : tensor<4xf32>", "%c = stablehlo.add %r1, %z  : tensor<4xf32>"),
    ("%d = stablehlo.cosine %z", "%d = stablehlo.cosine %r1"),
    ("%d = stablehlo.cosine %z", "%d = stablehlo.cosine %z // %r1"),
    ("(tensor<2x3xf32>) -> tensor<2x3xf32>", "(tensor<2x5xf32>) -> tensor<2x5xf32>"),
    ("%s = stablehlo.add %p, %q : tensor<f32>\n      stablehlo.return %s : tensor<f32>\n    }) : (tensor<4xf32>)",
     "%s = stablehlo.maximum %p, %q : tensor<f32>\n      stablehlo.return %s : tensor<f32>\n    }) : (tensor<4xf32>)"),
    ("[[0, 1, 2, 3, 4, 5, 6, 7]]> : tensor<1x8xi64>}> ({\n    ^bb0(%p: tensor<f32>, %q: tensor<f32>):\n"
     "      %s = stablehlo.add %p, %q : tensor<f32>\n      stablehlo.return %s : tensor<f32>\n    }) : (tensor<2x3xf32>)",
     "[[0, 1, 2, 3], [4, 5, 6, 7]]> : tensor<2x4xi64>}> ({\n    ^bb0(%p: tensor<f32>, %q: tensor<f32>):\n"
     "      %s = stablehlo.add %p, %q : tensor<f32>\n      stablehlo.return %s : tensor<f32>\n    }) : (tensor<2x3xf32>)"),
    ("%f = stablehlo.add %r4, %m", "%f = stablehlo.add %r4, %r4"),
    ("%a = stablehlo.sine %x : tensor<4xf32>", "%a = stablehlo.sine %x :\n      tensor<4xf32>"),
]


def test_combiner_hints_reused_only_when_exact():
    """SHLO631's findings (they read the whole block) are reused after an edit of
    another op that keeps its %name mentions, and recomputed after an edit of a
    candidate (its type, reduction, groups), of def-use (an operand, a comment
    mentioning a %name) or of an op its fix moves; each result equals a full lint."""
    text = text_of(COMBINE)
    doc = Document()
    config = Config()
    reused = ran = 0
    for old, new in COMBINE_EDITS:
        assert text.count(old) >= 1, old
        changed = text.replace(old, new, 1)
        for version in (text, changed):
            lint_both(doc, version, config, "combiner hints")
            reused += doc.last.block_reused
            ran += doc.last.block_ran
    assert any(d.code == "SHLO631" for d in lint_source(SourceFile("p.mlir", text), config).diagnostics)
    assert reused > 0 and ran > 0, (reused, ran)


@pytest.mark.parametrize("broken", ["lines", "mentions"])
def test_a_wrong_combiner_reuse_is_caught(monkeypatch, broken):
    """Reusing SHLO631 although the lines moved (its notes name one), or def-use
    changed, is seen."""
    if broken == "lines":
        monkeypatch.setattr(incremental, "lines_moved", lambda *a: False)
    else:
        monkeypatch.setattr(incremental, "ssa_mentions", lambda *a: [])
    with pytest.raises(AssertionError, match="differs from a full lint"):
        test_combiner_hints_reused_only_when_exact()


def test_bench_edit_reuses_the_combiner_hints():
    text = lsp_latency.program(300)
    doc = Document()
    doc.lint(SourceFile("p.mlir", text), Config())
    i = text.index("(tensor<8xf32>") + len("(tensor<")
    doc.lint(SourceFile("p.mlir", text[:i] + "4" + text[i + 1:]), Config())
    assert doc.last.block_ran == 0 and doc.last.block_reused > 0, doc.last.stats


def test_a_wrong_header_check_reuse_is_caught(monkeypatch):
    """An op outside the edit is not parsed again when the previous version's parser
    cache vouched for it (`_Version.checked`); vouching for every op (a header that
    did not parse among them) hides its syntax error, and is seen."""
    class Everything(set):
        def __contains__(self, item) -> bool:
            return True

    init = incremental.Version.__init__

    def wrong(self, text):
        init(self, text)
        self.checked = Everything()

    # Only the syntax checks: no rule reads a header (which would find the error again).
    config = Config(select=("SHLO001",))
    for seed in range(3):
        run_sequence(BENCH, seed, 25, config)
    monkeypatch.setattr(incremental.Version, "__init__", wrong)
    with pytest.raises(AssertionError, match="differs from a full lint"):
        for seed in range(6):
            run_sequence(BENCH, seed, 25, config)


def test_a_wrong_whole_op_reuse_is_caught(monkeypatch):
    """An op's findings reused in one step (Memo.op_rules: all its rules local, or
    the combiner hints) are moved through the edit too; not moving them is seen."""
    text = lsp_latency.program(300)
    doc = Document()
    doc.lint(SourceFile("p.mlir", text), Config())
    doc.lint(SourceFile("p.mlir", "// x\n" + text), Config())
    assert doc.last.bulk > 0, doc.last.stats
    monkeypatch.setattr(incremental, "_moved", lambda found, edit: found)
    with pytest.raises(AssertionError, match="differs from a full lint"):
        for seed in range(5):
            run_sequence(BENCH, seed, 25)


def _enter(text: str, line: int) -> str:
    """`text` with Enter typed at the end of a line (a new line, indented as editors do)."""
    at = [i for i, c in enumerate(text) if c == "\n"][line]
    return text[:at] + "\n    " + text[at:]


def test_an_enter_in_a_crlf_file():
    """The same with Windows line ends (an Enter is "\\r\\n"): copied, reused, exact."""
    text = lsp_latency.program(300).replace("\n", "\r\n")
    doc = Document()
    doc.lint(SourceFile("p.mlir", text), Config())
    at = [i for i, c in enumerate(text) if c == "\r"][text.count("\n") // 2]
    for version in (text[:at] + "\r\n    " + text[at:], text):
        got = doc.lint(SourceFile("p.mlir", version), Config())
        assert same(got, lint_source(SourceFile("p.mlir", version), Config()))
        assert doc.last.rescanned and doc.last.root == "reused", doc.last.stats


def test_an_enter_reuses_the_analyses():
    """Typing Enter (a blank line between ops) moves every line after it, but no
    finding of the deadlock analysis or the combiner hints names one (the bench's
    file has none): both are reused, and the result equals a full lint."""
    text = lsp_latency.program(300)
    doc = Document()
    doc.lint(SourceFile("p.mlir", text), Config())
    middle = text.count("\n") // 2
    for version in (_enter(text, middle), text, _enter(text, middle + 3)):
        got = doc.lint(SourceFile("p.mlir", version), Config())
        assert same(got, lint_source(SourceFile("p.mlir", version), Config()))
        assert doc.last.root == "reused" and doc.last.block_ran == 0 and doc.last.block_reused > 0, doc.last.stats


@pytest.mark.parametrize("name", DIGIT_PROGRAMS + ["invalid/combine_all_reduces.mlir"])
def test_enter_on_every_line(name):
    """Enter at the end of each line of programs with deadlock findings and combiner
    hints (messages that name lines): each version, and its undo, equals a full lint."""
    text = text_of(name)
    doc = Document()
    for line in range(text.count("\n")):
        for version in (_enter(text, line), text):
            got = doc.lint(SourceFile("p.mlir", version), Config())
            want = lint_source(SourceFile("p.mlir", version), Config())
            assert same(got, want), f"{name} line {line}: incremental differs from a full lint"


def test_reusing_line_naming_findings_after_an_enter_is_caught(monkeypatch):
    """...which fails when the findings are reused although the lines moved."""
    monkeypatch.setattr(incremental, "lines_moved", lambda *a: False)
    with pytest.raises(AssertionError, match="differs from a full lint"):
        for name in DIGIT_PROGRAMS + ["invalid/combine_all_reduces.mlir"]:
            test_enter_on_every_line(name)


def test_local_findings_reused_whole_are_reused_rule_by_rule_next():
    """An op's local findings reused in one step (an Enter) are still there for the
    next version that runs the op's rules one by one (a character typed on the new
    line: a syntax error, the combiner hints run again)."""
    text = lsp_latency.program(300)  # two all_reduces with local findings (SHLO216, SHLO211)
    text = text.replace("}) : (tensor<4xf32>) -> tensor<4xf32>\n    %e1 =", "}) : (tensor<4xf32>) -> tensor<5xf32>\n    %e1 =")
    text = text.replace("[[0, 1, 2, 3, 4, 5, 6, 7]]> : tensor<1x8xi64>, use_global_device_ids}> ({\n    ^bb0(%x2",
                        "[[0, 1, 2, 3, 4, 5, 6, 7, 7]]> : tensor<1x9xi64>, use_global_device_ids}> ({\n    ^bb0(%x2")
    doc = Document()
    assert {"SHLO216", "SHLO211"} <= {d.code for d in doc.lint(SourceFile("p.mlir", text), Config()).diagnostics}
    at = [i for i, c in enumerate(text) if c == "\n"][text.count("\n") // 2]
    from_whole = 0
    for typed in ("", "%", "%q"):
        version = text[:at] + "\n    " + typed + text[at:]
        got = doc.lint(SourceFile("p.mlir", version), Config())
        assert same(got, lint_source(SourceFile("p.mlir", version), Config())), "differs from a full lint"
        from_whole += doc.last.from_whole
    assert from_whole > 0, "no finding was reused from a whole-op entry: nothing was tested"


def test_a_wrong_part_of_a_whole_op_entry_is_caught(monkeypatch):
    """Taking the wrong part of the op's entry (here: none) is seen by the full-lint comparison."""
    monkeypatch.setattr(incremental, "_part", lambda whole, code: None if whole is None else ())
    with pytest.raises(AssertionError, match="differs from a full lint"):
        test_local_findings_reused_whole_are_reused_rule_by_rule_next()


def test_same_presence_looks_only_around_the_edit():
    """incremental_edit.same_presence answers as two full searches would, for markers
    made, broken, moved or kept by random edits (the module op's rules read whether
    the file mentions `sdy.mesh` anywhere)."""
    from shlo_lint.checker.editor.incremental.edit import same_presence

    rng = random.Random(11)
    pieces = ["sdy.mesh", "sdy", ".mesh", "s", "h", "x", " ", "\n", "sdy.m", "esh"]
    for _ in range(3000):
        old = "".join(rng.choice(pieces) for _ in range(rng.randint(0, 12)))
        at = rng.randint(0, len(old))
        end = min(len(old), at + rng.randint(0, 6))
        new = old[:at] + "".join(rng.choice(pieces) for _ in range(rng.randint(0, 3))) + old[end:]
        assert same_presence(old, new, TextEdit(old, new), "sdy.mesh") == (("sdy.mesh" in old) == ("sdy.mesh" in new)), \
            (old, new)
