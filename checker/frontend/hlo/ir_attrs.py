"""An instruction's attributes as IR attributes.

For the ops lowered to StableHLO ops (checker/frontend/hlo/opcodes.py) the
attributes the StableHLO op has are built in StableHLO's form, with the span
of the HLO attribute they come from (rules point at `replica_groups=...`):

* `replica_groups`: explicit groups `{{0,1},{2,3}}` become the dense
  `tensor<GxSxi64>` StableHLO writes (ragged ones padded with -1, `{}` the empty
  tensor: every participant); iota `[2,4]<=[4,2]T(1,0)` and mesh axes
  `mesh[x=2,y=4] {x}` stay compact (ir.attributes.ReplicaGroupsAttr);
* `channel_id=N` -> `channel_handle = #stablehlo.channel_handle<handle = N, type = T>`
  (T: 1 device to device, 2 / 3 for a send / recv to or from the host);
  `use_global_device_ids=true` -> the unit attribute;
* `dimensions={d}` -> `all_gather_dim`, `scatter_dimension`, all_to_all's
  `split_dimension` = `concat_dimension` = d with `split_count` = the group size,
  broadcast's `broadcast_dimensions`; `dynamic_slice_sizes` -> `slice_sizes`;
* `source_target_pairs` (and a send/recv's `_xla_send_recv_source_target_pairs`)
  -> the dense `tensor<Kx2xi64>`;
* compare's `direction=LT` / `type=UNSIGNED` -> `comparison_direction` /
  `compare_type`; a constant's literal -> `value` (a `dense<...>` of its type);
  custom-call's target, side effect and API version -> `call_target_name`,
  `has_side_effect`, `api_version`.

Every op also keeps, under MHLO's names where MHLO has one, what HLO says of
it beyond that: `sharding` -> `mhlo.sharding`, `frontend_attributes` ->
`mhlo.frontend_attributes`, `backend_config` (its text), `control-predecessors`
-> `hlo.control_predecessors` (the names, `%x`), a while's
`known_trip_count` -> `hlo.known_trip_count`. The attributes a lowered op does
not use otherwise are kept under their HLO names, typed generically
(`generic`). The instruction itself stays reachable (`HloOperation.instruction`)
for what needs HLO's own reading.
"""
from __future__ import annotations

import re

from ...ir.attributes import (ArrayAttr, Attribute, BoolAttr, DenseArrayAttr, DenseElementsAttr, DialectAttr, DictAttr,
                              EnumAttr, FloatAttr, IntegerAttr, OpaqueAttr, ReplicaGroupsAttr, StringAttr,
                              SymbolRefAttr, UnitAttr)
from ...ir.types import ScalarType, TensorType, Type
from .groups import ExplicitGroups, ReplicaGroups
from .model import Attribute as HloAttribute, Instruction
from .values import (BackendConfig, FrontendAttributes, Literal, Metadata, NameRef, Opaque, SourceTargetPairs, Word)

__all__ = ["attributes_of", "generic", "groups_attr", "pairs_attr", "channel_attr", "literal_attr",
           "DEVICE_TO_DEVICE", "DEVICE_TO_HOST", "HOST_TO_DEVICE"]

DEVICE_TO_DEVICE, DEVICE_TO_HOST, HOST_TO_DEVICE = 1, 2, 3
"""StableHLO's channel types (ChannelHandle's `type`)."""
_I64 = ScalarType("i64")
_API_VERSIONS = {"API_VERSION_ORIGINAL": 1, "API_VERSION_STATUS_RETURNING": 2,
                 "API_VERSION_STATUS_RETURNING_UNIFIED": 3, "API_VERSION_TYPED_FFI": 4}
_LITERAL_LIMIT = 1 << 16
"""Longest constant literal given a `value` (characters): a bigger one is left opaque
(nothing that folds branch indices reads megabyte tensors)."""
_KEPT = {"sharding": "mhlo.sharding", "frontend_attributes": "mhlo.frontend_attributes",
         "backend_config": "backend_config", "control-predecessors": "hlo.control_predecessors"}


# --------------------------------------------------------------------------- the pieces
def groups_attr(groups: ReplicaGroups, text: str, span) -> Attribute:
    """`replica_groups` as StableHLO's dense rows (explicit) or compact (iota, mesh axes)."""
    if isinstance(groups, ExplicitGroups):
        rows = groups.groups
        if not rows:
            return DenseElementsAttr("", TensorType((0, 0), _I64), span)
        width = max(len(r) for r in rows)
        padded = [list(r) + [-1] * (width - len(r)) for r in rows]
        literal = "[" + ", ".join("[" + ", ".join(map(str, r)) + "]" for r in padded) + "]"
        return DenseElementsAttr(literal, TensorType((len(rows), width), _I64), span)
    return ReplicaGroupsAttr(groups, text, span)


