"""`-j N`: worker processes give the same report, in the same order, as one process."""
from __future__ import annotations

import shutil

from conftest import CORPUS, run_cli

import shlo_lint
from shlo_lint.checker.lint.config import Config
from shlo_lint.checker.cli.parallel import resolve_jobs


def _tree(tmp_path):
    for sub in ("real", "deadlock", "invalid"):
        shutil.copytree(CORPUS / sub, tmp_path / sub, ignore=shutil.ignore_patterns("*.py", "*.expect", "grid_*"))
    return tmp_path


def test_jobs_output_is_identical_to_one_process(tmp_path):
    tree = _tree(tmp_path)
    one = run_cli("-j", "1", "--isolated", str(tree))
    two = run_cli("-j", "2", "--isolated", str(tree))
    # 2: corpus/invalid/syntax_no_break_space.mlir does not parse (MLIR rejects it too)
    assert one.returncode == two.returncode == 2
    assert one.stdout == two.stdout
    assert "files checked" in one.stdout


def test_jobs_json_is_identical(tmp_path):
    tree = _tree(tmp_path)
    one = run_cli("-j", "1", "--isolated", "-f", "json", str(tree))
    auto = run_cli("-j", "auto", "--isolated", "-f", "json", str(tree))
    assert one.stdout == auto.stdout


def test_lint_paths_jobs_keeps_order_and_findings(tmp_path):
    tree = _tree(tmp_path)
    seq = shlo_lint.lint_paths([str(tree)], Config(), jobs=1)
    par = shlo_lint.lint_paths([str(tree)], Config(), jobs=2)
    assert [r.source.path for r in seq] == [r.source.path for r in par]
    assert [[(d.code, d.span, d.message) for d in r.diagnostics] for r in seq] == \
           [[(d.code, d.span, d.message) for d in r.diagnostics] for r in par]
    assert all(r.module is None for r in par)  # workers send text and findings, not the IR


def test_bad_jobs_is_exit_2():
    proc = run_cli("-j", "zero", str(CORPUS / "real"))
    assert proc.returncode == 2
    assert "--jobs" in proc.stderr
    assert resolve_jobs("auto") >= 1 and resolve_jobs(3) == 3


def test_auto_starts_a_pool_only_when_the_files_are_worth_it(tmp_path):
    from shlo_lint.checker.cli.parallel import auto_jobs

    few = [str(p) for p in sorted((CORPUS / "real").glob("*.mlir"))[:4]]
    assert auto_jobs(few, 2) == 1  # a pre-commit run: a pool costs more than it saves
    many = [str(tmp_path / f"f{i}.mlir") for i in range(200)]
    for p in many:
        with open(p, "w") as f:
            f.write("func.func @f() {\n  return\n}\n")
    assert auto_jobs(many, 2) == 2
    big = tmp_path / "big.mlir"
    big.write_text("// x\n" * 300_000)  # 1.5 MB: worth a pool with a second file
    assert auto_jobs([str(big), few[0]], 2) == 2
    assert auto_jobs(many, 1) == 1 and auto_jobs(many[:1], 8) == 1
    # lint_paths(jobs="auto") on a few files lints in this process (the IR is kept)
    assert all(r.module is not None for r in shlo_lint.lint_paths(few, Config(), jobs="auto"))


def test_a_child_that_dies_leaves_its_chunk_to_the_parent(tmp_path, monkeypatch):
    """A child killed in the middle of a chunk (the OOM killer, a crash in a native
    library) must not hang the run nor lose files: the parent lints what it left."""
    import os

    from shlo_lint.checker.cli import parallel

    tree = _tree(tmp_path / "tree")
    files = sorted(str(p) for p in tree.rglob("*.mlir"))
    parent = os.getpid()
    real = parallel._released

    def dying(path, config):
        if os.getpid() != parent:  # every child dies in its first file
            (tmp_path / f"died{os.getpid()}").write_text(path)
            os._exit(9)
        return real(path, config)

    monkeypatch.setattr(parallel, "_released", dying)  # (inherited by the forked children)
    monkeypatch.setattr(parallel, "chunk_size", lambda n, jobs: 1)
    got = list(parallel.lint_files(files, Config(), jobs=3))
    assert len(list(tmp_path.glob("died*"))) == 2  # both children took a chunk and died in it
    want = [parallel._lint_one(p, Config()) for p in files]
    assert [r.source.path for r in got] == files
    assert [[(d.code, d.span, d.message) for d in r.diagnostics] for r in got] == \
           [[(d.code, d.span, d.message) for d in r.diagnostics] for r in want]
