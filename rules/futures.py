"""Futures: every async start is completed by exactly one done/await on every path
(SPEC-NOTES §4; seeds 002, 003, 004).

The engine is checker/analysis/pairing.py: it follows each future through the rest of
its block, `if`/`case` branches, `while` bodies, region terminators, `func.call`
(callee summaries) and `func.return`. The rules here only turn its findings into
diagnostics; each names the start as a related location and, for leaks, the
path on which the future is lost.
"""
from __future__ import annotations

from typing import Iterator

from shlo_lint.checker.lint.context import Context
from shlo_lint.checker.source.diagnostics import Diagnostic
from shlo_lint.checker.analysis.pairing import BRANCH_OPS, Completion, Root, Witness, analysis, done_takes_misused
from shlo_lint.checker.ir.core import Module, Operation
from shlo_lint.checker.lint.registry import rule

from .support.shapes import op_label

SPEC = "async pairing"


def _line(ctx: Context, op: Operation) -> int:
    return ctx.source.line_col(op.span.start)[0]


def _at(ctx: Context, op: Operation) -> str:
    return f"{op_label(op)} at line {_line(ctx, op)}"


def _name(root: Root) -> str:
    return root.name


def _path_words(w: Witness) -> str:
    return ", then ".join(s.text for s in w.steps if s.text != "returned")


def _with_start(ctx: Context, d: Diagnostic, root: Root) -> Diagnostic:
    d = d.note(ctx.loc(root.start), f"the future is started here ({op_label(root.start)})")
    if root.anchor is not root.start:
        d = d.note(ctx.loc(root.anchor), f"and returned to @{root.func.symbol_name} here")
    return d


def _completion_words(ctx: Context, c: Completion) -> str:
    where = _at(ctx, c.op)
    if c.calls:
        func = next((a for a in c.op.ancestors() if a.name == "func.func"), None)
        inside = f" in @{func.symbol_name}" if func is not None and func.symbol_name else ""
        return f"{where}{inside} (called at line {_line(ctx, c.calls[0])})"
    return where


def _primary(c: Completion) -> Operation:
    """Where, in the future's own function, a completion happens: the done itself or the call leading to it."""
    return c.calls[0] if c.calls else c.op


def _roots(ctx: Context):
    a = analysis(ctx)
    return (a, a.roots) if a is not None else (None, [])


def _loop_roots(a) -> set[int]:
    return {id(lc.start) for lc in a.loop_completions.values()} if a is not None else set()


# =========================================================================== SHLO401
@rule("SHLO401", "future-never-completed", category="future", spec=SPEC)
def future_never_completed(module: Module, ctx: Context) -> Iterator[Diagnostic]:
    """A future is not completed by any done/await on some path (the collective leaks).

    ## What it does
    Follows every future (from `async_start`, `*_start`, `tessera.collective.*`)
    through its block, the branches of `if`/`case`, the regions it is used in,
    `func.call` (into the callee) and `func.return` (back to each caller), and
    reports a path on which no `async_done` / `*_done` / `tessera.await` takes
    it: never completed at all, completed in one branch only, or passed to a
    callee that never completes it. The message names the path; the notes point
    at the start and at the branch or call where it is lost.

    ## Why is this bad?
    At run time the started collective is never waited for: its buffers stay
    pinned, the stream is never synchronised, and the peers that do complete it
    wait for a process that moved on, so the program hangs or reads a result
    that was never delivered. (JAX dead-code-eliminates a `psum_start` whose
    `.done()` is never called, so this comes from hand-written or transformed
    StableHLO.)

    ## Example
    ```mlir
    %f = "stablehlo.async_start"(%x) ({ ... collective_permute ... })
         : (tensor<4xf32>) -> !stablehlo.future<tensor<4xf32>>
    %r = "stablehlo.case"(%i) ({
      %d = "stablehlo.async_done"(%f) : (!stablehlo.future<tensor<4xf32>>) -> tensor<4xf32>
      stablehlo.return %d : tensor<4xf32>
    }, {
      stablehlo.return %x : tensor<4xf32>      // branch 1 never completes %f
    }) : (tensor<i32>) -> tensor<4xf32>
    ```

    ## Use instead
    Complete it on every path: a done in each branch, or one done before the
    `case`. From JAX, call `.done()` on every future a `psum_start` /
    `ppermute_start` returns, on every branch of a `lax.cond`.
    """
    a, roots = _roots(ctx)
    loops = _loop_roots(a)
    completed_through_misuse = {id(m.start) for m in (a.misuses.values() if a is not None else ())
                                if m.start is not None and not m.tessera and m.op.name not in BRANCH_OPS
                                and done_takes_misused(m)}
    for root in roots:
        if id(root.start) in loops or id(root.start) in completed_through_misuse:
            continue  # a done takes it after the op SHLO403 reports: no knock-on finding
        outs = root.outcomes or {}
        lost = [(k, w) for k, w in outs.items() if k[0] == 0 and not k[1]]
        if not lost:
            continue
        _k, w = min(lost, key=lambda kw: len(kw[1].steps))
        others = [w2 for (c, _r), w2 in outs.items() if c > 0]
        name = _name(root)
        path = _path_words(w)
        if not path:
            d = ctx.error(root.anchor, f"{op_label(root.start)}: the future {name} is never completed: no done or "
                                       f"await takes it on any path", op=root.start)
        else:
            first = w.steps[0].op
            d = ctx.error(first, f"{op_label(first)}: the future {name} is not completed when {path}"
                                 + ("" if others else ", nor on any other path"), op=first)
            for s in w.steps[1:]:
                d = d.note(ctx.loc(s.op), f"on this path: {s.text}")
            if w.steps[-1].text.startswith("passed to @"):
                d = d.note(ctx.loc(w.steps[-1].op), f"{w.steps[-1].text[len('passed to '):]} never completes it")
        d = _with_start(ctx, d, root)
        for w2 in others[:1]:
            if w2.completions:
                d = d.note(ctx.loc(w2.completions[0].op), "it is completed here on another path")
        yield d.with_help("complete the future exactly once on every path (a done in each branch, or one before "
                          "the branch)")


