"""Hazards of a scheduled HLO module that XLA's own verifier does not see: what XLA:GPU
does with the order, the streams and the point-to-point annotations the compiled
module carries (docs/hlo.md, "Hazards", says what was read in XLA for each).

HLO only (`front_ends=("hlo",)`): StableHLO has no schedule, no streams and no
`_xla_send_recv_*` attributes; the facts come from the instructions behind the
IR ops (`op.instruction`). Shared machinery: rules/support/hlo_streams.py (streams,
in-flight intervals), rules/support/device_sets.py (the devices two collectives
share), rules/support/hlo_loops.py (executions per instruction),
rules/support/p2p_order.py (the order of a stream's transfers).
"""
from __future__ import annotations

from typing import Iterator

from shlo_lint.checker.analysis.semantics import channel_id, source_target_pairs
from shlo_lint.checker.ir import catalog
from shlo_lint.checker.ir.core import Block, Module, Operation, user_column
from shlo_lint.checker.lint.context import Context
from shlo_lint.checker.lint.registry import rule
from shlo_lint.checker.source.diagnostics import Diagnostic, Location

from .support.device_sets import devices, shared_pair
from .support.hlo_loops import Executions, executions
from .support.hlo_streams import (COMPUTE, Flight, communicates, flights, frontend_attributes, is_host_transfer,
                                  is_p2p_half, label, nested_communication, stream_of)
from .support.p2p_order import Cycle, stream_cycles, transfers

HLO_ONLY = ("hlo",)
VALIDATION_ATTR = "_xla_send_recv_validation"
PERMUTES = frozenset(catalog.ops_of("collective_permute"))


def _blocks(module: Module) -> Iterator[Block]:
    """Every block of the module (each computation, lowered as a function or a region)."""
    if module.root is None:
        return
    for op in module.root.walk():
        for region in op.regions:
            yield from region.blocks


def _line(op: Operation) -> int:
    return op.module.source.line_col(op.span.start)[0]


def _python(d: Diagnostic, op: Operation, what: str) -> Diagnostic:
    """A note at the Python line `op` was written at (its metadata), when it has one."""
    frames = op.python_frames
    if not frames:
        return d
    f = frames[0]
    return d.note(Location(f.file, None, f.line, user_column(f)), f"{what} was written here")


def _devices_words(pair: tuple[int, int], ctx: Context) -> str:
    grid = ctx.grid
    if grid.known and grid.num_replicas > 1:
        a, b = (grid.unflat(x) for x in pair)
        return f"devices {a} and {b} (replica, partition)"
    return f"devices {pair[0]} and {pair[1]}"


# =========================================================================== SHLO520
@rule("SHLO520", "collectives-in-flight-on-two-streams", category="deadlock", severity="warning",
      front_ends=HLO_ONLY)
