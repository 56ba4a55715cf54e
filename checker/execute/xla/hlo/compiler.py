"""Compile XLA's HLO text with jaxlib (the worker side of the HLO engine; needs jax).

jaxlib 0.10.2 has no Python entry point that compiles an HloModule:
`Client.compile_and_load` takes MLIR only (an `ir.Module`, MLIR text or
bytecode; an XlaComputation is refused). So the text goes

    text --rewrite.prepare--> text XLA can take back
         --xla_client.hlo.hlo_module_from_text--> HloModule (XLA's own parser)
         --_jax.mlir.hlo_to_stablehlo--> StableHLO (XLA's importer)
         --compile_and_load(MLIR, DeviceList, CompileOptions)--> executable

with the grid from the module header: `replica_count` x `num_partitions`
devices, the device assignment in that order, SPMD partitioning when there is
more than one partition (XLA refuses "num_partitions=8 but SPMD partitioning
not enabled"). An unscheduled module (a before_optimizations dump) is compiled
as it is, through the partitioner (Shardy's when the text carries `xla.sdy.`
meshes or calls), and takes global arrays. A scheduled module is already per
device: after the rewrites every op, argument and result is marked `{manual}`
(the partitioner then leaves it as written) and each device gets its own
arrays.

`jax._src` is jax's internal API, imported here only: a jax release that moves
it fails the compile with an ImportError the engine reports, not a crash.
"""
from __future__ import annotations

import re

from ....frontend.hlo import read_hlo
from ....frontend.hlo.ir_types import element_type
from ....ir.types import OpaqueType
from .communicating import order_kept
from .reading import HloModuleError
from .rewrite import ORDER, host_callbacks, label_of, label_of_instruction, prepare

__all__ = ["check_parses", "host_callables", "compile_hlo", "order_of_compiled"]

_PARSE_ERROR = re.compile(r"was parsing (\d+):(\d+): error: (.*)")


def check_parses(text: str) -> None:
    """XLA's HLO parser on the user's own text, so that a syntax error is reported
    at its line and column (the rewritten text's lines are not the user's):
    HloModuleError with the parser's first complete message."""
    from jax._src.lib import xla_client as xc

    try:
        xc.hlo.hlo_module_from_text(text)
    except Exception as e:  # noqa: BLE001 - jaxlib raises its own error types
        found = _PARSE_ERROR.findall(str(e))
        if found:
            # the parser logs from the innermost failure out, and a line ending in ':' only
            # introduces the next one ("cannot parse as an instruction name ...:", then
            # "instruction does not exist: param.9", then "expects ')' ...")
            line, col, msg = next((f for f in found if not f[2].rstrip().endswith(":")), found[0])
            raise HloModuleError(f"XLA's HLO parser: {msg.strip()}", int(line), int(col)) from None
        first = str(e).strip().splitlines()
        raise HloModuleError(f"XLA's HLO parser: {first[0] if first else type(e).__name__}") from None


def host_callables(prepared: str) -> list:
    """One callable per host-callback index of the prepared text: impose_order's
    edges return their first operand; the module's own callbacks (their Python
    functions are not in the text) ignore their arguments and return zeros of
    their results, which is right for the result-less ones (jax.debug.print) and
    noted by the engine for the others."""
    import numpy as np

    from ...values import dtype_of

    def zeros(results):
        dtypes = []
        for element, dims in results:
            t = element_type(element)
            if isinstance(t, OpaqueType):
                raise ValueError(f"a host callback returns element type {element}")
            dtypes.append((dims, dtype_of(t)))
        return lambda *args: tuple(np.zeros(dims, dt) for dims, dt in dtypes)

    def first(x, *_):
        return (x,)

    table = host_callbacks(prepared)
    out = []
    for i in range(1 + max(table, default=-1)):
        name, results = table.get(i, ("", []))
        out.append(first if name.startswith(ORDER) else zeros(results))
    return out


def compile_hlo(text: str, spec: dict, devices: list, recorder=None):
    """(executable, the HLO instruction name of each marked op) for HLO text on
    `devices` (the grid's, in flattened order). With a recorder, progress
    markers go around every collective of the imported MLIR; they know their
    instruction from the label the rewrites put into its metadata."""
    import numpy as np
    from jax._src.interpreters import mlir as jm
    from jax._src.lib import _jax, xla_client as xc
    from jax._src.lib.mlir import ir

    from ..manual import mark_manual, mark_manual_signatures
    from ..markers import instrument

    module_text = read_hlo(text)
    scheduled = module_text.is_scheduled
    prepared = prepare(text, scheduled, spec["platform"])
    try:
        hlo = xc.hlo.hlo_module_from_text(prepared)
    except Exception as e:  # noqa: BLE001
        found = [f for f in _PARSE_ERROR.findall(str(e)) if not f[2].rstrip().endswith(":")]
        why = found[0][2].strip() if found else (str(e).strip().splitlines() or [type(e).__name__])[0]
        raise RuntimeError(f"the module as rewritten for jaxlib does not parse (a gap of the engine's "
                           f"rewrites): {why}") from None
    bytecode = _jax.mlir.hlo_to_stablehlo(hlo.as_serialized_hlo_module_proto())
    R, P = spec["num_replicas"], spec["num_partitions"]
    opts = xc.CompileOptions()
    build = opts.executable_build_options
    build.num_replicas, build.num_partitions = R, P
    build.device_assignment = xc.DeviceAssignment.create(np.array([d.id for d in devices]).reshape(R, P))
    build.use_spmd_partitioning = P > 1
    # Shardy meshes or calls in the text (a before_optimizations dump of a Shardy program)
    build.use_shardy_partitioner = "xla.sdy." in text
    callbacks = host_callables(prepared)
    if recorder is not None:
        recorder.callbacks[:0] = callbacks  # the text's own indices first; markers are appended after
        callbacks = recorder.callbacks
    names: list[str] = []
    with jm.make_ir_context(), ir.Location.unknown():
        module = ir.Module.parse(bytecode)
        if scheduled:
            # the imported ops keep the text's global shardings (`sharding={devices=[8,1]<=[8]}`
            # on parameters): in a per-device module they would be partitioned again
            mark_manual(module, per_device=True, overwrite=True)
        if recorder is not None:
            names = instrument(module, recorder, spec["platform"],
                               label=lambda op: label_of(str(op.location)) or op.name)
        if scheduled:
            mark_manual_signatures(module)
        device_list = xc.DeviceList(tuple(devices))
        if callbacks:  # the overload that takes callables wants an MLIR module, not text
            exe = devices[0].client.compile_and_load(module, device_list, compile_options=opts,
                                                     host_callbacks=callbacks)
        else:
            # with its locations: they carry the collectives' labels into the compiled module
            exe = devices[0].client.compile_and_load(module.operation.get_asm(enable_debug_info=True),
                                                     device_list, opts)
    return exe, names


def order_of_compiled(text: str, compiled: str) -> str | None:
    """communication.order_kept for the text and the executable's module, whose
    collectives carry the labels the rewrites gave them."""
    return order_kept(text, compiled, label_of_instruction)
