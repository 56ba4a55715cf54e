"""The XLA engine's subprocess: compile one module with jaxlib for the process
grid and run it once. `python -m shlo_lint.checker.execute.xla.worker DIR`.

DIR holds module.mlir (a copy of the user's text; module.hlo for XLA's HLO
text, spec "format": "hlo", compiled by hlo/compiler.py), spec.json and inputs.npz;
the worker writes result.json (+ outputs.npz). It runs in its own process
because a program that deadlocks hangs XLA's threads (XLA:CPU then aborts the
whole process) and because the device count is fixed when jax starts. The parent
(local.py; hlo/engine.py for HLO text) watches it with a timeout and classifies
what happened.

Per-device programs (no sharding anywhere) are compiled with SPMD partitioning
and every op, argument and result marked `mhlo.sharding = "{manual}"`
(manual.py), so the partitioner leaves them as written.
"""
from __future__ import annotations

import json
import os
import sys
import traceback

from shlo_lint.checker.execute.xla.manual import SIDE_EFFECTS, mark_manual, mark_manual_signatures


def _phase(name: str) -> None:
    print(f"shlo-lint-xla: {name}", file=sys.stderr, flush=True)


def _write(out_dir: str, result: dict) -> None:
    with open(os.path.join(out_dir, "result.json"), "w", encoding="utf-8") as f:
        json.dump(result, f)


def prepare(text: str, mode: str, recorder=None, platform: str = "cpu"):
    """The module XLA compiles, and the names of the ops carrying progress markers.

    Per-device programs are marked {manual} throughout; GSPMD programs get
    {manual} on send/recv (the partitioner wants every side-effecting op
    sharded). With a recorder, every communicating op gets enter/exit markers
    (markers.py). Returns the text unchanged when nothing is to be done,
    else an MLIR module (jax's bindings). The user's file is never touched."""
    if recorder is None and mode != "per_device" and not any(s in text for s in SIDE_EFFECTS[:2]):
        return text, []
    from jax._src.interpreters import mlir as jm
    from jax._src.lib.mlir import ir

    from shlo_lint.checker.execute.xla.markers import instrument

    ctx = jm.make_ir_context()
    with ctx, ir.Location.unknown():
        module = ir.Module.parse(text)
        mark_manual(module, mode == "per_device")
        # after the {manual} marking: the markers copy their collective's sharding
        names = instrument(module, recorder, platform) if recorder is not None else []
        if mode == "per_device":
            mark_manual_signatures(module)
    return module, names


def compile_program(text: str, spec: dict, devices: list, recorder=None):
    """Compile the (prepared, instrumented) module for `devices` (the global device
    list, in grid order). Returns (executable, names of the marked ops)."""
    import numpy as np
    from jax._src.lib import xla_client as xc

    R, P = spec["num_replicas"], spec["num_partitions"]
    mode = spec["mode"]
    prepared, names = prepare(text, mode, recorder, spec["platform"])
    opts = xc.CompileOptions()
    eb = opts.executable_build_options
    eb.num_replicas, eb.num_partitions = R, P
    eb.use_spmd_partitioning = P > 1 or mode == "global"
    eb.use_shardy_partitioner = "sdy." in text
    eb.device_assignment = xc.DeviceAssignment.create(np.array([d.id for d in devices]).reshape(R, P))
    client = devices[0].client
    if recorder is not None and recorder.callbacks:
        exe = client.compile_and_load(prepared, xc.DeviceList(tuple(devices)), compile_options=opts,
                                      host_callbacks=recorder.callbacks)
    else:
        exe = client.compile_and_load(prepared if isinstance(prepared, str) else str(prepared),
                                      xc.DeviceList(tuple(devices)), opts)
    return exe, names


