"""Start/done pairing: where each future is completed, on every path (SPEC-NOTES §4).

A *future* is what an async start returns: `stablehlo.async_start` (seed 004,
and seed 002's `async<T>` form), seed 004's per-collective `*_start` ops, and
seed 003's `tessera.collective.*` ops; in XLA's HLO, the ops the catalog gives
future flavor "hlo" (`all-reduce-start`, ..., `async-start`, and the halves of
point-to-point: `send`, `recv`). A *completion* is a done or await
(`async_done`, `*_done`, `tessera.await`; HLO's `*-done`, `async-done`,
`send-done`, `recv-done`) taking it as an operand. Every future must be
completed exactly once on every path through the program.

HLO differs in three ways the walk follows: a start's result is a tuple, lowered
to its leaves (`%ags#0`, `%ags#1`), which together are one future (a done reading
all of them completes it once); the generic form passes it through
`async-update`, and the catalog's forwarding ops (`get-tuple-element`, `tuple`,
`copy`, `bitcast`) hand it on; and a computation sees no value of another, so
uses are found from each instruction's operand names, not from the text, and a
region never mentions an outer future (a `while` or a `conditional` that takes
one as operand is where pairing stops following it, as for a StableHLO while
carry: XLA's pipelined send/recv carries its futures through the loop).

The analysis follows each future from the op that starts it, through

* the rest of its block, descending into the regions of later ops that mention
  it: `if`/`case` branches are alternatives (one path per branch), a `while`
  body may run any number of times, other regions (`sdy.manual_computation`)
  run once;
* `func.call`: a callee's effect on a future argument is summarised once per
  (callee, argument) and composed at each call site, and a future the callee
  returns continues in the caller as the call's result;
* region terminators (`sdy.return`, `stablehlo.return`): the parent op's result
  carries the future on;
* `func.return`: the future belongs to each caller; returned from the entry
  function, it escapes the program.

Paths are kept as sets of *outcomes*: (completions so far, capped at 2; the
`func.return` positions that hand it on) with one witness each (the branch
choices taken, the completing ops), so a report can say on which path a future
leaks and which two dones complete it. Everything is read lazily: a module
without async ops costs a substring search (`may_have_futures`).
"""
from __future__ import annotations

import re
from bisect import bisect_left
from dataclasses import dataclass, field
from typing import Iterable
from ..ir.core import Block, Operation, Value, callee
from ..ir import catalog
from .semantics import BlockFlow
from ..ir.types import FutureType

# The op catalog's facts (ir/catalog.py) this analysis follows. Of seed 004's
# per-collective forms it knows the six the seed names (none for collective_reduce).
ASYNC_START = "stablehlo.async_start"
ASYNC_DONE = "stablehlo.async_done"
STABLEHLO_STARTS = frozenset(n for n in catalog.names(role=catalog.START, future="stablehlo")
                             if catalog.info(n).seed_004 or catalog.info(n).body_kind)
TESSERA_STARTS = catalog.names(role=catalog.START, future="tessera")
START_OPS = STABLEHLO_STARTS | TESSERA_STARTS
TESSERA_AWAITS = catalog.names(role=catalog.DONE, future="tessera")
DONE_OPS = frozenset(n for n in catalog.names(role=catalog.DONE, future="stablehlo")
                     if catalog.info(n).seed_004 or n == ASYNC_DONE) | TESSERA_AWAITS

HLO_STARTS = catalog.future_ends(catalog.START, "hlo")
HLO_DONES = catalog.future_ends(catalog.DONE, "hlo")
"""XLA's HLO: the starts and dones of its async pairs (send and recv included)."""
FUTURE_STARTS = START_OPS | HLO_STARTS
FUTURE_DONES = DONE_OPS | HLO_DONES
"""Every op the analysis pairs (START_OPS / DONE_OPS are StableHLO's and seed 003's,
which the overlap rules read)."""

CALLS = catalog.names(regions=catalog.CALL)
FUNC_RETURNS = catalog.names(terminator=catalog.FUNCTION_RETURN)
REGION_TERMINATORS = catalog.names(terminator=catalog.REGION_RETURN)
BRANCH_OPS = catalog.names(regions=catalog.BRANCHES)
LOOP_OPS = catalog.names(regions=catalog.LOOP)
FORWARDING = CALLS | FUNC_RETURNS | REGION_TERMINATORS
"""Ops a future may pass through (besides its done): the edges pairing follows."""
FORWARDS_HLO = catalog.FORWARDING
"""HLO ops whose results are their operands (`async-update`, `get-tuple-element`, `tuple`, ...):
a future read by one is handed on to its results."""

