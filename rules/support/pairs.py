"""`source_target_pairs`, read and checked (C1-C4 of send, recv and
collective_permute, which obey the same constraints), the channel type (C5) and
the payload types of send and recv: what rules/send.py, rules/recv.py,
rules/collective_permute.py, rules/channels.py and rules/send_recv.py share.

Constraint labels follow the 2025 RFC that added `source_target_pairs` (seed 000)
and the current StableHLO spec. They differ in one place: for `recv` the RFC's
text says a host transfer uses DEVICE_TO_HOST; the current spec and the reference
verifier use HOST_TO_DEVICE, which is what is enforced (`RECV_READING`).
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Iterator

from shlo_lint.checker.analysis.semantics import CROSS_PARTITION, channel_id, channel_type, flag, strategy
from shlo_lint.checker.ir.attributes import DenseElementsAttr
from shlo_lint.checker.ir.core import Operation
from shlo_lint.checker.ir.types import TensorType, TokenType, Type
from shlo_lint.checker.lint.context import PER_OP, CacheKey, Context
from shlo_lint.checker.source.diagnostics import Diagnostic, Edit, Fix

from .grid_checks import grid_needed, overflowing_integer
from .shapes import elided


SEND = "stablehlo.send"


RECV = "stablehlo.recv"


CHANNEL_TYPE_NAMES = {0: "CHANNEL_TYPE_INVALID", 1: "DEVICE_TO_DEVICE", 2: "DEVICE_TO_HOST",
                      3: "HOST_TO_DEVICE"}
DEVICE_TO_DEVICE, DEVICE_TO_HOST, HOST_TO_DEVICE = 1, 2, 3
PAIRS_KEY = CacheKey("send_recv.pairs", PER_OP)
"""ctx.cache: op -> its source_target_pairs, read from its own attributes."""


_PAIR_ELEMENTS = ("i64", "si64")


def kind_of(op: Operation) -> str:
    """`stablehlo.send` → `send` (the prefix of every message)."""
    return op.name.rsplit(".", 1)[-1]


def type_name(t: int | None) -> str:
    if t is None:
        return "none"
    return f"{t} ({CHANNEL_TYPE_NAMES[t]})" if t in CHANNEL_TYPE_NAMES else f"{t} (not a channel type)"


# ----------------------------------------------------------------------------- pairs
@dataclass(frozen=True)
class Pairs:
    """What `source_target_pairs` holds, read once per op."""

    present: bool
    """False when the op has no source_target_pairs attribute."""
    rows: list[tuple[int, int]] | None
    """(source, target) rows when the attribute is a well-formed [k, 2] integer
    constant, else None (see `problem`)."""
    problem: str | None = None
    """Why the attribute is not a [k, 2] si64 constant (a C1 violation)."""


def _shape_text(shape) -> str:
    return "[" + ", ".join("?" if d is None else str(d) for d in shape) + "]"


def read_pairs(op: Operation, ctx: Context | None = None) -> Pairs:
    """Decode the op's `source_target_pairs` (memoised in ctx.cache)."""
    memo = ctx.cache.setdefault(PAIRS_KEY, {}) if ctx is not None else {}
    if op in memo:
        return memo[op]
    memo[op] = result = _read_pairs(op)
    return result


def _read_pairs(op: Operation) -> Pairs:
    a = op.attr("source_target_pairs")
    if a is None:
        return Pairs(False, None)
    if not isinstance(a, DenseElementsAttr):
        return Pairs(True, None, "source_target_pairs is not a dense constant; expected a [k, 2] si64 "
                                 "tensor like dense<[[0, 1]]> : tensor<1x2xi64>" + elided(a))
    t = a.type
    shape = t.shape if isinstance(t, TensorType) and t.is_static else None
    if op.name != "stablehlo.collective_permute" and shape == (0,) and str(t.element) in _PAIR_ELEMENTS:
        # `dense<[]> : tensor<0xi64>` on a send / recv: the spec's semantics
        # speak of pairs that are "None or empty" (undefined behaviour for a
        # device transfer: SHLO106/116; ignored for a host transfer), the 1.20
        # verifier does not read send/recv pairs, and StableHLO's own tests
        # write host transfers this way (tests/vhlo/vhlo_to_version_downgrade
        # .1_11_0.mlir). So it is empty pairs, not a shape error. collective_
        # permute's verifier rejects any rank but 2 (verifyCollectivePermuteOp).
        return Pairs(True, [])
    if isinstance(t, TensorType) and t.shape is not None and len(t.shape) != 2:
        return Pairs(True, None, f"source_target_pairs has shape {_shape_text(t.shape)} (rank {len(t.shape)}); "
                                 f"expected [k, 2]")
    if shape is not None and shape[1] != 2:
        return Pairs(True, None, f"source_target_pairs has shape {_shape_text(shape)}; expected [k, 2] "
                                 f"(one (source, target) pair per row)")
    if isinstance(t, TensorType) and str(t.element) not in _PAIR_ELEMENTS:
        return Pairs(True, None, f"source_target_pairs has element type {t.element}; expected si64 "
                                 f"(written i64)")
    if shape is not None and 0 in shape:
        return Pairs(True, [])
    try:
        arr = a.array
    except Exception:
        big = overflowing_integer(a.literal, t.element) if isinstance(t, TensorType) else None
        if big is not None:
            return Pairs(True, None, f"source_target_pairs holds {big}, which does not fit its element type "
                                     f"{t.element}")
        return Pairs(True, None, "source_target_pairs could not be read as an integer constant")
    if shape is None:
        if arr.ndim != 2 or arr.shape[1] != 2:
            return Pairs(True, None, f"source_target_pairs has shape {_shape_text(arr.shape)}; expected [k, 2]")
    elif tuple(arr.shape) != tuple(shape):
        return Pairs(True, None, f"source_target_pairs holds {arr.size} values but its type says "
                                 f"{_shape_text(shape)}")
    return Pairs(True, [(int(s), int(d)) for s, d in arr.reshape(-1, 2)])


