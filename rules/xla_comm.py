"""Hints on what XLA did with the collectives of a compiled module (issue 22, item 3):
collectives it left apart that a combiner merges (SHLO641), async pairs with nothing
overlapping them (SHLO642), collectives it runs synchronously although the backend
has their async form (SHLO643).

They read XLA's HLO text only (`front_ends=("hlo",)`): a compiled module says what
XLA did, where a StableHLO program says what the user wrote (SHLO601-605, SHLO631-633
hint at that). Each reuses the StableHLO hints' notions, so the two never disagree:

* combining: checker/analysis/combining.py, the keys and the grouping of
  SHLO631-633 (rules/support/combiner_groups.py runs it), with the thresholds and keys of
  the backend that compiled the module (checker/analysis/xla_backend.py `COMBINERS`);
* overlap: rules/support/overlap_work.py `hides`, the work SHLO601-603 count as overlap (not a
  constant, a process-id read, a scalar computation, a tuple / get-tuple-element /
  bitcast handle, another start or done), in the text's order, which on a
  scheduled module is XLA's issue order;
* the backend: checker/analysis/xla_backend.py `backend_of`, from evidence in the
  module (none: SHLO641 and SHLO643 stay silent; SHLO642 names no flag).

Options: `overlap-window` (default 200: how many ops before a start and after a done
SHLO642/SHLO643 look at), `combine-scan-limit` (SHLO641's dependence searches).
"""
from __future__ import annotations

from typing import Iterator

from shlo_lint.checker.analysis.combining import Combining, Group, Split
from shlo_lint.checker.analysis.comm_counts import group_size, payload_bytes
from shlo_lint.checker.analysis.semantics import BlockFlow, known_trip_count
from shlo_lint.checker.analysis.tracer.structure import collective_kind, collective_op, op_label
from shlo_lint.checker.analysis.xla_backend import (ASYNC_KINDS, COMBINERS, CPU, DISABLE_ASYNC_NAMES, GPU, Backend,
                                                    backend_of)
from shlo_lint.checker.ir.catalog import ASYNC_BODY, DONE, START, info, names
from shlo_lint.checker.ir.core import Operation
from shlo_lint.checker.lint.context import Context
from shlo_lint.checker.lint.registry import rule
from shlo_lint.checker.source.diagnostics import Diagnostic, Location

from .support.combiner_groups import THRESHOLD_BYTES, THRESHOLD_COUNT, block_combining, key_words
from .support.overlap_work import flow, hides

SHOW = 3
"""How many ops a message names."""
LHS_FLAG = "--xla_gpu_enable_latency_hiding_scheduler=true"

_COMBINED = ("stablehlo.all_reduce", "stablehlo.all_gather", "stablehlo.reduce_scatter", "hlo.all-reduce-start",
             "hlo.all-gather-start", "hlo.reduce-scatter-start", "hlo.async-start")
_SYNC = ("stablehlo.all_reduce", "stablehlo.all_gather", "stablehlo.reduce_scatter", "stablehlo.all_to_all",
         "stablehlo.collective_permute", "stablehlo.collective_broadcast", "hlo.all-to-all", "hlo.collective-permute",
         "hlo.ragged-all-to-all")
_STARTS = tuple(sorted(n for n in names(role=START, prefix="hlo.") if n.endswith("-start")))
"""XLA's async starts: `all-reduce-start`, ..., `async-start` and the sugared `reduce-scatter-start`, ..."""
_DONES = tuple(sorted(n for n in names(role=DONE, prefix="hlo.") if n.endswith("-done")))
_UPDATES = frozenset(n for n in names(forwards=True, prefix="hlo.") if n.endswith("-update"))


# ----------------------------------------------------------------------------- shared
def _backend(ctx: Context) -> Backend:
    got = ctx.cache.get("xla_comm.backend")
    if got is None:
        got = ctx.cache["xla_comm.backend"] = backend_of(ctx.module)
    return got


def _label(op: Operation) -> str:
    """The op as its line spells it (`all-reduce-start`): the tracer structure's `op_label`."""
    return op_label(op)


