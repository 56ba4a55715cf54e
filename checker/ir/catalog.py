"""The op catalog: what every stage needs to know about an op, by its name, in one
place (as MLIR keeps such facts as traits on the op definition).

Two tables. `KINDS`, the kinds of communication (all_reduce, collective_permute,
send, ...), each with the facts that hold for every op of the kind:

* `meets`: how the processes meet: `GROUP` (every member of a process group
  rendezvous), `PAIRS` (source -> target pairs), `POINT_TO_POINT` (a send meets
  a recv);
* `group_mode`: how the strategy that numbers its processes is decided
  (SPEC-NOTES §2): `GLOBAL_IDS` (all_reduce's rule: the channel, then
  `use_global_device_ids`) or `CHANNEL` (cross_replica or cross_partition by
  the channel alone);
* `same_in_group`: its result is the same on every member of a group (an
  all_reduce's sum is; a reduce_scatter's shard is not);
* `in_xla`: XLA has it as a collective of its own (it compiles and runs it);
* `custom_call`: StableHLO has no op for it: JAX writes it as a `custom_call` to
  a target of this name (ragged_all_to_all).

`OPS`, every op name some stage gives a meaning to, with:

* `kind` (a key of KINDS) and `role`, what it does to its process: `COLLECTIVE`,
  `PERMUTE`, `SEND`, `RECV`, `START` (an async collective starts: its result is
  a future), `DONE` (waits for a started one); an `async_start` is a START when
  its body runs a collective (`body_kind`: the kind is read from its body);
* `pair`: a start's done, a done's start (the names that may complete it);
* `future`: the flavor of future a start returns or a done takes (`"stablehlo"`,
  `"tessera"` or `"hlo"`); `future_side`: START or DONE for an op that opens or
  closes a future although its role is the communication it does (HLO's `send`
  is a SEND whose `send-done` waits for it, `recv` posts the receive its
  `recv-done`, a RECV, waits for; `async_side` answers for every op); and
  `seed_004`: one of the six `*_start`/`*_done` forms seed 004 names (it has
  none for collective_reduce; rules and the pairing analysis that follow the
  seed read only these);
* `regions`: what its regions (or the computations it calls) do: `BRANCHES`
  (one of them runs), `LOOP` (condition and body, repeated), `ONCE` (the one
  region runs in place), `CALL` (runs a function named by symbol),
  `INDIRECT_CALL` (runs a function value), `FUNCTION`
  (a function's body), `MODULE` (a container), `COMPUTATION` (a reducer applied
  to elements, no control flow), `ASYNC_BODY` (the op an async_start runs);
* `terminator`: `FUNCTION_RETURN` (returns from a function) or `REGION_RETURN`
  (yields its region's results to the op that owns the region);
* `forwards`: its results are its operands, one to one, unchanged (HLO's
  `tuple`, `get-tuple-element`, `copy`: the tracer follows a value through it);
* `branch_operands`: a branch region that declares arguments takes the op's
  operands after the index, region by region (HLO's `conditional` passes
  operand k+1 to branch k; StableHLO's branches declare none and capture).

XLA's HLO (checker/frontend/hlo/) is lowered to these ops where HLO means what
StableHLO means (`all-reduce` is `stablehlo.all_reduce`); its other opcodes are
`hlo.<opcode>` ops, listed here with their facts (`_hlo_ops`): the async pairs
`hlo.all-reduce-start` / `-done` (future `"hlo"`), the generic
`hlo.async-start` / `-update` / `-done`, point-to-point as XLA splits it (a
send issues at `hlo.send`, a recv waits at `hlo.recv-done`), the tuple form of
all-to-all, the combined collective-permute, ragged-all-to-all, and the calls
`hlo.call` / `hlo.fusion`.

An op not in OPS is opaque: it does not communicate and its regions are not
followed. The queries below are what the stages ask; the sets at the end are
computed from the tables once. A front end that reads another language into the
IR (XLA's HLO text) adds its op names here, with the facts they have; nothing
else lists op names for these facts. tests/test_catalog.py checks the tables'
consistency; docs/architecture.md says what to add for a new kind.
"""
from __future__ import annotations

from dataclasses import dataclass

# how processes meet
GROUP = "group"
PAIRS = "pairs"
POINT_TO_POINT = "point-to-point"

# how a kind's strategy is decided
GLOBAL_IDS = "channel and use_global_device_ids"
CHANNEL = "channel"

# roles (the strings the tracer and the deadlock model record)
COLLECTIVE = "collective"
PERMUTE = "permute"
SEND = "send"
RECV = "recv"
START = "start"
DONE = "done"
ROLES = (COLLECTIVE, PERMUTE, SEND, RECV, START, DONE)

