"""Replica groups in their three spellings (checker/frontend/hlo/groups.py) against a brute-force
expansion written here from the documented semantics, against the groups XLA itself formed
on 8 CPU devices (tests/fixtures/hlo/xla_groups.json, made by generate.py), and at 16,384
devices without listing a group."""
from __future__ import annotations

import itertools
import json
import random
from math import prod

import numpy as np
import pytest

from shlo_lint.checker.frontend.hlo.body import read_attributes
from shlo_lint.checker.frontend.hlo.groups import (ExplicitGroups, IotaGroups, MeshAxesGroups, ReplicaGroups,
                                          TransposedIota, canonical_iota, iota_from, mesh_from)

from hlo_helpers import HLO


def spelled(text: str) -> ReplicaGroups:
    attrs, issues = read_attributes(f", replica_groups={text}", 0, len(text) + 17, 0)
    assert issues == () and attrs[0].name == "replica_groups"
    return attrs[0].value


# --------------------------------------------------------------------------- brute force
def iota_brute(num_groups, size, dims, perm):
    """numpy: arange(N).reshape(dims).transpose(perm), flattened, cut in rows of `size`."""
    flat = np.arange(prod(dims)).reshape(dims).transpose(perm).reshape(-1)
    return [tuple(int(x) for x in flat[k * size:(k + 1) * size]) for k in range(num_groups)]