def _kind_label(kind: str) -> str:
    return kind.replace("_", "-")


def _line(ctx: Context, op: Operation) -> int:
    return ctx.source.line_col(op.span.start)[0]


def _size(n: int | None) -> str:
    if n is None:
        return "an unknown size"
    for unit, div in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= div:
            return f"{n / div:.1f} {unit}".replace(".0 ", " ")
    return f"{n} B"


def _list(ctx: Context, ops: list[Operation]) -> str:
    shown = ", ".join(f"{_label(o)} (line {_line(ctx, o)})" for o in ops[:SHOW])
    return shown + (f" and {len(ops) - SHOW} more" if len(ops) > SHOW else "")


def _in_async_body(op: Operation) -> bool:
    parent = op.parent_op
    return parent is not None and info(parent.name).regions == ASYNC_BODY


def _evidence_note(ctx: Context, d: Diagnostic, backend: Backend) -> Diagnostic:
    """Where the module says which backend compiled it (the note points there)."""
    if backend.span is None:
        return d.note(ctx.loc(ctx.module.root), f"compiled for {backend.label}, as {backend.evidence} says")
    return d.note(Location(ctx.source.path, backend.span), f"compiled for {backend.label}: this is {backend.evidence}")


def _loop_words(op: Operation) -> str:
    """`, 11 times per step (a loop of 11 trips)` when `op` sits in loops with stated trip counts."""
    times = 1
    for anc in op.ancestors():
        if info(anc.name).regions == "loop":
            n = known_trip_count(anc)
            if n is None:
                return ", in a loop"
            times *= n
    return f", {times} times per step" if times > 1 else ""


# =========================================================================== SHLO641
def _runs(comb: Combining, key: tuple) -> list[list[int]]:
    """The key's candidates cut where a dependence (or the count) stops any threshold
    from combining them: each run could be one collective."""
    cands = [c.index for c in comb.candidates.get(key, [])]
    cuts = {s.next for s in comb.splits if s.key == key and s.reason != "bytes"}
    runs: list[list[int]] = []
    for i in cands:
        if not runs or i in cuts:
            runs.append([])
        runs[-1].append(i)
    return runs


def _dependence_notes(ctx: Context, d: Diagnostic, f: BlockFlow, comb: Combining, members: list[int],
                      key: tuple) -> Diagnostic:
    """Name the dependences that keep the key's neighbouring collectives out of `members`."""
    lo, hi = members[0], members[-1]
    for s in comb.splits:
        if s.key != key or s.reason != "dependence" or not (s.last == hi or s.next == lo):
            continue
        nxt = f.ops[s.next]
        path = s.path(f)
        if path:
            chain = " → ".join(f"%{_name(f.ops[k])}" for k in path)
            d = d.note(ctx.loc(nxt), f"the {_label(nxt)} at line {_line(ctx, nxt)} is not combinable with it: it "
                                     f"depends on the {_label(f.ops[path[0]])} at line "
                                     f"{_line(ctx, f.ops[path[0]])} ({chain})")
        else:
            d = d.note(ctx.loc(nxt), f"the {_label(nxt)} at line {_line(ctx, nxt)} is not combinable with it: it may "
                                     "depend on it (the search for a path was cut at `combine-scan-limit` ops)")
    return d


def _name(op: Operation) -> str:
    ins = getattr(op, "instruction", None)
    if ins is not None:
        return ins.name
    names = op.result_names
    return names[0][0].lstrip("%") if names else op.name


def _members_notes(ctx: Context, d: Diagnostic, f: BlockFlow, members: list[int]) -> Diagnostic:
    first = f.ops[members[0]]
    for j in members[1:9]:
        d = d.note(ctx.loc(f.ops[j]), f"combinable with the {_label(first)} at line {_line(ctx, first)}")
    return d


@rule("SHLO641", "collectives-left-uncombined", category="performance", severity="info", on=_COMBINED,
      front_ends=("hlo",))
