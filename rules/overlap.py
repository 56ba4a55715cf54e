"""Placement hints for async collectives: is there anything to overlap with?

A start/done pair is worth having only when independent work runs while the
collective is in flight (seed 004's motivation; seed 003's planner awaits "only
at true use sites"). These rules look at one block at a time, with def-use read
from the op text (analysis.semantics.BlockFlow, no header parse), and say which
ops could move:

* SHLO601: nothing runs between a start and its done, although later ops that
  do not need the result could;
* SHLO602: a done placed before ops that do not need its value (sink it to the
  first use);
* SHLO603: a start placed after ops it does not need (hoist it to where its
  operands are ready);
* SHLO604: more futures in flight than `max_inflight` (tessera attribute, or the
  `max-inflight` option);
* SHLO605: a tessera future read by an op that needs its value, with no
  `tessera.await` there.

Options (`[tool.shlo-lint.options]` or `-O KEY=VALUE`): `placement-severity`
("warning" | "info") for SHLO601–603; `overlap-window` (how many later ops
SHLO601 looks at, default 200); `max-inflight` (a limit for every function).
"""
from __future__ import annotations

from typing import Iterator

from shlo_lint.checker.ir.attributes import IntegerAttr
from shlo_lint.checker.lint.context import Context
from shlo_lint.checker.source.diagnostics import Diagnostic, Edit, Fix
from shlo_lint.checker.analysis.pairing import (DONE_OPS, START_OPS, TESSERA_AWAITS, analysis, produces_future)
from shlo_lint.checker.ir.catalog import TERMINATORS
from shlo_lint.checker.ir.core import Block, Operation
from shlo_lint.checker.lint.registry import rule
from shlo_lint.checker.analysis.semantics import BlockFlow
from shlo_lint.checker.source.text import Span
from shlo_lint.checker.ir.types import FutureType, TensorType, TokenType

from .support.shapes import op_label

FREE = frozenset({"stablehlo.constant", "arith.constant"}) | TERMINATORS
"""Ops that cost nothing to overlap with (or end the block)."""
SHOW = 3
"""How many movable ops a message names."""
COUNT_LIMIT = 10_000
"""How many ops SHLO602 counts between a done and its first use, at most."""


# ----------------------------------------------------------------------------- shared
def flow(ctx: Context, block: Block) -> BlockFlow:
    flows = ctx.cache.setdefault("overlap.flows", {})
    f = flows.get(id(block))
    if f is None:
        f = flows[id(block)] = BlockFlow(block)
    return f


def _work(op: Operation) -> bool:
    """Compute that could overlap a collective (not free, not another start/done)."""
    return op.name not in FREE and op.name not in START_OPS and op.name not in DONE_OPS


ID_OPS = frozenset({"stablehlo.partition_id", "stablehlo.replica_id", "stablehlo.create_token",
                    "stablehlo.after_all", "stablehlo.get_tuple_element", "stablehlo.tuple"})
"""Ops that read the process id or move handles: nothing to overlap a collective with."""


def _overlappable(op: Operation) -> bool:
    """Work whose time a collective could hide: not free, not a start/done, not a
    process-id read and not a computation on scalars only (the `partition_id →
    convert` of an `axis_index`): hoisting a start above those changes nothing."""
    if not _work(op) or op.name in ID_OPS:
        return False
    try:
        types = op.result_types
    except Exception:  # a header the parser rejects is reported elsewhere
        return True
    return not types or not all(_tiny(t) for t in types)


def _tiny(t) -> bool:
    if isinstance(t, TokenType):
        return True
    return isinstance(t, TensorType) and t.shape is not None and all(d == 1 for d in t.shape)


CONSTANT_SOURCES = frozenset({"stablehlo.constant", "arith.constant", "stablehlo.iota"})
"""Ops that make a value out of nothing at compile time."""