def pairs_attr(pairs: SourceTargetPairs, span) -> DenseElementsAttr:
    """Source-target pairs as StableHLO's dense `tensor<Kx2xi64>`."""
    literal = "[" + ", ".join(f"[{s}, {t}]" for s, t in pairs.pairs) + "]" if pairs.pairs else ""
    return DenseElementsAttr(literal, TensorType((len(pairs.pairs), 2), _I64), span)


def channel_attr(channel: int, kind: int, span) -> DialectAttr:
    return DialectAttr("stablehlo", "channel_handle",
                       (("handle", IntegerAttr(channel)), ("type", IntegerAttr(kind))),
                       text=f"#stablehlo.channel_handle<handle = {channel}, type = {kind}>", span=span)


_HLO_FLOAT = re.compile(r"-?(?:inf|nan(?:\(0x[0-9a-fA-F]+\))?)")


def literal_attr(literal: Literal, type_: Type | None, span) -> DenseElementsAttr | None:
    """A constant's literal as `dense<...>` of its type (HLO's `{1, 2}` nesting is MLIR's
    `[1, 2]`); None for what has no such value here: a tuple or complex literal, one XLA
    printed elided (`{...}`), or one longer than _LITERAL_LIMIT."""
    text = literal.text
    if len(text) > _LITERAL_LIMIT or "..." in text or "(" in text.replace("nan(", "") \
            or not isinstance(type_, TensorType):
        return None
    body = text.replace("{", "[").replace("}", "]")
    if "nan(" in body:  # a NaN with a payload: the value is a NaN all the same
        body = _HLO_FLOAT.sub(lambda m: "nan" if "nan" in m.group() else m.group(), body)
    return DenseElementsAttr(body.strip(), type_, span)


def generic(a: HloAttribute, text: str) -> Attribute:
    """An HLO attribute typed by its value alone (for what no StableHLO op reads)."""
    v, span = a.value, a.value_span
    if isinstance(v, bool):
        return BoolAttr(v, span)
    if isinstance(v, int):
        return IntegerAttr(v, None, span)
    if isinstance(v, float):
        return FloatAttr(v, None, span)
    if isinstance(v, str):
        return StringAttr(v, None, span)
    if isinstance(v, Word):
        return StringAttr(v.text, None, span)
    if isinstance(v, NameRef):
        return SymbolRefAttr(v.name, (), span)
    if isinstance(v, ReplicaGroups):
        return groups_attr(v, text[a.value_start:a.end], span)
    if isinstance(v, SourceTargetPairs):
        return pairs_attr(v, span)
    if isinstance(v, FrontendAttributes):
        return DictAttr(tuple((k, StringAttr(x)) for k, x in v.items), span)
    if isinstance(v, BackendConfig):
        return StringAttr(v.text, None, span)
    if isinstance(v, tuple) and all(type(x) is int for x in v):
        return DenseArrayAttr("i64", v, span)
    if isinstance(v, tuple) and all(isinstance(x, NameRef) for x in v):
        return ArrayAttr(tuple(StringAttr(f"%{x.name}") if a.name == "control-predecessors" else SymbolRefAttr(x.name)
                               for x in v), span)
    return OpaqueAttr(text[a.value_start:a.end], span)


# --------------------------------------------------------------------------- per op
def _group_size(ins: Instruction, num_replicas: int, num_partitions: int) -> int | None:
    groups = ins.attr("replica_groups")
    if isinstance(groups, ExplicitGroups) and groups.is_all or groups is None:
        # Every participant: replicas without a channel, partitions with one (all_to_all's mode).
        return num_partitions if ins.attr("channel_id") is not None else num_replicas
    return groups.group_size if isinstance(groups, ReplicaGroups) else None


