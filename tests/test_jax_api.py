"""shlo_lint.check_lowered / assert_clean on real JAX lowerings: a send/recv pair
whose recv declares the wrong payload (JAX does not check precv's out_shape),
lowered for CUDA on a CPU-only machine as corpus/generate.py does. The finding
must point at the `lax.precv` line of *this* file."""
from __future__ import annotations

import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

jax = pytest.importorskip("jax")
import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402
from jax import lax  # noqa: E402
from jax.sharding import Mesh, PartitionSpec as P  # noqa: E402

import shlo_lint  # noqa: E402
from shlo_lint.jax_api import LintFailure, mlir_text  # noqa: E402

CHAIN = [(i, i + 1) for i in range(7)]
HERE = Path(__file__).resolve()


def _line_of(marker: str) -> tuple[int, int]:
    """(1-based line, 1-based column of the `lax.` call) of the line tagged `marker`."""
    for n, line in enumerate(HERE.read_text().splitlines(), start=1):
        if line.rstrip().endswith(marker):
            return n, line.index("lax.") + 1
    raise AssertionError(marker)


@pytest.fixture(scope="module")
def mesh():
    """Eight CPU devices (the lowering is for CUDA; nothing runs)."""
    from jax._src import xla_bridge

    if not xla_bridge.backends_are_initialized():
        jax.config.update("jax_num_cpu_devices", 8)
    if len(jax.devices()) < 8:
        pytest.skip("JAX was initialized with fewer than 8 devices by an earlier test; "
                    "test_pytest_run_fails_at_the_python_line covers this in a fresh process")
    return Mesh(np.array(jax.devices()[:8]), ("x",))


def pipeline_step(mesh, recv_len: int):
    def body(x):
        tok = lax.psend(x, "x", CHAIN)  # <- psend
        y = lax.precv(tok, jax.ShapeDtypeStruct((recv_len,), x.dtype), "x", CHAIN)  # <- precv
        return jnp.tanh(x) + y[:4]

    return jax.shard_map(body, mesh=mesh, in_specs=P("x"), out_specs=P("x"))


def lower(mesh, recv_len: int):
    f = pipeline_step(mesh, recv_len)
    return jax.jit(f).trace(jax.ShapeDtypeStruct((32,), jnp.float32)).lower(lowering_platforms=("cuda",))


def test_check_lowered_points_at_the_precv_line_of_this_file(mesh):
    findings = shlo_lint.check_lowered(lower(mesh, recv_len=8))
    (d,) = findings
    assert d.code == "SHLO120" and "payload type (tensor<8xf32>) differs" in d.message
    assert (d.path, d.location.line, d.location.column) == (str(HERE), *_line_of("# <- precv"))
    send, lowered_at = d.notes
    assert send.message.startswith("matching send is here")
    assert (send.location.path, send.location.line, send.location.column) == (str(HERE), *_line_of("# <- psend"))
    # the place in the lowered module is kept as a note
    assert lowered_at.location.path == findings.path == "<lowered jit_body>"
    assert findings.text[lowered_at.location.span.start:].startswith('"stablehlo.recv"')


def cond_psum(mesh):
    """Only device 0 enters the psum: a deadlock (SHLO501) whose words name lines."""
    def body(x):
        return lax.cond(lax.axis_index("x") == 0,  # <- cond
                        lambda: lax.pcast(lax.psum(x, "x"), "x", to="varying"), lambda: x)

    f = jax.shard_map(body, mesh=mesh, in_specs=P("x"), out_specs=P("x"))
    return jax.jit(f).trace(jax.ShapeDtypeStruct((32,), jnp.float32)).lower(lowering_platforms=("cuda",))


def test_findings_name_python_lines_not_lines_of_the_lowered_module(mesh):
    """The user never sees the lowered module: "the case at line 19" names the
    Python line of the case (or says whose line it is)."""
    findings = shlo_lint.check_lowered(cond_psum(mesh))
    (d,) = [d for d in findings if d.code == "SHLO501"]
    texts = [d.message, d.help or "", *(n.message for n in d.notes)]
    texts += [t.waits_for for t in d.trace] + [s.message for t in d.trace for s in t.steps]
    bare = [t for t in texts if re.search(r"\blines? \d+\b(?! of <lowered)", t)]
    assert not bare, bare
    cond = f"{HERE.name}:{_line_of('# <- cond')[0]}"
    assert any(f"of the case at {cond}" in t for t in texts), texts


def test_exported_modules_are_checked_too(mesh):
    from jax import export

    exported = export.export(jax.jit(pipeline_step(mesh, 8)), platforms=["cuda"])(
        jax.ShapeDtypeStruct((32,), jnp.float32))
    (d,) = shlo_lint.check_lowered(exported)
    assert (d.code, d.path, d.location.line) == ("SHLO120", str(HERE), _line_of("# <- precv")[0])


