"""The structural scanner: op boundaries, names, results, regions, blocks, aliases."""
from __future__ import annotations

import pytest

from shlo_lint.checker.frontend.stablehlo.scan import scan
from shlo_lint.checker.source.text import SourceFile

from conftest import CORPUS


def skeleton(text: str):
    module = scan(SourceFile("t.mlir", text), parser=None)
    return module


def ops(module):
    src = module.source
    return [(op.name, src.line_col(op.span.start), src.line_col(op.span.end)) for op in module.walk()
            if op is not module.root]


def test_one_line_ops_in_a_func():
    m = skeleton(
        "func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {\n"
        "  %0 = stablehlo.add %a, %a : tensor<4xf32>\n"
        "  %1:2 = \"stablehlo.foo\"(%0) : (tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>)\n"
        "  return %1#0 : tensor<4xf32>\n"
        "}\n")
    assert ops(m) == [
        ("func.func", (1, 1), (5, 2)),
        ("stablehlo.add", (2, 3), (2, 44)),
        ("stablehlo.foo", (3, 3), (3, 81)),
        ("func.return", (4, 3), (4, 30)),
    ]
    foo = next(op for op in m.walk() if op.name == "stablehlo.foo")
    assert foo.result_names == (("%1", 2),)
    assert [v.name for v in foo.results] == ["%1#0", "%1#1"]
    assert m.root.name == "builtin.module"  # implicit module around bare funcs


def test_pretty_while_regions_and_generic_regions_with_block_labels():
    text = (CORPUS / "real" / "fori_pipeline.mlir").read_text()
    m = skeleton(text)
    whiles = [op for op in m.walk() if op.name == "stablehlo.while"]
    assert len(whiles) == 1 and len(whiles[0].regions) == 2  # cond { } do { }
    cond, body = whiles[0].regions
    assert cond.blocks[0].operations[-1].name == "stablehlo.return"
    assert any(op.name == "func.call" for op in body.blocks[0].operations)
    src = m.source
    line = src.line_col(whiles[0].span.start)[0]
    assert "stablehlo.while" in src.line_text(line)
    assert src.line_text(src.line_col(whiles[0].span.end)[0]).strip().startswith("}")


def test_reduction_region_block_label():
    m = skeleton((CORPUS / "real" / "psum.mlir").read_text())
    (ar,) = [op for op in m.walk() if op.name == "stablehlo.all_reduce"]
    (region,) = ar.regions
    assert region.blocks[0].label == "^bb0"
    assert [op.name for op in region.blocks[0].operations] == ["stablehlo.add", "stablehlo.return"]
    assert ar.header_end == region.span.start  # header ends where `({` opens the region
    assert m.source.text[region.span.start] == "{" and m.source.text[region.span.end - 1] == "}"


def test_seed_forms_multiline_attribute_dicts_and_unparenthesised_regions():
    text = (
        'func.func @main(%operand: tensor<2x2xi64>, %token: !stablehlo.token) -> !stablehlo.token {\n'
        '%result = "stablehlo.send"(%operand, %token) {\n'
        '  source_target_pairs = dense<[[0, 1], [1, 2]]> : tensor<2x2xi64>,\n'
        '  is_host_transfer = true\n'
        '} : (tensor<2x2xi64>, !stablehlo.token) -> !stablehlo.token\n'
        '%future = "stablehlo.async_start"(\n'
        '    %init_i as %arg0: tensor<i64>,\n'
        '    %init_sum as %arg1: tensor<i64>)\n'
        '{\n'
        '    %new_sum = stablehlo.add %arg1, %arg0 : tensor<i64>\n'
        '    stablehlo.return %new_sum : tensor<i64>\n'
        '} : (tensor<i64>, tensor<i64>) -> async<tensor<i64>>\n'
        '%f = tessera.collective.all_reduce %dw\n'
        '        {op="sum", chunk_bytes = 1048576}\n'
        'return %result : !stablehlo.token\n'
        '}\n')
    m = skeleton(text)
    got = {op.name: op for op in m.walk()}
    send = got["stablehlo.send"]
    assert not send.regions  # the `{` ending line 2 opens an attribute dictionary
    assert m.source.line_col(send.span.end) == (5, 60)
    start = got["stablehlo.async_start"]
    assert len(start.regions) == 1  # the `{` on its own line opens a region
    assert [op.name for op in start.regions[0].blocks[0].operations] == ["stablehlo.add", "stablehlo.return"]
    tessera = got["tessera.collective.all_reduce"]
    assert m.source.line_col(tessera.span.end)[0] == 14  # attr dict on the next line belongs to it
    assert not m.syntax_errors


