"""Values printed as StableHLO's interpreter prints them (checker/execute/printing.py):
the nested tensor form of `interpreter.print` and of `stablehlo-translate
--interpret`, and the dense-attribute form of `--interpreter-print-dense`, whose
floats and layout are checked against MLIR's own printer (jaxlib's bindings)."""
from __future__ import annotations

import json
import re

import numpy as np
import pytest

from shlo_lint.checker.execute.printing import dense_text, float_text, tensor_text
from shlo_lint.checker.execute.values import Inputs, dtype_of
from shlo_lint.checker.frontend.stablehlo.parse import parse_type

from conftest import run_cli


def t(text: str):
    return parse_type(text)


def test_the_nested_form_one_list_per_line_indented_by_level():
    assert tensor_text(np.array([1, 2, -3], np.int8), t("tensor<3xi8>")) == "tensor<3xi8> {\n  [1, 2, -3]\n}"
    assert tensor_text(np.array(7, np.uint8), t("tensor<ui8>")) == "tensor<ui8> {7}"
    assert tensor_text(np.array([[1, 2], [3, 4]], np.int32), t("tensor<2x2xi32>")) == \
        "tensor<2x2xi32> {\n  [\n    [1, 2],\n    [3, 4]\n  ]\n}"
    three = tensor_text(np.arange(4, dtype=np.int64).reshape(2, 1, 2), t("tensor<2x1x2xi64>"))
    assert three == ("tensor<2x1x2xi64> {\n  [\n    [\n      [0, 1]\n    ],\n    [\n      [2, 3]\n    ]\n  ]\n}")
    assert tensor_text(np.zeros((0,), np.int8), t("tensor<0xi8>")) == "tensor<0xi8> {\n  []\n}"
    assert tensor_text(np.zeros((0, 3), np.int8), t("tensor<0x3xi8>")) == "tensor<0x3xi8> {\n  []\n}"
    assert tensor_text(np.zeros((2, 0), np.int8), t("tensor<2x0xi8>")) == \
        "tensor<2x0xi8> {\n  [\n    [],\n    []\n  ]\n}"
    assert tensor_text(np.array([True, False]), t("tensor<2xi1>")) == "tensor<2xi1> {\n  [true, false]\n}"
    assert tensor_text(np.array([255], np.uint8), t("tensor<1xui8>")) == "tensor<1xui8> {\n  [255]\n}"
    assert tensor_text(np.array([1.5 - 2j], np.complex64), t("tensor<1xcomplex<f32>>")) == \
        "tensor<1xcomplex<f32>> {\n  [[1.500000e+00, -2.000000e+00]]\n}"


def test_floats_are_written_as_mlir_writes_them():
    f16, f32, f64 = t("tensor<f16>").element, t("tensor<f32>").element, t("tensor<f64>").element
    assert float_text(np.float32(1.0), f32) == "1.000000e+00"
    assert float_text(np.float32(3.14159265), f32) == "3.14159274"  # six digits would not read back
    assert float_text(np.float32(3.14159), f32) == "3.141590e+00"
    assert float_text(np.float16(-7.32421875), f16) == "-7.324210e+00"  # cut, not rounded, before rounding
    assert float_text(np.float32(2.0 ** -13), f32) == "1.22070313E-4"  # half-up
    assert float_text(np.float64(7e-5), f64) == "6.9999999999999994E-5"
    assert float_text(np.float64(0.001234567891234), f64) == "0.001234567891234"
    assert float_text(np.float32(123456789.0), f32) == "0x4CEB79A3"  # the natural form has no '.'
    assert float_text(np.float32("nan"), f32) == "0x7FC00000"
    assert float_text(np.float32("-inf"), f32) == "0xFF800000"
    assert float_text(np.float16("inf"), f16) == "0x7C00"
    assert float_text(np.float64(-0.0), f64) == "-0.000000e+00"


