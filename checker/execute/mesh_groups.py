"""Process groups written as `#stablehlo.replica_group_mesh_axes<mesh = ...,
axes = [...]>`: the devices of a mesh that differ only along the listed axes
form a group. As StableHLO's reference (stablehlo/dialect/ReplicaGroupUtils.cpp,
flattenReplicaGroupMeshAxes): the mesh's device ids (its `device_ids`, else
0..N-1) are laid out over the axes, the axes not listed move first (in mesh
order), the listed ones last (in the order listed), and every run of
prod(listed sizes) consecutive ids is one group. Sub-axes
(`sub_axis_info = (pre)size`, which the reference does not flatten) split their
axis into (pre, size, rest) factors, major first, as Shardy defines them.

The mesh is inline (`#stablehlo.mesh<axes = [#stablehlo.mesh_axis<name = "x",
size = 2>, ...], device_ids = ...>`) or a symbol: an op (e.g. `sdy.mesh`) with
that name carrying a `stablehlo.mesh = {axes = [{name = "x", size = 2}, ...]}`
attribute, or an sdy mesh `<["x"=2, ...]>`.
"""
from __future__ import annotations

import math
import re

import numpy as np

from .values import ExecutionError

_AXIS_REF = re.compile(r'axis_ref<\s*name\s*=\s*"([^"]+)"(?:\s*,\s*sub_axis_info\s*=\s*\((\d+)\)\s*(\d+))?\s*>')
_MESH_AXIS = re.compile(r'mesh_axis<\s*name\s*=\s*"([^"]+)"\s*,\s*size\s*=\s*(\d+)')
_DICT_AXIS = re.compile(r'\{\s*name\s*=\s*"([^"]+)"\s*,\s*size\s*=\s*(\d+)')
_SDY_AXIS = re.compile(r'"([^"]+)"\s*=\s*(\d+)')
_IDS = re.compile(r"device_ids\s*=\s*(?:dense<\[?|array<i64:|\[)\s*([\d,\s]*)")


def _op_text(op) -> str:
    return op.module.source.text[op.span.start:op.span.end]


def _mesh_of(text: str, module, op) -> tuple[list[tuple[str, int]], list[int] | None]:
    m = re.search(r"mesh(?:_name)?\s*=\s*@([\w.$-]+)", text)
    if m:
        name = m.group(1)
        holder = next((o for o in module.walk() if o.symbol_name == name and o.name != "func.func"), None)
        if holder is None:
            raise ExecutionError(f"cannot execute: {op.name} names mesh @{name}, which is not defined", op)
        body = _op_text(holder)
        k = body.find("stablehlo.mesh")
        if k >= 0:
            axes = [(n, int(s)) for n, s in _DICT_AXIS.findall(body[k:])]
            ids = _IDS.search(body[k:])
        else:
            axes = [(n, int(s)) for n, s in _SDY_AXIS.findall(body)]
            ids = _IDS.search(body)
    else:
        axes = [(n, int(s)) for n, s in _MESH_AXIS.findall(text)]
        ids = _IDS.search(text)
    if not axes:
        raise ExecutionError(f"cannot execute: {op.name}: cannot read the mesh of its replica_group_mesh_axes", op)
    device_ids = [int(x) for x in ids.group(1).replace(",", " ").split()] if ids and ids.group(1).strip() else None
    return axes, device_ids


def mesh_axes_groups(op, text: str) -> list[list[int]]:
    """The groups (lists of ids) a replica_group_mesh_axes attribute (its text) denotes."""
    axes, device_ids = _mesh_of(text, op.module, op)
    refs = [(n, int(p) if p else None, int(s) if s else None) for n, p, s in _AXIS_REF.findall(text)]
    sizes = dict(axes)
    for name, pre, size in refs:
        if name not in sizes:
            raise ExecutionError(f"cannot execute: {op.name} groups over axis {name!r}, which the mesh does not "
                                 f"have ({', '.join(n for n, _ in axes)})", op)
        if pre is not None and (sizes[name] % (pre * size)):
            raise ExecutionError(f"cannot execute: {op.name}: sub-axis ({pre}){size} does not divide axis "
                                 f"{name!r} of size {sizes[name]}", op)
    # split each mesh axis into factors at every sub-axis boundary, major first
    factors: list[tuple[str, int, int]] = []  # (axis, pre, size) of each factor
    for name, n in axes:
        cuts = {1, n}
        for r, pre, size in refs:
            if r == name and pre is not None:
                cuts |= {pre, pre * size}
        cuts = sorted(cuts)
        for a, b in zip(cuts, cuts[1:]):
            factors.append((name, a, b // a))
        if n == 1:
            factors.append((name, 1, 1))
    total = math.prod(n for _, n in axes)
    ids = np.asarray(device_ids if device_ids is not None else range(total), dtype=np.int64)
    if ids.size != total:
        raise ExecutionError(f"cannot execute: {op.name}: the mesh has {total} devices but {ids.size} device_ids", op)
    grid = ids.reshape([s for _, _, s in factors])
    grouped: list[int] = []
    for name, pre, size in refs:
        lo, hi = (1, sizes[name]) if pre is None else (pre, pre * size)
        grouped += [i for i, (a, p, s) in enumerate(factors) if a == name and p >= lo and p * s <= hi]
    others = [i for i in range(len(factors)) if i not in grouped]
    group_size = math.prod(factors[i][2] for i in grouped)
    return grid.transpose(others + grouped).reshape(-1, group_size).tolist()
