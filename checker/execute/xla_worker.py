"""The XLA engine's subprocess: compile one module with jaxlib for the process
grid and run it once. `python -m shlo_lint.checker.execute.xla_worker DIR`.

DIR holds module.mlir (a copy of the user's text), spec.json and inputs.npz;
the worker writes result.json (+ outputs.npz). It runs in its own process
because a program that deadlocks hangs XLA's threads (XLA:CPU then aborts the
whole process) and because the device count is fixed when jax starts. The parent
(xla.py) watches it with a timeout and classifies what happened.

Per-device programs (no sharding anywhere) are compiled with SPMD partitioning
and every op, argument and result marked `mhlo.sharding = "{manual}"`, so the
partitioner leaves them as written; the marking is done on the in-memory copy.
"""
from __future__ import annotations

import json
import os
import sys
import traceback


def _phase(name: str) -> None:
    print(f"shlo-lint-xla: {name}", file=sys.stderr, flush=True)


def _write(out_dir: str, result: dict) -> None:
    with open(os.path.join(out_dir, "result.json"), "w", encoding="utf-8") as f:
        json.dump(result, f)


SIDE_EFFECTS = ("stablehlo.send", "stablehlo.recv", "stablehlo.create_token", "stablehlo.after_all")


def prepare(text: str, mode: str) -> str:
    """The module text XLA compiles: per-device programs marked {manual}
    throughout; GSPMD programs get {manual} on send/recv (the partitioner wants
    every side-effecting op sharded). The user's file is never touched."""
    if mode != "per_device" and not any(s in text for s in SIDE_EFFECTS[:2]):
        return text
    from jax._src.interpreters import mlir as jm
    from jax._src.lib.mlir import ir

    with jm.make_ir_context():
        module = ir.Module.parse(text)
        manual = ir.StringAttr.get("{manual}")

        def sharding(n: int):
            return manual if n == 1 else ir.StringAttr.get("{" + ", ".join(["{manual}"] * n) + "}")

        def walk(op, per_device: bool) -> None:
            for region in op.regions:
                for block in region.blocks:
                    for child in block.operations:
                        o = child.operation
                        n = len(o.results)
                        if n and o.name not in ("func.func",) and "mhlo.sharding" not in o.attributes:
                            if per_device or o.name in SIDE_EFFECTS:
                                o.attributes["mhlo.sharding"] = sharding(n)
                        walk(o, per_device)

        walk(module.operation, mode == "per_device")
        if mode == "per_device":
            for f in module.body.operations:
                if f.operation.name != "func.func":
                    continue
                ftype = ir.FunctionType(ir.TypeAttr(f.attributes["function_type"]).value)
                f.attributes["arg_attrs"] = ir.ArrayAttr.get(
                    [ir.DictAttr.get({"mhlo.sharding": manual}) for _ in ftype.inputs])
                f.attributes["res_attrs"] = ir.ArrayAttr.get(
                    [ir.DictAttr.get({"mhlo.sharding": manual}) for _ in ftype.results])
        return str(module)