def collectives_left_uncombined(op: Operation, ctx: Context) -> Iterator[Diagnostic]:
    """Collectives of one combine key that a compiled module runs apart, though a combiner could merge them.

    ## What it does
    Runs XLA's combiner algorithm (the one SHLO631-633 run on StableHLO: XLA's
    `CombineInstructionsByKey`, checker/analysis/combining.py) over each
    computation of a compiled module, with the keys and thresholds of the backend
    the module says it was compiled for (XLA:GPU: all-reduce, all-gather and
    reduce-scatter combiners, `--xla_gpu_*_combine_threshold_bytes`, default
    30 MiB, 256 ops; XLA:CPU: an all-reduce combiner without a byte limit, and
    none for all-gather or reduce-scatter). A collective XLA's combiner already
    made (several operands) counts as one. Reported once per set, at its first
    member:

    * the backend has no combiner for the kind (XLA:CPU's all-gathers and
      reduce-scatters): independent collectives of one key stay apart;
    * the byte threshold cut a run of independent collectives of one key:
      the message gives their total and the flag that would let them be one;
    * independent collectives of one key that the backend's combiner merges
      at its defaults are apart: the module was compiled with a lower threshold
      or without the combiner.

    What keeps the neighbouring collectives of the key out (a dependence: the
    path of values from one to the other) is said in a note. Collectives that
    are apart only because each depends on the one before get no finding: no
    combiner or flag changes that. Silent when the backend cannot be told from
    the module (checker/analysis/xla_backend.py says what counts as evidence).

    ## Why is this bad?
    Every collective pays a fixed launch and synchronisation latency however
    small it is; N small collectives cost about N latencies where one combined
    collective of the same bytes costs one.

    ## Example
    ```
    %all-gather.1 = f32[4,16,64]{1,0,2} all-gather(%a), channel_id=5, replica_groups=[2,4]<=[8], dimensions={2}, use_global_device_ids=true
    %all-gather.9 = f32[4,16,64]{1,0,2} all-gather(%b), channel_id=28, replica_groups=[2,4]<=[8], dimensions={2}, use_global_device_ids=true
    ```
    (XLA:CPU: no all-gather combiner.)

    ## Use instead
    Over the threshold: raise it (`XLA_FLAGS=--xla_gpu_all_reduce_combine_threshold_bytes=N`).
    Without a combiner: issue one collective for the values, in JAX by gathering
    (or psum-ing) one flat buffer (`jax.flatten_util.ravel_pytree`, or the arrays
    concatenated) instead of one array at a time.

    ## Fix safety
    No fix: the text is XLA's output.
    """
    block = op.parent
    if block is None or _in_async_body(op):
        return
    backend = _backend(ctx)
    if backend.name is None:
        return
    kind = collective_kind(op)
    combiners = COMBINERS[backend.name]
    if kind not in combiners:
        return
    combiner = combiners[kind]
    f = flow(ctx, block)
    index = f.index(op)
    if combiner is None:
        comb = block_combining(ctx, block, threshold_bytes=int(ctx.option("combine-threshold-bytes", THRESHOLD_BYTES)),
                               threshold_count=int(ctx.option("combine-threshold-count", THRESHOLD_COUNT)),
                               starts=True, units=True, kinds=(kind,))
        yield from _no_combiner(op, ctx, f, comb, index, kind, backend)
        return
    if combiner.flag is None:
        # XLA:CPU's all-reduce combiner has no byte limit and no flag: what it left apart
        # depends on something (or is past its 256 ops), and nothing a user sets changes it.
        return
    comb = block_combining(ctx, block, keying=combiner.keying, threshold_bytes=combiner.threshold_bytes,
                           threshold_count=combiner.threshold_count, starts=True, units=True, kinds=(kind,))
    for g in comb.groups:
        if g.members[0] == index and g.key[0] == kind:
            yield _merged_by_default(op, ctx, f, comb, g, backend, combiner)
    for key in {s.key for s in comb.splits if s.reason == "bytes" and s.key[0] == kind}:
        for run in _runs(comb, key):
            if run[0] != index or len(run) < 2:
                continue
            cut = [s for s in comb.splits if s.key == key and s.reason == "bytes" and run[0] <= s.next <= run[-1]]
            if cut:
                yield _over_threshold(op, ctx, f, comb, run, cut, key, backend, combiner)


