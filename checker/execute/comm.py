"""Communication with the specification's semantics (SPEC-NOTES §2, §5), matched
the way the static deadlock model matches it (analysis/process_model/), so a
replayed counterexample blocks the same processes:

* A collective is a rendezvous of the caller's process group. The n-th arrival
  of each member with the same *matching key* meets the n-th arrival of the
  others; each member blocks until all have arrived. The key is the op itself
  (matching "spec"), or, for an op with a positive channel, its kind + channel +
  process groups (matching "xla", the default: XLA's runtime meets an
  all_reduce in each branch of a case when both use channel 1).
* collective_permute, under matching "xla", is a rendezvous of its whole
  process group like any collective (XLA's runtime waits for every device of
  the group, not only the pairs' ends: deadlock/model.py PERMUTE_RENDEZVOUS);
  under "spec" it sends its operand to its target without blocking and
  completes once its source has reached the same permute instance. Either way
  a process no pair targets gets zeros.
* send is buffered and never blocks; the n-th recv at t from s on a channel
  takes s's n-th send to t on that channel, blocking until it is sent. A process
  finishes only once each of its sends (and permute sends) has been received
  (XLA's send-done): otherwise it stays blocked at that send.
* async_start / `*_start`: under matching "xla" (the default) a start is an
  issue point like a synchronous collective: it blocks until every member has
  issued its matching start, and its done completes at once (XLA's runtime,
  issue_order.py). Under "spec" a start arrives without waiting and
  async_done / `*_done` wait for the started operation as its synchronous form
  would.
* A device-to-device send/recv pairs with its peers inside this program
  (their `source_target_pairs` name processes of this grid): a send nobody
  receives leaves its process blocked at the send, a recv nobody sends to
  blocks at the recv. Only host transfers (`is_host_transfer`) and channels
  declared external (`external-channels`: the other stages of an MPMD
  pipeline) talk to another program: such a send is delivered nowhere, such a
  recv cannot be executed. Inside `interpreter.run_parallel` (a test driver)
  host transfers go through its host queues between its processes, by channel.
"""
from __future__ import annotations

import numpy as np

from ..ir import catalog
from ..ir.catalog import COLLECTIVE_KINDS as CATALOG_COLLECTIVES, KINDS
from ..ir.core import Operation
from ..ir.types import TokenType
from ..analysis.semantics import (channel_id, flag, int_list, process_groups, replica_groups, source_target_pairs,
                                  strategy)
from ..analysis.process_model.model import xla_participants
from .issue_order import issue, waits_at_start
from .mesh_groups import mesh_axes_groups
from .ops.common import int_attr
from .ops.reduce import COMBINE as _COMBINE, binary_kind as _binary_kind
from .op_registry import OpFunctions, impl, register
from .runtime import Frame, fmt_pid
from .values import TOKEN, ExecutionError, Future, dtype_of, tensor_type

# The StableHLO collectives this module runs (the op catalog's, in its order).
COLLECTIVE_KINDS = tuple(k for k in KINDS if k in CATALOG_COLLECTIVES)
MATCHINGS = ("xla", "spec")


def parse_external_channels(value) -> frozenset[int]:
    """The `external-channels` option: `-O external-channels=1,3` (the string
    "1,3"), a config list `[1, 3]`, or one integer. ValueError for anything else."""
    if value is None or value == "" or value == []:
        return frozenset()
    if isinstance(value, bool):
        items: list = [value]
    elif isinstance(value, int):
        items = [value]
    elif isinstance(value, str):
        items = value.replace(",", " ").split()
    elif isinstance(value, (list, tuple, set, frozenset)):
        items = list(value)
    else:
        items = [value]
    out = set()
    for v in items:
        ok = not isinstance(v, bool) and isinstance(v, (int, str))
        if ok and isinstance(v, str):
            ok = v.strip().lstrip("-").isdigit()
        if not ok:
            raise ValueError(f"option external-channels = {value!r}: {v!r} is not a channel id (an integer); "
                             "write e.g. -O external-channels=1,3 or, in [tool.shlo-lint.options], "
                             "external-channels = [1, 3]")
        out.add(int(v))
    return frozenset(out)


