"""send / recv, collective_permute, channel and grid rules: edge cases the corpus
does not spell out (SHLO101–SHLO190)."""
from __future__ import annotations

from shlo_lint import Config, lint_text
from shlo_lint.checker.source.diagnostics import Severity

D2D = "#stablehlo.channel_handle<handle = 1, type = 1>"
D2H = "#stablehlo.channel_handle<handle = 2, type = 2>"
H2D = "#stablehlo.channel_handle<handle = 3, type = 3>"
GRID8 = "{mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32}"


def module(body: str, attrs: str | None = GRID8, args: str = "%arg0: tensor<4xf32>",
           ret: str = "tensor<4xf32>") -> str:
    head = f"module @m attributes {attrs} {{" if attrs else "module @m {"
    return f"{head}\n  func.func public @main({args}) -> {ret} {{\n{body}\n  }}\n}}\n"


def send(pairs: str | None = "dense<[[0, 1]]> : tensor<1x2xi64>", ch: str | None = D2D, extra: str = "",
         payload: str = "tensor<4xf32>", operands: str = "%arg0, %0", res: str = "%1") -> str:
    attrs = ", ".join(a for a in (ch and f"channel_handle = {ch}", extra,
                                  pairs and f"source_target_pairs = {pairs}") if a)
    ins = f"{payload}, " if payload else ""
    return f'    {res} = "stablehlo.send"({operands}) <{{{attrs}}}> : ({ins}!stablehlo.token) -> !stablehlo.token'


def recv(pairs: str | None = "dense<[[0, 1]]> : tensor<1x2xi64>", ch: str | None = D2D, extra: str = "",
         payload: str = "tensor<4xf32>", res: str = "%2:2", tok: str = "%1") -> str:
    attrs = ", ".join(a for a in (ch and f"channel_handle = {ch}", extra,
                                  pairs and f"source_target_pairs = {pairs}") if a)
    outs = f"{payload}, " if payload else ""
    return f'    {res} = "stablehlo.recv"({tok}) <{{{attrs}}}> : (!stablehlo.token) -> ({outs}!stablehlo.token)'


def pair_program(*ops: str, attrs: str | None = GRID8, ret: str = "%2#0") -> str:
    body = "    %0 = stablehlo.create_token : !stablehlo.token\n" + "\n".join(ops)
    return module(body + f"\n    return {ret} : tensor<4xf32>", attrs)


def permute(pairs: str, ch: str | None = D2D, t: str = "tensor<4xf32>", rt: str | None = None,
            name: str = "stablehlo.collective_permute") -> str:
    attrs = ", ".join(a for a in (ch and f"channel_handle = {ch}", f"source_target_pairs = {pairs}") if a)
    return f'    %0 = "{name}"(%arg0) <{{{attrs}}}> : ({t}) -> {rt or t}'


def lint(text: str, **config):
    return lint_text(text, "t.mlir", Config(**config))


def codes(text: str, **config) -> list[str]:
    return sorted(d.code for d in lint(text, **config))


def line_of(text: str, d) -> int:
    return text.count("\n", 0, d.span.start) + 1


# ----------------------------------------------------------------------------- C1
def test_empty_rank1_pairs_are_empty_pairs_not_a_c1_shape_error():
    # `dense<[]> : tensor<0xi64>`: the spec's "None or empty" pairs (the 1.20
    # verifier does not read send/recv pairs; StableHLO's VHLO tests write host
    # transfers so). On a device transfer that is SHLO106 (undefined behaviour)...
    for empty in ("dense<> : tensor<0xi64>", "dense<[]> : tensor<0xi64>"):
        src = pair_program(send(pairs=empty), recv())
        assert codes(src) == ["SHLO106"], empty
        src = pair_program(send(), recv(pairs=empty))
        assert codes(src) == ["SHLO116"], empty
    # ... on a host transfer, nothing
    host = pair_program(send(pairs="dense<[]> : tensor<0xi64>", ch=D2H, extra="is_host_transfer = true"),
                        recv(pairs="dense<[]> : tensor<0xi64>", ch=H2D, extra="is_host_transfer = true"))
    assert codes(host) == []
    # a non-empty flat list is still a shape error, and collective_permute's
    # verifier rejects any rank but 2, empty or not
    assert codes(pair_program(send(pairs="dense<[0, 1]> : tensor<2xi64>"), recv())) == ["SHLO101"]
    assert "SHLO121" in codes(module(permute("dense<[]> : tensor<0xi64>") + "\n    return %0 : tensor<4xf32>"))