# region semantics
BRANCHES = "branches"
LOOP = "loop"
ONCE = "once"
CALL = "call"
INDIRECT_CALL = "indirect call"
FUNCTION = "function"
MODULE = "module"
COMPUTATION = "computation"
ASYNC_BODY = "async body"

# terminators
FUNCTION_RETURN = "function return"
REGION_RETURN = "region return"


@dataclass(frozen=True, slots=True)
class Kind:
    """A kind of communication (see the module docstring)."""

    name: str
    meets: str
    group_mode: str = CHANNEL
    same_in_group: bool = False
    in_xla: bool = True
    custom_call: bool = False


@dataclass(frozen=True, slots=True)
class OpInfo:
    """What the stages know of one op name (see the module docstring)."""

    name: str
    kind: str | None = None
    role: str | None = None
    body_kind: bool = False
    pair: tuple[str, ...] = ()
    future: str | None = None
    future_side: str | None = None
    seed_004: bool = False
    regions: str | None = None
    terminator: str | None = None
    forwards: bool = False
    branch_operands: bool = False

    @property
    def async_side(self) -> str | None:
        """START (it opens a future) or DONE (it closes one): `future_side`, else a
        START / DONE role; None for every other op."""
        if self.future_side is not None:
            return self.future_side
        return self.role if self.role in (START, DONE) else None


# --------------------------------------------------------------------------- kinds
KINDS: dict[str, Kind] = {k.name: k for k in (
    Kind("all_reduce", GROUP, GLOBAL_IDS, same_in_group=True),
    Kind("all_gather", GROUP, GLOBAL_IDS, same_in_group=True),
    Kind("reduce_scatter", GROUP, GLOBAL_IDS),
    Kind("all_to_all", GROUP),
    Kind("collective_permute", PAIRS),
    Kind("collective_broadcast", GROUP, same_in_group=True),
    Kind("collective_reduce", GROUP, in_xla=False),
    Kind("send", POINT_TO_POINT),
    Kind("recv", POINT_TO_POINT),
    # JAX lowers `lax.ragged_all_to_all` to `stablehlo.custom_call @ragged_all_to_all`
    # with `backend_config = {replica_groups, channel_id}` (jax/_src/lax/parallel.py,
    # _ragged_all_to_all_lowering); XLA turns it into a ragged-all-to-all instruction
    # whose GPU thunk is a collective over every member of its replica group
    # (xla/backends/gpu/runtime/ragged_all_to_all_thunk.h): every member must reach it.
    Kind("ragged_all_to_all", GROUP, custom_call=True),
)}


# --------------------------------------------------------------------------- ops
SEED_004_KINDS = frozenset({"all_gather", "all_reduce", "all_to_all", "collective_broadcast", "collective_permute",
                            "reduce_scatter"})
"""The six collectives seed 004 gives `*_start`/`*_done` forms (the StableHLO ops of
every other collective kind get them too, but not the seed's semantics)."""


def _stablehlo_ops() -> list[OpInfo]:
    out = []
    for k in KINDS.values():
        if k.custom_call:
            continue
        name = f"stablehlo.{k.name}"
        if k.meets == POINT_TO_POINT:
            out.append(OpInfo(name, k.name, SEND if k.name == "send" else RECV))
            continue
        reducer = COMPUTATION if k.name in ("all_reduce", "reduce_scatter", "collective_reduce") else None
        seed = k.name in SEED_004_KINDS
        out += [OpInfo(name, k.name, PERMUTE if k.meets == PAIRS else COLLECTIVE, regions=reducer),
                OpInfo(f"{name}_start", k.name, START, pair=(f"{name}_done",), future="stablehlo", seed_004=seed,
                       regions=reducer),
                OpInfo(f"{name}_done", k.name, DONE, pair=(f"{name}_start",), future="stablehlo", seed_004=seed)]
    return out