def collectives_in_flight_on_two_streams(module: Module, ctx: Context) -> Iterator[Diagnostic]:
    """Two collectives run at once on different streams over groups that share two devices.

    ## What it does
    Follows each async collective of a scheduled HLO module from its start to its
    done in the schedule (`all-gather-start` / `-done`, `async-start` /
    `async-done`, `send` / `send-done`, `recv` / `recv-done`), across a while
    loop's iterations where XLA's pipelined send/recv starts a transfer at the end
    of the body and completes it in the next iteration, and reports a collective
    issued meanwhile (directly or inside a while, conditional or call: an async
    one, or a synchronous one while a send/recv is in flight) when the two run
    on different streams and some group (or source-target pair) of one shares
    two or more devices with some group of the other. The streams are the ones
    XLA:GPU picks from the text: `send` / `recv` on P2P stream 0, or 1 with
    `_xla_send_recv_pipeline="1"`; other async collectives on the collective
    stream (or the stream `_xla_stream_annotation` names); synchronous
    collectives on the compute stream. Two on one stream run in issue order on
    every device and are not reported; nor are sends and recvs on the two P2P
    streams, which XLA's pipelining runs side by side by design (a ring's back
    edge on one, its forward edges on the other: SHLO522 reads what they do).
    The groups are read in their compact form (iota, mesh axes) once per
    spelling.

    ## Why is this bad?
    NCCL runs each stream's kernels in order, but kernels of two streams may
    start in either order, and not in the same order on every device. When two
    devices take part in both collectives, one may enter the first while the
    other enters the second, each waiting for the other inside a kernel that
    never returns: the job hangs, sometimes. XLA's latency-hiding scheduler
    refuses to overlap two such collectives, and its send/recv decomposer and
    schedule preparation keep other collectives out of a send/recv chain; a
    module scheduled otherwise (an older XLA, a custom pass pipeline, HLO
    written or edited by hand) still carries the hazard. Needs a GPU to hang; the
    text alone says it can.

    ## Example
    ```
    %s = (f32[4], u32[], token[]) send(%x, %tok), channel_id=1,
        frontend_attributes={_xla_send_recv_source_target_pairs="{{0,1}}"}
    %ag = (f32[4], f32[32]) all-gather-start(%y), channel_id=2,
        replica_groups=[1,8]<=[8], dimensions={0}, use_global_device_ids=true
    %agd = f32[32] all-gather-done(%ag)
    %sd = token[] send-done(%s), channel_id=1
    ```

    ## Use instead
    Complete one before the other starts: move `send-done` before the
    `all-gather-start` (or add `control-predecessors={%sd}` to it before
    scheduling), or issue both on one stream. Let XLA's latency-hiding
    scheduler order the module rather than ordering it by hand.
    """
    grid = ctx.grid
    if not grid.known or not module.schedule_fixed:
        return
    cache = ctx.cache.setdefault("hlo_schedule.devices", {})
    reported: set[frozenset[int]] = set()
    calls = catalog.names(regions=catalog.CALL)
    for block in _blocks(module):
        pending = flights(block)  # sorted by their beginning
        if not pending:
            continue
        live: list[Flight] = []
        nxt = 0
        for i, op in enumerate(block.operations):
            while nxt < len(pending) and pending[nxt].begin < i:
                live.append(pending[nxt])
                nxt += 1
            live = [f for f in live if f.end > i]
            if not live:
                continue
            issued: list[tuple[Operation, Operation | None]] = []
            if communicates(op):
                issued.append((op, None))
            if op.regions or op.name in calls:
                issued += [(inner, op) for inner in nested_communication(op)]
            for b, via in issued:
                clashes, keys = [], set()
                for f in live:
                    if not f.begin < i < f.end or f.start is b:
                        continue
                    key = frozenset((_unit(f.start), _unit(b)))
                    if key in reported:
                        continue
                    pair = _clash(ctx, f, b, cache)
                    if pair is not None:
                        keys.add(key)
                        clashes.append((f, pair))
                reported |= keys
                if clashes:
                    yield _overlap(ctx, b, via, clashes)


def _unit(op: Operation) -> object:
    """What one finding is about: a send/recv chain (its halves of one channel in one
    computation) or one collective."""
    if is_p2p_half(op):
        return ("chain", id(op.parent), channel_id(op))
    return id(op)


def _clash(ctx: Context, f: Flight, b: Operation, cache: dict) -> tuple[int, int] | None:
    """Two devices `f` and `b` both communicate among, when they run on different streams (a
    synchronous collective only against a send/recv in flight: XLA keeps every collective out
    of a send/recv chain, p2p_schedule_preparation.h; its scheduler lets a synchronous one run
    while an async collective is in flight)."""
    sb = stream_of(b)
    if sb.key == f.stream.key or is_p2p_half(f.start) and is_p2p_half(b):
        return None  # (the two P2P streams side by side are XLA's own design: SHLO522 reads them)
    if sb.key == COMPUTE.key and not is_p2p_half(f.start):
        return None
    da, db = devices(f.start, ctx.grid, cache), devices(b, ctx.grid, cache)
    if da is None or db is None:
        return None
    return shared_pair(da, db)