def make_args(exe, inputs: dict, spec: dict, devices: list) -> list:
    """The executable's arguments: global arrays from the shards this process holds
    (every device's in one process, the local ones under jax.distributed)."""
    import jax
    import numpy as np
    from jax._src.lib import xla_client as xc
    from jax._src.sharding_impls import GSPMDSharding

    from shlo_lint.checker.analysis.sharding import hlo_tiling
    from shlo_lint.checker.execute.values import sharding_errors

    N = len(devices)
    local = [(flat, d) for flat, d in enumerate(devices) if d.process_index == jax.process_index()]
    param_shardings = exe.get_parameter_shardings() or []
    args = []
    for i in range(spec["num_args"]):
        if spec["mode"] == "global":
            x = inputs[f"arg{i}"]
            proto = param_shardings[i] if i < len(param_shardings) else None
            text_sh = str(xc.HloSharding.from_proto(proto)) if proto is not None else "{replicated}"
            with sharding_errors():
                tiling = hlo_tiling(text_sh, x.ndim, N)
            if tiling == "manual":
                raise ValueError(f"argument {i} has a {{manual}} sharding in a global program")
            with sharding_errors():
                shards = [jax.device_put(np.ascontiguousarray(tiling.shard(x, flat)), d) for flat, d in local]
            sharding = GSPMDSharding(tuple(devices), proto) if proto is not None else \
                GSPMDSharding.get_replicated(tuple(devices))
            args.append(jax.make_array_from_single_device_arrays(x.shape, sharding, shards))
        else:
            # per-device values under a "replicated" sharding: the program is {manual}
            # everywhere, so XLA hands each device its own shard as is
            shards = [jax.device_put(inputs[f"arg{i}_{flat}"], d) for flat, d in local]
            args.append(jax.make_array_from_single_device_arrays(
                shards[0].shape, GSPMDSharding.get_replicated(tuple(devices)), shards))
    return args


def collect_outputs(exe, results, spec: dict, devices: list, assemble: bool = True) -> tuple[dict, list]:
    """Outputs as host arrays: `out{i}_{flat}` per device (manual outputs, or every
    shard when not assembling), `out{i}` for assembled global arrays. Also returns
    each output's HLO sharding text (for a parent that assembles)."""
    import numpy as np
    from jax._src.lib import xla_client as xc

    from shlo_lint.checker.analysis.sharding import hlo_tiling
    from shlo_lint.checker.execute.values import sharding_errors

    N = len(devices)
    flat_of = {d.id: flat for flat, d in enumerate(devices)}
    per_output = results.disassemble_into_single_device_arrays()
    out_shardings = exe.get_output_shardings() or []
    outs, texts = {}, []
    for i, arrays in enumerate(per_output):
        host = {flat_of[list(a.devices())[0].id]: np.asarray(a) for a in arrays}
        text_sh = str(xc.HloSharding.from_proto(out_shardings[i])) if i < len(out_shardings) else "{manual}"
        texts.append("{manual}" if spec["mode"] == "per_device" else text_sh)
        with sharding_errors():
            tiling = "manual" if spec["mode"] == "per_device" else \
                hlo_tiling(text_sh, next(iter(host.values())).ndim, N)
        if tiling == "manual" or not assemble:
            for d, a in host.items():
                outs[f"out{i}_{d}"] = a
        else:
            with sharding_errors():
                outs[f"out{i}"] = tiling.assemble(host)
    return outs, texts


def compile_with_markers(text: str, spec: dict, devices: list, recorder, compile=compile_program):
    """(executable, marked op names, note); the executable is a result dict when
    the program does not compile. When only the instrumented copy fails, the
    program runs without markers and the note says why (blocked processes are
    then unknown rather than guessed). `compile(text, spec, devices, recorder)`
    -> (executable, names): compile_program for StableHLO, hlo/compiler.py's for HLO."""
    try:
        exe, names = compile(text, spec, devices, recorder)
        return exe, names, None
    except Exception as e:  # noqa: BLE001 - XLA errors are the result
        first = e
    if recorder is None:
        return compile_error(first), [], None
    try:
        exe, _ = compile(text, spec, devices, None)
    except Exception as e:  # noqa: BLE001
        return compile_error(e), [], None
    why = str(first).strip().splitlines()
    return exe, [], f"progress markers could not be compiled in ({why[0] if why else type(first).__name__})"


