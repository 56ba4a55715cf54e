"""The tracer's values: what a value is on every process, computed on demand (the
backward slice of branch indices and trip counts only), through the ops that
need communication facts or the tracer's frames: a collective's result
(`_received`: the same within each group, checker/uniform.py), `case` / `while`
/ `func.call` folded per process. The folds that need neither are in
checker/spmd_values.py; the tracer (checker/spmd.py) mixes this class in.
"""
from __future__ import annotations

from ..lazy_numpy import np  # imported on first use (lazy_numpy.py)

from .. import uniform as U
from ...ir.core import Block, Operation, Value
from .process_values import (_MISSING, _PER_PROCESS, NONCOMM_FUTURE, FutureVal, Table, Unknown, ValueFolding, _as_np,
                          _Frame, _join, _line, _merge, _norm, _region_of, _short, scalar_element, wrap)
from ..uniform import Uni
from .structure import CALL_OPS, CASE_OPS, INLINE_OPS, WHILE_OPS, collective_kind, collective_op, comm_role


_REDUCERS = {"stablehlo.add": "add", "stablehlo.maximum": "maximum", "stablehlo.minimum": "minimum",
             "stablehlo.multiply": "multiply", "stablehlo.and": "bitwise_and", "stablehlo.or": "bitwise_or",
             "stablehlo.xor": "bitwise_xor"}
"""The all_reduce bodies folded per process (one binary op on the two block
arguments) → the numpy ufunc that reduces a group, by name: numpy is imported
on first use (lazy_numpy.py), not when this module is."""


def _region_op(op: Operation) -> str | None:
    """The name of an all_reduce body's one computing op (`%s = add %a, %b;
    return %s`), else None."""
    if not op.regions or not op.regions[0].blocks:
        return None
    block = op.regions[0].blocks[0]
    ops = block.operations
    if len(ops) != 2 or len(block.arguments) != 2:
        return None
    body, ret = ops
    if len(body.operands) != 2 or {id(v) for v in body.operands} != {id(a) for a in block.arguments}:
        return None
    if len(ret.operands) != 1 or not body.results or ret.operands[0] is not body.results[0]:
        return None
    return body.name


