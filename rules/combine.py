"""Combiner hints (seed 001): independent collectives an XLA-style combiner would merge.

XLA's AllReduceCombiner / AllGatherCombiner / ReduceScatterCombiner
(`CombineInstructionsByKey`) walk a computation in post order and gather
instructions with an equal key into one combined op while

* neither depends on the other (reachability),
* each is at most `combine_threshold_bytes` and the running total stays within
  it, and
* the group holds at most `combine_threshold_count` ops.

The key is the opcode, the reduction (add, max, ...; a one-op region), the
element type, the replica groups, whether there is a channel,
use_global_device_ids, and for all_gather the gather dimension (for
reduce_scatter the scatter dimension). Ops with more than one operand are
skipped, as XLA does.

Here the "computation" is one block: the candidates are the block's own ops,
and reachability is def-use between the block's ops read from their text
(analysis.semantics.BlockFlow: no header parse, regions included), searched
backwards from each candidate and bounded below by the group's first member.
The keys and the grouping are checker/analysis/combining.py's, which the
compiled-HLO hint (SHLO641, rules/xla_comm.py) reads too.
Options: `combine-threshold-bytes` (default 30 MiB, XLA's GPU default),
`combine-threshold-count` (default 256), `combine-scan-limit` (default 20000:
a dependence search visiting more ops counts as dependent, so the cost stays
bounded), `combine-fix-span` (default 5000: the fix is offered for groups
spanning at most this many ops).
"""
from __future__ import annotations

import re
from typing import Iterator

from shlo_lint.checker.analysis.combining import Group
from shlo_lint.checker.lint.context import Context
from shlo_lint.checker.source.diagnostics import Diagnostic, Edit, Fix
from shlo_lint.checker.ir.core import Block, Operation
from shlo_lint.checker.lint.registry import Reuse, rule
from shlo_lint.checker.analysis.semantics import BlockFlow
from shlo_lint.checker.source.text import Span

from .support.combiner_groups import block_combining, key_words
from .support.overlap_work import flow
from .support.shapes import op_label

ALL_REDUCE = "stablehlo.all_reduce"
ALL_GATHER = "stablehlo.all_gather"
REDUCE_SCATTER = "stablehlo.reduce_scatter"
FIX_SPAN = 5_000
_KIND = {ALL_REDUCE: "all_reduce", ALL_GATHER: "all_gather", REDUCE_SCATTER: "reduce_scatter"}
_SIDE_EFFECTS = re.compile(r"stablehlo\.(send|recv|custom_call|infeed|outfeed|all_|reduce_scatter|collective_|"
                           r"rng|while|if|case|optimization_barrier)|func\.call|async|tessera|sdy\.")


def combine_groups(ctx: Context, block: Block, name: str) -> list[Group]:
    """XLA's CombineInstructionsByKey over the `name` ops of one block
    (checker/analysis/combining.py, with the `combine-*` options)."""
    kind = _KIND[name]
    return [g for g in block_combining(ctx, block).groups if g.key[0] == kind]


# ----------------------------------------------------------------------------- the fix
_SIG = re.compile(r"^\)\s*:\s*\((?P<ins>.*)\)\s*->\s*(?P<outs>.+?)(?P<loc>\s+loc\(.*\))?\s*$", re.S)


def _line_span(text: str, op: Operation) -> Span | None:
    """The op's whole lines (indentation to newline), when nothing else shares them."""
    start = text.rfind("\n", 0, op.span.start) + 1
    end = text.find("\n", op.span.end)
    end = len(text) if end < 0 else end
    if text[start:op.span.start].strip() or text[op.span.end:end].strip():
        return None
    return Span(start, min(len(text), end + 1))