def _hlo_ops() -> list[OpInfo]:
    """XLA's HLO opcodes that are no StableHLO op (checker/frontend/hlo/opcodes.py lowers
    the others to StableHLO's names)."""
    out = []
    for opcode, k in (("all-reduce", "all_reduce"), ("all-gather", "all_gather"),
                      ("collective-permute", "collective_permute")):
        start, done = f"hlo.{opcode}-start", f"hlo.{opcode}-done"
        out += [OpInfo(start, k, START, pair=(done,), future="hlo",
                       regions=COMPUTATION if k == "all_reduce" else None),
                OpInfo(done, k, DONE, pair=(start,), future="hlo")]
    out += [
        # the generic async pair wraps a computation whose root is the collective
        OpInfo("hlo.async-start", role=START, body_kind=True, pair=("hlo.async-done",), future="hlo",
               regions=ASYNC_BODY),
        OpInfo("hlo.async-update", forwards=True),
        OpInfo("hlo.async-done", role=DONE, pair=("hlo.async-start",), future="hlo"),
        # forms StableHLO's op does not have: all-to-all with one operand per peer (no
        # `dimensions`), a combined or in-place collective-permute, ragged-all-to-all
        OpInfo("hlo.all-to-all", "all_to_all", COLLECTIVE),
        OpInfo("hlo.collective-permute", "collective_permute", PERMUTE),
        OpInfo("hlo.ragged-all-to-all", "ragged_all_to_all", COLLECTIVE),
        # point-to-point: `send` hands its data over without waiting; `recv` only posts
        # the receive, `recv-done` waits for the data; `send-done` waits for the buffer
        # (the process model's "a process finishes once its sends were received").
        # Each half is an async pair too (XLA:GPU runs send and recv on a P2P stream,
        # and its dones wait for them: gpu_latency_hiding_scheduler.cc's
        # GpuGetCanonicalAsyncOp): the futures the pairing analysis follows.
        OpInfo("hlo.send", "send", SEND, pair=("hlo.send-done",), future="hlo", future_side=START),
        OpInfo("hlo.recv-done", "recv", RECV, pair=("hlo.recv",), future="hlo", future_side=DONE),
        OpInfo("hlo.recv", pair=("hlo.recv-done",), future="hlo", future_side=START),
        OpInfo("hlo.send-done", pair=("hlo.send",), future="hlo", future_side=DONE),
        # calls: the callee is the `callee` symbol (`to_apply=` / `calls=`)
        OpInfo("hlo.call", regions=CALL),
        OpInfo("hlo.fusion", regions=CALL),
        # values passed through unchanged
        OpInfo("hlo.tuple", forwards=True),
        OpInfo("hlo.get-tuple-element", forwards=True),
        OpInfo("hlo.copy", forwards=True),
        OpInfo("hlo.bitcast", forwards=True),
    ]
    return out


_TESSERA_AWAITS = ("tessera.await", "tessera.collective.await")

OPS: dict[str, OpInfo] = {o.name: o for o in (
    *_stablehlo_ops(),
    # seed 002 / 004: the generic async pair (what it runs is read from its body)
    OpInfo("stablehlo.async_start", role=START, body_kind=True, pair=("stablehlo.async_done",), future="stablehlo",
           regions=ASYNC_BODY),
    OpInfo("stablehlo.async_done", role=DONE, pair=("stablehlo.async_start",), future="stablehlo"),
    # seed 003's tessera collectives return futures an await completes
    *(OpInfo(f"tessera.collective.{k}", k, START, pair=_TESSERA_AWAITS, future="tessera")
      for k in ("all_reduce", "reduce_scatter", "all_gather")),
    *(OpInfo(name, role=DONE, future="tessera") for name in _TESSERA_AWAITS),
    # control flow
    OpInfo("stablehlo.while", regions=LOOP),
    OpInfo("stablehlo.if", regions=BRANCHES, branch_operands=True),
    OpInfo("stablehlo.case", regions=BRANCHES, branch_operands=True),
    OpInfo("func.call", regions=CALL),
    OpInfo("call", regions=CALL),  # the generic spelling `"call"(...)`
    OpInfo("func.call_indirect", regions=INDIRECT_CALL),
    OpInfo("sdy.manual_computation", regions=ONCE),
    OpInfo("sdy.named_computation", regions=ONCE),
    OpInfo("func.func", regions=FUNCTION),
    OpInfo("builtin.module", regions=MODULE),
    OpInfo("module", regions=MODULE),
    # terminators
    OpInfo("func.return", terminator=FUNCTION_RETURN),
    OpInfo("return", terminator=FUNCTION_RETURN),
    OpInfo("stablehlo.return", terminator=REGION_RETURN),
    OpInfo("sdy.return", terminator=REGION_RETURN),
    OpInfo("mhlo.return", terminator=REGION_RETURN),
    OpInfo("scf.yield", terminator=REGION_RETURN),
    OpInfo("stablehlo.optimization_barrier", forwards=True),
    *_hlo_ops(),
)}

_NONE = OpInfo("")


# --------------------------------------------------------------------------- queries
def info(name: str) -> OpInfo:
    """The facts of op `name` (an empty OpInfo for an op the catalog does not know)."""
    return OPS.get(name, _NONE)


