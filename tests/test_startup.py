"""Start-up: a one-file run loads only what it uses, and the lazy lexer tokenises as Lark's own.

bench/startup.py measures the time; these tests keep the causes from coming back.
"""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from lark.lexer import BasicLexer, ContextualLexer, Scanner, TextSlice

from shlo_lint.checker.frontend.stablehlo import lark_lexer as lazy
from shlo_lint.checker.frontend.stablehlo.parse import runner as parse  # the Lark instance (parse.lark_parser)
from shlo_lint.checker.frontend.read import header_parser as parser

ROOT = Path(__file__).resolve().parents[1]
SMALL = ROOT / "corpus" / "real" / "all_gather.mlir"  # a clean JAX export with a collective

# Each is imported by a command or output format that needs it, never by `shlo-lint FILE`:
# z3 (deadlock models with a finding to explain), jax/jaxlib (`run --engine xla`,
# check_lowered), pygls/lsprotocol (`lsp`), sarif_om (`-f sarif`), the execution
# checker (`run`, `--confirm`), importlib.metadata (--version, declared plugins),
# multiprocessing (-j with several files).
NOT_AT_STARTUP = ("z3", "jax", "jaxlib", "pygls", "lsprotocol", "sarif_om", "shlo_lint.checker.execute",
                  "importlib.metadata", "multiprocessing", "concurrent.futures")


def _loaded_after(argv: list[str]) -> tuple[int, list[str], str]:
    probe = ("import sys\nfrom shlo_lint.checker.cli.commands import main\nsys.argv = %r\ncode = 0\n"
             "try:\n    main()\nexcept SystemExit as e:\n    code = e.code\n"
             "print(json.dumps([code, sorted(sys.modules)]), file=sys.stderr)\n") % (["shlo-lint", *argv],)
    out = subprocess.run([sys.executable, "-c", "import json\n" + probe], capture_output=True, text=True,
                         cwd=ROOT, check=False)
    code, modules = json.loads(out.stderr.strip().splitlines()[-1])
    return code, modules, out.stdout


def _heavy(modules: list[str]) -> list[str]:
    return [m for m in modules if any(m == h or m.startswith(h + ".") for h in NOT_AT_STARTUP)]


def test_linting_one_clean_file_imports_none_of_the_heavy_libraries():
    code, modules, out = _loaded_after(["--isolated", str(SMALL)])
    assert code == 0, out
    assert "All checks passed" in out
    assert _heavy(modules) == []
    assert "shlo_lint.rules.deadlock" in modules  # the checks did run (the deadlock analysis included)


def test_a_file_with_findings_in_text_format_still_imports_none_of_them(tmp_path):
    bad = tmp_path / "bad.mlir"
    bad.write_text((ROOT / "corpus" / "real" / "psum.mlir").read_text().replace("stablehlo.", "stablehlo.", 1)
                   + "\n\n\n")
    code, modules, out = _loaded_after(["--isolated", "--select", "ALL", str(bad)])
    assert code in (0, 1), out
    assert _heavy(modules) == []


def test_a_file_without_communication_does_not_import_numpy(tmp_path):
    # numpy is for the SPMD tracer and the deadlock model (checker/analysis/lazy_numpy.py);
    # a file they have nothing to trace never imports it. One with a collective does.
    plain = tmp_path / "plain.mlir"
    plain.write_text("func.func @main(%a: tensor<4xf32>) -> tensor<4xf32> {\n"
                     "  %0 = stablehlo.add %a, %a : tensor<4xf32>\n  return %0 : tensor<4xf32>\n}\n")
    code, modules, out = _loaded_after(["--isolated", str(plain)])
    assert code == 0 and "All checks passed" in out, out
    assert "numpy" not in modules
    code, modules, out = _loaded_after(["--isolated", str(SMALL)])
    assert code == 0 and "numpy" in modules