_HINTS = ("_start", "tessera.", "-start(", " send(", " recv(")


def may_have_futures(text: str) -> bool:
    """False when the text cannot contain a future (the fast path for big modules):
    every future comes from a start op (`async_start`, `*_start`, `tessera.collective.*`;
    HLO's `*-start(`, `send(`, `recv(`)."""
    return any(h in text for h in _HINTS)


def is_start(op: Operation) -> bool:
    return op.name in FUTURE_STARTS


def is_done(op: Operation) -> bool:
    return op.name in FUTURE_DONES


def produces_future(op: Operation, index: int) -> bool:
    """Whether result `index` of a start op is a future to pair. `async_start` and
    tessera collectives whose written type is not a future are the type rules'
    (SHLO304, SHLO333) and are not paired; seed 004's `*_start` ops may return the
    indeterminate tensor instead (its "tensors instead of futures" alternative). An HLO
    start's leaves are one future: it is rooted at its first result."""
    if op.name in HLO_STARTS:
        return index == 0
    if op.name not in START_OPS:
        return False
    if op.name != ASYNC_START and op.name not in TESSERA_STARTS:
        return True
    types = op.result_types
    t = types[index] if index < len(types) else None
    return t is None or isinstance(t, FutureType)


def future_flavor(op: Operation) -> str:
    """"tessera" for seed 003's futures, "hlo" for XLA's HLO ones, "stablehlo" otherwise."""
    return "tessera" if op.name in TESSERA_STARTS else "hlo" if op.name in HLO_STARTS else "stablehlo"


# ----------------------------------------------------------------------------- paths
@dataclass(frozen=True)
class Step:
    """One choice on a path: the op that chose and what it chose."""

    op: Operation
    text: str
    """"the case takes branch 1", "passed to @f", ..."""


@dataclass(frozen=True)
class Completion:
    """A done/await that completes the future on some path."""

    op: Operation
    calls: tuple[Operation, ...] = ()
    """The func.call ops through which it is reached from the future's function, outermost first."""
    implicit: bool = False
    """A tessera future read by an op that needs its value (an await belongs there)."""


@dataclass(frozen=True)
class Witness:
    steps: tuple[Step, ...] = ()
    completions: tuple[Completion, ...] = ()

    def then(self, other: "Witness") -> "Witness":
        return Witness(self.steps + other.steps, (self.completions + other.completions)[:2])

    def under(self, step: Step | None = None, call: Operation | None = None) -> "Witness":
        steps = ((step,) if step is not None else ()) + self.steps
        comps = self.completions
        if call is not None:
            comps = tuple(Completion(c.op, (call,) + c.calls, c.implicit) for c in comps)
        return Witness(steps, comps)


Outcome = tuple[int, frozenset]
"""(completions on the path, capped at 2; func.return positions that hand the future on)."""
Outcomes = dict

_START: dict = {(0, frozenset()): Witness()}


def compose(first: Outcomes, second: Outcomes) -> Outcomes:
    """Paths of `first` followed by paths of `second`."""
    out: Outcomes = {}
    for (c1, r1), w1 in first.items():
        for (c2, r2), w2 in second.items():
            key = (min(2, c1 + c2), r1 | r2)
            if key not in out:
                out[key] = w1.then(w2)
    return out


def union(*alternatives: Outcomes) -> Outcomes:
    out: Outcomes = {}
    for alt in alternatives:
        for k, w in alt.items():
            if k not in out or len(w.steps) < len(out[k].steps):
                out[k] = w
    return out


# ----------------------------------------------------------------------------- findings
@dataclass
class Misuse:
    """A future read by an op that is not its done, a call or a return."""

    op: Operation
    value: str
    """The name the op reads (`%f`)."""
    start: Operation | None
    """The start op (None for a future that is a function argument)."""
    tessera: bool


@dataclass
class LoopCompletion:
    """A future from outside a while loop completed inside its body."""

    loop: Operation
    completion: Completion
    start: Operation


