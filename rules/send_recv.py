"""`stablehlo.send` / `stablehlo.recv`: the source_target_pairs constraints C1–C4,
the channel type C5, operand/result layout, and send↔recv payload agreement.

Constraint labels follow the 2025 RFC that added `source_target_pairs` (seed 000)
and the current StableHLO spec. They differ in one place: for `recv` the RFC's
text says a host transfer uses DEVICE_TO_HOST; the current spec and the reference
verifier use HOST_TO_DEVICE, which is what is enforced here.

The pair helpers (`read_pairs`, `pairs_shape_diags`, ...), shared with
`collective_permute`, whose pairs obey the same C1–C4, are rules/support/pairs.py.
The rules are in rules/send.py (SHLO101-108) and rules/recv.py (SHLO111-118);
this module holds the send↔recv payload rule (SHLO120).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Iterator

from shlo_lint.checker.lint.context import Context
from shlo_lint.checker.source.diagnostics import Diagnostic
from shlo_lint.checker.ir.core import Operation
from shlo_lint.checker.lint.registry import rule
from shlo_lint.checker.analysis.semantics import channel_id, flag
from shlo_lint.checker.ir.types import Type
from .support.pairs import RECV, SEND, compatible, read_pairs, recv_payload, send_payload


# ----------------------------------------------------------------------------- send ↔ recv
@dataclass(frozen=True)
class _Send:
    op: Operation
    channel: int | None
    pairs: frozenset[tuple[int, int]]
    payload: tuple[Type | None, ...]


def _sends(ctx: Context) -> list[_Send]:
    """Every device-to-device send of the module with pairs (memoised)."""
    cached = ctx.cache.get("send_recv.sends")
    if cached is not None:
        return cached
    out: list[_Send] = []
    for op in ctx.module.walk():
        if op.name != SEND or flag(op, "is_host_transfer"):
            continue
        p = read_pairs(op, ctx)
        payload = send_payload(op)
        if p.rows and payload is not None:
            out.append(_Send(op, channel_id(op), frozenset(p.rows), payload))
    ctx.cache["send_recv.sends"] = out
    return out


def _types(ts) -> str:
    return ", ".join(map(str, ts)) if ts else "nothing"


@rule("SHLO120", "send-recv-payload-mismatch", on=RECV, spec="send/recv payload")
def send_recv_payload_mismatch(op: Operation, ctx: Context) -> Iterator[Diagnostic]:
    """A recv declares payload types other than what the matching send sends.

    ## What it does
    For each device-to-device recv, finds the sends on the same channel whose
    `source_target_pairs` share a (source, target) pair with it, and checks that
    the recv's payload result types equal the send's payload operand types
    (count, shapes, element types). Reported at the recv, with a note at the send.

    ## Why is this bad?
    The receiving process reads a buffer of the size it declared while the
    sender wrote another size: garbage, a crash, or a transfer that never
    completes. JAX does not check this: `jax.lax.precv(tok, out_shape, ...)`
    trusts `out_shape`.

    ## Example
    ```mlir
    %t = "stablehlo.send"(%x, %tok) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>,
        source_target_pairs = dense<[[0, 1]]> : tensor<1x2xi64>}>
        : (tensor<4xf32>, !stablehlo.token) -> !stablehlo.token
    %r:2 = "stablehlo.recv"(%t) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>,
        source_target_pairs = dense<[[0, 1]]> : tensor<1x2xi64>}>
        : (!stablehlo.token) -> (tensor<8xf32>, !stablehlo.token)
    ```

    ## Use instead
    Declare what is sent: `precv(tok, jax.ShapeDtypeStruct(x.shape, x.dtype), ...)`,
    i.e. `-> (tensor<4xf32>, !stablehlo.token)`.
    """
    if flag(op, "is_host_transfer"):
        return
    p = read_pairs(op, ctx)
    payload = recv_payload(op)
    if not p.rows or payload is None:
        return
    mine = set(p.rows)
    ch = channel_id(op)
    bad = []
    for s in _sends(ctx):
        if s.channel != ch or not (s.pairs & mine):
            continue
        if len(s.payload) != len(payload) or not all(compatible(a, b) for a, b in zip(s.payload, payload)):
            bad.append(s)
    if not bad:
        return
    first = bad[0]
    d = ctx.error(op, f"recv: payload type ({_types(payload)}) differs from the matching send's "
                      f"({_types(first.payload)})", op=op,
                  help="declare the recv's results as the types the send sends (JAX does not check precv's out_shape)")
    for s in bad:
        shared = sorted(s.pairs & mine)
        pair_text = ", ".join(f"[{a}, {b}]" for a, b in shared[:3]) + (" ..." if len(shared) > 3 else "")
        d = d.note(ctx.loc(s.op), f"matching send is here, sending ({_types(s.payload)}) on channel {ch}, pairs "
                                  f"{pair_text}")
    yield d