def mesh_brute(axes, devices, refs):
    """By coordinates. On an axis of size n, the sub-axis (pre, size) is the digit
    (c // (n // (pre*size))) % size of a coordinate c, a whole axis is c itself. Devices whose
    coordinates agree once the named digits are taken out form a group; within it they are
    ordered by the named digits, the first named most major."""
    names = [n for n, _ in axes]
    sizes = [s for _, s in axes]
    devices = devices if devices is not None else list(range(prod(sizes)))

    def digit(c, dim, pre, size):
        return c if pre is None else (c // (sizes[dim] // (pre * size))) % size

    groups: dict[tuple, list] = {}
    for linear, coord in enumerate(itertools.product(*[range(s) for s in sizes])):
        rest = list(coord)
        for a, pre, size in refs:
            dim = names.index(a)
            if pre is None:
                rest[dim] = None
            else:
                rest[dim] -= digit(coord[dim], dim, pre, size) * (sizes[dim] // (pre * size))
        position = tuple(digit(coord[names.index(a)], names.index(a), pre, size) for a, pre, size in refs)
        groups.setdefault(tuple(rest), []).append((position, devices[linear]))
    return sorted((tuple(d for _, d in sorted(members)) for members in groups.values()), key=min)


# --------------------------------------------------------------------------- tests
def test_iota_against_numpy_on_random_cases():
    rng = random.Random(7)
    for _ in range(400):
        rank = rng.randint(1, 4)
        dims = tuple(rng.choice([1, 2, 3, 4]) for _ in range(rank))
        perm = tuple(rng.sample(range(rank), rank))
        n = prod(dims)
        size = rng.choice([s for s in range(1, n + 1) if n % s == 0])
        g = IotaGroups(n // size, size, dims, perm)
        expect = iota_brute(n // size, size, dims, perm)
        assert list(g.expand()) == expect, (dims, perm, size)
        for d in range(n):
            k = g.group_index_of(d)
            assert d in expect[k] and expect[k][g.rank_in_group(d)] == d
        assert g.group_index_of(n) is None and g.group_index_of(-1) is None


def test_canonical_iota_is_one_spelling_per_array():
    seen: dict[tuple, tuple] = {}
    for rank in range(1, 5):
        for dims in itertools.product([1, 2, 3, 4], repeat=rank):
            if prod(dims) > 24:
                continue
            for perm in itertools.permutations(range(rank)):
                flat = tuple(np.arange(prod(dims)).reshape(dims).transpose(perm).reshape(-1).tolist())
                canon = canonical_iota(dims, perm)
                assert iota_brute(1, prod(dims), *canon)[0] == flat
                assert seen.setdefault((len(flat), flat), canon) == canon


def test_transposed_iota_position_and_value_are_inverse():
    arr = TransposedIota((4, 3, 2), (2, 0, 1))
    assert sorted(arr.value_at(p) for p in range(24)) == list(range(24))
    assert all(arr.position_of(arr.value_at(p)) == p for p in range(24))


MESH_CASES = [
    ((("x", 2), ("y", 4)), None, (("x", None, None),)),
    ((("x", 2), ("y", 4)), None, (("y", None, None), ("x", None, None))),
    ((("x", 2), ("y", 4)), None, (("y", 1, 2),)),
    ((("x", 2), ("y", 4)), None, (("y", 2, 2),)),
    ((("x", 2), ("y", 4)), None, (("y", 1, 2), ("x", None, None))),
    ((("a", 2), ("b", 8)), None, (("b", 4, 2), ("b", 1, 2))),
    ((("a", 4), ("b", 2), ("c", 3)), None, (("c", None, None), ("a", 2, 2))),
    ((("x", 2), ("y", 4)), ("list", (3, 1, 2, 0, 7, 5, 6, 4)), (("y", None, None),)),
    ((("x", 2), ("y", 4)), ("iota", (4, 2), (1, 0)), (("x", None, None),)),
    ((("x", 2), ("y", 2), ("z", 2)), ("iota", (2, 2, 2), (2, 1, 0)), (("z", None, None), ("x", None, None))),
]


@pytest.mark.parametrize("axes,order,refs", MESH_CASES)
def test_mesh_axes_against_coordinates(axes, order, refs):
    g = mesh_from(axes, order, refs)
    ids = None
    if order is not None:
        ids = list(order[1]) if order[0] == "list" else list(
            np.arange(prod(order[1])).reshape(order[1]).transpose(order[2]).reshape(-1))
    expect = mesh_brute(axes, ids, refs)
    got = sorted(g.expand(), key=lambda grp: min(grp))
    assert got == expect
    for k, grp in enumerate(g.expand()):
        assert all(g.group_index_of(d) == k for d in grp)
    assert g.num_groups * g.group_size == g.num_devices


@pytest.mark.parametrize("spelling,groups", sorted(json.loads((HLO / "xla_groups.json").read_text()).items()))
def test_groups_as_xla_forms_them(spelling, groups):
    """XLA ran an all-gather of the replica ids over each spelling: the gathered lists are the
    groups in their order (the order of the groups themselves is how the replicas met them)."""
    g = spelled(spelling)
    assert sorted(g.expand()) == sorted(tuple(x) for x in groups)
    for grp in groups:
        for d in grp:
            assert g.group_of(d) == tuple(grp)
    if isinstance(g, MeshAxesGroups):  # the coordinate reading above agrees with XLA too
        axes = tuple(zip(g.mesh.axis_names, g.mesh.axis_sizes))
        refs = tuple((r.axis, r.pre_size, r.size) for r in g.axes)
        assert mesh_brute(axes, None, refs) == sorted((tuple(x) for x in groups), key=min)


def test_same_groups_in_any_spelling():
    explicit = spelled("{{0,4},{1,5},{2,6},{3,7}}")
    iota = spelled("[4,2]<=[2,4]T(1,0)")
    mesh = spelled("mesh['x'=2,'y'=4] {'x'}")
    assert explicit.same_as(iota) and iota.same_as(mesh) and mesh.same_as(explicit)
    assert spelled("[2,4]<=[2,2,2]T(2,0,1)").same_as(spelled("[2,4]<=[4,2]T(1,0)"))  # two spellings, one array
    assert not iota.same_as(spelled("[4,2]<=[8]"))
    assert not spelled("{{0,1},{2,3}}").same_as(spelled("{{1,0},{2,3}}"))  # order within a group counts
    assert spelled("{}").same_as(spelled("{}")) and not spelled("{}").same_as(spelled("[1,8]<=[8]"))
    assert spelled("{}").same_as(spelled("[1,8]<=[8]"), num_devices=8)
    listed = spelled("mesh['x'=2,'y'=4], device_ids=(0,2,4,6,1,3,5,7) {'y'}")
    assert listed.as_iota() is None and listed.same_as(spelled("[2,4]<=[4,2]T(1,0)"))


def test_mesh_with_an_iota_device_order_is_an_iota():
    g = spelled("mesh['x'=2,'y'=2,'z'=2], device_ids=([2,2,2]T(2,1,0)) {'z','x'}")
    iota = g.as_iota()
    assert iota is not None and iota.expand() == g.expand()


def test_empty_groups_mean_everyone():
    g = spelled("{}")
    assert isinstance(g, ExplicitGroups) and g.is_all and g.num_groups == 1 and g.group_size is None
    assert g.group_index_of(5) == 0 and g.group(0, num_devices=4) == (0, 1, 2, 3)
    with pytest.raises(ValueError):
        g.group(0)


def test_16384_devices_without_listing_a_group(monkeypatch):
    def refuse(self, num_devices=None):
        raise AssertionError("a compact group list was expanded")
    monkeypatch.setattr(ReplicaGroups, "expand", refuse)
    iota = spelled("[128,128]<=[128,128]T(1,0)")
    assert iota.num_groups == 128 and iota.group_size == 128
    assert iota.group_index_of(16383) == 127 and iota.group(3)[:3] == (3, 131, 259)
    assert iota.rank_in_group(130) == 1
    mesh = spelled("mesh['data'=64,'model'=256] {'model':(16)16,'data'}")
    assert mesh.num_devices == 16384 and mesh.group_size == 16 * 64
    k = mesh.group_index_of(12345)
    assert 12345 in mesh.group(k)
    assert mesh.same_as(mesh.as_iota()) and iota.same_as(spelled("[128,128]<=[128,128]T(1,0)"))


def test_groups_that_do_not_exist_are_value_errors():
    with pytest.raises(ValueError, match="num_groups,group_size"):
        iota_from((2, 2, 2), (8,))
    with pytest.raises(ValueError, match="holds 8 ids but the iota has 6"):
        iota_from((2, 4), (6,))
    with pytest.raises(ValueError, match="not a permutation"):
        iota_from((2, 4), (2, 4), (0, 0))
    with pytest.raises(ValueError, match="not in mesh"):
        mesh_from((("x", 2),), None, (("y", None, None),))
    with pytest.raises(ValueError, match="overlap"):
        mesh_from((("x", 8),), None, (("x", 1, 4), ("x", 2, 2)))
    with pytest.raises(ValueError, match="more than one device"):
        mesh_from((("x", 8),), None, ())
    with pytest.raises(ValueError, match="each of the mesh's 4 devices once"):
        mesh_from((("x", 4),), ("list", (0, 1, 1, 3)), (("x", None, None),))
    assert isinstance(spelled("mesh['x'=4] {'x'}"), MeshAxesGroups)