def test_shlo101_pairs_must_be_si64():
    src = pair_program(send(pairs="dense<[[0, 1]]> : tensor<1x2xi32>"), recv())
    [d] = lint(src)
    assert d.code == "SHLO101" and "element type i32" in d.message and d.message.endswith("(send C1)")


def test_shlo121_collective_permute_start_pairs_are_checked():
    src = module(permute("dense<[[0, 1], [0, 2]]> : tensor<2x2xi64>", name="stablehlo.collective_permute_start",
                         rt="!stablehlo.future<tensor<4xf32>>")
                 + '\n    %1 = "stablehlo.collective_permute_done"(%0) : (!stablehlo.future<tensor<4xf32>>) -> tensor<4xf32>'
                 + "\n    return %1 : tensor<4xf32>")
    assert "SHLO122" in codes(src)


# ----------------------------------------------------------------------------- C2 / C3
def test_shlo102_note_and_rows():
    src = pair_program(send(pairs="dense<[[0, 1], [2, 3], [0, 2], [0, 4]]> : tensor<4x2xi64>"), recv())
    [d] = [d for d in lint(src) if d.code == "SHLO102"]
    assert d.message == "send: source 0 appears 3 times in source_target_pairs (rows 0, 2 and 3) (send C2)"
    assert d.help == "each process sends at most once per op"
    assert d.notes and d.notes[-1].message == "row 0 is the first pair with source 0"
    assert d.notes[-1].location.span == d.span


def test_splat_pairs_repeat_source_and_target():
    src = pair_program(send(pairs="dense<0> : tensor<2x2xi64>"), recv())
    assert codes(src) == ["SHLO102", "SHLO103"]


def test_shlo113_duplicate_target_on_recv():
    src = pair_program(send(), recv(pairs="dense<[[0, 1], [2, 1]]> : tensor<2x2xi64>"))
    [d] = lint(src)
    assert d.code == "SHLO113" and "target 1 appears twice" in d.message and d.message.endswith("(recv C3)")


# ----------------------------------------------------------------------------- C4
def test_shlo104_minus_one_padding_is_not_valid_in_pairs():
    src = pair_program(send(pairs="dense<[[0, 1], [-1, -1]]> : tensor<2x2xi64>"), recv())
    found = lint(src)
    c4 = [d for d in found if d.code == "SHLO104"]
    assert len(c4) == 1 and "source -1 (row 1), target -1 (row 1)" in c4[0].message
    assert "SHLO102" not in {d.code for d in found}  # -1 appears once per column


def test_shlo104_negative_reported_even_without_grid():
    src = pair_program(send(pairs="dense<[[0, -1]]> : tensor<1x2xi64>"), recv(), attrs=None)
    assert codes(src) == ["SHLO104", "SHLO190"]


def test_shlo104_bound_is_num_partitions_for_positive_channel():
    ok = pair_program(send(pairs="dense<[[6, 7]]> : tensor<1x2xi64>"), recv(pairs="dense<[[6, 7]]> : tensor<1x2xi64>"))
    assert codes(ok) == []
    src = pair_program(send(pairs="dense<[[7, 8]]> : tensor<1x2xi64>"), recv(pairs="dense<[[6, 7]]> : tensor<1x2xi64>"))
    [d] = lint(src)
    assert d.message == "send: source_target_pairs names target 8 (row 0), outside [0, 8) (send C4)"
    assert d.notes[-1].message == "N = num_partitions = 8 (cross_partition: channel_id 1 > 0)"


def test_shlo104_bound_is_num_replicas_without_channel_and_hints_the_channel():
    ch0 = "#stablehlo.channel_handle<handle = 0, type = 1>"
    src = pair_program(send(ch=ch0), recv(ch=ch0), attrs="{mhlo.num_partitions = 2 : i32, mhlo.num_replicas = 1 : i32}")
    c4 = [d for d in lint(src) if d.code == "SHLO104"]
    assert len(c4) == 1 and "outside [0, 1)" in c4[0].message
    assert c4[0].notes[-1].message == "N = num_replicas = 1 (cross_replica: channel_id 0 <= 0)"
    assert c4[0].help and "positive channel_id" in c4[0].help