def test_assert_clean_raises_a_readable_report(mesh):
    with pytest.raises(LintFailure) as info:
        shlo_lint.assert_clean(lower(mesh, recv_len=8))
    assert isinstance(info.value, AssertionError) and len(info.value.findings) == 1
    report = str(info.value)
    line, col = _line_of("# <- precv")
    assert f"{HERE}:{line}:{col}: error[SHLO120] recv: payload type (tensor<8xf32>)" in report
    assert "y = lax.precv(tok, jax.ShapeDtypeStruct((recv_len,), x.dtype)" in report  # the Python source line
    assert f"= note: {HERE}:{_line_of('# <- psend')[0]}:" in report
    assert "Found 1 diagnostic (1 error)" in report


def test_a_correct_program_is_clean_and_settings_apply(mesh):
    assert shlo_lint.assert_clean(lower(mesh, recv_len=4)) == []
    assert shlo_lint.check_lowered(lower(mesh, recv_len=8), ignore=("SHLO120",)) == []
    # text in, the same answer (no Python file known for the mapping: d.path is the module)
    text = mlir_text(lower(mesh, recv_len=8))
    (d,) = shlo_lint.check_lowered(text)
    assert d.location.line == _line_of("# <- precv")[0]


def test_bad_settings_are_refused_not_ignored(mesh):
    """A misspelt option, code or setting must not leave a check silently off."""
    text = mlir_text(lower(mesh, recv_len=8))
    with pytest.raises(ValueError, match="did you mean `deadlock-matching`"):
        shlo_lint.check_lowered(text, options={"deadlock-matchng": "spec"})
    with pytest.raises(ValueError, match="`SHLO12O` matches no rule"):
        shlo_lint.check_lowered(text, ignore=("SHLO12O",))
    shlo_lint.lint_text(text, config=shlo_lint.Config(ignore=("SHLO120",)))  # a valid selector is remembered...
    with pytest.raises(ValueError, match="`SHLO12O` matches no rule"):  # ...a misspelt one beside it still is not
        shlo_lint.lint_text(text, config=shlo_lint.Config(ignore=("SHLO120", "SHLO12O")))
    with pytest.raises(ValueError, match="unknown setting num_partition"):
        shlo_lint.check_lowered(text, num_partition=8)
    with pytest.raises(shlo_lint.ConfigError, match="fail_on"):
        shlo_lint.lint_text(text, "t.mlir", shlo_lint.Config(fail_on="errors"))


def test_other_objects_are_refused_with_a_clear_message():
    with pytest.raises(TypeError, match=r"expected jax.jit\(f\).lower\(...\), its .compile\(\)"):
        shlo_lint.check_lowered(42)


# ----------------------------------------------------------------------------- compiled modules
def cond_psum_cpu(mesh):
    """The same deadlock, compiled by XLA:CPU for the 8 devices: what XLA will run."""
    def body(x):
        return lax.cond(lax.axis_index("x") == 0,  # <- compiled cond
                        lambda: lax.pcast(lax.psum(x, "x"), "x", to="varying"), lambda: x)  # <- compiled psum

    f = jax.shard_map(body, mesh=mesh, in_specs=P("x"), out_specs=P("x"))
    return jax.jit(f).lower(jax.ShapeDtypeStruct((32,), jnp.float32)).compile()


def test_a_compiled_module_is_checked_at_the_python_lines(mesh):
    """`check_lowered(compiled)` lints `compiled.as_text()` (HLO, scheduled): the finding
    is at the `lax.psum` of this file, in HLO's words, and keeps its place in the
    compiled module as a note."""
    compiled = cond_psum_cpu(mesh)
    assert isinstance(compiled, jax.stages.Compiled)
    findings = shlo_lint.check_lowered(compiled)
    (d,) = [d for d in findings if d.code == "SHLO501"]
    psum_line = _line_of("# <- compiled psum")[0]
    psum_col = HERE.read_text().splitlines()[psum_line - 1].index("lax.psum") + 1
    assert (d.path, d.location.line, d.location.column) == (str(HERE), psum_line, psum_col)
    assert "hangs at this all-reduce" in d.message
    cond = f"{HERE.name}:{_line_of('# <- compiled cond')[0]}"
    notes = [n.message for n in d.notes]
    assert f"blocked in branch 1 of the conditional at {cond}" in notes
    assert any(n.location.line == _line_of("# <- compiled cond")[0] and n.message.startswith("this conditional sends")
               for n in d.notes)
    compiled_at = d.notes[-1]
    assert compiled_at.location.path == findings.path == "<compiled jit_body>"
    assert re.fullmatch(r"in the compiled module: all-reduce %[\w.\-]+", compiled_at.message)
    assert findings.text == compiled.as_text() and findings.text.startswith("HloModule jit_body")
    steps = [s for t in d.trace for s in t.steps if s.blocked]
    assert steps and all((s.location.path, s.location.line) == (str(HERE), psum_line) for s in steps)