def constant_only(ctx: Context, f: BlockFlow, k: int) -> bool:
    """Whether op `k` only materialises a constant: a constant or iota, or an op
    without regions whose every operand is such a value made in this block (the
    `broadcast_in_dim` of a scalar that JAX writes for `x * 0.1`). XLA folds these
    at compile time, so naming them as work to overlap a collective with is noise
    (JAX's `fut.done() + 1.0` was a SHLO601 warning)."""
    memo = ctx.cache.setdefault("overlap.constant_only", {}).setdefault(id(f), {})

    def walk(i: int, depth: int) -> bool:
        hit = memo.get(i)
        if hit is not None:
            return hit
        op = f.ops[i]
        if op.name in CONSTANT_SOURCES:
            ok = True
        elif op.regions or not _work(op) or op.name in ID_OPS or depth > 32:
            ok = False
        else:
            block = op.parent
            ok = bool(op.operands)
            for v in op.operands:
                d = v.defining_op if v is not None else None
                if d is None:  # a block argument: data
                    ok = False
                elif d.parent is block:
                    ok = walk(f.index(d), depth + 1)
                else:  # jax.export hoists the constants out of the regions that use them
                    ok = d.name in CONSTANT_SOURCES
                if not ok:
                    break
        memo[i] = ok
        return ok
    return walk(k, 0)


def hides(ctx: Context, f: BlockFlow, k: int) -> bool:
    """Whether op `k` is work an in-flight collective could hide: what SHLO601-603
    count as overlap, the same for all three (no constant materialisation, no
    process-id read, no scalar-only arithmetic such as an `axis_index` or a
    branch predicate)."""
    return _overlappable(f.ops[k]) and not constant_only(ctx, f, k)


def _line(ctx: Context, op: Operation) -> int:
    return ctx.source.line_col(op.span.start)[0]


def _list(ctx: Context, ops: list[Operation]) -> str:
    shown = ", ".join(f"{o.name} (line {_line(ctx, o)})" for o in ops[:SHOW])
    return shown + (f" and {len(ops) - SHOW} more" if len(ops) > SHOW else "")


def _severity(ctx: Context) -> str | None:
    sev = ctx.option("placement-severity", None)
    return sev if sev in ("warning", "info", "error") else None


def _future_names(f: BlockFlow, s: int) -> set[str]:
    op = f.ops[s]
    names = set()
    for i, v in enumerate(op.results):
        if produces_future(op, i):
            names.add(v.name.split("#", 1)[0])
    return names


def paired_start(ctx: Context, done: Operation) -> tuple[BlockFlow, int, int] | None:
    """(flow, start index, done index) when `done` is the first completion, in the
    same block, of a future started in that block."""
    block = done.parent
    if block is None:
        return None
    f = flow(ctx, block)
    d = f.index(done)
    used = set(f.header_mentions(d))
    for v in done.operands:
        start = v.defining_op if v is not None else None
        if start is None or start.name not in START_OPS or start.parent is not block:
            continue
        s = f.index(start)
        base = v.name.split("#", 1)[0]
        if base not in used:
            continue
        if any(f.ops[k].name in DONE_OPS and base in f.header_mentions(k) for k in range(s + 1, d)):
            return None  # a second completion: SHLO402's
        return f, s, d
    return None


# =========================================================================== SHLO601
@rule("SHLO601", "async-done-without-overlap", category="performance", severity="warning",
      on=tuple(sorted(DONE_OPS)))