def attributes_of(ins: Instruction, name: str, result_types, num_replicas: int, num_partitions: int,
                  send_recv: FrontendAttributes | None = None, calls_lowered: bool = False) -> dict[str, Attribute]:
    """The IR attributes of instruction `ins` lowered to op `name` (see the module docstring).
    `result_types`: its leaves' types (a constant's value is of that type); `send_recv`: for a
    recv-done, the frontend attributes of the recv it completes (where its pairs are written);
    `calls_lowered`: the computations it names are its regions or its callee (their attributes
    are then not repeated; an op that only names them, as a reduce its reducer, keeps them as
    symbol references)."""
    text = ins.module.source.text
    attrs = ins.attributes
    out: dict[str, Attribute] = {}
    used: set[str] = set()

    def span(key: str):
        a = attrs.get(key)
        return a.value_span if a is not None else None

    def take(key: str):
        used.add(key)
        return ins.attr(key)

    if name == "stablehlo.constant":
        lit = ins.body.literal
        if lit is not None:
            value = literal_attr(lit, result_types[0] if len(result_types) == 1 else None, ins.body_span)
            if value is not None:
                out["value"] = value
    groups = take("replica_groups")
    if isinstance(groups, ReplicaGroups):
        out["replica_groups"] = groups_attr(groups, text[attrs["replica_groups"].value_start:attrs["replica_groups"].end],
                                            span("replica_groups"))
    host = take("is_host_transfer") is True
    channel = take("channel_id")
    if isinstance(channel, int) and not isinstance(channel, bool):
        kind = DEVICE_TO_DEVICE
        if host:
            kind = DEVICE_TO_HOST if ins.opcode.startswith("send") else HOST_TO_DEVICE
        out["channel_handle"] = channel_attr(channel, kind, span("channel_id"))
    if host:
        out["is_host_transfer"] = BoolAttr(True, span("is_host_transfer"))
    if take("use_global_device_ids") is True:
        out["use_global_device_ids"] = UnitAttr(span("use_global_device_ids"))
    pairs = take("source_target_pairs")
    if isinstance(pairs, SourceTargetPairs):
        out["source_target_pairs"] = pairs_attr(pairs, span("source_target_pairs"))
    front = attrs.get("frontend_attributes")
    if ins.opcode in ("send", "recv", "recv-done", "send-done"):
        own = front.value if front is not None and isinstance(front.value, FrontendAttributes) else None
        for fa in (own, send_recv):
            p = fa.send_recv_pairs if fa is not None else None
            if p is not None and "source_target_pairs" not in out:
                out["source_target_pairs"] = pairs_attr(p, front.value_span if fa is own else None)
    dims = ins.attr("dimensions")
    if name in ("stablehlo.all_gather", "hlo.all-gather-start") and isinstance(dims, tuple) and len(dims) == 1:
        used.add("dimensions")
        out["all_gather_dim"] = IntegerAttr(dims[0], _I64, span("dimensions"))
    elif name == "stablehlo.reduce_scatter" and isinstance(dims, tuple) and len(dims) == 1:
        used.add("dimensions")
        out["scatter_dimension"] = IntegerAttr(dims[0], _I64, span("dimensions"))
    elif name == "stablehlo.all_to_all" and isinstance(dims, tuple) and len(dims) == 1:
        used.add("dimensions")
        out["split_dimension"] = IntegerAttr(dims[0], _I64, span("dimensions"))
        out["concat_dimension"] = IntegerAttr(dims[0], _I64, span("dimensions"))
        size = _group_size(ins, num_replicas, num_partitions)
        if size is not None:
            out["split_count"] = IntegerAttr(size, _I64, span("dimensions"))
    elif name == "stablehlo.broadcast_in_dim" and isinstance(dims, tuple):
        used.add("dimensions")
        out["broadcast_dimensions"] = DenseArrayAttr("i64", dims, span("dimensions"))
    if name == "stablehlo.dynamic_slice":
        sizes = take("dynamic_slice_sizes")
        if isinstance(sizes, tuple):
            out["slice_sizes"] = DenseArrayAttr("i64", sizes, span("dynamic_slice_sizes"))
    if name == "stablehlo.compare":
        d = take("direction")
        if isinstance(d, Word):
            out["comparison_direction"] = EnumAttr("stablehlo", "comparison_direction", d.text, span("direction"))
        t = take("type")
        if isinstance(t, Word):
            out["compare_type"] = EnumAttr("stablehlo", "comparison_type", t.text, span("type"))
    if name == "stablehlo.custom_call":
        target = take("custom_call_target")
        if isinstance(target, str):
            out["call_target_name"] = StringAttr(target, None, span("custom_call_target"))
        if take("custom_call_has_side_effect") is True:
            out["has_side_effect"] = BoolAttr(True, span("custom_call_has_side_effect"))
        version = take("api_version")
        if isinstance(version, Word) and version.text in _API_VERSIONS:
            out["api_version"] = IntegerAttr(_API_VERSIONS[version.text], ScalarType("i32"), span("api_version"))
    if ins.opcode == "while":
        config = attrs.get("backend_config")
        if config is not None and isinstance(config.value, BackendConfig):
            n = config.value.known_trip_count
            if n is not None:
                out["hlo.known_trip_count"] = IntegerAttr(n, _I64, config.value_span)
    for key, a in attrs.items():
        if key in used or isinstance(a.value, Metadata) or (calls_lowered and key in REGION_AND_CALL_ATTRS):
            continue
        target = _KEPT.get(key, key)
        if target in out:
            continue
        if key == "sharding":
            out[target] = StringAttr(text[a.value_start:a.end], None, a.value_span)
        else:
            out[target] = generic(a, text)
    return out


REGION_AND_CALL_ATTRS = frozenset({"condition", "body", "true_computation", "false_computation", "branch_computations",
                                   "to_apply", "calls"})
"""Attributes naming computations: lowered as regions or as the callee (ir `callee`), not as attributes."""