def base_kind(name: str) -> str:
    """The kind op `name` communicates as (`stablehlo.all_reduce_start` -> `all_reduce`),
    else its name after the dialect (`stablehlo.add` -> `add`), less a `_start` or
    `_done` that follows a collective kind (`mhlo.all_gather_done` -> `all_gather`)."""
    k = OPS.get(name, _NONE).kind
    if k is not None:
        return k
    short = name.rsplit(".", 1)[-1]
    for suffix in ("_start", "_done"):
        if short.endswith(suffix) and short[: -len(suffix)] in COLLECTIVE_KINDS:
            return short[: -len(suffix)]
    return short


def kind(name: str) -> Kind | None:
    """The kind of communication op `name` does (None: none, or read from its body)."""
    k = OPS.get(name, _NONE).kind
    return KINDS.get(k) if k is not None else None


def ops_of(kind_name: str, *roles: str, dialect: str = "") -> tuple[str, ...]:
    """The op names of a kind (of the given roles, of one dialect: `"stablehlo"`), in
    the catalog's order."""
    prefix = f"{dialect}." if dialect else ""
    return tuple(o.name for o in OPS.values() if o.kind == kind_name and (not roles or o.role in roles)
                 and o.name.startswith(prefix))


def names(*, role: str | None = None, regions: str | None = None, terminator: str | None = None,
          future: str | None = None, seed_004: bool | None = None, forwards: bool | None = None,
          prefix: str = "") -> frozenset[str]:
    """The op names with the given facts (all of them when no fact is given)."""
    return frozenset(o.name for o in OPS.values() if o.name.startswith(prefix)
                     and (role is None or o.role == role) and (regions is None or o.regions == regions)
                     and (terminator is None or o.terminator == terminator)
                     and (future is None or o.future == future) and (seed_004 is None or o.seed_004 == seed_004)
                     and (forwards is None or o.forwards == forwards))


def future_ends(side: str, flavor: str | None = None) -> frozenset[str]:
    """The op names that open (`side` START) or close (DONE) a future (of `flavor`,
    when given): their `async_side`."""
    return frozenset(o.name for o in OPS.values() if o.async_side == side and (flavor is None or o.future == flavor))


def in_order(op_names) -> tuple[str, ...]:
    """`op_names` in the catalog's order (what a rule lists in `on=`, and its docs show)."""
    return tuple(n for n in OPS if n in op_names)


# --------------------------------------------------------------------------- derived sets
COLLECTIVE_KINDS = frozenset(k.name for k in KINDS.values() if k.meets != POINT_TO_POINT and not k.custom_call)
"""StableHLO's collectives (every kind but send/recv and the custom_call ones)."""
GROUP_KINDS = frozenset(k.name for k in KINDS.values() if k.meets == GROUP)
"""Kinds whose process group rendezvous: every member must reach the op."""
CUSTOM_CALL_KINDS = frozenset(k.name for k in KINDS.values() if k.custom_call)
"""`custom_call` targets that run a collective."""
GLOBAL_IDS_KINDS = frozenset(k.name for k in KINDS.values() if k.group_mode == GLOBAL_IDS)
SAME_IN_GROUP_KINDS = frozenset(k.name for k in KINDS.values() if k.same_in_group)
COMMUNICATING = frozenset(o.name for o in OPS.values() if o.role is not None)
"""Every op name that may communicate (an async_start: when its body does)."""
TERMINATORS = frozenset(o.name for o in OPS.values() if o.terminator is not None)
FORWARDING = frozenset(o.name for o in OPS.values() if o.forwards)
"""Ops whose results are their operands, one to one."""


__all__ = [
    "ASYNC_BODY", "BRANCHES", "CALL", "CHANNEL", "COLLECTIVE", "COLLECTIVE_KINDS", "COMMUNICATING", "COMPUTATION",
    "CUSTOM_CALL_KINDS", "DONE", "FORWARDING", "FUNCTION", "FUNCTION_RETURN", "GLOBAL_IDS", "GLOBAL_IDS_KINDS", "GROUP",
    "GROUP_KINDS", "INDIRECT_CALL", "KINDS", "Kind", "LOOP", "MODULE", "ONCE", "OPS", "OpInfo", "PAIRS",
    "PERMUTE", "POINT_TO_POINT", "RECV", "REGION_RETURN", "ROLES", "SAME_IN_GROUP_KINDS", "SEED_004_KINDS",
    "SEND", "START", "TERMINATORS", "base_kind", "future_ends", "in_order", "info", "kind", "names", "ops_of",
]
