"""Op semantics against ground truth: JAX programs lowered to StableHLO, run by
the interpreter on the same inputs as XLA:CPU runs the jitted function; the
outputs must agree (floats within rounding, integers exactly). Each case is the
kind of code users write (indexing updates, sorting, pooling and its gradient,
convolutions, FFTs, solvers, PRNG) and exercises the ops JAX lowers it to."""
from __future__ import annotations

import numpy as np
import pytest

from shlo_lint.checker.execute.interpreter import Interpreter
from shlo_lint.checker.execute.values import Inputs

jax = pytest.importorskip("jax")
jnp = jax.numpy
lax = jax.lax

rng = np.random.default_rng(7)
F = rng.standard_normal((6, 8)).astype(np.float32)
I = np.array([3, 0, 5, 3], np.int32)
IMG = rng.standard_normal((2, 9, 9, 3)).astype(np.float32)
KER = rng.standard_normal((3, 3, 3, 4)).astype(np.float32)
SQ = (rng.standard_normal((3, 4, 4)) + 4 * np.eye(4)).astype(np.float32)
SPD = (SQ @ SQ.transpose(0, 2, 1)).astype(np.float32)


def _conv(x, k, **kw):
    return lax.conv_general_dilated(x, k, dimension_numbers=("NHWC", "HWIO", "NHWC"), **kw)


def _pool(x):
    return lax.reduce_window(x, -jnp.inf, lax.max, (1, 3, 3, 1), (1, 2, 2, 1), "SAME")


