"""`stablehlo.send`: source_target_pairs C1–C4, channel type C5, host transfers, operands (SHLO101-108).

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

from .support.pairs import (DEVICE_TO_DEVICE, DEVICE_TO_HOST, SEND, channel_type_diag, host_pairs_diag, is_token,
                            missing_pairs_diag, pairs_range_diags, pairs_shape_diags, pairs_unique_diags)


@rule("SHLO101", "send-pairs-bad-shape", on=SEND, spec="send C1", reuse=Reuse.OP)
def send_pairs_bad_shape(op: Operation, ctx: Context) -> Iterator[Diagnostic]:
    """A send's `source_target_pairs` is not a [k, 2] si64 constant.

    ## What it does
    Checks send C1: `dim(source_target_pairs, 1) = 2`; the attribute is a
    2-dimensional si64 tensor constant with one (source, target) row per pair.

    ## Why is this bad?
    XLA cannot tell which process sends to which. The spec requires the [k, 2]
    shape (I6, C1); the 1.20 verifier does not read send/recv pairs at all. An
    empty `dense<[]> : tensor<0xi64>` is read as empty pairs, not as a wrong
    shape (the spec's "None or empty"; StableHLO's own tests write host
    transfers that way): SHLO106/SHLO116 report it on a device transfer.

    ## Example
    ```mlir
    %t = "stablehlo.send"(%x, %tok) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>,
        source_target_pairs = dense<[0, 1, 1, 2]> : tensor<4xi64>}>
        : (tensor<4xf32>, !stablehlo.token) -> !stablehlo.token
    ```

    ## Use instead
    ```mlir
    source_target_pairs = dense<[[0, 1], [1, 2]]> : tensor<2x2xi64>
    ```
    In JAX, `jax.lax.psend(x, axis_name, perm=[(0, 1), (1, 2)])` writes it for you.
    """
    yield from pairs_shape_diags(op, ctx)


@rule("SHLO102", "send-duplicate-source", on=SEND, spec="send C2", reuse=Reuse.OP)
def send_duplicate_source(op: Operation, ctx: Context) -> Iterator[Diagnostic]:
    """A process is the source of two pairs of one send.

    ## What it does
    Checks send C2: `is_unique(source_target_pairs[:, 0])`. The message names the
    rows that repeat the source.

    ## Why is this bad?
    One send moves one buffer per process; a second destination for the same
    source is undefined, and the recv waiting for it hangs.

    ## Example
    ```mlir
    %t = "stablehlo.send"(%x, %tok) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>,
        source_target_pairs = dense<[[0, 1], [0, 2]]> : tensor<2x2xi64>}>
        : (tensor<4xf32>, !stablehlo.token) -> !stablehlo.token
    ```

    ## Use instead
    Send to the second target with a second send on another channel (and a
    matching recv), or fix the permutation: `psend(x, "x", perm=[(0, 1), (1, 2)])`.
    """
    yield from pairs_unique_diags(op, ctx, 0)


@rule("SHLO103", "send-duplicate-target", on=SEND, spec="send C3", reuse=Reuse.OP)
def send_duplicate_target(op: Operation, ctx: Context) -> Iterator[Diagnostic]:
    """A process is the target of two pairs of one send.

    ## What it does
    Checks send C3: `is_unique(source_target_pairs[:, 1])`.

    ## Why is this bad?
    The target's recv receives one buffer; two senders to it race, and one of
    them never completes.

    ## Example
    ```mlir
    %t = "stablehlo.send"(%x, %tok) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>,
        source_target_pairs = dense<[[0, 2], [1, 2]]> : tensor<2x2xi64>}>
        : (tensor<4xf32>, !stablehlo.token) -> !stablehlo.token
    ```

    ## Use instead
    Make the pairs a (partial) permutation: every target at most once, e.g.
    `dense<[[0, 1], [1, 2]]>`. To gather from several sources use `all_gather`.
    """
    yield from pairs_unique_diags(op, ctx, 1)


@rule("SHLO104", "send-id-out-of-range", on=SEND, spec="send C4", reuse=Reuse.OP)
def send_id_out_of_range(op: Operation, ctx: Context) -> Iterator[Diagnostic]:
    """A send's `source_target_pairs` names a process id outside [0, N).

    ## What it does
    Checks send C4: `0 <= source_target_pairs < N`, with N = `num_partitions`
    when channel_id > 0 (cross_partition) and `num_replicas` otherwise
    (cross_replica). N comes from the module's `mhlo.num_partitions` /
    `mhlo.num_replicas` or the command line; without it only negative ids are
    reported (`-1` padding, allowed in replica_groups, is not allowed here).

    ## Why is this bad?
    There is no such process: XLA rejects the program or the send waits forever
    for a peer that does not exist.

    ## Example
    ```mlir
    module attributes {mhlo.num_partitions = 4 : i32, mhlo.num_replicas = 1 : i32} {
      ...
      %t = "stablehlo.send"(%x, %tok) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>,
          source_target_pairs = dense<[[3, 4]]> : tensor<1x2xi64>}>
          : (tensor<4xf32>, !stablehlo.token) -> !stablehlo.token
    ```

    ## Use instead
    Ids modulo the axis size, e.g. the ring `perm=[(i, (i + 1) % n) for i in range(n)]`
    in `jax.lax.psend`.
    """
    yield from pairs_range_diags(op, ctx, "send C4")


@rule("SHLO105", "send-channel-type-mismatch", on=SEND, spec="send C5", reuse=Reuse.OP)
def send_channel_type_mismatch(op: Operation, ctx: Context) -> Iterator[Diagnostic]:
    """A send's channel type disagrees with `is_host_transfer`.

    ## What it does
    Checks send C5: the `channel_handle` type is DEVICE_TO_HOST (2) when
    `is_host_transfer = true` and DEVICE_TO_DEVICE (1) otherwise. Type 0
    (CHANNEL_TYPE_INVALID) is never valid on a send: `jax.export` writes
    `type = 0` on all_reduce, never on send/recv, so it is reported here. A send
    with no `channel_handle` is reported too.

    ## Why is this bad?
    XLA lowers host transfers and device-to-device transfers to different
    runtimes; with the two fields disagreeing the verifier rejects the op.

    ## Example
    ```mlir
    %t = "stablehlo.send"(%x, %tok) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 2>,
        source_target_pairs = dense<[[0, 1]]> : tensor<1x2xi64>}>
        : (tensor<4xf32>, !stablehlo.token) -> !stablehlo.token
    ```

    ## Use instead
    ```mlir
    channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>
    ```
    (or `is_host_transfer = true` if the data really goes to the host).

    ## Fix safety
    The fix sets the type from `is_host_transfer`; it is unsafe because the flag
    may be the field that is wrong.
    """
    expected = DEVICE_TO_HOST if flag(op, "is_host_transfer") else DEVICE_TO_DEVICE
    yield from channel_type_diag(op, ctx, expected)


@rule("SHLO106", "send-missing-pairs", severity="warning", on=SEND, spec="send semantics", reuse=Reuse.OP)
def send_missing_pairs(op: Operation, ctx: Context) -> Iterator[Diagnostic]:
    """A device-to-device send has no (or empty) `source_target_pairs`.

    ## What it does
    Reports a send with `is_host_transfer = false` (the default) whose
    `source_target_pairs` is absent or empty (`dense<> : tensor<0x2xi64>`,
    `dense<[]> : tensor<0xi64>`).

    ## Why is this bad?
    The RFC that added the pairs (seed 000) says such a send was undefined
    behaviour: nothing says which process receives the data. Newer StableHLO
    deserialisers refuse it.

    ## Example
    ```mlir
    %t = "stablehlo.send"(%x, %tok) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>}>
        : (tensor<4xf32>, !stablehlo.token) -> !stablehlo.token
    ```

    ## Use instead
    ```mlir
    source_target_pairs = dense<[[0, 1], [1, 2]]> : tensor<2x2xi64>
    ```
    JAX's `psend(x, axis_name, perm)` always writes them.
    """
    yield from missing_pairs_diag(op, ctx)


@rule("SHLO107", "send-pairs-on-host-transfer", severity="warning", on=SEND, spec="send semantics", reuse=Reuse.OP)
def send_pairs_on_host_transfer(op: Operation, ctx: Context) -> Iterator[Diagnostic]:
    """A host-transfer send carries `source_target_pairs`, which are ignored.

    ## What it does
    Reports a send with `is_host_transfer = true` and a non-empty
    `source_target_pairs`.

    ## Why is this bad?
    A host transfer goes to the host whatever the pairs say; the pairs suggest a
    device-to-device exchange that never happens, and the peer's recv hangs.

    ## Example
    ```mlir
    %t = "stablehlo.send"(%x, %tok) {
      source_target_pairs = dense<[[0, 1], [1, 2]]> : tensor<2x2xi64>,
      channel_handle = #stablehlo.channel_handle<handle = 1, type = 2>,
      is_host_transfer = true
    } : (tensor<2x2xi64>, !stablehlo.token) -> !stablehlo.token
    ```

    ## Use instead
    Drop the pairs for a host transfer, or make it a device transfer
    (`is_host_transfer = false`, channel type 1).
    """
    yield from host_pairs_diag(op, ctx)




@rule("SHLO108", "send-bad-operands", on=SEND, spec="send signature", reuse=Reuse.OP)
def send_bad_operands(op: Operation, ctx: Context) -> Iterator[Diagnostic]:
    """A send's operands are not payload tensors followed by one token, or its result is not a token.

    ## What it does
    Checks the send signature: `inputs` (I1, tensors) then `token` (I2) last, and
    a single `!stablehlo.token` result.

    ## Why is this bad?
    The token orders the send with other side effects; without it (or with the
    token in the wrong place) the op does not verify.

    ## Example
    ```mlir
    %t = "stablehlo.send"(%tok, %x) <{...}> : (!stablehlo.token, tensor<4xf32>) -> !stablehlo.token
    ```

    ## Use instead
    ```mlir
    %t = "stablehlo.send"(%x, %tok) <{...}> : (tensor<4xf32>, !stablehlo.token) -> !stablehlo.token
    ```
    """
    types = op.operand_types
    if types and all(t is not None for t in types):
        if not is_token(types[-1]):
            yield ctx.error(op, f"send: last operand must be a !stablehlo.token, got {types[-1]}", op=op)
        for i, t in enumerate(types[:-1]):
            if is_token(t):
                yield ctx.error(op, f"send: operand #{i} is a token; only the last operand may be one "
                                    f"(inputs are tensors)", op=op)
    elif not op.header.operands:
        yield ctx.error(op, "send: no operands; expected the payload tensors and a token", op=op)
    results = op.result_types
    if not results and op.header.generic:
        yield ctx.error(op, "send: no result; expected one !stablehlo.token", op=op)
    elif results and (len(results) != 1 or not is_token(results[0])):
        shown = ", ".join(map(str, results))
        yield ctx.error(op, f"send: result must be one !stablehlo.token, got ({shown})", op=op)