def test_grid_from_config_overrides_the_module():
    src = pair_program(send(pairs="dense<[[2, 3]]> : tensor<1x2xi64>"), recv(pairs="dense<[[2, 3]]> : tensor<1x2xi64>"),
                       attrs=None)
    assert codes(src) == ["SHLO190"]
    assert codes(src, num_partitions=8, num_replicas=1) == []
    assert codes(src, num_partitions=2) == ["SHLO104", "SHLO114"]


# ----------------------------------------------------------------------------- C5
def test_shlo105_channel_type_0_on_send():
    src = pair_program(send(ch="#stablehlo.channel_handle<handle = 1, type = 0>"), recv())
    [d] = lint(src)
    assert d.code == "SHLO105" and "CHANNEL_TYPE_INVALID" in d.message


def test_shlo105_fix_sets_the_type():
    text = pair_program(send(ch="#stablehlo.channel_handle<handle = 1, type = 2>"), recv())
    [d] = lint(text)
    assert d.fix is not None and d.fix.applicability == "unsafe"
    [edit] = d.fix.edits
    assert text[edit.span.start:edit.span.end] == "#stablehlo.channel_handle<handle = 1, type = 2>"
    assert edit.text == "#stablehlo.channel_handle<handle = 1, type = 1>"


def test_shlo105_missing_channel_handle():
    src = pair_program(send(ch=None), recv())
    assert "SHLO105" in codes(src)
    [d] = [d for d in lint(src) if d.code == "SHLO105"]
    assert "no channel_handle" in d.message


def test_shlo115_recv_host_transfer_says_which_reading():
    ch2 = "#stablehlo.channel_handle<handle = 1, type = 2>"
    src = pair_program(send(pairs=None, ch=ch2, extra="is_host_transfer = true"),
                       recv(pairs=None, ch=ch2, extra="is_host_transfer = true"))
    [d] = lint(src)
    assert d.code == "SHLO115"
    assert d.message.endswith("expected 3 (HOST_TO_DEVICE) (recv C5)") and "RFC" in d.notes[-2].message
    assert d.notes and "is_host_transfer = true is set here" in d.notes[-1].message


def test_host_transfers_with_the_right_types_are_clean():
    src = pair_program(send(pairs=None, ch="#stablehlo.channel_handle<handle = 1, type = 2>", extra="is_host_transfer = true"),
                       recv(pairs=None, ch="#stablehlo.channel_handle<handle = 2, type = 3>", extra="is_host_transfer = true"))
    assert codes(src) == []


def test_type_0_on_all_reduce_is_not_a_send_recv_or_channel_finding():
    body = ('    %0 = "stablehlo.all_reduce"(%arg0) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 0>, '
            'replica_groups = dense<[[0, 1, 2, 3, 4, 5, 6, 7]]> : tensor<1x8xi64>, use_global_device_ids}> ({\n'
            '    ^bb0(%a: tensor<f32>, %b: tensor<f32>):\n'
            '      %s = stablehlo.add %a, %b : tensor<f32>\n'
            '      stablehlo.return %s : tensor<f32>\n'
            '    }) : (tensor<4xf32>) -> tensor<4xf32>\n'
            '    return %0 : tensor<4xf32>')
    assert not [c for c in codes(module(body)) if c.startswith("SHLO1")]


# ----------------------------------------------------------------------------- pairs and host transfers
def test_shlo106_k0_pairs_warn_on_send_but_not_on_collective_permute():
    src = pair_program(send(pairs="dense<> : tensor<0x2xi64>"), recv())
    found = lint(src)
    assert [(d.code, d.severity) for d in found] == [("SHLO106", Severity.WARNING)]
    assert codes(module(permute("dense<> : tensor<0x2xi64>") + "\n    return %0 : tensor<4xf32>")) == []


def test_shlo116_missing_pairs_on_recv():
    src = pair_program(send(), recv(pairs=None))
    assert codes(src) == ["SHLO116"]


def test_shlo107_pairs_on_host_transfer():
    src = pair_program(send(ch="#stablehlo.channel_handle<handle = 1, type = 2>", extra="is_host_transfer = true"),
                       recv(pairs=None, ch="#stablehlo.channel_handle<handle = 2, type = 3>",
                            extra="is_host_transfer = true"))
    assert codes(src) == ["SHLO107"]


