"""The random programs of bench/deadlock_differential.py: small multi-process
StableHLO modules written from the spec (see that script's docstring for what
they mix). `generate(seed, index)` is deterministic; `Gen` and `assemble` build
hand-picked templates from the same pieces (tests/test_deadlock_differential.py).
"""
from __future__ import annotations

import random
from dataclasses import dataclass, field

GRIDS = [(1, 2), (1, 3), (1, 4), (1, 6), (1, 8), (2, 1), (4, 1), (8, 1), (2, 2), (2, 4), (4, 2)]
T = "tensor<8xf32>"


@dataclass
class Case:
    index: int
    replicas: int
    partitions: int
    text: str
    tags: list[str] = field(default_factory=list)


@dataclass
class Spec:
    """One communicating op, emitted the same way wherever it is placed (a
    mirrored branch emits the same Spec twice: same kind, groups and channel)."""
    kind: str
    groups: list | None = None
    pairs: list | None = None
    channel: int | None = None
    global_ids: bool = False
    size: int = 1
    """Members of each process group (the all_gather / reduce_scatter factor)."""
    reduce: str = "add"


def divisors(n: int) -> list[int]:
    return [d for d in range(1, n + 1) if n % d == 0]


class Gen:
    def __init__(self, rng: random.Random, R: int, P: int):
        self.r, self.R, self.P = rng, R, P
        self.n = 0
        self.ch = 0
        self.one_channel = rng.random() < 0.3
        """Every op on channel 1 (what JAX writes for psend/precv), else a fresh one each."""
        self.tags: list[str] = []
        self.funcs: list[list[str]] = []
        """Private functions the program calls (JAX's closed_call), each its lines."""

    # -- names, channels --------------------------------------------------------------
    def fresh(self, base: str = "v") -> str:
        self.n += 1
        return f"%{base}{self.n}"

    def channel(self) -> int:
        if self.one_channel:
            return 1
        self.ch += 1
        return self.ch

    def tag(self, t: str) -> None:
        if t not in self.tags:
            self.tags.append(t)

    # -- process groups ----------------------------------------------------------------
    def partition_of(self, n: int, sizes: list[int]) -> list[list[int]]:
        """`n` ids split into equal groups of a size from `sizes`: contiguous,
        strided, or shuffled."""
        g = self.r.choice(sizes)
        ids = list(range(n))
        how = self.r.choice(["contiguous", "strided", "shuffled"]) if 1 < g < n else "contiguous"
        if how == "strided":
            k = n // g
            return [[i + k * j for j in range(g)] for i in range(k)]
        if how == "shuffled":
            self.r.shuffle(ids)
        return [sorted(ids[i:i + g]) if how == "shuffled" else ids[i:i + g] for i in range(0, n, g)]

    def collective_spec(self, kind: str) -> Spec:
        R, P = self.R, self.P
        if kind in ("all_reduce", "all_gather", "reduce_scatter"):
            modes = ["flat", "flat", "flat", "cross_replica", "cross_replica_and_partition"]
        else:
            modes = ["cross_partition", "cross_partition", "cross_replica"]
        mode = self.r.choice(modes)
        axis = {"flat": R * P, "cross_replica": R, "cross_replica_and_partition": R,
                "cross_partition": P}[mode]
        factor = P if mode == "cross_replica_and_partition" else 1
        sizes = divisors(axis)
        if kind in ("reduce_scatter", "all_to_all"):
            sizes = [g for g in sizes if 8 % (g * factor) == 0]
            if not sizes:
                return self.collective_spec("all_reduce")
        if axis > 1 and len(sizes) > 1 and self.r.random() < 0.6:
            sizes = [g for g in sizes if g > 1]  # mostly groups that communicate
        groups = self.partition_of(axis, sizes)
        channel = self.channel() if mode != "cross_replica" else None
        if mode == "cross_replica" and self.r.random() < 0.15:
            channel = 0  # a non-positive handle reads as no channel
        self.tag(f"{kind}:{mode}")
        if len(groups[0]) < axis:
            self.tag("partial-groups")
        return Spec(kind, groups=groups, channel=channel, global_ids=mode == "flat",
                    size=len(groups[0]) * factor, reduce=self.r.choice(["add", "add", "maximum"]))

    def permute_spec(self) -> Spec:
        with_channel = self.P > 1 and (self.R == 1 or self.r.random() < 0.6)
        n = self.P if with_channel else self.R
        if n < 2:
            return self.collective_spec("all_reduce")
        shape = self.r.choice(["ring", "ring", "swap", "one-way", "partial-ring"])
        if shape == "ring":
            pairs = [[i, (i + 1) % n] for i in range(n)]
        elif shape == "swap":
            pairs = [[0, 1], [1, 0]]
        elif shape == "one-way":
            pairs = [[0, n - 1]]
        else:
            m = self.r.randrange(2, n + 1)
            pairs = [[i, i + 1] for i in range(m - 1)]
        self.tag(f"collective_permute:{'cross_partition' if with_channel else 'cross_replica'}:{shape}")
        return Spec("collective_permute", pairs=pairs, channel=self.channel() if with_channel else None)

    def spec(self) -> Spec:
        kind = self.r.choices(["all_reduce", "all_gather", "reduce_scatter", "all_to_all", "collective_permute",
                               "collective_broadcast"], [4, 2, 1.5, 1.5, 2.5, 0.4])[0]
        return self.permute_spec() if kind == "collective_permute" else self.collective_spec(kind)

    # -- emitting ------------------------------------------------------------------------
    @staticmethod
    def dense(rows: list[list[int]]) -> str:
        body = ", ".join("[" + ", ".join(map(str, row)) + "]" for row in rows)
        return f"dense<[{body}]> : tensor<{len(rows)}x{len(rows[0])}xi64>"

    def attrs(self, s: Spec, extra: list[str]) -> str:
        out = list(extra)
        if s.groups is not None:
            out.append(f"replica_groups = {self.dense(s.groups)}")
        if s.pairs is not None:
            out.append(f"source_target_pairs = {self.dense(s.pairs)}")
        if s.channel is not None:
            out.append(f"channel_handle = #stablehlo.channel_handle<handle = {s.channel}, type = 1>")
        if s.global_ids:
            out.append("use_global_device_ids")
        return "<{" + ", ".join(out) + "}>"

    def region(self, ind: str, elem: str, op: str) -> list[str]:
        a, b, t = self.fresh("a"), self.fresh("b"), self.fresh("t")
        return [f"{ind}  ^bb0({a}: tensor<{elem}>, {b}: tensor<{elem}>):",
                f"{ind}    {t} = stablehlo.{op} {a}, {b} : tensor<{elem}>",
                f"{ind}    stablehlo.return {t} : tensor<{elem}>"]

    def emit(self, s: Spec, x: str, out: list[str], ind: str) -> str:
        y = self.fresh()
        k = s.kind
        if k == "all_reduce":
            out.append(f'{ind}{y} = "stablehlo.all_reduce"({x}) {self.attrs(s, [])} ({{')
            out += self.region(ind, "f32", s.reduce)
            out.append(f"{ind}}}) : ({T}) -> {T}")
            return y
        if k == "all_gather":
            n = 8 * s.size
            out.append(f'{ind}{y} = "stablehlo.all_gather"({x}) {self.attrs(s, ["all_gather_dim = 0 : i64"])}'
                       f" : ({T}) -> tensor<{n}xf32>")
            if n == 8:
                return y
            z = self.fresh()
            out.append(f'{ind}{z} = "stablehlo.slice"({y}) <{{start_indices = array<i64: {8 * (s.size - 1)}>, '
                       f"limit_indices = array<i64: {n}>, strides = array<i64: 1>}}> : (tensor<{n}xf32>) -> {T}")
            return z
        if k == "reduce_scatter":
            n = 8 // s.size
            out.append(f'{ind}{y} = "stablehlo.reduce_scatter"({x}) '
                       f'{self.attrs(s, ["scatter_dimension = 0 : i64"])} ({{')
            out += self.region(ind, "f32", s.reduce)
            out.append(f"{ind}}}) : ({T}) -> tensor<{n}xf32>")
            if n == 8:
                return y
            z = self.fresh()
            args = ", ".join([y] * s.size)
            types = ", ".join([f"tensor<{n}xf32>"] * s.size)
            out.append(f'{ind}{z} = "stablehlo.concatenate"({args}) <{{dimension = 0 : i64}}> : ({types}) -> {T}')
            return z
        if k == "all_to_all":
            extra = ["split_dimension = 0 : i64", "concat_dimension = 0 : i64", f"split_count = {s.size} : i64"]
            out.append(f'{ind}{y} = "stablehlo.all_to_all"({x}) {self.attrs(s, extra)} : ({T}) -> {T}')
            return y
        if k in ("collective_permute", "collective_broadcast"):
            out.append(f'{ind}{y} = "stablehlo.{k}"({x}) {self.attrs(s, [])} : ({T}) -> {T}')
            return y
        raise AssertionError(k)

    # -- process ids and predicates -----------------------------------------------------------
    def const(self, out: list[str], ind: str, value, typ: str) -> str:
        c = self.fresh("c")
        out.append(f"{ind}{c} = stablehlo.constant dense<{value}> : tensor<{typ}>")
        return c

    def process_index(self, out: list[str], ind: str) -> tuple[str, int]:
        """An i32 process coordinate and its range: the partition id (JAX's
        axis_index chain, or a plain convert), the replica id, or the flattened id."""
        R, P = self.R, self.P
        which = self.r.choice(["partition"] * (P > 1) * 2 + ["replica"] * (R > 1) + ["flat"] * (R > 1 and P > 1))
        if which in ("partition", "replica"):
            v = self.fresh("id")
            n = P if which == "partition" else R
            out.append(f"{ind}{v} = stablehlo.{which}_id : tensor<ui32>")
            if self.r.random() < 0.5:  # jax.lax.axis_index: partition_id / 1 % n
                one, m = self.const(out, ind, 1, "ui32"), self.const(out, ind, n, "ui32")
                d, rem = self.fresh(), self.fresh()
                out.append(f"{ind}{d} = stablehlo.divide {v}, {one} : tensor<ui32>")
                out.append(f"{ind}{rem} = stablehlo.remainder {d}, {m} : tensor<ui32>")
                v = rem
                self.tag("axis_index-chain")
            w = self.fresh()
            out.append(f"{ind}{w} = stablehlo.convert {v} : (tensor<ui32>) -> tensor<i32>")
            return w, n
        rid, pid = self.fresh("id"), self.fresh("id")
        out.append(f"{ind}{rid} = stablehlo.replica_id : tensor<ui32>")
        out.append(f"{ind}{pid} = stablehlo.partition_id : tensor<ui32>")
        cp = self.const(out, ind, P, "ui32")
        m, f, w = self.fresh(), self.fresh(), self.fresh()
        out.append(f"{ind}{m} = stablehlo.multiply {rid}, {cp} : tensor<ui32>")
        out.append(f"{ind}{f} = stablehlo.add {m}, {pid} : tensor<ui32>")
        out.append(f"{ind}{w} = stablehlo.convert {f} : (tensor<ui32>) -> tensor<i32>")
        return w, R * P

    def process_predicate(self, out: list[str], ind: str) -> str:
        v, n = self.process_index(out, ind)
        how = self.r.choice(["LT", "EQ", "even", "GE"])
        p = self.fresh("p")
        if how == "even":
            two, zero = self.const(out, ind, 2, "i32"), self.const(out, ind, 0, "i32")
            m = self.fresh()
            out.append(f"{ind}{m} = stablehlo.remainder {v}, {two} : tensor<i32>")
            out.append(f"{ind}{p} = stablehlo.compare EQ, {m}, {zero}, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>")
        else:
            k = self.const(out, ind, self.r.randrange(0, n), "i32")
            out.append(f"{ind}{p} = stablehlo.compare {how}, {v}, {k}, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>")
        return p

    def reduced_index(self, out: list[str], ind: str, op: str) -> tuple[str, bool]:
        """An all_reduce (`op`) of a process coordinate over flattened-id groups:
        the same on every member of each group. Returns (value, whole grid?)."""
        v, _n = self.process_index(out, ind)
        N = self.R * self.P
        groups = self.partition_of(N, [g for g in divisors(N) if g > 1] or [1])
        whole = len(groups) == 1
        s = Spec("all_reduce", groups=groups, channel=self.channel(), global_ids=True)
        y = self.fresh()
        out.append(f'{ind}{y} = "stablehlo.all_reduce"({v}) {self.attrs(s, [])} ({{')
        out += self.region(ind, "i32", op)
        out.append(f"{ind}}}) : (tensor<i32>) -> tensor<i32>")
        self.tag("uniform-allreduce" if whole else "group-uniform-allreduce")
        return y, whole

    def uniform_predicate(self, out: list[str], ind: str, x: str) -> str:
        how = self.r.choices(["constant", "all_reduce", "data"], [1, 3, 1])[0]
        p = self.fresh("p")
        if how == "constant":
            out.append(f"{ind}{p} = stablehlo.constant dense<{self.r.choice(['true', 'false'])}> : tensor<i1>")
            self.tag("constant-predicate")
        elif how == "all_reduce":
            y, _ = self.reduced_index(out, ind, "add")
            k = self.const(out, ind, self.r.randrange(0, self.R * self.P * 2), "i32")
            out.append(f"{ind}{p} = stablehlo.compare LT, {y}, {k}, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>")
        else:  # per-device data: the first element of this process's input
            e, s = self.fresh(), self.fresh()
            zero = self.const(out, ind, "0.0", "f32")
            out.append(f'{ind}{e} = "stablehlo.slice"({x}) <{{start_indices = array<i64: 0>, limit_indices = '
                       f"array<i64: 1>, strides = array<i64: 1>}}> : ({T}) -> tensor<1xf32>")
            out.append(f"{ind}{s} = stablehlo.reshape {e} : (tensor<1xf32>) -> tensor<f32>")
            out.append(f"{ind}{p} = stablehlo.compare GT, {s}, {zero} : (tensor<f32>, tensor<f32>) -> tensor<i1>")
            self.tag("data-predicate")
        return p

    # -- segments ------------------------------------------------------------------------------
    def segment(self, x: str, out: list[str], ind: str, depth: int) -> str:
        kinds = ["collective", "pair", "sendrecv"]
        weights = [4, 1, 0.3 if self.P > 1 else 0]
        if depth < 2:
            kinds += ["branch", "uniform-branch", "while", "swap", "call", "switch"]
            weights += [3, 1.5, 2, 1.5, 1, 1]
        k = self.r.choices(kinds, weights)[0]
        return getattr(self, "seg_" + k.replace("-", "_"))(x, out, ind, depth)

    def body(self, x: str, out: list[str], ind: str, depth: int, lo: int = 0, hi: int = 2) -> str:
        for _ in range(self.r.randint(lo, hi)):
            x = self.segment(x, out, ind, depth)
        return x

    def seg_collective(self, x, out, ind, depth):
        return self.emit(self.spec(), x, out, ind)

    def seg_pair(self, x, out, ind, depth):
        """Two collectives on the same operand: no data dependence, so XLA's
        scheduler orders them."""
        a = self.emit(self.spec(), x, out, ind)
        b = self.emit(self.spec(), x, out, ind)
        y = self.fresh()
        out.append(f"{ind}{y} = stablehlo.add {a}, {b} : {T}")
        self.tag("independent-pair")
        return y

    def seg_sendrecv(self, x, out, ind, depth):
        P = self.P
        shape = self.r.choice(["ring", "chain"])
        pairs = [[i, (i + 1) % P] for i in range(P)] if shape == "ring" else [[i, i + 1] for i in range(P - 1)]
        if P == 2 and shape == "ring":
            pairs = [[0, 1], [1, 0]]
        ch = self.channel()
        rch = ch if self.r.random() < 0.85 else ch + 100
        rpairs = pairs if self.r.random() < 0.85 else [[b, a] for a, b in pairs]
        recv_first = self.r.random() < 0.35
        self.tag(f"sendrecv:{shape}" + (":recv-first" if recv_first else "") + (":channel-mismatch" if rch != ch else "")
                 + (":pairs-mismatch" if rpairs != pairs else ""))
        tok = self.fresh("tok")
        out.append(f"{ind}{tok} = stablehlo.after_all : !stablehlo.token")

        def send(t):
            s = self.fresh("tok")
            out.append(f'{ind}{s} = "stablehlo.send"({x}, {t}) <{{channel_handle = #stablehlo.channel_handle<'
                       f"handle = {ch}, type = 1>, source_target_pairs = {self.dense(pairs)}}}> : "
                       f"({T}, !stablehlo.token) -> !stablehlo.token")
            return s

        def recv(t):
            rv = self.fresh("rv")
            out.append(f'{ind}{rv}:2 = "stablehlo.recv"({t}) <{{channel_handle = #stablehlo.channel_handle<'
                       f"handle = {rch}, type = 1>, source_target_pairs = {self.dense(rpairs)}}}> : "
                       f"(!stablehlo.token) -> ({T}, !stablehlo.token)")
            return rv

        if recv_first:
            rv = recv(tok)
            send(f"{rv}#1")
        else:
            rv = recv(send(tok))
        y = self.fresh()
        out.append(f"{ind}{y} = stablehlo.add {x}, {rv}#0 : {T}")
        return y

    def branch(self, pred: str, x: str, out: list[str], ind: str, sides: list) -> str:
        """`sides`: one callable per branch (i1 predicate: [else, then] for case,
        [then, else] for if), each emitting into (out, ind) and returning its value."""
        y = self.fresh("r")
        if self.r.random() < 0.5:
            idx = self.fresh("i")
            out.append(f"{ind}{idx} = stablehlo.convert {pred} : (tensor<i1>) -> tensor<i32>")
            out.append(f'{ind}{y} = "stablehlo.case"({idx}) ({{')
            order, op, typ = sides, "case", "tensor<i32>"
        else:
            out.append(f'{ind}{y} = "stablehlo.if"({pred}) ({{')
            order, op, typ = sides[::-1], "if", "tensor<i1>"
        self.tag(op)
        for i, side in enumerate(order):
            if i:
                out.append(f"{ind}}}, {{")
            v = side(out, ind + "  ")
            out.append(f"{ind}  stablehlo.return {v} : {T}")
        out.append(f"{ind}}}) : ({typ}) -> {T}")
        return y

    def seg_branch(self, x, out, ind, depth):
        pred = self.process_predicate(out, ind)
        self.tag("process-branch")
        style = self.r.choice(["independent", "mirror", "one-sided"])
        if style == "mirror":  # the same collectives on both sides: each process reaches them
            specs = [self.spec() for _ in range(self.r.randint(1, 2))]
            fresh_channels = not self.one_channel and self.r.random() < 0.3

            def side_of(first):
                def side(o, i):
                    v = x
                    for s in specs:
                        if not first and fresh_channels and s.channel:
                            s = Spec(**{**s.__dict__, "channel": self.channel()})
                        v = self.emit(s, v, o, i)
                    return v
                return side
            self.tag("mirror" + ("-fresh-channels" if fresh_channels else ""))
            return self.branch(pred, x, out, ind, [side_of(True), side_of(False)])
        if style == "one-sided":
            self.tag("one-sided")
            return self.branch(pred, x, out, ind, [lambda o, i: self.body(x, o, i, depth + 1, 1, 2), lambda o, i: x])
        return self.branch(pred, x, out, ind, [lambda o, i: self.body(x, o, i, depth + 1),
                                               lambda o, i: self.body(x, o, i, depth + 1)])

    def seg_call(self, x, out, ind, depth):
        """The segments in a private function, called once or from both sides of
        a branch on the process id (one function, two call sites)."""
        name = f"@f{self.fresh('f')[2:]}"
        arg = self.fresh("arg")
        lines = [f"  func.func private {name}({arg}: {T}) -> {T} {{"]
        y = self.body(arg, lines, "    ", depth + 1, 1, 2)
        lines += [f"    return {y} : {T}", "  }"]
        self.funcs.append(lines)
        self.tag("call")

        def call(o, i, v=x):
            r = self.fresh()
            o.append(f"{i}{r} = func.call {name}({v}) : ({T}) -> {T}")
            return r
        if self.r.random() < 0.5:
            return call(out, ind)
        self.tag("call-in-both-branches")
        pred = self.process_predicate(out, ind)
        return self.branch(pred, x, out, ind, [call, lambda o, i: call(o, i, self.emit(self.spec(), x, o, i))])

    def seg_switch(self, x, out, ind, depth):
        """A three-way `case` on the process index modulo 3 (`lax.switch`)."""
        v, _n = self.process_index(out, ind)
        three = self.const(out, ind, 3, "i32")
        idx, y = self.fresh("i"), self.fresh("r")
        out.append(f"{ind}{idx} = stablehlo.remainder {v}, {three} : tensor<i32>")
        out.append(f'{ind}{y} = "stablehlo.case"({idx}) ({{')
        shared = self.spec() if self.r.random() < 0.5 else None
        for k in range(3):
            if k:
                out.append(f"{ind}}}, {{")
            w = self.emit(shared, x, out, ind + "  ") if shared is not None else self.body(x, out, ind + "  ",
                                                                                          depth + 1, 0, 1)
            out.append(f"{ind}  stablehlo.return {w} : {T}")
        out.append(f"{ind}}}) : (tensor<i32>) -> {T}")
        self.tag("switch3" + ("-same-op-kind" if shared is not None else ""))
        return y

    def seg_swap(self, x, out, ind, depth):
        """The same two collectives, in opposite orders on the two sides of a
        branch on the process id."""
        pred = self.process_predicate(out, ind)
        a, b = self.spec(), self.spec()
        self.tag("swapped-order")

        def side(first, second):
            return lambda o, i: self.emit(second, self.emit(first, x, o, i), o, i)
        return self.branch(pred, x, out, ind, [side(a, b), side(b, a)])

    def seg_uniform_branch(self, x, out, ind, depth):
        pred = self.uniform_predicate(out, ind, x)
        self.tag("uniform-branch")
        return self.branch(pred, x, out, ind, [lambda o, i: self.body(x, o, i, depth + 1, 1, 2),
                                               lambda o, i: self.body(x, o, i, depth + 1, 0, 1)])

    def seg_while(self, x, out, ind, depth):
        how = self.r.choice(["constant", "process", "process", "pmax", "pmax-group"])
        if how == "constant":
            n = self.const(out, ind, self.r.randint(1, 3), "i32")
        else:
            v, _ = self.process_index(out, ind)
            two, one = self.const(out, ind, 2, "i32"), self.const(out, ind, 1, "i32")
            m, n = self.fresh(), self.fresh("n")
            out.append(f"{ind}{m} = stablehlo.remainder {v}, {two} : tensor<i32>")
            out.append(f"{ind}{n} = stablehlo.add {m}, {one} : tensor<i32>")
            if how.startswith("pmax"):
                N = self.R * self.P
                sizes = [N] if how == "pmax" else ([g for g in divisors(N) if 1 < g < N] or [N])
                s = Spec("all_reduce", groups=self.partition_of(N, sizes), channel=self.channel(), global_ids=True)
                y = self.fresh("n")
                out.append(f'{ind}{y} = "stablehlo.all_reduce"({n}) {self.attrs(s, [])} ({{')
                out += self.region(ind, "i32", "maximum")
                out.append(f"{ind}}}) : (tensor<i32>) -> tensor<i32>")
                n = y
        self.tag(f"while:{how}")
        zero, one = self.const(out, ind, 0, "i32"), self.const(out, ind, 1, "i32")
        w, i, acc = self.fresh("w"), self.fresh("it"), self.fresh("acc")
        out.append(f"{ind}{w}:2 = stablehlo.while({i} = {zero}, {acc} = {x}) : tensor<i32>, {T}")
        lt = self.fresh("lt")
        out += [f"{ind}cond {{",
                f"{ind}  {lt} = stablehlo.compare LT, {i}, {n}, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>",
                f"{ind}  stablehlo.return {lt} : tensor<i1>",
                f"{ind}}} do {{"]
        v = self.body(acc, out, ind + "  ", depth + 1, 1, 2)
        i1 = self.fresh("it")
        out += [f"{ind}  {i1} = stablehlo.add {i}, {one} : tensor<i32>",
                f"{ind}  stablehlo.return {i1}, {v} : tensor<i32>, {T}",
                f"{ind}}}"]
        return f"{w}#1"


def generate(seed: int, index: int) -> Case:
    rng = random.Random(seed * 1_000_003 + index)
    R, P = rng.choice(GRIDS)
    return assemble(Gen(rng, R, P), lambda g, out: g.body("%x", out, "    ", 0, 1, 3), index,
                    f"seed {seed} case {index}")


def assemble(g: Gen, build, index: int = 0, title: str = "") -> Case:
    """The module around what `build(g, lines)` emits into main's body (it returns
    main's result), with the functions it made `g` create."""
    out: list[str] = []
    y = build(g, out)
    text = "\n".join([
        f"// deadlock_differential {title}: {', '.join(g.tags)}",
        f"module @case{index} attributes {{mhlo.num_partitions = {g.P} : i32, mhlo.num_replicas = {g.R} : i32}} {{",
        f"  func.func public @main(%x: {T}) -> {T} {{",
        *out,
        f"    return {y} : {T}",
        "  }",
        *[line for f in g.funcs for line in f],
        "}",
        ""])
    return Case(index, g.R, g.P, text, g.tags)
