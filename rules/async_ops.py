"""`stablehlo.async_start` / `stablehlo.async_done` as the 2026 async-collectives RFC
(seed 004) defines them, and futures where the StableHLO type rules forbid them.

The RFC's constraints, numbered here as the linter enforces them:

* async_start C1: the body is one block holding exactly one operation plus a
  return of that operation's results;
* async_start C2: that operation is one of the six collectives (all_gather,
  all_reduce, all_to_all, collective_broadcast, collective_permute,
  reduce_scatter) or a slice (slice, dynamic_slice, dynamic_update_slice);
* async_start C3: the start's operands are exactly the ones that operation uses
  (JAX writes a `^bb0` block whose arguments receive them; the RFC's own example
  uses the outer values directly: both are accepted);
* async_start C4: the results are futures whose payloads are the operation's
  result types, `!stablehlo.future<T...>` (one future or one per value);
* async_done C1: takes futures `future<T...>` and returns `T...`.

The inner operation's own constraints are checked by its own rules (they run on
every op, nested ones included). Seed 002's generic `async<T>` start/done are in
rules/seed_forms.py.
"""
from __future__ import annotations

import sys

from typing import Iterator

from shlo_lint.checker.lint.context import Context
from shlo_lint.checker.source.diagnostics import Diagnostic
from shlo_lint.checker.ir.catalog import BRANCHES, LOOP, in_order, names
from shlo_lint.checker.ir.core import Module, Operation, func_type
from shlo_lint.checker.lint.registry import rule
from shlo_lint.checker.ir.types import FunctionType, FutureType, TensorType

from .support.shapes import body_argument_mismatches, fmt_types, op_label, unwrap_futures
from .support.async_forms import (ALLOWED_INNER, ASYNC_DONE, ASYNC_START, body, body_ops, done_type_diags, inner_op,
                                  is_seed002)


# =========================================================================== async_start
@rule("SHLO301", "async-start-body-not-single-op", on=ASYNC_START, spec="async_start C1")
def async_start_body_not_single_op(op: Operation, ctx: Context) -> Iterator[Diagnostic]:
    """An async_start body holds something other than exactly one operation and its return.

    ## What it does
    Checks async_start C1 (seed 004): the region is one block with exactly one
    operation followed by a return of that operation's results.

    ## Why is this bad?
    An async_start names one collective (or slice) to run in the background; a
    body with more work, or one returning other values, has no meaning under the
    RFC and is rejected.

    ## Example
    ```mlir
    %f = "stablehlo.async_start"(%x) ({
    ^bb0(%a: tensor<4xf32>):
      %s = stablehlo.sine %a : tensor<4xf32>
      %y = "stablehlo.collective_permute"(%s) <{...}> : (tensor<4xf32>) -> tensor<4xf32>
      stablehlo.return %y : tensor<4xf32>
    }) : (tensor<4xf32>) -> !stablehlo.future<tensor<4xf32>>
    ```

    ## Use instead
    Compute outside, start only the collective:
    ```mlir
    %s = stablehlo.sine %x : tensor<4xf32>
    %f = "stablehlo.async_start"(%s) ({
    ^bb0(%a: tensor<4xf32>):
      %y = "stablehlo.collective_permute"(%a) <{...}> : (tensor<4xf32>) -> tensor<4xf32>
      stablehlo.return %y : tensor<4xf32>
    }) : (tensor<4xf32>) -> !stablehlo.future<tensor<4xf32>>
    ```
    """
    if is_seed002(op):
        return
    if len(op.regions) != 1 or len(op.regions[0].blocks) != 1:
        n = len(op.regions[0].blocks) if len(op.regions) == 1 else len(op.regions)
        what = "blocks" if len(op.regions) == 1 else "regions"
        yield ctx.error(op, f"async_start: the body has {n} {what}; it must be one block holding one "
                            f"operation and its return")
        return
    ops, ret = body_ops(op)
    if ret is None:
        yield ctx.error(op, "async_start: the body does not end with a return of its operation's results")
        return
    if len(ops) != 1:
        if not ops:
            msg = "async_start: the body holds no operation; it must hold exactly one collective (or slice)"
        else:
            names = ", ".join(op_label(o) for o in ops)
            msg = (f"async_start: the body holds {len(ops)} operations ({names}); it must hold exactly one "
                   f"collective (or slice) and its return")
        d = ctx.error(op, msg)
        if len(ops) > 1:
            d = d.note(ctx.loc(ops[1]), "the second operation is here")
        yield d
        return
    inner = ops[0]
    returned = ret.operands
    if len(returned) != len(inner.results) or any(a is not b for a, b in zip(returned, inner.results)):
        yield ctx.error(ret, f"async_start: the body's return must return the {op_label(inner)}'s results, "
                             f"in order", op=ret)