def all_reduce_fix(ctx: Context, f: BlockFlow, group: Group) -> Fix | None:
    """Rewrite the group into one variadic all_reduce at the last member's place;
    ops in between that depend on a member move after it (in order)."""
    text = ctx.source.text
    first_i, last_i = group.members[0], group.members[-1]
    if last_i - first_i > int(ctx.option("combine-fix-span", FIX_SPAN)):
        return None
    # Ops between the members that depend on one must follow the combined op.
    inside = set(group.members)
    tainted: set[str] = set(f.defs(first_i))
    moved: list[int] = []
    for j in range(first_i + 1, last_i):
        if j in inside:
            tainted.update(f.defs(j))
        elif not tainted.isdisjoint(f.mentions(j)):
            moved.append(j)
            tainted.update(f.defs(j))
    ops = [f.ops[i] for i in group.members]
    parts = []
    for op in ops:
        h = op.header
        if (not h.generic or len(op.result_names) != 1 or op.result_names[0][1] != 1 or len(h.operands) != 1
                or len(op.regions) != 1 or not op.region_spans):
            return None
        m = _SIG.match(text[op.region_spans[0].end:op.span.end])
        if m is None or "," in m.group("ins") or m.group("outs").startswith("("):
            return None
        parts.append((op.result_names[0][0], h.operands[0][0], m.group("ins").strip(), m.group("outs").strip()))
    lines = [_line_span(text, f.ops[i]) for i in group.members + moved]
    if any(s is None for s in lines):
        return None
    first, last = ops[0], ops[-1]
    h = first.header
    operand_end = h.operands[0][1].end
    close = text.find(")", operand_end, first.region_spans[0].start)
    if close < 0:
        return None
    head = text[h.name_span.start:h.operands[0][1].start]           # `"stablehlo.all_reduce"(`
    middle = text[close:first.region_spans[0].end]                   # `) <{...}> ({ ... }`
    loc = _SIG.match(text[first.region_spans[0].end:first.span.end]).group("loc") or ""
    indent = text[text.rfind("\n", 0, last.span.start) + 1:last.span.start]
    combined = (f"{indent}{', '.join(p[0] for p in parts)} = {head}{', '.join(p[1] for p in parts)}{middle}) : "
                f"({', '.join(p[2] for p in parts)}) -> ({', '.join(p[3] for p in parts)}){loc}\n")
    moved_text = "".join(text[s.start:s.end] for s in lines[len(ops):])
    if moved_text and not moved_text.endswith("\n"):
        moved_text += "\n"
    edits = [Edit.delete(s) for s in lines[:len(ops) - 1]]
    edits += [Edit.delete(s) for s in lines[len(ops):]]
    edits.append(Edit(lines[len(ops) - 1], combined + moved_text))
    title = f"Combine the {len(ops)} all_reduces into one variadic all_reduce"
    risky = any(_SIDE_EFFECTS.search(f.ops[j].name) for j in moved) or _spmd(ctx)
    return Fix.unsafe(title, edits) if risky else Fix.safe(title, edits)


def _spmd(ctx: Context) -> bool:
    """A partitioned program (num_partitions > 1): XLA's SPMD partitioner accepts only
    single-operand all_reduces in manual (shard_map) mode, so the rewrite may not compile."""
    return (ctx.grid.num_partitions or 1) > 1