def result_tensor_types(op: Operation) -> list:
    """The types of the values the op's communication produces: its results, futures
    unwrapped (`*_start` ops return future<T>); for HLO's `*-start` ops, whose
    result tuple also holds the operands (and a permute's context words), the
    outputs their done returns (hlo_outputs)."""
    types = op.result_types
    if catalog.info(op.name).future == "hlo":
        types = types[hlo_outputs(op)]
    out = []
    for i, t in enumerate(types):
        for tt in (getattr(t, "types", None) or (t,)):
            out.append(tensor_type(tt, f"result {i} of {op.name}"))
    return out


def hlo_outputs(op: Operation) -> slice:
    """Which leaves of an HLO `*-start`'s result are the outputs its done returns:
    all of an all-reduce-start's; the n after the n operands of an all-gather-start
    `(operands, outputs)` and a collective-permute-start `(operand, output, u32[],
    u32[])` (xla/hlo/ir/hlo_instructions.h: HloAllGatherInstruction,
    HloCollectivePermuteInstruction)."""
    n = len([v for v in op.operands if v is not None])
    return slice(0, None) if catalog.info(op.name).kind == "all_reduce" else slice(n, 2 * n)


from .comm_state import HostQueueWait, Message, MessageWait, Pid, Rendezvous, RendezvousWait, axis_id_of, peer_on_axis