def _no_combiner(op: Operation, ctx: Context, f: BlockFlow, comb: Combining, index: int, kind: str,
                 backend: Backend) -> Iterator[Diagnostic]:
    for g in comb.groups:
        if g.members[0] != index or g.key[0] != kind:
            continue
        n = len(g.members)
        label = _label(op)
        d = ctx.diag(op, f"{label}: {n} independent {_kind_label(kind)}s of one combine key ({_size(g.bytes)} in "
                         f"total) stay {n} collectives: {backend.label} has no {_kind_label(kind)} combiner")
        d = d.note(ctx.loc(op), f"a combiner would merge them, saving {n - 1} launch{'es' if n > 2 else ''}: they "
                                f"share {key_words(g.key, collective_op(op))}")
        d = _members_notes(ctx, d, f, g.members)
        d = _dependence_notes(ctx, d, f, comb, g.members, g.key)
        d = _evidence_note(ctx, d, backend)
        verb = {"all_gather": "all_gather", "reduce_scatter": "psum_scatter"}.get(kind, "psum")
        flag = COMBINERS[GPU].get(kind)
        yield d.with_help(f"issue them as one collective: in JAX, {verb} one flat buffer (the arrays concatenated, "
                          f"or jax.flatten_util.ravel_pytree of them) instead of one array at a time"
                          + (f"; XLA:GPU combines them ({flag.flag})" if flag is not None and backend.name == CPU
                             else ""))


def _merged_by_default(op: Operation, ctx: Context, f: BlockFlow, comb: Combining, g: Group, backend: Backend,
                       combiner) -> Diagnostic:
    n = len(g.members)
    kind = g.key[0]
    limit = "no byte limit" if combiner.threshold_bytes is None else \
        f"its default threshold ({_size(combiner.threshold_bytes)})"
    d = ctx.diag(op, f"{_label(op)}: {n} independent {_kind_label(kind)}s of one combine key ({_size(g.bytes)} in "
                     f"total) are apart, though {backend.label}'s {combiner.pass_name} merges them at {limit}")
    d = d.note(ctx.loc(op), f"they share {key_words(g.key, collective_op(op))}; one collective would save "
                            f"{n - 1} launch{'es' if n > 2 else ''}")
    d = _members_notes(ctx, d, f, g.members)
    d = _dependence_notes(ctx, d, f, comb, g.members, g.key)
    d = _evidence_note(ctx, d, backend)
    how = (f"a lower {combiner.flag}" if combiner.flag else "a lower threshold") + " or without the combiner " \
          f"(`--xla_disable_hlo_passes` naming {_pass_flag_name(combiner.pass_name)})"
    return d.with_help(f"the module was compiled with {how}: compile with the default "
                       + (f"or set {combiner.flag}={g.bytes} or more" if combiner.flag else "settings"))


def _pass_flag_name(pass_name: str) -> str:
    """XLA's pass name for `--xla_disable_hlo_passes` (HloPassInterface::name())."""
    return {"AllReduceCombiner": "all-reduce-combiner", "AllGatherCombiner": "all-gather-combiner",
            "ReduceScatterCombiner": "reduce-scatter-combiner", "CpuAllReduceCombiner": "all-reduce-combiner"
            }.get(pass_name, pass_name)