def test_the_formats_and_commands_that_need_them_still_load_them(tmp_path):
    code, modules, out = _loaded_after(["--isolated", "-f", "sarif", str(SMALL)])
    assert code == 0 and json.loads(out)["version"] == "2.1.0"
    assert "sarif_om" in modules
    code, modules, out = _loaded_after(["--version"])
    assert code == 0 and out.startswith("shlo-lint, version ")
    code, modules, out = _loaded_after(["run", "--help"])
    assert code == 0 and "--engine" in out and "shlo_lint.checker.cli.run_command" in modules
    code, modules, out = _loaded_after(["--help"])
    assert code == 0 and " run " in out  # (--help imports it, for its one-line help)


# --------------------------------------------------------------------------- the lazy lexer


def _basic_lexers(lark) -> list[BasicLexer]:
    ctx = lark.parser.lexer
    assert isinstance(ctx, ContextualLexer)
    return list({id(b): b for b in (*ctx.lexers.values(), ctx.root_lexer)}.values())


def test_the_linter_parser_uses_the_lazy_lexer():
    parser()
    lexers = _basic_lexers(parse.lark_parser())
    assert lexers and all(type(b) is lazy.LazyBasicLexer for b in lexers)


def _texts() -> list[str]:
    files = sorted((ROOT / "corpus" / "real").glob("*.mlir"))[:6] + sorted((ROOT / "corpus" / "invalid").rglob("*.mlir"))[:30]
    texts = [f.read_text(encoding="utf-8") for f in files]
    texts.append("%0 = \"stablehlo.add\"(%a, %b) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32> é \x00 ‽ 0x1p3 -0.5e-3 "
                 "#sdy.sharding<@mesh, [{\"x\"}]> !quant.uniform<i8:f32, 0.5:-3> loc(\"a\":1:2) ^bb0 @f dense<[1, 2]>")
    return texts


def test_lazy_scanners_match_exactly_what_lark_union_regexes_match():
    """Per-terminal matching in the union's order = the union's first-alternative
    match: same token text and type at every position, for every scanner of the
    grammar (including positions where nothing matches)."""
    parser()
    lexers = _basic_lexers(parse.lark_parser())
    texts = [t[:4000] for t in _texts()]
    checked = 0
    for b in lexers:
        scanner = b.scanner if isinstance(b.scanner, lazy.LazyScanner) else None
        if scanner is None:  # already compiled: make a fresh lazy one of the same terminals
            scanner = lazy.LazyScanner(b.scanner.terminals, b.g_regex_flags, b.re, False)
        union = Scanner(scanner.terminals, b.g_regex_flags, b.re, False)
        for text in texts:
            ts = TextSlice(text, 0, len(text))
            for pos in range(0, len(text), 3):
                fresh = lazy.LazyScanner.__new__(lazy.LazyScanner)
                fresh.__dict__.update(scanner.__dict__)
                fresh._uses = 0
                assert fresh.match(ts, pos) == union.match(ts, pos), (pos, text[pos:pos + 30])
                checked += 1
        assert scanner.allowed_types == union.allowed_types
    assert checked > 10000


def test_a_hot_lazy_scanner_switches_to_the_union_and_keeps_matching_the_same():
    text = "tensor<4x8xf32> %arg0 : i32 -> @main \"x\" 12 0.5"
    ts = TextSlice(text, 0, len(text))
    b = next(b for b in _basic_lexers(parse.lark_parser()) if len(b.terminals) > 5)
    scanner = lazy.LazyScanner(b.scanner.terminals, b.g_regex_flags, b.re, False)
    union = Scanner(scanner.terminals, b.g_regex_flags, b.re, False)
    want = [union.match(ts, p) for p in range(len(text))]
    got = [scanner.match(ts, p) for _ in range(lazy.HOT // len(text) + 2) for p in range(len(text))]
    assert scanner._mres is not None  # it went hot
    assert got == want * (lazy.HOT // len(text) + 2)
