"""`{manual}` shardings on an MLIR module (the worker side of the XLA engines;
needs jax's MLIR bindings).

A per-device program (a hand-written StableHLO one, or a scheduled HLO module,
already partitioned) is compiled with SPMD partitioning and every op, argument
and result marked `mhlo.sharding = "{manual}"`, so the partitioner leaves it as
written; a GSPMD program needs `{manual}` on its send/recv only (the
partitioner wants every side-effecting op sharded). The marking is done on the
worker's in-memory copy; the user's file is never touched. Shared by the
StableHLO worker (worker.py) and the HLO compiler (hlo/compiler.py).
"""
from __future__ import annotations

SIDE_EFFECTS = ("stablehlo.send", "stablehlo.recv", "stablehlo.create_token", "stablehlo.after_all")
"""Ops a GSPMD program must mark {manual} (the first two: the ones that mean the
program needs marking at all)."""


def mark_manual(module, per_device: bool, overwrite: bool = False) -> None:
    """Give ops `mhlo.sharding = "{manual}"` (an MLIR module of jax's bindings; call
    inside its context): every op with results when per_device, else only
    send/recv. An op's own sharding is kept unless `overwrite`."""
    from jax._src.lib.mlir import ir

    manual = ir.StringAttr.get("{manual}")

    def sharding(n: int):
        return manual if n == 1 else ir.StringAttr.get("{" + ", ".join(["{manual}"] * n) + "}")

    def walk(op) -> None:
        for region in op.regions:
            for block in region.blocks:
                for child in block.operations:
                    o = child.operation
                    n = len(o.results)
                    # not on while: XLA's while-loop passes drop tuple elements but keep
                    # an explicit tuple sharding (RET_CHECK "has 3 leaf nodes while this
                    # sharding has 4"); propagation gives the loop {manual} anyway.
                    if n and o.name not in ("func.func", "stablehlo.while") and \
                            (overwrite or "mhlo.sharding" not in o.attributes):
                        if per_device or o.name in SIDE_EFFECTS:
                            o.attributes["mhlo.sharding"] = sharding(n)
                    walk(o)

    walk(module.operation)


def mark_manual_signatures(module) -> None:
    """Every function's arguments and results `{manual}` (a per-device program)."""
    from jax._src.lib.mlir import ir

    manual = ir.StringAttr.get("{manual}")
    for f in module.body.operations:
        if f.operation.name != "func.func":
            continue
        ftype = ir.FunctionType(ir.TypeAttr(f.attributes["function_type"]).value)
        f.attributes["arg_attrs"] = ir.ArrayAttr.get(
            [ir.DictAttr.get({"mhlo.sharding": manual}) for _ in ftype.inputs])
        f.attributes["res_attrs"] = ir.ArrayAttr.get(
            [ir.DictAttr.get({"mhlo.sharding": manual}) for _ in ftype.results])