# =========================================================================== SHLO402
@rule("SHLO402", "future-completed-twice", category="future", spec=SPEC)
def future_completed_twice(module: Module, ctx: Context) -> Iterator[Diagnostic]:
    """A future is completed by two done/await ops on one path.

    ## What it does
    Reports a path on which a future reaches a second done/await: two dones in
    a row, one before an `if` and another inside a branch, or a callee that
    completes its argument and a caller that completes it again. The diagnostic
    is at the second completion; the notes show the first one and the start.

    ## Why is this bad?
    A done waits for the collective and releases its buffers; the second one
    waits on a handle that was already consumed. XLA's async pairs are 1:1, so
    the runtime either rejects the program or waits on a completed (or reused)
    handle. JAX accepts `.done()` twice on one future (it lowers to two
    `async_done`s: `corpus/real/async_ppermute.buggy_done_twice.mlir`).

    ## Example
    ```mlir
    %2 = "stablehlo.async_done"(%1) : (!stablehlo.future<tensor<4x8xf32>>) -> tensor<4x8xf32>
    %3 = "stablehlo.async_done"(%1) : (!stablehlo.future<tensor<4x8xf32>>) -> tensor<4x8xf32>
    ```

    ## Use instead
    Complete it once and reuse the value: `%3` → `%2`. In JAX, call
    `fut.done()` once and keep its result.
    """
    a, roots = _roots(ctx)
    loops = _loop_roots(a)
    for root in roots:
        if id(root.start) in loops:
            continue
        twice = [w for (c, _r), w in (root.outcomes or {}).items() if c >= 2 and len(w.completions) >= 2]
        twice = [w for w in twice if not any(c.implicit for c in w.completions)]
        if not twice:
            continue
        w = min(twice, key=lambda x: len(x.steps))
        first, second = w.completions[0], w.completions[1]
        where = _primary(second)
        path = ", then ".join(s.text for s in w.steps if s.op.name in BRANCH_OPS)
        msg = f"{op_label(where)}: completes the future {_name(root)} a second time"
        d = ctx.error(where, msg, op=where)
        d = d.note(ctx.loc(first.op), f"first completed here, by the {_completion_words(ctx, first)}"
                                      + (f" (when {path})" if path else ""))
        if second.calls:
            d = d.note(ctx.loc(second.op), f"completed again here: this call completes it by the "
                                           f"{_completion_words(ctx, second)}")
        d = _with_start(ctx, d, root)
        yield d.with_help("keep one done and reuse its result")


# =========================================================================== SHLO403
@rule("SHLO403", "future-used-outside-done", category="future", spec=SPEC)
def future_used_outside_done(module: Module, ctx: Context) -> Iterator[Diagnostic]:
    """A future is read by an op other than its done, a `func.call` or a `func.return`.

    ## What it does
    Reports every op that takes a `!stablehlo.future` / `async<T>` value (or,
    under seed 004's "tensors instead of futures" alternative, the
    indeterminate tensor a `*_start` returns) as an operand, except the done
    that completes it, a `func.call` argument and a `func.return` operand.
    `while`/`if`/`case` operands are SHLO306's; tessera futures read by a
    consumer are SHLO605's (the planner awaits them there).

    ## Why is this bad?
    The future is a handle, not the data: the collective may still be running,
    so an op reading it reads an indeterminate buffer (seed 004: "The tensors
    should not be used in any way besides as arguments to done ops").

    ## Example
    ```mlir
    %f = "stablehlo.collective_permute_start"(%x) {...} : (tensor<2x2xi64>) -> tensor<2x2xi64>
    %y = stablehlo.add %f, %x : tensor<2x2xi64>
    ```

    ## Use instead
    Read the done's result: `%d = "stablehlo.collective_permute_done"(%f) ...`,
    then `stablehlo.add %d, %x`. In JAX, use `fut.done()`'s value, not the future.
    """
    a = analysis(ctx)
    if a is None:
        return
    for m in a.misuses.values():
        if m.tessera or m.op.name in BRANCH_OPS:
            continue
        what = f"the future {m.value}" if m.start is not None else f"the future argument {m.value}"
        d = ctx.error(m.op, f"{op_label(m.op)}: reads {what}", op=m.op)
        if m.start is not None:
            d = d.note(ctx.loc(m.start), f"the future is started here ({op_label(m.start)})")
        yield d.with_help("a future may only be passed to its done, a func.call or a func.return: complete it "
                          "first and use the done's result")