def async_done_without_overlap(op: Operation, ctx: Context) -> Iterator[Diagnostic]:
    """A done follows its start with nothing in between, while later independent work could run there.

    ## What it does
    For a done in the same block as its start, checks that work runs between
    them. When none does, it looks at the next `overlap-window` ops (default
    200) for work that does not depend on the done's results and names it: that
    work could run while the collective is in flight. It says nothing when no
    such work exists. Work is what SHLO603 counts: not an op that only
    materialises a constant (a constant, an iota, the `broadcast_in_dim` of a
    constant that JAX writes for `x + 1.0`: XLA folds them), not a process-id
    read, not arithmetic on scalars only (an `axis_index`, a branch predicate).

    ## Why is this bad?
    An async collective only pays off when compute overlaps the communication
    (seed 004: "Local computation should be executed while collectives are
    running in the background"). A done right after its start makes the device
    wait for the whole collective, exactly as the synchronous op would, and
    adds a start/done pair for nothing.

    ## Example
    ```mlir
    %f = "stablehlo.async_start"(%x) ({ ... all_reduce ... }) : ...
    %r = "stablehlo.async_done"(%f) : ...
    %h = stablehlo.dot_general %a, %w, ...       // does not need %r
    %s = stablehlo.add %r, %h : ...
    ```

    ## Use instead
    Put the independent work between them: `%f = ... async_start`, `%h = dot_general`,
    `%r = ... async_done`. In JAX: call `psum_start` (or `ppermute_start`, ...)
    as early as its input is ready and `.done()` only where the result is needed,
    with the independent computation in between.

    ## Fix safety
    No fix: moving ops is a scheduling decision the hint leaves to you.
    """
    found = paired_start(ctx, op)
    if found is None:
        return
    f, s, d = found
    if any(hides(ctx, f, k) for k in range(s + 1, d)):
        return
    window = int(ctx.option("overlap-window", 200))
    end = min(len(f.ops), d + 1 + max(0, window))
    dependent = set(f.depends([d], d + 1, end))
    movable = [f.ops[k] for k in range(d + 1, end) if k not in dependent and hides(ctx, f, k)]
    if not movable:
        return
    start = f.ops[s]
    n = len(movable)
    d_ = ctx.diag(op, f"{op_label(op)}: completes the future right after its {op_label(start)} (line "
                      f"{_line(ctx, start)}); {n} later op{'s' if n > 1 else ''} could overlap the collective",
                  severity=_severity(ctx))
    d_ = d_.note(ctx.loc(start), "the collective is started here")
    d_ = d_.note(ctx.loc(op), f"nothing overlaps the collective; these later ops do not need its result and could "
                              f"run before the done: {_list(ctx, movable)}")
    for m in movable[:SHOW]:
        d_ = d_.note(ctx.loc(m), "independent of the done's result")
    yield d_.with_help("move independent work between the start and the done (in JAX: start earlier, "
                       "call .done() later)")


# =========================================================================== SHLO602
@rule("SHLO602", "async-done-before-first-use", category="performance", severity="info",
      on=tuple(sorted(DONE_OPS)))
def async_done_before_first_use(op: Operation, ctx: Context) -> Iterator[Diagnostic]:
    """A done is placed earlier than the first use of its value, before work that does not need it.

    ## What it does
    Finds the first op of the block that uses the done's results (in its
    operands or its regions) and lists the work between the done and that use:
    ops that do not read the value and could run while the collective is still
    in flight if the done moved down to the use (seed 003's planner: "insert
    `await` only at true use sites"). Only work a collective can hide counts,
    as for SHLO601 and SHLO603: a done followed by the scalar compare and
    convert of a `lax.cond` predicate, then the `case` that uses it, is fine.

    ## Why is this bad?
    The done blocks until the collective finishes; every op placed after it
    that does not need its value is delayed for nothing, and the overlap the
    async start was written for is shorter than it could be.

    ## Example
    ```mlir
    %r = "stablehlo.async_done"(%f) : ...
    %h = stablehlo.tanh %y : ...                 // does not need %r
    %s = stablehlo.add %r, %h : ...              // first use of %r
    ```

    ## Use instead
    `%h = stablehlo.tanh %y`, then the done, then `%s = stablehlo.add %r, %h`.
    In JAX, call `fut.done()` right before the value is used, not right after
    the work you meant to overlap.

    ## Fix safety
    No fix: the done's position is a scheduling choice.
    """
    block = op.parent
    if block is None or op.num_results == 0:
        return
    paired = paired_start(ctx, op)
    if paired is not None and not any(hides(ctx, paired[0], k) for k in range(paired[1] + 1, paired[2])):
        return  # nothing overlaps at all: SHLO601 says it (and names the same ops)
    f = flow(ctx, block)
    d = f.index(op)
    first = next(f.mentioning(f.defs(d), d + 1), None)
    if first is None:
        return
    between = [f.ops[k] for k in range(d + 1, min(first, d + 1 + COUNT_LIMIT)) if hides(ctx, f, k)]
    if not between:
        return
    use = f.ops[first]
    n = len(between)
    d_ = ctx.diag(op, f"{op_label(op)}: could move down to the first use of its value at line {_line(ctx, use)}, "
                      f"overlapping {n} op{'s' if n > 1 else ''} with the collective", severity=_severity(ctx))
    d_ = d_.note(ctx.loc(op), f"the ops before the first use that do not need its value: {_list(ctx, between)}")
    d_ = d_.note(ctx.loc(use), "first use of the done's result")
    yield d_.with_help("complete the future where its value is needed (in JAX: call .done() later)")


