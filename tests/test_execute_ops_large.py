"""Ops whose region runs on many elements stay fast and bounded in memory on
sizes real programs have: a variadic reduce (argmax's form) over 1M elements
runs its body log2(n) times, a sort with a two-key comparator over 6,000
elements ranks them block by block."""
from __future__ import annotations

import time

import numpy as np

import shlo_lint
from shlo_lint.checker.execute.interpreter import Interpreter
from shlo_lint.checker.execute.values import Inputs


def run(text: str):
    return Interpreter(shlo_lint.parse(text, "big.mlir")).run(Inputs("random"))


def test_argmax_reduce_over_a_million_elements():
    n = 1 << 20
    text = f'''func.func @main(%x: tensor<{n}xf32>) -> (tensor<f32>, tensor<i32>) {{
  %i = stablehlo.iota dim = 0 : tensor<{n}xi32>
  %m = stablehlo.constant dense<0xFF800000> : tensor<f32>
  %z = stablehlo.constant dense<0> : tensor<i32>
  %r:2 = stablehlo.reduce(%x init: %m), (%i init: %z) across dimensions = [0] : (tensor<{n}xf32>, tensor<{n}xi32>, tensor<f32>, tensor<i32>) -> (tensor<f32>, tensor<i32>)
   reducer(%a: tensor<f32>, %b: tensor<f32>) (%ai: tensor<i32>, %bi: tensor<i32>) {{
    %gt = stablehlo.compare GT, %a, %b : (tensor<f32>, tensor<f32>) -> tensor<i1>
    %eq = stablehlo.compare EQ, %a, %b : (tensor<f32>, tensor<f32>) -> tensor<i1>
    %lo = stablehlo.compare LT, %ai, %bi : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %tie = stablehlo.and %eq, %lo : tensor<i1>
    %pick = stablehlo.or %gt, %tie : tensor<i1>
    %v = stablehlo.select %pick, %a, %b : tensor<i1>, tensor<f32>
    %k = stablehlo.select %pick, %ai, %bi : tensor<i1>, tensor<i32>
    stablehlo.return %v, %k : tensor<f32>, tensor<i32>
  }}
  return %r#0, %r#1 : tensor<f32>, tensor<i32>
}}'''
    t0 = time.monotonic()
    res = run(text)
    assert res.outcome == "completed", res.message
    assert time.monotonic() - t0 < 20
    (x,) = res.inputs[(0, 0)]
    value, index = res.outputs[(0, 0)]
    assert value == x.max() and index == int(np.argmax(x))


def test_two_key_sort_of_six_thousand_elements():
    n = 6000
    text = f'''func.func @main(%a: tensor<{n}xi32>, %b: tensor<{n}xi32>) -> (tensor<{n}xi32>, tensor<{n}xi32>) {{
  %r:2 = "stablehlo.sort"(%a, %b) ({{
  ^bb0(%a0: tensor<i32>, %a1: tensor<i32>, %b0: tensor<i32>, %b1: tensor<i32>):
    %lt = stablehlo.compare LT, %a0, %a1 : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %eq = stablehlo.compare EQ, %a0, %a1 : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %gt = stablehlo.compare GT, %b0, %b1 : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %t = stablehlo.and %eq, %gt : tensor<i1>
    %o = stablehlo.or %lt, %t : tensor<i1>
    stablehlo.return %o : tensor<i1>
  }}) {{dimension = 0 : i64, is_stable = true}} : (tensor<{n}xi32>, tensor<{n}xi32>) -> (tensor<{n}xi32>, tensor<{n}xi32>)
  return %r#0, %r#1 : tensor<{n}xi32>, tensor<{n}xi32>
}}'''
    res = run(text)
    assert res.outcome == "completed", res.message
    a, b = res.inputs[(0, 0)]
    order = np.lexsort((-b.astype(np.int64), a))  # a ascending, then b descending
    np.testing.assert_array_equal(res.outputs[(0, 0)][0], a[order])
    np.testing.assert_array_equal(res.outputs[(0, 0)][1], b[order])


def test_a_non_associative_reduce_body_runs_in_order():
    """acc + x*x is not associative: the elements are folded in order, as a loop
    over them would (and XLA:CPU does), not as a tree."""
    n = 1000
    text = f'''func.func @main(%x: tensor<{n}xf32>) -> tensor<f32> {{
  %c = stablehlo.constant dense<0.0> : tensor<f32>
  %s = "stablehlo.reduce"(%x, %c) ({{
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %t = stablehlo.multiply %b, %b : tensor<f32>
      %u = stablehlo.add %a, %t : tensor<f32>
      stablehlo.return %u : tensor<f32>
  }}) {{dimensions = array<i64: 0>}} : (tensor<{n}xf32>, tensor<f32>) -> tensor<f32>
  return %s : tensor<f32>
}}'''
    res = run(text)
    (x,) = res.inputs[(0, 0)]
    np.testing.assert_allclose(res.outputs[(0, 0)][0], (x.astype(np.float64) ** 2).sum(), rtol=1e-4)
