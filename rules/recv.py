"""`stablehlo.recv`: source_target_pairs C1–C4, channel type C5, host transfers, results (SHLO111-118).

Shared pair and channel helpers are in rules/send_recv.py; labels follow the
current StableHLO spec (docs/conformance.md).
"""
from __future__ import annotations

from typing import Iterator

from shlo_lint.checker.lint.context import Context
from shlo_lint.checker.source.diagnostics import Diagnostic
from shlo_lint.checker.ir.core import Operation
from shlo_lint.checker.lint.registry import Reuse, rule
from shlo_lint.checker.analysis.semantics import flag
from shlo_lint.checker.ir.types import TensorType

from .support.pairs import (DEVICE_TO_DEVICE, HOST_TO_DEVICE, RECV, RECV_READING, channel_type_diag, host_pairs_diag,
                            is_token, missing_pairs_diag, pairs_range_diags, pairs_shape_diags, pairs_unique_diags)


@rule("SHLO111", "recv-pairs-bad-shape", on=RECV, spec="recv C1", reuse=Reuse.OP)
def recv_pairs_bad_shape(op: Operation, ctx: Context) -> Iterator[Diagnostic]:
    """A recv's `source_target_pairs` is not a [k, 2] si64 constant.

    ## What it does
    Checks recv C1: `dim(source_target_pairs, 1) = 2`; a 2-dimensional si64
    constant with one (source, target) row per pair.

    ## Why is this bad?
    XLA cannot tell which process receives from which. The spec requires the
    [k, 2] shape (I5, C1); the 1.20 verifier does not read send/recv pairs at
    all. An empty `dense<[]> : tensor<0xi64>` is read as empty pairs, not as a
    wrong shape (the spec's "None or empty"; StableHLO's own tests write host
    transfers that way): SHLO116 reports it on a device transfer.

    ## Example
    ```mlir
    %r:2 = "stablehlo.recv"(%tok) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>,
        source_target_pairs = dense<[[0, 1, 2]]> : tensor<1x3xi64>}>
        : (!stablehlo.token) -> (tensor<4xf32>, !stablehlo.token)
    ```

    ## Use instead
    ```mlir
    source_target_pairs = dense<[[0, 1], [1, 2]]> : tensor<2x2xi64>
    ```
    (`jax.lax.precv(tok, out_shape, axis_name, perm=[(0, 1), (1, 2)])`).
    """
    yield from pairs_shape_diags(op, ctx)


@rule("SHLO112", "recv-duplicate-source", on=RECV, spec="recv C2", reuse=Reuse.OP)
def recv_duplicate_source(op: Operation, ctx: Context) -> Iterator[Diagnostic]:
    """A process is the source of two pairs of one recv.

    ## What it does
    Checks recv C2: `is_unique(source_target_pairs[:, 0])`.

    ## Why is this bad?
    A source sends one buffer per op; two receivers expecting it cannot both be
    served, and one recv hangs.

    ## Example
    ```mlir
    %r:2 = "stablehlo.recv"(%tok) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>,
        source_target_pairs = dense<[[0, 1], [0, 2]]> : tensor<2x2xi64>}>
        : (!stablehlo.token) -> (tensor<4xf32>, !stablehlo.token)
    ```

    ## Use instead
    The same pairs as the matching send, a (partial) permutation:
    `dense<[[0, 1], [1, 2]]>`.
    """
    yield from pairs_unique_diags(op, ctx, 0)


@rule("SHLO113", "recv-duplicate-target", on=RECV, spec="recv C3", reuse=Reuse.OP)
def recv_duplicate_target(op: Operation, ctx: Context) -> Iterator[Diagnostic]:
    """A process is the target of two pairs of one recv.

    ## What it does
    Checks recv C3: `is_unique(source_target_pairs[:, 1])`.

    ## Why is this bad?
    The recv yields one buffer per process; a second source for the same target
    is undefined, and its send never completes.

    ## Example
    ```mlir
    %r:2 = "stablehlo.recv"(%tok) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>,
        source_target_pairs = dense<[[0, 2], [1, 2]]> : tensor<2x2xi64>}>
        : (!stablehlo.token) -> (tensor<4xf32>, !stablehlo.token)
    ```

    ## Use instead
    Receive from the second source with a second recv on another channel, or
    fix the permutation: `dense<[[0, 1], [1, 2]]>`.
    """
    yield from pairs_unique_diags(op, ctx, 1)