def main(out_dir: str) -> int:
    limit = int(os.environ.get("SHLO_LINT_XLA_MEMORY_BYTES", "0") or 0)
    if limit:  # an address-space limit, set before jax maps anything
        import resource

        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    with open(os.path.join(out_dir, "spec.json"), encoding="utf-8") as f:
        spec = json.load(f)
    R, P = spec["num_replicas"], spec["num_partitions"]
    N = R * P
    platform = spec["platform"]
    mode = spec["mode"]
    try:
        import jax
        import numpy as np
        from jax._src.lib import xla_client as xc
        from jax._src.sharding_impls import GSPMDSharding
    except ImportError as e:
        _write(out_dir, {"status": "unsupported", "message": f"the XLA engine needs jax: {e}"})
        return 0
    from shlo_lint.checker.execute.sharding import hlo_tiling

    try:
        devices = jax.devices(platform)
    except RuntimeError as e:
        _write(out_dir, {"status": "unsupported", "message": f"no {platform} devices: {e}"})
        return 0
    if len(devices) < N:
        _write(out_dir, {"status": "unsupported",
                         "message": f"the grid needs {N} {platform} devices, jax sees {len(devices)}"})
        return 0
    devices = devices[:N]
    text = open(os.path.join(out_dir, "module.mlir"), encoding="utf-8").read()
    _phase("compile")
    try:
        prepared = prepare(text, mode)
        opts = xc.CompileOptions()
        eb = opts.executable_build_options
        eb.num_replicas, eb.num_partitions = R, P
        eb.use_spmd_partitioning = P > 1 or mode == "global"
        eb.use_shardy_partitioner = "sdy." in prepared
        eb.device_assignment = xc.DeviceAssignment.create(np.arange(N).reshape(R, P))
        client = devices[0].client
        exe = client.compile_and_load(prepared, xc.DeviceList(tuple(devices)), opts)
    except Exception as e:  # noqa: BLE001 - XLA errors are the result
        msg = str(e)
        status = "unsupported" if "UNIMPLEMENTED" in msg else "compile_error"
        _write(out_dir, {"status": status, "message": msg.strip().splitlines()[0] if msg.strip() else repr(e),
                         "detail": msg[:4000]})
        return 0

    inputs = dict(np.load(os.path.join(out_dir, "inputs.npz"), allow_pickle=False))
    n_args = spec["num_args"]
    by_id = {d.id: d for d in devices}
    order = [d.id for d in devices]
    try:
        param_shardings = exe.get_parameter_shardings() or []
        args = []
        for i in range(n_args):
            if mode == "global":
                x = inputs[f"arg{i}"]
                proto = param_shardings[i] if i < len(param_shardings) else None
                text_sh = str(xc.HloSharding.from_proto(proto)) if proto is not None else "{replicated}"
                tiling = hlo_tiling(text_sh, x.ndim, N)
                if tiling == "manual":
                    raise ValueError(f"argument {i} has a {{manual}} sharding in a global program")
                shards = [jax.device_put(np.ascontiguousarray(tiling.shard(x, d)), by_id[d]) for d in order]
                sharding = GSPMDSharding(tuple(devices), proto) if proto is not None else \
                    GSPMDSharding.get_replicated(tuple(devices))
                args.append(jax.make_array_from_single_device_arrays(x.shape, sharding, shards))
            else:
                per = [inputs[f"arg{i}_{d}"] for d in order]
                shards = [jax.device_put(per[k], by_id[d]) for k, d in enumerate(order)]
                args.append(jax.make_array_from_single_device_arrays(
                    per[0].shape, GSPMDSharding.get_replicated(tuple(devices)), shards))
        _phase("run")
        results = exe.execute_sharded(args)
        per_output = results.disassemble_into_single_device_arrays()
        outs = {}
        out_shardings = exe.get_output_shardings() or []
        for i, arrays in enumerate(per_output):
            host = {list(a.devices())[0].id: np.asarray(a) for a in arrays}
            text_sh = str(xc.HloSharding.from_proto(out_shardings[i])) if i < len(out_shardings) else "{manual}"
            tiling = "manual" if mode == "per_device" else hlo_tiling(text_sh, next(iter(host.values())).ndim, N)
            if tiling == "manual":
                for d, a in host.items():
                    outs[f"out{i}_{d}"] = a
            else:
                outs[f"out{i}"] = tiling.assemble(host)
        _phase("done")
    except Exception as e:  # noqa: BLE001
        _write(out_dir, {"status": "run_error", "message": f"{type(e).__name__}: {e}",
                         "detail": traceback.format_exc()[-4000:]})
        return 0
    np.savez(os.path.join(out_dir, "outputs.npz"), **outs)
    _write(out_dir, {"status": "completed", "num_outputs": len(per_output), "devices": order,
                     "device_kind": getattr(devices[0], "device_kind", platform)})
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