# =========================================================================== SHLO603
@rule("SHLO603", "async-start-later-than-ready", category="performance", severity="info",
      on=tuple(sorted(START_OPS)))
def async_start_later_than_ready(op: Operation, ctx: Context) -> Iterator[Diagnostic]:
    """A start is placed after work it does not depend on: it could start earlier.

    ## What it does
    Finds where the start's last operand becomes available in its block (the
    block's beginning when every operand comes from outside) and lists the
    work between that point and the start: none of it feeds the collective, so
    the collective could already be running while it executes. Only work a
    collective could hide counts: reading the process id (`partition_id`,
    `replica_id`), computing on scalars (the `convert`s of an `axis_index`) and
    materialising constants (XLA folds them) are not, so a start placed after
    only those is not reported.

    ## Why is this bad?
    Communication starts later than it could, and the overlap window shrinks
    by exactly the work listed; the done then waits longer.

    ## Example
    ```mlir
    %g = stablehlo.multiply %x, %x : ...
    %h = stablehlo.dot_general %a, %w, ...       // not needed by the start
    %f = "stablehlo.async_start"(%g) ({ ... all_reduce ... }) : ...
    ```

    ## Use instead
    Start right after `%g`: `%g = ...`, `%f = ... async_start(%g)`, `%h = dot_general`.
    In JAX, call `psum_start(g)` as soon as `g` is computed and do the other
    work before `.done()`.

    ## Fix safety
    No fix: the start's position is a scheduling choice.
    """
    block = op.parent
    if block is None:
        return
    f = flow(ctx, block)
    s = f.index(op)
    needed = set(f.header_mentions(s))
    window = max(0, int(ctx.option("overlap-window", 200)))
    ready, floor = -1, max(0, s - window)
    for k in range(s - 1, floor - 1, -1):
        if not needed.isdisjoint(f.defs(k)):
            ready = k
            break
    else:
        ready = floor - 1  # not within the window: at least this far
    between = [f.ops[k] for k in range(ready + 1, s) if hides(ctx, f, k)]
    if not between:
        return  # only process-id reads and scalar work in between: moving the start changes no overlap
    n = len(between)
    more = " or more" if ready >= 0 and ready == floor - 1 else ""
    if ready >= 0:
        where = f"line {_line(ctx, f.ops[ready])}"
        why = "its operands are ready even earlier" if more else "its last operand is ready there"
    else:
        where, why = "the start of its block", "its operands are ready there"
    d_ = ctx.diag(op, f"{op_label(op)}: could start right after {where}, overlapping {n}{more} "
                      f"op{'s' if n > 1 else ''} with the collective", severity=_severity(ctx))
    d_ = d_.note(ctx.loc(op), f"{why}; the ops before it that do not feed it: {_list(ctx, between)}")
    if ready >= 0 and not more:
        d_ = d_.note(ctx.loc(f.ops[ready]), "its last operand is ready here")
    yield d_.with_help("start the collective as soon as its operands are ready (in JAX: call *_start earlier)")


# =========================================================================== SHLO604
def _limit(op: Operation, ctx: Context) -> tuple[int, str] | None:
    attr = op.attr("max_inflight") if op.name.startswith("tessera.") else None
    if isinstance(attr, IntegerAttr) and attr.value > 0:
        return attr.value, f"its max_inflight = {attr.value}"
    opt = ctx.option("max-inflight", None)
    if isinstance(opt, int) and not isinstance(opt, bool) and opt > 0:
        return opt, f"the max-inflight option ({opt})"
    return None