@rule("SHLO302", "async-start-op-not-allowed", on=ASYNC_START, spec="async_start C2")
def async_start_op_not_allowed(op: Operation, ctx: Context) -> Iterator[Diagnostic]:
    """async_start runs an operation that is not a collective or a slice.

    ## What it does
    Checks async_start C2 (seed 004, StableHLO spec 1.20): the body's operation
    is one of `all_gather`, `all_reduce`, `all_to_all`, `collective_broadcast`,
    `collective_permute`, `reduce_scatter`, `slice`, `dynamic_slice`,
    `dynamic_update_slice`, or `collective_reduce`, which the spec's list omits
    but the 1.20 verifier accepts (before 0.6 it was reported here).

    ## Why is this bad?
    Only these have an asynchronous decomposition in XLA; anything else is
    rejected ("It is an error if the region contains anything other than a single
    call to a collective").

    ## Example
    ```mlir
    %f = "stablehlo.async_start"(%x) ({
    ^bb0(%a: tensor<4xf32>):
      %y = stablehlo.tanh %a : tensor<4xf32>
      stablehlo.return %y : tensor<4xf32>
    }) : (tensor<4xf32>) -> !stablehlo.future<tensor<4xf32>>
    ```

    ## Use instead
    Run local computation directly; overlap it with a started collective instead.
    """
    if is_seed002(op):
        return
    inner = inner_op(op)
    if inner is not None and inner.name not in ALLOWED_INNER:
        yield ctx.error(inner, f"async_start: {inner.name} cannot run asynchronously; the body must hold one "
                               f"collective (all_gather, all_reduce, all_to_all, collective_broadcast, "
                               f"collective_permute, collective_reduce, reduce_scatter) or slice, dynamic_slice, "
                               f"dynamic_update_slice", op=inner)