# ----------------------------------------------------------------------------- reporting
def _size(n: int) -> str:
    for unit, div in (("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= div:
            return f"{n / div:.1f} {unit}".replace(".0 ", " ")
    return f"{n} B"


def _report(op: Operation, ctx: Context, with_fix: bool) -> Iterator[Diagnostic]:
    block = op.parent
    if block is None or (block.parent.parent is not None and block.parent.parent.name == "stablehlo.async_start"):
        return
    groups = combine_groups(ctx, block, op.name)
    if not groups:
        return
    f: BlockFlow = flow(ctx, block)
    firsts = ctx.cache.setdefault("combine.firsts", {})
    table = firsts.get(id(groups))
    if table is None:
        table = firsts[id(groups)] = {id(f.ops[g.members[0]]): g for g in groups}
    g = table.get(id(op))
    if g is not None:
        n = len(g.members)
        kind = op_label(op)
        d = ctx.diag(op, f"{kind}: {n} independent {kind}s ({_size(g.bytes)} in total) could be one variadic "
                         f"{kind}, saving {n - 1} collective{'s' if n > 2 else ''}")
        d = d.note(ctx.loc(op), f"an XLA-style combiner would merge them: they share {key_words(g.key, op)}")
        for j in g.members[1:9]:
            d = d.note(ctx.loc(f.ops[j]), f"combinable with the {kind} at line "
                                          f"{ctx.source.line_col(op.span.start)[0]}")
        if with_fix:
            fix = all_reduce_fix(ctx, f, g)
            if fix is not None:
                d = d.with_fix(fix)
        verb = {ALL_REDUCE: "psum", ALL_GATHER: "all_gather", REDUCE_SCATTER: "psum_scatter"}[op.name]
        yield d.with_help(f"issue them as one collective: in JAX, {verb} one flat buffer (e.g. the values "
                          f"concatenated, or jax.flatten_util.ravel_pytree of them) instead of one array at a time")


@rule("SHLO631", "combinable-all-reduces", category="performance", severity="info", on=ALL_REDUCE, reuse=Reuse.BLOCK,
      front_ends=("stablehlo",))
def combinable_all_reduces(op: Operation, ctx: Context) -> Iterator[Diagnostic]:
    """Independent all_reduces that an XLA-style combiner would merge into one.

    ## What it does
    Runs XLA's combiner algorithm (seed 001, `CombineInstructionsByKey`) over
    each block: all_reduces with the same reduction, element type, replica
    groups, channel presence and use_global_device_ids, none reachable from
    another through def-use, each at most `combine-threshold-bytes` (30 MiB)
    and together within it and `combine-threshold-count` (256). Reported once
    per group, at its first member, with the total bytes and the number of
    collectives combining saves.

    Not run on HLO text (`front_ends`): a compiled module has been through
    XLA's combiners already, so that a combiner *would* merge its ops is not
    what happened to them.

    ## Why is this bad?
    Every collective pays a fixed launch and synchronisation latency (a
    rendezvous of every process in the group) however small its payload; many
    small all_reduces are latency-bound. XLA combines them when its combiner
    runs with these thresholds, but a schedule you control (async starts,
    other flags, other backends) keeps them separate, and a large program
    shows the cost as many tiny collectives in the profile.

    ## Example
    ```mlir
    %2 = "stablehlo.all_reduce"(%1) <{replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>}> ({ add }) : (tensor<4xf32>) -> tensor<4xf32>
    %4 = "stablehlo.all_reduce"(%3) <{replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>}> ({ add }) : (tensor<8xf32>) -> tensor<8xf32>
    ```

    ## Use instead
    ```mlir
    %2, %4 = "stablehlo.all_reduce"(%1, %3) <{replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>}> ({ add })
        : (tensor<4xf32>, tensor<8xf32>) -> (tensor<4xf32>, tensor<8xf32>)
    ```
    In JAX, psum one flat buffer: concatenate the small arrays (or
    `jax.flatten_util.ravel_pytree` a gradient pytree), `lax.psum` it once and
    split the result. (`lax.psum((a, b), "x")` does not help: JAX lowers it to
    one all_reduce per array, because XLA's SPMD partitioner accepts only
    single-operand all_reduces in shard_map's manual mode.)

    ## Fix safety
    The fix writes one variadic all_reduce (the first member's attributes and
    reduction region, every member's operand, result names kept so no use
    changes) at the last member's place, and moves the ops between the members
    that depend on an earlier member to just after it, in order. Each operand
    is reduced exactly as before, so the values are the same (a test runs both
    programs on 8 CPU replicas). It is unsafe when an op that has to move has
    side effects or regions (send/recv, a collective, a call, a loop), and in a
    partitioned program (num_partitions > 1): XLA's SPMD partitioner rejects
    multi-operand all_reduces in manual (shard_map) mode, so the result may not
    compile there. Offered for the generic form (`"stablehlo.all_reduce"(...)`)
    with one operand per member, when the group spans at most
    `combine-fix-span` ops (default 5000).
    """
    yield from _report(op, ctx, with_fix=True)


@rule("SHLO632", "combinable-all-gathers", category="performance", severity="info", on=ALL_GATHER, reuse=Reuse.BLOCK,
      front_ends=("stablehlo",))
def combinable_all_gathers(op: Operation, ctx: Context) -> Iterator[Diagnostic]:
    """Independent all_gathers that an XLA-style combiner would merge into one.

    ## What it does
    As SHLO631, for `all_gather`: the key is the element type, replica groups,
    channel presence, use_global_device_ids and `all_gather_dim` (XLA's
    AllGatherCombiner combines by dimension); the byte size is the gathered
    result's. Not run on HLO text, as SHLO631.

    ## Why is this bad?
    Each all_gather is a rendezvous with a fixed latency; many small ones
    (sequence-parallel activations gathered one tensor at a time) are
    latency-bound where one larger gather would be bandwidth-bound.

    ## Example
    ```mlir
    %a = "stablehlo.all_gather"(%x) <{all_gather_dim = 0 : i64, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>}> : (tensor<2xf32>) -> tensor<4xf32>
    %b = "stablehlo.all_gather"(%y) <{all_gather_dim = 0 : i64, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>}> : (tensor<3xf32>) -> tensor<6xf32>
    ```

    ## Use instead
    One variadic all_gather over both operands; in JAX, `lax.all_gather` on a
    tuple of arrays, or gather a concatenation once.

    ## Fix safety
    No fix (the rewrite is offered for all_reduce only).
    """
    yield from _report(op, ctx, with_fix=False)


@rule("SHLO633", "combinable-reduce-scatters", category="performance", severity="info", on=REDUCE_SCATTER,
      reuse=Reuse.BLOCK, front_ends=("stablehlo",))
def combinable_reduce_scatters(op: Operation, ctx: Context) -> Iterator[Diagnostic]:
    """Independent reduce_scatters that an XLA-style combiner would merge into one.

    ## What it does
    As SHLO631, for `reduce_scatter`: the key adds `scatter_dimension` to the
    all_reduce key (XLA's ReduceScatterCombiner combines by dimension); the
    byte size is the scattered result's. Not run on HLO text, as SHLO631.

    ## Why is this bad?
    Each reduce_scatter pays a rendezvous latency; gradients reduce-scattered
    one parameter at a time (ZeRO / FSDP style) are latency-bound.

    ## Example
    ```mlir
    %a = "stablehlo.reduce_scatter"(%x) <{scatter_dimension = 0 : i64, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>}> ({ add }) : (tensor<4xf32>) -> tensor<2xf32>
    %b = "stablehlo.reduce_scatter"(%y) <{scatter_dimension = 0 : i64, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>}> ({ add }) : (tensor<8xf32>) -> tensor<4xf32>
    ```

    ## Use instead
    One reduce_scatter of the concatenated values; in JAX, `lax.psum_scatter`
    on a flattened, concatenated gradient buffer.

    ## Fix safety
    No fix (the rewrite is offered for all_reduce only).
    """
    yield from _report(op, ctx, with_fix=False)