@dataclass
class Root:
    """One future: where it is started and where it is tracked from."""

    func: Operation
    """The func.func it is tracked in."""
    anchor: Operation
    """The op defining the tracked value there (the start, or a func.call returning it)."""
    index: int
    """Result position of `anchor`."""
    start: Operation
    """The start op (in a callee for futures returned by calls)."""
    tessera: bool = False
    initial: Outcomes = field(default_factory=lambda: dict(_START))
    """What happened to the future before `anchor` returned it (in the callee)."""
    outcomes: Outcomes | None = None

    @property
    def value(self) -> Value:
        return self.anchor.results[self.index]

    @property
    def name(self) -> str:
        """The future as messages name it: the value, or an HLO start's instruction
        (`%ags`, whose leaves `%ags#0`, `%ags#1` are the one future)."""
        name = self.value.name
        return name.split("#", 1)[0] if self.start.name in HLO_STARTS else name

    def leaves(self) -> dict[str, Value]:
        """The values that are this future where it is tracked from: the anchor's result,
        or every leaf of an HLO start's tuple."""
        if self.anchor is self.start and self.start.name in HLO_STARTS:
            return {v.name: v for v in self.anchor.results}
        return {self.value.name: self.value}


class _State:
    __slots__ = ("yields", "untracked", "root")

    def __init__(self, root: Root | None):
        self.root = root
        self.yields: dict[int, set[int]] = {}
        """id(block) → positions its terminator hands the future on at."""
        self.untracked = False
        """True when the future went where pairing does not follow (a while carry)."""