def _over_threshold(op: Operation, ctx: Context, f: BlockFlow, comb: Combining, run: list[int], cut: list[Split],
                    key: tuple, backend: Backend, combiner) -> Diagnostic:
    by_index = {c.index: c for c in comb.candidates.get(key, [])}
    total = sum(by_index[i].bytes for i in run)
    sizes = ", ".join(_size(by_index[i].bytes) for i in run[:6]) + (", ..." if len(run) > 6 else "")
    n = len(run)
    kind = key[0]
    d = ctx.diag(op, f"{_label(op)}: {n} independent {_kind_label(kind)}s of one combine key ({_size(total)} in "
                     f"total) stay {n} collectives: together they pass {backend.label}'s combine threshold "
                     f"({_size(combiner.threshold_bytes)}, {combiner.flag})")
    d = d.note(ctx.loc(op), f"their sizes: {sizes}; they share {key_words(key, collective_op(op))}")
    for s in cut[:SHOW]:
        nxt = f.ops[s.next]
        d = d.note(ctx.loc(nxt), f"the {_label(nxt)} at line {_line(ctx, nxt)} would bring the combined collective "
                                 f"to {_size(s.total)}, over {_size(combiner.threshold_bytes)}")
    d = _dependence_notes(ctx, d, f, comb, run, key)
    d = _evidence_note(ctx, d, backend)
    return d.with_help(f"XLA_FLAGS={combiner.flag}={total} makes them one collective, saving {n - 1} "
                       f"launch{'es' if n > 2 else ''} (one buffer of {_size(total)} in flight instead of several)")


# =========================================================================== SHLO642
def _start_of(ctx: Context, done: Operation) -> Operation | None:
    """The start a done completes, through `async-update`s, in the done's block."""
    block = done.parent
    try:
        operands = done.operands
    except Exception:  # noqa: BLE001 - an unreadable header is another rule's finding
        return None
    v = operands[0] if operands else None
    seen = 0
    while v is not None and seen < 64:
        d = v.defining_op
        if d is None or d.parent is not block:
            return None
        if d.name in _STARTS:
            return d
        if d.name not in _UPDATES:
            return None
        v = d.operands[0] if d.operands else None
        seen += 1
    return None


def _ancestors(f: BlockFlow, i: int, lo: int) -> set[int]:
    """The ops at positions >= lo that op `i` depends on."""
    out: set[int] = set()
    stack = [i]
    while stack:
        j = stack.pop()
        for d in f.deps(j):
            if d >= lo and d not in out:
                out.add(d)
                stack.append(d)
    return out


def _busy(ctx: Context, f: BlockFlow) -> set[int]:
    """Positions of the ops that already run while some async collective of the
    block is in flight (between its start and its done): moving them would only
    expose that one."""
    cache = ctx.cache.setdefault("xla_comm.busy", {})
    got = cache.get(id(f))
    if got is None:
        got = cache[id(f)] = set()
        for k, o in enumerate(f.ops):
            if o.name in _DONES:
                start = _start_of(ctx, o)
                if start is not None and start.parent is o.parent:
                    got.update(range(f.index(start) + 1, k))
    return got


def _could_overlap(ctx: Context, f: BlockFlow, s: int, d: int) -> tuple[list[Operation], list[Operation]]:
    """Work near the pair that an in-flight collective could hide: ops before the
    start (within `overlap-window`) that the start does not need, and ops after
    the done (within it) that do not need the done's results; neither already
    hiding another collective."""
    window = max(0, int(ctx.option("overlap-window", 200)))
    lo = max(0, s - window)
    needed = _ancestors(f, s, lo)
    busy = _busy(ctx, f)
    before = [f.ops[k] for k in range(lo, s) if k not in needed and k not in busy and hides(ctx, f, k)]
    end = min(len(f.ops), d + 1 + window)
    dependent = set(f.depends([d], d + 1, end))
    after = [f.ops[k] for k in range(d + 1, end) if k not in dependent and k not in busy and hides(ctx, f, k)]
    return before, after


def _is_sync(op: Operation) -> bool:
    ins = getattr(op, "instruction", None)
    cfg = ins.attr("backend_config") if ins is not None else None
    if cfg is None or "is_sync" not in getattr(cfg, "text", ""):
        return False
    data = cfg.data()
    coll = data.get("collective_backend_config") if isinstance(data, dict) else None
    return isinstance(coll, dict) and coll.get("is_sync") is True


