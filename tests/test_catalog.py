"""The op catalog (checker/ir/catalog.py): its tables agree with themselves, and the
sets the stages ask for say what the stages need."""
from __future__ import annotations

import pytest

from shlo_lint.checker.ir import catalog
from shlo_lint.checker.ir.catalog import (COLLECTIVE, DONE, GLOBAL_IDS, KINDS, OPS, PERMUTE, POINT_TO_POINT, RECV, SEND,
                                          START)


def test_every_op_names_a_known_kind_role_and_region():
    regions = {catalog.BRANCHES, catalog.LOOP, catalog.ONCE, catalog.CALL, catalog.INDIRECT_CALL, catalog.FUNCTION,
               catalog.MODULE, catalog.COMPUTATION, catalog.ASYNC_BODY, None}
    for name, o in OPS.items():
        assert o.name == name
        assert o.kind is None or o.kind in KINDS, name
        assert o.role is None or o.role in catalog.ROLES, name
        assert o.regions in regions, name
        assert o.terminator in (catalog.FUNCTION_RETURN, catalog.REGION_RETURN, None), name
        assert not (o.role and o.terminator), name


def test_starts_and_dones_pair_both_ways():
    for name, o in OPS.items():
        if o.async_side in (START, DONE):
            assert o.future in ("stablehlo", "tessera", "hlo"), name
        assert o.future_side is None or o.role not in (START, DONE), name  # a role says it already
        for other in o.pair:
            partner = OPS[other]
            assert {o.async_side, partner.async_side} == {START, DONE}, (name, other)
            assert partner.future == o.future, (name, other)
            assert None in (o.kind, partner.kind) or partner.kind == o.kind, (name, other)  # an await takes any
            assert name in partner.pair or partner.role == DONE and partner.future == "tessera", (name, other)


def test_every_stablehlo_kind_has_its_op_and_async_forms():
    for k in KINDS.values():
        if k.custom_call:
            assert not catalog.ops_of(k.name, dialect="stablehlo"), k.name  # a custom_call target: no op of its own
            continue
        ops = catalog.ops_of(k.name, dialect="stablehlo")
        assert ops[0] == f"stablehlo.{k.name}"
        if k.meets == POINT_TO_POINT:
            assert OPS[ops[0]].role in (SEND, RECV) and len(ops) == 1
        else:
            assert OPS[ops[0]].role == (PERMUTE if k.meets == catalog.PAIRS else COLLECTIVE)
            assert ops[1:] == (f"stablehlo.{k.name}_start", f"stablehlo.{k.name}_done")


def test_the_sets_the_stages_ask_for():
    assert catalog.COLLECTIVE_KINDS == {"all_reduce", "all_gather", "reduce_scatter", "all_to_all",
                                        "collective_permute", "collective_broadcast", "collective_reduce"}
    assert catalog.GROUP_KINDS == catalog.COLLECTIVE_KINDS - {"collective_permute"} | {"ragged_all_to_all"}
    assert catalog.GLOBAL_IDS_KINDS == {k for k, v in KINDS.items() if v.group_mode == GLOBAL_IDS} \
        == {"all_reduce", "all_gather", "reduce_scatter"}
    assert catalog.SAME_IN_GROUP_KINDS == {"all_reduce", "all_gather", "collective_broadcast"}
    assert catalog.TERMINATORS == {"func.return", "return", "stablehlo.return", "sdy.return", "mhlo.return",
                                   "scf.yield"}
    # seed 004 names six per-collective forms (none for collective_reduce)
    assert len(catalog.names(role=START, seed_004=True)) == 6
    assert "stablehlo.collective_reduce_start" in catalog.names(role=START) - catalog.names(seed_004=True)


@pytest.mark.parametrize("name,kind", [
    ("stablehlo.all_reduce_start", "all_reduce"), ("stablehlo.send", "send"), ("stablehlo.add", "add"),
    ("tessera.collective.all_gather", "all_gather"), ("tessera.await", "await"),
    ("stablehlo.async_start", "async_start"), ("mhlo.all_gather_done", "all_gather")])
def test_base_kind(name, kind):
    assert catalog.base_kind(name) == kind


def test_an_op_the_catalog_does_not_know_is_opaque():
    o = catalog.info("mydialect.frobnicate")
    assert (o.kind, o.role, o.regions, o.terminator, o.pair) == (None, None, None, None, ())
    assert catalog.kind("mydialect.frobnicate") is None


def test_hlo_opcodes_that_are_no_stablehlo_op():
    """HLO's async pairs, point-to-point halves, calls and value-forwarding ops have their facts here."""
    for kind in ("all_reduce", "all_gather", "collective_permute"):
        start, done = (f"hlo.{kind.replace('_', '-')}-{s}" for s in ("start", "done"))
        assert OPS[start].role == START and OPS[done].role == DONE and OPS[start].pair == (done,)
        assert catalog.base_kind(start) == catalog.base_kind(done) == kind
    assert OPS["hlo.async-start"].body_kind and OPS["hlo.async-done"].role == DONE
    assert (OPS["hlo.send"].role, OPS["hlo.recv-done"].role) == (SEND, RECV)
    assert OPS["hlo.recv"].role is None and OPS["hlo.send-done"].role is None
    # ... and each half is an async pair of its own: the futures the pairing analysis follows
    assert catalog.future_ends(START, "hlo") == {"hlo.all-reduce-start", "hlo.all-gather-start",
                                                 "hlo.collective-permute-start", "hlo.async-start", "hlo.send",
                                                 "hlo.recv"}
    assert catalog.future_ends(DONE, "hlo") == {"hlo.all-reduce-done", "hlo.all-gather-done",
                                                "hlo.collective-permute-done", "hlo.async-done", "hlo.send-done",
                                                "hlo.recv-done"}
    assert catalog.future_ends(START, "stablehlo") == catalog.names(role=START, future="stablehlo")
    assert catalog.names(regions=catalog.CALL) >= {"hlo.call", "hlo.fusion", "func.call"}
    assert catalog.FORWARDING >= {"hlo.tuple", "hlo.get-tuple-element", "hlo.copy", "hlo.async-update"}
    assert catalog.kind("hlo.ragged-all-to-all").custom_call  # StableHLO writes it as a custom_call
    assert OPS["stablehlo.case"].branch_operands and not OPS["stablehlo.while"].branch_operands
