"""Compile XLA's HLO text with jaxlib (the worker side of the HLO engine; needs jax).

jaxlib 0.10.2 has no Python entry point that compiles an HloModule:
`Client.compile_and_load` takes MLIR only (an `ir.Module`, MLIR text or
bytecode; an XlaComputation is refused). So the text goes

    text --hlo_rewrite.prepare--> text XLA can take back
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

from .hlo_rewrite import ORDER, host_callbacks, label_of, prepare
from .hlo_text import (DONE_OPCODES, HloTextError, callees, communicating, communicating_instrs, computations,
                       COLLECTIVE_OPCODES, read_header)

_PARSE_ERROR = re.compile(r"was parsing (\d+):(\d+): error: (.*)")


def check_parses(text: str) -> None:
    """XLA's HLO parser on the user's own text, so that a syntax error is reported
    at its line and column (the rewritten text's lines are not the user's):
    HloTextError with the parser's first complete message."""
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
            raise HloTextError(f"XLA's HLO parser: {msg.strip()}", int(line), int(col)) from None
        first = str(e).strip().splitlines()
        raise HloTextError(f"XLA's HLO parser: {first[0] if first else type(e).__name__}") from None


def host_callables(prepared: str) -> list:
    """One callable per host-callback index of the prepared text: impose_order's
    edges return their first operand; the module's own callbacks (their Python
    functions are not in the text) ignore their arguments and return zeros of
    their results, which is right for the result-less ones (jax.debug.print) and
    noted by the engine for the others."""
    import numpy as np

    from ..values import dtype_of
    from .hlo_text import element_type

    def zeros(results):
        dtypes = []
        for element, dims in results:
            t = element_type(element)
            if t is None:
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
    instruction from the label hlo_rewrite put into its metadata."""
    import numpy as np
    from jax._src.interpreters import mlir as jm
    from jax._src.lib import _jax, xla_client as xc
    from jax._src.lib.mlir import ir

    from .markers import instrument
    from .worker import mark_manual, mark_manual_signatures

    header = read_header(text)
    prepared = prepare(text, header.is_scheduled, spec["platform"])
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
    build.use_shardy_partitioner = header.sdy
    callbacks = host_callables(prepared)
    if recorder is not None:
        recorder.callbacks[:0] = callbacks  # the text's own indices first; markers are appended after
        callbacks = recorder.callbacks
    names: list[str] = []
    with jm.make_ir_context(), ir.Location.unknown():
        module = ir.Module.parse(bytecode)
        if header.is_scheduled:
            # the imported ops keep the text's global shardings (`sharding={devices=[8,1]<=[8]}`
            # on parameters): in a per-device module they would be partitioned again
            mark_manual(module, per_device=True, overwrite=True)
        if recorder is not None:
            names = instrument(module, recorder, spec["platform"],
                               label=lambda op: label_of(str(op.location)) or op.name)
        if header.is_scheduled:
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


def communication_order(text: str, labelled: bool = False) -> list[list[str]]:
    """Per computation, its communicating instructions in text order: each
    collective by name (in a compiled module, `labelled`, by the label
    hlo_rewrite put into its metadata), each while / conditional / call that
    runs one by opcode. An asynchronous pair counts once, at its start, and the
    computation a generic async-start wraps not at all: XLA:CPU compiles each
    pair into one synchronous collective there, labelled as the start. Sorted:
    compiling renames and merges computations."""
    comps = computations(text)
    comm = communicating(comps)
    wrapped = {c for comp in comps.values() for i in comp.instrs if i.opcode == "async-start" for c in callees(i)}

    def key(i) -> str:
        if i.opcode not in COLLECTIVE_OPCODES:
            return i.opcode
        return (label_of(i.attr("metadata") or "") or i.name) if labelled else i.name

    orders = ([key(i) for i in communicating_instrs(c, comm) if i.opcode not in DONE_OPCODES]
              for c in comps.values() if c.name not in wrapped)
    return sorted(seq for seq in orders if seq)


def order_kept(text: str, compiled: str) -> str | None:
    """None when the compiled module issues the text's collectives in the text's
    order in every computation, else what differs. The rewrites promise that
    order (it is what decides whether a scheduled module deadlocks); this checks
    the promise on every run."""
    before, after = communication_order(text), communication_order(compiled, labelled=True)
    if before == after:
        return None
    flat_before = sorted(x for seq in before for x in seq if x not in ("while", "conditional", "call"))
    flat_after = sorted(x for seq in after for x in seq if x not in ("while", "conditional", "call"))
    if flat_before != flat_after:
        return (f"XLA's compiled module does not have the text's collectives ({len(flat_after)} compiled, "
                f"{len(flat_before)} in the text): the run may not be the text's program")
    return ("XLA's compiled module issues the text's collectives in another order or nesting than the text "
            "in some computation: a hang or its absence may not be the text's")