# ----------------------------------------------------------------------------- operands and results
def test_send_with_no_payload_is_fine():
    src = pair_program(send(payload="", operands="%0"), recv(payload="", res="%2"), ret="%arg0")
    assert codes(src) == []


def test_shlo118_recv_single_tensor_result():
    src = pair_program(send(), '    %2 = "stablehlo.recv"(%1) <{channel_handle = ' + D2D +
                       ', source_target_pairs = dense<[[0, 1]]> : tensor<1x2xi64>}> : (!stablehlo.token) -> tensor<4xf32>',
                       ret="%2")
    [d] = lint(src)
    assert d.code == "SHLO118" and "last result must be a !stablehlo.token, got tensor<4xf32>" in d.message


def test_shlo108_send_must_return_one_token():
    src = pair_program('    "stablehlo.send"(%arg0, %0) <{channel_handle = ' + D2D +
                       ', source_target_pairs = dense<[[0, 1]]> : tensor<1x2xi64>}> : (tensor<4xf32>, !stablehlo.token) -> ()',
                       ret="%arg0")
    # (the send has no recv: a deadlock, SHLO501, which is the deadlock rules' business)
    assert [d.message for d in lint(src, ignore=("deadlock",))] == \
        ["send: no result; expected one !stablehlo.token (send signature)"]


def test_shlo108_send_token_among_inputs():
    src = pair_program(send(payload="!stablehlo.token, tensor<4xf32>", operands="%0, %arg0, %0"), recv())
    assert "SHLO108" in codes(src)


# ----------------------------------------------------------------------------- payload pairing
def test_shlo120_multiple_payloads_match():
    src = pair_program(send(payload="tensor<4xf32>, tensor<4xf32>", operands="%arg0, %arg0, %0"),
                       recv(payload="tensor<4xf32>, tensor<4xf32>", res="%2:3"))
    assert codes(src) == []


def test_shlo120_note_points_at_the_send():
    src = pair_program(send(), recv(payload="tensor<8xf32>"),
                       '    %3 = stablehlo.slice %2#0 [0:4] : (tensor<8xf32>) -> tensor<4xf32>', ret="%3")
    [d] = lint(src)
    assert d.code == "SHLO120" and line_of(src, d) == 5
    assert d.notes[-1].message == "matching send is here, sending (tensor<4xf32>) on channel 1, pairs [0, 1]"
    assert line_of(src, d.notes[-1].location) == 4


def test_shlo120_needs_overlapping_pairs_and_the_same_channel():
    other = pair_program(send(pairs="dense<[[0, 1]]> : tensor<1x2xi64>"),
                         recv(pairs="dense<[[1, 2]]> : tensor<1x2xi64>", payload="tensor<8xf32>"),
                         '    %3 = stablehlo.slice %2#0 [0:4] : (tensor<8xf32>) -> tensor<4xf32>', ret="%3")
    assert codes(other, ignore=("deadlock",)) == []  # (0 -> 1 is never received: a deadlock, not SHLO120)
    ch2 = "#stablehlo.channel_handle<handle = 2, type = 1>"
    other_channel = pair_program(send(), recv(ch=ch2, payload="tensor<8xf32>"),
                                 '    %3 = stablehlo.slice %2#0 [0:4] : (tensor<8xf32>) -> tensor<4xf32>', ret="%3")
    assert codes(other_channel, ignore=("deadlock",)) == []  # (channels 1 and 2 never meet: SHLO501, not SHLO120)


def test_shlo120_send_in_another_function():
    text = (f"module @m attributes {GRID8} {{\n"
            "  func.func private @producer(%x: tensor<4xf32>, %t: !stablehlo.token) -> !stablehlo.token {\n"
            f"{send(operands='%x, %t', res='%s')}\n"
            "    return %s : !stablehlo.token\n"
            "  }\n"
            "  func.func public @main(%arg0: tensor<4xf32>) -> tensor<2xf32> {\n"
            "    %0 = stablehlo.create_token : !stablehlo.token\n"
            "    %1 = call @producer(%arg0, %0) : (tensor<4xf32>, !stablehlo.token) -> !stablehlo.token\n"
            f"{recv(payload='tensor<2xf32>')}\n"
            "    return %2#0 : tensor<2xf32>\n"
            "  }\n"
            "}\n")
    assert codes(text) == ["SHLO120"]


