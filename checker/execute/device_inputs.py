"""The values the devices of a module read from XLA's HLO text get, the same for
every engine (the interpreter on the lowered IR, XLA on the text), so that their
runs can be compared.

A scheduled module (`is_scheduled=true`) is one device's program: each entry
parameter whose `sharding={...}` is readable (tiled, replicated,
`last_tile_dim_replicate`) gets one global value, seeded as a global StableHLO
argument (`--seed`, `arg0` of an `.npz`), split as the sharding says (its device
ids are partition ids), so a replicated flag is the same on every device as in
the jitted program (measured: `async_all_gather_in_cond` with a different flag
per device deadlocks). A parameter without a readable sharding gets its own
value per device (`arg0_R_P` of an `.npz`), with a note saying why. An
unscheduled module (a `before_optimizations` dump) takes global arrays of the
entry's shapes, which XLA partitions.

The result is keyed as an `.npz` of inputs is: `arg{i}` for a global array,
`arg{i}_{replica}_{partition}` for one device's.
"""
from __future__ import annotations

import numpy as np

from ..analysis.semantics import Grid
from ..analysis.sharding import ShardingError, hlo_tiling
from ..frontend.hlo import HloText
from ..frontend.hlo.ir_types import element_type
from ..ir.types import OpaqueType, TensorType
from .values import ExecutionError, Inputs, TOKEN
from .xla.hlo.reading import EntryParameter, HloModuleError, entry_parameters, position

__all__ = ["device_inputs"]


def device_inputs(module: HloText, inputs: Inputs, grid: Grid, notes: list) -> dict[str, np.ndarray]:
    """The entry's arguments for every device of `grid` (see the module docstring);
    notes about parameters whose sharding is not read go to `notes`. Raises
    HloModuleError (located) for a parameter that is not an array of a type the
    engines run, ExecutionError for what `inputs` cannot give."""
    params = entry_parameters(module)
    local = [_tensor(p) for p in params]
    if not module.is_scheduled:
        return {f"arg{i}": np.asarray(a) for i, a in enumerate(_no_tokens(inputs.make(local, None)))}
    P = grid.num_partitions
    tilings: dict[int, object] = {}
    for i, p in enumerate(params):
        if p.sharding is None or P == 1:
            continue
        try:
            tiling = hlo_tiling(p.sharding, len(p.dims), P)
        except ShardingError as e:
            notes.append(f"parameter {p.number} (%{p.instruction.name}): {e}; every device gets its own values")
            continue
        if tiling != "manual":
            tilings[i] = tiling
    global_types = [TensorType(tuple(tilings[i].global_shape(p.dims)), t.element) if i in tilings else t
                    for i, (p, t) in enumerate(zip(params, local))]
    shared = _no_tokens(inputs.make(global_types, None)) if tilings else []
    out = {}
    for replica, partition in grid.processes():
        flat = grid.flat(replica, partition)
        own = _no_tokens(inputs.make(local, (replica, partition), flat)) if len(tilings) < len(params) else []
        for i in range(len(params)):
            # a sharding's device ids are partition ids: every replica holds the same shards
            value = tilings[i].shard(shared[i], partition) if i in tilings else own[i]
            out[f"arg{i}_{replica}_{partition}"] = np.asarray(value, order="C")  # (ascontiguousarray makes a scalar 1-d)
    return out


def _tensor(p: EntryParameter) -> TensorType:
    element = element_type(p.element)
    if isinstance(element, OpaqueType):
        line, column = position(p.instruction)
        raise HloModuleError(f"entry parameter %{p.instruction.name} has element type {p.element}, which is not run",
                             line, column)
    return TensorType(p.dims, element)


def _no_tokens(values: list) -> list:
    if any(v is TOKEN for v in values):
        raise ExecutionError("token arguments to the entry are not run")
    return values