def _overlap(ctx: Context, b: Operation, via: Operation | None, clashes: list) -> Diagnostic:
    (f, pair), others = clashes[0], clashes[1:]
    a, sb = f.start, stream_of(b)
    who = _devices_words(pair, ctx)
    also = f" (and {len(others)} more in flight)" if others else ""
    d = ctx.warning(b, f"{label(b)} on {sb.words} is issued while {label(a)} on {f.stream.words} is in flight, "
                       f"and both communicate among {who}{also}", op=b)
    if via is not None:
        d = d.note(ctx.loc(via), f"{label(b)} runs inside this {label(via)}, issued while {label(a)} is in flight")
    d = d.note(ctx.loc(a), f"{label(a)} starts here{_when(f)}, on {f.stream.words}; {_completion(f)}")
    d = _python(d, a, label(a))
    for g, p in others:
        d = d.note(ctx.loc(g.start), f"{label(g.start)}, on {g.stream.words}, is in flight too, among "
                                     f"{_devices_words(p, ctx)}; {_completion(g)}")
    d = d.note(ctx.loc(b), f"kernels on different streams may start in different orders on {who}: each can wait "
                           f"inside one collective for a peer waiting inside the other, and the job hangs; XLA's "
                           f"latency-hiding scheduler does not overlap two such collectives")
    return d.with_help(f"complete {label(a)} before {label(b)} starts (its done first, or a control-predecessors "
                       f"edge from the done), or issue both on one stream")


def _when(f: Flight) -> str:
    """When a flight that comes from elsewhere was started."""
    if f.done is None or f.begin >= 0 and f.done.parent is f.start.parent:
        return ""
    if f.begin < 0:
        return " (in the previous iteration; the first comes from before the loop)"
    return " (in the loop's last iteration)"


def _completion(f: Flight) -> str:
    if f.ends_how == "done" and f.done is not None:
        return f"{label(f.done)} at line {_line(f.done)} completes it"
    if f.ends_how == "loop":
        return "its future is carried into the while loop, which completes it"
    if f.ends_how == "leaves":
        return "still in flight at the end of this computation (the next iteration or the caller completes it)"
    return "its future is passed on and completed later"


# =========================================================================== SHLO521
@rule("SHLO521", "send-recv-validation-vs-trip-count", category="deadlock", front_ends=HLO_ONLY)
def send_recv_validation_vs_trip_count(module: Module, ctx: Context) -> Iterator[Diagnostic]:
    """A send/recv's `_xla_send_recv_validation` does not fit the executions it has, or its peer's.

    ## What it does
    Reads `_xla_send_recv_validation` on `send`, `recv` and `collective-permute`
    instructions: one inclusive range `{lo,hi}` of executions per pair of
    `_xla_send_recv_source_target_pairs` (or `source_target_pairs`), or
    `"invalid"`. XLA:GPU counts the executions of each instruction in a run and
    transfers a pair only in the executions its range covers. The executions are
    the trip counts of the while loops around the instruction (XLA's
    `known_trip_count`, else the `i = c; while i < n: i += s` form the loop's
    text folds to); outside any loop an instruction runs once. Reports, as
    errors, a send and the recv it pairs with (same channel and pairs) whose
    ranges differ for a pair, or where one side is `"invalid"` and the other is
    not; and as warnings a range that is empty or outside the executions (the
    transfer never happens), one that reaches past the last execution (or before
    the first), and an attribute XLA:GPU ignores because it does not read or
    has a range count other than the pair count (every execution then
    transfers).

    ## Why is this bad?
    In an execution where the sender transfers and the receiver skips (or the
    other way round), one device waits in NCCL for a peer that never comes, or
    the receiver keeps a buffer nobody wrote. XLA writes these ranges when it
    pipelines a loop (collective-permute-valid-iteration-annotator) and rewrites
    them when it peels or unrolls one; a range that no longer fits the loop's
    trip count says the two went out of step (a hand edit, a custom pass, a loop
    whose trip count changed).

    ## Example
    ```
    %r = (f32[4], u32[], token[]) recv(%tok), channel_id=7, frontend_attributes={
        _xla_send_recv_source_target_pairs="{{0,1}}", _xla_send_recv_validation="{{1,5}}"}
    %s = (f32[4], u32[], token[]) send(%x, %tok), channel_id=7, frontend_attributes={
        _xla_send_recv_source_target_pairs="{{0,1}}", _xla_send_recv_validation="{{0,4}}"}
    ```

    ## Use instead
    Give the send and its recv the same ranges, each within the loop's
    iterations `{0, trip count - 1}`: `_xla_send_recv_validation="{{0,4}}"` on
    both (or `"invalid"` on both for a pair that must not run).
    """
    starts = catalog.future_ends(catalog.START, "hlo")
    for block in _blocks(module):
        annotated = []
        for op in block.operations:
            if op.name not in starts and op.name not in PERMUTES:
                continue
            fa = frontend_attributes(op)
            if fa is None or VALIDATION_ATTR not in fa or is_host_transfer(op):
                continue
            if is_p2p_half(op) and op.name in starts or op.name in PERMUTES:
                annotated.append((op, fa))
        halves = [op for op in block.operations if op.name in starts and is_p2p_half(op) and not is_host_transfer(op)]
        if not annotated and not halves:
            continue
        sends = [op for op in halves if catalog.info(op.name).kind == "send"]
        recvs = [op for op in halves if catalog.info(op.name).kind != "send"]
        by_channel: dict = {}
        for op in recvs:
            by_channel.setdefault(channel_id(op), []).append(op)
        pairs = {id(op): tuple(_pairs(op)) for op in halves}
        twins = {}  # a recv written exactly as its send: its findings are the send's
        for x in sends:
            fx = frontend_attributes(x)
            written = fx.get(VALIDATION_ATTR) if fx is not None else None
            if written is None:
                continue
            for r in by_channel.get(channel_id(x), ()):
                fr = frontend_attributes(r)
                if id(r) not in twins and pairs[id(x)] == pairs[id(r)] and fr is not None \
                        and fr.get(VALIDATION_ATTR) == written:
                    twins[id(r)] = x
                    twins.setdefault(id(x), r)
                    break
        for op, fa in annotated:
            twin = twins.get(id(op))
            if twin is not None and catalog.info(op.name).kind != "send":
                continue
            yield from _validation_alone(ctx, op, fa, twin)
        yield from _validation_peers(ctx, sends, by_channel, pairs)