def test_the_dense_form_splats_empties_nesting_and_hex():
    assert dense_text(np.array([1, 2], np.int8), t("tensor<2xi8>")) == "dense<[1, 2]> : tensor<2xi8>"
    assert dense_text(np.array([5], np.int8), t("tensor<1xi8>")) == "dense<5> : tensor<1xi8>"
    assert dense_text(np.full((2, 2), 0.5, np.float32), t("tensor<2x2xf32>")) == \
        "dense<5.000000e-01> : tensor<2x2xf32>"
    assert dense_text(np.array([[1, 2], [3, 4]], np.int8), t("tensor<2x2xi8>")) == \
        "dense<[[1, 2], [3, 4]]> : tensor<2x2xi8>"
    assert dense_text(np.zeros((2, 0), np.int8), t("tensor<2x0xi8>")) == "dense<> : tensor<2x0xi8>"
    assert dense_text(np.array([1 + 2j, 3 - 4.5j], np.complex128), t("tensor<2xcomplex<f64>>")) == \
        "dense<[(1.000000e+00,2.000000e+00), (3.000000e+00,-4.500000e+00)]> : tensor<2xcomplex<f64>>"
    assert dense_text(np.array([-0.0, 0.0], np.float32), t("tensor<2xf32>")) == \
        "dense<[-0.000000e+00, 0.000000e+00]> : tensor<2xf32>"  # a splat is bitwise
    assert dense_text(np.arange(101, dtype=np.int16), t("tensor<101xi16>")) == \
        'dense<"0x' + "".join(f"{i:02X}00" for i in range(101)) + '"> : tensor<101xi16>'


ELEMENTS = ["f16", "bf16", "f32", "f64", "f8E4M3FN", "f8E5M2", "f8E3M4", "f8E4M3FNUZ", "f8E5M2FNUZ", "f8E4M3",
            "f6E2M3FN", "f6E3M2FN", "f4E2M1FN", "f8E8M0FNU", "i1", "i2", "i4", "ui4", "i8", "ui8", "i32", "ui64",
            "complex<f32>", "complex<f64>"]


@pytest.mark.parametrize("element", ELEMENTS)
def test_the_dense_form_is_mlirs_own_printing(element):
    """Random bit patterns (NaN, inf and subnormals included) and random normal
    values, in several shapes: each array is handed to MLIR as raw hex bytes in a
    stablehlo.constant and printed by MLIR's printer; the text must be ours."""
    jax = pytest.importorskip("jax")  # noqa: F841 - jaxlib's MLIR bindings are the ground truth
    from jax._src.interpreters import mlir as jax_mlir
    from jax._src.lib.mlir import ir

    from shlo_lint.checker.execute.printing import hex_bytes  # the bytes MLIR reads back

    rng = np.random.default_rng(sum(map(ord, element)))
    compared = 0
    with jax_mlir.make_ir_context(), ir.Location.unknown():
        for shape in [(7,), (3, 4), (2, 0), (1,), (2, 3, 2), (101,)]:
            for mode in ("bits", "normal", "splat"):
                ttype = t(f"tensor<{'x'.join(map(str, shape))}x{element}>")
                a = _values(rng, dtype_of(ttype.element), ttype.element, shape, mode)
                body = f'dense<"0x{hex_bytes(a, ttype.element)}">' if a.size else "dense<>"
                module = ir.Module.parse(f"func.func @f() -> {ttype} {{\n  %0 = stablehlo.constant {body} : {ttype}\n"
                                         f"  return %0 : {ttype}\n}}")
                theirs = re.search(r"stablehlo\.constant (dense<.*?> : tensor<[^\n]*>)", str(module)).group(1)
                assert dense_text(a, ttype) == theirs, (shape, mode)
                compared += 1
    assert compared == 18


def _values(rng, dt, element, shape, mode) -> np.ndarray:
    with np.errstate(all="ignore"):  # random bits make NaNs and overflows on purpose
        return _random_values(rng, dt, element, shape, mode)