class TracerValues(ValueFolding):
    """Value folding for `Tracer` (checker/spmd.py), which provides the state these
    methods read: grid, n, module, struct, frames and the budget checks."""

    # -- values (on demand) ---------------------------------------------------------------
    def _received(self, op: Operation, role: str):
        """What a communication op's result is: the same on every member of its
        group (all_reduce, all_gather, collective_broadcast, also when done
        asynchronously: a done whose future comes straight from its start), else
        per-device data."""
        if role == "done" and op.operands and op.operands[0] is not None:
            start = op.operands[0].owner
            if isinstance(start, Operation) and comm_role(start) == "start":
                op, role = start, "collective"
        key = (id(op), role)
        cached = self._received_cache.get(key)
        if cached is None:
            cached = self._received_cache[key] = self._received_uncached(op, role)
        return cached

    def _received_uncached(self, op: Operation, role: str):
        # Depends on the op and the grid only; a loop runs the same op once per trip,
        # and its groups cost O(processes) to read (see _received's cache).
        kind = collective_kind(op)
        where = f"the {kind} at line {_line(op)}"
        if role == "collective" and kind in U.SAME_VALUE_KINDS:
            groups = U.communicators(op, collective_op(op), kind, self.grid)
            if groups is not None:
                lab = U.group_labels(groups, self.n)
                if lab is None:
                    return U.UNIFORM
                return Uni(lab, (U.Origin(f"{where} (the same only within each of its process groups)", op, lab),))
        return U.per_process(self.n, f"data received by {where}", op)

    def _fold_all_reduce(self, op: Operation, frame: _Frame, depth: int):
        """An all_reduce of one integer scalar known on every process (a function of
        the process id: `lax.pmax(axis_index("x") % 2, "y")`), folded per process
        over its group, so a branch or trip count decided by it is followed
        exactly; None when it is not that (the result is then only uniform within
        each group, `_received`). Groups are read as the deadlock model reads
        them; a malformed op is left to the constraint rules."""
        ufunc = _REDUCERS.get(_region_op(op))
        reduce = getattr(np, ufunc).reduce if ufunc is not None else None
        elem = self._elem(op, 1)
        if reduce is None or elem is None or len(op.operands) != 1 or op.operands[0] is None:
            return None
        x = self.value(op.operands[0], frame, depth + 1)
        if type(x) is int:
            x = np.full(self.n, x, dtype=np.int64)
        elif not isinstance(x, np.ndarray):
            return None
        groups = U.communicators(op, op, "all_reduce", self.grid)
        if not groups:
            return None
        out = np.full(self.n, -1, dtype=np.int64)
        seen = np.zeros(self.n, dtype=bool)
        for g in groups:
            if len(g) == 0 or g.min() < 0 or g.max() >= self.n or seen[g].any():
                return None
            seen[g] = True
            out[g] = int(reduce(x[g]))
        if not seen.all():
            return None
        return _norm(wrap(out, elem))

    def value(self, v: Value, frame: _Frame, _depth: int = 0):
        region = _region_of(v)
        f: _Frame | None = frame
        while f is not None and f.region is not region:
            f = f.parent
        if f is None:
            f = frame  # a scope we did not enter as a frame: memoise locally
        got = f.values.get(v, _MISSING)
        if got is not _MISSING:
            return got
        owner = v.owner
        if isinstance(owner, Block):
            if owner is self.entry_block and self.entry_block is not None:
                got = f.values[v] = self._entry_arg(v)
                return got
            return Unknown(f"the block argument {v.name} (data)")
        if _depth > 120:
            return Unknown("a computation too deep to follow")
        vals = self._fold(owner, f, _depth)
        for r, val in zip(owner.results, vals):
            f.values[r] = val
        return f.values.get(v, Unknown(f"{owner.name} result"))

    def _op_facts(self, op: Operation) -> tuple:
        """(name, number of results, communication role) of an op: read once per
        trace (a loop folds the same ops once per trip, and a call's body once per
        call; these were most of a pipelined program's folding time)."""
        facts = self._facts.get(id(op))
        if facts is None:
            facts = self._facts[id(op)] = (op.name, op.num_results, comm_role(op))
        return facts

    def _operands(self, op: Operation) -> list:
        """op.operands, resolved once per trace (the module does not change under it)."""
        got = self._resolved.get(id(op))
        if got is None:
            got = self._resolved[id(op)] = op.operands
        return got

    def _elem(self, op: Operation, n: int):
        """The integer scalar element type of the op's one result (else None), once per trace."""
        got = self._elems.get(id(op), _MISSING)
        if got is _MISSING:
            got = self._elems[id(op)] = scalar_element(op.result_types[0]) if n == 1 and op.result_types else None
        return got

    def _fold(self, op: Operation, frame: _Frame, depth: int) -> list:
        name, n, role = self._op_facts(op)
        if name == "stablehlo.async_start" or role == "start":
            return [NONCOMM_FUTURE] * n if role is None else [Unknown("a future not started here")] * n
        if role is not None:
            if role == "collective" and n == 1 and name == "stablehlo.all_reduce":
                folded = self._fold_all_reduce(op, frame, depth)
                if folded is not None:
                    return [folded]
            return [self._received(op, role)] * max(n, 1)
        if name in CASE_OPS:
            return self._fold_case(op, frame, depth)
        if name in WHILE_OPS:
            return self._fold_while(op, frame, depth)
        if name in CALL_OPS:
            return self._fold_call(op, frame, depth)
        if name in INLINE_OPS:
            return self._fold_inline(op, frame, depth)
        elem = self._elem(op, n)
        if name == "stablehlo.partition_id":
            return [self.partition.copy()]
        if name == "stablehlo.replica_id":
            return [self.replica.copy()]
        if name == "stablehlo.constant":
            got = self._constants.get(id(op))
            if got is None:
                got = self._constant(op, elem)
                if type(got) is int or got is U.UNIFORM:
                    # Immutable and compared by value (a Table is not kept: _same
                    # tells two Tables apart by identity, so reusing one could
                    # settle a widened loop sooner than before).
                    self._constants[id(op)] = got
            return [got]
        if name == "stablehlo.optimization_barrier":
            return [self.value(v, frame, depth + 1) if v is not None else Unknown("undefined") for v in op.operands]
        if name == "stablehlo.custom_call":
            return self._custom_call(op, frame, depth)
        if name in _PER_PROCESS:
            return [U.per_process(self.n, f"the {_short(name)} at line {_line(op)}", op)] * max(n, 1)
        args = []
        all_int = True  # every argument a Python int (the memo below)
        shared = False  # some argument a Uni or a Table (only uniformity is folded)
        for v in self._operands(op):
            a = self.value(v, frame, depth + 1) if v is not None else Unknown("an undefined value")
            if type(a) is not int:
                if isinstance(a, (Unknown, FutureVal)):
                    return [a if isinstance(a, Unknown) else Unknown("a future")] * max(n, 1)
                all_int = False
                if isinstance(a, (Uni, Table)):
                    shared = True
            args.append(a)
        if name == "stablehlo.dynamic_slice" and args and isinstance(args[0], Table) and elem is not None \
                and all(isinstance(a, (int, np.ndarray)) for a in args[1:]):
            got = self._table_slice(op, args)
            if got is not None:
                return [_norm(wrap(got, elem))]
        if name == "stablehlo.gather" and len(args) == 2 and isinstance(args[0], Table) and elem is not None \
                and isinstance(args[1], (int, np.ndarray)):
            got = self._table_gather(op, args[0].array, args[1])
            if got is not None:
                return [_norm(wrap(got, elem))]
        if elem is None or shared:
            # Not an integer scalar the tracer computes: only whether it is the same
            # on every process (a constant table counts as the same everywhere).
            return [U.combine([a for a in args if not isinstance(a, Table)])] * max(n, 1)
        key = None
        if all_int:
            # The same integer scalars in, the same integer out: a loop body's
            # index arithmetic repeats on every trip and every call of a helper.
            key = (id(op), *args)
            got = self._int_folds.get(key)
            if got is not None:
                return [got]
        try:
            with np.errstate(all="ignore"):
                out = self._apply(op, name, args, elem)
        except (ValueError, TypeError, OverflowError, ZeroDivisionError) as e:
            return [Unknown(f"{_short(name)} at line {_line(op)} ({e})")]
        if isinstance(out, Unknown):
            return [U.combine(args)]
        got = _norm(wrap(out, elem))
        if key is not None and type(got) is int:
            self._int_folds[key] = got
        return [got]

    def _fold_case(self, op: Operation, frame: _Frame, depth: int) -> list:
        idx = self._branch_index(op, frame)
        if isinstance(idx, Unknown):
            return [Unknown(idx.reason, op)] * op.num_results
        if isinstance(idx, Uni):
            outs = [self._returned(region, _Frame(region, frame)) for region in op.regions]
            return [_join([r[i] if i < len(r) else Unknown("no value") for r in outs], idx)
                    for i in range(op.num_results)]
        per_branch = []
        for b, region in enumerate(op.regions):
            sel = (idx == b) if isinstance(idx, np.ndarray) else (np.ones(self.n, bool) if idx == b else None)
            if sel is None or not sel.any():
                continue
            inner = _Frame(region, frame)
            per_branch.append((sel, self._returned(region, inner)))
        return [_merge([(sel, r[i] if i < len(r) else Unknown("no value")) for sel, r in per_branch])
                for i in range(op.num_results)]

    def _fold_while(self, op: Operation, frame: _Frame, depth: int) -> list:
        if len(op.regions) != 2:
            return [Unknown("a malformed while")] * op.num_results
        cond, body = op.regions
        carried = [self.value(v, frame, depth + 1) if v is not None else Unknown("undefined") for v in op.operands]
        active = np.ones(self.n, dtype=bool)
        for _trip in range(self.max_trips + 1):
            self._check_budget()
            ret = self._region_returns(cond, frame, carried)
            pred = ret[0] if ret else Unknown("no predicate")
            if isinstance(pred, Uni):
                return self._fold_uniform_while(op, frame, carried, pred)
            if isinstance(pred, (Unknown, FutureVal, Table)):
                return [Unknown(f"a while at line {_line(op)} whose trip count depends on data", op)] * op.num_results
            go = active & (_as_np(pred) != 0)
            if not go.any():
                return carried
            new = self._region_returns(body, frame, carried)
            if len(new) != len(carried):
                return [Unknown("a malformed while")] * op.num_results
            carried = [_merge([(go, nv), (~go, c)]) for nv, c in zip(new, carried)]
            active = go
        return [Unknown(f"a while at line {_line(op)} with more than {self.max_trips} iterations", op)] * op.num_results

    def _fold_inline(self, op: Operation, frame: _Frame, depth: int) -> list:
        """An sdy.manual_computation / named_computation folded like a call: its
        region on the operands (a manual computation's on each device's shard of
        them), as the tracer runs it (`Tracer._inline`). Needed where the tracer
        did not run it, having no communication inside: JAX reads `axis_index` in
        a partially manual shard_map through a nested, operand-less manual
        computation over the other axes, and folding that from its (no) operands
        called the process id the same everywhere (a missed deadlock, XLA:CPU
        aborts)."""
        if not op.regions or not op.regions[0].blocks or depth > 120:
            return [Unknown(f"the {_short(op.name)} at line {_line(op)}")] * op.num_results
        return self._region_returns(op.regions[0], frame, self._inline_args(op, frame, depth + 1))

    def _inline_args(self, op: Operation, frame: _Frame, depth: int = 0) -> list:
        """What an sdy.manual_computation / named_computation's region is entered
        with: its operands, as each device's shard for a manual computation (the
        tracer's `_inline` and `_fold_inline` alike)."""
        args = [self.value(v, frame, depth) if v is not None else Unknown("undefined value") for v in op.operands]
        if op.name == "sdy.manual_computation":
            args = [self._shard(op, i, a) for i, a in enumerate(args)]
        return args

    def _fold_call(self, op: Operation, frame: _Frame, depth: int) -> list:
        name = self.struct.callees.get(id(op))
        func = self.struct.funcs.get(name) if name else None
        if func is None or not func.regions or depth > 120:
            return [Unknown(f"a call to @{name}")] * op.num_results
        region = func.regions[0]
        inner = _Frame(region, None)
        if region.blocks:
            self._bind(region.blocks[0], inner, [self.value(v, frame, depth + 1) if v is not None else
                                                 Unknown("undefined") for v in op.operands])
        return self._returned(region, inner)
