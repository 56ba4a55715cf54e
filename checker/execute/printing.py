"""Values as StableHLO's reference interpreter prints them, so its tests'
FileCheck lines can be compared (bench/interpret_conformance.py) and
`interpreter.print` shows what upstream shows.

Two forms, read in openxla/stablehlo (reference/Tensor.cpp `Tensor::print`,
reference/Element.cpp `Element::print`, tools/StablehloTranslateMain.cpp) and
checked against MLIR's own printer through jaxlib's bindings
(tests/test_execute_printing.py):

* `tensor_text`: the type, then the elements nested by dimension, each
  dimension's list on its own line indented two spaces a level:

      tensor<2x2xi8> {
        [
          [1, 2],
          [3, 4]
        ]
      }

  a rank-0 tensor on one line (`tensor<ui8> {1}`); a complex element as
  `[re, im]`;
* `dense_text` (`--interpreter-print-dense`): MLIR's DenseElementsAttr, e.g.
  `dense<[[1, 2], [3, 4]]> : tensor<2x2xi8>`, one value when all are equal
  (`dense<1> : tensor<1xi8>`), `dense<>` when empty, the raw bytes in hex
  (`dense<"0x0100...">`) past 100 elements, a complex value as `(re,im)`.

Elements are MLIR's attribute spellings: integers in decimal (`ui` unsigned),
`true`/`false`, and floats as MLIR's printer writes them: six significant
digits in exponent form (`1.000000e+00`, `3.141590e+00`) when that reads back
to the same value; else APFloat's default (as many digits as the type needs,
trailing zeros dropped: `1.7733081084817144`, `9.99999993E-9`);
else (inf, NaN, or a default form without a `.`) the bits in hex
(`0x7FC00000`).
"""
from __future__ import annotations

import math

import numpy as np

from ..ir.types import ComplexType, ScalarType, TensorType, Type

HEX_ELEMENTS = 100
"""MLIR prints a DenseElementsAttr with more elements than this as hex bytes."""