def test_assert_clean_on_a_compiled_module_reports_the_python_line(mesh):
    with pytest.raises(LintFailure) as info:
        shlo_lint.assert_clean(cond_psum_cpu(mesh))
    report = str(info.value)
    line = _line_of("# <- compiled psum")[0]
    assert report.startswith("shlo-lint checked <compiled jit_body>:")
    assert f"{HERE}:{line}:" in report and "error[SHLO501] deadlock: process (0, 0) hangs at this all-reduce" in report


def test_an_auto_sharded_jit_is_checked_on_what_the_partitioner_made(mesh):
    """A tensor-parallel MLP with shardings: its StableHLO has no collective at all, its
    compiled module the all-reduce the partitioner inserted, and it is clean."""
    from jax.sharding import NamedSharding

    mesh2 = Mesh(np.array(jax.devices()[:8]).reshape(2, 4), ("d", "m"))
    w1 = jax.ShapeDtypeStruct((16, 32), jnp.float32, sharding=NamedSharding(mesh2, P(None, "m")))
    w2 = jax.ShapeDtypeStruct((32, 16), jnp.float32, sharding=NamedSharding(mesh2, P("m", None)))
    x = jax.ShapeDtypeStruct((8, 16), jnp.float32, sharding=NamedSharding(mesh2, P("d", None)))

    def mlp(x, w1, w2):
        return jnp.tanh(x @ w1) @ w2

    lowered = jax.jit(mlp, out_shardings=NamedSharding(mesh2, P("d", None))).lower(x, w1, w2)
    compiled = lowered.compile()
    assert "all_reduce" not in mlir_text(lowered) and " all-reduce(" in compiled.as_text()
    assert shlo_lint.assert_clean(compiled) == []
    # settings apply as for a lowering: the deadlock rules alone, and the grid the HloModule line names
    assert shlo_lint.check_lowered(compiled, select=("SHLO5",)) == []
    assert "num_partitions=8" in compiled.as_text().split("\n", 1)[0]


USER_TEST = '''
import os
os.environ["XLA_FLAGS"] = "--xla_force_host_platform_device_count=8"

import jax, jax.numpy as jnp, numpy as np
from jax import lax
from jax.sharding import Mesh, PartitionSpec as P
import shlo_lint

CHAIN = [(i, i + 1) for i in range(7)]


def lowered(recv_len):
    def body(x):
        tok = lax.psend(x, "x", CHAIN)
        y = lax.precv(tok, jax.ShapeDtypeStruct((recv_len,), x.dtype), "x", CHAIN)
        return jnp.tanh(x) + y[:4]
    mesh = Mesh(np.array(jax.devices()[:8]), ("x",))
    f = jax.shard_map(body, mesh=mesh, in_specs=P("x"), out_specs=P("x"))
    return jax.jit(f).trace(jax.ShapeDtypeStruct((32,), jnp.float32)).lower(lowering_platforms=("cuda",))


def test_pipeline_step_is_clean():
    shlo_lint.assert_clean(lowered(8))


def test_fixed_pipeline_step_is_clean():
    shlo_lint.assert_clean(lowered(4))


def test_compiled_step_is_clean():
    mesh = Mesh(np.array(jax.devices()[:8]), ("x",))

    def body(x):
        return lax.cond(lax.axis_index("x") == 0,
                        lambda: lax.pcast(lax.psum(x, "x"), "x", to="varying"), lambda: x)

    f = jax.shard_map(body, mesh=mesh, in_specs=P("x"), out_specs=P("x"))
    shlo_lint.assert_clean(jax.jit(f).lower(jax.ShapeDtypeStruct((32,), jnp.float32)).compile())
'''


def test_pytest_run_fails_at_the_python_line(tmp_path):
    """A user's own pytest file, run by pytest in a fresh process."""
    user = tmp_path / "test_model.py"
    user.write_text(textwrap.dedent(USER_TEST))
    proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                           str(user)], cwd=tmp_path, capture_output=True, text=True, timeout=600)
    out = proc.stdout + proc.stderr
    assert proc.returncode == 1, out
    assert "2 failed, 1 passed" in out
    line = next(n for n, t in enumerate(user.read_text().splitlines(), 1) if "lax.precv" in t)
    assert f"test_model.py:{line}:13: error[SHLO120] recv: payload type (tensor<8xf32>)" in out
    assert "LintFailure" in out
    # the compiled module (8 CPU devices from XLA_FLAGS, set before jax is imported)
    line, text = next((n, t) for n, t in enumerate(user.read_text().splitlines(), 1) if "lax.psum" in t)
    assert f"test_model.py:{line}:{text.index('lax.psum') + 1}: error[SHLO501] deadlock" in out