class FutureAnalysis:
    """The pairing analysis of one module; build it once (`analysis(module)`)."""

    def __init__(self, module):
        self.module = module
        self.entry = module.entry_function()
        self.funcs: dict[str, Operation] = module.funcs
        self.roots: list[Root] = []
        self.misuses: dict[tuple[int, str], Misuse] = {}
        self.loop_completions: dict[tuple[int, int], LoopCompletion] = {}
        self._flows: dict[int, BlockFlow] = {}
        self._param: dict[tuple[str, int], Outcomes] = {}
        self._busy: set = set()
        self._fresh: dict[str, dict[int, list[tuple[Root, Outcomes]]]] = {}
        self._occ: dict[str, list[int]] = {}
        self.hlo = getattr(module, "front_end", "stablehlo") == "hlo"
        """XLA's HLO: uses are read from the instructions' operand names (see the module docstring)."""
        self._uses: dict[int, dict[str, list[int]]] = {}
        self._run()

    # -- helpers ----------------------------------------------------------------------
    def flow(self, block: Block) -> BlockFlow:
        f = self._flows.get(id(block))
        if f is None:
            f = self._flows[id(block)] = BlockFlow(block)
        return f

    def _func_containing(self, op: Operation) -> Operation | None:
        for anc in op.ancestors():
            if anc.name == "func.func":
                return anc
        return None

    # -- driver -----------------------------------------------------------------------
    def _run(self) -> None:
        starts: list[tuple[Operation, Operation]] = []
        calls: list[tuple[Operation, Operation]] = []
        for func in self.funcs.values():
            for op in func.walk():
                if op.name in FUTURE_STARTS:
                    starts.append((func, op))
                elif op.name in CALLS:
                    calls.append((func, op))
        for func, op in starts:
            for i in range(op.num_results):
                if produces_future(op, i):
                    self.roots.append(Root(func, op, i, op, tessera=op.name in TESSERA_STARTS))
        if not self.hlo:
            self._index(_bases({r.value.name: r.value for r in self.roots}))
        self._start_roots = list(self.roots)
        for func, call in calls:
            name = callee(call)
            if name is None or name not in self.funcs:
                continue
            for j, inner in self._fresh_results(name).items():
                if j >= call.num_results:  # the callee returns more than the call has results (a bad file)
                    continue
                root, outs = inner[0]
                initial = {(c, frozenset()): w.under(Step(call, f"returned by @{name}"), call)
                           for (c, _r), w in outs.items()}
                self.roots.append(Root(func, call, j, root.start, root.tessera, initial))
        for root in self.roots:
            self.outcomes(root)

    def outcomes(self, root: Root) -> Outcomes:
        if root.outcomes is None:
            if id(root) in self._busy:
                return {(1, frozenset()): Witness()}
            self._busy.add(id(root))
            state = _State(root)
            outs = compose(root.initial, self._after(root.anchor, root.leaves(), state))
            if state.untracked:
                outs = {(1, frozenset()): Witness()}
            root.outcomes = outs
            self._busy.discard(id(root))
        return root.outcomes

    def _fresh_results(self, fname: str) -> dict[int, list[tuple[Root, Outcomes]]]:
        """Result position of @fname → the futures it returns there (started inside)."""
        if fname in self._fresh:
            return self._fresh[fname]
        self._fresh[fname] = {}
        func = self.funcs[fname]
        out: dict[int, list[tuple[Root, Outcomes]]] = {}
        roots = [r for r in self._start_roots if r.func is func]
        # Futures started deeper and returned through calls inside this func.
        for op in func.walk():
            if op.name in CALLS and (name := callee(op)) in self.funcs and name != fname:
                for j, inner in self._fresh_results(name).items():
                    if j >= op.num_results:
                        continue
                    root, outs = inner[0]
                    initial = {(c, frozenset()): w.under(Step(op, f"returned by @{name}"), op)
                               for (c, _r), w in outs.items()}
                    roots.append(Root(func, op, j, root.start, root.tessera, initial))
        for root in roots:
            for (c, ret), w in self.outcomes(root).items():
                for j in ret:
                    out.setdefault(j, []).append((root, {(c, ret): w}))
        merged = {j: [(lst[0][0], union(*(o for _r, o in lst)))] for j, lst in out.items()}
        self._fresh[fname] = merged
        return merged

    def _param_summary(self, fname: str, index: int) -> Outcomes:
        """What @fname does to a future passed as argument `index`."""
        key = (fname, index)
        if key in self._param:
            return self._param[key]
        func = self.funcs.get(fname)
        if key in self._busy or func is None or not func.regions or not func.regions[0].blocks:
            return {(1, frozenset()): Witness()}  # recursion or no body: assume it is completed once
        self._busy.add(key)
        block = func.regions[0].blocks[0]
        args = block.arguments
        if index >= len(args):
            self._busy.discard(key)
            return {(1, frozenset()): Witness()}
        param = args[index]
        state = _State(None)
        outs = self._seq(block, 0, {param.name: param}, state)
        if state.untracked:
            outs = {(1, frozenset()): Witness()}
        self._param[key] = outs
        self._busy.discard(key)
        return outs

    # -- the walk -----------------------------------------------------------------------
    def _after(self, op: Operation, aliases: dict[str, Value], state: _State) -> Outcomes:
        """Paths from just after `op` to the end of its function, following the
        future up through region terminators that hand it on."""
        block = op.parent
        if block is None:
            return dict(_START)
        flow = self.flow(block)
        outs = self._seq(block, flow.index(op) + 1, aliases, state)
        owner = block.parent.parent
        handed = state.yields.pop(id(block), None)
        if owner is None or owner.name == "func.func" or not handed:
            return outs
        if owner.name in LOOP_OPS:
            state.untracked = True
            return outs
        for j in sorted(handed):
            if j < owner.num_results:
                v = owner.results[j]
                aliases[v.name] = v
        return compose(outs, self._after(owner, aliases, state))

    def _index(self, names: Iterable[str]) -> None:
        """Record where in the text each name occurs (one regex pass for all new names)."""
        missing = sorted({n for n in names if n not in self._occ}, key=len, reverse=True)
        if not missing:
            return
        for n in missing:
            self._occ[n] = []
        pattern = re.compile("(?:" + "|".join(map(re.escape, missing)) + r")(?![\w$.\-])")
        for m in pattern.finditer(self.module.source.text):
            self._occ[m.group(0)].append(m.start())

    def _mentions(self, flow: BlockFlow, i: int) -> list[str]:
        """The names op `i` of the block reads (its operands, as the text writes them)."""
        if not self.hlo:
            return flow.header_mentions(i)
        op = flow.ops[i]
        ins = getattr(op, "instruction", None)
        if ins is not None:
            return [f"%{n}" for n in ins.operand_names if n is not None]
        if op.name in FUNC_RETURNS or op.name in REGION_TERMINATORS:  # returns the ROOT's leaves
            return [name.split("#", 1)[0] for name, _span in op.header.operands]
        return []

    def _block_uses(self, flow: BlockFlow) -> dict[str, list[int]]:
        """HLO: name → the positions of the block's ops that read it, in order."""
        got = self._uses.get(id(flow))
        if got is None:
            got = self._uses[id(flow)] = {}
            for k in range(len(flow.ops)):
                for name in self._mentions(flow, k):
                    lst = got.setdefault(name, [])
                    if not lst or lst[-1] != k:
                        lst.append(k)
        return got

    def _next_op(self, flow: BlockFlow, bases: frozenset[str], i: int) -> int | None:
        """The first op at position >= i of the block that mentions one of `bases`."""
        ops = flow.ops
        if i >= len(ops):
            return None
        if self.hlo:
            uses = self._block_uses(flow)
            best = None
            for b in bases:
                lst = uses.get(b)
                if lst:
                    j = bisect_left(lst, i)
                    if j < len(lst) and (best is None or lst[j] < best):
                        best = lst[j]
            return best
        self._index(bases)
        pos, end = ops[i].span.start, ops[-1].span.end
        while True:
            best = None
            for b in bases:
                lst = self._occ[b]
                j = bisect_left(lst, pos)
                if j < len(lst) and lst[j] < end and (best is None or lst[j] < best):
                    best = lst[j]
            if best is None:
                return None
            k = flow.op_at(best)
            if k is not None:
                return k
            pos = best + 1

    def _seq(self, block: Block, begin: int, aliases: dict[str, Value], state: _State) -> Outcomes:
        """Paths through the ops of `block` from position `begin` on. Only ops that
        mention the future are visited (found from where its names occur in the text)."""
        flow = self.flow(block)
        outs: Outcomes = dict(_START)
        i = begin
        while True:
            k = self._next_op(flow, _bases(aliases), i)
            if k is None:
                return outs
            eff = self._op(flow, k, aliases, state)
            if eff is not None:
                outs = compose(outs, eff)
            i = k + 1

    def _op(self, flow: BlockFlow, i: int, aliases: dict[str, Value], state: _State) -> Outcomes | None:
        op = flow.ops[i]
        effects: list[Outcomes] = []
        bases = _bases(aliases)
        if not bases.isdisjoint(self._mentions(flow, i)):
            operands = op.operands
            for pos, (name, _span) in enumerate(op.header.operands):
                if name.split("#")[0] not in bases or pos >= len(operands):
                    continue
                v = operands[pos]
                if v is None or all(v is not a for a in aliases.values()):
                    continue
                eff = self._use(op, pos, v, aliases, state, flow)
                if eff is not None:
                    effects.append(eff)
                if op.name in HLO_DONES:
                    break  # the leaves of one HLO future: one completion
        if op.regions and not self.hlo:
            nested = self._regions(op, aliases, state)
            if nested is not None:
                effects.append(nested)
        if not effects:
            return None
        out = effects[0]
        for e in effects[1:]:
            out = compose(out, e)
        return out

    def _use(self, op: Operation, pos: int, v: Value, aliases: dict[str, Value], state: _State,
             flow: BlockFlow) -> Outcomes | None:
        name = op.name
        if name in FUTURE_DONES:
            return {(1, frozenset()): Witness((), (Completion(op),))}
        if self.hlo and name in FORWARDS_HLO:
            if pos < op.num_results:  # the same leaf, passed on (async-update, a tuple's element)
                r = op.results[pos]
                aliases[r.name] = r
            return None
        if self.hlo and name in BRANCH_OPS:
            state.untracked = True  # into a conditional's computations: not followed (as a while carry)
            return None
        if name in CALLS:
            fname = callee(op)
            if fname is None or fname not in self.funcs:
                return {(1, frozenset()): Witness()}  # an external callee: assume it completes it
            summary = self._param_summary(fname, pos)
            out: Outcomes = {}
            for (c, ret), w in summary.items():
                for j in ret:
                    if j < op.num_results:
                        r = op.results[j]
                        aliases[r.name] = r
                step = Step(op, f"passed to @{fname}")
                key = (c, frozenset())
                if key not in out:
                    out[key] = w.under(step, op)
            return out
        if name in FUNC_RETURNS and op.parent is not None and op.parent.parent.parent is not None \
                and op.parent.parent.parent.name == "func.func":
            return {(0, frozenset({pos})): Witness((Step(op, "returned"),))}
        if name in REGION_TERMINATORS:
            state.yields.setdefault(id(op.parent), set()).add(pos)
            return None
        if name in LOOP_OPS:
            state.untracked = True  # a future carried by a while (SHLO306): not followed
            return None
        root = state.root
        start = root.start if root is not None else None
        tessera = (root.tessera if root is not None else False) or _is_tessera_type(v)
        shown = v.name.split("#", 1)[0] if self.hlo else v.name
        self.misuses.setdefault((id(op), v.name), Misuse(op, shown, start, tessera))
        if tessera:
            return {(1, frozenset()): Witness((), (Completion(op, implicit=True),))}
        # A future-typed result of the misusing op (a future through an
        # optimization_barrier or a custom_call) is the same handle: follow it, so that
        # the done that takes it completes the future. SHLO403 reports the misuse; no
        # knock-on SHLO401 says it was never completed. (Seed 004's indeterminate
        # tensors are not followed through ops: their results are data.)
        for r, t in zip(op.results, op.result_types):
            if isinstance(t, FutureType):
                aliases[r.name] = r
        return None

    def _regions(self, op: Operation, aliases: dict[str, Value], state: _State) -> Outcomes | None:
        """The effect of the op's regions on the future (None when they do not mention it)."""
        bodies: list[Outcomes] = []
        touched = False
        for region in op.regions:
            outs: Outcomes = dict(_START)
            for block in region.blocks:
                if self._next_op(self.flow(block), _bases(aliases), 0) is not None:
                    touched = True
                    outs = compose(outs, self._seq(block, 0, aliases, state))
            bodies.append(outs)
        if not touched:
            return None
        # Region terminators that handed the future on: the op's results carry it.
        for region in op.regions:
            for block in region.blocks:
                handed = state.yields.pop(id(block), None)
                if handed and op.name in LOOP_OPS:
                    state.untracked = True
                for j in sorted(handed or ()):
                    if j < op.num_results:
                        r = op.results[j]
                        aliases[r.name] = r
        if op.name in BRANCH_OPS:
            alts = []
            for k, outs in enumerate(bodies):
                step = Step(op, _branch_words(op, k))
                alts.append({key: w.under(step) for key, w in outs.items()})
            return union(*alts)
        seq: Outcomes = dict(_START)
        for outs in bodies:
            seq = compose(seq, outs)
        if op.name in LOOP_OPS and state.root is not None:
            for (c, _r), w in seq.items():
                if c > 0 and w.completions:
                    key = (id(op), id(state.root))
                    self.loop_completions.setdefault(key, LoopCompletion(op, w.completions[0], state.root.start))
        return seq


