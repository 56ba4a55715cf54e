"""What counts as work an in-flight collective could hide, one notion for the placement
hints on StableHLO (SHLO601-603, rules/overlap.py) and the hints on compiled HLO
(SHLO642, SHLO643, rules/xla_comm.py): not a constant or anything XLA folds into one,
not a start, update or done of any form, not a collective or send / recv (no
local computation), not a process-id read, not a handle
(tuple, get-tuple-element, bitcast), not a computation on scalars only (the
`partition_id → convert` of an `axis_index`, a branch predicate). Seed 004:
"Local computation should be executed while collectives are running in the
background"; XLA:GPU's GpuConvertAsyncCollectivesToSync makes a pair synchronous
when only parameters, constants, bitcasts and get-tuple-elements lie between its
start and its done."""
from __future__ import annotations

from shlo_lint.checker.analysis.pairing import DONE_OPS, START_OPS
from shlo_lint.checker.analysis.semantics import BlockFlow
from shlo_lint.checker.ir.catalog import COMMUNICATING, DONE, START, TERMINATORS, future_ends, names
from shlo_lint.checker.ir.core import Block, Operation
from shlo_lint.checker.ir.types import TensorType, TokenType
from shlo_lint.checker.lint.context import Context

FREE = frozenset({"stablehlo.constant", "arith.constant"}) | TERMINATORS
"""Ops that cost nothing to overlap with (or end the block)."""
def flow(ctx: Context, block: Block) -> BlockFlow:
    """The block's def-use, one per block and lint."""
    flows = ctx.cache.setdefault("overlap.flows", {})
    f = flows.get(id(block))
    if f is None:
        f = flows[id(block)] = BlockFlow(block)
    return f


ASYNC_OPS = START_OPS | DONE_OPS | names(role=START) | names(role=DONE) | future_ends(START) | future_ends(DONE) \
    | frozenset(n for n in names(forwards=True, prefix="hlo.") if n.endswith("-update"))
"""Every start, update and done, of every form (StableHLO's, tessera's, XLA's HLO,
its send / recv halves included)."""


def _work(op: Operation) -> bool:
    """Compute that could overlap a collective (not free, not another start/done,
    not communication itself: a collective is no local computation)."""
    return op.name not in FREE and op.name not in ASYNC_OPS and op.name not in COMMUNICATING


ID_OPS = frozenset({"stablehlo.partition_id", "stablehlo.replica_id", "stablehlo.create_token",
                    "stablehlo.after_all", "stablehlo.get_tuple_element", "stablehlo.tuple",
                    "hlo.tuple", "hlo.get-tuple-element", "hlo.bitcast"})
"""Ops that read the process id or move handles (a bitcast reinterprets a buffer in
place: XLA's GpuConvertAsyncCollectivesToSync counts it, get-tuple-element,
parameters and constants as nothing between a start and its done): nothing to
overlap a collective with."""


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


__all__ = ["ASYNC_OPS", "CONSTANT_SOURCES", "FREE", "ID_OPS", "constant_only", "flow", "hides"]