@rule("SHLO114", "recv-id-out-of-range", on=RECV, spec="recv C4", reuse=Reuse.OP)
def recv_id_out_of_range(op: Operation, ctx: Context) -> Iterator[Diagnostic]:
    """A recv's `source_target_pairs` names a process id outside [0, N).

    ## What it does
    Checks recv C4: `0 <= source_target_pairs < N`, N = `num_partitions` when
    channel_id > 0 (cross_partition), else `num_replicas` (cross_replica). Without
    a known grid only negative ids are reported.

    ## Why is this bad?
    The recv waits for a process that does not exist: a hang, or XLA rejects the
    program.

    ## Example
    ```mlir
    module attributes {mhlo.num_partitions = 2 : i32, mhlo.num_replicas = 1 : i32} {
      ...
      %r:2 = "stablehlo.recv"(%tok) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>,
          source_target_pairs = dense<[[1, 2]]> : tensor<1x2xi64>}>
          : (!stablehlo.token) -> (tensor<4xf32>, !stablehlo.token)
    ```

    ## Use instead
    Ids below the axis size: `dense<[[1, 0]]>` (`precv(..., perm=[(1, 0)])`).
    """
    yield from pairs_range_diags(op, ctx, "recv C4")




@rule("SHLO115", "recv-channel-type-mismatch", on=RECV, spec="recv C5", reuse=Reuse.OP)
def recv_channel_type_mismatch(op: Operation, ctx: Context) -> Iterator[Diagnostic]:
    """A recv's channel type disagrees with `is_host_transfer`.

    ## What it does
    Checks recv C5: the `channel_handle` type is HOST_TO_DEVICE (3) when
    `is_host_transfer = true` and DEVICE_TO_DEVICE (1) otherwise. The 2025 RFC
    that added `source_target_pairs` (seed 000) reads "DEVICE_TO_HOST if
    is_host_transfer = true" for recv too; the current StableHLO spec and the
    reference verifier use HOST_TO_DEVICE (data flows from the host into the
    device), and that reading is enforced. The RFC's own recv example
    (`type = 3`, `is_host_transfer = false`) violates C5 under either reading.
    Type 0 (CHANNEL_TYPE_INVALID) and a missing `channel_handle` are reported too.

    ## Why is this bad?
    XLA lowers host and device transfers to different runtimes; with the fields
    disagreeing the verifier rejects the op, or the recv waits on the wrong kind
    of channel.

    ## Example
    ```mlir
    %r:2 = "stablehlo.recv"(%tok) {
      source_target_pairs = dense<[[0, 1], [1, 2]]> : tensor<2x2xi64>,
      channel_handle = #stablehlo.channel_handle<handle = 1, type = 3>,
      is_host_transfer = false
    } : (!stablehlo.token) -> (tensor<2x2xi64>, !stablehlo.token)
    ```

    ## Use instead
    `type = 1` for a device-to-device recv, or `is_host_transfer = true` with
    `type = 3` for data coming from the host.

    ## Fix safety
    The fix sets the type from `is_host_transfer`; it is unsafe because the flag
    may be the field that is wrong.
    """
    host = flag(op, "is_host_transfer")
    expected = HOST_TO_DEVICE if host else DEVICE_TO_DEVICE
    yield from channel_type_diag(op, ctx, expected, RECV_READING if host else "")