def _pairs(op: Operation) -> list[tuple[int, int]]:
    return source_target_pairs(op) or []


def _executions_note(d: Diagnostic, ctx: Context, ex: Executions) -> Diagnostic:
    if not ex.loops:
        return d.note(ctx.loc(d.location.span), "outside any while loop it runs once per execution of the module "
                                                "(execution 0)")
    for loop, trips, how in ex.loops:
        read = "known_trip_count" if how == "known_trip_count" else "its condition and counter, folded"
        d = d.note(ctx.loc(loop), f"this while runs {trips} time{'s' if trips != 1 else ''} ({read})")
    return d


def _validation_alone(ctx: Context, op: Operation, fa, twin: Operation | None) -> Iterator[Diagnostic]:
    for d in _validation_findings(ctx, op, fa):
        if twin is not None:
            d = d.note(ctx.loc(twin), f"{label(twin)}, its other half, has the same {VALIDATION_ATTR}")
        yield d


def _validation_findings(ctx: Context, op: Operation, fa) -> Iterator[Diagnostic]:
    v = fa.send_recv_validation
    pairs = _pairs(op)
    if v is None or v.is_invalid:
        return
    if v.ranges is None or len(v.ranges) != len(pairs):
        why = (v.problem if v.ranges is None else
               f"it has {len(v.ranges)} range{'s' if len(v.ranges) != 1 else ''} for {len(pairs)} source-target "
               f"pair{'s' if len(pairs) != 1 else ''}")
        yield ctx.warning(op, f"{label(op)}: XLA:GPU ignores its {VALIDATION_ATTR} and transfers on every "
                              f"execution: {why}", op=op).with_help(
            "write one {lo,hi} range per source-target pair, in the pairs' order, or \"invalid\"")
        return
    ex = executions(op)
    n = ex.count
    never, past = [], []
    empty = True
    for (s, t), (lo, hi) in zip(pairs, v.ranges):
        if lo > hi or (n is not None and (hi < 0 or lo >= n)):
            never.append(f"{s}->{t} {{{lo},{hi}}}")
            empty = empty and lo > hi
        elif n is not None and (hi >= n or lo < 0):
            past.append(f"{s}->{t} {{{lo},{hi}}}")
    runs = ("no execution" if n == 0 else "one execution (0)" if n == 1 else f"executions 0..{n - 1}"
            if n is not None else "")
    one = len(never) == 1
    if never:
        where = "empty" if empty else f"outside the {runs} it has"
        d = ctx.warning(op, f"{label(op)}: {_listed(never)} never transfer{'s' if one else ''}: "
                            f"{'its range is' if one else 'their ranges are'} {where}", op=op)
        yield _executions_note(d, ctx, ex).with_help(
            "give the pair a range within the executions it has, or \"invalid\" if it must not run")
    if past:
        d = ctx.warning(op, f"{label(op)}: {_listed(past)} promise{'s' if len(past) == 1 else ''} executions it "
                            f"does not have (it has {runs})", op=op)
        yield _executions_note(d, ctx, ex).with_help(
            "the ranges were written for another trip count: recompute them for this loop's")