def test_loc_aliases_before_and_after_the_module():
    m = skeleton((CORPUS / "real" / "psum.debug.mlir").read_text())
    assert "#loc" in m.alias_texts and len(m.alias_texts) > 5
    assert m.root.name == "builtin.module" and m.root.parent is None


def test_dialect_resources_are_skipped():
    m = skeleton('module {\n  func.func @f() {\n    return\n  }\n}\n{-#\n  dialect_resources: {\n'
                 '    builtin: {\n      blob1: "0x08000000"\n    }\n  }\n#-}\n')
    assert not m.syntax_errors
    assert [op.name for op in m.walk()] == ["builtin.module", "func.func", "func.return"]


@pytest.mark.parametrize("text, message, line", [
    ("func.func @f() {\n  %0 = stablehlo.constant dense<1> : tensor<i32>\n", "unexpected end of file", 3),
    ("func.func @f() {\n  return\n}\n}\n", "unbalanced '}'", 4),
    ('%0 = "stablehlo.add"(%a, %b)) : (tensor<f32>, tensor<f32>) -> tensor<f32>\n', None, 1),
])
def test_structural_errors_are_located_and_scanning_goes_on(text, message, line):
    m = skeleton(text)
    if message is None:  # one-line ops are checked by the header parse, not the scan
        return
    assert m.syntax_errors, text
    msg, span = m.syntax_errors[0]
    assert message in msg
    assert m.source.line_col(span.start)[0] == line


def test_every_real_corpus_file_scans_without_errors():
    files = sorted((CORPUS / "real").glob("*.mlir"))
    assert len(files) >= 40
    for f in files:
        m = skeleton(f.read_text())
        assert not m.syntax_errors, (f, m.syntax_errors[:3])
        assert sum(1 for _ in m.walk()) > 3, f


def test_alias_line_inside_a_region_is_an_error_not_a_hang():
    """Fuzzing found it (a line swap in a debug-info export): a `#loc = loc(...)`
    line inside a function body was taken as the previous op going on, which did not
    take it up either, again and again."""
    import time

    from shlo_lint import lint_text

    text = ('func.func @main(%a: tensor<f32>) -> tensor<f32> {\n'
            '  %0 = stablehlo.add %a, %a : tensor<f32>\n'
            '#loc86 = loc("x")\n'
            '  return %0 : tensor<f32>\n'
            '}\n')
    t0 = time.monotonic()
    diags = lint_text(text, "f.mlir")
    assert time.monotonic() - t0 < 30
    assert [(d.code, d.span.start) for d in diags if d.code == "SHLO001"] == [("SHLO001", text.index("#loc86"))]


def test_non_ascii_outside_strings_and_comments_is_a_syntax_error():
    """MLIR's lexer rejects a no-break space or a Unicode minus between tokens
    ("unexpected character", same line and column); inside string literals and
    `//` comments non-ASCII text is fine. One error per line."""
    from shlo_lint.checker.frontend.stablehlo.scan import stray_characters

    text = ('// caf\u00e9 \u2014 fine\n'
            '%0 = stablehlo.add %a,\u00a0%b : tensor<f32> loc("\u00e9.py":1:2)\n'
            '%1 = "x.y"() {s = "\u2212 // \u00a0"} : () -> ()  // \u00a0 ok\n'
            '%2 = stablehlo.constant dense<\u22121.0> : tensor<f32>\u00a0\u00a0\n')
    found = stray_characters(text)
    assert [(m.split(";")[0], text[s.start:s.end]) for m, s in found] == [
        ("unexpected character U+00A0 (NO-BREAK SPACE): it looks like a space but is not one", "\u00a0"),
        ("unexpected character U+2212 (MINUS SIGN)", "\u2212")]
    assert found[0][1].start == text.index("\u00a0")
    assert stray_characters("// \u00e9\n%0 = \"a.b\"() {x = \"\u00e9\"} : () -> ()\n") == []


def test_control_characters_between_tokens_are_syntax_errors():
    """jaxlib: `%a,\\v%a`, form feed, \\x1d and DEL are "unexpected character";
    NUL is whitespace to MLIR's lexer, so it is not reported here."""
    from shlo_lint.checker.frontend.stablehlo.scan import stray_characters

    for ch in "\x0b\x0c\x1d\x7f":
        [(message, span)] = stray_characters(f"%0 = stablehlo.add %a,{ch}%a : tensor<i32>\n")
        assert message.startswith(f"unexpected character U+{ord(ch):04X} (") and span.start == 22
    assert stray_characters("%0 = stablehlo.add %a,\x00%a : tensor<i32>\n") == []
    assert stray_characters('%0 = "a.b"() : () -> ()  // \x0b in a comment\n') == []
