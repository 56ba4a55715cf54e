"""`--output-format html`: one self-contained page, and its deadlock swimlanes
rendered by a real browser (headless Chromium: Debian's `chromium` package,
which .ci/run installs)."""
from __future__ import annotations

import re
import shutil
import struct
import subprocess
import zlib
from pathlib import Path

import pytest

from conftest import CORPUS, FIXTURES, run_cli, run_json
from shlo_lint.checker.report.html import LANE_COLORS

RING8 = FIXTURES / "html" / "ring8_after_all_reduce.mlir"
RING1024 = CORPUS / "deadlock" / "grid_1024_ring_recv_first.mlir"
HALF2048 = CORPUS / "deadlock" / "grid_2048_branch_half_psum.mlir"


def html_report(tmp_path: Path, *programs: Path) -> tuple[Path, str]:
    out = tmp_path / "report.html"
    proc = run_cli("-f", "html", "-o", str(out), *map(str, programs))
    assert proc.returncode == 1, proc.stderr
    return out, out.read_text(encoding="utf-8")


def test_page_is_self_contained_with_excerpts_and_one_diagram_per_deadlock(tmp_path):
    programs = (RING8, CORPUS / "invalid" / "send_c2_duplicate_source.mlir")
    _, page = html_report(tmp_path, *programs)
    _, doc = run_json(*map(str, programs))
    assert page.startswith("<!DOCTYPE html>")
    assert not re.search(r"<(script|img|link|iframe)[^>]+(src|href)=", page)  # nothing fetched
    assert page.count('<section class="finding"') == len(doc["diagnostics"]) >= 2
    assert page.count('<svg class="swimlanes"') == sum(1 for d in doc["diagnostics"] if d["trace"]) >= 1
    assert page.count('<g class="lane"') == 8  # 8 processes, one lane each (the 8-process ring)
    assert '<span class="ln">11</span>' in page  # the source excerpt around the blocked recv
    assert page.count('class="waits"') == 8  # each process waits for its neighbour


def test_1024_processes_collapse_into_labelled_classes(tmp_path):
    _, page = html_report(tmp_path, RING1024, HALF2048)
    lanes = re.findall(r'<g class="lane" data-processes="(\d+)"', page)
    assert lanes == ["1024", "1024", "1024"]  # the ring: one class; the branch: the blocked half, the other half
    assert "1024 processes (0, p), p = 0\u20131023" in page  # the ring's members, each (0, p)
    assert "recv from (0, p-1 mod 1024)" in page
    assert "1024 processes (0, 1024)\u2013(0, 2047)" in page  # every process that never arrives
    assert len(page) < 2_000_000


def test_the_summary_counts_in_words(tmp_path):
    _, page = html_report(tmp_path, RING1024)
    assert "1 finding (1 error, 0 warnings, 0 infos) in 1 file checked" in page  # was "1 errors"


def test_highlighting_is_optional(monkeypatch):
    import builtins

    from shlo_lint.checker.report import html

    real_import = builtins.__import__

    def no_lexer(name, *a, **kw):
        if name == "mlir_pygments":
            raise ImportError(name)
        return real_import(name, *a, **kw)

    monkeypatch.setattr(builtins, "__import__", no_lexer)
    hl = html._highlighter()
    assert hl('%x = "stablehlo.add"<') == "%x = &quot;stablehlo.add&quot;&lt;"


# --------------------------------------------------------------------------- in a browser
CHROMIUM = next((shutil.which(n) for n in ("chromium", "chromium-browser", "google-chrome") if shutil.which(n)), None)
browser = pytest.mark.skipif(CHROMIUM is None, reason="no chromium on PATH (`apt-get install -y chromium`; "
                                                      ".ci/run installs it, so CI runs this test)")


def chromium(tmp_path: Path, *args: str) -> subprocess.CompletedProcess:
    profile = tmp_path / f"profile-{len(list(tmp_path.iterdir()))}"
    profile.mkdir()
    return subprocess.run([CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                           "--no-first-run", "--disable-background-networking", "--disable-component-update",
                           "--disable-sync", f"--user-data-dir={profile}", "--hide-scrollbars", *args],
                          capture_output=True, text=True, timeout=120)


def png_pixels(path: Path) -> set[tuple[int, int, int]]:
    """The distinct RGB colours of an 8-bit RGB/RGBA non-interlaced PNG (what Chromium writes)."""
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, idat, width = 8, b"", 0
    while pos < len(data):
        (n,) = struct.unpack(">I", data[pos:pos + 4])
        kind, body = data[pos + 4:pos + 8], data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            width, height, depth, color = struct.unpack(">IIBB", body[:10])
            assert depth == 8 and color in (2, 6)
            bpp = 3 if color == 2 else 4
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    raw, stride, prev, colors = zlib.decompress(idat), width * bpp, bytearray(width * bpp), set()
    for y in range(height):
        f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b, c = prev[i], prev[i - bpp] if i >= bpp else 0
            if f == 1:
                line[i] = (line[i] + a) & 255
            elif f == 2:
                line[i] = (line[i] + b) & 255
            elif f == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        colors.update(bytes(line[i:i + 3]) for i in range(0, stride, bpp * 7))  # every 7th pixel is plenty
        prev = line
    return {tuple(c) for c in colors}


