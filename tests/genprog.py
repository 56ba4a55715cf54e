"""Random well-formed StableHLO programs for the parser's differential test.

`program(seed)` returns one module's text: a few functions whose ops are drawn
from templates covering the syntax the parser reads — generic and pretty forms,
gather / scatter / dynamic shapes / sort / while / case / collectives / send /
recv / custom_call / constants of every dense form / sdy shardings — with and
without locations (inline `loc(...)` and `loc(#locN)` aliases), and now and then
another line layout (a signature on its own line, an op split over lines).

The programs are syntactically well-formed, not type-correct: the test compares
the parser with itself (cached vs afresh, in any order), not with a verifier.
Attribute bodies repeat across ops and programs with other types and names, on
purpose: that is what the caches key on.
"""
from __future__ import annotations

import random

ELEMS = ["f32", "f16", "bf16", "i32", "i64", "i8", "i1", "ui32", "f64"]
DIMS = ["2", "4", "8", "?", "16"]


class _Gen:
    def __init__(self, seed: int):
        self.r = random.Random(seed)
        self.n = 0
        self.locs: list[str] = []
        self.values: list[tuple[str, str]] = []

    # -- pieces -------------------------------------------------------------------
    def pick(self, xs):
        return xs[self.r.randrange(len(xs))]

    def tensor(self, rank=None, elem=None, dynamic=True) -> str:
        rank = self.r.randrange(0, 4) if rank is None else rank
        dims = [self.pick(DIMS) if dynamic else self.pick(DIMS[:3]) for _ in range(rank)]
        return f"tensor<{''.join(d + 'x' for d in dims)}{elem or self.pick(ELEMS)}>"

    def name(self) -> str:
        self.n += 1
        return f"%{self.pick(['', 'v', 'x_', 'arg_'])}{self.n}"

    def operand(self) -> str:
        return self.pick(self.values)[0] if self.values else "%arg0"

    def loc(self) -> str:
        k = self.r.randrange(6)
        if k == 0:
            return ""
        if k == 1:
            return ' loc(unknown)'
        if k == 2:
            return f' loc("src/model.py":{self.r.randrange(1, 400)}:{self.r.randrange(1, 80)})'
        if k == 3:
            return f' loc("jit(f)/mul"("src/m.py":{self.r.randrange(1, 99)}:3))'
        idx = len(self.locs)
        self.locs.append(self.pick([f'loc("f.py":{idx + 1}:{self.r.randrange(1, 40)})',
                                    f'loc("op{idx}"("g.py":{idx}:1 to :9))',
                                    f'loc(callsite("a.py":1:2 at "b.py":{idx}:4))',
                                    f'loc(fused["x.py":1:1, "y.py":{idx}:2])']))
        return f" loc(#loc{idx})"

    def groups(self) -> str:
        n = self.pick([2, 4, 8])
        k = self.pick([1, 2])
        rows = [[r * n + c for c in range(n)] for r in range(k)]
        return f"dense<{rows}> : tensor<{k}x{n}xi64>".replace(" ", "").replace(":tensor", " : tensor")

    def channel(self) -> str:
        return f"#stablehlo.channel_handle<handle = {self.r.randrange(1, 9)}, type = {self.pick([0, 1, 2, 3])}>"

    def region_add(self, elem: str, pretty_label=True) -> str:
        a, b, s = self.name(), self.name(), self.name()
        t = f"tensor<{elem}>"
        return (f"({{\n    ^bb0({a}: {t}, {b}: {t}):\n      {s} = stablehlo.add {a}, {b} : {t}\n"
                f"      stablehlo.return {s} : {t}\n    }})")

    # -- ops ------------------------------------------------------------------------
    def op(self) -> str:
        kind = self.pick(OPS)
        return getattr(self, "op_" + kind)()

    def _res(self, t: str) -> str:
        v = self.name()
        self.values.append((v, t))
        return v

    def op_add(self):
        t = self.tensor()
        a, b = self.operand(), self.operand()
        if self.r.random() < 0.5:
            return f"{self._res(t)} = stablehlo.add {a}, {b} : {t}{self.loc()}"
        return f'{self._res(t)} = "stablehlo.add"({a}, {b}) : ({t}, {t}) -> {t}{self.loc()}'

    def op_constant(self):
        elem = self.pick(["f32", "i32", "i1", "complex<f32>", "i64"])
        forms = {
            "f32": ["dense<1.500000e+00>", "dense<[1.0, -2.5]>", 'dense<"0x0000803F00000040">', "dense<[[1.0], [2.0]]>"],
            "i32": ["dense<7>", "dense<[1, 2]>", 'dense<"0x0100000002000000">', "dense<[[1, 2], [3, 4]]>"],
            "i1": ["dense<true>", "dense<[true, false]>"],
            "complex<f32>": ["dense<(1.0,2.0)>", "dense<[(1.0, 2.0), (3.0, 4.0)]>"],
            "i64": ["dense<0>", "dense<[[0, 1, 2, 3]]>"],
        }[elem]
        lit = self.pick(forms)
        t = self.tensor(rank=self.pick([0, 1, 2]), elem=elem, dynamic=False)
        if self.r.random() < 0.6:
            return f"{self._res(t)} = stablehlo.constant {lit} : {t}{self.loc()}"
        return f'{self._res(t)} = "stablehlo.constant"() <{{value = {lit} : {t}}}> : () -> {t}{self.loc()}'

    def op_gather(self):
        t = self.tensor(rank=2)
        idx = self.tensor(rank=2, elem=self.pick(["i32", "i64"]))
        dn = self.pick(["offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1",
                        "offset_dims = [0, 1], collapsed_slice_dims = [0], start_index_map = [0]",
                        "offset_dims = [1], collapsed_slice_dims = [0], operand_batching_dims = [1], "
                        "start_indices_batching_dims = [0], start_index_map = [0], index_vector_dim = 1"])
        return (f'{self._res(t)} = "stablehlo.gather"({self.operand()}, {self.operand()}) <{{dimension_numbers = '
                f'#stablehlo.gather<{dn}>, indices_are_sorted = {self.pick(["false", "true"])}, '
                f'slice_sizes = array<i64: 1, {self.pick([1, 4, 8])}>}}> : ({t}, {idx}) -> {t}{self.loc()}')

    def op_scatter(self):
        elem = self.pick(["f32", "i32"])
        t = self.tensor(rank=2, elem=elem)
        upd = self.tensor(rank=2, elem=elem)
        sd = self.pick(["update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], "
                        "index_vector_dim = 1", "inserted_window_dims = [0, 1], scatter_dims_to_operand_dims = [0, 1]"])
        return (f'{self._res(t)} = "stablehlo.scatter"({self.operand()}, {self.operand()}, {self.operand()}) '
                f'<{{indices_are_sorted = true, scatter_dimension_numbers = #stablehlo.scatter<{sd}>, '
                f'unique_indices = {self.pick(["true", "false"])}}}> {self.region_add(elem)} : '
                f'({t}, tensor<1x1xi32>, {upd}) -> {t}{self.loc()}')

    def op_dynamic(self):
        t = self.tensor(rank=2, elem="f32", dynamic=True)
        k = self.r.randrange(3)
        if k == 0:
            return (f"{self._res(t)} = stablehlo.dynamic_broadcast_in_dim {self.operand()}, {self.operand()}, "
                    f"dims = [0, 1] : (tensor<?x?xf32>, tensor<2xindex>) -> {t}{self.loc()}")
        if k == 1:
            return f"{self._res(t)} = stablehlo.dynamic_iota {self.operand()}, dim = 0 : (tensor<2xi64>) -> {t}{self.loc()}"
        return (f'{self._res(t)} = "stablehlo.dynamic_reshape"({self.operand()}, {self.operand()}) : '
                f"(tensor<?xf32>, tensor<2xi64>) -> {t}{self.loc()}")

    def op_sort(self):
        t = self.tensor(rank=1, elem="f32")
        a, b, c = self.name(), self.name(), self.name()
        r1, r2 = self.name(), self.name()
        self.values += [(r1, t)]
        return (f'{r1}, {r2} = "stablehlo.sort"({self.operand()}, {self.operand()}) <{{dimension = 0 : i64, '
                f'is_stable = true}}> ({{\n    ^bb0({a}: tensor<f32>, {b}: tensor<f32>, %p{self.n}: tensor<f32>, %q{self.n}: tensor<f32>):\n'
                f"      {c} = stablehlo.compare  GT, {a}, {b},  FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>\n"
                f"      stablehlo.return {c} : tensor<i1>\n    }}) : ({t}, {t}) -> ({t}, {t}){self.loc()}")

    def op_while(self):
        t = self.tensor(rank=1)
        v = self.name()
        it = self.name()
        c, d = self.name(), self.name()
        self.values.append((v, t))
        if self.r.random() < 0.5:
            return (f"{v}:2 = stablehlo.while({it} = {self.operand()}, %it{self.n} = {self.operand()}) : tensor<i32>, {t}\n"
                    f"    cond {{\n      {c} = stablehlo.compare  LT, {it}, {it},  SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>\n"
                    f"      stablehlo.return {c} : tensor<i1>\n    }} do {{\n"
                    f"      {d} = stablehlo.add {it}, {it} : tensor<i32>\n      stablehlo.return {d}, %it{self.n} : tensor<i32>, {t}\n"
                    f"    }}{self.loc()}")
        return (f'{v}:2 = "stablehlo.while"({self.operand()}, {self.operand()}) ({{\n'
                f"    ^bb0({it}: tensor<i32>, %w{self.n}: {t}):\n      {c} = stablehlo.constant dense<true> : tensor<i1>\n"
                f"      stablehlo.return {c} : tensor<i1>\n    }}, {{\n    ^bb0({it}: tensor<i32>, %w{self.n}: {t}):\n"
                f'      "stablehlo.return"({it}, %w{self.n}) : (tensor<i32>, {t}) -> ()\n'
                f"    }}) : (tensor<i32>, {t}) -> (tensor<i32>, {t}){self.loc()}")

    def op_case(self):
        t = self.tensor(rank=1)
        v = self._res(t)
        branches = ", ".join(f"{{\n      stablehlo.return {self.operand()} : {t}\n    }}" for _ in range(self.pick([1, 2, 3])))
        return f'{v} = "stablehlo.case"({self.operand()}) ({branches}) : (tensor<i32>) -> {t}{self.loc()}'

    def op_collective(self):
        elem = self.pick(["f32", "i32"])
        t = self.tensor(rank=1, elem=elem, dynamic=False)
        k = self.r.randrange(7)
        ch = f"channel_handle = {self.channel()}, " if self.r.random() < 0.6 else ""
        g = self.groups()
        uid = ", use_global_device_ids" if ch and self.r.random() < 0.5 else ""
        if k == 0:
            return (f'{self._res(t)} = "stablehlo.all_reduce"({self.operand()}) <{{{ch}replica_groups = {g}{uid}}}> '
                    f"{self.region_add(elem)} : ({t}) -> {t}{self.loc()}")
        if k == 1:
            return (f'{self._res(t)} = "stablehlo.all_gather"({self.operand()}) <{{all_gather_dim = 0 : i64, {ch}'
                    f"replica_groups = {g}{uid}}}> : ({t}) -> {t}{self.loc()}")
        if k == 2:
            return (f'{self._res(t)} = "stablehlo.reduce_scatter"({self.operand()}) <{{{ch}replica_groups = {g}, '
                    f"scatter_dimension = 0 : i64{uid}}}> {self.region_add(elem)} : ({t}) -> {t}{self.loc()}")
        if k == 3:
            return (f'{self._res(t)} = "stablehlo.all_to_all"({self.operand()}) <{{concat_dimension = 0 : i64, {ch}'
                    f"replica_groups = {g}, split_count = 2 : i64, split_dimension = 0 : i64}}> : ({t}) -> {t}{self.loc()}")
        if k == 4:
            pairs = self.pick(["dense<[[0, 1], [1, 0]]> : tensor<2x2xi64>", "dense<[[0, 1]]> : tensor<1x2xi64>"])
            return (f'{self._res(t)} = "stablehlo.collective_permute"({self.operand()}) <{{{ch}'
                    f"source_target_pairs = {pairs}}}> : ({t}) -> {t}{self.loc()}")
        if k == 5:
            return (f'{self._res(t)} = "stablehlo.collective_broadcast"({self.operand()}) <{{{ch}replica_groups = {g}}}> '
                    f": ({t}) -> {t}{self.loc()}")
        return (f"{self._res(t)} = stablehlo.reduce({self.operand()} init: {self.operand()}) applies stablehlo.add "
                f"across dimensions = [0] : ({t}, tensor<{elem}>) -> tensor<{elem}>{self.loc()}")

    def op_sendrecv(self):
        t = self.tensor(rank=1, elem="f32", dynamic=False)
        tok = self.name()
        if self.r.random() < 0.5:
            return (f'{tok} = "stablehlo.send"({self.operand()}, %tok) <{{channel_handle = {self.channel()}, '
                    f"is_host_transfer = false, source_target_pairs = dense<[[0, 1]]> : tensor<1x2xi64>}}> : "
                    f"({t}, !stablehlo.token) -> !stablehlo.token{self.loc()}")
        v = self._res(t)
        return (f'{v}, {tok} = "stablehlo.recv"(%tok) <{{channel_handle = {self.channel()}, is_host_transfer = false, '
                f"source_target_pairs = dense<[[0, 1]]> : tensor<1x2xi64>}}> : (!stablehlo.token) -> ({t}, !stablehlo.token){self.loc()}")

    def op_pretty(self):
        t = self.tensor(rank=2, elem="f32", dynamic=False)
        k = self.r.randrange(6)
        if k == 0:
            return f"{self._res(t)} = stablehlo.broadcast_in_dim {self.operand()}, dims = [0, 1] : (tensor<2x4xf32>) -> {t}{self.loc()}"
        if k == 1:
            return f"{self._res(t)} = stablehlo.transpose {self.operand()}, dims = [1, 0] : ({t}) -> {t}{self.loc()}"
        if k == 2:
            return (f"{self._res(t)} = stablehlo.dot_general {self.operand()}, {self.operand()}, contracting_dims = [1] x [0], "
                    f"precision = [DEFAULT, HIGHEST] : ({t}, {t}) -> {t}{self.loc()}")
        if k == 3:
            return f"{self._res(t)} = stablehlo.slice {self.operand()} [0:2, 1:4:2] : ({t}) -> {t}{self.loc()}"
        if k == 4:
            return (f"{self._res('tensor<2x4xi1>')} = stablehlo.compare  {self.pick(['EQ', 'LT', 'GE'])}, {self.operand()}, "
                    f"{self.operand()},  FLOAT : ({t}, {t}) -> tensor<2x4xi1>{self.loc()}")
        return (f"{self._res(t)} = stablehlo.custom_call @{self.pick(['Sharding', 'foo', 'tpu_custom'])}({self.operand()}) "
                f'{{backend_config = "{self.pick(["", "x=1", "a,b"])}", mhlo.sharding = "{{replicated}}"}} : ({t}) -> {t}{self.loc()}')

    def op_unknown(self):
        t = self.tensor(rank=1, elem="i64", dynamic=False)
        k = self.r.randrange(3)
        if k == 0:
            return f"check.expect_eq {self.operand()}, {self.operand()} : {t}{self.loc()}"
        if k == 1:
            return f"check.expect_eq_const {self.operand()}, dense<[1, 2]> : {t}"
        return f'"mydialect.thing"({self.operand()}) {{note = "x", n = 3 : i32}} : ({t}) -> ()'

    def op_split(self):
        """An op over several lines (what a hand-written file does)."""
        t = self.tensor(rank=1, elem="f32")
        return (f'{self._res(t)} = "stablehlo.all_reduce"({self.operand()}) <{{\n      replica_groups = {self.groups()},\n'
                f"      {self.channel().join(['channel_handle = ', ''])}\n    }}> {self.region_add('f32')}\n"
                f"      : ({t})\n      -> {t}{self.loc()}")

    # -- program --------------------------------------------------------------------
    def program(self) -> str:
        funcs = []
        for f in range(self.pick([1, 1, 2])):
            self.values = [("%arg0", "tensor<4xf32>"), ("%arg1", "tensor<2x4xf32>")]
            ops = [self.op() for _ in range(self.r.randrange(3, 10))]
            body = "".join(f"    {o}\n" for o in ops)
            sig = "(%arg0: tensor<4xf32>, %arg1: tensor<2x4xf32> {mhlo.sharding = \"{replicated}\"}, %tok: !stablehlo.token)"
            if self.r.random() < 0.2:
                sig = sig.replace(", %arg1", ",\n      %arg1")
            funcs.append(f"  func.func {self.pick(['public ', 'private ', ''])}@f{f}{sig} -> tensor<4xf32> {{\n"
                         f"{body}    return %arg0 : tensor<4xf32>{self.loc()}\n  }}\n")
        head = ("module @jit_gen attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {\n"
                f'  sdy.mesh @mesh = <["x"={self.pick([2, 4, 8])}]>\n')
        text = head + "".join(funcs) + "}\n"
        aliases = "".join(f"#loc{i} = {v}\n" for i, v in enumerate(self.locs))
        return aliases + text


OPS = ["add", "constant", "gather", "scatter", "dynamic", "sort", "while", "case", "collective", "collective",
       "sendrecv", "pretty", "pretty", "unknown", "split"]


def program(seed: int) -> str:
    return _Gen(seed).program()