@rule("SHLO642", "async-collective-exposed", category="performance", severity="info", on=_DONES,
      front_ends=("hlo",))
def async_collective_exposed(op: Operation, ctx: Context) -> Iterator[Diagnostic]:
    """An async collective with nothing overlapping it between start and done, though independent work is near.

    ## What it does
    On a compiled module (where each computation's order is the order XLA issues
    it in), pairs each `*-done` / `async-done` with its start in the same
    computation and checks what runs in between. When nothing does that an
    in-flight collective could hide (SHLO601's notion, rules/support/overlap_work.py `hides`:
    not a constant, a process-id read, a scalar computation, a tuple /
    get-tuple-element / bitcast, another start or done), it looks
    `overlap-window` ops before the start for work the start does not need and
    after the done for work that does not need its result: that work could have
    overlapped the communication. The message gives the bytes the collective
    moves (per device, and per step where it sits in loops of known trip count).
    XLA:GPU marks such a pair `"is_sync":true` itself
    (GpuConvertAsyncCollectivesToSync: nothing but parameters, constants,
    bitcasts and get-tuple-elements between them); the note says so when it did.
    Silent when no independent work is near: then the program's data flow,
    not the schedule, serialises the collective.

    ## Why is this bad?
    The device waits for the whole collective, exactly as for a synchronous one
    (seed 004: "Local computation should be executed while collectives are
    running in the background"); the communication time is exposed.

    ## Example
    ```
    %ars = f32[8]{0} all-reduce-start(%a), channel_id=1, replica_groups={{0,1,2,3}}, to_apply=%sum
    %ard = f32[8]{0} all-reduce-done(%ars)
    %h = f32[64,64]{1,0} dot(%x, %w), ...      // does not need %ard
    ```

    ## Use instead
    Let XLA's latency-hiding scheduler place independent work between the start
    and the done (`XLA_FLAGS=--xla_gpu_enable_latency_hiding_scheduler=true` on
    XLA:GPU); in a StableHLO program you schedule yourself, start the collective
    earlier and complete it later (SHLO601-603).

    ## Fix safety
    No fix: the text is XLA's output.
    """
    block = op.parent
    start = _start_of(ctx, op)
    if block is None or start is None:
        return
    f = flow(ctx, block)
    s, d = f.index(start), f.index(op)
    if any(f.ops[k].name in _DONES and _start_of(ctx, f.ops[k]) is start for k in range(s + 1, d)):
        return  # a second completion (SHLO402's): the first one speaks for the pair
    if any(hides(ctx, f, k) for k in range(s + 1, d)):
        return
    before, after = _could_overlap(ctx, f, s, d)
    movable = before + after
    if not movable:
        return
    kind = collective_kind(start)
    size = payload_bytes(start, kind, group_size(start, kind, ctx.grid))
    n = len(movable)
    label = _label(start)
    diag = ctx.diag(start, f"{label}: nothing runs while the {_kind_label(kind)} is in flight ({_size(size)} per device"
                           f"{_loop_words(start)}); {n} independent op{'s' if n > 1 else ''} nearby could")
    diag = diag.note(ctx.loc(op), f"completed here, right after the start (line {_line(ctx, start)}): the "
                                  "communication is exposed")
    if _is_sync(start):
        diag = diag.note(ctx.loc(start), "XLA marked it synchronous (`\"is_sync\":true`): it found nothing between "
                                         "the start and the done to overlap")
    if before:
        diag = diag.note(ctx.loc(before[-1]), f"before the start, not needed by it: {_list(ctx, before[::-1])}")
    if after:
        diag = diag.note(ctx.loc(after[0]), f"after the done, not needing its result: {_list(ctx, after)}")
    backend = _backend(ctx)
    flag = f"XLA_FLAGS={LHS_FLAG}" if backend.name != CPU else "its latency-hiding scheduler"
    yield diag.with_help(f"let XLA schedule independent work between the start and the done ({flag}); "
                         "in a program you schedule yourself, start earlier and complete later")


