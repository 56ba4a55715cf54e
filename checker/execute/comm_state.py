"""What the communicating processes of one run share (checker/execute/comm.py
runs the ops): rendezvous of collectives, point-to-point messages, and the Waits
a blocked process reports. Split from comm.py, which imports these."""
from __future__ import annotations

from dataclasses import dataclass, field

from ..ir.core import Operation
from ..analysis.semantics import CROSS_REPLICA
from .runtime import Wait, pid_ranges, fmt_pid

Pid = tuple[int, int]


def axis_id_of(pid: Pid, strat: str) -> int:
    return pid[0] if strat == CROSS_REPLICA else pid[1]


def peer_on_axis(me: Pid, axis_id: int, strat: str) -> Pid:
    return (axis_id, me[1]) if strat == CROSS_REPLICA else (me[0], axis_id)


# ----------------------------------------------------------------------------- shared state
@dataclass(eq=False)
class Rendezvous:
    kind: str
    members: list[Pid]
    arrivals: dict[Pid, list] = field(default_factory=dict)
    ops: dict[Pid, Operation] = field(default_factory=dict)
    results: dict[Pid, list] | None = None

    @property
    def complete(self) -> bool:
        return len(self.arrivals) == len(self.members)

    @property
    def op(self) -> Operation:
        return next(iter(self.ops.values()))


@dataclass(eq=False)
class Message:
    """One send (or permute send) from `source` to `target`."""

    op: Operation
    source: Pid
    target: Pid
    channel: int | None
    payload: list | None = None
    received: bool = False


@dataclass(eq=False)
class RendezvousWait(Wait):
    rendezvous: Rendezvous
    op: Operation | None = None
    started: bool = False
    """For a done: it waits for the peers to *start* the collective."""

    def ready(self) -> bool:
        return self.rendezvous.results is not None

    def peers(self, me):
        return [p for p in self.rendezvous.members if p not in self.rendezvous.arrivals]

    def waits_for(self, world, me) -> str:
        rv = self.rendezvous
        verb = "start" if self.started else "reach"
        mine = rv.ops.get(me) or rv.op
        key = ("rv", id(rv), verb, id(mine))  # every blocked member of a big group shares this text
        text = world.text_cache.get(key)
        if text is None:
            group = pid_ranges([fmt_pid(p) for p in rv.members])
            text = world.text_cache[key] = (f"{world.describe_peers(self.peers(me))} to {verb} this "
                                            f"{world.interp.label(mine, rv.kind)} "
                                            f"({world.interp.where(mine)}; process group [{group}])")
        return text


@dataclass(eq=False)
class MessageWait(Wait):
    """A recv (or a permute target) waiting for its source's n-th send."""

    world: object
    key: tuple
    source: Pid
    what: str
    op: Operation | None = None

    def ready(self) -> bool:
        return self.key in self.world.sent

    def peers(self, me):
        return [self.source]

    def waits_for(self, world, me) -> str:
        return f"{self.what} from {world.describe_peers([self.source])}"


@dataclass(eq=False)
class HostQueueWait(Wait):
    """Inside interpreter.run_parallel: a host-transfer recv waiting for a host send on its channel."""

    queue: list
    channel: int | None
    op: Operation | None = None

    def ready(self) -> bool:
        return bool(self.queue)

    def waits_for(self, world, me) -> str:
        return f"a host-transfer send on channel {self.channel}"


@dataclass(eq=False)
class DeliveryWait(Wait):
    """A process at its end, waiting for one of its sends to be received."""

    message: Message
    op: Operation | None = None

    def ready(self) -> bool:
        return self.message.received

    def peers(self, me):
        return [self.message.target]

    def waits_for(self, world, me) -> str:
        what = "receive" if self.message.op.name.endswith("send") else "reach the collective_permute"
        return (f"{world.describe_peers([self.message.target])} to {what} (its "
                f"{world.interp.label(self.message.op, self.message.op.name.rsplit('.', 1)[1])} at "
                f"{world.interp.where(self.message.op)}"
                f"{'' if self.message.channel is None else f' on channel {self.message.channel}'} "
                f"is never received; the program cannot finish until it is)")