@rule("SHLO303", "async-start-operands-mismatch", on=ASYNC_START, spec="async_start C3")
def async_start_operands_mismatch(op: Operation, ctx: Context) -> Iterator[Diagnostic]:
    """async_start's operands are not exactly the ones its operation uses.

    ## What it does
    Checks async_start C3 (seed 004). With a `^bb0` block (as JAX writes it): one
    block argument per start operand, of the same type, and the operation's
    operands are exactly those arguments, in order. Without block arguments (the
    RFC's example): the operation's operands are exactly the start's operands.

    The block-argument-free form is the example of the seed RFC and of the
    current spec (1.20), but StableHLO 1.20 declares async_start
    `IsolatedFromAbove` and its verifier wants one region argument per operand
    ("number of operands ... must match number of region arguments"): the body
    cannot read a value from outside, so this form is an error. (shlo-lint
    before 0.6 accepted it, following the seed RFC.)

    ## Why is this bad?
    The start hands its operands to the background operation; an operand that is
    not used, a value captured from outside, or a type that changes on the way
    makes the asynchronous run read something else than the program says.

    ## Example
    ```mlir
    %f = "stablehlo.async_start"(%x, %y) ({
    ^bb0(%a: tensor<4xf32>, %b: tensor<4xf32>):
      %r = "stablehlo.collective_permute"(%a) <{...}> : (tensor<4xf32>) -> tensor<4xf32>
      stablehlo.return %r : tensor<4xf32>
    }) : (tensor<4xf32>, tensor<4xf32>) -> !stablehlo.future<tensor<4xf32>>
    ```

    ## Use instead
    Pass only what the collective reads: `"stablehlo.async_start"(%x) ({ ^bb0(%a: tensor<4xf32>): ... })`.
    """
    if is_seed002(op):
        return
    inner = inner_op(op)
    if inner is None:
        return
    blk = body(op)
    args = list(blk.arguments) if blk is not None else []
    # An operand whose definition is not in the file (a fragment, a typo) is None:
    # it is compared by its name then, as the same name is the same value.
    start_vals = _values_or_names(op)
    start_types = op.operand_types
    used = _values_or_names(inner)
    if args:
        yield from body_argument_mismatches(ctx, op, args, list(start_types))
        if len(args) != len(start_vals):
            return
        expected = args
    else:
        expected = start_vals
        if start_vals:
            # async_start is IsolatedFromAbove in StableHLO 1.20: the body cannot
            # read an outer value, whatever the spec's example shows.
            yield ctx.error(op, f"async_start: its {len(start_vals)} operand(s) are not passed as region "
                                f"arguments; async_start is isolated from above, so its body needs a `^bb0` "
                                f"argument per operand (the spec's example omits them; StableHLO 1.20 rejects it)")
    if len(used) == len(expected) and all(u is e for u, e in zip(used, expected)):
        return
    arg_ids = {id(a) for a in expected}
    outside = [u for u in used if id(u) not in arg_ids]
    unused = [i for i, a in enumerate(expected) if all(u is not a for u in used)]
    if outside:
        v = outside[0]
        yield ctx.error(inner, f"async_start: the {op_label(inner)} uses {_name(v)}, which is not an operand of "
                               f"the async_start; pass it in as an operand", op=inner)
    elif unused:
        yield ctx.error(op, f"async_start: operand {unused[0]} is not used by the {op_label(inner)}; the start's "
                            f"operands must be exactly the ones it uses")
    else:
        yield ctx.error(inner, f"async_start: the {op_label(inner)} must take the start's operands in order "
                               f"({', '.join(_name(a) for a in expected)})", op=inner)


def _values_or_names(op: Operation) -> list:
    """op's operands: the Value, or (unresolved) the interned name as written, so
    that identity (`is`) still means "the same value"."""
    return [v if v is not None else sys.intern(name) for v, (name, _span) in zip(op.operands, op.header.operands)]


def _name(v) -> str:
    return v if isinstance(v, str) else v.name


@rule("SHLO304", "async-start-result-type-mismatch", on=ASYNC_START, spec="async_start C4")
def async_start_result_type_mismatch(op: Operation, ctx: Context) -> Iterator[Diagnostic]:
    """async_start's result is not `!stablehlo.future<T...>` of its operation's result types.

    ## What it does
    Checks async_start C4 (seed 004): every result is a `!stablehlo.future`, and
    the futures' payloads, in order, are the types the body returns.

    ## Why is this bad?
    The matching async_done unwraps the future into values of the payload types;
    a wrong payload gives later ops tensors of the wrong shape.

    ## Example
    ```mlir
    %f = "stablehlo.async_start"(%x) ({ ... all_gather to tensor<64x8xf32> ... })
         : (tensor<8x8xf32>) -> !stablehlo.future<tensor<8x8xf32>>
    ```

    ## Use instead
    `-> !stablehlo.future<tensor<64x8xf32>>`.
    """
    if is_seed002(op):
        return
    results = list(op.result_types)
    for i, t in enumerate(results):
        if t is not None and not (isinstance(t, FutureType) and t.flavor == "stablehlo"):
            yield ctx.error(op, f"async_start: result {i} has type {t}, expected a !stablehlo.future<...>")
            return
    _ops, ret = body_ops(op)
    if ret is None or not results:
        return
    want = list(ret.operand_types)
    got = unwrap_futures(results)
    if None in want or None in got:
        return
    if want != got:
        have = fmt_types(results)
        yield ctx.error(op, f"async_start: result type {have} does not carry the body's result types; "
                            f"expected !stablehlo.future<{', '.join(map(str, want))}>")