def _listed(items: list[str], limit: int = 3) -> str:
    head = ", ".join(f"pair {x}" for x in items[:limit])
    return head + (f" and {len(items) - limit} more" if len(items) > limit else "")


def _effective(fa, index: int, n: int | None) -> tuple | None:
    """The executions a pair transfers in: ("all",), ("none",) or (lo, hi) clipped to n."""
    v = fa.send_recv_validation if fa is not None else None
    if v is None or (v.ranges is None and not v.is_invalid):
        return ("all",)
    if v.is_invalid:
        return ("none",)
    if index >= len(v.ranges):
        return ("all",)  # XLA:GPU ignores a list of the wrong length (reported alone)
    lo, hi = v.ranges[index]
    if n is not None:
        lo, hi = max(lo, 0), min(hi, n - 1)
    return ("none",) if lo > hi else (lo, hi)


def _words(e: tuple) -> str:
    if e == ("all",):
        return "in every execution"
    if e == ("none",):
        return "never"
    return f"in executions {e[0]}..{e[1]}" if e[0] != e[1] else f"in execution {e[0]}"


def _validation_peers(ctx: Context, sends: list[Operation], recvs: dict, pairs: dict) -> Iterator[Diagnostic]:
    """Sends against the recvs of their channel in the same computation, pair by pair."""
    for s in sends:
        s_pairs = list(pairs[id(s)])
        sfa = frontend_attributes(s)
        for r in recvs.get(channel_id(s), ()):
            rfa = frontend_attributes(r)
            if (sfa is None or VALIDATION_ATTR not in sfa) and (rfa is None or VALIDATION_ATTR not in rfa):
                continue  # neither skips anything
            r_pairs = list(pairs[id(r)])
            common = [p for p in s_pairs if p in r_pairs]
            if not common:
                continue
            n = executions(s).count
            differ = []
            for p in common:
                es, er = _effective(sfa, s_pairs.index(p), n), _effective(rfa, r_pairs.index(p), n)
                if es != er:
                    differ.append((p, es, er))
            if not differ:
                continue
            (src, dst), es, er = differ[0]
            more = f" (and {len(differ) - 1} more pair{'s' if len(differ) > 2 else ''})" if len(differ) > 1 else ""
            d = ctx.error(s, f"{label(s)} transfers pair {src}->{dst} {_words(es)} and {label(r)} receives it "
                             f"{_words(er)}{more}", op=s)
            d = d.note(ctx.loc(r), f"{label(r)}, the recv of this send (channel {channel_id(s)}), is here")
            d = _python(d, r, label(r))
            d = d.note(ctx.loc(s), f"in an execution where one side transfers and the other skips, device {src} or "
                                   f"{dst} waits for a peer that never comes, or {dst} keeps a buffer nobody wrote")
            yield d.with_help(f"give {label(s)} and {label(r)} the same {VALIDATION_ATTR}")


