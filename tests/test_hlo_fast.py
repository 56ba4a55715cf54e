"""The fast path (checker/frontend/hlo/scan.py's line regex, checker/frontend/hlo/body.py) reads exactly what
the grammar (grammar/hlo.lark via checker/frontend/hlo/grammar.py) reads: every instruction of every
fixture and of a generated module, operands, attributes, typed values and spans alike; and
it takes (does not leave to the grammar) the forms XLA prints."""
from __future__ import annotations

import random

import pytest

from shlo_lint.checker.frontend.hlo import Body, read_hlo
from shlo_lint.checker.frontend.hlo.grammar import ParsedModule, parse

from hlo_helpers import ALL


def lark_body(m, ins) -> Body:
    start, end = ins.body_span
    rule = {"constant": "constant_body", "parameter": "parameter_body"}.get(ins.opcode, "body")
    got = parse(m.source.text[start:end], rule, start)
    assert isinstance(got, Body), got
    return got


def same(fast: Body, slow: Body) -> bool:
    return fast._replace(by_fast_path=True) == slow._replace(by_fast_path=True)


def check_module(text: str, path: str = "<generated>"):
    """Read `text` both ways; return the HloText (fast) for further checks."""
    m = read_hlo(text, path)
    assert m.parse_all() == []
    whole = parse(text, "module")
    assert isinstance(whole, ParsedModule), whole
    assert whole.name == m.name
    assert {a.name: a for a in whole.header_attributes} == m.header
    assert whole.tables == m.tables
    assert [c.header.name for c in whole.computations] == list(m.computations)
    for pc in whole.computations:
        comp = m.computations[pc.header.name]
        assert (pc.header.parameters, pc.header.result) == (comp.parameters, comp.result_shape)
        assert pc.header.is_entry == comp.is_entry and pc.header.name_span == comp.name_span
        assert {a.name: a for a in pc.attributes} == comp.attributes
        assert len(pc.instructions) == len(comp.instructions)
        for pi, ins in zip(pc.instructions, comp.instructions):
            where = f"{path}: %{ins.name}"
            assert (pi.name, pi.is_root, pi.opcode) == (ins.name, ins.is_root, ins.opcode), where
            assert (pi.span, pi.name_span, pi.opcode_span, pi.shape_span) == \
                (ins.span, ins.name_span, ins.opcode_span, ins.shape_span), where
            assert pi.shape == ins.shape, where
            assert same(ins.body, pi.body), f"{where}\nfast: {ins.body}\nlark: {pi.body}"
            assert same(ins.body, lark_body(m, ins)), where
    return m


@pytest.mark.parametrize("path", ALL, ids=lambda p: p.name)
def test_fixture_reads_the_same_both_ways(path):
    m = check_module(path.read_text(encoding="utf-8"), str(path))
    if path.name != "unknown_forms.hlo":  # XLA's own output: the fast path takes every body
        assert all(ins.body.by_fast_path for ins in m.instructions())


# --------------------------------------------------------------------------- a generated module
_VALUES = {
    "channel_id": ["1", "42"],
    "replica_groups": ["{{0,1,2,3},{4,5,6,7}}", "{}", "{ {0, 1} , {2,3} }", "[2,4]<=[8]", "[2,4]<=[4,2]T(1,0)",
                       "[4,2]<=[2,2,2]T(2,0,1)", "mesh['x'=2,'y'=4] {'x'}", "mesh['x'=2, 'y'=4] {'y':(1)2, 'x'}",
                       "mesh['x'=2,'y'=4], device_ids=([4,2]T(1,0)) {'y'}",
                       "mesh['x'=2,'y'=4], device_ids=(7,6,5,4,3,2,1,0) {'x'}", "mesh[x=2,y=4] {x:(1)2}"],
    "use_global_device_ids": ["true", "false"],
    "source_target_pairs": ["{{0,1},{1,0}}", "{}"],
    "dimensions": ["{0}", "{}", "{1,0}", "{ 2 , 3 }"],
    "to_apply": ["%sum", "sum"],
    "control-predecessors": ["{%a}", "{%a, %b}"],
    "metadata": ['{op_name="jit(f)/x" stack_frame_id=2}', '{op_type="t" op_name="a\\"b" source_file="f.py" '
                 'source_line=7}', '{}', '{op_name="x", profile_type={1,2}}'],
    "frontend_attributes": ['{_xla_send_recv_pipeline="0",_xla_send_recv_validation="{{0,3}}"}', "{}",
                            '{k={a = #b.c<["x"=2]>}}'],
    "backend_config": ['{"known_trip_count":{"n":"3"}}', '"plain"', '"esc\\"aped\\n"', '{}'],
    "sharding": ["{replicated}", "{devices=[2,4]<=[8]}", "{{maximal device=0}, {replicated}}"],
    "slice": ["{[0:2], [1:4:2]}"],
    "window": ["{size=2x2 stride=1x1 pad=0_1x0_1}"],
    "dim_labels": ["b01f_01io->b01f"],
    "padding": ["0_1_0x2_3"],
    "custom_call_target": ['"kernel"'],
    "kind": ["kLoop", "kCustom"],
    "epsilon": ["0.001", "-inf", "1e-05"],
    "operand_precision": ["{default,highest}"],
    "flags": ["{true,false}"],
    "mystery": ["[1,2]", "(f32[2]{0}, token[])", "f32[4]{0}", "{a=b c=d}", "{{0}: (0, {})}", "ident.with-dashes"],
}
_SHAPES = ["f32[8]{0}", "f32[]", "(f32[8]{0}, s32[])", "bf16[2,4]{1,0:T(2,128)}", "s32[<=8]{0}",
           "(f32[2]{0}, /*index=1*/u32[], token[])"]