# ----------------------------------------------------------------------------- ops
@register
class CommunicationFunctions(OpFunctions):
    """Collectives, collective_permute, send/recv, and the async forms that wrap them."""

    def __init__(self, interp):
        super().__init__(interp)
        self._groups: dict[int, dict] = {}
        self._pairs_cache: dict[int, tuple] = {}
        self._xla_partitions: dict[int, frozenset] = {}

    @property
    def world(self):
        return self.interp.world

    # -- matching ------------------------------------------------------------------
    def match_key(self, op: Operation, kind: str) -> tuple:
        # XLA's rendezvous key: kind, the positive channel or none (every channel-less
        # op of a module shares the module's id), the group (deadlock/model.py MATCHING)
        ch = channel_id(op)
        if (ch or 0) <= 0:
            ch = None
        if self.interp.matching == "xla":
            if kind == "collective_permute":
                return (kind, ch)
            return (kind, ch, self.xla_partition(op))
        return ("op", op.span.start)

    def xla_partition(self, op: Operation) -> frozenset:
        """The op's process groups as XLA's rendezvous keys list their devices
        (deadlock/model.py xla_participants): ops whose lists are equal meet."""
        got = self._xla_partitions.get(id(op))
        if got is None:
            grid = self.interp.grid
            self.group_of(op, grid.unflat(0))  # fills self._groups (and checks the groups)
            strat = strategy(op)
            # The table maps every member to its group's one tuple: distinct by identity
            # (hashing each member's copy of a group of n is n * n work)
            distinct = {id(g): g for g in self._groups[id(op)].values()}.values()
            got = self._xla_partitions[id(op)] = frozenset(
                xla_participants(grid, strat, list(g)) for g in distinct)
        return got

    def instance(self, me: Pid, key: tuple) -> int:
        counters = self.world.counters
        n = counters.get((me, key), 0)
        counters[(me, key)] = n + 1
        return n

    # -- process groups -------------------------------------------------------------
    def group_of(self, op: Operation, me: Pid) -> tuple[Pid, ...] | None:
        table = self._groups.get(id(op))
        if table is None:
            if flag(op, "use_global_device_ids") and not ((channel_id(op) or 0) > 0):
                raise ExecutionError(f"cannot execute: {op.name} has use_global_device_ids without a positive "
                                     "channel_id: the spec defines no process groups", op)
            groups = replica_groups(op)
            attr = op.attr("replica_groups")
            if attr is not None and groups is None:
                text = getattr(attr, "text", None) or ""
                if "replica_group_mesh_axes" not in text:
                    raise ExecutionError(f"cannot execute: {op.name} with replica_groups in a form the checker "
                                         "does not read", op)
                groups = mesh_axes_groups(op, text)
            grid = self.interp.grid
            table = {}
            for g in process_groups(grid, strategy(op), groups):
                for p in g:
                    if p not in self.world.procs:
                        raise ExecutionError(f"cannot execute: {op.name} names process {fmt_pid(p)}, outside the "
                                             f"{grid.num_replicas}x{grid.num_partitions} grid", op)
                t = tuple(g)
                for p in g:
                    table.setdefault(p, t)
            self._groups[id(op)] = table
        return table.get(me)

    def pair_maps(self, op: Operation) -> tuple[dict[int, list[int]], dict[int, int]]:
        """(source id → target ids, target id → first source id) of the op's pairs."""
        maps = self._pairs_cache.get(id(op))
        if maps is None:
            pairs = source_target_pairs(op)
            if pairs is None:
                raise ExecutionError(f"cannot execute: {op.name} without readable source_target_pairs", op)
            targets: dict[int, list[int]] = {}
            sources: dict[int, int] = {}
            for s_, t_ in pairs:
                targets.setdefault(s_, []).append(t_)
                sources.setdefault(t_, s_)
            maps = self._pairs_cache[id(op)] = (targets, sources)
        return maps

    def arrive(self, frame: Frame, op: Operation, kind: str, operands: list) -> Rendezvous | None:
        """Register at the op's rendezvous without waiting; None when the process is
        in no group (collective_broadcast: zeros, like the spec says)."""
        me = frame.proc.pid
        group = self.group_of(op, me)
        if group is None:
            if kind == "collective_broadcast":
                return None
            raise ExecutionError(f"cannot execute: process {fmt_pid(me)} is in no process group of {kind} "
                                 f"(replica_groups {replica_groups(op)}, strategy {strategy(op)})", op)
        key = self.match_key(op, kind)
        n = self.instance(me, key)
        rkey = (key, group[0], len(group), n)  # groups of one op are disjoint: the first member names one
        rv = self.world.rendezvous.get(rkey)
        if rv is None:
            rv = self.world.rendezvous[rkey] = Rendezvous(kind, list(group))
        rv.arrivals[me] = list(operands)
        rv.ops[me] = op
        if rv.complete:
            starts = {o.span.start for o in rv.ops.values()}
            where = ", ".join(sorted({self.interp.where(o) for o in rv.ops.values()}))
            shapes = {tuple(tuple(getattr(a, "shape", ())) for a in ops) for ops in rv.arrivals.values()}
            if len(starts) > 1 and len(shapes) > 1:
                raise ExecutionError(f"cannot execute: the {kind}s at {where} meet as one collective under XLA's "
                                     f"matching (same kind, {'channel ' + str(key[1]) if key[1] else 'no channel'}"
                                     f" and devices) but their operands differ in shape "
                                     f"({', '.join(str([list(x) for x in s]) for s in sorted(shapes))})", op)
            rv.results = self.compute(frame, rv)
            if len(starts) > 1:
                self.interp.notes.append(
                    f"{kind} at {where} met as one collective only because XLA matches kind + "
                    f"{'channel ' + str(key[1]) if key[1] else 'no channel'} + devices "
                    "(under the spec's matching they would deadlock)")
        return rv

    def zeros(self, op: Operation) -> list:
        return [self.interp.zeros_like_type(t) for t in result_tensor_types(op)]

    def compute(self, frame: Frame, rv: Rendezvous) -> dict:
        kind, members, arr = rv.kind, rv.members, rv.arrivals
        op = rv.ops[members[0]]
        xp = self.xp
        res: dict = {}
        n = len(arr[members[0]])
        if kind in ("all_reduce", "collective_reduce", "reduce_scatter"):
            reduced = [self.reduce_values(frame, op, [arr[m][i] for m in members]) for i in range(n)]
            if kind == "reduce_scatter":
                dim = int_attr(op, "scatter_dimension")
                for k, m in enumerate(members):
                    res[m] = [self.cast(rv.ops[m], xp.split(r, len(members), axis=dim)[k], i)
                              for i, r in enumerate(reduced)]
            elif kind == "collective_reduce":  # only the group's root (its first member) keeps the result
                for m in members:
                    res[m] = [self.cast(rv.ops[m], r, i) for i, r in enumerate(reduced)] if m == members[0] \
                        else self.zeros(rv.ops[m])
            else:
                for m in members:
                    res[m] = [self.cast(rv.ops[m], r, i) for i, r in enumerate(reduced)]
        elif kind == "all_gather":
            dim = int_attr(op, "all_gather_dim")
            gathered = [xp.concatenate([arr[m][i] for m in members], axis=dim) for i in range(n)]
            for m in members:
                res[m] = [self.cast(rv.ops[m], g, i) for i, g in enumerate(gathered)]
        elif kind == "all_to_all" and op.attr("split_dimension") is None:
            # HLO's all-to-all without StableHLO's form (`hlo.all-to-all`): with `dimensions={d}`
            # each operand is split along d and the pieces concatenated along d; without, its
            # operands are the pieces (one per member) and result j is member j's piece for it
            dims = op.attr("dimensions")
            d = int_list(dims)[0] if dims is not None and int_list(dims) else None
            for k, m in enumerate(members):
                if d is None:
                    res[m] = [self.cast(rv.ops[m], arr[s][k], j) for j, s in enumerate(members)]
                else:
                    res[m] = [self.cast(rv.ops[m], xp.concatenate(
                        [xp.split(arr[s][i], len(members), axis=d)[k] for s in members], axis=d), i)
                        for i in range(n)]
        elif kind == "all_to_all":
            split, concat = int_attr(op, "split_dimension"), int_attr(op, "concat_dimension")
            count = int_attr(op, "split_count", len(members))
            if count != len(members):
                raise ExecutionError(f"cannot execute: all_to_all split_count {count} differs from its process "
                                     f"group size {len(members)}", op)
            pieces = {m: [xp.split(arr[m][i], count, axis=split) for i in range(n)] for m in members}
            for k, m in enumerate(members):
                res[m] = [self.cast(rv.ops[m], xp.concatenate([pieces[s][i][k] for s in members], axis=concat), i)
                          for i in range(n)]
        elif kind == "collective_broadcast":
            n_out = len(result_tensor_types(op))
            roots = [members[0]] * n_out
            if flag(op, "has_dynamic_root"):  # one root per data operand (tensor<[n]xi32>), or one for all
                idxs = np.asarray(self.backend.to_numpy(arr[members[0]][-1])).reshape(-1)
                if idxs.size == 1:
                    idxs = np.repeat(idxs, n_out)
                if idxs.size != n_out:
                    raise ExecutionError(f"cannot execute: {idxs.size} dynamic roots for {n_out} data operands", op)
                for i, idx in enumerate(int(x) for x in idxs):
                    if not 0 <= idx < len(members):
                        raise ExecutionError(f"cannot execute: dynamic root {idx} is outside the process group", op)
                    roots[i] = members[idx]
            for m in members:
                res[m] = [self.cast(rv.ops[m], arr[roots[i]][i], i) for i in range(n_out)]
        elif kind == "collective_permute":  # (matching "xla": the group met, now the pairs move data)
            for m in members:
                mine = rv.ops[m]
                strat = strategy(mine)
                _targets, sources_of = self.pair_maps(mine)
                src = sources_of.get(axis_id_of(m, strat))
                if src is None:
                    res[m] = self.zeros(mine)
                    continue
                peer = peer_on_axis(m, src, strat)
                if peer not in arr:
                    raise ExecutionError(f"cannot execute: collective_permute from process {fmt_pid(peer)}, "
                                         "outside its process group", mine)
                res[m] = [self.cast(mine, v, i) for i, v in enumerate(arr[peer][:len(result_tensor_types(mine))])]
        else:  # pragma: no cover - kinds are closed
            raise ExecutionError(f"cannot execute: op {op.name}", op)
        return res

    def cast(self, op: Operation, value, i: int):
        t = result_tensor_types(op)[i]
        if tuple(value.shape) != tuple(t.shape):
            raise ExecutionError(f"cannot execute: {op.name} computes shape {list(value.shape)} for result {i}, "
                                 f"declared {t}", op)
        return self.xp.asarray(value, dtype=dtype_of(t.element))

    def reduce_values(self, frame: Frame, op: Operation, values: list):
        kind = _binary_kind(op)
        if kind is not None and kind in _COMBINE:
            acc = values[0]
            for v in values[1:]:
                acc = _COMBINE[kind](self.xp, acc, v)
            return acc
        if not op.regions:
            raise ExecutionError(f"cannot execute: {op.name} without a reduction region", op)
        region = op.regions[0]
        arg_t = region.blocks[0].arguments[0].type if region.blocks and region.blocks[0].arguments else None
        if arg_t is not None:
            dt = dtype_of(tensor_type(arg_t, "reduction argument").element)
            values = [self.xp.asarray(v).astype(dt) for v in values]
        acc = values[0]
        for v in values[1:]:
            (acc,) = self.interp.eval_region(frame, region, [acc, v])
        return acc

    # -- collective_permute ---------------------------------------------------------
    def permute_start(self, frame: Frame, op: Operation, operands: list) -> Future:
        """Send to this process's target (never blocks); the Future waits for the
        source's operand of the same permute instance."""
        me = frame.proc.pid
        strat = strategy(op)
        targets, sources_of = self.pair_maps(op)
        if self.interp.matching == "xla":
            rv = self.arrive(frame, op, "collective_permute", operands)
            return Future(op, wait=RendezvousWait(rv, op, started=op.name.endswith("_start") or
                                                  op.name.endswith("async_start")),
                          get=lambda: rv.results[me])
        key = self.match_key(op, "collective_permute")
        n = self.instance(me, key)
        mine = axis_id_of(me, strat)
        world = self.world
        for t in targets.get(mine, ()):
            target = peer_on_axis(me, t, strat)
            if target not in world.procs:
                raise ExecutionError(f"cannot execute: collective_permute to process {fmt_pid(target)}, "
                                     "outside the grid", op)
            msg = Message(op, me, target, channel_id(op), list(operands))
            msg.received = ("perm", key, n, me, target) in world.reached
            world.sent[("perm", key, n, me, target)] = msg
            frame.proc.obligations.append(msg)
        if mine not in sources_of:
            return Future(op, values=self.zeros(op))
        source = peer_on_axis(me, sources_of[mine], strat)
        mkey = ("perm", key, n, source, me)

        def get():
            msg = world.sent[mkey]
            msg.received = True
            return [self.cast(op, v, i) for i, v in enumerate(msg.payload[:len(result_tensor_types(op))])]

        # reaching the permute is what the source's send-done waits for
        wait = MessageWait(world, mkey, source, f"process {fmt_pid(source)}'s operand of this collective_permute "
                           f"({self.interp.where(op)})", op)
        world.reached.add(mkey)
        if mkey in world.sent:
            world.sent[mkey].received = True
        return Future(op, wait=wait, get=get)

    # -- synchronous collectives ----------------------------------------------------
    @impl(*(f"stablehlo.{k}" for k in COLLECTIVE_KINDS), "hlo.all-to-all", blocking=True)
    def collective(self, frame, op, args):
        fut = self.start_future(frame, op, catalog.info(op.name).kind, args)
        return (yield from self.finish(fut, op))

    def start_future(self, frame: Frame, op: Operation, kind: str, operands: list) -> Future:
        if kind == "collective_permute":
            return self.permute_start(frame, op, operands)
        rv = self.arrive(frame, op, kind, operands)
        if rv is None:
            return Future(op, values=self.zeros(op))
        me = frame.proc.pid
        return Future(op, wait=RendezvousWait(rv, op, started=op.name.endswith("_start") or
                                              op.name.endswith("async_start")),
                      get=lambda: rv.results[me])

    def finish(self, fut: Future, at: Operation):
        if fut.wait is not None:
            if not fut.wait.ready():
                fut.wait.op = at
                yield fut.wait
            return list(fut.get())
        return list(fut.values or [])

    # -- async ------------------------------------------------------------------------
    @impl("stablehlo.async_start", "hlo.async-start", blocking=True)
    def async_start(self, frame, op, args):
        region = op.regions[0] if op.regions else None
        if region is None or not region.blocks:
            raise ExecutionError("cannot execute: async_start without a body", op)
        block = region.blocks[0]
        inner = [o for o in block.operations if o.name not in ("stablehlo.return", "func.return")]
        if len(inner) == 1 and inner[0].name.rsplit(".", 1)[-1] in COLLECTIVE_KINDS:
            # bind the body's arguments (seed 004's form has none: the body uses outer values),
            # then arrive with the collective's operands
            if block.arguments:
                self.interp.bind_args(frame, block, args)
            coll = inner[0]
            operands = [self.interp.lookup(frame, v, coll) for v in self.interp.operands(coll)]
            ret = [o for o in block.operations if o.name in ("stablehlo.return", "func.return")]
            if ret and list(self.interp.operands(ret[0])) != coll.results:
                raise ExecutionError("cannot execute: async_start whose body returns something other than its "
                                     "collective's results", op)
            fut = self.start_future(frame, coll, catalog.info(coll.name).kind, operands)
            if isinstance(fut.wait, RendezvousWait):
                fut.wait.started = True
            fut.op = op
            if waits_at_start(self.interp.matching):  # XLA: the start is the issue point (issue_order.py)
                yield from issue(fut, op)
            return [fut] * len(op.results)  # HLO's start: every leaf of its result stands for the future
        # a body without communication (slices, seed 002's any-function form): run it now
        values = yield from self.interp.run_region(frame, region, args)
        frame.proc.op = op
        return [Future(op, values=list(values))] * len(op.results)

    @impl(*(f"stablehlo.{k}_start" for k in COLLECTIVE_KINDS),
          *(catalog.names(role=catalog.START, future="hlo") - catalog.names(regions=catalog.ASYNC_BODY)), blocking=True)
    def start(self, frame, op, args):
        fut = self.start_future(frame, op, catalog.info(op.name).kind, args)
        if waits_at_start(self.interp.matching):  # XLA: the start is the issue point (issue_order.py)
            yield from issue(fut, op)
        return [fut] * len(op.results)  # HLO's `*-start`: every leaf of its result stands for the future

    @impl("hlo.async-update")
    def async_update(self, frame, op, args):
        return list(args)  # the same futures (the catalog's `forwards`)

    @impl("stablehlo.async_done", *(f"stablehlo.{k}_done" for k in COLLECTIVE_KINDS),
          *catalog.names(role=catalog.DONE, future="hlo"), blocking=True)
    def done(self, frame, op, args):
        out = []
        if catalog.info(op.name).future == "hlo":  # it takes every leaf of its start's result: one future
            args = [a for i, a in enumerate(args) if a is not TOKEN and not any(a is b for b in args[:i])]
        for fut in args:
            if not isinstance(fut, Future):
                raise ExecutionError(f"cannot execute: {op.name} of a value that is not a future", op)
            if fut.consumed:
                raise ExecutionError(f"{op.name}: the future of {fut.op.name} at {self.interp.where(fut.op)} was "
                                     "already completed (each future is completed exactly once)", op)
            fut.consumed = True
            out += (yield from self.finish(fut, op))
        return out

    # -- send / recv --------------------------------------------------------------------
    def external(self, op: Operation) -> bool:
        """A send/recv that talks to something outside this program: a host transfer,
        or a channel the user declared external (`-O external-channels=...`: an MPMD
        pipeline's other stages). Every other send/recv pairs with its peers here."""
        return flag(op, "is_host_transfer") or channel_id(op) in self.interp.external_channels

    def _pairs(self, op: Operation):
        maps = self._pairs_cache.get(id(op))
        if maps is not None:
            return maps
        pairs = source_target_pairs(op)
        if pairs is None or not pairs:
            if self.external(op):
                return None
            raise ExecutionError(f"cannot execute: {op.name} without source_target_pairs (undefined behaviour)", op)
        return self.pair_maps(op)

    @impl("stablehlo.send", "hlo.send")
    def send(self, frame, op, args):
        payload = [a for a in args if a is not TOKEN]
        ch = channel_id(op)
        if self.interp.harness and flag(op, "is_host_transfer") and source_target_pairs(op) is None:
            # interpreter.run_parallel: its host queues carry host transfers between its processes
            self.world.mailboxes.setdefault(("host", ch), []).append(payload)
            return self.sent(op, payload)
        if self.external(op):  # to the host / another program: delivered outside this run
            return self.sent(op, payload)
        pairs = self._pairs(op)
        strat = strategy(op)
        me = frame.proc.pid
        world = self.world
        for t in pairs[0].get(axis_id_of(me, strat), ()):
            target = peer_on_axis(me, t, strat)
            if target not in world.procs:
                raise ExecutionError(f"cannot execute: send to process {fmt_pid(target)}, outside the grid", op)
            n = self.instance(me, ("send", target, ch))
            msg = Message(op, me, target, ch, payload)
            world.sent[("p2p", ch, me, target, n)] = msg
            frame.proc.obligations.append(msg)
        return self.sent(op, payload)

    def sent(self, op: Operation, payload: list) -> list:
        """A send's results: its token (StableHLO), or HLO's `(data, u32[] context,
        token[])`, the data handed on to its send-done."""
        data = iter(payload)
        out = []
        for t in op.result_types:
            if isinstance(t, TokenType):
                out.append(TOKEN)
            else:
                v = next(data, None)
                out.append(v if v is not None else self.interp.zeros_like_type(tensor_type(t, "send result")))
        return out

    @impl("hlo.recv")
    def post_recv(self, frame, op, args):
        """HLO's `recv` only posts the receive (its `(data, u32[], token[])` is a buffer
        to be filled); the data arrives at its recv-done, which waits for it."""
        return [TOKEN if isinstance(t, TokenType) else self.interp.zeros_like_type(tensor_type(t, "recv result"))
                for t in op.result_types]

    @impl("hlo.send-done")
    def send_done(self, frame, op, args):
        # a process finishes only once its sends were received (the interpreter's _main)
        return [TOKEN]

    @impl("stablehlo.recv", "hlo.recv-done", blocking=True)
    def recv(self, frame, op, args):
        ch = channel_id(op)
        if self.interp.harness and flag(op, "is_host_transfer") and source_target_pairs(op) is None:
            queue = self.world.mailboxes.setdefault(("host", ch), [])
            if not queue:
                yield HostQueueWait(queue, ch, op)
            payload = queue.pop(0)
            return list(payload) + [TOKEN]
        if self.external(op):
            why = "from the host (is_host_transfer)" if flag(op, "is_host_transfer") else \
                f"on channel {ch}, declared external (external-channels)"
            raise ExecutionError(f"cannot execute: recv {why}: its sender is outside this program", op)
        pairs = self._pairs(op)
        strat = strategy(op)
        me = frame.proc.pid
        world = self.world
        types = op.result_types
        src_id = pairs[1].get(axis_id_of(me, strat))
        if src_id is None:
            return [self.interp.zeros_like_type(tensor_type(t, "recv result")) for t in types[:-1]] + [TOKEN]
        source = peer_on_axis(me, src_id, strat)
        n = self.instance(me, ("recv", source, ch))
        key = ("p2p", ch, source, me, n)
        if key not in world.sent:
            yield MessageWait(world, key, source, f"a send on channel {ch}" +
                              (f" (its #{n + 1} to this process)" if n else ""), op)
        msg = world.sent[key]
        msg.received = True
        declared = [tensor_type(t, "recv result") for t in types[:-1]]
        got = [f"tensor<{'x'.join(map(str, v.shape))}{'x' if v.ndim else ''}{v.dtype}>" for v in msg.payload]
        if len(msg.payload) != len(declared) or any(tuple(v.shape) != tuple(t.shape) or
                                                    v.dtype != dtype_of(t.element)
                                                    for v, t in zip(msg.payload, declared)):
            raise ExecutionError(
                f"recv declares ({', '.join(map(str, declared))}) but the matching send at "
                f"{self.interp.where(msg.op)} (process {fmt_pid(source)}) sent ({', '.join(got)})", op)
        return list(msg.payload) + [TOKEN]

