"""jaxlib's own HLO parser (`hlo_module_from_text`, the one XLA uses) accepts every fixture
these tests call valid, and reads the same computations, instructions and operands as ours.
It runs in a child process: on some malformed input jaxlib's parser aborts the process
(a CHECK failure, e.g. on `token[2]`)."""
from __future__ import annotations

import json
import subprocess
import sys

import pytest

from hlo_helpers import JAXLIB_VALID, module

pytest.importorskip("jax")

_CHILD = r"""
import json, sys
from jax._src.lib import xla_client as xc
out = {}
for path in sys.argv[1:]:
    m = xc.hlo.hlo_module_from_text(open(path, encoding="utf-8").read())
    out[path] = {c.name: [[i.name, [o.name for o in i.operands()]] for i in c.instructions()]
                 for c in m.computations()}
print(json.dumps(out))
"""


@pytest.fixture(scope="module")
def jaxlib_reading():
    proc = subprocess.run([sys.executable, "-c", _CHILD, *map(str, JAXLIB_VALID)], capture_output=True,
                          text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return json.loads(proc.stdout)


@pytest.mark.parametrize("path", JAXLIB_VALID, ids=lambda p: p.name)
def test_jaxlib_reads_what_we_read(path, jaxlib_reading):
    theirs = jaxlib_reading[str(path)]
    ours = module(str(path.relative_to(path.parents[1] if path.parent.name == "dump" else path.parent)))
    # jaxlib makes a computation for each async op written in the *-start spelling: ours has none.
    assert set(ours.computations) <= set(theirs)
    for name, comp in ours.computations.items():
        mine = {i.name: list(i.operand_names) for i in comp.instructions}
        assert mine == {n: ops for n, ops in theirs[name]}, name


def test_jaxlib_reads_the_hand_written_gpu_corpus_as_we_do():
    """corpus/hlo/gpu/ is written by hand in XLA:GPU's forms: XLA's parser must take every
    module there (the hazards they carry are XLA:GPU's runtime's, not the parser's)."""
    from shlo_lint.checker.frontend.hlo import read_hlo

    from conftest import CORPUS

    paths = sorted((CORPUS / "hlo" / "gpu").glob("*.hlo"))
    assert len(paths) >= 10
    proc = subprocess.run([sys.executable, "-c", _CHILD, *map(str, paths)], capture_output=True, text=True,
                          timeout=600)
    assert proc.returncode == 0, proc.stderr[-2000:]
    theirs_all = json.loads(proc.stdout)
    for path in paths:
        ours = read_hlo(path.read_text(encoding="utf-8"), str(path))
        assert not ours.parse_all(), path.name
        theirs = theirs_all[str(path)]
        for name, comp in ours.computations.items():
            assert {i.name: list(i.operand_names) for i in comp.instructions} == \
                {n: ops for n, ops in theirs[name]}, (path.name, name)