def generated_module(seed: int, n: int) -> str:
    rng = random.Random(seed)
    lines = ["HloModule generated, is_scheduled=true, num_partitions=8, "
             'frontend_attributes={xla.sdy.meshes={mesh = #sdy.mesh<["x"=2, "y"=4]>}}', "",
             "%sum (x: f32[], y: f32[]) -> f32[] {", "  %x = f32[] parameter(0)", "  %y = f32[] parameter(1)",
             "  ROOT %add = f32[] add(%x, %y)", "}", "",
             "ENTRY %main (a: f32[8], b: f32[8]) -> f32[8] {",
             "  %a = f32[8]{0} parameter(0)", "  %b = f32[8]{0} parameter(1)"]
    names = ["a", "b"]
    for i in range(n):
        shape = rng.choice(_SHAPES)
        ops = rng.sample(names, k=min(len(names), rng.randint(0, 3)))
        ops = [(rng.choice(_SHAPES) + " " if rng.random() < 0.2 else "") + "%" + o for o in ops]
        keys = rng.sample(sorted(_VALUES), k=rng.randint(0, 5))
        attrs = "".join(f", {k}={rng.choice(_VALUES[k])}" for k in keys)
        opcode = rng.choice(["all-reduce", "fusion", "custom-call", "add", "collective-permute-start", "send"])
        name = f"i{i}"
        if rng.random() < 0.1:
            lines.append(f"  %{name} = {shape} constant({rng.choice(['1', '{ {1, 2}, {3, 4} }', '(1, -2.5)'])}){attrs}")
        else:
            lines.append(f"  %{name} = {shape} {opcode}({', '.join(ops)}){attrs}")
        names.append(name)
    lines.append(f"  ROOT %out = f32[8]{{0}} add(%a, %{names[-1]})")
    lines.append("}")
    return "\n".join(lines) + "\n"


def test_generated_module_reads_the_same_both_ways():
    text = generated_module(seed=22, n=1500)
    m = check_module(text)
    taken = sum(ins.body.by_fast_path for ins in m.instructions())
    assert taken == len(list(m.instructions()))  # every form above is one the fast path reads


def test_fast_path_leaves_unusual_layouts_to_the_grammar():
    text = ("HloModule m\n\nENTRY %e (a: f32[2]) -> f32[2] {\n  %a = f32[2]{0} parameter(0)\n"
            "  %n = f32[2]{0} add(f32[2]{0} negate(%a), %a) /* nested */, metadata={op_name=\"x\"}\n"
            "  ROOT %r = f32[2]{0} add(%n,\n      %a),\n    metadata={op_name=\"spread\"\n    }\n}\n")
    m = check_module(text)
    n, r = m.entry.instruction("n"), m.entry.instruction("r")
    assert not n.body.by_fast_path and not r.body.by_fast_path
    assert r.operand_names == ("n", "a") and r.metadata.op_name == "spread"
    assert m.snippet(r.span).endswith("}") and m.entry.root is r