def _inflight(ctx: Context, func: Operation) -> dict[int, list[Operation]]:
    """id(start op) → the starts in flight just after it (itself included), per block order."""
    cache = ctx.cache.setdefault("overlap.inflight", {})
    if id(func) in cache:
        return cache[id(func)]
    out: dict[int, list[Operation]] = {}

    def walk(block: Block, live: list[tuple[Operation, set[str]]]) -> list[tuple[Operation, set[str]]]:
        f = flow(ctx, block)
        for k, o in enumerate(f.ops):
            if o.name in START_OPS:
                names = _future_names(f, k)
                if names:
                    live = live + [(o, names)]
                    out[id(o)] = [s for s, _n in live]
                continue
            if o.name in DONE_OPS or o.name == "func.call":
                used = set(f.header_mentions(k))
                live = [(s, n) for s, n in live if n.isdisjoint(used)]
            if o.regions:
                after = []
                for region in o.regions:
                    for b in region.blocks:
                        after.append(walk(b, list(live)))
                # Futures completed inside any region are no longer in flight after the op.
                gone = {id(s) for s, _n in live} - {id(s) for lst in after for s, _n in lst} if after else set()
                live = [(s, n) for s, n in live if id(s) not in gone]
        return live

    for region in func.regions:
        for b in region.blocks:
            walk(b, [])
    cache[id(func)] = out
    return out


@rule("SHLO604", "too-many-futures-in-flight", category="performance", severity="warning",
      on=tuple(sorted(START_OPS)))
def too_many_futures_in_flight(op: Operation, ctx: Context) -> Iterator[Diagnostic]:
    """More futures are in flight at a start than `max_inflight` allows.

    ## What it does
    Counts, in program order within each function, the futures started and
    not yet completed (a done, or a call the future is passed to, ends one).
    At each start, the count (itself included) must not exceed the limit: the
    collective's own `max_inflight` attribute (seed 003's tessera ops), else
    the `max-inflight` option, else there is no limit.

    ## Why is this bad?
    Every collective in flight holds buffers and a communication channel (a
    NCCL stream, a slot in the transport's queue). Past the limit the runtime
    serialises them anyway or runs out of memory or channels; seed 003's
    planner throttles chunked collectives to `max_inflight` for that reason.

    ## Example
    ```mlir
    %a = tessera.collective.all_reduce %x {max_inflight = 2}
    %b = tessera.collective.all_reduce %y {max_inflight = 2}
    %c = tessera.collective.all_reduce %z {max_inflight = 2}   // 3 in flight
    ```

    ## Use instead
    Await one before starting the next (`%va = tessera.await %a` before `%c`),
    or raise the limit. In JAX, call `.done()` on an earlier future before the
    next `*_start`.

    ## Fix safety
    No fix.
    """
    limit = _limit(op, ctx)
    if limit is None:
        return
    func = next((a for a in op.ancestors() if a.name == "func.func"), None)
    if func is None:
        return
    live = _inflight(ctx, func).get(id(op))
    if not live or len(live) <= limit[0]:
        return
    others = [s for s in live if s is not op]
    d = ctx.diag(op, f"{op_label(op)}: {len(live)} futures are in flight once this starts, more than {limit[1]}")
    d = d.note(ctx.loc(op), f"started at lines {', '.join(str(_line(ctx, s)) for s in others[:6])} and not yet "
                            f"completed")
    for s in others[:SHOW]:
        d = d.note(ctx.loc(s), "still in flight")
    yield d.with_help("complete an earlier future before starting this one")