def _random_values(rng, dt, element, shape, mode) -> np.ndarray:
    n = int(np.prod(shape))
    if dt.kind == "c":
        part = np.float32 if dt.itemsize == 8 else np.float64
        raw = rng.integers(0, 256, size=2 * n * np.dtype(part).itemsize, dtype=np.uint8).view(part)
        a = (raw[0::2] + 1j * raw[1::2]).astype(dt) if mode == "bits" else \
            (rng.standard_normal(n) + 1j * rng.standard_normal(n)).astype(dt)
    elif dt == np.bool_:
        a = rng.integers(0, 2, n).astype(bool)
    elif dt.kind == "u":
        a = rng.integers(0, 1 << element.bitwidth, n, dtype=np.uint64).astype(dt)
    elif dt.kind == "i":
        half = 1 << (element.bitwidth - 1)
        a = rng.integers(-half, half, n, dtype=np.int64).astype(dt)
    elif mode == "bits":
        raw = rng.integers(0, 1 << min(element.bitwidth, 16), n, dtype=np.uint64)
        if element.bitwidth > 16:
            raw = (raw << np.uint64(element.bitwidth - 16)) | rng.integers(0, 1 << 16, n, dtype=np.uint64)
        a = raw.astype(np.dtype(f"u{dt.itemsize}")).view(dt)
    else:
        a = (rng.standard_normal(n) * 10.0 ** rng.integers(-6, 6, n)).astype(dt)
    if mode == "splat" and n:
        a[:] = a[0]
    return a.reshape(shape)


PROGRAM = """module @m {
  func.func @twice(%x: tensor<2xi32>) -> tensor<2xi32> {
    %c = stablehlo.constant dense<[1, 2]> : tensor<2xi32>
    interpreter.print %c : tensor<2xi32>
    %0 = stablehlo.add %x, %c : tensor<2xi32>
    interpreter.print %0 : tensor<2xi32>
    return %0 : tensor<2xi32>
  }
  func.func @main() {
    %z = stablehlo.constant dense<[10, 20]> : tensor<2xi32>
    %r:2 = "interpreter.run_parallel"(%z, %z) {programs = [[@twice, @twice]]} : (tensor<2xi32>, tensor<2xi32>) -> (tensor<2xi32>, tensor<2xi32>)
    return
  }
}
"""


def test_interpreter_print_shows_what_the_reference_interpreter_prints(tmp_path):
    """interpreter.print used to do nothing; each one is now the operand's `%0 = `
    (`%c = ` for a constant) and its tensor, in the order the processes ran them."""
    path = tmp_path / "p.mlir"
    path.write_text(PROGRAM)
    proc = run_cli("run", "-f", "json", str(path))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    data = json.loads(proc.stdout)
    one = ["%c = tensor<2xi32> {\n  [1, 2]\n}", "%0 = tensor<2xi32> {\n  [11, 22]\n}"]
    assert data["printed"] == one + one
    text = run_cli("run", str(path)).stdout
    assert "  printed: %0 = tensor<2xi32> {\n    [11, 22]\n  }" in text


def test_inputs_given_as_arrays_are_checked_against_the_signature():
    from shlo_lint.checker.execute.values import ExecutionError

    types = [t("tensor<2xi32>"), t("tensor<f32>")]
    given = Inputs("values", values=[np.array([1, 2], np.int32), np.array(0.5, np.float32)])
    a, b = given.make(types, None)
    assert a.tolist() == [1, 2] and float(b) == 0.5
    with pytest.raises(ExecutionError, match="input 1 is float64"):
        Inputs("values", values=[np.array([1, 2], np.int32), np.array(0.5)]).make(types, None)
    with pytest.raises(ExecutionError, match="1 input given, the entry function takes 2"):
        Inputs("values", values=[np.array([1, 2], np.int32)]).make(types, None)