@rule("SHLO305", "async-done-type-mismatch", on=ASYNC_DONE, spec="async_done C1")
def async_done_type_mismatch(op: Operation, ctx: Context) -> Iterator[Diagnostic]:
    """async_done does not return exactly the payload of the futures it takes.

    ## What it does
    Checks async_done C1 (seed 004): the operands are `!stablehlo.future<T...>`
    and the results are `T...`, in order.

    ## Why is this bad?
    The done unwraps the started collective's result; declaring another type is a
    type error that XLA rejects.

    ## Example
    ```mlir
    %y = "stablehlo.async_done"(%f) : (!stablehlo.future<tensor<64x8xf32>>) -> tensor<8x8xf32>
    ```

    ## Use instead
    `: (!stablehlo.future<tensor<64x8xf32>>) -> tensor<64x8xf32>`.
    """
    if is_seed002(op):
        return
    yield from done_type_diags(op, ctx, "stablehlo")


# =========================================================================== control flow
CONTROL_FLOW = in_order(names(regions=BRANCHES) | names(regions=LOOP))


@rule("SHLO306", "future-in-control-flow", on=CONTROL_FLOW)
def future_in_control_flow(op: Operation, ctx: Context) -> Iterator[Diagnostic]:
    """A future is an operand or a result of `while`, `if` or `case`.

    ## What it does
    Reports a `!stablehlo.future` (or `async<T>`) among the operands or results of
    `stablehlo.while`, `stablehlo.if` or `stablehlo.case`. Their operands and
    results are "variadic number of tensors, quantized tensors or tokens" in the
    StableHLO type rules (while I1 / if and case outputs), and the future type is
    not among them. Futures as `func.func` arguments and results are allowed.

    ## Why is this bad?
    The verifier rejects the program, so the software-pipelined loop that carries
    an in-flight collective across iterations cannot be written this way (JAX
    refuses it too: a future cannot be a loop carry).

    ## Example
    ```mlir
    %r:2 = stablehlo.while(%i = %c0, %f = %f0) : tensor<i32>, !stablehlo.future<tensor<4xf32>> ...
    ```

    ## Use instead
    Complete the collective before the loop (async_done), carry the tensor, and
    start the next one inside the body; or pass futures through func.call.
    """
    name = op_label(op)
    for kind, types in (("operand", op.operand_types), ("result", op.result_types)):
        for i, t in enumerate(types):
            if isinstance(t, FutureType):
                yield ctx.error(op, f"{name}: {kind} {i} is a future ({t}); the StableHLO type rules allow only "
                                    f"tensors, quantized tensors and tokens as {name} operands and results, so "
                                    f"a future cannot cross a {name} (StableHLO type rules)")
                return


# =========================================================================== the future type
def _bad_future_elements(types) -> list:
    """The payload types of `!stablehlo.future<...>` types that are not ranked tensors."""
    bad = []
    for t in types:
        if isinstance(t, FunctionType):
            bad += _bad_future_elements(t.inputs) + _bad_future_elements(t.results)
        elif isinstance(t, FutureType) and t.flavor == "stablehlo":
            bad += [e for e in t.types if not (isinstance(e, TensorType) and e.shape is not None)]
    return bad


