"""Shardings as index maps: which slice of a global array each device holds.

Two spellings reach the checker: Shardy's `<@mesh, [{"x"}, {}]>` (on
sdy.manual_computation) and HLO sharding strings (`{devices=[8,1]<=[8]}`,
`{replicated}`, `{manual}` on GSPMD custom_calls and in compiled executables).
Both become a `Tiling`: per device, a tuple of slices into the global shape.
The interpreter slices shards with it and assembles results; the XLA engine
splits inputs and joins outputs with the same code, so both engines agree on
what "the global array" means; the uniformity analysis reads which devices hold
the same shard.
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass

import numpy as np


class ShardingError(Exception):
    """A sharding that is not read or that does not fit the array it is applied to
    (the message says which). The analyses report it as a reason; the execution
    checker as a program it cannot run (execute.values.sharding_errors)."""


# A device list of more than this is not a program anyone runs: refuse it before
# building it (a mutated `devices=[...]` or mesh axis could ask for 2^64).
MAX_DEVICES = 1 << 24


@dataclass(frozen=True)
class Tiling:
    """tiles[d] = how many pieces dim d is cut into; coords(device) = which piece
    along each dim (devices that differ only in replicated axes hold equal pieces)."""

    tiles: tuple[int, ...]
    device_coords: dict[int, tuple[int, ...]]
    """device id → tile coordinate per array dim."""

    def local_shape(self, shape: tuple[int, ...]) -> tuple[int, ...]:
        self._check(shape)
        return tuple(s // t for s, t in zip(shape, self.tiles))

    def global_shape(self, local: tuple[int, ...]) -> tuple[int, ...]:
        return tuple(s * t for s, t in zip(local, self.tiles))

    def _check(self, shape: tuple[int, ...]) -> None:
        if len(shape) != len(self.tiles):
            raise ShardingError(f"sharding has {len(self.tiles)} dims, the array has rank {len(shape)}")
        for s, t in zip(shape, self.tiles):
            if s % t:
                raise ShardingError(f"dimension {s} is not divisible into {t} shards (uneven shards are not run)")

    def index(self, device: int, shape: tuple[int, ...]) -> tuple[slice, ...]:
        local = self.local_shape(shape)
        coords = self.device_coords.get(device)
        if coords is None:
            raise ShardingError(f"device {device} is not in the sharding's device list")
        return tuple(slice(c * n, (c + 1) * n) for c, n in zip(coords, local))

    def shard(self, array, device: int):
        return array[self.index(device, tuple(array.shape))]

    def assemble(self, shards: dict[int, np.ndarray]) -> np.ndarray:
        """The global array from per-device shards (the first device of each tile wins;
        replicas are not compared here)."""
        first = next(iter(shards.values()))
        shape = self.global_shape(tuple(first.shape))
        out = np.empty(shape, dtype=first.dtype)
        done: set[tuple[int, ...]] = set()
        for dev in sorted(shards):
            coords = self.device_coords[dev]
            if coords in done:
                continue
            done.add(coords)
            out[self.index(dev, shape)] = np.asarray(shards[dev])
        if len(done) != math.prod(self.tiles):
            raise ShardingError("not every shard of the result was produced")
        return out


def replicated(rank: int, devices: list[int]) -> Tiling:
    return Tiling((1,) * rank, {d: (0,) * rank for d in devices})


# ----------------------------------------------------------------------------- Shardy
@dataclass(frozen=True)
class Mesh:
    axes: tuple[tuple[str, int], ...]
    device_ids: tuple[int, ...]

    @property
    def size(self) -> int:
        return math.prod(n for _, n in self.axes) if self.axes else 1

    def coords(self, device: int) -> dict[str, int]:
        pos = self.device_ids.index(device)
        sizes = [n for _, n in self.axes]
        idx = np.unravel_index(pos, sizes) if sizes else ()
        return {name: int(i) for (name, _), i in zip(self.axes, idx)}


def mesh_from_attr(attr) -> Mesh:
    """`#sdy.mesh<["x"=2, "y"=4]>` (DialectAttr with an ArrayAttr of {name, size} dicts),
    with optional `device_ids=[...]`."""
    from ..ir.attributes import ArrayAttr, DenseArrayAttr, DictAttr, IntegerAttr, StringAttr

    axes: list[tuple[str, int]] = []
    device_ids = None
    for p in getattr(attr, "positional", ()):
        if isinstance(p, ArrayAttr):
            for e in p.elements:
                if isinstance(e, DictAttr):
                    name, size = e.get("name"), e.get("size")
                    if isinstance(name, StringAttr) and isinstance(size, IntegerAttr):
                        axes.append((name.value, size.value))
    ids = attr.get("device_ids") if hasattr(attr, "get") else None
    if isinstance(ids, DenseArrayAttr):
        device_ids = tuple(int(v) for v in ids.values)
    elif isinstance(ids, ArrayAttr):
        device_ids = tuple(e.value for e in ids.elements if isinstance(e, IntegerAttr))
    if not axes:
        m = re.findall(r'"([^"]+)"\s*=\s*(\d+)', getattr(attr, "text", ""))
        axes = [(n, int(s)) for n, s in m]
        d = re.search(r"device_ids\s*=\s*\[([\d,\s]*)\]", getattr(attr, "text", ""))
        if d and device_ids is None:
            device_ids = tuple(int(x) for x in d.group(1).split(",") if x.strip())
    size = math.prod(n for _, n in axes) if axes else 1
    if size > MAX_DEVICES or any(n < 1 for _, n in axes):
        raise ShardingError(f"a mesh of {size} devices is not read (axis sizes {[n for _, n in axes]})")
    return Mesh(tuple(axes), device_ids or tuple(range(size)))


def sdy_dims(attr) -> list[list[str]] | None:
    """`<@mesh, [{"x"}, {}]>` → [["x"], []] (axes per dim, major first); None if not readable."""
    from ..ir.attributes import ArrayAttr, DictAttr

    for p in getattr(attr, "positional", ()):
        if isinstance(p, ArrayAttr):
            dims = []
            for e in p.elements:
                if not isinstance(e, DictAttr):
                    return None
                dims.append([k for k, _ in e.entries if k != "?"])
            return dims
    return None


def sdy_mesh_name(attr) -> str | None:
    from ..ir.attributes import SymbolRefAttr

    for p in getattr(attr, "positional", ()):
        if isinstance(p, SymbolRefAttr):
            return p.root
    return None


def sdy_tiling(dims: list[list[str]], mesh: Mesh) -> Tiling:
    sizes = dict(mesh.axes)
    tiles = []
    for axes in dims:
        for a in axes:
            if a not in sizes:
                raise ShardingError(f"sharding names axis {a!r}, which the mesh does not have")
        tiles.append(math.prod(sizes[a] for a in axes) if axes else 1)
    coords: dict[int, tuple[int, ...]] = {}
    for dev in mesh.device_ids:
        c = mesh.coords(dev)
        per_dim = []
        for axes in dims:
            i = 0
            for a in axes:  # major to minor
                i = i * sizes[a] + c[a]
            per_dim.append(i)
        coords[dev] = tuple(per_dim)
    return Tiling(tuple(tiles), coords)


# ----------------------------------------------------------------------------- HLO sharding
_DEVICES = re.compile(r"devices=\[([\d,]+)\]\s*(<=\[([\d,]+)\](?:T\(([\d,]+)\))?|[\d,]+)")


def hlo_tiling(text: str, rank: int, num_devices: int) -> Tiling | str:
    """An HLO sharding string as a Tiling, or "manual" for `{manual}`. Refuses the
    forms the checker does not run (maximal, partially manual, subgroups)."""
    s = text.strip()
    if s.startswith("{{"):
        raise ShardingError(f"tuple sharding {text} is not run")
    body = s.strip("{}").strip()
    if body == "manual":
        return "manual"
    if body in ("replicated", "") or body.startswith("replicated"):
        return replicated(rank, list(range(num_devices)))
    if body.startswith("maximal"):
        raise ShardingError(f"sharding {text} (one device holds the value) is not run")
    m = _DEVICES.search(body)
    if not m:
        raise ShardingError(f"cannot read sharding {text}")
    dims = [int(x) for x in m.group(1).split(",")]
    if math.prod(dims) > MAX_DEVICES or (m.group(3) and math.prod(int(x) for x in m.group(3).split(",")) > MAX_DEVICES):
        raise ShardingError(f"sharding {text} names more than {MAX_DEVICES} devices")
    if m.group(3):
        reshape = [int(x) for x in m.group(3).split(",")]
        perm = [int(x) for x in m.group(4).split(",")] if m.group(4) else list(range(len(reshape)))
        devs = np.arange(math.prod(reshape)).reshape(reshape).transpose(perm).reshape(-1)
    else:
        devs = np.array([int(x) for x in m.group(2).split(",")])
    if "last_tile_dims" in body and "manual" in body:
        raise ShardingError(f"partially manual sharding {text} is not run")
    if "last_tile_dims" in body:
        raise ShardingError(f"sharding with subgroups {text} is not run")
    assignment = devs.reshape(dims)
    data_rank = len(dims) - (1 if "last_tile_dim_replicate" in body else 0)
    if data_rank != rank:
        raise ShardingError(f"sharding {text} has {data_rank} tiled dims, the array has rank {rank}")
    coords = {}
    for idx in np.ndindex(*dims):
        coords[int(assignment[idx])] = tuple(int(i) for i in idx[:data_rank])
    return Tiling(tuple(dims[:data_rank]), coords)