# =========================================================================== SHLO605
def _await_fix(ctx: Context, future: str, uses: list[Operation]) -> Fix | None:
    """One fix for every unawaited use of `future` in one block: await it once,
    before the first use, and read the awaited value at each use."""
    text = ctx.source.text
    block = uses[0].parent
    if block is None or any(u.parent is not block for u in uses):
        return None
    f = flow(ctx, block)
    order = sorted(uses, key=lambda u: u.span.start)
    first = order[0]
    first_i = f.index(first)
    base = future.split("#", 1)[0]
    awaits = [k for k, o in enumerate(f.ops) if o.name in TESSERA_AWAITS and base in f.header_mentions(k)
              and o.result_names]
    edits: list[Edit] = []
    line_start = text.rfind("\n", 0, first.span.start) + 1
    indent = text[line_start:first.span.start]
    if indent.strip():
        return None
    earlier = [k for k in awaits if k < first_i]
    later = [k for k in awaits if k > first_i]
    if earlier:
        name = f.ops[earlier[-1]].result_names[0][0]
    elif later:
        aw = f.ops[later[0]]
        name = aw.result_names[0][0]
        a_start = text.rfind("\n", 0, aw.span.start) + 1
        a_end = text.find("\n", aw.span.end)
        if text[a_start:aw.span.start].strip() or text[aw.span.end:a_end if a_end >= 0 else len(text)].strip():
            return None
        edits.append(Edit.delete(Span(a_start, a_end + 1 if a_end >= 0 else len(text))))
        edits.append(Edit.insert(line_start, indent + text[aw.span.start:aw.span.end] + "\n"))
    else:
        name = f"{base}_ready"
        n = 1
        while name in text:
            n += 1
            name = f"{base}_ready{n}"
        v = block.lookup(future)
        t = v.type if v is not None else None
        sig = f" : ({t}) -> {', '.join(map(str, t.types))}" if isinstance(t, FutureType) and t.types else ""
        edits.append(Edit.insert(line_start, f"{indent}{name} = tessera.await {future}{sig}\n"))
    for u in order:
        for opname, span in u.header.operands:
            if opname == future:
                edits.append(Edit(span, name))
    safe = not any("future" in text[u.span.start:u.span.end] for u in uses)
    title = f"Await {future} before its first use"
    return Fix.safe(title, edits) if safe else Fix.unsafe(title, edits)


@rule("SHLO605", "tessera-future-without-await", category="performance", severity="warning")
def tessera_future_without_await(module, ctx: Context) -> Iterator[Diagnostic]:
    """A `!tessera.future` is read by an op that needs its value, with no `tessera.await` there.

    ## What it does
    Reports each op other than `tessera.await`, `func.call` and the returns
    that takes a tessera future as an operand. Seed 003: "Collectives return
    futures; blocking uses must insert `tessera.await`", and its planner
    inserts the await "only at true use sites", right before such an op. The
    fix writes that await.

    ## Why is this bad?
    The op would read the handle, not the reduced data: either the dialect's
    verifier rejects it, or the planner has to insert an implicit await at this
    point, which is a synchronisation point you did not write (and cannot move
    to get more overlap).

    ## Example
    ```mlir
    %f = tessera.collective.all_reduce %dw {op = "sum"}
    %g = arith.mulf %f, %lr
    ```

    ## Use instead
    ```mlir
    %f = tessera.collective.all_reduce %dw {op = "sum"}
    // ... unrelated compute ...
    %dw_red = tessera.await %f
    %g = arith.mulf %dw_red, %lr
    ```

    ## Fix safety
    Inserts `%f_ready = tessera.await %f` before the first such use in the block
    (or reuses an earlier await of it, or moves a later one up) and makes every
    such use read it. Safe when the uses do not spell a future type in their
    signatures; otherwise unsafe (the written types must change too).
    """
    a = analysis(ctx)
    if a is None:
        return
    misuses = [m for m in a.misuses.values() if m.tessera]
    groups: dict[tuple[int, str], list] = {}
    for m in misuses:
        groups.setdefault((id(m.op.parent), m.value), []).append(m)
    for (_b, value), ms in groups.items():
        fix = _await_fix(ctx, value, [m.op for m in ms])
        for m in sorted(ms, key=lambda m: m.op.span.start):
            d = ctx.diag(m.op, f"{op_label(m.op)}: reads the tessera future {value}, which needs a tessera.await "
                               f"here (seed 003: blocking uses must await)", op=m.op)
            if m.start is not None:
                d = d.note(ctx.loc(m.start), f"the future is started here ({op_label(m.start)})")
            if fix is not None:
                d = d.with_fix(fix)
            yield d.with_help(f"insert `tessera.await {value}` right before this use")