def pairs_span(op: Operation, ctx: Context):
    return ctx.attr_span(op, "source_target_pairs")


def _rows(rows: list[int]) -> str:
    return ("rows " + ", ".join(map(str, rows[:-1])) + f" and {rows[-1]}") if len(rows) > 1 else f"row {rows[0]}"


def pairs_shape_diags(op: Operation, ctx: Context) -> Iterator[Diagnostic]:
    """C1: `source_target_pairs` is a [k, 2] si64 constant."""
    p = read_pairs(op, ctx)
    if p.present and p.problem is not None:
        yield ctx.error(pairs_span(op, ctx), f"{kind_of(op)}: {p.problem}", op=op)


def pairs_unique_diags(op: Operation, ctx: Context, column: int) -> Iterator[Diagnostic]:
    """C2 (column 0, sources) / C3 (column 1, targets): no id twice in a column."""
    p = read_pairs(op, ctx)
    if not p.rows:
        return
    role = "source" if column == 0 else "target"
    seen: dict[int, list[int]] = {}
    for i, row in enumerate(p.rows):
        seen.setdefault(row[column], []).append(i)
    span = pairs_span(op, ctx)
    for value, rows in seen.items():
        if len(rows) < 2:
            continue
        times = "twice" if len(rows) == 2 else f"{len(rows)} times"
        what = "sends" if column == 0 else "receives"
        d = ctx.error(span, f"{kind_of(op)}: {role} {value} appears {times} in source_target_pairs "
                            f"({_rows(rows)}); each process {what} at most once per op", op=op)
        yield d.note(ctx.loc(span), f"row {rows[0]} is the first pair with {role} {value}")


def _axis(op: Operation, ctx: Context) -> tuple[int | None, str]:
    """N and the words explaining it, by the op's strategy (SPEC-NOTES §2)."""
    ch = channel_id(op)
    if strategy(op) == CROSS_PARTITION:
        return ctx.grid.num_partitions, f"num_partitions = {ctx.grid.num_partitions} (cross_partition: channel_id {ch} > 0)"
    why = "no channel_handle" if ch is None else f"channel_id {ch} <= 0"
    return ctx.grid.num_replicas, f"num_replicas = {ctx.grid.num_replicas} (cross_replica: {why})"


def pairs_range_diags(op: Operation, ctx: Context, label: str) -> Iterator[Diagnostic]:
    """C4: every id in [0, N), N by the op's strategy. Negative ids are reported
    without a grid; the upper bound needs one (else it is recorded as skipped)."""
    p = read_pairs(op, ctx)
    if not p.rows:
        return
    bad: list[str] = []
    negative = [(i, c, v) for i, row in enumerate(p.rows) for c, v in enumerate(row) if v < 0]
    n: int | None = None
    if grid_needed(ctx, op, f"{label} (ids < N)"):
        n, why = _axis(op, ctx)
    over = [(i, c, v) for i, row in enumerate(p.rows) for c, v in enumerate(row)
            if n is not None and v >= n]
    for i, c, v in sorted(negative + over):
        bad.append(f"{'source' if c == 0 else 'target'} {v} (row {i})")
    if not bad:
        return
    shown = ", ".join(bad[:4]) + (f" and {len(bad) - 4} more" if len(bad) > 4 else "")
    if n is not None:
        expect = f"expected ids in [0, {n}), {why}"
    else:
        expect = "expected ids >= 0 (`-1` padding is not allowed in source_target_pairs)"
    help = None
    if n is not None and over and strategy(op) != CROSS_PARTITION and ctx.grid.num_partitions:
        if max(v for _i, _c, v in over) < ctx.grid.num_partitions:
            help = ("with no positive channel_id these are replica ids; to address partitions give the op "
                    "channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>")
    yield ctx.error(pairs_span(op, ctx), f"{kind_of(op)}: source_target_pairs id out of range: {shown}; {expect}",
                    op=op, help=help)