@rule("SHLO116", "recv-missing-pairs", severity="warning", on=RECV, spec="recv semantics", reuse=Reuse.OP)
def recv_missing_pairs(op: Operation, ctx: Context) -> Iterator[Diagnostic]:
    """A device-to-device recv has no (or empty) `source_target_pairs`.

    ## What it does
    Reports a recv with `is_host_transfer = false` whose `source_target_pairs`
    is absent or empty.

    ## Why is this bad?
    Undefined behaviour per the RFC (seed 000): nothing says which process the
    data comes from.

    ## Example
    ```mlir
    %r:2 = "stablehlo.recv"(%tok) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>}>
        : (!stablehlo.token) -> (tensor<4xf32>, !stablehlo.token)
    ```

    ## Use instead
    The same pairs as the matching send:
    `source_target_pairs = dense<[[0, 1]]> : tensor<1x2xi64>`.
    """
    yield from missing_pairs_diag(op, ctx)


@rule("SHLO117", "recv-pairs-on-host-transfer", severity="warning", on=RECV, spec="recv semantics", reuse=Reuse.OP)
def recv_pairs_on_host_transfer(op: Operation, ctx: Context) -> Iterator[Diagnostic]:
    """A host-transfer recv carries `source_target_pairs`, which are ignored.

    ## What it does
    Reports a recv with `is_host_transfer = true` and non-empty pairs.

    ## Why is this bad?
    The data comes from the host whatever the pairs say; a device that sends to
    this recv is never received from, and hangs.

    ## Example
    ```mlir
    %r:2 = "stablehlo.recv"(%tok) {
      source_target_pairs = dense<[[0, 1]]> : tensor<1x2xi64>,
      channel_handle = #stablehlo.channel_handle<handle = 1, type = 3>,
      is_host_transfer = true
    } : (!stablehlo.token) -> (tensor<4xf32>, !stablehlo.token)
    ```

    ## Use instead
    Drop the pairs on a host transfer, or make it a device transfer.
    """
    yield from host_pairs_diag(op, ctx)


@rule("SHLO118", "recv-bad-results", on=RECV, spec="recv results", reuse=Reuse.OP)
def recv_bad_results(op: Operation, ctx: Context) -> Iterator[Diagnostic]:
    """A recv's results are not payload tensors followed by exactly one token (or its operand is not a token).

    ## What it does
    Checks the recv signature: one `!stablehlo.token` operand; results are the
    payload tensors first and a single `!stablehlo.token` last (the spec's
    `results` constraints, numbered C2–C4 before the 2025 RFC renumbered them).
    The payload tensors have static shapes (the StableHLO 1.20 verifier's
    result type; the seed RFC said nothing of it, and shlo-lint before 0.6
    accepted `tensor<?xf32>`). Per-axis quantized payloads are allowed.

    ## Why is this bad?
    The verifier rejects it; consumers of the token and of the payload are
    mis-wired.

    ## Example
    ```mlir
    %r:2 = "stablehlo.recv"(%tok) <{...}> : (!stablehlo.token) -> (!stablehlo.token, tensor<4xf32>)
    ```

    ## Use instead
    ```mlir
    %r:2 = "stablehlo.recv"(%tok) <{...}> : (!stablehlo.token) -> (tensor<4xf32>, !stablehlo.token)
    ```
    """
    operands = op.operand_types
    if len(op.header.operands) != 1:
        yield ctx.error(op, f"recv: expected exactly one operand (a token), got {len(op.header.operands)}", op=op)
    elif operands and operands[0] is not None and not is_token(operands[0]):
        yield ctx.error(op, f"recv: operand must be a !stablehlo.token, got {operands[0]}", op=op)
    results = op.result_types
    if not results:
        if op.num_results == 0:
            yield ctx.error(op, "recv: no results; expected the payload tensors and a token last", op=op)
        return
    if not is_token(results[-1]):
        yield ctx.error(op, f"recv: last result must be a !stablehlo.token, got {results[-1]}", op=op)
    for i, t in enumerate(results[:-1]):
        if is_token(t):
            yield ctx.error(op, f"recv: result #{i} is a token; only the last result may be one "
                                f"(payload results are tensors)", op=op)
        elif isinstance(t, TensorType) and t.shape is not None and None in t.shape:
            # StableHLO 1.20: recv results are statically shaped tensors (the
            # ODS type HLO_StaticShapeTensorOrPerAxisQuantizedTensorOrToken).
            yield ctx.error(op, f"recv: result #{i} has the dynamic type {t}; received tensors must have a "
                                f"static shape", op=op)
