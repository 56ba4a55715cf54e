"""docs/editors.md's Neovim 0.7–0.10 configuration, run by a real Neovim (headless)
where one is installed (Debian 12: `apt-get install neovim`, 0.7.2)."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import FIXTURES, ROOT

NVIM = shutil.which("nvim")
pytestmark = pytest.mark.skipif(NVIM is None, reason="no nvim on PATH (apt-get install neovim)")


def init_lua() -> str:
    doc = (ROOT / "docs" / "editors.md").read_text()
    start = doc.index("```lua\n-- *.mlir files are filetype mlir")
    return doc[start + len("```lua\n"): doc.index("```", start + 6)]


def nvim(tmp_path: Path, path_env: str, wait_ms: int) -> str:
    (tmp_path / "init.lua").write_text(init_lua())
    shutil.copy(FIXTURES / "html" / "ring8_after_all_reduce.mlir", tmp_path / "ring8.mlir")
    report = tmp_path / "out.txt"
    probe = (f"+lua vim.defer_fn(function() local d = vim.diagnostic.get(0); local f = io.open('{report}', 'w'); "
             "f:write(vim.bo.filetype .. '|' .. #d .. '|' .. (d[1] and d[1].message or '') .. '|' .. "
             "(d[1] and #(d[1].user_data.lsp.relatedInformation or {}) or 0)); f:close(); vim.cmd('qa!') end, "
             f"{wait_ms})")
    env = {**os.environ, "PATH": path_env, "HOME": str(tmp_path), "XDG_STATE_HOME": str(tmp_path / "state"),
           "XDG_CACHE_HOME": str(tmp_path / "cache")}
    proc = subprocess.run([NVIM, "--headless", "-u", str(tmp_path / "init.lua"), "ring8.mlir", probe],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
    return (report.read_text() if report.exists() else "") + "\n" + (proc.stdout + proc.stderr).replace("\n", " ")


def test_neovim_07_config_shows_the_deadlock(tmp_path):
    path = f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"
    out = nvim(tmp_path, path, 15000)
    filetype, count, message, related = out.rsplit("\n", 1)[0].split("|")[:4]
    assert filetype == "mlir" and count == "1", out
    assert message.startswith("deadlock: 8 processes wait for each other in a cycle")
    assert int(related) >= 8  # the per-process story


def test_without_shlo_lint_on_path_neovim_says_so(tmp_path):
    out = nvim(tmp_path, "/usr/bin:/bin", 1500)
    assert "Spawning language server with cmd: `shlo-lint` failed" in out, out