# ----------------------------------------------------------------------------- collective_permute
def test_shlo125_variadic_per_operand():
    body = ('    %0:2 = "stablehlo.collective_permute"(%arg0, %arg0) <{channel_handle = ' + D2D +
            ', source_target_pairs = dense<[[0, 1]]> : tensor<1x2xi64>}> : (tensor<4xf32>, tensor<4xf32>) '
            '-> (tensor<4xf32>, tensor<2xf32>)\n    return %0#0 : tensor<4xf32>')
    [d] = lint(module(body))
    assert d.code == "SHLO125" and "result #1 type tensor<2xf32> differs from operand type tensor<4xf32>" in d.message


def test_shlo124_collective_permute_minus_one():
    [d] = lint(module(permute("dense<[[0, -1]]> : tensor<1x2xi64>") + "\n    return %0 : tensor<4xf32>"))
    assert d.code == "SHLO124" and d.message.endswith("(collective_permute C4)")


# ----------------------------------------------------------------------------- channels
def _all_reduce(groups: str, ch: str | None = None, flags: str = "") -> str:
    attrs = ", ".join(a for a in (ch and f"channel_handle = {ch}", f"replica_groups = {groups}", flags) if a)
    return module(f'    %0 = "stablehlo.all_reduce"(%arg0) <{{{attrs}}}> ({{\n'
                  '    ^bb0(%a: tensor<f32>, %b: tensor<f32>):\n'
                  '      %s = stablehlo.add %a, %b : tensor<f32>\n'
                  '      stablehlo.return %s : tensor<f32>\n'
                  '    }) : (tensor<4xf32>) -> tensor<4xf32>\n'
                  '    return %0 : tensor<4xf32>',
                  "{mhlo.num_partitions = 4 : i32, mhlo.num_replicas = 2 : i32}")


def test_shlo130_all_reduce_without_channel_over_partition_ids():
    found = [d for d in lint(_all_reduce("dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>")) if d.code == "SHLO130"]
    assert len(found) == 1 and "use_global_device_ids" in (found[0].help or "")


def test_shlo130_not_for_valid_replica_groups_or_global_ids_or_positive_channel():
    assert "SHLO130" not in codes(_all_reduce("dense<[[0, 1]]> : tensor<1x2xi64>"))
    assert "SHLO130" not in codes(_all_reduce("dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>", flags="use_global_device_ids"))
    assert "SHLO130" not in codes(_all_reduce("dense<[[0, 1, 2, 3, 4, 5, 6, 7]]> : tensor<1x8xi64>", ch=D2D,
                                              flags="use_global_device_ids"))


def test_repeated_channel_ids_are_fine():
    body = (permute("dense<[[0, 1], [1, 0]]> : tensor<2x2xi64>") + "\n"
            + permute("dense<[[0, 1], [1, 0]]> : tensor<2x2xi64>").replace("%0 =", "%1 =").replace("(%arg0)", "(%0)")
            + "\n    return %1 : tensor<4xf32>")
    assert codes(module(body)) == []


# ----------------------------------------------------------------------------- grid
def test_one_grid_note_for_many_ops_at_the_module():
    ops = [permute("dense<[[0, 1]]> : tensor<1x2xi64>").replace("%0 =", f"%p{i} =") for i in range(3)]
    ops += ["    %0 = stablehlo.create_token : !stablehlo.token", send(), recv(), "    return %2#0 : tensor<4xf32>"]
    text = module("\n".join(ops), attrs=None)
    notes = [d for d in lint(text) if d.code == "SHLO190"]
    assert len(notes) == 1 and notes[0].severity == Severity.INFO and line_of(text, notes[0]) == 1
    assert "4 checks skipped" in notes[0].message
    assert "collective_permute C4 (ids < N), recv C4 (ids < N), send C4 (ids < N)" in notes[0].notes[-1].message
    assert "--num-partitions" in (notes[0].help or "")


def test_no_grid_note_when_nothing_needed_the_grid():
    host = pair_program(send(pairs=None, ch="#stablehlo.channel_handle<handle = 1, type = 2>", extra="is_host_transfer = true"),
                        recv(pairs=None, ch="#stablehlo.channel_handle<handle = 2, type = 3>", extra="is_host_transfer = true"),
                        attrs=None)
    assert codes(host) == []
    assert codes(module("    return %arg0 : tensor<4xf32>", attrs=None)) == []