# ----------------------------------------------------------------------------- C5 and host transfers
def channel_type_diag(op: Operation, ctx: Context, expected: int, reading: str = "") -> Iterator[Diagnostic]:
    kind = kind_of(op)
    host = flag(op, "is_host_transfer")
    handle = op.attr("channel_handle")
    span = ctx.attr_span(op, "channel_handle")
    if handle is None:
        yield ctx.error(op, f"{kind}: no channel_handle; expected one with type = {type_name(expected)} "
                            f"since is_host_transfer = {str(host).lower()}", op=op)
        return
    t = channel_type(op)
    if t == expected:
        return
    if t == 0:
        msg = (f"{kind}: channel_handle type 0 (CHANNEL_TYPE_INVALID) is not a valid channel type; expected "
               f"{type_name(expected)} since is_host_transfer = {str(host).lower()}")
    else:
        msg = (f"{kind}: channel_handle type = {type_name(t)} does not match is_host_transfer = "
               f"{str(host).lower()}; expected type = {type_name(expected)}{reading}")
    d = ctx.error(span, msg, op=op)
    ht = op.attr("is_host_transfer")
    if ht is not None and getattr(ht, "span", None) is not None:
        d = d.note(ctx.loc(ht), f"is_host_transfer = {str(host).lower()} is set here")
    text = ctx.source.text[span.start:span.end]
    new = re.sub(r"\btype\s*=\s*-?\d+", f"type = {expected}", text, count=1)
    if t is not None and new != text:
        d = d.with_fix(Fix.unsafe(f"Set the channel type to {CHANNEL_TYPE_NAMES[expected]}", [Edit(span, new)]))
    yield d


def missing_pairs_diag(op: Operation, ctx: Context) -> Iterator[Diagnostic]:
    if flag(op, "is_host_transfer"):
        return
    p = read_pairs(op, ctx)
    kind = kind_of(op)
    if not p.present:
        yield ctx.warning(op, f"{kind}: no source_target_pairs on a device-to-device transfer "
                              f"(is_host_transfer = false): which process talks to which is undefined", op=op)
    elif p.rows == []:
        yield ctx.warning(pairs_span(op, ctx), f"{kind}: source_target_pairs is empty on a device-to-device "
                                               f"transfer (is_host_transfer = false): undefined behaviour", op=op)


def host_pairs_diag(op: Operation, ctx: Context) -> Iterator[Diagnostic]:
    if not flag(op, "is_host_transfer"):
        return
    p = read_pairs(op, ctx)
    if p.present and p.rows != []:
        direction = "to" if kind_of(op) == "send" else "from"
        yield ctx.warning(pairs_span(op, ctx), f"{kind_of(op)}: source_target_pairs is ignored when "
                                               f"is_host_transfer = true (the data goes {direction} the host)",
                          op=op)


def is_token(t: Type | None) -> bool:
    return isinstance(t, TokenType)


RECV_READING = (" (the current StableHLO spec and verifier; the 2025 send/recv RFC's text says "
                 "DEVICE_TO_HOST for recv)")


def send_payload(op: Operation) -> tuple[Type | None, ...] | None:
    types = op.operand_types
    if not types or not is_token(types[-1]) or any(is_token(t) for t in types[:-1]):
        return None  # malformed: send-bad-operands says so
    return tuple(types[:-1])


def recv_payload(op: Operation) -> tuple[Type | None, ...] | None:
    types = op.result_types
    if not types or not is_token(types[-1]) or any(is_token(t) for t in types[:-1]):
        return None  # malformed: recv-bad-results says so
    return tuple(types[:-1])


def compatible(a: Type | None, b: Type | None) -> bool:
    """Equal types, where a dynamic dimension (`?`) or an unknown type matches anything."""
    if a is None or b is None or a == b:
        return True
    if isinstance(a, TensorType) and isinstance(b, TensorType):
        if a.element != b.element:
            return False
        if a.shape is None or b.shape is None:
            return True
        return len(a.shape) == len(b.shape) and all(x is None or y is None or x == y
                                                    for x, y in zip(a.shape, b.shape))
    return False