CASES = {
    # indexing: gather / scatter / dynamic slices
    "take": (lambda x, i: x[i], (F, I)),
    "take_2d": (lambda x, i: x[i, 1:3], (F, I)),
    "take_along_axis": (lambda x, i: jnp.take_along_axis(x, jnp.argsort(x, axis=1), axis=1), (F, I)),
    "at_set": (lambda x, i: x.at[i].set(7.0), (F, I)),
    "at_add_duplicates": (lambda x, i: x.at[i].add(1.5), (F, I)),
    "at_max": (lambda x, i: x.at[i, 2].max(0.5), (F, I)),
    "at_mul": (lambda x, i: x.at[:, i].multiply(2.0), (F, I)),
    "at_set_out_of_bounds_dropped": (lambda x, i: x.at[i + 4].set(-1.0, mode="drop"), (F, I)),
    "gather_clamped": (lambda x, i: x.at[i + 4].get(mode="clip"), (F, I)),
    "dynamic_update_slice": (lambda x, i: lax.dynamic_update_slice(x, jnp.ones((2, 3)), (i[0], i[2])), (F, I)),
    "dynamic_slice_clamped": (lambda x, i: lax.dynamic_slice(x, (i[2], i[1] + 7), (2, 4)), (F, I)),
    # sorting and selection
    "sort": (lambda x: jnp.sort(x, axis=1), (F,)),
    "sort_descending": (lambda x: -jnp.sort(-x, axis=0), (F,)),
    "argsort": (lambda x: jnp.argsort(x, axis=1), (F,)),
    "sort_two_keys": (lambda x, i: lax.sort((jnp.floor(x * 2), x), num_keys=2)[1], (F, I)),
    "argmax": (lambda x: jnp.argmax(x, axis=1), (F,)),
    "argmin": (lambda x: jnp.argmin(x, axis=0), (F,)),
    "sort_int": (lambda i: jnp.sort(i[::-1]), (I,)),
    "top_k": (lambda x: jax.lax.top_k(x, 3), (F,)),
    "special_functions": (lambda x: (jax.scipy.special.erf(x), jax.scipy.special.gammaln(jnp.abs(x) + 1),
                                     jnp.arcsinh(x), jnp.cosh(x), jax.scipy.special.erfinv(x * 0.1)), (F,)),
    "random_normal": (lambda x: jax.random.normal(jax.random.key(5), (3, 4)) + x[0, 0], (F,)),
    # reductions and windows
    "cumsum": (lambda x: jnp.cumsum(x, axis=1), (F,)),
    "cummax": (lambda x: lax.cummax(x, axis=0), (F,)),
    "max_pool": (_pool, (IMG,)),
    "avg_pool": (lambda x: lax.reduce_window(x, 0.0, lax.add, (1, 2, 2, 1), (1, 1, 1, 1), "VALID") / 4, (IMG,)),
    "max_pool_grad": (lambda x: jax.grad(lambda y: _pool(y).sum())(x), (IMG,)),
    "logsumexp": (lambda x: jax.nn.logsumexp(x, axis=1), (F,)),
    "softmax": (lambda x: jax.nn.softmax(x), (F,)),
    "var": (lambda x: jnp.var(x, axis=0), (F,)),
    # convolutions and contractions
    "conv_same": (lambda x, k: _conv(x, k, window_strides=(1, 1), padding="SAME"), (IMG, KER)),
    "conv_strided_dilated": (lambda x, k: _conv(x, k, window_strides=(2, 1), padding=((1, 2), (0, 1)),
                                                rhs_dilation=(1, 2)), (IMG, KER)),
    "conv_lhs_dilated": (lambda x, k: _conv(x, k, window_strides=(1, 1), padding=((1, 1), (0, 2)), lhs_dilation=(2, 2)),
                         (IMG, KER)),
    "conv_grouped": (lambda x, k: _conv(x, k[:, :, :1, :3], window_strides=(1, 1), padding="SAME",
                                        feature_group_count=3), (IMG, KER)),
    "conv_grad_kernel": (lambda x, k: jax.grad(lambda kk: _conv(x, kk, window_strides=(2, 2),
                                                                 padding="SAME").sum())(k), (IMG, KER)),
    "conv_grad_input": (lambda x, k: jax.grad(lambda xx: (_conv(xx, k, window_strides=(2, 2),
                                                                 padding="SAME") ** 2).sum())(x), (IMG, KER)),
    "einsum_batched": (lambda x: jnp.einsum("ij,kj->ik", x, x[:3]), (F,)),
    # elementwise odds and ends
    "where_clip": (lambda x: jnp.where(x > 0, jnp.clip(x, 0.1, 0.8), x * 2), (F,)),
    "integer_ops": (lambda i: (i // 2, i % 3, -i // 2, jnp.left_shift(i, 2), i ** 2), (I,)),
    "convert_round": (lambda x: (jnp.round(x * 3), (x * 10).astype(jnp.int32), x.astype(jnp.bfloat16)), (F,)),
    "bitcast": (lambda x: lax.bitcast_convert_type(x, jnp.int32) >> 3, (F,)),
    "pad_negative": (lambda x: lax.pad(x, 0.5, ((1, -2, 1), (-1, 2, 0))), (F,)),
    "iota_concat_rev": (lambda x: jnp.concatenate([x, jnp.arange(8.0)[None], x[::-1]], axis=0), (F,)),
    "fft": (lambda x: jnp.fft.fft(x.astype(jnp.complex64), axis=1), (F,)),
    "rfft_irfft": (lambda x: jnp.fft.irfft(jnp.fft.rfft(x, axis=1), n=8, axis=1), (F,)),
    "fft2": (lambda x: jnp.abs(jnp.fft.fft2(x)), (F,)),
    # control flow
    "fori_loop_update": (lambda x: lax.fori_loop(0, 6, lambda k, y: y.at[k].set(y[k] * k), x), (F,)),
    "scan_cumulative": (lambda x: lax.scan(lambda c, r: (c + r, c * r), jnp.zeros(8), x), (F,)),
    "switch": (lambda x, i: lax.switch(i[0] % 3, [jnp.sin, jnp.cos, jnp.tanh], x), (F, I)),
    "while_data_dependent": (lambda x: lax.while_loop(lambda y: y.sum() < 100, lambda y: y * 1.5 + 1, x), (F,)),
    # linear algebra: LAPACK custom_calls on CPU
    "cholesky": (lambda x: jnp.linalg.cholesky(SPD), (F,)),
    "solve_batched": (lambda x: jnp.linalg.solve(SQ, x[:4, :2][None].repeat(3, 0)), (F,)),
    "inv_det": (lambda x: (jnp.linalg.inv(SQ[0] + x[0, 0]), jnp.linalg.det(SQ[1])), (F,)),
    "qr": (lambda x: jnp.linalg.qr(x[:, :5]), (F,)),
    "eigh": (lambda x: jnp.linalg.eigh(SPD)[0], (F,)),
    "eigh_vectors_abs": (lambda x: jnp.abs(jnp.linalg.eigh(SPD)[1]), (F,)),
    "svd_values": (lambda x: jnp.linalg.svd(x, compute_uv=False), (F,)),
    "svd_reconstruct": (lambda x: (lambda u, s, vt: (u * s) @ vt)(*jnp.linalg.svd(x, full_matrices=False)), (F,)),
    "solve_triangular": (lambda x: jax.scipy.linalg.solve_triangular(SPD[0], x[:4], lower=True, trans=1), (F,)),
    # PRNG (threefry, written out in StableHLO ops)
    "random_uniform": (lambda x: jax.random.uniform(jax.random.key(3), (4, 5)) + x[0, 0], (F,)),
    "random_permutation": (lambda x: jax.random.permutation(jax.random.key(1), 10) + x[0, 0], (F,)),
    # rng_bit_generator (the rbg PRNGs): XLA's bits, exactly
    "rbg_threefry": (lambda x: lax.rng_bit_generator(jnp.abs(x[0, :4] * 1e6).astype(jnp.uint32), (3, 5),
                                                     algorithm=lax.RandomAlgorithm.RNG_THREE_FRY), (F,)),
    "rbg_philox_u8": (lambda x: lax.rng_bit_generator(jnp.abs(x[1, :4] * 1e6).astype(jnp.uint32), (7,),
                                                      dtype=jnp.uint8, algorithm=lax.RandomAlgorithm.RNG_PHILOX), (F,)),
    "rbg_normal": (lambda x: jax.random.normal(jax.random.key(7, impl="rbg"), (4, 3)) + x[0, 0], (F,)),
    "unsafe_rbg_uniform": (lambda x: jax.random.uniform(jax.random.key(9, impl="unsafe_rbg"), (5,)) + x[0, 0], (F,)),
}


def _run(fn, args):
    from shlo_lint.checker.frontend.stablehlo.parse import LarkParser
    from shlo_lint.checker.frontend.stablehlo.scan import scan
    from shlo_lint.checker.source.text import SourceFile

    lowered = jax.jit(fn).lower(*args)
    # A fresh header cache per program: with the shared one, parsing the LAPACK exports one
    # after another makes a later custom_call header fall back (AttributeError relocating
    # #stablehlo.output_operand_alias spans in checker/frontend/stablehlo/parse/) -- a parser bug, reported.
    module = scan(SourceFile("jax.mlir", lowered.as_text()), LarkParser(cache=False))
    expected = jax.tree_util.tree_leaves(jax.jit(fn)(*args))
    return module, [np.asarray(e) for e in expected]


@pytest.mark.parametrize("name", sorted(CASES))
def test_interpreter_matches_xla_cpu(name, tmp_path):
    fn, args = CASES[name]
    module, expected = _run(fn, args)
    npz = tmp_path / "in.npz"
    np.savez(npz, **{f"arg{i}": a for i, a in enumerate(args)})
    res = Interpreter(module).run(Inputs("npz", path=str(npz)))
    assert res.outcome == "completed", res.message
    got = res.outputs[(0, 0)] if (0, 0) in res.outputs else res.outputs[None]
    assert len(got) == len(expected)
    for g, e in zip(got, expected):
        assert g.shape == e.shape and g.dtype == e.dtype, (g.shape, g.dtype, e.shape, e.dtype)
        if e.dtype.kind in "biu":
            np.testing.assert_array_equal(g, e)
        else:
            np.testing.assert_allclose(g.astype(np.complex128), e.astype(np.complex128), rtol=2e-5, atol=2e-5)


def test_scatter_pipeline_runs_under_both_engines_with_equal_outputs():
    """A real export (corpus/execute/generate_scatter_pipeline.py): x.at[i].set(v) and
    x.at[i, 0].add(1) inside a fori_loop over ppermute on 8 devices."""
    from shlo_lint.checker.execute.run import RunOptions, run_path
    from shlo_lint.checker.execute.xla.local import jax_available

    from conftest import CORPUS

    if not jax_available():
        pytest.skip("the XLA engine needs jax")
    path = CORPUS / "execute" / "scatter_pipeline.mlir"
    assert path.read_text().count('"stablehlo.scatter"') == 2 and "collective_permute" in path.read_text()
    report = run_path(str(path), RunOptions(engine="both", xla_timeout_s=120))
    assert report.reports["interp"].outcome == "completed", report.reports["interp"].message
    assert report.reports["xla"].outcome == "completed", report.reports["xla"].message
    assert report.cross_check["status"] == "match", report.cross_check
    assert report.exit_code() == 0


JAX_BACKEND_SCRIPT = r"""
import os, sys, tempfile
import numpy as np
sys.path.insert(0, sys.argv[1])
import test_execute_jax_ops as T
from shlo_lint.checker.execute.backends import make_backend
from shlo_lint.checker.execute.interpreter import Interpreter
from shlo_lint.checker.execute.values import Inputs
names = sys.argv[2].split(",")
lowered = {n: T._run(*T.CASES[n]) for n in names}  # before the backend turns on 64-bit types
backend = make_backend("jax-cpu")
for n in names:
    module, expected = lowered[n]
    d = tempfile.mkdtemp()
    np.savez(os.path.join(d, "in.npz"), **{f"arg{i}": a for i, a in enumerate(T.CASES[n][1])})
    res = Interpreter(module, backend=backend).run(Inputs("npz", path=os.path.join(d, "in.npz")))
    assert res.outcome == "completed", (n, res.message)
    for g, e in zip(res.outputs[(0, 0)], expected):
        assert g.shape == e.shape, n
        np.testing.assert_allclose(g.astype(np.complex128), e.astype(np.complex128), rtol=1e-4, atol=1e-4, err_msg=n)
print("ok", len(names))
"""


def test_gpu_backend_code_path_runs_the_same_ops():
    """The jax-array backend (`--device gpu`) on jax's CPU platform, in a subprocess
    (it turns on 64-bit types), on the op families added for JAX programs."""
    import subprocess
    import sys
    from pathlib import Path

    names = ["at_add_duplicates", "take_2d", "sort_two_keys", "max_pool_grad", "conv_grouped", "top_k",
             "cholesky", "rbg_threefry"]
    here = Path(__file__).resolve().parent
    proc = subprocess.run([sys.executable, "-c", JAX_BACKEND_SCRIPT, str(here), ",".join(names)],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0 and f"ok {len(names)}" in proc.stdout, proc.stdout + proc.stderr[-3000:]


def test_debug_print_is_skipped_and_pure_callback_refused(tmp_path):
    from shlo_lint.checker.frontend.stablehlo.parse import LarkParser
    from shlo_lint.checker.frontend.stablehlo.scan import scan
    from shlo_lint.checker.source.text import SourceFile

    def printing(x):
        jax.debug.print("x={x}", x=x)
        return x * 2

    def calling(x):
        return jax.pure_callback(lambda a: a * 2, jax.ShapeDtypeStruct(x.shape, x.dtype), x) + 1

    for fn, outcome in ((printing, "completed"), (calling, "error")):
        text = jax.jit(fn).lower(F).as_text()
        module = scan(SourceFile("cb.mlir", text), LarkParser(cache=False))
        np.savez(tmp_path / "in.npz", arg0=F)
        res = Interpreter(module).run(Inputs("npz", path=str(tmp_path / "in.npz")))
        assert res.outcome == outcome, res.message
        if outcome == "completed":
            np.testing.assert_allclose(res.outputs[(0, 0)][0], F * 2)
            assert any("host callback @xla_ffi_python_cpu_callback" in n and "skipped" in n for n in res.notes)
        else:
            assert "jax.pure_callback" in res.message and "cb.mlir:" in res.message