# ----------------------------------------------------------------------------- elements
def float_text(value, element: Type) -> str:
    """One float as MLIR prints it (FloatAttr without its type)."""
    arr = np.asarray(value)
    bits = _bits(arr, element)
    f = float(arr)
    if np.isfinite(f):
        short = _apfloat_text(f, 6, max_padding=0, truncate_zero=False)
        if _bits(_parse(short, arr.dtype), element) == bits:
            return short
        natural = _apfloat_text(f, 2 + _precision(element) * 59 // 196, max_padding=3, truncate_zero=True)
        if "." in natural:
            return natural
    return "0x" + format(bits, "X")


def element_text(value, element: Type, dense: bool = False) -> str:
    """One element: `Element::print` (a complex as `[re, im]`), or as a
    DenseElementsAttr writes it (`dense`: a complex as `(re,im)`)."""
    if isinstance(element, ComplexType):
        part = element.element
        re, im = float_text(np.real(value), part), float_text(np.imag(value), part)
        return f"({re},{im})" if dense else f"[{re}, {im}]"
    name = element.name if isinstance(element, ScalarType) else ""
    if name == "i1":
        return "true" if bool(value) else "false"
    if name.startswith(("i", "si", "ui")):
        return str(int(value))
    return float_text(value, element)


def tensor_text(array, ttype: TensorType) -> str:
    """The reference interpreter's print of a tensor (see the module docstring)."""
    a = np.asarray(array)
    out = [f"{ttype} {{"]
    if a.ndim == 0:
        out.append(element_text(a[()], ttype.element))
    else:
        _nested(a, ttype.element, 1, out)
        out.append("\n")
    out.append("}")
    return "".join(out)


def _nested(a: np.ndarray, element: Type, indent: int, out: list[str]) -> None:
    """Dimension by dimension: each list on a new line, indented two spaces per
    level; the innermost one's elements on one line."""
    out.append("\n" + "  " * indent + "[")
    if a.ndim == 1:
        out.append(", ".join(element_text(x, element) for x in a))
    else:
        for k in range(a.shape[0]):
            _nested(a[k], element, indent + 1, out)
            out.append("," if k + 1 < a.shape[0] else "\n" + "  " * indent)
    out.append("]")


def dense_text(array, ttype: TensorType) -> str:
    """The tensor as MLIR prints its DenseElementsAttr (see the module docstring)."""
    a = np.asarray(array)
    if a.size == 0:
        body = ""
    elif a.size == 1 or _all_equal(a):  # a splat: one value for all
        body = element_text(a.reshape(-1)[0], ttype.element, dense=True)
    elif a.size > HEX_ELEMENTS:
        body = '"0x' + hex_bytes(a, ttype.element) + '"'
    else:
        body = _dense_list(a, ttype.element)
    return f"dense<{body}> : {ttype}"


def _dense_list(a: np.ndarray, element: Type) -> str:
    if a.ndim == 0:
        return element_text(a[()], element, dense=True)
    return "[" + ", ".join(_dense_list(x, element) for x in a) + "]"


def _all_equal(a: np.ndarray) -> bool:
    """Bitwise: a splat (so -0.0 and 0.0 differ, and equal NaNs are equal)."""
    flat = np.ascontiguousarray(a).reshape(-1)
    raw = flat.view(np.uint8).reshape(len(flat), -1)
    return bool((raw == raw[0]).all())


def hex_bytes(a: np.ndarray, element: Type) -> str:
    """The raw data MLIR keeps: each element in little-endian bytes of its width
    (at least one byte: i1, i2, i4 and f4/f6/f8 take one each)."""
    if isinstance(element, ComplexType):
        parts = np.stack([np.real(a), np.imag(a)], axis=-1)
        return hex_bytes(parts.astype(_float_dtype(element.element)), element.element)
    width = _width(element)
    nbytes = max(1, (width + 7) // 8)
    flat = np.ascontiguousarray(a).reshape(-1)
    if flat.dtype == np.bool_:
        return flat.astype(np.uint8).tobytes().hex().upper()
    raw = flat.view(np.dtype(f"u{flat.dtype.itemsize}")).astype(np.uint64) & np.uint64((1 << width) - 1)
    return b"".join(int(v).to_bytes(nbytes, "little") for v in raw.tolist()).hex().upper()


# ----------------------------------------------------------------------------- floats
def _apfloat_text(f: float, precision: int, max_padding: int, truncate_zero: bool) -> str:
    """LLVM's APFloat::toString(precision, max_padding, truncate_zero) of a finite
    value, step by step as it computes it (llvm/lib/Support/APFloat.cpp):
    the exact decimal expansion of the value, first cut (not rounded) to about
    as many digits as `precision` needs, then rounded half-up to `precision`
    digits, trailing zeros dropped; the exponent form when max_padding is 0 or
    the plain form would need more than max_padding zeros (or more digits than
    the precision): with `e`, at least two exponent digits and the decimals
    padded to `precision` unless truncate_zero, with `E` and nothing padded if
    it. (So f16 -7.32421875 prints as -7.324210e+00, not ...220e+00.)"""
    sign = "-" if math.copysign(1.0, f) < 0 else ""
    if f == 0:
        if max_padding == 0:
            return sign + ("0.0E+0" if truncate_zero else "0." + "0" * precision + "e+00")
        return sign + "0"
    num, den = abs(f).as_integer_ratio()
    if den > 1:  # value = num * 2^-k = num * 5^k * 10^-k
        k = den.bit_length() - 1
        sig, exp = num * 5 ** k, -k
    else:
        sig, exp = num, 0
    required = (precision * 196 + 58) // 59  # bits: 196/59 slightly over log2(10)
    if sig.bit_length() > required:
        tens = (sig.bit_length() - required) * 59 // 196
        if tens:
            sig //= 10 ** tens  # a cut, as LLVM's udiv
            exp += tens
    text = str(sig)
    stripped = text.rstrip("0")
    exp += len(text) - len(stripped)
    text = stripped
    if len(text) > precision:
        dropped = len(text) - precision
        keep = text[:precision]
        if text[precision] < "5":
            trimmed = keep.rstrip("0")
            exp += dropped + len(keep) - len(trimmed)
            text = trimmed
        else:  # half-up, the carry's new zeros dropped
            nines = len(keep) - len(keep.rstrip("9"))
            keep = keep[:len(keep) - nines]
            if not keep:
                text, exp = "1", exp + len(text)
            else:
                text = keep[:-1] + str(int(keep[-1]) + 1)
                exp += dropped + nines
    n = len(text)
    if max_padding == 0:
        scientific = True
    elif exp >= 0:
        scientific = exp > max_padding or n + exp > precision
    else:
        msd = exp + n - 1
        scientific = msd < 0 and -msd > max_padding
    if scientific:
        e10 = exp + n - 1
        mantissa = text[0] + "." + (text[1:] or ("0" if truncate_zero else ""))
        if not truncate_zero:
            mantissa += "0" * max(0, precision - n + 1)
        digits_e = str(abs(e10))
        if not truncate_zero and len(digits_e) < 2:
            digits_e = "0" + digits_e
        return f"{sign}{mantissa}{'E' if truncate_zero else 'e'}{'+' if e10 >= 0 else '-'}{digits_e}"
    if exp >= 0:
        return sign + text + "0" * exp
    whole = exp + n
    if whole > 0:
        return sign + text[:whole] + "." + text[whole:]
    return sign + "0." + "0" * -whole + text


def _parse(text: str, dtype: np.dtype) -> np.ndarray:
    return np.asarray(np.array(float(text)).astype(dtype))


def _bits(arr: np.ndarray, element: Type) -> int:
    a = np.ascontiguousarray(np.asarray(arr))
    raw = int(a.view(np.dtype(f"u{a.dtype.itemsize}")).reshape(()))
    return raw & ((1 << _width(element)) - 1)


def _width(element: Type) -> int:
    width = getattr(element, "bitwidth", None)
    return width if width else 8


def _precision(element: Type) -> int:
    """Significand bits (with the hidden one) of a float type."""
    if getattr(element, "name", "") == "tf32":
        return 11  # held in a float32 here, but a 10-bit significand
    dt = _float_dtype(element)
    try:
        return int(np.finfo(dt).nmant) + 1
    except (TypeError, ValueError):
        import ml_dtypes  # the narrow floats' dtypes come from it

        return int(ml_dtypes.finfo(dt).nmant) + 1


def _float_dtype(element: Type) -> np.dtype:
    from .values import dtype_of

    return dtype_of(element)


def ssa_prefix(value) -> str:
    """What upstream's interpreter.print writes before the tensor: the operand
    printed alone (MLIR numbers a value's defining op in its own scope) up to
    its `= `: `%0 = `, `%0:2 = ` for an op with two results, `%c = ` / `%cst = `
    for a constant (StableHLO names constants' results), `<` for a block
    argument (which prints as "<block argument> ...", with no `=`)."""
    op = getattr(value, "defining_op", None)
    if op is None:
        return "<"
    if op.name == "stablehlo.constant":
        element = getattr(getattr(value, "type", None), "element", None)
        integer = isinstance(element, ScalarType) and element.name.startswith(("i", "si", "ui"))
        return "%c = " if integer else "%cst = "
    n = len(op.results)
    return "%0 = " if n == 1 else f"%0:{n} = "