# =========================================================================== SHLO643
@rule("SHLO643", "collective-not-async", category="performance", severity="info", on=_SYNC + _STARTS,
      front_ends=("hlo",))
def collective_not_async(op: Operation, ctx: Context) -> Iterator[Diagnostic]:
    """A collective runs synchronously on a backend that has its async form, with independent work around it.

    ## What it does
    On a scheduled module compiled for a backend whose async collectives the
    module shows evidence of (XLA:GPU runs all-reduce, all-gather,
    collective-permute, reduce-scatter, all-to-all, collective-broadcast and
    ragged-all-to-all as async pairs: checker/analysis/xla_backend.py), reports

    * a synchronous collective (`all-reduce`, ... not in a start/done pair)
      with work within `overlap-window` ops before it that it does not need, or
      after it that does not need its result;
    * a start XLA marked `"is_sync":true` although work that an in-flight
      collective could hide (rules/support/overlap_work.py `hides`) runs between it and its
      done: the collective runs at the start, synchronously, so that work waits.

    A start marked synchronous with nothing between it and its done is
    SHLO642's. Never on XLA:CPU, which has no async collective (measured:
    corpus/hlo/README.md), nor where the backend cannot be told from the module.

    ## Why is this bad?
    The device computes nothing while the collective runs; its async form lets
    the work around it run meanwhile.

    ## Example
    ```
    %ars = f32[8]{0} all-reduce-start(%a), ..., backend_config={"collective_backend_config":{"is_sync":true}}
    %h = f32[64,64]{1,0} dot(%x, %w), ...      // independent of the all-reduce
    %ard = f32[8]{0} all-reduce-done(%ars)
    ```

    ## Use instead
    Drop the kind from `--xla_gpu_disable_async_collectives` (XLA_FLAGS) if it
    is named there, and let XLA's latency-hiding scheduler
    (`--xla_gpu_enable_latency_hiding_scheduler=true`) place the work.

    ## Fix safety
    No fix: the text is XLA's output.
    """
    module = ctx.module
    block = op.parent
    if block is None or not module.schedule_fixed or _in_async_body(op):
        return
    backend = _backend(ctx)
    kind = collective_kind(op)
    if backend.name is None or kind not in ASYNC_KINDS[backend.name]:
        return
    f = flow(ctx, block)
    i = f.index(op)
    if op.name in _STARTS:
        if not _is_sync(op):
            return
        d = next((k for k in range(i + 1, len(f.ops)) if f.ops[k].name in _DONES and _start_of(ctx, f.ops[k]) is op),
                 None)
        if d is None:
            return
        between = [f.ops[k] for k in range(i + 1, d) if hides(ctx, f, k)]
        if not between:
            return  # nothing to overlap in between: SHLO642's
        n = len(between)
        diag = ctx.diag(op, f"{_label(op)}: runs synchronously (`\"is_sync\":true`) although {n} op"
                            f"{'s' if n > 1 else ''} between it and its done could overlap the {_kind_label(kind)}")
        diag = diag.note(ctx.loc(between[0]), f"independent work in the pair: {_list(ctx, between)}")
    else:
        before, after = _could_overlap(ctx, f, i, i)
        movable = before + after
        if not movable:
            return
        n = len(movable)
        diag = ctx.diag(op, f"{_label(op)}: runs synchronously on {backend.label}, which has its async form; "
                            f"{n} independent op{'s' if n > 1 else ''} nearby could overlap it")
        if before:
            diag = diag.note(ctx.loc(before[-1]), f"before it, not needed by it: {_list(ctx, before[::-1])}")
        if after:
            diag = diag.note(ctx.loc(after[0]), f"after it, not needing its result: {_list(ctx, after)}")
    diag = _evidence_note(ctx, diag, backend)
    name = DISABLE_ASYNC_NAMES.get(kind, kind.upper())
    yield diag.with_help(f"if XLA_FLAGS names {name} in --xla_gpu_disable_async_collectives, drop it; and let the "
                         f"latency-hiding scheduler overlap it ({LHS_FLAG})")