def compile_error(e: Exception) -> dict:
    """A compile failure as a result: UNIMPLEMENTED (e.g. send/recv on XLA:CPU) and
    text XLA's StableHLO parser rejects (ops it does not have) are "unsupported"."""
    msg = str(e).strip()
    lines = msg.splitlines()
    if "Unable to parse module assembly" in msg:
        why = next((ln.split("error:", 1)[1].strip() for ln in lines if "error:" in ln), lines[0])
        return {"status": "unsupported", "message": f"XLA's StableHLO parser rejects the module: {why}",
                "detail": msg[:4000]}
    status = "unsupported" if "UNIMPLEMENTED" in msg else "compile_error"
    return {"status": status, "message": lines[0] if lines else repr(e), "detail": msg[:4000]}


def main(out_dir: str) -> int:
    limit = int(os.environ.get("SHLO_LINT_XLA_MEMORY_BYTES", "0") or 0)
    if limit:  # an address-space limit, set before jax maps anything
        import resource

        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    with open(os.path.join(out_dir, "spec.json"), encoding="utf-8") as f:
        spec = json.load(f)
    N = spec["num_replicas"] * spec["num_partitions"]
    platform = spec["platform"]
    try:
        import jax
    except ImportError as e:
        _write(out_dir, {"status": "unsupported", "message": f"the XLA engine needs jax: {e}"})
        return 0
    from shlo_lint.checker.execute.xla.arrays import load_arrays, save_arrays
    from shlo_lint.checker.execute.xla.markers import Recorder

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
    hlo = spec.get("format") == "hlo"
    text = open(os.path.join(out_dir, "module.hlo" if hlo else "module.mlir"), encoding="utf-8").read()
    _phase("compile")
    recorder = Recorder(os.path.join(out_dir, "progress.txt")) if spec.get("markers", True) else None
    order = None
    if hlo:
        from shlo_lint.checker.execute.xla.hlo.compiler import check_parses, compile_hlo, order_of_compiled
        from shlo_lint.checker.execute.xla.hlo.reading import HloModuleError

        try:
            check_parses(text)
        except HloModuleError as e:
            _write(out_dir, {"status": "compile_error", "message": e.message, "line": e.line, "column": e.column})
            return 0
        exe, names, note = compile_with_markers(text, spec, devices, recorder, compile_hlo)
        if not isinstance(exe, dict) and spec["mode"] == "per_device":
            order = order_of_compiled(text, exe.hlo_modules()[0].to_string())
    else:
        exe, names, note = compile_with_markers(text, spec, devices, recorder)
    if isinstance(exe, dict):
        _write(out_dir, exe)
        return 0
    with open(os.path.join(out_dir, "markers.json"), "w", encoding="utf-8") as f:
        json.dump({"ops": names, "note": note, "order": order}, f)
    inputs = load_arrays(os.path.join(out_dir, "inputs.npz"))
    try:
        args = make_args(exe, inputs, spec, devices)
        _phase("run")
        results = exe.execute_sharded(args)
        outs, _ = collect_outputs(exe, results, spec, devices)
        _phase("done")
    except Exception as e:  # noqa: BLE001
        _write(out_dir, {"status": "run_error", "message": f"{type(e).__name__}: {e}",
                         "detail": traceback.format_exc()[-4000:]})
        return 0
    save_arrays(os.path.join(out_dir, "outputs.npz"), outs)
    _write(out_dir, {"status": "completed", "num_outputs": len({k.split("_")[0] for k in outs}),
                     "device_kind": getattr(devices[0], "device_kind", platform)})
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
