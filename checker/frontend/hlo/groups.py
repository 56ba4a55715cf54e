"""`replica_groups` in its three spellings, kept compact.

* explicit `{{0,1},{2,3}}`; `{}` is one group of every participant
  (xla/hlo/ir/collective_device_list.h, CollectiveDeviceList);
* iota `[G,S]<=[d0,d1,...]T(p0,p1,...)`: the ids iota(N) reshaped to the
  bracketed dims, transposed by T (absent: identity), flattened and cut into G
  groups of S (IotaReplicaGroupList; the array is IotaTileAssignment's:
  xla/hlo/ir/tile_assignment.h, "numpy.arange(N).reshape(dims).transpose(perm)");
* mesh axes `mesh[x=2,y=4] {x}` / `mesh[a=2,b=2], device_ids=([2,2]T(1,0)) {a:(1)2,b}`:
  the mesh's device array reshaped so each named (sub-)axis is a dimension of
  its own, the named axes transposed to the end in the order written, and cut
  into groups of their product (MeshAxesReplicaGroupList, xla/hlo/ir/replica_group.cc).

Every variant answers the same questions without listing every group: the
group of device d, group k, the number and size of groups, equality with
another spelling; `expand()` lists them all for small cases. The iota and
mesh variants answer in time proportional to the rank of their arrays, so a
16,384-device module costs nothing per op.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from math import prod

__all__ = ["TransposedIota", "ReplicaGroups", "ExplicitGroups", "IotaGroups", "Mesh", "AxisRef",
           "MeshAxesGroups", "canonical_iota", "iota_from", "mesh_from"]


# --------------------------------------------------------------------------- the iota array
@dataclass(frozen=True, slots=True)
class TransposedIota:
    """The flat array iota(N).reshape(dims).transpose(perm): position -> value and back."""

    dims: tuple[int, ...]
    """The dimensions iota(N) is reshaped to (N is their product)."""
    perm: tuple[int, ...]
    """The transposition applied to them (identity when written without `T(...)`)."""
    _value_strides: tuple[int, ...] = field(default=(), repr=False, compare=False)
    _pos_strides: tuple[int, ...] = field(default=(), repr=False, compare=False)

    def __post_init__(self) -> None:
        if len(self.dims) != len(self.perm) or sorted(self.perm) != list(range(len(self.dims))):
            raise ValueError(f"T({','.join(map(str, self.perm))}) is not a permutation of "
                             f"{len(self.dims)} dimensions")
        if any(d <= 0 for d in self.dims):
            raise ValueError("iota dimensions must be positive")
        n = len(self.dims)
        value_strides = [1] * n
        for i in range(n - 2, -1, -1):
            value_strides[i] = value_strides[i + 1] * self.dims[i + 1]
        tdims = [self.dims[p] for p in self.perm]
        pos_strides = [1] * n
        for i in range(n - 2, -1, -1):
            pos_strides[i] = pos_strides[i + 1] * tdims[i + 1]
        object.__setattr__(self, "_value_strides", tuple(value_strides))
        object.__setattr__(self, "_pos_strides", tuple(pos_strides))

    @property
    def size(self) -> int:
        return prod(self.dims)

    def value_at(self, pos: int) -> int:
        """The value at flat position `pos` of the transposed array."""
        v = 0
        for i, p in enumerate(self.perm):
            v += (pos // self._pos_strides[i]) % self.dims[p] * self._value_strides[p]
        return v

    def position_of(self, value: int) -> int:
        """Where `value` (0 <= value < size) sits in the transposed array."""
        pos = 0
        for i, p in enumerate(self.perm):
            pos += (value // self._value_strides[p]) % self.dims[p] * self._pos_strides[i]
        return pos

    def canonical(self) -> tuple[tuple[int, ...], tuple[int, ...]]:
        return canonical_iota(self.dims, self.perm)


def canonical_iota(dims, perm) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """The shortest (dims, perm) spelling the same array: size-1 dimensions dropped and
    dimensions that stay adjacent, in order, after the transposition merged. Two spellings
    of one array have one canonical form (as XLA's IotaTileAssignment::Create keeps them)."""
    keep = [i for i, d in enumerate(dims) if d != 1]
    new_index = {old: new for new, old in enumerate(keep)}
    d = [dims[i] for i in keep]
    p = [new_index[i] for i in perm if i in new_index]
    merged = True
    while merged:
        merged = False
        for i in range(len(p) - 1):
            if p[i + 1] == p[i] + 1:
                a = p[i]
                d[a] *= d[a + 1]
                del d[a + 1]
                del p[i + 1]
                p = [x - 1 if x > a else x for x in p]
                merged = True
                break
    if not d:
        return (1,), (0,)
    return tuple(d), tuple(p)


def _refine(a: list[int], b: list[int]) -> list[int] | None:
    """The coarsest factorization (major to minor) that refines both `a` and `b`
    (ordered factorizations of one number); None when there is none."""
    def strides(dims):
        out, s = set(), 1
        for d in reversed(dims):
            out.add(s)
            s *= d
        out.add(s)
        return out
    cuts = sorted(strides(a) | strides(b), reverse=True)
    out = []
    for big, small in zip(cuts, cuts[1:]):
        if big % small:
            return None
        out.append(big // small)
    return out


def _split(dims: list[int], fine: list[int]) -> list[list[int]]:
    """For each of `dims`, the run of `fine` factors it is made of."""
    out, j = [], 0
    for d in dims:
        run, p = [], 1
        while p < d:
            run.append(j)
            p *= fine[j]
            j += 1
        out.append(run)
    return out


def _compose(outer: TransposedIota, inner: TransposedIota) -> TransposedIota | None:
    """The array p -> inner.value_at(outer.value_at(p)) as one TransposedIota, when
    the two factorizations it goes through have a common refinement."""
    if outer.size != inner.size:
        return None
    o = TransposedIota(*canonical_iota(outer.dims, outer.perm))
    i = TransposedIota(*canonical_iota(inner.dims, inner.perm))
    # outer's values are linear indices over o.dims; inner's positions are linear
    # over its transposed dims. Both are factorizations of the same middle index.
    inner_t = [i.dims[p] for p in i.perm]
    fine = _refine(list(o.dims), inner_t)
    if fine is None:
        return None
    o_runs = _split(list(o.dims), fine)      # o.dims[k] -> fine factors (value side of outer)
    it_runs = _split(inner_t, fine)           # inner transposed dim k -> fine factors
    # Refine outer: its dims become `fine` (value order); its perm expands by runs.
    o_perm = [f for k in o.perm for f in o_runs[k]]
    # Refine inner: inner dims in their own (untransposed) order, each split the way
    # its transposed image is split.
    i_dims_runs: dict[int, list[int]] = {}
    for k, p in enumerate(i.perm):
        i_dims_runs[p] = it_runs[k]
    i_fine_dims: list[int] = []
    i_new_index: dict[int, int] = {}  # fine factor index (middle) -> index in inner's refined dims
    for p in range(len(i.dims)):
        for f in i_dims_runs[p]:
            i_new_index[f] = len(i_fine_dims)
            i_fine_dims.append(fine[f])
    # The middle index's fine digits are, in order, the inner's transposed fine dims:
    # middle fine factor f is inner refined dim i_new_index[f].
    # Composite: position digits (outer transposed, fine) -> middle digit f -> inner dim.
    perm = [i_new_index[f] for f in o_perm]
    return TransposedIota(tuple(i_fine_dims), tuple(perm))


# --------------------------------------------------------------------------- the three spellings
class ReplicaGroups:
    """What every spelling of `replica_groups` answers. Ids are replica, partition or
    global device ids as the op's group mode says; the syntax layer does not know which.

    Each variant has `num_groups` (int) and `group_size` (devices per group; None when
    groups differ in size or the size is unknown, as for `{}`)."""

    __slots__ = ()
    num_groups: int
    group_size: int | None

    def group(self, k: int, num_devices: int | None = None) -> tuple[int, ...]:
        """Group k, in order. `num_devices` sizes the one group of `{}`."""
        raise NotImplementedError

    def group_index_of(self, device: int) -> int | None:
        """The index of the group `device` is in; None when it is in none."""
        raise NotImplementedError

    def group_of(self, device: int, num_devices: int | None = None) -> tuple[int, ...] | None:
        k = self.group_index_of(device)
        return None if k is None else self.group(k, num_devices)

    def expand(self, num_devices: int | None = None) -> tuple[tuple[int, ...], ...]:
        """Every group, listed (for small cases: this is what the compact forms avoid)."""
        return tuple(self.group(k, num_devices) for k in range(self.num_groups))

    def _iota_form(self) -> tuple[int, int, tuple[int, ...], tuple[int, ...]] | None:
        """(num_groups, group_size, canonical dims, canonical perm) when the groups are one
        transposed iota array cut in equal pieces."""
        return None

    def same_as(self, other: "ReplicaGroups", num_devices: int | None = None) -> bool:
        """The same groups in the same order, however each is spelled."""
        if self is other or self == other:
            return True
        a, b = self._iota_form(), other._iota_form()
        if a is not None and b is not None:
            return a == b
        try:
            if self.num_groups != other.num_groups:
                return False
            return self.expand(num_devices) == other.expand(num_devices)
        except ValueError:
            return False


@dataclass(frozen=True, slots=True, eq=True)
class ExplicitGroups(ReplicaGroups):
    """`{{0,1},{2,3}}` as written; `{}` (no groups) means one group of every participant."""

    groups: tuple[tuple[int, ...], ...]
    """The groups as written, in order."""
    _index: dict | None = field(default=None, repr=False, compare=False, hash=False)

    @property
    def is_all(self) -> bool:
        """Written `{}`: one group of every replica / partition / device."""
        return not self.groups

    @property
    def num_groups(self) -> int:
        return len(self.groups) or 1

    @property
    def group_size(self) -> int | None:
        if not self.groups:
            return None
        n = len(self.groups[0])
        return n if all(len(g) == n for g in self.groups) else None

    def group(self, k: int, num_devices: int | None = None) -> tuple[int, ...]:
        if not self.groups:
            if k != 0:
                raise IndexError(k)
            if num_devices is None:
                raise ValueError("replica_groups={} is every participant: give num_devices")
            return tuple(range(num_devices))
        return self.groups[k]

    def group_index_of(self, device: int) -> int | None:
        if not self.groups:
            return 0 if device >= 0 else None
        index = self._index
        if index is None:
            index = {}
            for k, g in enumerate(self.groups):
                for d in g:
                    index.setdefault(d, k)
            object.__setattr__(self, "_index", index)
        return index.get(device)


@dataclass(frozen=True, slots=True, eq=True)
class IotaGroups(ReplicaGroups):
    """`[G,S]<=[dims]T(perm)`: G groups of S ids from a transposed iota array."""

    num_groups: int
    """G, the first bracketed number."""
    group_size: int
    """S, the second."""
    reshape_dims: tuple[int, ...]
    """The dims after `<=`."""
    transpose_perm: tuple[int, ...]
    """The permutation in `T(...)`; the identity when not written."""
    _array: TransposedIota | None = field(default=None, repr=False, compare=False, hash=False)

    def __post_init__(self) -> None:
        arr = TransposedIota(self.reshape_dims, self.transpose_perm)
        if arr.size != self.num_groups * self.group_size:
            raise ValueError(f"[{self.num_groups},{self.group_size}] holds "
                             f"{self.num_groups * self.group_size} ids but the iota has {arr.size}")
        object.__setattr__(self, "_array", arr)

    @property
    def num_devices(self) -> int:
        return self.num_groups * self.group_size

    def group(self, k: int, num_devices: int | None = None) -> tuple[int, ...]:
        if not 0 <= k < self.num_groups:
            raise IndexError(k)
        base, arr = k * self.group_size, self._array
        return tuple(arr.value_at(base + j) for j in range(self.group_size))

    def group_index_of(self, device: int) -> int | None:
        if not 0 <= device < self.num_devices:
            return None
        return self._array.position_of(device) // self.group_size

    def rank_in_group(self, device: int) -> int | None:
        """The position of `device` within its group."""
        if not 0 <= device < self.num_devices:
            return None
        return self._array.position_of(device) % self.group_size

    def _iota_form(self):
        dims, perm = self._array.canonical()
        return (self.num_groups, self.group_size, dims, perm)


@dataclass(frozen=True, slots=True)
class AxisRef:
    """One axis in a mesh-axes group list: `x` (the whole axis) or `x:(pre)size` (a sub-axis)."""

    axis: str
    """The axis as written: a mesh axis name, or its index when the mesh names none."""
    pre_size: int | None = None
    """For a sub-axis: the product of the sizes of the more major sub-axes of the axis."""
    size: int | None = None
    """For a sub-axis: its size."""

    def __str__(self) -> str:
        return self.axis if self.pre_size is None else f"{self.axis}:({self.pre_size}){self.size}"


@dataclass(frozen=True, slots=True)
class Mesh:
    """`mesh[x=2,y=4]` with an optional `device_ids=(...)`: the device at each mesh coordinate."""

    axis_names: tuple[str, ...]
    """Axis names, major to minor."""
    axis_sizes: tuple[int, ...]
    """Axis sizes, in the same order."""
    device_order: TransposedIota | tuple[int, ...] | None = None
    """The devices in row-major mesh order: None for iota, a TransposedIota for
    `device_ids=([dims]T(perm))`, a tuple for `device_ids=(3,1,...)`."""

    @property
    def num_devices(self) -> int:
        return prod(self.axis_sizes)

    def device_at(self, linear: int) -> int:
        order = self.device_order
        if order is None:
            return linear
        if isinstance(order, TransposedIota):
            return order.value_at(linear)
        return order[linear]

    def axis_index(self, axis: str) -> int:
        if axis in self.axis_names:
            return self.axis_names.index(axis)
        if axis.isdigit() and int(axis) < len(self.axis_sizes):
            return int(axis)
        raise ValueError(f"axis '{axis}' is not in mesh [{', '.join(self.axis_names)}]")


@dataclass(frozen=True, slots=True, eq=True)
class MeshAxesGroups(ReplicaGroups):
    """`mesh[...] {axes}`: the devices that differ only along the named (sub-)axes form a group."""

    mesh: Mesh
    """The mesh written before the axes."""
    axes: tuple[AxisRef, ...]
    """The axes whose coordinates vary within a group, in the order written."""
    _plan: tuple | None = field(default=None, repr=False, compare=False, hash=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_plan", self._make_plan())

    def _make_plan(self):
        """(array over the regrouped mesh dims, group size, inverse of the device order)."""
        mesh = self.mesh
        if len(mesh.axis_names) != len(mesh.axis_sizes) or any(s <= 0 for s in mesh.axis_sizes):
            raise ValueError("mesh axis sizes must be positive")
        order = mesh.device_order
        n = mesh.num_devices
        if isinstance(order, TransposedIota) and order.size != n:
            raise ValueError(f"device_ids has {order.size} devices, the mesh {n}")
        if isinstance(order, tuple) and sorted(order) != list(range(n)):
            raise ValueError(f"device_ids must list each of the mesh's {n} devices once")
        per_dim: dict[int, list[tuple[int, AxisRef]]] = {}
        for k, ref in enumerate(self.axes):
            per_dim.setdefault(mesh.axis_index(ref.axis), []).append((k, ref))
        # Each mesh dimension is split so that every sub-axis named on it is a
        # dimension of its own (a whole axis stays one dimension).
        reindexed: list[int] = []
        grouped_at: dict[int, int] = {}  # index in self.axes -> regrouped dimension
        for dim, full in enumerate(mesh.axis_sizes):
            refs = per_dim.get(dim)
            if not refs:
                reindexed.append(full)
                continue
            if len(refs) == 1 and refs[0][1].pre_size is None:
                grouped_at[refs[0][0]] = len(reindexed)
                reindexed.append(full)
                continue
            if any(r.pre_size is None for _, r in refs):
                raise ValueError(f"axis {mesh.axis_names[dim]} is named whole and as a sub-axis")
            covered = 1
            for k, ref in sorted(refs, key=lambda kr: kr[1].pre_size):
                if ref.pre_size < covered or ref.pre_size % covered:
                    raise ValueError(f"sub-axes of {mesh.axis_names[dim]} overlap")
                if ref.pre_size > covered:
                    reindexed.append(ref.pre_size // covered)
                grouped_at[k] = len(reindexed)
                reindexed.append(ref.size)
                covered = ref.pre_size * ref.size
            if full % covered:
                raise ValueError(f"sub-axes of {mesh.axis_names[dim]} do not divide its size {full}")
            if covered != full:
                reindexed.append(full // covered)
        grouped = [grouped_at[k] for k in range(len(self.axes))]
        if len(set(grouped)) != len(grouped):
            raise ValueError("an axis is named twice")
        perm = [d for d in range(len(reindexed)) if d not in grouped] + grouped
        arr = TransposedIota(tuple(reindexed), tuple(perm))
        size = prod(reindexed[d] for d in grouped)
        inverse = None
        if isinstance(order, tuple):
            inverse = {dev: i for i, dev in enumerate(order)}
        return arr, size, inverse

    @property
    def num_groups(self) -> int:
        return self.mesh.num_devices // self._plan[1]

    @property
    def group_size(self) -> int:
        return self._plan[1]

    @property
    def num_devices(self) -> int:
        return self.mesh.num_devices

    def group(self, k: int, num_devices: int | None = None) -> tuple[int, ...]:
        arr, size, _ = self._plan
        if not 0 <= k < self.num_groups:
            raise IndexError(k)
        return tuple(self.mesh.device_at(arr.value_at(k * size + j)) for j in range(size))

    def group_index_of(self, device: int) -> int | None:
        arr, size, inverse = self._plan
        if not 0 <= device < self.num_devices:
            return None
        order = self.mesh.device_order
        if order is None:
            linear = device
        elif isinstance(order, TransposedIota):
            linear = order.position_of(device)
        else:
            linear = inverse[device]
        return arr.position_of(linear) // size

    def as_iota(self) -> IotaGroups | None:
        """The same groups spelled `[G,S]<=[dims]T(perm)`, when one transposed iota spells them
        (XLA's MeshAxesReplicaGroupList::ToIotaReplicaGroupList)."""
        arr, size, _ = self._plan
        order = self.mesh.device_order
        if isinstance(order, tuple):
            return None
        composite = arr if order is None else _compose(arr, order)
        if composite is None:
            return None
        dims, perm = composite.canonical()
        return IotaGroups(self.num_groups, size, dims, perm)

    def _iota_form(self):
        iota = self.as_iota()
        return None if iota is None else iota._iota_form()


# --------------------------------------------------------------------------- constructors
def iota_from(tile, reshape, perm=None) -> IotaGroups:
    """`[tile]<=[reshape]T(perm)` as written -> IotaGroups (ValueError when it is not one)."""
    tile, reshape = tuple(tile), tuple(reshape)
    if len(tile) != 2:
        raise ValueError(f"iota replica groups are [num_groups,group_size], got [{','.join(map(str, tile))}]")
    if perm is None:
        perm = tuple(range(len(reshape)))
    return IotaGroups(tile[0], tile[1], reshape, tuple(perm))


def mesh_from(axes, order, refs) -> MeshAxesGroups:
    """`mesh[name=size,...], device_ids=(order) {refs}` as written -> MeshAxesGroups.
    `order`: None, ("iota", dims, perm or None) or ("list", ids); `refs`: (axis, pre_size, size)
    with None for a whole axis. ValueError when the groups do not exist."""
    names = tuple(n for n, _ in axes)
    if len(set(names)) != len(names):
        raise ValueError("a mesh axis name is written twice")
    device_order = None
    if order is not None:
        if order[0] == "iota":
            dims, perm = tuple(order[1]), order[2]
            device_order = TransposedIota(dims, tuple(range(len(dims))) if perm is None else tuple(perm))
        else:
            device_order = tuple(order[1])
    mesh = Mesh(names, tuple(s for _, s in axes), device_order)
    groups = MeshAxesGroups(mesh, tuple(AxisRef(a, p, s) for a, p, s in refs))
    if groups.group_size == 1:  # as jaxlib's parser says
        raise ValueError("mesh-axes replica groups need more than one device per group, got 1")
    return groups