# =========================================================================== SHLO522
@rule("SHLO522", "send-recv-stream-cycle", category="deadlock", front_ends=HLO_ONLY)
def send_recv_stream_cycle(module: Module, ctx: Context) -> Iterator[Diagnostic]:
    """Sends and recvs on one P2P stream wait for each other in a cycle, or a send's recv is on another stream.

    ## What it does
    Takes the `send` and `recv` instructions of each computation in schedule
    order, stream by stream (P2P stream 0, or 1 with
    `_xla_send_recv_pipeline="1"`), matches each send's source-target pair with
    the recv of the same channel that lists it, and follows the order each
    device runs its transfers in on the stream: a transfer can complete only
    after the earlier transfers of both its devices on that stream. Reports a
    cycle in that order (device 1 receives from 0 before it sends to 2, ...,
    device 0 receives from 7 before it sends to 1), and a send whose recv is on
    the other stream. A cycle the deadlock analysis finds too (every device's
    `recv-done` comes before the send its peer waits for) is its SHLO500 and is
    not repeated here: this rule reports what the stream order adds. Pairs
    marked `"invalid"` on both sides never run and are left out.

    ## Why is this bad?
    XLA:GPU issues each send and recv as one NCCL operation on its stream, and
    a stream runs them one at a time: a recv (or a send) that waits for its
    peer blocks everything after it on that stream. In a cycle every device
    waits for one that waits in turn, so nothing completes: the job hangs
    (XLA's collective-permute decomposer refuses to split a permute whose pairs
    form a cycle for this reason). A send and a recv on different streams use
    different NCCL communicators and never meet.

    ## Example
    ```
    %r = (f32[4], u32[], token[]) recv(%tok), channel_id=1, frontend_attributes={
        _xla_send_recv_source_target_pairs="{{0,1},{1,2},{2,3},{3,0}}"}
    %s = (f32[4], u32[], token[]) send(%x, %tok), channel_id=1, frontend_attributes={
        _xla_send_recv_source_target_pairs="{{0,1},{1,2},{2,3},{3,0}}"}
    ```

    ## Use instead
    Split the cycle as XLA does: the back edge (`{{3,0}}`) as one send/recv on
    P2P stream 0 (`_xla_send_recv_pipeline="0"`), the forward edges as another
    on stream 1 (`"1"`); or keep the cyclic permute a `collective-permute`,
    which runs all its pairs as one grouped operation. Put a send and its recv
    on the same stream.
    """
    if not module.schedule_fixed:
        return
    for block in _blocks(module):
        _found, mismatches = transfers(block)
        for m in mismatches:
            d = ctx.error(m.send, f"{label(m.send)} on {m.send_stream.words} is received by {label(m.recv)} on "
                                  f"{m.recv_stream.words}: the two never meet", op=m.send)
            d = d.note(ctx.loc(m.recv), f"{label(m.recv)} takes pair {m.pair[0]}->{m.pair[1]} of the send here, "
                                        f"on {m.recv_stream.words}")
            d = _python(d, m.recv, label(m.recv))
            d = d.note(ctx.loc(m.send), "each stream has its own NCCL communicator: a send on one is matched only "
                                        "by a recv on the same one")
            yield d.with_help("give both the same _xla_send_recv_pipeline")
        for c in stream_cycles(block):
            yield _cycle(ctx, c)


def _cycle(ctx: Context, c: Cycle) -> Diagnostic:
    first = c.steps[0].first
    where = first.recv if first.recv_pos < first.send_pos else first.send
    d = ctx.error(where, f"sends and recvs on {c.stream.words} wait for each other in a cycle of {c.size} "
                         f"transfers", op=where)
    shown = c.steps[:4]
    for st in shown:
        a, b = st.first, st.then
        a_op = a.send if a.source == st.device else a.recv
        b_op = b.send if b.source == st.device else b.recv
        d = d.note(ctx.loc(b_op), f"device {st.device} runs {_role(a, st.device)} ({label(a_op)}) before "
                                  f"{_role(b, st.device)} ({label(b_op)}) on this stream")
    if len(c.steps) > len(shown):
        d = d.note(ctx.loc(where), f"... and {len(c.steps) - len(shown)} more devices, back to device "
                                   f"{c.steps[0].device}")
    d = _python(d, where, label(where))
    d = d.note(ctx.loc(where), "a stream runs its sends and recvs one at a time, each waiting for its peer: every "
                               "device of the cycle waits for one that waits in turn")
    return d.with_help("split the cycle as XLA does, its back edge and its forward edges on the two P2P streams "
                       "(_xla_send_recv_pipeline \"0\" and \"1\"), or keep the cyclic permute one "
                       "collective-permute")


def _role(t, device: int) -> str:
    return f"the send {t.source}->{t.target}" if t.source == device else f"the recv {t.source}->{t.target}"