def _rgb(hex_color: str) -> tuple[int, int, int]:
    return tuple(int(hex_color[i:i + 2], 16) for i in (1, 3, 5))


@browser
@pytest.mark.parametrize("programs, lanes, colors", [((RING8,), 8, 8), ((RING1024, HALF2048), 3, 2)])
def test_report_renders_in_headless_chromium(tmp_path, programs, lanes, colors):
    page, _ = html_report(tmp_path, *programs)
    dom = chromium(tmp_path, "--dump-dom", page.as_uri())
    assert dom.returncode == 0, dom.stderr[-2000:]
    # the page's own script counted the lanes the browser built
    assert f'data-lanes="{lanes}"' in dom.stdout, dom.stdout[:2000]
    assert f"{lanes} lanes drawn" in dom.stdout
    shot = tmp_path / "shot.png"
    proc = chromium(tmp_path, "--window-size=1300,1400", f"--screenshot={shot}", page.as_uri())  # (index, filter above)
    assert proc.returncode == 0 and shot.is_file(), proc.stderr[-2000:]
    seen = png_pixels(shot)
    drawn = [c for c in LANE_COLORS if _rgb(c) in seen]
    assert drawn == list(LANE_COLORS[:colors]), (drawn, len(seen))  # each lane's colour is on screen
    assert _rgb("#dc2626") in seen  # the blocked ops' red


def test_boxes_name_the_branch_or_iteration_where_processes_split(tmp_path):
    _, page = html_report(tmp_path, CORPUS / "deadlock" / "collectives_different_order.mlir",
                          CORPUS / "deadlock" / "while_partition_trip_count.mlir")
    assert "branch 0 of case :12" in page and "branch 1 of case :12" in page
    assert "iteration 2 of while :11" in page
    assert "this case sends (0, 0), (0, 2) to branch 0" in page  # the note saying how they split


MIXED = (CORPUS / "invalid" / "send_c2_duplicate_source.mlir", RING8, CORPUS / "real" / "psum.mlir",
         CORPUS / "real" / "sendrecv_pair.buggy_type_mismatch.mlir")


def test_a_report_of_several_files_has_an_index_linking_to_each_files_findings(tmp_path):
    _, page = html_report(tmp_path, *MIXED)
    _, doc = run_json(*map(str, MIXED))
    found = {}
    for d in doc["diagnostics"]:
        found.setdefault(d["path"], []).append(d)
    rows = re.findall(r'<tr data-file="(\d+)"><td><a href="#file-(\d+)">([^<]+)</a></td>'
                      r'<td>(\d+)</td><td>(\d+)</td><td>(\d+)</td>', page)
    assert [r[2] for r in rows] == sorted(found) and len(rows) == 3  # psum.mlir is clean
    for number, target, path, errors, warnings, infos in rows:
        assert number == target and f'<h2 class="file" id="file-{number}" data-file="{number}">{path}</h2>' in page
        sev = [d["severity"] for d in found[path]]
        assert (int(errors), int(warnings), int(infos)) == tuple(sev.count(s) for s in ("error", "warning", "info"))
        assert page.count(f'<section class="finding" id="f{number}-') == len(found[path])
    assert "1 other file checked: no findings" in page
    assert 'id="filter"' in page and page.count('name="sev"') == 3
    _, single = html_report(tmp_path, RING8)
    assert '<table class="files">' not in single and '<h2 class="file"' not in single


@browser
@pytest.mark.parametrize("address, shown", [
    ("", ["SHLO102", "SHLO120", "SHLO500"]),
    ("#code=SHLO5", ["SHLO500"]),
    ("#code=SHLO1,deadlock-wait-cycle", ["SHLO102", "SHLO120", "SHLO500"]),
    ("#code=send-recv-payload-mismatch", ["SHLO120"]),
    ("#severity=warning,info", []),
])
def test_the_filter_hides_findings_in_a_browser(tmp_path, address, shown):
    """The page's filter, run by Chromium: what an address's #severity=&code= leaves shown,
    the files' headings and the index's `shown` column following it."""
    page, _ = html_report(tmp_path, *MIXED)
    dom = chromium(tmp_path, "--dump-dom", page.as_uri() + address)
    assert dom.returncode == 0, dom.stderr[-2000:]
    sections = re.findall(r'<section class="finding" [^>]*data-code="(SHLO\d+)"[^>]*?( hidden="")?>', dom.stdout)
    assert sorted(code for code, hidden in sections if not hidden) == shown
    assert f'data-shown="{len(shown)}"' in dom.stdout and f"{len(shown)} of 3 findings shown" in dom.stdout
    headings = re.findall(r'<h2 class="file" [^>]*?( hidden="")?>', dom.stdout)
    assert sum(1 for h in headings if not h) == len(shown)  # one finding per file here
    assert sorted(re.findall(r'<td class="shown">(\d)</td>', dom.stdout)) == sorted(
        ["1"] * len(shown) + ["0"] * (3 - len(shown)))