def _bases(aliases: dict[str, Value]) -> frozenset[str]:
    """The names as the text mentions them (`%h` for `%h#0`)."""
    return frozenset(k.split("#", 1)[0] for k in aliases)


def _branch_words(op: Operation, k: int) -> str:
    if op.name == "stablehlo.if":
        return "the if takes its true branch" if k == 0 else "the if takes its false branch"
    return f"the case takes branch {k}"


def _is_tessera_type(v: Value) -> bool:
    t = v.type
    return isinstance(t, FutureType) and t.flavor == "tessera"


# ----------------------------------------------------------------------------- queries
def done_takes_misused(m: Misuse) -> bool:
    """True when a done/await later in the misusing op's block (or a region
    nested there) takes a value computed from the misusing op's results: the
    future is completed, through the misuse (SHLO403 reports it; SHLO401 must
    not add "never completed")."""
    block = m.op.parent
    if block is None:
        return False
    derived = {r.name for r in m.op.results}
    after = False
    for op in block.operations:
        if op is m.op:
            after = True
            continue
        if not after:
            continue
        for inner in op.walk():
            names = {v.name for v in inner.operands if v is not None}
            if names & derived:
                if inner.name in FUTURE_DONES:
                    return True
                derived.update(r.name for r in inner.results)
    return False


def analysis(ctx) -> FutureAnalysis | None:
    """The module's pairing analysis, built once per lint (None without futures)."""
    key = "futures.analysis"
    if key not in ctx.cache:
        module = ctx.module
        ctx.cache[key] = FutureAnalysis(module) if may_have_futures(module.source.text) else None
    return ctx.cache[key]


__all__ = ["ASYNC_DONE", "ASYNC_START", "BRANCH_OPS", "Completion", "DONE_OPS", "FORWARDING", "FORWARDS_HLO",
           "FUTURE_DONES", "FUTURE_STARTS", "FutureAnalysis", "HLO_DONES", "HLO_STARTS", "LOOP_OPS", "LoopCompletion",
           "Misuse", "Root", "START_OPS", "STABLEHLO_STARTS", "Step", "TESSERA_AWAITS", "TESSERA_STARTS", "Witness",
           "analysis", "is_done", "is_start", "may_have_futures"]