@rule("SHLO307", "future-element-not-ranked-tensor", spec="future type (StableHLO 1.20)")
def future_element_not_ranked_tensor(module: Module, ctx: Context) -> Iterator[Diagnostic]:
    """A `!stablehlo.future<...>` holds something that is not a ranked tensor.

    ## What it does
    Checks every `!stablehlo.future<T...>` written in the file (function
    signatures, op results, block arguments): each `T` is a ranked tensor, as
    the StableHLO 1.20 verifier requires of the future type itself ("future
    element type must be a ranked tensor"). The seed RFC (004) wrote no such
    constraint; the current verifier wins.

    ## Why is this bad?
    The program is rejected before anything runs: a future carries the result
    of a collective, and collectives produce ranked tensors.

    ## Example
    ```mlir
    func.func private @pending() -> !stablehlo.future<f32>
    ```

    ## Use instead
    A 0-d tensor: `!stablehlo.future<tensor<f32>>`.
    """
    if "future<" not in ctx.source.text:
        return
    for op in module.walk():
        types: list = []
        if op.name == "func.func":
            ft = func_type(op)
            types = [ft] if ft is not None else []
        else:
            types = list(op.result_types)
            for region in op.regions or ():
                for block in region.blocks:
                    types += [a.type for a in block.arguments]
        bad = _bad_future_elements(types)
        if bad:
            what = "function signature" if op.name == "func.func" else op_label(op)
            yield ctx.error(op, f"{what}: a !stablehlo.future holds {bad[0]}, but future element types must be "
                                f"ranked tensors", op=op)


@rule("SHLO308", "async-multi-value-future", on=(ASYNC_START, ASYNC_DONE), spec="async_start C4, async_done C1")
def async_multi_value_future(op: Operation, ctx: Context) -> Iterator[Diagnostic]:
    """An async_start or async_done carries more than one value.

    ## What it does
    Checks async_start C4 and async_done C1 as the StableHLO 1.20 verifier
    reads them: an async_start has one result, a `!stablehlo.future<T>` of one
    tensor type `T`, and its body returns one value; an async_done takes one
    future, of one type (seed 004's `async_done(%f1, %f2)` completing several
    futures at once is rejected too). The seed RFC (004) allowed `future<A, B>` and one future
    per value (shlo-lint before 0.6 accepted them); the current verifier
    rejects both ("region must return exactly one value", "future must have
    exactly one type parameter").

    ## Why is this bad?
    The program does not verify: variadic collectives cannot run under one
    async_start.

    ## Example
    ```mlir
    %f = "stablehlo.async_start"(%x, %y) ({ ... two-operand all_reduce ... }) : (tensor<4xf32>, tensor<4xf32>) -> !stablehlo.future<tensor<4xf32>, tensor<4xf32>>
    ```

    ## Use instead
    One async_start per value (`jax.lax.psum_start` per array), each with its
    own async_done.
    """
    if is_seed002(op):
        return
    name = op_label(op)
    if op.name == ASYNC_START:
        results = list(op.result_types)
        if len(results) > 1:
            yield ctx.error(op, f"{name}: {len(results)} results; it has one, a future of one tensor")
            return
        ft = results[0] if results else None
        if isinstance(ft, FutureType) and len(ft.types) > 1:
            yield ctx.error(op, f"{name}: its future holds {len(ft.types)} values, {fmt_types(ft.types)}; a future "
                                f"holds one tensor")
            return
        _ops, ret = body_ops(op)
        if ret is not None and len(ret.operands) > 1:
            yield ctx.error(ret, f"{name}: the body returns {len(ret.operands)} values; it must return one",
                            op=ret)
        return
    types = list(op.operand_types)
    if len(types) > 1:
        yield ctx.error(op, f"{name}: {len(types)} operands; it completes one future (one async_done per future)")
        return
    ft = types[0] if len(types) == 1 else None
    if isinstance(ft, FutureType) and len(ft.types) > 1:
        yield ctx.error(op, f"{name}: it takes a future of {len(ft.types)} values, {fmt_types(ft.types)}; a future "
                            f"holds one tensor")