# =========================================================================== SHLO404
@rule("SHLO404", "future-returned-from-entry", category="future", spec=SPEC)
def future_returned_from_entry(module: Module, ctx: Context) -> Iterator[Diagnostic]:
    """The entry function returns a future: the collective escapes the program.

    ## What it does
    Reports a `func.return` of the entry function `main` that returns a future,
    directly or as handed back by a call. Futures returned from other functions
    are followed into their callers. A public function not named `main` (a
    library function) may return a future: its caller completes it. Before 0.6
    the only public function of a file counted as its entry, and such library
    functions got a false error; the StableHLO 1.20 verifier accepts them.

    ## Why is this bad?
    Nothing after the program can complete it: the runtime cannot hand a
    future to the host, the collective is never waited for, and its peers wait
    for a process that already finished.

    ## Example
    ```mlir
    func.func @main(%x: tensor<4xf32>) -> !stablehlo.future<tensor<4xf32>> {
      %f = "stablehlo.async_start"(%x) ({ ... }) : (tensor<4xf32>) -> !stablehlo.future<tensor<4xf32>>
      return %f : !stablehlo.future<tensor<4xf32>>
    }
    ```

    ## Use instead
    Complete it in the program and return the value:
    `%d = "stablehlo.async_done"(%f) ...; return %d : tensor<4xf32>`. In JAX, return
    `fut.done()`, not the future.
    """
    a, roots = _roots(ctx)
    # Only `main` is the program's entry point (what JAX exports and XLA runs).
    # Another public function, even the only one, may be a library function
    # whose caller completes the future: the StableHLO 1.20 verifier accepts it
    # (its async tests return futures from public functions), and so does this rule.
    # XLA's HLO names its entry computation ENTRY (`main.0_spmd`): that one is what XLA runs.
    if a is None or a.entry is None or (a.entry.symbol_name != "main" and module.front_end != "hlo"):
        return
    for root in roots:
        if root.func is not a.entry:
            continue
        esc = [(k, w) for k, w in (root.outcomes or {}).items() if k[1]]
        if not esc:
            continue
        (_c, ret), w = esc[0]
        ret_op = next((s.op for s in reversed(w.steps) if s.text == "returned"), None)
        where = ret_op or root.anchor
        pos = ", ".join(str(j) for j in sorted(ret))
        d = ctx.error(where, f"{op_label(where)}: the entry function @{a.entry.symbol_name} returns the future "
                             f"{_name(root)} (result {pos})", op=where)
        yield _with_start(ctx, d, root).with_help("nothing outside the program can complete it: return the done's "
                                                  "result instead of the future")


# =========================================================================== SHLO405
@rule("SHLO405", "future-completed-in-loop", category="future", spec=SPEC)
def future_completed_in_loop(module: Module, ctx: Context) -> Iterator[Diagnostic]:
    """A future started outside a `while` is completed inside its body.

    ## What it does
    Reports a done/await (or a call that completes the future) inside a `while`
    loop's body or condition when the future was started before the loop.

    ## Why is this bad?
    The body runs once per iteration: the second iteration completes a future
    that is already completed, and a loop that runs zero times never completes
    it. (JAX cannot write this: a future cannot cross a `fori_loop`.)

    ## Example
    ```mlir
    %f = "stablehlo.async_start"(%x) ({ ... }) : ...
    %r:2 = stablehlo.while(%i = %c0, %acc = %x) : tensor<i32>, tensor<4xf32>
      cond { ... } do {
        %d = "stablehlo.async_done"(%f) : ...
        ...
      }
    ```

    ## Use instead
    Complete it before the loop and carry the value, or start and complete one
    future per iteration inside the body (the software-pipelined pattern).
    """
    a = analysis(ctx)
    if a is None:
        return
    for lc in a.loop_completions.values():
        c = lc.completion
        where = _primary(c)
        d = ctx.error(where, f"{op_label(where)}: completes a future started before the while loop at line "
                             f"{_line(ctx, lc.loop)}, once per iteration", op=where)
        d = d.note(ctx.loc(lc.loop), "the loop is here: a second iteration completes the future again, and zero "
                                     "iterations never complete it")
        d = d.note(ctx.loc(lc.start), f"the future is started here ({op_label(lc.start)})")
        yield d.with_help("complete it before the loop, or start it inside the body")
